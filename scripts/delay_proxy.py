#!/usr/bin/env python3
"""A TCP proxy that adds a fixed delay each way, to measure Tollgate and PostgreSQL as if they ran
on separate machines: `delay_proxy.py LISTEN_PORT TARGET_HOST TARGET_PORT RTT_MS` forwards every
connection made to 127.0.0.1:LISTEN_PORT to TARGET, holding each chunk RTT_MS/2 before passing it
on, in each direction, in order. Chunks are read as soon as they arrive (a reader thread per
direction) and written when due (a writer thread per direction), so the delay is added once per
trip, not once per chunk, and pipelined messages stay pipelined. Runs until killed; prints
"ready" once it listens."""
import collections
import socket
import sys
import threading
import time


def pump(source, target, delay):
    """Copies source to target, each chunk `delay` seconds after it was read."""
    queue = collections.deque()
    ready = threading.Condition()

    def read():
        while True:
            try:
                chunk = source.recv(65536)
            except OSError:
                chunk = b""
            with ready:
                queue.append((time.monotonic() + delay, chunk))
                ready.notify()
            if not chunk:
                return

    def write():
        while True:
            with ready:
                while not queue:
                    ready.wait()
                due, chunk = queue.popleft()
            pause = due - time.monotonic()
            if pause > 0:
                time.sleep(pause)
            if not chunk:
                try:
                    target.shutdown(socket.SHUT_WR)
                except OSError:
                    pass
                return
            try:
                target.sendall(chunk)
            except OSError:
                return

    for body in (read, write):
        threading.Thread(target=body, daemon=True).start()


def main():
    listen_port, host, port, rtt_ms = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    delay = rtt_ms / 2000.0
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", listen_port))
    server.listen(512)
    print("ready", flush=True)
    while True:
        client, _ = server.accept()
        upstream = socket.create_connection((host, port))
        for s in (client, upstream):
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        pump(client, upstream, delay)
        pump(upstream, client, delay)


if __name__ == "__main__":
    main()
