"""Drives a running `scripts/cluster` through its balancer, as clients would, and checks what
the scale-out issue asks: the auth flows, a like storm with exact counts, read-your-writes
after a like on every instance, a logout seen by every instance, one job leader, every
instance reading from a healthy replica, and a kill -9 of the primary during a like storm
(503 only while it switches, writes back within 15 s, no like answered 200 lost). Prints
one line per check; exits 1 on the first failure.

    python3 cluster_check.py http://127.0.0.1:8090 18101 18102 18103 [--frozen]
    CHECK_PRIMARY_URL=postgres://... python3 cluster_check.py URL PORT PORT PORT --no-failover

The second form checks scripts/compose-direct (no automatic failover there; its primary
needs a password). --frozen (a balancer with active health checks) also stops one instance
with SIGSTOP — it still accepts connections but answers nothing — and expects every
request through the balancer to be answered 200 within 5 s.
"""
import concurrent.futures
import http.client
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.parse

BALANCER = urllib.parse.urlsplit(sys.argv[1])
INSTANCES = [int(port) for port in sys.argv[2:5]]
STATE = os.environ.get("CLUSTER_DIR", "/tmp/market09-cluster")
PRIMARY = os.environ.get("CHECK_PRIMARY_URL",
                         "postgresql://market09@127.0.0.1:5501,127.0.0.1:5502/market09?target_session_attrs=read-write&connect_timeout=2")
FAILOVER = "--no-failover" not in sys.argv[5:]
FROZEN = "--frozen" in sys.argv[5:]
MONITOR = "postgresql://autoctl_node@127.0.0.1:5500/pg_auto_failover"


SOURCES = {}


def source_for(address):
    """A loopback source address standing for the client `address`: every 127.0.0.0/8
    address is this machine, and the balancer forwards the one it sees (127.0.0.2 is the
    balancer's own)."""
    if address not in SOURCES:
        n = len(SOURCES)
        SOURCES[address] = f"127.10.{n // 250}.{n % 250 + 1}"
    return SOURCES[address]


def request(method, path, body=None, token=None, address="198.51.100.1", cookie=None, port=None, forged=None):
    connection = http.client.HTTPConnection("127.0.0.1", port or BALANCER.port, timeout=30, source_address=(source_for(address), 0))
    headers = {"X-Forwarded-For": forged} if forged else {}
    if body is not None:
        headers["Content-Type"] = "application/json"
    if token:
        headers["Authorization"] = "Bearer " + token
    if cookie:
        headers["Cookie"] = cookie
    connection.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    answer = json.loads(data) if data and response.getheader("Content-Type", "").startswith("application/json") else None
    return response.status, answer, response.getheader("Set-Cookie")


def sql(url, statement):
    # The role's statement timeout (2 s, deploy/pgbouncer/roles.sql) is for requests, not set-up.
    return subprocess.run(["psql", "-XAtq", url, "-c", "SET statement_timeout = 0", "-c", statement],
                          check=True, capture_output=True, text=True).stdout.strip()


def check(condition, what):
    if not condition:
        print("FAIL", what, flush=True)
        sys.exit(1)
    print("ok  ", what, flush=True)


def sign_up(index):
    status, answer, _ = request("POST", "/v1/auth/signup", {"email": f"storm{index}@example.com", "password": "cluster-password"},
                                address=f"198.51.100.{index % 250 + 1}")
    assert status == 201, (status, answer)
    return answer["access_token"]


