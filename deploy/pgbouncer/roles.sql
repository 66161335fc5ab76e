-- Session settings market09 sends at connect (the `options` start-up parameter), set on
-- its role instead for connections through PgBouncer, which refuses that parameter
-- (DATABASE_STATEMENTS=unnamed checks TimeZone and DateStyle at every connect). Run once
-- on the primary as a superuser; :role is the application's role, :timeout its statement
-- timeout (STATEMENT_TIMEOUT_MS).
ALTER ROLE :"role" SET TimeZone = 'UTC';
ALTER ROLE :"role" SET DateStyle = 'ISO, YMD';
ALTER ROLE :"role" SET max_parallel_workers_per_gather = 0;
ALTER ROLE :"role" SET statement_timeout = :'timeout';
