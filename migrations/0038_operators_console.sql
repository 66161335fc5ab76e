-- The operators' console (/admin): its sessions, the audit log of every admin action, and
-- the hidden state of posts and influencers.

-- Console sessions: a random token in an HttpOnly cookie, stored as its SHA-256; the
-- CSRF token every form carries. Revoking an admin deletes their rows (admin_role_changed
-- below), so their console sessions end at once, on every instance.
CREATE TABLE console_sessions (
    token_hash   bytea PRIMARY KEY CHECK (octet_length(token_hash) = 32),
    user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    csrf_token   text NOT NULL CHECK (char_length(csrf_token) = 43),
    address      text CHECK (char_length(address) <= 64),
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_seen_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX console_sessions_user ON console_sessions (user_id);

CREATE FUNCTION admin_role_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM console_sessions WHERE user_id = NEW.id;
    RETURN NULL;
END;
$$;
CREATE TRIGGER users_admin_revoked AFTER UPDATE OF role ON users
    FOR EACH ROW WHEN (OLD.role = 'admin' AND NEW.role <> 'admin') EXECUTE FUNCTION admin_role_changed();

-- Who did what, when, from where, before → after. The actor is kept as text (and id): the
-- log outlives the account. Rows are never changed; only the retention job deletes them.
CREATE TABLE admin_audit (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at         timestamptz NOT NULL DEFAULT now(),
    actor_id   uuid,
    actor      text NOT NULL CHECK (char_length(actor) BETWEEN 1 AND 300),
    channel    text NOT NULL CHECK (channel IN ('console', 'cli', 'api')),
    address    text CHECK (char_length(address) <= 64),
    action     text NOT NULL CHECK (action ~ '^[a-z_.]{1,64}$'),
    target     text NOT NULL CHECK (char_length(target) BETWEEN 1 AND 300),
    before     jsonb,
    after      jsonb
);
CREATE INDEX admin_audit_at ON admin_audit (at DESC, id DESC);

CREATE FUNCTION admin_audit_immutable() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the audit log is never changed' USING ERRCODE = 'insufficient_privilege';
END;
$$;
CREATE TRIGGER admin_audit_no_update BEFORE UPDATE ON admin_audit
    FOR EACH ROW EXECUTE FUNCTION admin_audit_immutable();

-- Hidden posts leave `posts`: every read path (the day's ranks, the counters, search's
-- grams, Top 10, the Supabase surface) reads `posts` alone and stays as it was, with no
-- per-row test on the hot paths. The row, its likes and its Supabase alias are kept here,
-- whole, and showing the post puts them back (its likes counted again by their trigger).
CREATE TABLE hidden_posts (
    id                 bigint PRIMARY KEY,
    influencer_id      bigint NOT NULL REFERENCES influencers (id) ON DELETE CASCADE,
    submitted_by       uuid REFERENCES users (id) ON DELETE SET NULL,
    product_name       text NOT NULL,
    group_buying_start timestamptz NOT NULL,
    group_buying_end   timestamptz NOT NULL,
    instagram_post_id  text,
    display_url        text,
    post               jsonb NOT NULL,
    likes              jsonb NOT NULL DEFAULT '[]',
    aliases            text[] NOT NULL DEFAULT '{}',
    hidden_at          timestamptz NOT NULL DEFAULT now(),
    -- Hidden with its influencer: shown again with it, not on its own.
    with_influencer    boolean NOT NULL DEFAULT false
);
CREATE INDEX hidden_posts_influencer ON hidden_posts (influencer_id);
CREATE INDEX hidden_posts_submitted_by ON hidden_posts (submitted_by) WHERE submitted_by IS NOT NULL;
CREATE INDEX hidden_posts_key ON hidden_posts (influencer_id, product_name, group_buying_start, group_buying_end);
CREATE INDEX hidden_posts_instagram ON hidden_posts (instagram_post_id) WHERE instagram_post_id IS NOT NULL;
CREATE INDEX hidden_posts_display_media ON hidden_posts (media_name(display_url)) WHERE media_name(display_url) IS NOT NULL;

ALTER TABLE influencers ADD COLUMN hidden_at timestamptz;
CREATE INDEX influencers_hidden ON influencers (id) WHERE hidden_at IS NOT NULL;

-- Moves a post to hidden_posts; its row as it was, or NULL when there is none.
CREATE FUNCTION post_hide(p_id bigint, p_with_influencer boolean) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
    snapshot jsonb;
BEGIN
    SELECT to_jsonb(p) - 'search_grams' INTO snapshot FROM posts p WHERE p.id = p_id FOR UPDATE;
    IF snapshot IS NULL THEN
        RETURN NULL;
    END IF;
    INSERT INTO hidden_posts (id, influencer_id, submitted_by, product_name, group_buying_start, group_buying_end,
                              instagram_post_id, display_url, post, likes, aliases, with_influencer)
    SELECT p.id, p.influencer_id, p.submitted_by, p.product_name, p.group_buying_start, p.group_buying_end,
           p.instagram_post_id, p.display_url, snapshot,
           COALESCE((SELECT jsonb_agg(jsonb_build_array(l.user_id, l.created_at)) FROM likes l WHERE l.post_id = p.id), '[]'),
           ARRAY(SELECT a.text_id FROM supabase_post_ids a WHERE a.post_id = p.id), p_with_influencer
    FROM posts p WHERE p.id = p_id;
    DELETE FROM posts WHERE id = p_id;
    RETURN snapshot;
END;
$$;

-- Puts a hidden post back, with the likes of accounts that still exist; its row, or NULL
-- when no post of that id is hidden. The dedup key taken meanwhile raises unique_violation.
CREATE FUNCTION post_show(p_id bigint) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
    kept hidden_posts;
BEGIN
    DELETE FROM hidden_posts WHERE id = p_id RETURNING * INTO kept;
    IF kept.id IS NULL THEN
        RETURN NULL;
    END IF;
    INSERT INTO posts OVERRIDING SYSTEM VALUE
    SELECT (jsonb_populate_record(NULL::posts, kept.post || '{"likes_count": 0, "search_grams": []}'::jsonb)).*;
    -- The grams are the insert trigger's to compute (migration 0013).
    INSERT INTO likes (user_id, post_id, created_at)
    SELECT (l ->> 0)::uuid, p_id, (l ->> 1)::timestamptz FROM jsonb_array_elements(kept.likes) l
    WHERE EXISTS (SELECT 1 FROM users u WHERE u.id = (l ->> 0)::uuid);
    INSERT INTO supabase_post_ids (text_id, post_id) SELECT unnest(kept.aliases), p_id ON CONFLICT DO NOTHING;
    RETURN kept.post;
END;
$$;

-- Calls each service key has made (its handler's check counts one), for the console.
ALTER TABLE service_api_keys ADD COLUMN calls bigint NOT NULL DEFAULT 0;

-- When a post arrived (the overview's "ingested per hour"; posted_at is Instagram's time).
-- now() is stable: existing rows take the migration's time without a table rewrite.
ALTER TABLE posts ADD COLUMN created_at timestamptz NOT NULL DEFAULT now();
CREATE INDEX posts_ingested_at ON posts (created_at) WHERE source = 'ingest';
-- The overview counts a week of likes and sign-ups by hour. Both tables are appended in
-- time order, so a BRIN index reads only the week's blocks and costs the like path next
-- to nothing (a B-tree on likes would add a page write to every like).
CREATE INDEX likes_created_brin ON likes USING brin (created_at);
CREATE INDEX users_created_brin ON users USING brin (created_at);
