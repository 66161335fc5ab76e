#!/usr/bin/env python3
"""The feed's parameter sweep: realistic requests generated from the data, each timed once.

    bench/sweep.py DATABASE_URL BASE_URL AUTH_HEADER OUT.md [COUNT]

Search terms are drawn from the dataset at every frequency: one- and two-character terms
from the gram statistics PostgreSQL keeps for posts.search_grams (from 70 % of posts down
to the rare ones), words of product names, influencer usernames and full names, and terms
that match nothing; then the most common terms of the data (issue 47) with every sort, on
the first page and page 10. Each is combined with a random category, status, date range, sort and
page (depths up to each list's offset window), with a fixed seed so runs compare. Every
request is sent once after one warm-up of the same URL; the table lists the worst ten and
the status counts. A request passes when it answers 2xx in under 100 ms, or 400 naming the
parameter (a page past an offset window). `--all` lists every request outside it, not the
worst ten; `--strict` exits 1 when there is one.
"""
import datetime
import http.client
import json
import random
import subprocess
import sys
import time
import urllib.parse

CATEGORIES = ["beauty", "food", "fashion", "living", "kids", "electronics", "travel", "pet",
              "fitness", "education", "stationery", "camping", "automotive"]
STATUSES = ["upcoming", "ongoing", "closing_soon", "closed"]
SORTS = ["default", "latest", "popular", "ending_soon"]


def psql(url, sql):
    out = subprocess.run(["psql", "-X", "-qtA", "-F", "\t", url, "-c", sql], capture_output=True, text=True, check=True)
    return [line.split("\t") for line in out.stdout.splitlines() if line]


def gram_text(code):
    code = int(code)
    if 0 <= code <= 0x10FFFF:
        return chr(code)
    unsigned = code + (1 << 32) if code < 0 else code
    return chr(unsigned >> 16) + chr(unsigned & 0xFFFF)


