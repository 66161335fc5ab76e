#!/usr/bin/env python3
"""Prints the wrk script of the like scenario: 500 distinct permanent users, each request
one of them liking, then on the next round unliking, post POST — or, with --spread, user
n its own post POST + n (no two users contend for one post's row). It (re)creates the
table bench_like_users, which numbers the same users for pgbench (bench/sql/like.own.sql).

    bench/like_lua.py SECRET DATABASE_URL POST [--spread] > like.lua
"""
import subprocess, sys

secret, url, post = sys.argv[1:4]
spread = "--spread" in sys.argv[4:]
subprocess.run(["psql", "-X", "-q", url, "-c", "DROP TABLE IF EXISTS bench_like_users",
                "-c", "CREATE TABLE bench_like_users AS SELECT (row_number() OVER (ORDER BY id))::int AS n, id"
                      " FROM (SELECT id FROM users WHERE NOT is_anonymous ORDER BY id LIMIT 500) u",
                "-c", "ALTER TABLE bench_like_users ADD PRIMARY KEY (n)"], check=True)
ids = subprocess.run(["psql", "-X", "-qtA", url, "-c", "SELECT id FROM bench_like_users ORDER BY n"],
                     capture_output=True, text=True, check=True).stdout.split()
if not ids:
    sys.exit("like_lua: bench_like_users is empty")
here = sys.path[0]
tokens = [subprocess.run(["python3", f"{here}/token.py", secret, i], capture_output=True, text=True, check=True).stdout.strip()
          for i in ids]
print("POST = %s" % post)
print("SPREAD = %s" % ("true" if spread else "false"))
print("tokens = {" + ",".join('"%s"' % t for t in tokens) + "}")
print('counter = 0\nrequest = function()\n  counter = counter + 1\n  local n = counter % #tokens\n  local t = tokens[n + 1]\n'
      '  local method = (math.floor(counter / #tokens) % 2 == 0) and "PUT" or "DELETE"\n'
      '  local post = SPREAD and (POST + n) or POST\n'
      '  return wrk.format(method, "/v1/posts/" .. post .. "/like", {["Authorization"] = "Bearer " .. t})\nend')
