#!/usr/bin/env python3
"""Writes COUNT Stripe `customer.subscription.updated` events for the seeded subscriptions
`sub_bench_<i>` (i spread over SEEDED), each signed now with SECRET as Stripe signs them
(`Stripe-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.body">`), one `HEADER<TAB>BODY` a line,
for scripts/bench_webhooks.lua. Stripe's tolerance is 5 minutes: use them within that.
With PART and PARTS (a fleet: one file per instance) the ids carry the part, so no two files share
an event. With PARTS above 1 each part walks the purchases in an order of its own (a shuffle
seeded by the part), as a store's notifications reach the instances of a fleet: two instances
meet on a purchase by chance, not because one walking the same order caught up with the other
(it then waits on each purchase's lock the other holds, round after round). PARTS 1 walks them
in order: every instance in the same order, the worst case for a purchase's lock.
Usage: bench_webhooks.py SECRET SEEDED COUNT OUT [PART PARTS]"""
import hashlib, hmac, json, random, sys, time

secret, seeded, count, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
part, parts = (int(sys.argv[5]), int(sys.argv[6])) if len(sys.argv) > 6 else (None, 1)
order = list(range(seeded))
if parts > 1:
    random.Random(part).shuffle(order)
tag = "" if part is None else f"p{part}_"
now = int(time.time())
step = max(1, seeded // count)
with open(out, "w") as f:
    for n in range(count):
        index = order[(n * step) % seeded]
        end = now + 30 * 86400 + n  # each event moves the period end: a real change to apply
        subscription = {
            "id": f"sub_bench_{index}", "object": "subscription", "status": "active", "customer": f"cus_bench_{index}",
            "cancel_at_period_end": False, "current_period_end": end, "livemode": False, "created": now - 86400,
            "items": {"object": "list", "data": [{"id": f"si_bench_{index}", "object": "subscription_item",
                                                  "price": {"id": "price_bench", "object": "price"}, "current_period_end": end}]},
        }
        event = {"id": f"evt_bench_{now}_{tag}{n}", "object": "event", "type": "customer.subscription.updated",
                 "created": now + n // 1000, "livemode": False, "api_version": "2024-06-20",
                 "data": {"object": subscription}}
        body = json.dumps(event, separators=(",", ":"))
        signature = hmac.new(secret.encode(), f"{now}.{body}".encode(), hashlib.sha256).hexdigest()
        f.write(f"t={now},v1={signature}\t{body}\n")
