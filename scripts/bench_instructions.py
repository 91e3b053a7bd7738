#!/usr/bin/env python3
"""Sends COUNT requests of one load, one after another on one keep-alive connection, for
scripts/bench-instructions (which counts the server's instructions around them). Every answer
is checked: a wrong status or body fails the run, so a count never comes from error pages.
Loads:
  redeem  POST /api/v1/redeem: the codes of CODES_FILE in turn (line i redeemed by
          `bench-user-<i>` on device `d-bench-user-<i>`), from offset FIRST; past the first round
          every one is a repeat redemption answering `success`.
  unknown POST /api/v1/redeem: well-formed codes no purchase has (the n-th from a fixed seed,
          n from FIRST), each from its own client address behind the trusted proxy (198.18.0.0/15,
          so no client nears the limit of failed redemptions); every one answers `invalid_code`.
          FILE is unused (`-`).
  page    GET / (the templated home page).
  webhook POST /webhooks/stripe: the signed events of EVENTS_FILE (scripts/bench_webhooks.py),
          lines FIRST.. FIRST+COUNT-1, each new.
Usage: bench_instructions.py PORT LOAD COUNT FIRST FILE"""
import http.client, json, random, sys

port, load, count, first, path = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)


def send(method, target, headers, body=None):
    connection.request(method, target, body=body, headers=headers)
    response = connection.getresponse()
    payload = response.read()
    if response.status != 200:
        sys.exit(f"bench_instructions: {method} {target} answered {response.status}: {payload[:300]!r}")
    return payload


if load == "redeem":
    codes = [line.split()[0] for line in open(path) if line.strip()]
    for n in range(first, first + count):
        index = n % len(codes)
        user = f"bench-user-{index}"
        body = json.dumps({"code": codes[index], "app_user_id": user, "device_id": f"d-{user}"})
        payload = send("POST", "/api/v1/redeem", {
            "Content-Type": "application/json", "X-Api-Key": "pk_bench", "X-Forwarded-For": "192.0.2.1"}, body)
        if json.loads(payload).get("status") != "success":
            sys.exit(f"bench_instructions: redemption of line {index} answered {payload[:300]!r}")
elif load == "unknown":
    alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
    for n in range(first, first + count):
        draw = random.Random(n)
        code = "-".join("".join(draw.choice(alphabet) for _ in range(4)) for _ in range(4))
        client = f"198.{18 + (n >> 16) % 2}.{(n >> 8) & 255}.{n & 255 or 1}"
        body = json.dumps({"code": code, "app_user_id": "bench-unknown", "device_id": "d-bench-unknown"})
        payload = send("POST", "/api/v1/redeem", {
            "Content-Type": "application/json", "X-Api-Key": "pk_bench", "X-Forwarded-For": client}, body)
        if json.loads(payload).get("status") != "invalid_code":
            sys.exit(f"bench_instructions: unknown code {code} answered {payload[:300]!r}")
elif load == "page":
    for _ in range(count):
        if b"</html>" not in send("GET", "/", {}):
            sys.exit("bench_instructions: GET / did not answer a whole page")
elif load == "webhook":
    events = [line.rstrip("\n").split("\t", 1) for line in open(path) if line.strip()]
    if first + count > len(events):
        sys.exit(f"bench_instructions: {path} holds {len(events)} events, {first + count} needed")
    for signature, body in events[first:first + count]:
        send("POST", "/webhooks/stripe", {"Content-Type": "application/json", "Stripe-Signature": signature}, body)
else:
    sys.exit(f"bench_instructions: unknown load {load}")
connection.close()
