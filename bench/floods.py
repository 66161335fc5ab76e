"""Two floods from outside, no special access, each bounded (bench/abuse runs them):

1. Method flood: N requests with invented HTTP methods of SIZE bytes (anyone can send
   them; nginx passes them on), while another thread times GET /health. Reports how the
   requests were answered, /health's worst wait, and then one scrape of /metrics (its
   size and time) on the metrics listener.
2. Upload flood: one permanent account sends COUNT different 1 MiB PNG images one after
   another. Reports how many were stored, how many refused and how, and the time.

    python3 bench/floods.py http://127.0.0.1:18090 http://127.0.0.1:19090 OUT.md [N SIZE COUNT]
"""
import http.client
import json
import random
import socket
import string
import sys
import threading
import time
import urllib.parse

API = urllib.parse.urlsplit(sys.argv[1])
METRICS = urllib.parse.urlsplit(sys.argv[2])
OUT = sys.argv[3]
FLOOD = int(sys.argv[4]) if len(sys.argv) > 4 else 2000
SIZE = int(sys.argv[5]) if len(sys.argv) > 5 else 8000
UPLOADS = int(sys.argv[6]) if len(sys.argv) > 6 else 150


def raw(method, path, port):
    """One request with any method; the status, or None when the server closed first."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as connection:
        connection.sendall(f"{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while b"\r\n" not in data:
            chunk = connection.recv(4096)
            if not chunk:
                return None
            data += chunk
        return int(data.split(b" ")[1])


def method_flood():
    waits, stop = [], threading.Event()

    def probe():
        while not stop.is_set():
            started = time.monotonic()
            try:
                raw("GET", "/health", API.port)
            except OSError:
                pass  # counted as its wait all the same
            waits.append(time.monotonic() - started)
            time.sleep(0.05)

    prober = threading.Thread(target=probe)
    prober.start()
    statuses = {}
    started = time.monotonic()
    for _ in range(FLOOD):
        method = "".join(random.choice(string.ascii_uppercase) for _ in range(SIZE))
        status = raw(method, "/v1/posts", API.port)
        statuses[status] = statuses.get(status, 0) + 1
    flood_seconds = time.monotonic() - started
    flood_probes = list(waits)
    # The scrape, with /health still timed beside it (the rendering once ran on an engine thread).
    scrape_started = time.monotonic()
    try:
        connection = http.client.HTTPConnection("127.0.0.1", METRICS.port, timeout=300)
        connection.request("GET", "/metrics")
        body = connection.getresponse().read()
        scrape = f"{len(body) / 1024:.0f} KB in {(time.monotonic() - scrape_started) * 1000:.0f} ms"
    except (OSError, http.client.HTTPException) as error:
        body = b""
        scrape = f"no answer after {time.monotonic() - scrape_started:.1f} s ({type(error).__name__})"
    stop.set()
    prober.join()
    scrape_probes = waits[len(flood_probes):]
    methods = {line.split('method="')[1].split('"')[0] for line in body.decode(errors="replace").splitlines() if 'method="' in line}
    return [
        f"## Method flood ({FLOOD} requests with invented {SIZE}-byte methods)",
        "",
        f"- answered: {statuses} in {flood_seconds:.1f} s",
        f"- GET /health meanwhile: {len(flood_probes)} probes, worst {max(flood_probes) * 1000:.0f} ms",
        f"- then one scrape of /metrics: {scrape}, {len(methods)} method labels; GET /health during it: "
        f"{len(scrape_probes)} probes, worst {max(scrape_probes or [0]) * 1000:.0f} ms",
        "",
    ]


def request(method, path, body=None, headers=None):
    connection = http.client.HTTPConnection("127.0.0.1", API.port, timeout=60)
    connection.request(method, path, body=body, headers=headers or {})
    response = connection.getresponse()
    data = response.read()
    return response.status, data


def upload_flood():
    email = f"flood{random.randrange(10**9)}@example.com"
    status, data = request("POST", "/v1/auth/signup", json.dumps({"email": email, "password": "flood-password"}),
                           {"Content-Type": "application/json"})
    token = json.loads(data)["access_token"]
    outcomes = {}
    started = time.monotonic()
    for index in range(UPLOADS):
        image = bytes([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]) + b"IHDR" + index.to_bytes(4, "big") \
            + (1).to_bytes(4, "big") + bytes([8, 6, 0, 0, 0]) + random.randbytes((1 << 20) - 33)
        body = (b"--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"f.png\"\r\n\r\n" + image + b"\r\n--b--\r\n")
        status, data = request("POST", "/v1/uploads", body, {"Authorization": "Bearer " + token,
                                                             "Content-Type": "multipart/form-data; boundary=b"})
        key = status if status == 201 else f"{status} {json.loads(data).get('error')}"
        outcomes[key] = outcomes.get(key, 0) + 1
    return [
        f"## Upload flood (one account, {UPLOADS} different 1 MiB images, one after another)",
        "",
        f"- answered: {outcomes} in {time.monotonic() - started:.1f} s",
        "",
    ]


if __name__ == "__main__":
    lines = method_flood() + upload_flood()
    with open(OUT, "w") as file:
        file.write("\n".join(lines) + "\n")
    print("\n".join(lines))
