-- GET /v1/me/schedule (a week, page 1): PostgresFollowRepository.schedule, for a viewer
-- following 500 influencers.
WITH matches AS (SELECT p.id, p.group_buying_end FROM follows f JOIN posts p ON p.influencer_id = f.influencer_id
    WHERE f.user_id = :viewer AND p.group_buying_end >= :week_start AND p.group_buying_start < :week_end
      AND p.group_buying_end < :week_end::timestamptz + (SELECT longest FROM post_window_bounds))
SELECT (SELECT count(*)::int FROM matches),
       p.id, p.product_name, p.price, p.category_id, c.name, p.display_url, p.group_buying_url,
       p.group_buying_start, p.group_buying_end, p.likes_count, p.posted_at, p.submitted_by,
       i.id, i.username, i.full_name, i.profile_pic_url, i.external_url,
       COALESCE((SELECT true FROM likes l WHERE l.user_id = :viewer::uuid AND l.post_id = p.id), false),
       p.post_url, array_to_string(p.hashtags, ' '), p.post_type
FROM (
    SELECT id, group_buying_end FROM matches ORDER BY group_buying_end, id OFFSET :skip LIMIT :limit
) page JOIN posts p ON p.id = page.id JOIN influencers i ON i.id = p.influencer_id JOIN categories c ON c.id = p.category_id
ORDER BY p.group_buying_end, p.id;
