-- The ingest API: the automation that fills the feed (n8n) writes through the server
-- instead of into the database.
--
-- Service API keys: shown once when made, stored as the SHA-256 of their text (a key is
-- 32 random bytes, so a plain hash cannot be reversed by guessing), one scope each.
CREATE TABLE service_api_keys (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name         text NOT NULL UNIQUE CHECK (name ~ '^[A-Za-z0-9._-]{1,64}$'),
    scope        text NOT NULL CHECK (scope IN ('ingest')),
    key_hash     bytea NOT NULL UNIQUE CHECK (octet_length(key_hash) = 32),
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz,
    revoked_at   timestamptz
);

-- The Instagram post a post came from (one Instagram post may offer several products), so
-- the workflow skips posts it already turned into offers.
ALTER TABLE posts ADD COLUMN instagram_post_id text CHECK (char_length(instagram_post_id) BETWEEN 1 AND 64);
CREATE INDEX posts_instagram_post ON posts (instagram_post_id) WHERE instagram_post_id IS NOT NULL;
