#!/usr/bin/env python3
"""Samples pg_locks every 50 ms for a while and prints how many samples there were and the share
with two or more locks not granted (transactions waiting on others' locks):
`pg_lock_sampler.py PSQL URL SECONDS` -> "SAMPLES PERCENT". One psql session, one query a sample."""
import subprocess
import sys
import time

psql, url, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
session = subprocess.Popen([psql, "-X", "-q", "-A", "-t", url], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
samples = waiting = 0
end = time.monotonic() + seconds
while time.monotonic() < end:
    started = time.monotonic()
    session.stdin.write("SELECT count(*) FROM pg_locks WHERE NOT granted;\n")
    session.stdin.flush()
    line = session.stdout.readline()
    if not line:
        break
    samples += 1
    waiting += int(line.strip() or 0) >= 2
    time.sleep(max(0.0, 0.05 - (time.monotonic() - started)))
session.stdin.close()
session.wait()
print(samples, "%.1f" % (100.0 * waiting / samples if samples else 0.0))
