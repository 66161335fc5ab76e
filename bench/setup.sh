# Sourced by bench/run and bench/abuse: installs what the benchmark needs, builds
# release, starts the benchmark's own PostgreSQL cluster under bench/.data (loading the
# bulk dataset once per size), migrates, and starts market09 on port 18090 with the
# settings below plus "${server_env[@]}" (set it before sourcing). Everything it starts
# is stopped on exit.
#
# BENCH_POSTS picks the dataset (default 1000000): posts, a tenth as many users and five
# likes a post, each size in its own database of the one cluster (`bench` holds 1 M, so
# results before sizes existed still name the same data).
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
scripts/install-deps --bench
swift build -c release --product market09 >&2

duration="${DURATION:-10}"; connections="${CONNECTIONS:-64}"
data="$root/bench/.data"; mkdir -p "$data" "$root/bench/results"
bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
as_server=(); [ "$(id -u)" -eq 0 ] && { chown postgres:postgres "$data"; as_server=(runuser -u postgres --); }
socket="$data"
posts="${BENCH_POSTS:-1000000}"
database=bench; [ "$posts" = 1000000 ] || database="bench_$posts"
url="postgresql://market09@${socket//\//%2F}/$database"
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
loaded="$data/loaded"; [ "$database" = bench ] || loaded="$data/loaded-$database"
if [ ! -f "$loaded" ]; then
  psql -X -q -v ON_ERROR_STOP=1 "postgresql://market09@${socket//\//%2F}/postgres" -c "DROP DATABASE IF EXISTS $database" -c "CREATE DATABASE $database"
  DATABASE_URL="$url" .build/release/market09 migrate
  # The load writes every row once: with the default 1 GB of WAL between checkpoints the
  # checkpointer took 40 % of a core at 10 M posts (full-page images after each).
  psql -X -q "$url" -c "ALTER SYSTEM SET max_wal_size = '16GB'" -c "SELECT pg_reload_conf()" >/dev/null
  started=$(date +%s)
  DATABASE_URL="$url" .build/release/market09 seed bulk --posts "$posts" --users $((posts / 10)) --likes $((posts * 5))
  seeded=$(date +%s)
  psql -X -q "$url" -c "ALTER SYSTEM RESET max_wal_size" -c "SELECT pg_reload_conf()" >/dev/null
  psql -X -q "$url" -c "VACUUM ANALYZE"
  # What loading this size cost, for docs/performance.md's data-size table.
  printf 'seed_seconds=%s\tvacuum_seconds=%s\n' $((seeded - started)) $(($(date +%s) - seeded)) > "$loaded"
fi

DATABASE_URL="$url" .build/release/market09 migrate >&2
# Earlier runs' like scenarios leave dead row versions behind; measure a settled table.
psql -X -q "$url" -c "VACUUM ANALYZE"
# The server runs as deployed: default LOG_LEVEL (info), so every request is logged to
# bench/.data/server.log (bench/run's nginx ceiling runs with access_log off, so its ratio is
# conservative; bench/ab measures nginx both ways).
env DATABASE_URL="$url" JWT_SECRET="$secret" PORT=18090 METRICS_PORT=19090 DATABASE_POOL_SIZE="${POOL_SIZE:-4}" \
  HTTP_THREADS="${HTTP_THREADS:-2}" RATE_LIMIT_TOKEN_PER_5_MINUTES=1000000 UPLOADS_PER_HOUR=1000000 UPLOAD_BYTES_PER_DAY=2000000000000 MAX_CONNECTIONS_PER_ADDRESS=0 "${server_env[@]}" \
  .build/release/market09 serve 2>"$data/server.log" &
server_pid=$!
# wait_ready PID PORT LOG: until the server on PORT answers /ready, while PID lives. Ready
# once its first feed pass has built today's and tomorrow's order: ~1 s at 1 M posts, 184 s
# on a just-loaded 10 M database (the old 20 s wait left the bench's first curl failing).
wait_ready() {
  local i
  for i in $(seq 1 3000); do
    curl -sf "localhost:$2/ready" >/dev/null && return 0
    kill -0 "$1" 2>/dev/null || { echo "bench: market09 (port $2) exited; see $3" >&2; exit 1; }
    [ "$i" = 100 ] && echo "bench: waiting for market09's first feed pass on port $2 (a just-loaded large database takes minutes)" >&2
    sleep 0.2
  done
  echo "bench: market09 (port $2) not ready after 600 s; see $3" >&2; exit 1
}
wait_ready "$server_pid" 18090 "$data/server.log"

