-- PUT/DELETE /v1/posts/{id}/like by many users: PostgresPostRepository.setLike through
-- LikeBatches, here a group of one like (the server's groups hold the likes of any posts that
-- arrived while two groups committed; a post's only like in a group whose row is free counts
-- itself, others write a delta folded after; migrations 0034, 0040). The user is picked by
-- number from bench_like_users (a primary-key probe bench/run creates), as wrk's script picks
-- one of the same 500 users.
\set n random(1, 500)
\set liked random(0, 1)
SELECT post, counted, value FROM set_likes_group(ARRAY[:post::bigint], ARRAY[(SELECT id FROM bench_like_users WHERE n = :n)], ARRAY[:liked = 1]);
