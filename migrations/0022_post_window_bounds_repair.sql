-- Repairs the bounds of databases bulk-seeded before `seed bulk` widened them (it loads
-- with triggers off, so they stayed NULL): with a NULL `longest` a schedule found nothing
-- and date and status filters walked posts_posted_at unbounded. Widening only ever
-- widens, so on a correct database this changes nothing. One scan of posts (1 M: ~0.5 s).
SELECT post_window_bounds_widen(max(group_buying_end - group_buying_start), min(group_buying_start - posted_at),
                                max(group_buying_start - posted_at))
FROM posts;
