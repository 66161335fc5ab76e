-- Uploaded images (their files live in the media directory, named by content), and what
-- refers to them: a post's display_url or a profile's profile_url ending in /media/<name>.

CREATE TABLE uploads (
    name         text PRIMARY KEY CHECK (name ~ '^[0-9a-f]{64}\.(jpg|png|heic|webp)$'),
    content_type text NOT NULL,
    bytes        bigint NOT NULL CHECK (bytes > 0),
    width        integer,
    height       integer,
    uploaded_by  uuid REFERENCES users (id) ON DELETE SET NULL,
    created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX uploads_created ON uploads (created_at);

-- The media name a URL refers to, or NULL: the pruning job asks, per old upload, whether
-- any post or profile refers to it, through these indexes.
CREATE FUNCTION media_name(url text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT substring(url FROM '/media/([0-9a-f]{64}\.(?:jpg|png|heic|webp))$')
$$;

CREATE INDEX posts_display_media ON posts (media_name(display_url)) WHERE media_name(display_url) IS NOT NULL;
CREATE INDEX users_profile_media ON users (media_name(profile_url)) WHERE media_name(profile_url) IS NOT NULL;
