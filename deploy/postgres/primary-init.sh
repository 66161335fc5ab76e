#!/bin/sh
# Prepares a new primary for its streaming replica and for PgBouncer. docker-compose.yml's
# postgres-primary runs it once, from /docker-entrypoint-initdb.d, while the image's
# entrypoint initialises the cluster; scripts/compose-direct runs it after its initdb.
#
#   POSTGRES_USER POSTGRES_DB   the application's role and database (market09)
#   REPLICATION_PASSWORD        the password of the `replicator` role the replica uses
#   STATEMENT_TIMEOUT_MS        market09's statement timeout, set on its role (2000)
#   PGDATA                      the cluster (its pg_hba.conf gains the replication line)
set -eu
deploy=${DEPLOY_DIR:-/deploy}
role=${POSTGRES_USER:-market09}
psql -X -q -v ON_ERROR_STOP=1 --username "$role" --dbname "${POSTGRES_DB:-market09}" \
  -v role="$role" -v timeout="${STATEMENT_TIMEOUT_MS:-2000}ms" -v password="$REPLICATION_PASSWORD" <<SQL
\i $deploy/pgbouncer/roles.sql
SET password_encryption = 'scram-sha-256';
CREATE ROLE replicator WITH REPLICATION LOGIN PASSWORD :'password';
SQL
# Replication connections match no "all" database line: they need their own.
echo "host replication replicator all scram-sha-256" >> "$PGDATA/pg_hba.conf"
psql -X -q --username "$role" --dbname "${POSTGRES_DB:-market09}" -c "SELECT pg_reload_conf()" >/dev/null
