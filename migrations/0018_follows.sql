-- Follows of influencers, their schedule, and a user's own posts.

CREATE TABLE follows (
    user_id       uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    influencer_id bigint NOT NULL REFERENCES influencers (id) ON DELETE CASCADE,
    created_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, influencer_id)
);

-- "My follows", most recent first; the primary key serves the is_followed probe and the
-- schedule's walk over a user's follows. Deleting an influencer finds its follows here.
CREATE INDEX follows_user_created ON follows (user_id, created_at DESC, influencer_id DESC);
CREATE INDEX follows_influencer ON follows (influencer_id);

-- How many 09Market users follow an influencer (followers_count is Instagram's), moved in
-- the same transaction as the row it counts, whichever path changes the rows (follow,
-- unfollow, account deletion).
ALTER TABLE influencers ADD COLUMN app_followers_count integer NOT NULL DEFAULT 0 CHECK (app_followers_count >= 0);

CREATE FUNCTION follows_maintain_count() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE influencers SET app_followers_count = app_followers_count + 1 WHERE id = NEW.influencer_id;
        RETURN NEW;
    ELSE
        UPDATE influencers SET app_followers_count = app_followers_count - 1 WHERE id = OLD.influencer_id;
        RETURN OLD;
    END IF;
END;
$$;

CREATE TRIGGER follows_count_insert AFTER INSERT ON follows
    FOR EACH ROW EXECUTE FUNCTION follows_maintain_count();
CREATE TRIGGER follows_count_delete AFTER DELETE ON follows
    FOR EACH ROW EXECUTE FUNCTION follows_maintain_count();

-- The schedule: per followed influencer, the posts ending in a stretch of time, with the
-- start to test overlap without visiting the row.
CREATE INDEX posts_influencer_end ON posts (influencer_id, group_buying_end, id) INCLUDE (group_buying_start);

-- "My posts", newest first.
DROP INDEX posts_submitted_by;
CREATE INDEX posts_submitted_by ON posts (submitted_by, posted_at DESC, id DESC) WHERE submitted_by IS NOT NULL;
