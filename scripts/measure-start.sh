#!/usr/bin/env bash
# Times `npm start` to its first healthy GET /health (BENCHMARKS.md, "Start-up"): RUNS first starts on
# a fresh DATA_DIR each (bundles already built), each followed by a warm start on the same DATA_DIR;
# with --clean-dist, every first start also rebuilds dist/ (a fresh clone's first start). Free ports,
# no DATABASE_URL / REDIS_URL (the embedded defaults); every start is stopped with SIGTERM to its
# process group, and the script waits until no process of that data folder is left.
#
#   scripts/measure-start.sh [--clean-dist] [RUNS]      (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
clean_dist=0
if [[ "${1:-}" == "--clean-dist" ]]; then clean_dist=1; shift; fi
runs="${1:-3}"
work="$(mktemp -d "${TMPDIR:-/tmp}/tss-start.XXXXXX")"
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT

free_port() {
  node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close() })'
}

# Prints the seconds from launch to a 200 on /health, then stops the service.
start_once() {
  local data="$1" port pg pid t0 t1
  port="$(free_port)"
  pg="$(free_port)"
  t0="$(date +%s%N)"
  env -u DATABASE_URL -u REDIS_URL LOG_LEVEL=warn DATA_DIR="$data" PORT="$port" EMBEDDED_PG_PORT="$pg" \
    setsid npm start >>"$work/start.log" 2>&1 &
  pid=$!
  until curl -sf --max-time 1 "http://127.0.0.1:$port/health" >/dev/null; do
    kill -0 "$pid" 2>/dev/null || { echo "npm start exited; see its log:" >&2; tail -20 "$work/start.log" >&2; exit 1; }
    sleep 0.05
  done
  t1="$(date +%s%N)"
  kill -TERM -- "-$pid"
  wait "$pid" 2>/dev/null || true
  while pgrep -f "$data" >/dev/null; do sleep 0.1; done
  echo "scale=2; ($t1 - $t0) / 1000000000" | bc
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq 1 "$runs"); do
  data="$work/data-$i"
  mkdir -m 755 "$data"
  if [[ "$clean_dist" == 1 ]]; then rm -rf dist; fi
  first="$(start_once "$data")"
  warm="$(start_once "$data")"
  echo "run $i: first ${first} s, warm ${warm} s (load $(cut -d' ' -f1-3 /proc/loadavg))"
done