def terms(url, rng):
    grams = psql(url, """
        SELECT e, f FROM pg_stats s,
             unnest(s.most_common_elems::text::int[], s.most_common_elem_freqs[1:cardinality(s.most_common_elems::text::int[])]) AS x(e, f)
        WHERE s.tablename = 'posts' AND s.attname = 'search_grams'""")
    grams = sorted(((float(f), gram_text(e)) for e, f in grams), reverse=True)
    picked = []
    # Every frequency band, most common first: 1 in 12 of the listed grams.
    for i in range(0, len(grams), max(1, len(grams) // 40)):
        picked.append(grams[i][1])
    words = [w for (name,) in psql(url, "SELECT product_name FROM posts TABLESAMPLE SYSTEM (0.1) REPEATABLE (7) LIMIT 200")
             for w in name.split() if not w.isdigit()]
    picked += rng.sample(sorted(set(words)), min(20, len(set(words))))
    people = psql(url, "SELECT username, coalesce(full_name, '') FROM influencers TABLESAMPLE SYSTEM (1) REPEATABLE (7) LIMIT 50")
    for username, full_name in rng.sample(people, min(10, len(people))):
        picked.append(username.split(".")[-1])
        if full_name:
            picked.append(full_name)
    picked += ["zzqx", "없는상품명", "a b", "100%", "_"]
    return [t for t in picked if t.strip()]


def common_terms(url):
    """The ten most frequent grams (one or two characters, from PostgreSQL's statistics),
    the five most frequent words of product names (from a 1 % sample), and two words of
    them together with a digit, as a user types a product's name."""
    grams = psql(url, """
        SELECT e FROM pg_stats s,
             unnest(s.most_common_elems::text::int[], s.most_common_elem_freqs[1:cardinality(s.most_common_elems::text::int[])]) AS x(e, f)
        WHERE s.tablename = 'posts' AND s.attname = 'search_grams' ORDER BY f DESC LIMIT 10""")
    words = psql(url, """
        SELECT w FROM (SELECT regexp_split_to_table(product_name, '\\s+') AS w FROM posts TABLESAMPLE SYSTEM (1) REPEATABLE (47)) x
        WHERE w <> '' GROUP BY w ORDER BY count(*) DESC, w LIMIT 5""")
    picked = [gram_text(e) for (e,) in grams] + [w for (w,) in words]
    if len(words) >= 2:
        picked.append(f"{words[0][0]} {words[1][0]} 3")
    return [t for t in picked if t.strip()]


def requests(url, count, rng):
    found = terms(url, rng)
    out = []
    while len(out) < count:
        params = {}
        if rng.random() < 0.8:
            params["search"] = rng.choice(found)
        if rng.random() < 0.3:
            params["category"] = rng.choice(CATEGORIES)
        if rng.random() < 0.3:
            params["status"] = rng.choice(STATUSES)
        if rng.random() < 0.15:
            # Anywhere in the data's seven months: a range long past is deep in the newest-first
            # order (its posts were posted then), a recent one near its top.
            first = datetime.date(2026, 5, 15) + datetime.timedelta(days=rng.randint(0, 215))
            params["date_from"] = first.isoformat()
            params["date_to"] = (first + datetime.timedelta(days=rng.choice([0, 0, 1, 3, 7, 14, 30, 60]))).isoformat()
        sort = rng.choice(SORTS)
        if sort != "default":
            params["sort"] = sort
        limit = rng.choice([20, 20, 20, 50])
        reach = 1000 if "search" in params or params.get("status", "closed") != "closed" else 10000
        depth = rng.choice([1, 1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2000])
        params["limit"] = limit
        params["page"] = max(1, min(depth, reach // limit))
        out.append("/v1/posts?" + urllib.parse.urlencode(params))
    # The influencer list: deep pages and searches.
    for term in rng.sample(found, min(10, len(found))):
        out.append("/v1/influencers?" + urllib.parse.urlencode({"search": term, "page": rng.choice([1, 5, 50])}))
    out += ["/v1/influencers?page=%d" % p for p in (1, 100, 500)]
    # The most common terms of the data (issue 47: search must not depend on how common the
    # term is), each with every sort, on the first page and on page 10.
    for term in common_terms(url):
        for sort in SORTS:
            for page in (1, 10):
                params = {"search": term, "limit": 20, "page": page}
                if sort != "default":
                    params["sort"] = sort
                out.append("/v1/posts?" + urllib.parse.urlencode(params))
    # Hashtag lists (seed bulk: a category tag on ~77 k posts, 1,000 tags on ~1 k each),
    # first and deep pages; the schedule of a viewer following 500 influencers.
    for tag, page in [("beauty", 1), ("beauty", 200), ("beauty", 500), ("tag7", 1), ("tag7", 20), ("크림", 100), ("nosuchtag", 1)]:
        out.append("/v1/posts?" + urllib.parse.urlencode({"hashtag": tag, "page": page}))
    return out


def main():
    url, base, auth, out_path = sys.argv[1:5]
    count = int(sys.argv[5]) if len(sys.argv) > 5 else 240
    rng = random.Random(20261201)
    target = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
    name, value = auth.split(": ", 1)
    results = []
    for path in requests(url, count, rng):
        connection.request("GET", path, headers={name: value})
        connection.getresponse().read()
        started = time.perf_counter()
        connection.request("GET", path, headers={name: value})
        response = connection.getresponse()
        body = response.read()
        elapsed = (time.perf_counter() - started) * 1000
        try:
            answer = json.loads(body)
        except ValueError:
            answer = {}
        note = answer.get("error") or "%d rows of %s%s" % (len(answer.get("data", [])), answer.get("total"),
                                                          "" if answer.get("total_exact", True) else " (estimate)")
        results.append((elapsed, response.status, urllib.parse.unquote(path), note))
    failures = [r for r in results if not (200 <= r[1] < 300 and r[0] < 100 or r[1] == 400 and r[3] == "invalid_parameter")]
    statuses = {}
    for r in results:
        statuses[r[1]] = statuses.get(r[1], 0) + 1
    times = sorted(r[0] for r in results if 200 <= r[1] < 300)
    with open(out_path, "w") as out:
        posts = psql(url, "SELECT reltuples::bigint FROM pg_class WHERE relname = 'posts'")[0][0]
        out.write("## Parameter sweep (%d requests, each once after a warm-up; ~%s posts)\n\n" % (len(results), f"{int(posts):,}"))
        out.write("Statuses: %s. 2xx times: median %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms. Outside the target "
                  "(2xx under 100 ms or a 400 naming the parameter): %d.\n\n" % (
                      ", ".join("%d × %d" % (n, s) for s, n in sorted(statuses.items())),
                      times[len(times) // 2], times[int(len(times) * 0.9)], times[min(len(times) - 1, int(len(times) * 0.99))],
                      times[-1], len(failures)))
        out.write("| request | status | ms | answer |\n|---|---|---|---|\n")
        worst = sorted(results, reverse=True)
        # The worst ten, or with --all every request outside the target (to sort them into kinds).
        for elapsed, status, path, note in (worst if "--all" in sys.argv else worst[:10]):
            if "--all" in sys.argv and (elapsed, status, path, note) not in failures:
                continue
            out.write("| `%s` | %d | %.1f | %s |\n" % (path.replace("|", "\\|"), status, elapsed, note))
    print(open(out_path).read())
    sys.exit(1 if failures and "--strict" in sys.argv else 0)


if __name__ == "__main__":
    main()
