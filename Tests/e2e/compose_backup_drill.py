"""The restore drill on docker-compose.yml, through nginx's published port as clients
would (backup_drill.py): the backup host has taken a backup from the standby; a steady
write load runs; an accident at T deletes 500 posts; writing goes on; scripts/compose-restore
--to T-1s restores the database and media and switches the stack to them. Then every write
acknowledged before T-1 s is served, nothing begun after T is there, and the stack serves.
Prints one line per check; exits 1 on the first failure.

    python3 compose_backup_drill.py http://127.0.0.1:PORT PROJECT ENV_FILE
"""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from backup_drill import Drill, check, moment_text  # noqa: E402

BASE, PROJECT, ENV_FILE = sys.argv[1], sys.argv[2], sys.argv[3]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FLAGS = ["-p", PROJECT, "--env-file", ENV_FILE]


def compose(*arguments, check_status=True):
    result = subprocess.run(["docker", "compose", *FLAGS, *arguments], cwd=ROOT, capture_output=True, text=True, timeout=600)
    if check_status and result.returncode != 0:
        print(result.stdout[-2000:], result.stderr[-2000:], flush=True)
        check(False, f"docker compose {' '.join(arguments)}")
    return result.stdout


def psql(statement):
    return compose("exec", "-T", "postgres-primary", "psql", "-X", "-qtA", "-U", "postgres", "-d", "market09", "-c", statement).strip()


def main():
    deadline, listed = time.time() + 300, ""
    while "restorable from" not in listed and time.time() < deadline:
        time.sleep(0 if not listed else 3)
        result = subprocess.run(["docker", "compose", *FLAGS, "exec", "-T", "backup", "market09", "backup", "list"], cwd=ROOT,
                                capture_output=True, text=True, timeout=120)
        listed = result.stdout + result.stderr
    check("restorable from" in listed, f"the backup host takes a first backup within 5 minutes ({listed[-300:]})")
    log = compose("exec", "-T", "backup", "sh", "-c", "cat /tmp/pgbackrest/market09-backup.log")
    check("wait for replay on the standby" in log, "the backup was taken from the standby (its files), not the primary")

    drill = Drill(BASE)
    drill.sign_up_members()
    drill.load(5)
    accident = drill.accident(psql)
    moment = moment_text(accident - 1)
    started = time.time()
    restored = subprocess.run([os.path.join(ROOT, "scripts/compose-restore"), "--to", moment], cwd=ROOT, capture_output=True,
                              text=True, timeout=900, env={**os.environ, "COMPOSE_FLAGS": " ".join(FLAGS)})
    print(restored.stderr[-1500:], flush=True)
    check(restored.returncode == 0, f"scripts/compose-restore --to {moment} ({restored.returncode})")
    print(f"info restored and serving again in {time.time() - started:.0f} s", flush=True)
    drill.verify(accident, BASE, psql)


if __name__ == "__main__":
    main()