def main():
    # Posts to like, written on the primary.
    influencer = sql(PRIMARY, "INSERT INTO influencers (username) VALUES ('cluster.check') RETURNING id")
    posts = [int(x) for x in sql(PRIMARY, f"""INSERT INTO posts (influencer_id, product_name, category_id, group_buying_start,
        group_buying_end, posted_at) SELECT {influencer}, 'cluster ' || g, 'food', now() - interval '1 day', now() + interval '30 days',
        now() FROM generate_series(1, 8000) g RETURNING id""").split()]

    # Auth flows through the balancer.
    status, anonymous, _ = request("POST", "/v1/auth/anonymous", address="203.0.113.9")
    check(status == 201 and anonymous["user"]["is_anonymous"], "anonymous session through the balancer")
    status, _, _ = request("POST", "/v1/auth/signup", {"email": "owner@example.com", "password": "owner-password"}, address="203.0.113.9")
    status, signed, _ = request("POST", "/v1/auth/token", {"grant_type": "password", "email": "owner@example.com",
                                                          "password": "owner-password"}, address="203.0.113.9")
    check(status == 200, "password sign-in")
    status, refreshed, _ = request("POST", "/v1/auth/token", {"grant_type": "refresh_token", "refresh_token": signed["refresh_token"]},
                                   address="203.0.113.9")
    check(status == 200 and refreshed["refresh_token"] != signed["refresh_token"], "refresh (a new refresh token)")

    # Like storm: 40 users like one post at once; the count is exact.
    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        tokens = list(pool.map(sign_up, range(40)))
        statuses = list(pool.map(lambda token: request("PUT", f"/v1/posts/{posts[0]}/like", token=token)[0], tokens))
    check(statuses.count(200) == 40, f"40 concurrent likes answered 200 ({statuses.count(200)})")
    check(sql(PRIMARY, f"SELECT likes_count FROM posts WHERE id = {posts[0]}") == "40", "likes_count exact on the primary")

    # Read-your-writes: a like through the balancer, read back on every instance with its cookie.
    status, _, cookie = request("PUT", f"/v1/posts/{posts[1]}/like", token=tokens[0])
    check(status == 200 and cookie and cookie.startswith("m09_read_after="), "a write answers with the read-after cookie")
    pair = cookie.split(";")[0]
    seen = [request("GET", f"/v1/posts/{posts[1]}", token=tokens[0], cookie=pair, port=port)[1] for port in INSTANCES]
    check(all(post["is_liked"] and post["likes_count"] == 1 for post in seen), "the like is read back on all three instances")

    # A logout reaches every instance within a second.
    status, session, _ = request("POST", "/v1/auth/token", {"grant_type": "password", "email": "owner@example.com",
                                                           "password": "owner-password"}, address="203.0.113.9")
    check(all(request("GET", "/v1/me", token=session["access_token"], port=port)[0] == 200 for port in INSTANCES), "session valid everywhere")
    request("POST", "/v1/auth/logout", {}, token=session["access_token"])
    time.sleep(1.0)
    check(all(request("GET", "/v1/me", token=session["access_token"], port=port)[0] == 401 for port in INSTANCES),
          "logout refused by all three instances after 1 s")

    # Exactly one instance runs the jobs; every one reads from its replica. Metrics are on
    # each instance's own metrics port (its API port + 1000, loopback), never through the balancer.
    status, _, _ = request("GET", "/metrics")
    check(status == 404, f"/metrics is not served through the balancer ({status})")
    metrics = []
    for port in INSTANCES:
        connection = http.client.HTTPConnection("127.0.0.1", port + 1000, timeout=10)
        connection.request("GET", "/metrics")
        metrics.append(connection.getresponse().read().decode())
    leaders = ["\nmarket09_job_leader 1" in text for text in metrics]
    check(leaders.count(True) == 1, f"one job leader ({leaders})")
    check(all('\nmarket09_replica_healthy{replica="0"} 1' in text for text in metrics), "every instance reads from a healthy replica")

    local_accounts_are_not_trusted()
    forwarded_for_only_from_the_balancer()

    if FROZEN:
        frozen()
    if FAILOVER:
        killed = failover(tokens, posts[2:])
        local_accounts_are_not_trusted(killed=(killed,))


def frozen():
    """An instance that hangs: the balancer's checks of /ready time out and take it out."""
    with open(f"{STATE}/market09-{INSTANCES[0]}.pid") as file:
        pid = int(file.read().split()[0])
    os.kill(pid, signal.SIGSTOP)
    try:
        # Two failed checks take it out: up to 500 ms to the next check, 1 s for it to time
        # out, 250 ms to the second (fastinter), 1 s again — under 3 s; 4 s for margin.
        time.sleep(4)
        started = time.time()
        statuses = [request("GET", "/v1/categories")[0] for _ in range(30)]
        elapsed = time.time() - started
    finally:
        os.kill(pid, signal.SIGCONT)
    check(statuses.count(200) == 30 and elapsed < 5, f"an instance that hangs is taken out: 30 requests, {statuses.count(200)} answered 200 in {elapsed:.1f} s")
    time.sleep(1.5)  # two good checks bring it back


