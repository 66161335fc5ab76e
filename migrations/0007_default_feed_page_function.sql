-- The ids of one page of the default feed, in order: the day's open posts by rank, then
-- closed posts by end time, newest first (see 0004).
--
-- Why a function: the page query joins posts, influencers and categories. With OFFSET and
-- LIMIT as parameters, PostgreSQL's generic plan for that join assumes 10 % of the day's
-- rows and hash-joins every influencer, so it re-plans the whole join on every execution
-- (about half of the database's CPU per feed request on 1 M posts). Behind a function
-- declared to return 20 rows, the caller's join has one plan that fits every page, and
-- the statements inside touch one table each, so planning them is cheap.
CREATE FUNCTION feed_default_page(p_day date, p_day_start timestamptz, p_category text, p_skip integer, p_take integer)
RETURNS TABLE (post_id bigint, ordinal integer)
LANGUAGE plpgsql STABLE ROWS 20 AS $$
DECLARE
    open_total integer;
    taken integer := 0;
BEGIN
    SELECT COALESCE(sum(f.open_count), 0) INTO open_total
    FROM feed_open_counts f WHERE f.day = p_day AND (p_category IS NULL OR f.category_id = p_category);
    IF p_skip < open_total THEN
        -- One statement per shape, so each keeps a plan that uses its index.
        IF p_category IS NULL THEN
            RETURN QUERY SELECT r.post_id, (row_number() OVER (ORDER BY r.rank, r.post_id))::integer
                FROM (SELECT f.post_id, f.rank FROM feed_ranks f WHERE f.day = p_day
                      ORDER BY f.rank, f.post_id OFFSET p_skip LIMIT p_take) r;
        ELSE
            RETURN QUERY SELECT r.post_id, (row_number() OVER (ORDER BY r.rank, r.post_id))::integer
                FROM (SELECT f.post_id, f.rank FROM feed_ranks f WHERE f.day = p_day AND f.category_id = p_category
                      ORDER BY f.rank, f.post_id OFFSET p_skip LIMIT p_take) r;
        END IF;
        GET DIAGNOSTICS taken = ROW_COUNT;
    END IF;
    IF taken < p_take THEN
        IF p_category IS NULL THEN
            RETURN QUERY SELECT c.id, (taken + row_number() OVER (ORDER BY c.group_buying_end DESC, c.id DESC))::integer
                FROM (SELECT p.id, p.group_buying_end FROM posts p WHERE p.group_buying_end < p_day_start
                      ORDER BY p.group_buying_end DESC, p.id DESC OFFSET greatest(0, p_skip - open_total) LIMIT p_take - taken) c;
        ELSE
            RETURN QUERY SELECT c.id, (taken + row_number() OVER (ORDER BY c.group_buying_end DESC, c.id DESC))::integer
                FROM (SELECT p.id, p.group_buying_end FROM posts p WHERE p.group_buying_end < p_day_start AND p.category_id = p_category
                      ORDER BY p.group_buying_end DESC, p.id DESC OFFSET greatest(0, p_skip - open_total) LIMIT p_take - taken) c;
        END IF;
    END IF;
END;
$$;
