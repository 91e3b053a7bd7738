-- wrk script for POST /webhooks/stripe: sends the signed events of EVENTS_FILE (lines
-- `STRIPE_SIGNATURE<TAB>BODY`, from scripts/bench_webhooks.py) in order, each once; past the
-- end it starts over (those answer as duplicates).
local events = {}
for line in io.lines(os.getenv("EVENTS_FILE")) do
  local header, body = line:match("^([^\t]+)\t(.+)$")
  if header then events[#events + 1] = {header, body} end
end
local counter = 0

request = function()
  counter = counter + 1
  local event = events[(counter % #events) + 1]
  return wrk.format("POST", "/webhooks/stripe", {
    ["Content-Type"] = "application/json",
    ["Stripe-Signature"] = event[1],
  }, event[2])
end

done = function(summary, latency, requests)
  io.write(string.format("non-2xx or socket errors: %d\n", summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
