"""Drives docker-compose.yml's stack through its published port, as clients would, and
checks what a deployment promises: the demo data signs in and pages, a new account signs
up, a like is read back on every instance with the read-after cookie, an upload is served
by every instance from the shared media volume, /metrics is not reachable through nginx,
per-client caps answer 429 in the API's shape, and with one api container killed every
request is still answered. Prints one line per check; exits 1 on the first failure.

    python3 compose_check.py http://127.0.0.1:PORT PROJECT
"""
import http.client
import json
import os
import subprocess
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(__file__))
from backup_drill import check, png  # noqa: E402

BASE = urllib.parse.urlsplit(sys.argv[1])
PROJECT = sys.argv[2]


def request(method, path, body=None, token=None, cookie=None, headers=None, raw=None):
    connection = http.client.HTTPConnection(BASE.hostname, BASE.port, timeout=30)
    fields = dict(headers or {})
    data = raw
    if body is not None:
        data = json.dumps(body)
        fields["Content-Type"] = "application/json"
    if token:
        fields["Authorization"] = "Bearer " + token
    if cookie:
        fields["Cookie"] = cookie
    connection.request(method, path, body=data, headers=fields)
    response = connection.getresponse()
    payload = response.read()
    connection.close()
    answer = json.loads(payload) if payload and response.getheader("Content-Type", "").startswith("application/json") else payload
    return response.status, answer, response.getheader("Set-Cookie")


def main():
    status, session, _ = request("POST", "/v1/auth/token", {"grant_type": "password", "email": "demo1@demo.09market.kr",
                                                            "password": "demo-password"})
    check(status == 200 and session.get("access_token"), f"a demo user signs in through nginx ({status})")
    demo = session["access_token"]
    status, feed, _ = request("GET", "/v1/posts?limit=20", token=demo)
    check(status == 200 and len(feed["data"]) == 20 and feed["total"] > 1000, f"the feed pages the seeded posts ({status})")

    status, account, _ = request("POST", "/v1/auth/signup", {"email": "compose@example.com", "password": "compose-password"})
    check(status == 201, f"a new account signs up ({status})")
    token = account["access_token"]

    post = feed["data"][0]
    status, liked, cookie = request("PUT", f"/v1/posts/{post['id']}/like", token=token)
    check(status == 200 and liked["likes_count"] == post["likes_count"] + 1 and cookie and cookie.startswith("m09_read_after="),
          f"a like counts the caller's own like and sets the read-after cookie ({status})")
    pair = cookie.split(";")[0]
    seen = [request("GET", f"/v1/posts/{post['id']}", token=token, cookie=pair)[1] for _ in range(6)]
    check(all(item["is_liked"] and item["likes_count"] == post["likes_count"] + 1 for item in seen),
          "the like is read back on every instance nginx picks (six reads with the cookie)")

    boundary = "composecheck"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\n").encode() \
        + png(3) + f"\r\n--{boundary}--\r\n".encode()
    status, upload, _ = request("POST", "/v1/uploads", token=token, raw=body,
                                headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
    check(status == 201, f"an image uploads through nginx ({status} {upload})")
    path = urllib.parse.urlsplit(upload["url"]).path
    served = [request("GET", path)[0] for _ in range(6)]
    check(served == [200] * 6, f"every instance serves it from the shared media volume ({served})")

    status, _, _ = request("GET", "/metrics")
    check(status == 404, f"/metrics is not reachable through nginx ({status})")
    for port in (9464,):
        probe = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "3",
                                f"http://{BASE.hostname}:{port}/metrics"], capture_output=True, text=True)
        check(probe.stdout.strip() in ("000", ""), f"no metrics port is published ({probe.stdout.strip()})")

    # Per-client caps at nginx: a burst past 50 r/s + 100 is refused in the API's shape.
    answers = [request("GET", "/health") for _ in range(200)]
    refused = [answer for status, answer, _ in answers if status == 429]
    check(refused and all(isinstance(answer, dict) and answer.get("error") == "rate_limited" for answer in refused),
          f"a burst from one client meets nginx's per-client rate, answered in the API's shape ({len(refused)} of 200 refused)")
    time.sleep(3)

    # One instance killed outright: nginx takes it out and every request is answered.
    container = f"{PROJECT}-api-1"
    subprocess.run(["docker", "kill", container], check=True, capture_output=True)
    answers = []
    for _ in range(30):
        answers.append(request("GET", "/v1/posts?limit=5", token=demo)[0])
        time.sleep(0.05)
    check(answers.count(200) == len(answers), f"with {container} killed, 30 feed requests all answered 200 ({answers})")
    print("ok")


if __name__ == "__main__":
    main()
