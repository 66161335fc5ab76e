#!/bin/sh
# Runs a streaming replica of the primary in the foreground. The first time (an empty
# PGDATA) it copies the primary with pg_basebackup -R, which also writes standby.signal and
# primary_conninfo; afterwards postgres resumes streaming where it stopped.
# docker-compose.yml's postgres-replica and scripts/compose-direct run this same file.
#
#   PGDATA                       the replica's cluster (created here)
#   PRIMARY_HOST PRIMARY_PORT    the primary (postgres-primary 5432)
#   REPLICATION_PASSWORD         the `replicator` role's password (deploy/postgres/primary-init.sh)
#   extra arguments              passed to postgres (scripts/compose-direct: port, sockets)
set -eu
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  until pg_isready -q -h "${PRIMARY_HOST:-postgres-primary}" -p "${PRIMARY_PORT:-5432}"; do sleep 1; done
  PGPASSWORD="$REPLICATION_PASSWORD" pg_basebackup -h "${PRIMARY_HOST:-postgres-primary}" -p "${PRIMARY_PORT:-5432}" \
    -U replicator -D "$PGDATA" --write-recovery-conf --wal-method=stream --checkpoint=fast
  chmod 0700 "$PGDATA"
fi
exec postgres -D "$PGDATA" "$@"
