-- The content pipeline keeps what the original kept, and cannot hurt what members made.
--
-- Influencers: the Instagram user id (stable across renames; the original's key), the link
-- title of the profile and when the profile was last read. Upserts go by the Instagram id
-- when a row has one, else by username; a rename moves the username.
ALTER TABLE influencers
    ADD COLUMN instagram_id       text CHECK (instagram_id ~ '^[0-9]{1,32}$'),
    ADD COLUMN external_url_title text CHECK (char_length(external_url_title) <= 200),
    ADD COLUMN last_synced_at     timestamptz;
CREATE UNIQUE INDEX influencers_instagram_id ON influencers (instagram_id) WHERE instagram_id IS NOT NULL;

-- Where each post came in: a member's (`app`), the ingest API's, or an import's (the
-- Supabase project's posts are the original pipeline's, and seeded data). The bulk doors
-- never change a member's post. Existing rows: every post without a submitter is bulk
-- content (instant: a constant default rewrites no row), the ingested ones named as such,
-- and members' posts (submitted_by, indexed) marked; writers say their source from now on,
-- and a writer that forgets gets the protected kind.
ALTER TABLE posts ADD COLUMN source text NOT NULL DEFAULT 'import' CHECK (source IN ('app', 'ingest', 'import'));
UPDATE posts SET source = 'app' WHERE submitted_by IS NOT NULL;
UPDATE posts SET source = 'ingest' WHERE instagram_post_id IS NOT NULL AND submitted_by IS NULL;
ALTER TABLE posts ALTER COLUMN source SET DEFAULT 'app';

-- The window bounds of migration 0015 only widened: one post dated 1900 or 9999 (taken
-- before every door checked posted_at) widened them for good, and every date and status
-- filter lost its narrow index range even after the post was fixed or deleted. These two
-- indexes make the true bounds three index probes away, so they can be tightened.
CREATE INDEX posts_window_length ON posts ((group_buying_end - group_buying_start));
CREATE INDEX posts_window_lead ON posts ((group_buying_start - posted_at));

-- Widening now holds the feed lock shared (post writes already do, in their feed
-- triggers), so a tightening that holds it exclusively sees every post whose writer could
-- still be relying on the old, wider bounds.
CREATE OR REPLACE FUNCTION post_window_bounds_widen(longest interval, lead_min interval, lead_max interval) RETURNS void
LANGUAGE sql AS $$
    SELECT pg_advisory_xact_lock_shared(feed_lock_key());
    UPDATE post_window_bounds b
    SET longest = greatest(b.longest, $1), lead_min = least(b.lead_min, $2), lead_max = greatest(b.lead_max, $3)
    WHERE b.longest IS DISTINCT FROM greatest(b.longest, $1) OR b.lead_min IS DISTINCT FROM least(b.lead_min, $2)
       OR b.lead_max IS DISTINCT FROM greatest(b.lead_max, $3);
$$;

-- Sets the bounds to what the posts hold when they are wider (a bounding post was edited
-- or deleted); true when it tightened them. The check takes no lock; the tightening waits
-- at most 500 ms for post writers in flight (a writer holds the lock to its commit), so it
-- gives up before PostgreSQL's deadlock check could pick a writer, and runs again later.
CREATE FUNCTION post_window_bounds_tighten() RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
    stored post_window_bounds;
BEGIN
    SELECT * INTO stored FROM post_window_bounds;
    IF (SELECT max(group_buying_end - group_buying_start) FROM posts) IS NOT DISTINCT FROM stored.longest
       AND (SELECT min(group_buying_start - posted_at) FROM posts) IS NOT DISTINCT FROM stored.lead_min
       AND (SELECT max(group_buying_start - posted_at) FROM posts) IS NOT DISTINCT FROM stored.lead_max THEN
        RETURN false;
    END IF;
    PERFORM set_config('lock_timeout', '500ms', true);
    PERFORM pg_advisory_xact_lock(feed_lock_key());
    -- A statement after the lock: it sees every post committed by the writers it waited for.
    UPDATE post_window_bounds
    SET longest = (SELECT max(group_buying_end - group_buying_start) FROM posts),
        lead_min = (SELECT min(group_buying_start - posted_at) FROM posts),
        lead_max = (SELECT max(group_buying_start - posted_at) FROM posts);
    RETURN true;
END;
$$;
