#!/usr/bin/env python3
"""Formats a bench run as Markdown: per scenario the wrk numbers, its pgbench ceilings and
the ratios the Performance issue sets targets for."""
import sys

results, ceilings_file, nginx, connections, duration, soak, soak_rss, soak_rps = sys.argv[1:9]
rows = [line.rstrip("\n").split("\t") for line in open(results) if line.strip()]
ceilings = {}
for line in open(ceilings_file):
    if line.strip():
        name, own, ideal = (line.rstrip("\n").split("\t") + ["", ""])[:3]
        ceilings[name] = (int(own) if own else None, int(ideal) if ideal else None)

def ratio(a, b):
    return f"{a / b:.2f}" if a is not None and b else ""

print(f"wrk -t2 -c{connections} -d{duration}s on loopback; pgbench -M prepared -c8 -j2 -T{duration} (bench/sql)\n")
print("| scenario | rps | p50 ms | p99 ms | p99 ÷ p50 | non-2xx | server CPU % | RSS MB | own SQL tps | ideal tps | server ÷ own SQL | own SQL ÷ ideal |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
health = None
for name, rps, p50, p99, errors, cpu, rss in rows:
    rps = int(rps)
    if name == "health":
        health = rps
    own, ideal = ceilings.get(name, (None, None))
    spread = f"{float(p99) / float(p50):.1f}" if float(p50) > 0 else ""
    print(f"| {name} | {rps} | {p50} | {p99} | {spread} | {errors} | {cpu} | {rss} | {own or ''} | {ideal or ''} "
          f"| {ratio(rps, own)} | {ratio(own, ideal)} |")
alone = [(name, own) for name, (own, _) in ceilings.items() if own and name not in {row[0] for row in rows}]
if alone:
    print("\nStatements measured alone (pgbench tps): " + ", ".join(f"{name} {own}" for name, own in alone))
print(f"\n/health ÷ nginx serving the feed page's JSON body ({nginx} rps): {ratio(health, int(nginx or 0))}")
if int(soak) > 0:
    samples = [int(x) for x in soak_rss.split()]
    print(f"\nSoak: feed page 1 for {soak} s at {soak_rps} rps; RSS every 10 s (MB): "
          f"first {samples[0]}, min {min(samples)}, max {max(samples)}, last {samples[-1]}")
