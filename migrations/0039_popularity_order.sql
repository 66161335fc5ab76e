-- A like no longer rewrites every index of posts.
--
-- posts_likes indexed likes_count, so no update of a post's count was HOT: each like (each
-- fold of likes) wrote a new entry into all 16 indexes of posts, among them the GIN index of
-- the post's ~65 search grams. n_tup_hot_upd stayed 0 over like/unlike pairs. Measured on a
-- 200 k-post copy of the bench data, 20,000 count updates one by one:
--   as before (16 indexes, full pages):                 94-147 µs each
--   without the likes index, fillfactor 85:              15-22 µs each, 95 % HOT
--   the same plus this table kept by the trigger below:  36-56 µs each
--
-- The popular order now lives in post_popularity: one narrow row per post with the count
-- and the columns the feed's filters read (window, category, posted_at, influencer), under
-- the order index posts_likes was. posts.likes_count stays what every reader reads; the
-- triggers below copy each change into this table in the same transaction, so the order and
-- the counts it shows never disagree.
CREATE TABLE post_popularity (
    id                 bigint PRIMARY KEY REFERENCES posts (id) ON DELETE CASCADE,
    likes_count        integer NOT NULL,
    posted_at          timestamptz NOT NULL,
    group_buying_start timestamptz NOT NULL,
    group_buying_end   timestamptz NOT NULL,
    category_id        text NOT NULL,
    influencer_id      bigint NOT NULL
) WITH (fillfactor = 90);

INSERT INTO post_popularity
SELECT id, likes_count, posted_at, group_buying_start, group_buying_end, category_id, influencer_id FROM posts;

-- The feed's popular order (likes, then id) with its filters' columns, as posts_likes had
-- them (migration 0014); the Top 10's tie order (posted_at) is sorted within equal counts.
CREATE INDEX post_popularity_order ON post_popularity (likes_count DESC, id DESC)
    INCLUDE (posted_at, group_buying_start, group_buying_end, category_id);

DROP INDEX posts_likes;

-- Room on each page for a post's next version, so an update of its count stays on its page
-- (HOT). Pages written before this fill up as posts move: the first like of a post on a
-- full page moves it to a page with room, and its later likes are HOT there.
ALTER TABLE posts SET (fillfactor = 90);

CREATE FUNCTION posts_popularity_inserted() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO post_popularity
    SELECT id, likes_count, posted_at, group_buying_start, group_buying_end, category_id, influencer_id FROM inserted;
    RETURN NULL;
END;
$$;

CREATE TRIGGER posts_popularity_inserted AFTER INSERT ON posts
    REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION posts_popularity_inserted();

CREATE FUNCTION posts_popularity_updated() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE post_popularity
    SET likes_count = NEW.likes_count, posted_at = NEW.posted_at, group_buying_start = NEW.group_buying_start,
        group_buying_end = NEW.group_buying_end, category_id = NEW.category_id, influencer_id = NEW.influencer_id
    WHERE id = NEW.id;
    RETURN NULL;
END;
$$;

CREATE TRIGGER posts_popularity_updated
    AFTER UPDATE OF likes_count, posted_at, group_buying_start, group_buying_end, category_id, influencer_id ON posts
    FOR EACH ROW WHEN (OLD.likes_count IS DISTINCT FROM NEW.likes_count OR OLD.posted_at IS DISTINCT FROM NEW.posted_at
                       OR OLD.group_buying_start IS DISTINCT FROM NEW.group_buying_start
                       OR OLD.group_buying_end IS DISTINCT FROM NEW.group_buying_end
                       OR OLD.category_id IS DISTINCT FROM NEW.category_id OR OLD.influencer_id IS DISTINCT FROM NEW.influencer_id)
    EXECUTE FUNCTION posts_popularity_updated();

ANALYZE post_popularity;
