-- The default feed order, materialised per Korea day, and the counters that make its
-- totals exact without counting rows per request.
--
-- feed_ranks holds, for each materialised day, every post still open at the start of that
-- day (end >= midnight KST) with a pseudo-random rank derived from the post id and the day.
-- The default feed is those posts by rank, then every other post by end time, newest
-- first. Because membership is fixed at midnight, the order is stable for the whole day:
-- paging through it returns each post once even while posts close during the day.

CREATE TABLE feed_days (
    day         date PRIMARY KEY,
    day_start   timestamptz NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE feed_ranks (
    day         date NOT NULL REFERENCES feed_days (day) ON DELETE CASCADE,
    post_id     bigint NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
    category_id text NOT NULL,
    rank        integer NOT NULL,
    PRIMARY KEY (day, post_id)
);

CREATE INDEX feed_ranks_order ON feed_ranks (day, rank, post_id);
CREATE INDEX feed_ranks_category_order ON feed_ranks (day, category_id, rank, post_id);
CREATE INDEX feed_ranks_post ON feed_ranks (post_id);

-- Posts per category (all time) and open-at-midnight posts per day and category.
CREATE TABLE category_post_counts (
    category_id text PRIMARY KEY REFERENCES categories (id),
    post_count  integer NOT NULL DEFAULT 0 CHECK (post_count >= 0)
);
INSERT INTO category_post_counts (category_id) SELECT id FROM categories;

CREATE TABLE feed_open_counts (
    day         date NOT NULL REFERENCES feed_days (day) ON DELETE CASCADE,
    category_id text NOT NULL,
    open_count  integer NOT NULL DEFAULT 0 CHECK (open_count >= 0),
    PRIMARY KEY (day, category_id)
);

CREATE FUNCTION feed_rank(post bigint, day date) RETURNS integer
LANGUAGE sql IMMUTABLE AS $$ SELECT hashtext(post::text || ':' || day::text) $$;

-- A key for pg_advisory_xact_lock: materialising a day takes it exclusively, post
-- writes share it, so a post written during materialisation is never missed.
CREATE FUNCTION feed_lock_key() RETURNS bigint LANGUAGE sql IMMUTABLE AS $$ SELECT 7305903937155580217::bigint $$;

CREATE FUNCTION posts_maintain_feed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock_shared(feed_lock_key());
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        UPDATE category_post_counts SET post_count = post_count - 1 WHERE category_id = OLD.category_id;
        DELETE FROM feed_ranks WHERE post_id = OLD.id;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        UPDATE category_post_counts SET post_count = post_count + 1 WHERE category_id = NEW.category_id;
        INSERT INTO feed_ranks (day, post_id, category_id, rank)
            SELECT d.day, NEW.id, NEW.category_id, feed_rank(NEW.id, d.day)
            FROM feed_days d WHERE NEW.group_buying_end >= d.day_start;
        RETURN NEW;
    END IF;
    RETURN OLD;
END;
$$;

CREATE TRIGGER posts_feed_insert AFTER INSERT ON posts
    FOR EACH ROW EXECUTE FUNCTION posts_maintain_feed();
CREATE TRIGGER posts_feed_update AFTER UPDATE OF category_id, group_buying_end ON posts
    FOR EACH ROW WHEN (OLD.category_id IS DISTINCT FROM NEW.category_id OR OLD.group_buying_end IS DISTINCT FROM NEW.group_buying_end)
    EXECUTE FUNCTION posts_maintain_feed();
CREATE TRIGGER posts_feed_delete AFTER DELETE ON posts
    FOR EACH ROW EXECUTE FUNCTION posts_maintain_feed();

CREATE FUNCTION feed_ranks_maintain_counts() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO feed_open_counts (day, category_id, open_count) VALUES (NEW.day, NEW.category_id, 1)
            ON CONFLICT (day, category_id) DO UPDATE SET open_count = feed_open_counts.open_count + 1;
        RETURN NEW;
    END IF;
    UPDATE feed_open_counts SET open_count = open_count - 1 WHERE day = OLD.day AND category_id = OLD.category_id;
    RETURN OLD;
END;
$$;

CREATE TRIGGER feed_ranks_count_insert AFTER INSERT ON feed_ranks
    FOR EACH ROW EXECUTE FUNCTION feed_ranks_maintain_counts();
CREATE TRIGGER feed_ranks_count_delete AFTER DELETE ON feed_ranks
    FOR EACH ROW EXECUTE FUNCTION feed_ranks_maintain_counts();

-- Search: case-insensitive substring matches on product and influencer names.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX posts_product_name_trgm ON posts USING gin (lower(product_name) gin_trgm_ops);
CREATE INDEX influencers_username_trgm ON influencers USING gin (lower(username) gin_trgm_ops);
CREATE INDEX influencers_full_name_trgm ON influencers USING gin (lower(full_name) gin_trgm_ops);
CREATE INDEX posts_influencer ON posts (influencer_id, posted_at DESC, id DESC);
