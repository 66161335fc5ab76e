-- GET /v1/posts?limit=20 (default order, first page): PostgresFeedRepository.dailyOrder.
SELECT t.total, p.id, p.product_name, p.price, p.category_id, c.name, p.display_url, p.group_buying_url,
       p.group_buying_start, p.group_buying_end, p.likes_count, p.posted_at, p.submitted_by,
       i.id, i.username, i.full_name, i.profile_pic_url, i.external_url,
       COALESCE((SELECT true FROM likes l WHERE l.user_id = :viewer::uuid AND l.post_id = p.id), false),
       p.post_url, array_to_string(p.hashtags, ' '), p.post_type
FROM (SELECT COALESCE(sum(post_count), 0)::int AS total FROM category_post_counts) t
LEFT JOIN ((SELECT u.post_id, u.section, u.ordinal FROM (
               (SELECT r.post_id, 0 AS section, row_number() OVER (ORDER BY r.rank, r.post_id) AS ordinal
                FROM (SELECT f.post_id, f.rank FROM feed_ranks f WHERE f.day = :day::date
                      ORDER BY f.rank, f.post_id LIMIT 20) r)
               UNION ALL
               (SELECT r.id, 1, row_number() OVER (ORDER BY r.group_buying_end DESC, r.id DESC)
                FROM (SELECT x.id, x.group_buying_end FROM posts x WHERE x.group_buying_end < :day_start
                      ORDER BY x.group_buying_end DESC, x.id DESC LIMIT 20) r)) u
            ORDER BY u.section, u.ordinal LIMIT 20) r
           JOIN posts p ON p.id = r.post_id JOIN influencers i ON i.id = p.influencer_id
           JOIN categories c ON c.id = p.category_id) ON true
ORDER BY r.section, r.ordinal;
