#!/usr/bin/env python3
"""Formats the rows of bench/topology.sh (TSV: scenario, instances, reads, rps, p50, p99,
non-2xx, then CPU ticks of the instances, the primary, the replica and the whole box over
the run) as a Markdown table. CPU per request = ticks x 10 ms / requests.

    topology_report.py TOPOLOGY BALANCER ROWS DURATION CONNECTIONS POSTS
"""
import sys

topology, balancer, rows_path = sys.argv[1], sys.argv[2], sys.argv[3]
duration, connections, posts = int(sys.argv[4]), sys.argv[5], int(sys.argv[6])
print(f"scripts/{topology} bench: wrk -t2 -c{connections} -d{duration}s through {balancer}, {posts:,} posts; "
      f"{balancer}, 3 instances, every PostgreSQL server and wrk share the same 2 cores\n")
print("| scenario | instances | reads on | rps | p50 ms | p99 ms | non-2xx | box CPU % "
      "| API CPU ms/req | primary CPU ms/req | replica CPU ms/req |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for line in open(rows_path):
    scenario, instances, reads, rps, p50, p99, errors, api, primary, replica, box = line.rstrip("\n").split("\t")
    requests = max(int(rps) * duration, 1)
    def per(ticks):
        return "%.3f" % (int(ticks) * 10 / requests)
    print(f"| {scenario} | {instances} | {reads} | {rps} | {p50} | {p99} | {errors} | {int(box) // duration} "
          f"| {per(api)} | {per(primary)} | {per(replica)} |")
