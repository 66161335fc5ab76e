-- Idempotency-Key on POST /v1/posts: a retried request with the same key and the same
-- request gets the first answer back and creates nothing new; another request under the
-- same key is refused (422). Keys are per user and live 24 hours. The request is kept as
-- a SHA-256 of method, path and body (32 bytes, whatever the body's size); the answer as
-- its status and body. A claim whose request never finished (no status after a minute:
-- the server stopped mid-request) may be claimed again.
CREATE TABLE idempotency_keys (
    user_id       uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    key           text NOT NULL CHECK (char_length(key) BETWEEN 1 AND 255),
    request_hash  bytea NOT NULL,
    status        integer,
    response_body text,
    created_at    timestamptz NOT NULL,
    PRIMARY KEY (user_id, key)
);
-- The housekeeping pass deletes keys past their 24 hours.
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
