-- GET /v1/posts?limit=20&page=N, N > 1 (default order): PostgresFeedRepository.dailyOrder.
SELECT t.total, p.id, p.product_name, p.price, p.category_id, c.name, p.display_url, p.group_buying_url,
       p.group_buying_start, p.group_buying_end, p.likes_count, p.posted_at, p.submitted_by,
       i.id, i.username, i.full_name, i.profile_pic_url, i.external_url,
       COALESCE((SELECT true FROM likes l WHERE l.user_id = :viewer::uuid AND l.post_id = p.id), false),
       p.post_url, array_to_string(p.hashtags, ' '), p.post_type
FROM (SELECT COALESCE(sum(post_count), 0)::int AS total FROM category_post_counts) t
LEFT JOIN ((SELECT post_id, 0 AS section, ordinal FROM feed_default_page(:day::date, :day_start, NULL::text, :skip, :limit)) r
           JOIN posts p ON p.id = r.post_id JOIN influencers i ON i.id = p.influencer_id
           JOIN categories c ON c.id = p.category_id) ON true
ORDER BY r.section, r.ordinal;
