-- Recounts post_day_counts (0009) from posts. For loaders that write posts with triggers
-- off (`seed bulk` runs with session_replication_role = replica) and must rebuild every
-- counter afterwards.
CREATE FUNCTION post_day_counts_rebuild() RETURNS void
LANGUAGE sql AS $$
    DELETE FROM post_day_counts;
    INSERT INTO post_day_counts (day, category_id, starts, ends)
    SELECT day, category_id, sum(s), sum(e) FROM (
        SELECT korea_day(group_buying_start) AS day, category_id, 1 AS s, 0 AS e FROM posts
        UNION ALL SELECT korea_day(group_buying_end), category_id, 0, 1 FROM posts) x
    GROUP BY day, category_id;
$$;
