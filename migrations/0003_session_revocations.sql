-- An append-only feed of ended sessions. Every server instance keeps the recent entries
-- in memory and polls for new ones, so an access token of a revoked session is refused
-- everywhere within a second without a database query per request. Triggers fill it,
-- so every path that ends a session (logout, refresh-token reuse, account deletion,
-- merge) is recorded, including sessions removed by ON DELETE CASCADE.
CREATE TABLE revoked_sessions (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    session_id uuid NOT NULL,
    revoked_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

CREATE INDEX revoked_sessions_revoked_at ON revoked_sessions (revoked_at);

CREATE FUNCTION sessions_record_revocation() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        INSERT INTO revoked_sessions (session_id) VALUES (OLD.id);
        RETURN OLD;
    END IF;
    INSERT INTO revoked_sessions (session_id) VALUES (NEW.id);
    RETURN NEW;
END;
$$;

CREATE TRIGGER sessions_revoked AFTER UPDATE OF revoked_at ON sessions
    FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL)
    EXECUTE FUNCTION sessions_record_revocation();
CREATE TRIGGER sessions_deleted AFTER DELETE ON sessions
    FOR EACH ROW WHEN (OLD.revoked_at IS NULL)
    EXECUTE FUNCTION sessions_record_revocation();
