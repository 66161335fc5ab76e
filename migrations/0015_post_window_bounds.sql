-- How far apart a post's times can be, over every post ever written: the longest buying
-- window, and the least and greatest lead of a window's start over the post's posted_at.
-- A list sorted newest first and filtered by the window (a date range, a status) derives
-- from these where in posted_at order its posts can be, and walks only that stretch of
-- posts_posted_at: the posts of a day in June lie 918 k posts deep in that order (100 ms
-- to skip inside the index; 1 ms from the bound).
--
-- The bounds only ever widen (a deleted or edited post leaves them as they were), so
-- they hold for every post there is. One row; a writer touches it only when a post
-- widens a bound, and concurrent widenings serialize on it.
CREATE TABLE post_window_bounds (
    only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    longest  interval,  -- max(group_buying_end - group_buying_start); NULL before any post
    lead_min interval,  -- min(group_buying_start - posted_at)
    lead_max interval   -- max(group_buying_start - posted_at)
);
INSERT INTO post_window_bounds (longest, lead_min, lead_max)
    SELECT max(group_buying_end - group_buying_start), min(group_buying_start - posted_at),
           max(group_buying_start - posted_at)
    FROM posts;

-- greatest() and least() skip NULLs: an empty statement changes nothing.
CREATE FUNCTION post_window_bounds_widen(longest interval, lead_min interval, lead_max interval) RETURNS void
LANGUAGE sql AS $$
    UPDATE post_window_bounds b
    SET longest = greatest(b.longest, $1), lead_min = least(b.lead_min, $2), lead_max = greatest(b.lead_max, $3)
    WHERE b.longest IS DISTINCT FROM greatest(b.longest, $1) OR b.lead_min IS DISTINCT FROM least(b.lead_min, $2)
       OR b.lead_max IS DISTINCT FROM greatest(b.lead_max, $3);
$$;

CREATE FUNCTION posts_window_bounds_inserted() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM post_window_bounds_widen(max(group_buying_end - group_buying_start), min(group_buying_start - posted_at),
                                     max(group_buying_start - posted_at))
    FROM inserted;
    RETURN NULL;
END;
$$;

CREATE FUNCTION posts_window_bounds_updated() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM post_window_bounds_widen(NEW.group_buying_end - NEW.group_buying_start, NEW.group_buying_start - NEW.posted_at,
                                     NEW.group_buying_start - NEW.posted_at);
    RETURN NULL;
END;
$$;

CREATE TRIGGER posts_window_bounds_inserted AFTER INSERT ON posts
    REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION posts_window_bounds_inserted();
-- Row-level with a column list (a like's update of likes_count does not fire it).
CREATE TRIGGER posts_window_bounds_updated AFTER UPDATE OF group_buying_start, group_buying_end, posted_at ON posts
    FOR EACH ROW WHEN (OLD.group_buying_start IS DISTINCT FROM NEW.group_buying_start
                       OR OLD.group_buying_end IS DISTINCT FROM NEW.group_buying_end
                       OR OLD.posted_at IS DISTINCT FROM NEW.posted_at)
    EXECUTE FUNCTION posts_window_bounds_updated();
