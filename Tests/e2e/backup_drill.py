"""The restore drill's load and its verdict, shared by the topologies' drills
(compose_backup_drill.py, cluster_backup_drill.py; the embedded default's is
BackupDrillTests in Swift): members write steadily through the public API — sign-ups,
posts, likes, uploads — and every acknowledged write is recorded with the time it was
sent and acknowledged; after a restore to T - 1 s, every write acknowledged before then
must be served, and nothing begun after T may be in the database.
"""
import datetime
import http.client
import json
import random
import sys
import threading
import time
import urllib.parse


def check(condition, what):
    if not condition:
        print("FAIL", what, flush=True)
        sys.exit(1)
    print("ok  ", what, flush=True)


def png(seed):
    header = bytes([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]) + b"IHDR"
    return header + (7).to_bytes(4, "big") + (5).to_bytes(4, "big") + bytes([8, 6, 0, 0, 0]) + bytes([seed]) * 200


def request(base, method, path, body=None, token=None, headers=None, raw=None):
    address = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=30)
    fields = dict(headers or {})
    data = raw
    if body is not None:
        data = json.dumps(body)
        fields["Content-Type"] = "application/json"
    if token:
        fields["Authorization"] = "Bearer " + token
    try:
        connection.request(method, path, body=data, headers=fields)
        response = connection.getresponse()
        payload = response.read()
    except OSError:
        return "connection", None  # a failover in progress: not acknowledged
    finally:
        connection.close()
    answer = json.loads(payload) if payload and response.getheader("Content-Type", "").startswith("application/json") else payload
    return response.status, answer


def moment_text(seconds):
    """A Unix time as `market09 restore --to` reads it (UTC, microseconds)."""
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).isoformat(timespec="microseconds")


class Drill:
    def __init__(self, base):
        self.base = base
        self.writes, self.lock, self.counter = [], threading.Lock(), [0]
        self.members, self.influencers = [], []

    def sign_up_members(self, count=4):
        for index in range(count):
            status, account = request(self.base, "POST", "/v1/auth/signup",
                                      {"email": f"drill{index}@example.com", "password": f"drill-password-{index}"})
            check(status == 201, f"member {index} signs up ({status})")
            self.members.append(account["access_token"])
        status, influencers = request(self.base, "GET", "/v1/influencers?limit=5", token=self.members[0])
        self.influencers = [item["id"] for item in influencers["data"]] if status == 200 else []
        check(len(self.influencers) == 5, f"the seeded influencers are listed ({status})")

    def record(self, kind, ident, sent, extra=None):
        with self.lock:
            self.writes.append({"kind": kind, "id": ident, "sent": sent, "acknowledged": time.time(), "extra": extra})

    def write_once(self, number):
        with self.lock:
            self.counter[0] += 1
            step = self.counter[0]
        member = self.members[step % len(self.members)]
        sent = time.time()
        if step % 4 == 0:
            status, session = request(self.base, "POST", "/v1/auth/signup",
                                      {"email": f"drill-{step}@example.com", "password": f"drill-password-{step}"})
            if status == 201:
                self.record("user", session["user"]["id"], sent, session["access_token"])
        elif step % 4 == 1:
            start = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=1)
            status, post = request(self.base, "POST", "/v1/posts", {
                "influencer_id": self.influencers[step % len(self.influencers)], "product_name": f"드릴 상품 {step}",
                "category": "beauty", "price": step, "group_buying_start": start.isoformat(),
                "group_buying_end": (start + datetime.timedelta(days=3)).isoformat()}, token=member)
            if status == 201:
                self.record("post", post["id"], sent)
        elif step % 4 == 2:
            with self.lock:
                posts = [item["id"] for item in self.writes if item["kind"] == "post"]
            if posts:
                target = random.choice(posts)
                status, _ = request(self.base, "PUT", f"/v1/posts/{target}/like", token=member)
                if status == 200:
                    self.record("like", target, sent, member)
        else:
            boundary = "drill"
            body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"d.png\"\r\n"
                    "Content-Type: image/png\r\n\r\n").encode() + png(step % 256) + f"{number}-{step}".encode() \
                + f"\r\n--{boundary}--\r\n".encode()
            status, upload = request(self.base, "POST", "/v1/uploads", token=member, raw=body,
                                     headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
            if status == 201:
                self.record("upload", urllib.parse.urlsplit(upload["url"]).path, sent)

    def load(self, seconds, writers=4, meanwhile=None):
        """Writes for `seconds` from `writers` threads; `meanwhile()` runs in this thread."""
        end = time.time() + seconds

        def worker(number):
            while time.time() < end:
                self.write_once(number)
                time.sleep(0.02)

        threads = [threading.Thread(target=worker, args=(number,)) for number in range(writers)]
        for thread in threads:
            thread.start()
        if meanwhile:
            meanwhile()
        for thread in threads:
            thread.join()

    def accident(self, sql):
        """At T, 500 posts deleted (a mistaken admin command); writing goes on a little, and
        the archive gets its timeout's worth of time to catch up. Returns T."""
        moment = time.time()
        deleted = sql("WITH gone AS (DELETE FROM posts WHERE id IN (SELECT id FROM posts ORDER BY id DESC LIMIT 500) RETURNING 1) "
                      "SELECT count(*) FROM gone")
        check(int(deleted) == 500, "the accident: 500 posts deleted")
        self.load(3)
        time.sleep(8)  # what a restore can reach trails the last write by the archive timeout (3 s)
        return moment

    def verify(self, accident, base, sql):
        """Against the restored data served at `base`, whose database `sql(statement)` reads."""

        def get(path, token=None):
            # A balancer's per-client rate (compose: 50 requests/s) answers 429: wait, ask again.
            for _ in range(40):
                status, answer = request(base, "GET", path, token=token)
                if status != 429:
                    return status, answer
                time.sleep(0.5)
            return status, answer

        before = [item for item in self.writes if item["acknowledged"] < accident - 1]
        after = [item for item in self.writes if item["sent"] > accident]
        kinds = sorted({item["kind"] for item in before})
        check(len(before) > 30 and len(after) > 10 and kinds == ["like", "post", "upload", "user"],
              f"the load wrote {len(before)} times before T-1 s ({', '.join(kinds)}) and {len(after)} after T")
        missing = []
        for item in before:
            if item["kind"] == "user":
                status = get("/v1/me", token=item["extra"])[0]
            elif item["kind"] == "post":
                status = get(f"/v1/posts/{item['id']}", token=self.members[0])[0]
            elif item["kind"] == "like":
                status, post = get(f"/v1/posts/{item['id']}", token=item["extra"])
                status = 200 if status == 200 and post["is_liked"] else 404
            else:
                status = get(item["id"])[0]
            if status != 200:
                missing.append((item["kind"], item["id"], status))
        check(not missing, f"every write acknowledged before T-1 s is served from the restored data: {len(before)} (missing: {missing[:5]})")
        # Each post's count is its likes: the counter restored with the rows it counts.
        skew = sql("SELECT count(*) FROM posts p WHERE likes_count <> (SELECT count(*) FROM likes l WHERE l.post_id = p.id)")
        check(skew == "0", f"every post's likes_count equals its likes ({skew} differ)")
        users = set(sql("SELECT coalesce(string_agg(id::text, ','), '') FROM users").split(","))
        posts = set(sql("SELECT coalesce(string_agg(id::text, ','), '') FROM posts").split(","))
        late = [item for item in after if (item["kind"] == "user" and item["id"] in users)
                or (item["kind"] == "post" and str(item["id"]) in posts)]
        check(not late, f"nothing begun after T is there ({len(after)} writes; found: {late[:5]})")
