-- PUT/DELETE /v1/posts/{id}/like by many users: PostgresPostRepository.setLike through
-- LikeBatches, here a batch of one (the server's batches hold the likes that arrived while
-- the previous one committed). The user is picked by number from bench_like_users (a
-- primary-key probe bench/run creates), as wrk's script picks one of the same 500 users.
\set n random(1, 500)
\set liked random(0, 1)
SELECT set_likes(:post, ARRAY[(SELECT id FROM bench_like_users WHERE n = :n)], ARRAY[:liked = 1]);
