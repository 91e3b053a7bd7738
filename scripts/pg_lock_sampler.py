#!/usr/bin/env python3
"""Samples pg_locks every 50 ms for a while and prints how many samples there were and the share
with two or more locks not granted (transactions waiting on others' locks):
`pg_lock_sampler.py PSQL URL SECONDS [DETAIL_FILE]` -> "SAMPLES PERCENT". One psql session, one
query a sample.

With DETAIL_FILE, each waiting lock is also joined to pg_stat_activity: what kind of lock (relation,
tuple, transactionid, advisory ...), on which relation, in which mode, the statement that waits and
the statement its first blocker (pg_blocking_pids) ran last. DETAIL_FILE gets one line per distinct
wait, the most frequent first: `COUNT<TAB>LOCKTYPE<TAB>RELATION<TAB>MODE<TAB>WAITING<TAB>BLOCKER`."""
import collections
import subprocess
import sys
import time

psql, url, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
detail_file = sys.argv[4] if len(sys.argv) > 4 else None
COUNT = "SELECT count(*) FROM pg_locks WHERE NOT granted;\n"
# One row per waiting lock, then an end marker, so a sample with no waits is one line.
DETAIL = r"""
SELECT l.locktype || chr(9) || coalesce(l.relation::regclass::text, '') || chr(9) || l.mode || chr(9)
    || left(regexp_replace(coalesce(a.query, ''), '\s+', ' ', 'g'), 160) || chr(9)
    || coalesce((SELECT b.state || ': ' || left(regexp_replace(b.query, '\s+', ' ', 'g'), 160)
                 FROM pg_stat_activity b WHERE b.pid = (pg_blocking_pids(l.pid))[1]), '?')
FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE NOT l.granted
UNION ALL SELECT '.';
""".replace("\n", " ").strip() + "\n"
session = subprocess.Popen([psql, "-X", "-q", "-A", "-t", url], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
samples = waiting = 0
waits = collections.Counter()
end = time.monotonic() + seconds
while time.monotonic() < end:
    started = time.monotonic()
    session.stdin.write(DETAIL if detail_file else COUNT)
    session.stdin.flush()
    if detail_file:
        rows = []
        while True:
            line = session.stdout.readline()
            if not line or line.rstrip("\n") == ".":
                break
            rows.append(line.rstrip("\n"))
        if not line:
            break
        ungranted = len(rows)
        waits.update(rows)
    else:
        line = session.stdout.readline()
        if not line:
            break
        ungranted = int(line.strip() or 0)
    samples += 1
    waiting += ungranted >= 2
    time.sleep(max(0.0, 0.05 - (time.monotonic() - started)))
session.stdin.close()
session.wait()
if detail_file:
    with open(detail_file, "w") as out:
        for row, count in waits.most_common():
            out.write(f"{count}\t{row}\n")
print(samples, "%.1f" % (100.0 * waiting / samples if samples else 0.0))
