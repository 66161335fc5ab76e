-- The limits that protect accounts (failed passwords per email and per address, sign-ups
-- and token calls per address), counted here so that every instance behind a balancer
-- draws from one budget. One row per key and live window (key = limit name ':' email or
-- address); a window starts at its key's first event.
--
-- UNLOGGED: a count writes no WAL and is not replicated, so an auth request never waits
-- for a WAL flush or for a synchronous standby's answer on its account of a counter (the
-- statement alone: ~27,000 events/s under pgbench -c8 on this 2-core machine, client
-- included, ≈ 75 µs of machine time each). After a crash or a failover the counters start empty: an attacker gains at
-- most one more window's budget, once, against a failure that is itself rare. No index
-- but the key: counts then update in place (HOT), and the pruning pass once a minute
-- scans a table of at most the live keys.
CREATE UNLOGGED TABLE rate_limit_windows (
    key text PRIMARY KEY,
    ends_at timestamptz NOT NULL,
    count integer NOT NULL CHECK (count >= 0)
);
