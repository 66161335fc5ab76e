# Sourced by `scripts/cluster bench` and `scripts/compose-direct bench`: the feed, the Top
# 10 and likes (of one post, and spread) through the balancer, with three instances and with one, reading from the replica
# and from the primary. Loads the bulk dataset once per topology (TOPOLOGY_BENCH_POSTS,
# default 1,000,000, with a tenth as many users and five likes per post), restarts the
# instances for each read setting and leaves them as `up` made them.
#
# The sourcing script provides: state, listen, ports, bin, balancer (nginx|haproxy); admin_url and replica_admin_url
# (superuser URLs of the primary and the replica); primary_pid and replica_pid (functions
# printing the postmasters' pids); start_instances READ_URLS ("" = reads on the primary);
# replica_read_url (what start_instances is given for reads on the replica).
#
# Every process shares the same 2 cores here, so the table also says what each part cost
# per request (CPU ms): that is what scales when they run on machines of their own.

cpu_ticks() { # pid... : user + system ticks of these processes and their children now
  local pid total=0 child
  for pid in "$@"; do
    for child in $pid $(ps -o pid= --ppid "$pid" 2>/dev/null); do
      total=$(( total + $(awk '{print $14 + $15}' "/proc/$child/stat" 2>/dev/null || echo 0) ))
    done
  done
  echo "$total"
}
# Set-up is not a request: no statement timeout, whatever the role's (compose's is 2 s).
# Per command: market09 itself must not inherit PGOPTIONS (PgBouncer refuses `options`).
no_timeout() { PGOPTIONS="-c statement_timeout=0" "$@"; }
box_busy() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8}' /proc/stat; }

restart_instances() { # read URLs
  stop_instances "$state"
  start_instances "$1"
  wait_instances
  # HAProxy takes a stopped instance out and brings it back after two good checks of
  # /ready (~1 s): measuring sooner measured its 503s (2,351 in the first run).
  [ "$balancer" = haproxy ] && sleep 2
  return 0
}

load_dataset() { # posts
  [ -f "$state/bench-loaded" ] && return 0
  say "loading $1 posts, $(($1 / 10)) users, $(($1 * 5)) likes (once)"
  local started=$SECONDS
  DATABASE_URL="$admin_url" "$bin" seed bulk --posts "$1" --users $(($1 / 10)) --likes $(($1 * 5)) >&2
  no_timeout psql -XAtq "$admin_url" -c "VACUUM ANALYZE"
  say "loaded in $((SECONDS - started)) s"
  touch "$state/bench-loaded"
}

topology_bench() { # name
  [ -d "$state" ] || { say "not running: up first"; exit 1; }
  "$root/scripts/install-deps" --bench
  local duration=${DURATION:-10} connections=${CONNECTIONS:-64} posts=${TOPOLOGY_BENCH_POSTS:-1000000}
  load_dataset "$posts"
  # The replica must hold the dataset before anything is measured on it.
  local position; position=$(no_timeout psql -XAtq "$admin_url" -c "SELECT pg_current_wal_lsn()")
  until [ "$(no_timeout psql -XAtq "$replica_admin_url" -c "SELECT pg_last_wal_replay_lsn() >= '$position'")" = t ]; do sleep 0.5; done

  local secret viewer post token
  secret=$(cat "$state/secrets/jwt-secret")
  viewer=$(no_timeout psql -XAtq "$admin_url" -c "SELECT id FROM users WHERE NOT is_anonymous ORDER BY id OFFSET 1000 LIMIT 1")
  post=$(no_timeout psql -XAtq "$admin_url" -c "SELECT id FROM posts ORDER BY id OFFSET $((posts / 2)) LIMIT 1")
  token=$(python3 "$root/bench/token.py" "$secret" "$viewer")
  mkdir -p "$state/bench"
  no_timeout python3 "$root/bench/like_lua.py" "$secret" "$admin_url" "$post" > "$state/bench/like_one_post.lua"
  no_timeout python3 "$root/bench/like_lua.py" "$secret" "$admin_url" "$post" --spread > "$state/bench/like_spread.lua"
  trap 'stop_balancer "$state/bench"' EXIT

  local rows="$state/bench/rows.tsv" reads instances scenario file; : > "$rows"
  for reads in replica primary; do
    restart_instances "$([ "$reads" = replica ] && echo "$replica_read_url")"
    # One instance behind the same balancer configuration, on the next port.
    [ -s "$state/bench/$balancer.pid" ] || "start_$balancer" "$state/bench" "127.0.0.1:$((listen + 1))" "${ports[0]}"
    local pids=(); for file in "$state"/market09-*.pid; do pids+=("$(cat "$file")"); done
    for instances in 3 1; do
      local url="http://127.0.0.1:$([ "$instances" = 3 ] && echo "$listen" || echo $((listen + 1)))"
      # like_one_post: 500 users like and unlike one post (a viral post); like_spread:
      # each user its own post. TOPOLOGY_SCENARIOS picks some (e.g. "like_one_post").
      for scenario in ${TOPOLOGY_SCENARIOS:-feed top10 like_one_post like_spread}; do
        # Writes go to the primary whatever the reads do: measured once, with the replica.
        [[ "$scenario" = like* ]] && [ "$reads" = primary ] && continue
        local path=/v1/posts?limit=20 script=""
        [ "$scenario" = top10 ] && path=/v1/posts/top10
        [[ "$scenario" = like* ]] && { path=/; script="$state/bench/$scenario.lua"; }
        local api0 primary0 replica0 box0 out
        api0=$(cpu_ticks "${pids[@]}"); primary0=$(cpu_ticks "$(primary_pid)"); replica0=$(cpu_ticks "$(replica_pid)"); box0=$(box_busy)
        out=$(wrk -t2 -c"$connections" -d"${duration}s" --timeout 10s --latency -H "Authorization: Bearer $token" \
          ${script:+-s "$script"} "$url$path" | python3 "$root/bench/wrk_summary.py")
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$scenario" "$instances" "$reads" "$out" \
          $(( $(cpu_ticks "${pids[@]}") - api0 )) $(( $(cpu_ticks "$(primary_pid)") - primary0 )) \
          $(( $(cpu_ticks "$(replica_pid)") - replica0 )) $(( $(box_busy) - box0 )) >> "$rows"
        say "$scenario, $instances instance(s), reads on the $reads: $(cut -f1 <<< "$out") rps"
      done
    done
  done
  restart_instances "$replica_read_url"

  local name="$1$([ "$balancer" = nginx ] || echo "-$balancer")"
  local report; report="$root/bench/results/$name-$(date -u +%Y-%m-%dT%H%MZ).md"
  python3 "$root/bench/topology_report.py" "$1" "$balancer" "$rows" "$duration" "$connections" "$posts" | tee "$report"
}
