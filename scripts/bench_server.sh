# Sourced by scripts/bench-ab-warm and scripts/bench-cpu-split: one release server on its own
# database of 1,000 seeded purchases, and the wrk loads they measure it with.
# Needs `root` (the project's folder) set; every wait is bounded in time.

# bench_server_start NAME BIN_DIR WORK_DIR: seeds WORK_DIR/bench.sqlite (codes in
# WORK_DIR/codes.txt), starts BIN_DIR/tollgate on a free loopback port and waits for /healthz.
# Sets bench_pid[NAME] and bench_port[NAME] (declare -A both first).
bench_server_start() {
  local name=$1 bin=$2 dir=$3 secret="bench-secret-key-0123456789abcdef0123456789" port
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
  mkdir -p "$dir"
  "$bin/BenchSeed" "$dir/bench.sqlite" "$secret" 1000 "$dir/codes.txt" >/dev/null
  cat >"$dir/config.json" <<JSON
{
  "base_url": "http://127.0.0.1:$port",
  "listen": {"host": "127.0.0.1", "port": $port},
  "database": {"path": "$dir/bench.sqlite"},
  "secret_key": "$secret",
  "app": {"name": "Bench", "scheme": "benchapp"},
  "api_keys": {"public": ["pk_bench"]},
  "entitlements": {"premium": ["price_bench"]},
  "mail": {"transport": "file", "file_dir": "$dir/mail", "from": "Bench <no-reply@example.com>"},
  "http": {"trusted_proxies": ["127.0.0.1/32"]},
  "stripe": {"secret_key": "sk_test_bench", "webhook_secret": "whsec_bench_server", "api_base": "http://127.0.0.1:9"},
  "paths": {"templates_dir": "$root/templates", "public_dir": "$root/Public"}
}
JSON
  (cd "$dir" && exec "$bin/tollgate" serve --config "$dir/config.json" >/dev/null 2>"$dir/server.log") &
  bench_pid[$name]=$!
  bench_port[$name]=$port
  for _ in $(seq 1 100); do
    curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "the $name server did not start:" >&2
  tail -5 "$dir/server.log" >&2
  return 1
}

# bench_load LOAD PORT CODES_FILE SECONDS: one `wrk -t1 -c64` run (repeat: redemptions of the
# seeded codes; unknown: codes no purchase has, each from its own client; page: GET /); prints
# wrk's output. mixed: repeat and unknown at once, 32 connections each (reads on the readers
# while the writer commits); prints their sum as wrk's "requests in" and "Requests/sec" lines.
bench_load() {
  local load=$1 port=$2 codes=$3 seconds=$4
  if [ "$load" = page ]; then
    wrk -t1 -c64 -d"${seconds}s" "http://127.0.0.1:$port/"
  elif [ "$load" = mixed ]; then
    local outs repeat_pid unknown_pid
    outs=$(mktemp -d)
    CODES_FILE="$codes" MODE=existing wrk -t1 -c32 -d"${seconds}s" -s "$root/scripts/bench_redeem.lua" "http://127.0.0.1:$port" \
      >"$outs/repeat" &
    repeat_pid=$!
    MODE=unknown wrk -t1 -c32 -d"${seconds}s" -s "$root/scripts/bench_redeem.lua" "http://127.0.0.1:$port" >"$outs/unknown" &
    unknown_pid=$!
    wait "$repeat_pid" "$unknown_pid"
    python3 - "$outs/repeat" "$outs/unknown" "$seconds" <<'PY'
import re, sys
counts = [int(re.search(r"(\d+) requests in", open(path).read()).group(1)) for path in sys.argv[1:3]]
print(f"{sum(counts)} requests in {sys.argv[3]}s (repeat {counts[0]}, unknown {counts[1]})")
print(f"Requests/sec: {sum(counts) / float(sys.argv[3]):.2f}")
PY
    rm -rf "$outs"
  else
    CODES_FILE="$codes" MODE=$([ "$load" = repeat ] && echo existing || echo unknown) \
      wrk -t1 -c64 -d"${seconds}s" -s "$root/scripts/bench_redeem.lua" "http://127.0.0.1:$port"
  fi
}
