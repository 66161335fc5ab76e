# Sourced by scripts/cluster and scripts/compose-direct: what both topologies do the same
# way on one machine (PostgreSQL's binaries on PATH, servers as the postgres account when
# run as root, readiness waits, nginx in front of loopback instances).
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
pgbin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
export PATH="$pgbin:$PATH"
# PostgreSQL, pg_autoctl and PgBouncer refuse to run as root.
as_pg=(); [ "$(id -u)" -eq 0 ] && as_pg=(runuser -u postgres --)

say() { printf '%s: %s\n' "$(basename "$0")" "$*" >&2; }

wait_ready() { # url
  for _ in $(seq 1 600); do curl -fsS -o /dev/null "$1" 2>/dev/null && return 0; sleep 0.1; done
  say "$1 never became ready"; return 1
}

wait_instances() { # every port of $ports
  local port; for port in "${ports[@]}"; do wait_ready "http://127.0.0.1:$port/ready"; done
}

# The market09 binary: MARKET09_BIN, else a release build made here.
market09_binary() {
  if [ -n "${MARKET09_BIN:-}" ]; then echo "$MARKET09_BIN"; return; fi
  (cd "$root" && swift build -c release --product market09 >&2)
  echo "$root/.build/release/market09"
}

# A state directory the postgres account may write in.
make_state() { # directory
  [ -e "$1" ] && { say "$1 exists: $(basename "$0") down first"; exit 1; }
  mkdir -p "$1/media"; chmod 0755 "$1"; [ "$(id -u)" -eq 0 ] && chown postgres:postgres "$1"
  return 0
}

# The balancer's own source address towards the instances: every local process shares
# 127.0.0.1, so the instances believe X-Forwarded-For from this one alone (TRUSTED_PROXIES).
balancer_source=127.0.0.2
# Per-client caps at the balancer (docker-compose.yml: 64 connections, 50 requests/s with
# bursts of 100). Every client of a local topology, the bench's load included, is one
# loopback address: the defaults here are wide, the variables narrow them.
client_connections="${CLIENT_CONNECTIONS:-4096}"; client_rate="${CLIENT_RATE:-100000r/s}"; client_burst="${CLIENT_BURST:-100000}"

# Renders deploy/nginx/market09.conf into DIRECTORY/nginx.conf and starts nginx on it.
start_nginx() { # directory listen-address instance-port...
  local dir=$1 address=$2 servers="" port; shift 2
  for port in "$@"; do servers+="server 127.0.0.1:$port max_fails=1 fail_timeout=2s;"$'\n        '; done
  "$root/deploy/render" "$root/deploy/nginx/market09.conf" "$dir/nginx.conf" \
    RUN_DIR="$dir" ERROR_LOG="$dir/nginx.error.log" DAEMON=on LISTEN="$address" SERVERS="$servers" \
    PROXY_BIND="proxy_bind $balancer_source;" CLIENT_CONNECTIONS="$client_connections" CLIENT_RATE="$client_rate" CLIENT_BURST="$client_burst"
  nginx -c "$dir/nginx.conf"
  wait_ready "http://$address/ready"
}

# The same with HAProxy (deploy/haproxy/market09.cfg): active checks of every /ready.
start_haproxy() { # directory listen-address instance-port...
  local dir=$1 address=$2 servers="" port; shift 2
  for port in "$@"; do servers+="server m$port 127.0.0.1:$port"$'\n    '; done
  "$root/deploy/render" "$root/deploy/haproxy/market09.cfg" "$dir/haproxy.cfg" \
    RUN_DIR="$dir" DAEMON=daemon LISTEN="$address" SERVERS="$servers" DEPLOY_DIR="$root/deploy" SOURCE="source $balancer_source"
  haproxy -q -f "$dir/haproxy.cfg"
  wait_ready "http://$address/ready"
}

# Stops whichever balancer DIRECTORY holds.
stop_balancer() { # directory
  [ -f "$1/nginx.pid" ] && nginx -c "$1/nginx.conf" -s stop 2>/dev/null || true
  # HAProxy leaves its pid file behind: removed here, so a pid file means it runs.
  [ -f "$1/haproxy.pid" ] && { kill -TERM "$(cat "$1/haproxy.pid")" 2>/dev/null || true; rm -f "$1/haproxy.pid"; }
  return 0
}

# SIGTERM (market09 drains), then SIGKILL whatever is left after 15 s.
stop_instances() { # directory
  local file
  for file in "$1"/market09-*.pid; do [ -f "$file" ] && kill -TERM "$(cat "$file")" 2>/dev/null || true; done
  for _ in $(seq 1 150); do
    local alive=0
    for file in "$1"/market09-*.pid; do [ -f "$file" ] && kill -0 "$(cat "$file")" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && return 0
    sleep 0.1
  done
  for file in "$1"/market09-*.pid; do [ -f "$file" ] && kill -KILL "$(cat "$file")" 2>/dev/null || true; done
}
