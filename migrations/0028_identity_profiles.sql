-- What an identity provider states about its user (Google's `name` and `picture` claims),
-- kept per identity as GoTrue keeps identity_data: a sign-in refreshes them, and they
-- fill the profile's nickname and picture where the user has none. updated_at says when
-- they last changed (Supabase clients read it on every identity).
ALTER TABLE identities
    ADD COLUMN name text CHECK (char_length(name) <= 200),
    ADD COLUMN picture text CHECK (char_length(picture) <= 2048),
    ADD COLUMN updated_at timestamptz;
UPDATE identities SET updated_at = COALESCE(last_sign_in_at, created_at);
ALTER TABLE identities ALTER COLUMN updated_at SET DEFAULT now(), ALTER COLUMN updated_at SET NOT NULL;
