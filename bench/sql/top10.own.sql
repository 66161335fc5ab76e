-- GET /v1/posts/top10 while the ranking is cached (10 s): PostgresPostRepository.top10.
SELECT p.id, p.product_name, p.price, p.category_id, c.name, p.display_url, p.group_buying_url,
       p.group_buying_start, p.group_buying_end, p.likes_count, p.posted_at, p.submitted_by,
       i.id, i.username, i.full_name, i.profile_pic_url, i.external_url,
       COALESCE((SELECT true FROM likes l WHERE l.user_id = :viewer::uuid AND l.post_id = p.id), false)
FROM posts p JOIN influencers i ON i.id = p.influencer_id JOIN categories c ON c.id = p.category_id WHERE p.id = ANY(:ids::bigint[]);
