-- "Open now" in one place: per category, the posts open at the day's midnight (the
-- feed_open_counts counter) minus those that closed since (a small range of posts_end).
-- The category list and the totals of lists of open (or closed) posts all read it; the
-- server had written it twice. A SQL function of one SELECT, inlined by the planner, so a
-- caller's category condition reaches the range scan.
CREATE FUNCTION open_post_counts(day date, day_start timestamptz, at timestamptz)
RETURNS TABLE (category_id text, open_count integer)
LANGUAGE sql STABLE AS $$
    SELECT c.id, (COALESCE(f.open_count, 0) - COALESCE(x.closed, 0))::integer
    FROM categories c
    LEFT JOIN feed_open_counts f ON f.day = open_post_counts.day AND f.category_id = c.id
    LEFT JOIN (SELECT p.category_id, count(*) AS closed FROM posts p
               WHERE p.group_buying_end >= open_post_counts.day_start AND p.group_buying_end < open_post_counts.at
               GROUP BY p.category_id) x ON x.category_id = c.id
$$;
