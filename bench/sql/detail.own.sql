-- GET /v1/posts/{id}: PostRows.find.
SELECT p.id, p.product_name, p.price, p.category_id, c.name, p.display_url, p.group_buying_url,
       p.group_buying_start, p.group_buying_end, p.likes_count, p.posted_at, p.submitted_by,
       i.id, i.username, i.full_name, i.profile_pic_url, i.external_url,
       COALESCE((SELECT true FROM likes l WHERE l.user_id = :viewer::uuid AND l.post_id = p.id), false),
       p.post_url, array_to_string(p.hashtags, ' '), p.post_type, p.caption
FROM posts p JOIN influencers i ON i.id = p.influencer_id JOIN categories c ON c.id = p.category_id WHERE p.id = :post;
