-- A day's feed order is built in steps, each a short transaction holding the feed lock,
-- instead of one transaction holding it for the whole build: at 1 M posts (142 k open)
-- the single transaction took 10.9 s, and every post write waited that long for the lock
-- (past its 2 s statement timeout: 503s for the length of the build, once a day).
--
-- The day's row exists from the first step on, so from then on the post triggers keep
-- its order up to date for every post written; each step then ranks the next posts by id
-- that were there before (ON CONFLICT: a trigger may have ranked a post already, and then
-- by its latest version). `built_through` is the first id not yet visited; NULL once the
-- day is complete (existing days are). Progress lives in the row, under the lock: steps
-- from several instances, or after a crash, continue one build and never repeat one.
ALTER TABLE feed_days ADD COLUMN built_through bigint;

-- One step of building `p_day`'s order: ranks up to `p_batch` open posts from
-- `built_through` on (at least one). Returns true once the day is complete.
CREATE FUNCTION feed_day_build_step(p_day date, p_day_start timestamptz, p_batch integer) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
    v_from bigint;
    v_until bigint;
BEGIN
    -- A complete day stays complete: no lock to find that out.
    IF EXISTS (SELECT 1 FROM feed_days WHERE day = p_day AND built_through IS NULL) THEN
        RETURN true;
    END IF;
    -- Exclusive against post writes (which share the lock), so none is half-seen by a step.
    PERFORM pg_advisory_xact_lock(feed_lock_key());
    INSERT INTO feed_days (day, day_start, built_through) VALUES (p_day, p_day_start, 0) ON CONFLICT (day) DO NOTHING;
    SELECT built_through INTO v_from FROM feed_days WHERE day = p_day;
    IF v_from IS NULL THEN
        RETURN true;
    END IF;
    -- The first open post after this step's batch (NULL: the batch reaches the end).
    SELECT id INTO v_until FROM posts WHERE id >= v_from AND group_buying_end >= p_day_start
        ORDER BY id OFFSET greatest(p_batch, 1) LIMIT 1;
    INSERT INTO feed_ranks (day, post_id, category_id, rank)
        SELECT p_day, id, category_id, feed_rank(id, p_day) FROM posts
        WHERE id >= v_from AND (v_until IS NULL OR id < v_until) AND group_buying_end >= p_day_start
        ON CONFLICT (day, post_id) DO NOTHING;
    UPDATE feed_days SET built_through = v_until WHERE day = p_day;
    RETURN v_until IS NULL;
END;
$$;

-- Deleting posts takes the feed lock before the first row goes (it took it after, in the
-- AFTER trigger): a step's foreign-key check waits on a post's row lock, so a delete that
-- held that row while waiting for the step's lock deadlocked with it.
CREATE FUNCTION posts_feed_lock_shared() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock_shared(feed_lock_key());
    RETURN NULL;
END;
$$;

CREATE TRIGGER posts_feed_lock_before_delete BEFORE DELETE ON posts
    FOR EACH STATEMENT EXECUTE FUNCTION posts_feed_lock_shared();

-- One step of forgetting the days before `p_before`: deletes up to `p_batch` of their
-- ranks (no lock: nobody reads those days), and once none is left, the days themselves
-- under the feed lock. Returns true when they are gone. (One DELETE of a whole day held
-- its row for seconds, and a post write ranking its post for that day waited on it and
-- then failed its foreign key when the day was gone.)
CREATE FUNCTION feed_days_discard_step(p_before date, p_batch integer) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM feed_ranks WHERE (day, post_id) IN
        (SELECT day, post_id FROM feed_ranks WHERE day < p_before LIMIT greatest(p_batch, 1));
    IF FOUND THEN
        RETURN false;
    END IF;
    -- Most passes find no old day: they take no lock.
    IF EXISTS (SELECT 1 FROM feed_days WHERE day < p_before) THEN
        PERFORM pg_advisory_xact_lock(feed_lock_key());
        DELETE FROM feed_days WHERE day < p_before;
    END IF;
    RETURN true;
END;
$$;
