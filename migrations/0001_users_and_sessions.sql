-- Accounts and sign-in state.
--
-- Every client starts as an anonymous user (a row with is_anonymous = true and no
-- identity) and may later attach an identity (email + password, Google, Apple), which
-- makes the same user id permanent. Only permanent users carry a profile.

CREATE TABLE users (
    id           uuid PRIMARY KEY,
    is_anonymous boolean NOT NULL,
    role         text NOT NULL DEFAULT 'user' CHECK (role IN ('user', 'admin')),
    nickname     text CHECK (char_length(nickname) BETWEEN 1 AND 30),
    profile_url  text CHECK (profile_url ~ '^https?://'),
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT anonymous_users_have_no_profile
        CHECK (NOT is_anonymous OR (nickname IS NULL AND profile_url IS NULL AND role = 'user'))
);

-- Finds stale anonymous users for pruning without scanning permanent ones.
CREATE INDEX users_anonymous_created_at ON users (created_at) WHERE is_anonymous;

-- A way to sign in as a user. (provider, subject) names the external account: the
-- normalised email for 'email', the OpenID Connect `sub` for Google and Apple.
CREATE TABLE identities (
    id            uuid PRIMARY KEY,
    user_id       uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    provider      text NOT NULL CHECK (provider IN ('email', 'google', 'apple')),
    subject       text NOT NULL CHECK (char_length(subject) BETWEEN 1 AND 255),
    email         text CHECK (char_length(email) <= 254),
    password_hash text,
    created_at    timestamptz NOT NULL DEFAULT now(),
    last_sign_in_at timestamptz,
    CONSTRAINT identities_provider_subject_key UNIQUE (provider, subject),
    CONSTRAINT email_identities_have_password
        CHECK ((provider = 'email') = (password_hash IS NOT NULL))
);

CREATE INDEX identities_user_id ON identities (user_id);
CREATE UNIQUE INDEX identities_email_key ON identities (lower(email)) WHERE provider = 'email';

-- A signed-in device. Access tokens carry the session id (`sid`); revoking the session
-- invalidates them and every refresh token of the session.
CREATE TABLE sessions (
    id              uuid PRIMARY KEY,
    user_id         uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at      timestamptz NOT NULL DEFAULT now(),
    refreshed_at    timestamptz NOT NULL DEFAULT now(),
    not_after       timestamptz,
    revoked_at      timestamptz,
    revoked_reason  text CHECK (revoked_reason IN ('logout', 'refresh_token_reused', 'user_deleted', 'merged', 'expired')),
    user_agent      text CHECK (char_length(user_agent) <= 512),
    ip              inet,
    CONSTRAINT revocation_has_reason CHECK ((revoked_at IS NULL) = (revoked_reason IS NULL))
);

CREATE INDEX sessions_user_id ON sessions (user_id);
CREATE INDEX sessions_revoked_at ON sessions (revoked_at) WHERE revoked_at IS NOT NULL;

-- Opaque refresh tokens, stored only as SHA-256 hashes. A token is used once: refreshing
-- marks it used and issues its successor (replaced_by). Within a short grace window a
-- reused token returns that same successor; later reuse revokes the session.
CREATE TABLE refresh_tokens (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    session_id  uuid NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    token_hash  bytea NOT NULL CHECK (octet_length(token_hash) = 32),
    created_at  timestamptz NOT NULL DEFAULT now(),
    used_at     timestamptz,
    replaced_by bigint REFERENCES refresh_tokens (id) ON DELETE SET NULL,
    CONSTRAINT refresh_tokens_token_hash_key UNIQUE (token_hash)
);

CREATE INDEX refresh_tokens_session_id ON refresh_tokens (session_id);
