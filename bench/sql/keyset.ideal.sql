-- The ideal read of the 20 posts after a cursor: a range scan of the posted_at index.
SELECT p.id, p.product_name, p.price, p.category_id, p.display_url, p.group_buying_url, p.group_buying_start,
       p.group_buying_end, p.likes_count, p.posted_at, i.id, i.username, i.full_name, i.profile_pic_url, i.external_url,
       COALESCE((SELECT true FROM likes l WHERE l.user_id = :viewer::uuid AND l.post_id = p.id), false),
       p.post_url, array_to_string(p.hashtags, ' '), p.post_type
FROM (SELECT id FROM posts WHERE (posted_at, id) < (to_timestamp(:cursor_key), :cursor_id) ORDER BY posted_at DESC, id DESC LIMIT :limit) x
JOIN posts p ON p.id = x.id JOIN influencers i ON i.id = p.influencer_id;
