-- GET /v1/posts/top10 while the ranking and its posts are kept (10 s): the fresh part of
-- PostgresPostRepository.top10, the ten posts' like counts and the viewer's likes.
SELECT p.id, p.likes_count, EXISTS (SELECT 1 FROM likes l WHERE l.user_id = :viewer::uuid AND l.post_id = p.id)
FROM posts p WHERE p.id = ANY(:ids::bigint[]);
