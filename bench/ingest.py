#!/usr/bin/env python3
"""Rows per second through /v1/ingest on the bench dataset (bench/ingest runs it).

usage: ingest.py <database url> <ingest key> [calls]

Sends `calls` calls of 1,000 new post rows each (the most a call takes), for influencers of
the dataset: one client, then two at once; then the same rows again (all unchanged: what a
re-run of the workflow costs); then `posts/known` with 1,000 ids. The rows it made are
deleted at the end, so the dataset stays as loaded. Loopback only; every loop is bounded.
"""
import json, os, subprocess, sys, threading, time, urllib.request

url, key = sys.argv[1], sys.argv[2]
calls = int(sys.argv[3]) if len(sys.argv) > 3 else 10
server = os.environ.get("INGEST_SERVER", "http://127.0.0.1:18090")
categories = ["beauty", "food", "fashion", "living", "kids", "electronics", "travel", "pet", "fitness", "education", "stationery", "camping", "automotive"]
caption = "수분 크림 공동구매 오픈합니다! 이번 주 금요일까지, 프로필 링크에서 만나요. 선착순 한정 수량이고 배송은 주문 후 3일 안에 출발해요. " * 3

def psql(sql):
    return subprocess.run(["psql", "-X", "-qtA", url, "-c", sql], check=True, capture_output=True, text=True).stdout.split()

usernames = psql("SELECT username FROM influencers ORDER BY id LIMIT 1000")
run = str(int(time.time()))

def rows(call):
    return [{"influencer_username": usernames[i % len(usernames)], "product_name": f"bench-ingest {run} {call} {i}",
             "price": 10_000 + i, "category": categories[i % len(categories)],
             "group_buying_start": "2026-12-01T00:00:00+09:00", "group_buying_end": "2026-12-08T23:59:59+09:00",
             "display_url": f"https://scontent.cdninstagram.com/v/{run}/{call}/{i}.jpg", "post_url": f"https://www.instagram.com/p/B{call}x{i}/",
             "caption": caption, "hashtags": ["공구", "크림", categories[i % len(categories)]], "post_type": "Image",
             "instagram_post_id": f"{run}{call:04d}{i:04d}", "posted_at": "2026-11-30T09:00:00Z"} for i in range(1000)]

bodies = [json.dumps(rows(call)).encode() for call in range(calls)]

def post(path, body):
    request = urllib.request.Request(server + path, data=body, method="POST",
                                     headers={"Content-Type": "application/json", "Authorization": "Bearer " + key})
    started = time.perf_counter()
    with urllib.request.urlopen(request, timeout=120) as response:
        answer = json.load(response)
    return time.perf_counter() - started, answer

def measure(label, bodies, clients, outcome):
    # (bench/token.py shadows the standard library's token module, which concurrent.futures needs.)
    results = [None] * len(bodies)
    def client(first):
        for index in range(first, len(bodies), clients):
            results[index] = post("/v1/ingest/posts", bodies[index])
    threads = [threading.Thread(target=client, args=(first,)) for first in range(clients)]
    started = time.perf_counter()
    for thread in threads: thread.start()
    for thread in threads: thread.join()
    elapsed = time.perf_counter() - started
    counted = sum(answer[outcome] for _, answer in results)
    assert counted == 1000 * len(bodies), f"{label}: {counted} {outcome} of {1000 * len(bodies)}: {results[0][1]['results'][:3]}"
    latencies = sorted(seconds for seconds, _ in results)
    print(f"| {label} | {clients} | {len(bodies)} x 1,000 | {int(counted / elapsed):,} | {latencies[len(latencies) // 2] * 1000:.0f} | {latencies[-1] * 1000:.0f} |")

try:
    print(f"posts before: {psql('SELECT count(*) FROM posts')[0]}")
    print("| rows | clients | calls | rows/s | call p50 ms | call max ms |")
    print("|---|---|---|---|---|---|")
    half = len(bodies) // 2
    measure("created", bodies[:half], 1, "created")
    measure("created", bodies[half:], 2, "created")
    measure("unchanged (re-run)", bodies, 2, "unchanged")
    ids = json.dumps({"instagram_post_ids": [f"{run}{0:04d}{i:04d}" for i in range(1000)]}).encode()
    timings = sorted(post("/v1/ingest/posts/known", ids)[0] for _ in range(20))
    print(f"\nposts/known with 1,000 ids (all known): p50 {timings[10] * 1000:.1f} ms, max {timings[-1] * 1000:.1f} ms (20 calls)")
finally:
    deleted = psql(f"WITH gone AS (DELETE FROM posts WHERE product_name LIKE 'bench-ingest {run} %' RETURNING 1) SELECT count(*) FROM gone")[0]
    print(f"cleaned up: {deleted} rows")
