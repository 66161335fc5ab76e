-- The statements market09 runs for GET /v1/posts?limit=20 (default order, page 1).
SELECT COALESCE(sum(open_count), 0)::int FROM feed_open_counts WHERE day = :day::date;
SELECT COALESCE(sum(post_count), 0)::int FROM category_post_counts;
SELECT p.id, p.product_name, p.price, p.category_id, c.name, p.display_url, p.group_buying_url,
       p.group_buying_start, p.group_buying_end, p.likes_count, p.posted_at, p.submitted_by,
       i.id, i.username, i.full_name, i.profile_pic_url, i.external_url,
       EXISTS (SELECT 1 FROM likes l WHERE l.user_id = :viewer::uuid AND l.post_id = p.id)
FROM (SELECT post_id, rank FROM feed_ranks WHERE day = :day::date ORDER BY rank, post_id OFFSET 0 LIMIT 20) r
JOIN posts p ON p.id = r.post_id JOIN influencers i ON i.id = p.influencer_id JOIN categories c ON c.id = p.category_id
ORDER BY r.rank, r.post_id;
