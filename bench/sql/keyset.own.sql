-- GET /v1/posts?limit=20&sort=latest&cursor=K: PostgresFeedRepository.page (orderedPage).
SELECT (SELECT COALESCE(sum(post_count), 0)::int FROM category_post_counts WHERE true), p.id, p.product_name, p.price, p.category_id, c.name, p.display_url, p.group_buying_url,
       p.group_buying_start, p.group_buying_end, p.likes_count, p.posted_at, p.submitted_by,
       i.id, i.username, i.full_name, i.profile_pic_url, i.external_url,
       COALESCE((SELECT true FROM likes l WHERE l.user_id = :viewer::uuid AND l.post_id = p.id), false),
       p.post_url, array_to_string(p.hashtags, ' '), p.post_type, extract(epoch FROM p.posted_at)::float8
FROM (SELECT p.id FROM posts p WHERE (p.posted_at, p.id) < (to_timestamp(:cursor_key), :cursor_id)
      ORDER BY p.posted_at DESC, p.id DESC LIMIT 21) page
JOIN posts p ON p.id = page.id JOIN influencers i ON i.id = p.influencer_id JOIN categories c ON c.id = p.category_id
ORDER BY p.posted_at DESC, p.id DESC;
