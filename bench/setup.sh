# Sourced by bench/run and bench/abuse: installs what the benchmark needs, builds
# release, starts the benchmark's own PostgreSQL cluster under bench/.data (loading the
# 1 M-post bulk dataset once), migrates, and starts market09 on port 18090 with the
# settings below plus "${server_env[@]}" (set it before sourcing). Everything it starts
# is stopped on exit.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
scripts/install-deps --bench
swift build -c release --product market09 >&2

duration="${DURATION:-10}"; connections="${CONNECTIONS:-64}"
data="$root/bench/.data"; mkdir -p "$data" "$root/bench/results"
bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
as_server=(); [ "$(id -u)" -eq 0 ] && { chown postgres:postgres "$data"; as_server=(runuser -u postgres --); }
socket="$data"
url="postgresql://market09@${socket//\//%2F}/bench"
secret="bench-secret-0123456789-0123456789-abcdef"

cleanup() {
  [ -n "${server_pid:-}" ] && kill -TERM "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
  [ -n "${nginx_conf:-}" ] && nginx -c "$nginx_conf" -s stop 2>/dev/null || true
  "${as_server[@]}" "$bin/pg_ctl" -D "$data/pg" -m fast -w stop >/dev/null 2>&1 || true
}
trap cleanup EXIT

# PostgreSQL settings for an OLTP benchmark on 2 cores / 24 GiB.
if [ ! -f "$data/pg/PG_VERSION" ]; then
  "${as_server[@]}" "$bin/initdb" -D "$data/pg" -U market09 --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
fi
"${as_server[@]}" "$bin/pg_ctl" -D "$data/pg" -l "$data/postgres.log" -w -o "-c listen_addresses='' -c unix_socket_directories='$socket' \
  -c shared_buffers=2GB -c effective_cache_size=8GB -c work_mem=16MB -c jit=off -c max_connections=200 \
  -c synchronous_commit=off -c random_page_cost=1.1" start >/dev/null
if [ ! -f "$data/loaded" ]; then
  psql -X -q "postgresql://market09@${socket//\//%2F}/postgres" -c "DROP DATABASE IF EXISTS bench" -c "CREATE DATABASE bench"
  DATABASE_URL="$url" .build/release/market09 migrate
  DATABASE_URL="$url" .build/release/market09 seed bulk --posts 1000000 --users 100000 --likes 5000000
  psql -X -q "$url" -c "VACUUM ANALYZE"
  touch "$data/loaded"
fi

DATABASE_URL="$url" .build/release/market09 migrate >&2
# Earlier runs' like scenarios leave dead row versions behind; measure a settled table.
psql -X -q "$url" -c "VACUUM ANALYZE"
# The server runs as deployed: default LOG_LEVEL (info), so every request is logged to
# bench/.data/server.log (nginx below runs with access_log off: the ratio is conservative).
env DATABASE_URL="$url" JWT_SECRET="$secret" PORT=18090 METRICS_PORT=19090 DATABASE_POOL_SIZE="${POOL_SIZE:-4}" \
  HTTP_THREADS="${HTTP_THREADS:-2}" RATE_LIMIT_TOKEN_PER_5_MINUTES=1000000 UPLOADS_PER_HOUR=1000000 UPLOAD_BYTES_PER_DAY=2000000000000 MAX_CONNECTIONS_PER_ADDRESS=0 "${server_env[@]}" \
  .build/release/market09 serve 2>"$data/server.log" &
server_pid=$!
for _ in $(seq 1 100); do curl -sf localhost:18090/ready >/dev/null && break; sleep 0.2; done

