-- PUT/DELETE /v1/posts/{id}/like by many users: PostgresPostRepository.setLike through
-- LikeBatches, here a lone like (the server's batches hold the likes that arrived while the
-- previous one committed, and write a delta folded after; migration 0034). The user is picked by number from bench_like_users (a
-- primary-key probe bench/run creates), as wrk's script picks one of the same 500 users.
\set n random(1, 500)
\set liked random(0, 1)
SELECT counted, value FROM set_likes(:post, ARRAY[(SELECT id FROM bench_like_users WHERE n = :n)], ARRAY[:liked = 1], true);
