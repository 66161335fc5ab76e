#!/bin/sh
# Prepares a new primary: the application's two roles, its streaming replica's role, and
# PgBouncer's settings. docker-compose.yml's postgres-primary runs it once, from
# /docker-entrypoint-initdb.d, while the image's entrypoint initialises the cluster;
# scripts/compose-direct runs it after its initdb. Runs as the cluster's superuser.
#
#   POSTGRES_USER POSTGRES_DB   the superuser (postgres) and the application's database (market09)
#   MIGRATION_ROLE MIGRATION_PASSWORD
#                               market09_owner: owns the database and its schema; migrations and
#                               operators' commands (seed, import, admin) connect as it
#   APP_ROLE APP_PASSWORD       market09: the server's runtime role, no superuser, no DDL: it reads
#                               and writes rows (and its temporary tables), nothing more
#   REPLICATION_PASSWORD        the password of the `replicator` role the replica uses
#   STATEMENT_TIMEOUT_MS        market09's statement timeout, set on its role (2000)
#   PGDATA                      the cluster (its pg_hba.conf gains the replication line)
set -eu
deploy=${DEPLOY_DIR:-/deploy}
owner=${MIGRATION_ROLE:-market09_owner}
app=${APP_ROLE:-market09}
database=${POSTGRES_DB:-market09}
psql -X -q -v ON_ERROR_STOP=1 --username "${POSTGRES_USER:-postgres}" --dbname "$database" \
  -v owner="$owner" -v app="$app" -v database="$database" -v owner_password="$MIGRATION_PASSWORD" \
  -v app_password="$APP_PASSWORD" -v role="$app" -v timeout="${STATEMENT_TIMEOUT_MS:-2000}ms" -v password="$REPLICATION_PASSWORD" <<SQL
SET password_encryption = 'scram-sha-256';
CREATE ROLE :"owner" LOGIN PASSWORD :'owner_password';
CREATE ROLE :"app" LOGIN PASSWORD :'app_password';
-- The owner creates the schema's objects (PostgreSQL 15: the public schema belongs to the
-- database's owner); the runtime role gets rows, never DDL, on what the owner creates.
ALTER DATABASE :"database" OWNER TO :"owner";
REVOKE ALL ON DATABASE :"database" FROM PUBLIC;
GRANT CONNECT, TEMPORARY ON DATABASE :"database" TO :"app";
GRANT USAGE ON SCHEMA public TO :"app";
ALTER DEFAULT PRIVILEGES FOR ROLE :"owner" IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO :"app";
ALTER DEFAULT PRIVILEGES FOR ROLE :"owner" IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO :"app";
-- seed demo and seed bulk load likes with triggers off and count them after (a superuser
-- parameter; PostgreSQL 15 grants it alone).
GRANT SET ON PARAMETER session_replication_role TO :"owner";
\i $deploy/pgbouncer/roles.sql
CREATE ROLE replicator WITH REPLICATION LOGIN PASSWORD :'password';
SQL
# Replication connections match no "all" database line: they need their own.
echo "host replication replicator all scram-sha-256" >> "$PGDATA/pg_hba.conf"
psql -X -q --username "${POSTGRES_USER:-postgres}" --dbname "$database" -c "SELECT pg_reload_conf()" >/dev/null
