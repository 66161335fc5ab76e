-- What the feed shows: categories, influencers, their group-buying posts, and likes.

CREATE TABLE categories (
    id         text PRIMARY KEY CHECK (id ~ '^[a-z][a-z_]*$'),
    name       text NOT NULL UNIQUE CHECK (char_length(name) BETWEEN 1 AND 30),
    sort_order integer NOT NULL UNIQUE
);

INSERT INTO categories (id, name, sort_order) VALUES
    ('beauty',      '뷰티',       1),
    ('food',        '푸드',       2),
    ('fashion',     '패션',       3),
    ('living',      '리빙',       4),
    ('kids',        '키즈',       5),
    ('electronics', '가전',       6),
    ('travel',      '여행',       7),
    ('pet',         '반려동물',   8),
    ('fitness',     '운동/건강',  9),
    ('education',   '교육/도서', 10),
    ('stationery',  '문구/취미', 11),
    ('camping',     '캠핑/레저', 12),
    ('automotive',  '차량용품',  13);

CREATE TABLE influencers (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    username        text NOT NULL CHECK (username ~ '^[a-z0-9._]{1,30}$'),
    full_name       text CHECK (char_length(full_name) <= 100),
    profile_pic_url text CHECK (profile_pic_url ~ '^https?://'),
    external_url    text CHECK (external_url ~ '^https?://'),
    biography       text CHECK (char_length(biography) <= 2000),
    followers_count integer NOT NULL DEFAULT 0 CHECK (followers_count >= 0),
    category_id     text REFERENCES categories (id),
    created_at      timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT influencers_username_key UNIQUE (username)
);

CREATE TABLE posts (
    id                 bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    influencer_id      bigint NOT NULL REFERENCES influencers (id) ON DELETE CASCADE,
    product_name       text NOT NULL CHECK (char_length(product_name) BETWEEN 1 AND 200),
    price              integer CHECK (price BETWEEN 0 AND 100000000),
    category_id        text NOT NULL REFERENCES categories (id),
    display_url        text CHECK (display_url ~ '^https?://'),
    group_buying_url   text CHECK (group_buying_url ~ '^https?://'),
    group_buying_start timestamptz NOT NULL,
    group_buying_end   timestamptz NOT NULL,
    submitted_by       uuid REFERENCES users (id) ON DELETE SET NULL,
    likes_count        integer NOT NULL DEFAULT 0 CHECK (likes_count >= 0),
    posted_at          timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT posts_window_ordered CHECK (group_buying_start <= group_buying_end),
    -- The app's de-duplication rule: one post per influencer, product and buying window.
    CONSTRAINT posts_dedup_key UNIQUE (influencer_id, product_name, group_buying_start, group_buying_end)
);

-- Feed: open posts of a category, closed posts by end time, newest posts first.
CREATE INDEX posts_category_end ON posts (category_id, group_buying_end DESC, id DESC);
CREATE INDEX posts_end ON posts (group_buying_end DESC, id DESC);
CREATE INDEX posts_posted_at ON posts (posted_at DESC, id DESC);
-- Top 10: posts by likes among those whose window started recently enough.
CREATE INDEX posts_likes ON posts (likes_count DESC, posted_at DESC, id DESC);
-- Date-range filters overlap windows on start.
CREATE INDEX posts_start ON posts (group_buying_start DESC, id DESC);
CREATE INDEX posts_submitted_by ON posts (submitted_by) WHERE submitted_by IS NOT NULL;

CREATE TABLE likes (
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    post_id    bigint NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, post_id)
);

-- "My likes", most recent first; the primary key already serves the is_liked probe.
CREATE INDEX likes_user_created ON likes (user_id, created_at DESC, post_id DESC);
CREATE INDEX likes_post_id ON likes (post_id);

-- posts.likes_count always equals the number of like rows, whatever path changes them
-- (like, unlike, account deletion, merge): the counter moves in the same transaction as
-- the row it counts.
CREATE FUNCTION likes_maintain_count() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE posts SET likes_count = likes_count + 1 WHERE id = NEW.post_id;
        RETURN NEW;
    ELSE
        UPDATE posts SET likes_count = likes_count - 1 WHERE id = OLD.post_id;
        RETURN OLD;
    END IF;
END;
$$;

CREATE TRIGGER likes_count_insert AFTER INSERT ON likes
    FOR EACH ROW EXECUTE FUNCTION likes_maintain_count();
CREATE TRIGGER likes_count_delete AFTER DELETE ON likes
    FOR EACH ROW EXECUTE FUNCTION likes_maintain_count();
