-- Which instance runs the background jobs: one row per lease, renewed by its holder every
-- third of its duration and taken over by another instance once it has expired (the
-- holder died or lost the database). Times are the database's, so instances' clocks never
-- have to agree. Logged (unlike rate_limit_windows): after a failover the new primary
-- still names the leader, and nobody runs the jobs twice while the old one's lease lasts.
CREATE TABLE job_leader (
    name text PRIMARY KEY,
    holder uuid NOT NULL,
    since timestamptz NOT NULL,
    expires_at timestamptz NOT NULL
);
