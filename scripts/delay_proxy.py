#!/usr/bin/env python3
"""A TCP proxy that adds a fixed delay each way, to measure Tollgate and PostgreSQL as if they ran
on separate machines: `delay_proxy.py LISTEN_PORT TARGET_HOST TARGET_PORT RTT_MS` forwards every
connection made to 127.0.0.1:LISTEN_PORT to TARGET, holding each chunk RTT_MS/2 before passing it
on, in each direction, in order. Chunks are read as soon as they arrive and written when due, so
the delay is added once per trip, not once per chunk, and pipelined messages stay pipelined.
One thread and select(), whose timeout has microsecond resolution (asyncio's and poll()'s round
to milliseconds): the proxy should cost the machine little next to what it measures.
Runs until killed; prints "ready" once it listens."""
import collections
import select
import socket
import sys
import time


def main():
    listen_port, host, port, rtt_ms = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    delay = rtt_ms / 2000.0
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", listen_port))
    server.listen(512)
    peer = {}  # socket -> the socket its bytes go to
    pending = collections.deque()  # (due, target, chunk) in arrival order; one delay, so due order too
    print("ready", flush=True)
    while True:
        timeout = None
        if pending:
            timeout = max(0.0, pending[0][0] - time.monotonic())
        readable, _, _ = select.select([server] + list(peer), [], [], timeout)
        now = time.monotonic()
        for sock in readable:
            if sock is server:
                client, _ = server.accept()
                upstream = socket.create_connection((host, port))
                for s in (client, upstream):
                    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                peer[client], peer[upstream] = upstream, client
                continue
            if sock not in peer:
                continue
            try:
                chunk = sock.recv(262144)
            except OSError:
                chunk = b""
            pending.append((now + delay, peer[sock], chunk))
            if not chunk:
                del peer[sock]
        now = time.monotonic()
        while pending and pending[0][0] <= now:
            _, target, chunk = pending.popleft()
            try:
                if chunk:
                    target.sendall(chunk)
                else:
                    target.shutdown(socket.SHUT_WR)
            except OSError:
                pass


if __name__ == "__main__":
    main()
