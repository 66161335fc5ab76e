#!/usr/bin/env python3
"""Prints the wrk script of the like/unlike pairs scenario: USERS permanent users, each
liking then unliking POSTS posts in turn (PUT then DELETE of one pair, the next pair after),
each user from its own place in the list, so likes of different posts arrive together.

    bench/like_pairs.py SECRET DATABASE_URL FIRST_POST [USERS] [POSTS] > like_pairs.lua
"""
import subprocess, sys

secret, url, first = sys.argv[1:4]
users = int(sys.argv[4]) if len(sys.argv) > 4 else 32
posts = int(sys.argv[5]) if len(sys.argv) > 5 else 2000
ids = subprocess.run(["psql", "-X", "-qtA", url, "-c",
                      "SELECT id FROM users WHERE NOT is_anonymous ORDER BY id DESC LIMIT %d" % users],
                     capture_output=True, text=True, check=True).stdout.split()
post_ids = subprocess.run(["psql", "-X", "-qtA", url, "-c",
                           "SELECT id FROM posts WHERE id >= %d ORDER BY id LIMIT %d" % (int(first), posts)],
                          capture_output=True, text=True, check=True).stdout.split()
if len(ids) < users or len(post_ids) < posts:
    sys.exit("like_pairs: not enough users or posts")
here = sys.path[0]
tokens = [subprocess.run(["python3", f"{here}/token.py", secret, i], capture_output=True, text=True, check=True).stdout.strip()
          for i in ids]
print("tokens = {" + ",".join('"%s"' % t for t in tokens) + "}")
print("posts = {" + ",".join(post_ids) + "}")
# One wrk thread per run keeps one sequence: request 2k likes pair k, 2k+1 unlikes it.
print('counter = 0\nrequest = function()\n  local pair = math.floor(counter / 2)\n'
      '  local method = (counter % 2 == 0) and "PUT" or "DELETE"\n  counter = counter + 1\n'
      '  local t = tokens[pair % #tokens + 1]\n  local user = pair % #tokens\n'
      '  local post = posts[(math.floor(pair / #tokens) + user * math.floor(#posts / #tokens)) % #posts + 1]\n'
      '  return wrk.format(method, "/v1/posts/" .. post .. "/like", {["Authorization"] = "Bearer " .. t})\nend')
