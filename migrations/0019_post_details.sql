-- What a post carries from its Instagram original, and a newest-first list per hashtag.

ALTER TABLE posts
    ADD COLUMN post_url  text CHECK (post_url ~ '^https?://'),
    ADD COLUMN caption   text CHECK (char_length(caption) <= 2200),
    ADD COLUMN hashtags  text[] NOT NULL DEFAULT '{}' CHECK (cardinality(hashtags) <= 30),
    ADD COLUMN post_type text CHECK (post_type ~ '^[A-Za-z_]{1,20}$');

-- One row per post and tag, with the post's posted_at, so a hashtag's page is a range of
-- one index in the list's order (a GIN index on posts.hashtags reads every post of a tag
-- and sorts them: O(posts with the tag) per page). posted_at never changes.
CREATE TABLE post_hashtags (
    tag       text NOT NULL,
    post_id   bigint NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
    posted_at timestamptz NOT NULL,
    PRIMARY KEY (post_id, tag)
);
CREATE INDEX post_hashtags_tag_posted ON post_hashtags (tag, posted_at DESC, post_id DESC);

-- Posts per tag: a hashtag page's exact total without counting.
CREATE TABLE hashtag_counts (
    tag   text PRIMARY KEY,
    posts integer NOT NULL CHECK (posts >= 0)
);

-- The rows follow posts.hashtags in the same transaction, whichever path writes it
-- (create, edit, import); deleting a post deletes its rows through the foreign key.
CREATE FUNCTION posts_hashtags_sync() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        DELETE FROM post_hashtags WHERE post_id = NEW.id AND tag <> ALL (NEW.hashtags);
    END IF;
    INSERT INTO post_hashtags (tag, post_id, posted_at)
    SELECT DISTINCT t, NEW.id, NEW.posted_at FROM unnest(NEW.hashtags) t
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END;
$$;

CREATE TRIGGER posts_hashtags_inserted AFTER INSERT ON posts
    FOR EACH ROW WHEN (cardinality(NEW.hashtags) > 0) EXECUTE FUNCTION posts_hashtags_sync();
CREATE TRIGGER posts_hashtags_updated AFTER UPDATE OF hashtags ON posts
    FOR EACH ROW WHEN (OLD.hashtags IS DISTINCT FROM NEW.hashtags) EXECUTE FUNCTION posts_hashtags_sync();

CREATE FUNCTION hashtag_counts_maintain() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO hashtag_counts (tag, posts) VALUES (NEW.tag, 1)
        ON CONFLICT (tag) DO UPDATE SET posts = hashtag_counts.posts + 1;
    ELSE
        UPDATE hashtag_counts SET posts = posts - 1 WHERE tag = OLD.tag;
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER hashtag_counts_insert AFTER INSERT ON post_hashtags
    FOR EACH ROW EXECUTE FUNCTION hashtag_counts_maintain();
CREATE TRIGGER hashtag_counts_delete AFTER DELETE ON post_hashtags
    FOR EACH ROW EXECUTE FUNCTION hashtag_counts_maintain();
