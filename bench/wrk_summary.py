#!/usr/bin/env python3
"""Reads wrk --latency output; prints rps, p50 ms, p99 ms, non-2xx count, tab-separated."""
import re, sys
text = sys.stdin.read()
def ms(label):
    m = re.search(r"^\s*%s\s+([\d.]+)(us|ms|s)\s*$" % label, text, re.M)
    if not m: return "nan"
    value, unit = float(m.group(1)), m.group(2)
    return "%.2f" % (value / 1000 if unit == "us" else value * 1000 if unit == "s" else value)
rps = re.search(r"Requests/sec:\s+([\d.]+)", text)
errors = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", text)
print("\t".join([str(int(float(rps.group(1)))) if rps else "0", ms("50%"), ms("99%"), errors.group(1) if errors else "0"]))
