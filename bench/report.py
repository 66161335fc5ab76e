#!/usr/bin/env python3
"""Formats bench results as a Markdown table with the ratios the Performance issue names."""
import sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1]) if line.strip()]
own, ideal, nginx, connections, duration = (int(sys.argv[i] or 0) for i in range(2, 7))
print(f"wrk -t2 -c{connections} -d{duration}s on loopback; pgbench -M prepared -c8 -j2 -T{duration}\n")
print("| scenario | rps | p50 ms | p99 ms | non-2xx | server CPU (% of a core) | RSS MB |")
print("|---|---|---|---|---|---|---|")
by = {}
for name, rps, p50, p99, errors, cpu, rss in rows:
    by[name] = int(rps)
    print(f"| {name} | {rps} | {p50} | {p99} | {errors} | {cpu} | {rss} |")
print(f"\n| ceiling | value |\n|---|---|\n| own SQL of feed page 1 (pgbench tps) | {own} |\n| ideal read (pgbench tps) | {ideal} |\n| nginx, same JSON body (rps) | {nginx} |")
def ratio(a, b): return f"{a / b:.2f}" if b else "n/a"
print(f"\n| ratio | value |\n|---|---|")
print(f"| feed page 1 server ÷ own SQL | {ratio(by.get('feed_p1', 0), own)} |")
print(f"| own SQL ÷ ideal read (feed page 1) | {ratio(own, ideal)} |")
print(f"| /health ÷ nginx | {ratio(by.get('health', 0), nginx)} |")
