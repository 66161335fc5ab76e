"""The restore drill on scripts/cluster, through its balancer as clients would
(backup_drill.py): the backup host has taken a backup from a standby; a steady write load
runs, and the primary is killed in the middle of it (its keeper and its postgres: the
machine is lost); the standby takes over on a new timeline and the backup host makes the
archive whole across it; an accident at T deletes 500 posts; writing goes on;
`scripts/cluster restore --to T-1s --backup <the backup before the failover>` replays
through the failover into a copy served on :18104. Then every write acknowledged before
T-1 s is served by it, nothing begun after T is in it. Prints one line per check; exits 1
on the first failure.

    CLUSTER_DIR=... python3 cluster_backup_drill.py http://127.0.0.1:PORT
"""
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from backup_drill import Drill, check, moment_text  # noqa: E402

BASE = sys.argv[1]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STATE = os.environ.get("CLUSTER_DIR", "/tmp/market09-cluster")
CLUSTER = os.path.join(ROOT, "scripts/cluster")
MONITOR = "postgresql://autoctl_node@127.0.0.1:5500/pg_auto_failover"
PRIMARY = "postgresql://market09@127.0.0.1:5501,127.0.0.1:5502/market09?target_session_attrs=read-write&connect_timeout=2"
RESTORED = "postgresql://market09@127.0.0.1:5504/market09"


def sql(url, statement):
    return subprocess.run(["psql", "-XAtq", url, "-c", "SET statement_timeout = 0", "-c", statement],
                          check=True, capture_output=True, text=True, timeout=120).stdout.strip()


def cluster(*arguments):
    result = subprocess.run([CLUSTER, *arguments], capture_output=True, text=True, timeout=900)
    if result.returncode != 0:
        print(result.stdout[-2000:], result.stderr[-3000:], flush=True)
    return result


def kill_primary():
    """The primary's machine is lost: its keeper's whole session and its postgres."""
    node = sql(MONITOR, "SELECT nodename FROM pgautofailover.node WHERE reportedstate = 'primary'")
    with open(f"{STATE}/{node}.keeper.pid") as keeper, open(f"{STATE}/{node}/postmaster.pid") as postmaster:
        keeper_pid, postgres_pid = int(keeper.read().split()[0]), int(postmaster.read().split()[0])
    subprocess.run(["pkill", "-9", "-s", str(keeper_pid)])
    for pid in (keeper_pid, postgres_pid):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    print(f"     killed {node} (keeper and postgres) at {moment_text(time.time())}", flush=True)


def backup_host_log():
    with open(f"{STATE}/market09-backup.log") as log:
        return log.read()


def main():
    seeded = cluster("run", "seed", "demo")
    check(seeded.returncode == 0, "scripts/cluster run seed demo: an operator's command against the cluster")
    deadline = time.time() + 300
    labels = []
    while not labels and time.time() < deadline:
        labels = re.findall(r"^(\d{8}-\d{6}F)\s", cluster("run", "backup", "list").stdout, re.MULTILINE)
        time.sleep(0 if labels else 3)
    check(labels, "the backup host takes a first backup within 5 minutes")
    with open(f"{STATE}/pgbackrest/market09-backup.log") as log:
        check("wait for replay on the standby" in log.read(), f"backup {labels[0]} was taken from a standby's files, not the primary's")

    drill = Drill(BASE)
    drill.sign_up_members()
    timeline = int(sql(PRIMARY, "SELECT substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8)"), 16)

    def failover():
        time.sleep(3)
        kill_primary()

    drill.load(15, meanwhile=failover)
    after = int(sql(PRIMARY, "SELECT substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8)"), 16)
    check(after > timeline, f"the standby took over on a new timeline ({timeline} → {after})")
    deadline = time.time() + 30
    while "new timeline" not in backup_host_log() and "pushed from the new primary" not in backup_host_log() and time.time() < deadline:
        time.sleep(1)
    check(time.time() < deadline, "the backup host saw the new timeline and made the archive whole within 30 s")
    print("info", [line for line in backup_host_log().splitlines() if "timeline" in line][-1][:300], flush=True)

    accident = drill.accident(lambda statement: sql(PRIMARY, statement))
    moment = moment_text(accident - 1)
    started = time.time()
    restored = cluster("restore", "--to", moment, "--backup", labels[0])
    print(restored.stderr[-1500:], flush=True)
    check(restored.returncode == 0, f"scripts/cluster restore --to {moment} --backup {labels[0]}: through the failover ({restored.returncode})")
    print(f"info restored and serving in {time.time() - started:.0f} s", flush=True)
    drill.verify(accident, "http://127.0.0.1:18104", lambda statement: sql(RESTORED, statement))


if __name__ == "__main__":
    main()
