-- PUT/DELETE /v1/posts/{id}/like by many users: PostgresPostRepository.setLike. The user
-- is picked by number from bench_like_users (a primary-key probe bench/run creates), as
-- wrk's script picks one of the same 500 users per request.
\set n random(1, 500)
\set liked random(0, 1)
SELECT set_like((SELECT id FROM bench_like_users WHERE n = :n), :post, :liked = 1);
