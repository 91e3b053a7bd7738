#!/usr/bin/env python3
"""Load helpers for scripts/bench, loopback only and bounded in time.

idle: opens COUNT keep-alive connections, sends one request on each, keeps them open
      for HOLD seconds, prints how many were opened and answered.
slow: opens COUNT connections that send a request head one byte per second for HOLD
      seconds; prints when and with what status the server closed them.
receiver: an app backend for Tollgate's events on PORT: answers every POST 204 after DELAY
      seconds (keep-alive, any number at once) for HOLD seconds; every 0.2 s writes
      "count first last" (monotonic seconds of the first and last answer) to OUT.
"""
import argparse
import socket
import time


def idle(port: int, count: int, hold: float) -> None:
    sockets = []
    answered = 0
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: bench\r\n\r\n")
        sockets.append(s)
    for s in sockets:
        try:
            if s.recv(4096).startswith(b"HTTP/1.1 200"):
                answered += 1
        except OSError:
            pass
    print(f"{len(sockets)} opened, {answered} answered 200")
    deadline = time.monotonic() + hold
    while time.monotonic() < deadline:
        time.sleep(0.5)
    for s in sockets:
        s.close()


def slow(port: int, count: int, hold: float) -> None:
    request = b"GET /healthz HTTP/1.1\r\nHost: bench\r\nX-Slow: " + b"a" * 64 + b"\r\n\r\n"
    conns = []
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.setblocking(False)
        conns.append({"sock": s, "sent": 0, "closed_after": None, "status": None})
    start = time.monotonic()
    while time.monotonic() - start < hold:
        for c in conns:
            if c["closed_after"] is not None:
                continue
            try:
                data = c["sock"].recv(4096)
                if data or data == b"":
                    c["status"] = data.split(b" ")[1].decode() if data.startswith(b"HTTP/") else "closed"
                    c["closed_after"] = round(time.monotonic() - start, 1)
                    continue
            except BlockingIOError:
                pass
            except OSError:
                c["closed_after"] = round(time.monotonic() - start, 1)
                c["status"] = "reset"
                continue
            if c["sent"] < len(request):
                try:
                    c["sock"].send(request[c["sent"]:c["sent"] + 1])
                    c["sent"] += 1
                except OSError:
                    c["closed_after"] = round(time.monotonic() - start, 1)
                    c["status"] = "reset"
        time.sleep(1.0)
    closed = [c for c in conns if c["closed_after"] is not None]
    statuses = sorted({c["status"] for c in closed})
    times = sorted(c["closed_after"] for c in closed)
    median = times[len(times) // 2] if times else None
    print(f"{len(closed)}/{len(conns)} cut off by the server (status {','.join(statuses) or '-'}, median after {median} s)")
    for c in conns:
        c["sock"].close()


def receiver(port: int, delay: float, hold: float, out: str) -> None:
    import asyncio

    stats = {"count": 0, "first": 0.0, "last": 0.0}

    async def handle(reader, writer):
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":", 1)[1])
                if length:
                    await reader.readexactly(length)
                if delay:
                    await asyncio.sleep(delay)
                writer.write(b"HTTP/1.1 204 No Content\r\n\r\n")
                await writer.drain()
                now = time.monotonic()
                if stats["count"] == 0:
                    stats["first"] = now
                stats["count"] += 1
                stats["last"] = now
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def report():
        while True:
            with open(out, "w") as f:
                f.write(f'{stats["count"]} {stats["first"]:.6f} {stats["last"]:.6f}\n')
            await asyncio.sleep(0.2)

    async def serve():
        server = await asyncio.start_server(handle, "127.0.0.1", port, backlog=1024)
        reporter = asyncio.ensure_future(report())
        async with server:
            await asyncio.sleep(hold)
        reporter.cancel()
        with open(out, "w") as f:
            f.write(f'{stats["count"]} {stats["first"]:.6f} {stats["last"]:.6f}\n')

    asyncio.run(serve())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["idle", "slow", "receiver"])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--hold", type=float, default=15)
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--out", default="/dev/null")
    args = parser.parse_args()
    if args.mode == "receiver":
        receiver(args.port, args.delay, min(args.hold, 600), args.out)
        return
    (idle if args.mode == "idle" else slow)(args.port, args.count, min(args.hold, 120))


if __name__ == "__main__":
    main()
