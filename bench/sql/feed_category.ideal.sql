-- The ideal read of a 20-post category page: by the (category, end time) index.
SELECT p.id, p.product_name, p.price, p.category_id, p.display_url, p.group_buying_url, p.group_buying_start,
       p.group_buying_end, p.likes_count, p.posted_at, i.id, i.username, i.full_name, i.profile_pic_url, i.external_url,
       COALESCE((SELECT true FROM likes l WHERE l.user_id = :viewer::uuid AND l.post_id = p.id), false),
       p.post_url, array_to_string(p.hashtags, ' '), p.post_type
FROM (SELECT id FROM posts WHERE category_id = :category ORDER BY group_buying_end DESC, id DESC OFFSET :skip LIMIT :limit) x
JOIN posts p ON p.id = x.id JOIN influencers i ON i.id = p.influencer_id;
