-- The revocation feed is read by transaction id instead of time. Rows are stamped when
-- inserted, but a revoking transaction may commit long after: a poller that moved its
-- time cursor past the stamp (it kept a 5 s overlap) never saw the row. Now each row
-- carries its transaction id, and a poller re-reads everything from the oldest
-- transaction still running at its previous poll (pg_snapshot_xmin), so a row becomes
-- visible to the next poll after its commit, however late that is.
ALTER TABLE revoked_sessions ADD COLUMN tx xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX revoked_sessions_tx ON revoked_sessions (tx);

-- Role changes travel the same way, so `admin revoke-admin` takes effect on every
-- instance within a poll instead of when the admin's access token expires: instances
-- apply a user's latest recorded role over the role inside the token.
CREATE TABLE role_changes (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id    uuid NOT NULL,
    role       text NOT NULL,
    changed_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    tx         xid8 NOT NULL DEFAULT pg_current_xact_id()
);
CREATE INDEX role_changes_tx ON role_changes (tx);
CREATE INDEX role_changes_changed_at ON role_changes (changed_at);

CREATE FUNCTION users_record_role_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO role_changes (user_id, role) VALUES (NEW.id, NEW.role);
    RETURN NEW;
END;
$$;

CREATE TRIGGER users_role_changed AFTER UPDATE OF role ON users
    FOR EACH ROW WHEN (OLD.role IS DISTINCT FROM NEW.role)
    EXECUTE FUNCTION users_record_role_change();
