#!/usr/bin/env python3
"""How much acknowledged data a total loss could cost: the age of the oldest commit whose
WAL has not reached the backup repository yet, sampled every 100 ms for `seconds`.

usage: rpo.py <database url> <seconds> <wal segment bytes>

Each sample commits one row (its time and WAL position) and reads pg_stat_archiver's last
archived segment: every commit at or before that segment's end is archived. Prints the
worst and the 99th percentile of the lag over the run. Loopback only; bounded.
"""
import subprocess, sys, time

url, seconds, segment = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])

def query(sql):
    return subprocess.run(["psql", "-X", "-qtA", url, "-c", sql], capture_output=True, text=True, check=True).stdout.strip()

def lsn(text):
    high, low = text.split("/")
    return (int(high, 16) << 32) + int(low, 16)

query("CREATE TABLE IF NOT EXISTS rpo_probe (at timestamptz, lsn pg_lsn)")
pending, lags, end = [], [], time.time() + seconds
per_log = 0x100000000 // segment
while time.time() < end:
    sent = time.time()
    pending.append((sent, lsn(query("INSERT INTO rpo_probe VALUES (now(), pg_current_wal_lsn()) RETURNING pg_current_wal_insert_lsn()"))))
    last = query("SELECT last_archived_wal FROM pg_stat_archiver")
    if last:
        archived_end = (int(last[8:16], 16) * per_log + int(last[16:24], 16) + 1) * segment
        pending = [entry for entry in pending if entry[1] > archived_end]
    lags.append(time.time() - pending[0][0] if pending else 0.0)
    time.sleep(0.1)
query("DROP TABLE rpo_probe")
lags.sort()
print(f"samples {len(lags)}, worst {lags[-1]:.2f} s, p99 {lags[int(len(lags) * 0.99) - 1]:.2f} s, median {lags[len(lags) // 2]:.2f} s")
