-- Images of the old Supabase project's public buckets, adopted into the media library by
-- `market09 import supabase-media`: each object (`<bucket>/<path>`, as its public URL spells
-- it) and the URL it is served at here.
CREATE TABLE supabase_media (
    object      text PRIMARY KEY CHECK (char_length(object) BETWEEN 3 AND 1024),
    media_name  text NOT NULL CHECK (media_name ~ '^[0-9a-f]{64}\.(jpg|png|heic|webp)$'),
    url         text NOT NULL CHECK (url ~ '^https?://'),
    bytes       bigint NOT NULL CHECK (bytes > 0),
    imported_at timestamptz NOT NULL DEFAULT now()
);

-- The object a Supabase Storage public URL names (`https://<project>.supabase.co/storage/v1/
-- object/public/<bucket>/<path>`), or NULL.
CREATE FUNCTION supabase_storage_object(url text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT substring(url FROM '^https?://[^/?#]+/storage/v1/object/public/([^?#]+)')
$$;

-- The URL an image is served at now: an imported object's URL here, else the URL as given.
-- ($1, not the parameter's name: inside the subquery `url` would be the table's column.)
CREATE FUNCTION current_media_url(old_url text) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT COALESCE((SELECT m.url FROM supabase_media m WHERE m.object = supabase_storage_object($1)), $1)
$$;

-- An old URL arriving later (the app in users' hands, the ingest API, an import) is stored
-- as the imported object's URL here, whichever path wrote it. The WHEN clause keeps the
-- cost off every other write.
CREATE FUNCTION posts_current_media_url() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.display_url := current_media_url(NEW.display_url);
    RETURN NEW;
END $$;
CREATE TRIGGER posts_current_media_url BEFORE INSERT OR UPDATE OF display_url ON posts
    FOR EACH ROW WHEN (NEW.display_url LIKE '%/storage/v1/object/public/%') EXECUTE FUNCTION posts_current_media_url();

CREATE FUNCTION users_current_media_url() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.profile_url := current_media_url(NEW.profile_url);
    RETURN NEW;
END $$;
CREATE TRIGGER users_current_media_url BEFORE INSERT OR UPDATE OF profile_url ON users
    FOR EACH ROW WHEN (NEW.profile_url LIKE '%/storage/v1/object/public/%') EXECUTE FUNCTION users_current_media_url();

CREATE FUNCTION influencers_current_media_url() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.profile_pic_url := current_media_url(NEW.profile_pic_url);
    RETURN NEW;
END $$;
CREATE TRIGGER influencers_current_media_url BEFORE INSERT OR UPDATE OF profile_pic_url ON influencers
    FOR EACH ROW WHEN (NEW.profile_pic_url LIKE '%/storage/v1/object/public/%') EXECUTE FUNCTION influencers_current_media_url();
