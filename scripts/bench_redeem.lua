-- wrk script for POST /api/v1/redeem. CODES_FILE lists codes to redeem (each by its own
-- app user, so every request is a repeat redemption answering `success`; a line `CODE USER`
-- names the app user that redeemed it, else it is `bench-user-<line>`); with MODE=unknown
-- it sends random codes from random client addresses (through a trusted proxy), answering
-- `invalid_code`. The addresses span 198.18.0.0/15 (130k of them) so that few repeat often
-- enough to trip the per-client limit of failed redemptions (a few 429s at >200k requests).
-- PAUSE_MS (default 0) holds each connection that long after an answer before its next request,
-- so a load can be held below saturation and two servers compared at the same rate.
local mode = os.getenv("MODE") or "existing"
local codes = {}
local users = {}
if mode == "existing" then
  for line in io.lines(os.getenv("CODES_FILE")) do
    if #line > 0 then
      local code, user = line:match("^(%S+)%s+(%S+)$")
      codes[#codes + 1] = code or line
      users[#codes] = user or ("bench-user-" .. #codes)
    end
  end
end
local alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
local counter = 0
math.randomseed(42)

local function random_code()
  local parts = {}
  for group = 1, 4 do
    local chars = {}
    for i = 1, 4 do
      local n = math.random(1, 32)
      chars[i] = alphabet:sub(n, n)
    end
    parts[group] = table.concat(chars)
  end
  return table.concat(parts, "-")
end

request = function()
  counter = counter + 1
  local code, user, forwarded
  if mode == "existing" then
    local index = (counter % #codes) + 1
    code = codes[index]
    user = users[index]
    forwarded = "192.0.2.1"
  else
    code = random_code()
    user = "bench-unknown"
    forwarded = string.format("198.%d.%d.%d", math.random(18, 19), math.random(0, 255), math.random(1, 254))
  end
  local body = string.format('{"code":"%s","app_user_id":"%s","device_id":"d-%s"}', code, user, user)
  return wrk.format("POST", "/api/v1/redeem", {
    ["Content-Type"] = "application/json",
    ["X-Api-Key"] = "pk_bench",
    ["X-Forwarded-For"] = forwarded,
  }, body)
end

local pause = tonumber(os.getenv("PAUSE_MS") or "0") or 0
if pause > 0 then
  delay = function() return pause end
end

done = function(summary, latency, requests)
  io.write(string.format("non-2xx or socket errors: %d\n", summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
  -- wrk keeps latencies in microseconds; scripts/bench-ab-warm compares this line's figure.
  io.write(string.format("p99 ms: %.3f\n", latency:percentile(99) / 1000))
end
