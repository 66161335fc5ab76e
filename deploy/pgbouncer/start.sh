#!/bin/sh
# Runs PgBouncer in the foreground in front of the primary: docker-compose.yml's pgbouncer
# service (deploy/ mounted at /deploy) and scripts/compose-direct run this same file.
#
#   PRIMARY_HOST PRIMARY_PORT  the primary (postgres-primary 5432)
#   LISTEN_ADDR LISTEN_PORT    where market09 connects (0.0.0.0 6432)
#   MARKET09_PASSWORD          the market09 role's password (auth_file, SCRAM both ways)
#   POOL_SIZE                  server connections to the primary (20)
#   RUN_DIR                    where the rendered files go (/tmp/pgbouncer)
set -eu
deploy=$(cd "$(dirname "$0")/.." && pwd)
run=${RUN_DIR:-/tmp/pgbouncer}
mkdir -p "$run"
umask 077
printf '"market09" "%s"\n' "$MARKET09_PASSWORD" > "$run/users.txt"
sh "$deploy/render" "$deploy/pgbouncer/pgbouncer.ini" "$run/pgbouncer.ini" \
  PRIMARY_HOST="${PRIMARY_HOST:-postgres-primary}" PRIMARY_PORT="${PRIMARY_PORT:-5432}" \
  LISTEN_ADDR="${LISTEN_ADDR:-0.0.0.0}" LISTEN_PORT="${LISTEN_PORT:-6432}" POOL_SIZE="${POOL_SIZE:-20}" RUN_DIR="$run"
exec pgbouncer "$run/pgbouncer.ini"
