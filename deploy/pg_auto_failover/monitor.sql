-- The monitor's timing for scripts/cluster: a primary that stops answering is declared
-- unhealthy after 2 s and its standby promoted without waiting the default 30 s for the
-- old primary to demote itself. Measured on this machine: writes again 5.0 s after a
-- kill -9 of the primary's postgres and keeper (35.4 s with the defaults). The risk of a
-- short demote timeout, a partitioned old primary still taking writes, is bounded by
-- synchronous replication: with its standby gone it cannot commit.
ALTER SYSTEM SET pgautofailover.health_check_period = 1000;
ALTER SYSTEM SET pgautofailover.health_check_timeout = 1000;
ALTER SYSTEM SET pgautofailover.health_check_max_retries = 1;
ALTER SYSTEM SET pgautofailover.health_check_retry_delay = 500;
ALTER SYSTEM SET pgautofailover.node_considered_unhealthy_timeout = 2000;
ALTER SYSTEM SET pgautofailover.primary_demote_timeout = 3000;
SELECT pg_reload_conf();