def local_accounts_are_not_trusted(killed=()):
    """No password, no connection: every database of the topology asks for one, sockets
    included, and its sockets and secrets sit in private directories. `killed`: ports of
    nodes the failover drill killed (their pg_hba.conf is still read)."""
    ports = [int(p) for p in os.environ.get("CHECK_DATABASE_PORTS", "").split(",") if p]
    bare = {key: value for key, value in os.environ.items() if key not in ("PGPASSFILE", "PGPASSWORD")}
    bare["PGPASSFILE"] = "/nonexistent"
    for port in [port for port in ports if port not in killed]:
        for user in ("postgres", "market09"):
            # The question is authentication: a node briefly restarting by its keeper is asked again.
            for _ in range(20):
                attempt = subprocess.run(["psql", "-XAtq", "-w", f"postgresql://{user}@127.0.0.1:{port}/postgres", "-c", "SELECT 1"],
                                         env=bare, capture_output=True, text=True)
                if "Connection refused" not in attempt.stderr:
                    break
                print(f"     :{port} refused the connection; asking again", flush=True)
                time.sleep(0.5)
            check(attempt.returncode != 0 and "password" in attempt.stderr,
                  f"{user} on :{port} without a password is refused ({attempt.stderr.strip()[:80]})")
    for name in ("monitor", "node1", "node2", "replica"):
        path = os.path.join(STATE, name, "pg_hba.conf")
        if os.path.exists(path):
            with open(path) as file:
                trusting = [line.strip() for line in file if not line.lstrip().startswith("#") and " trust" in line.split("#")[0] + " "]
            check(not trusting, f"{name}'s pg_hba.conf trusts nobody ({trusting[:1]})")
    for private in ("secrets", "sockets"):
        path = os.path.join(STATE, private)
        if os.path.exists(path):
            check(os.stat(path).st_mode & 0o077 == 0, f"{private}/ is private to its owner")


def forwarded_for_only_from_the_balancer():
    """A client cannot pick its rate-limit key with X-Forwarded-For, through the balancer
    or straight to an instance: only the balancer's own source address is believed, and
    the balancer forwards the address it sees."""
    for name, port in (("straight to an instance", INSTANCES[0]), ("through the balancer", None)):
        statuses = [request("POST", "/v1/auth/anonymous", {}, address=f"forger {name}", port=port, forged=f"203.0.113.{index + 1}")[0]
                    for index in range(31)]
        check(429 in statuses, f"31 anonymous sign-ups {name}, each with a new forged X-Forwarded-For, hit one address's limit ({statuses[-3:]})")
    status, _, _ = request("POST", "/v1/auth/anonymous", {}, address="a client of its own")
    check(status == 201, f"another client address through the balancer has a budget of its own ({status})")


def failover(tokens, posts):
    """Each user likes its own posts one after another while the primary is killed."""
    acknowledged, statuses, answers, lock, stop = [], {}, [], threading.Lock(), threading.Event()
    killed_at = []

    def storm(index):
        token, mine = tokens[index], posts[index::len(tokens)]
        for post in mine:
            if stop.is_set():
                return
            try:
                status = request("PUT", f"/v1/posts/{post}/like", token=token)[0]
            except OSError:
                status = "connection"
            with lock:
                statuses[status] = statuses.get(status, 0) + 1
                answers.append((time.time(), status))
                if status == 200:
                    acknowledged.append((index, post))
            time.sleep(0.1)

    threads = [threading.Thread(target=storm, args=(index,)) for index in range(len(tokens))]
    for thread in threads:
        thread.start()
    time.sleep(2)
    primary = sql(MONITOR, "SELECT nodename FROM pgautofailover.node WHERE reportedstate = 'primary'")
    # The primary's machine is lost: its keeper and its postgres (the keeper would restart it).
    with open(f"{STATE}/{primary}.keeper.pid") as keeper, open(f"{STATE}/{primary}/postmaster.pid") as postmaster:
        pids = [int(keeper.read().split()[0]), int(postmaster.read().split()[0])]
    with lock:
        killed_at.append(time.time())
    # The keeper runs in a session of its own (scripts/cluster starts it with setsid); its
    # children are renamed ("pg_autoctl: start/stop postgres") and one restarted postgres
    # when only the parent was killed: the whole session goes.
    subprocess.run(["pkill", "-9", "-s", str(pids[0])])
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    print(f"     killed {primary} (keeper and postgres)", flush=True)
    # Back: the first 200 after the last failed answer (requests in flight at the kill may
    # still succeed first). Waits until 3 s of answers without a failure.
    deadline = time.time() + 40
    while time.time() < deadline:
        time.sleep(0.5)
        with lock:
            failures = [at for at, status in answers if status != 200]
            if failures and time.time() - failures[-1] > 3:
                break
    stop.set()
    for thread in threads:
        thread.join()
    print(f"     answers during the storm: {statuses}", flush=True)
    failures = [at for at, status in answers if status != 200]
    last_failure = failures[-1] if failures else killed_at[0]
    recovered = [at for at, status in answers if status == 200 and at > last_failure]
    back = round(recovered[0] - killed_at[0], 1) if recovered else None
    check(back is not None and back < 15, f"writes answered 200 again {back} s after the kill")
    check(set(statuses) <= {200, 503}, "only 200 and 503 while it switched")
    liked = set(sql(PRIMARY, f"SELECT post_id FROM likes WHERE post_id >= {min(posts)}").split())
    lost = [(index, post) for index, post in acknowledged if str(post) not in liked]
    check(not lost, f"no like answered 200 lost ({len(acknowledged)} acknowledged, {len(lost)} missing)")
    return {"node1": 5501, "node2": 5502}[primary]


main()
