#!/usr/bin/env bash
# Hours, not minutes: `serve` under RATE scrapes per second and SLOW clients sending one byte
# per second, `monitor --interval 0.1` and `review -R`, each for SECONDS, with its resident
# memory, open descriptors and threads every INTERVAL seconds; after the first minute each must
# stay flat — its own memory (RssAnon) within 1 MiB, the same descriptors and threads
# (bench/lib/growth.py). The commands run one after the other, each on its own, under
# bench/lib/evidence.sh (the load client is the script's own: its CPU is not the others').
#
#   bench/long_run.sh [SECONDS] [INTERVAL] [COMMAND…]   (default 3600 60 serve monitor review)
# Env: RATE (scrapes per second, default 1000), SLOW (slow clients, default 200), WARMUP
# (seconds before the curve must be flat, default 60), MACHINE=N: the commands read a
# generated N-CPU machine (crates/fixtures/src/machine.rs) whose counters a helper advances
# every second, with a measurement lock of their own — `review -R` then tunes that tree, not
# this machine, and tests or measurements can run here meanwhile.
# Not a test (the tests run a 60-second version, tests/cli/long_run.rs): prints the curves and
# verdicts for BENCHMARKS.md. `review -R` tunes this machine for its duration and restores it.
. "$(dirname "$0")/lib/evidence.sh"
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."
SECONDS_EACH=${1:-3600}
INTERVAL=${2:-60}
shift $(( $# < 2 ? $# : 2 ))
COMMANDS=${*:-serve monitor review}
RATE=${RATE:-1000}
SLOW=${SLOW:-200}
export CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1}
cargo build --release -q -p truebench
TB=$PWD/target/release/truebench
TMP=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$TMP"; }
trap cleanup EXIT
ROOT=()
if [ -n "${MACHINE:-}" ]; then
  cargo build --release -q -p truebench-fixtures --example machine_root
  target/release/examples/machine_root "$TMP/machine" "$MACHINE" 1000000 1000 >"$TMP/machine.out" &
  PIDS+=($!)
  for _ in $(seq 600); do [ -s "$TMP/machine.out" ] && break; sleep 0.1; done
  ROOT=(--root "$TMP/machine")
  export TRUEBENCH_LOCK_DIR="$TMP" XDG_DATA_HOME="$TMP/data"
fi
# Slow clients hold a descriptor each: room for them.
ulimit -n 4096
echo "machine: $(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg); ${SECONDS_EACH} s each, a reading every ${INTERVAL} s${MACHINE:+; reading a generated $MACHINE-CPU machine}"
status=0
for c in $COMMANDS; do
  ev_start
  case $c in
    serve)
      "$TB" serve --listen 127.0.0.1:0 "${ROOT[@]}" >"$TMP/serve.out" 2>&1 &
      pid=$!
      PIDS+=("$pid")
      for _ in $(seq 100); do grep -q Serving "$TMP/serve.out" 2>/dev/null && break; sleep 0.05; done
      port=$(sed -n 's#.*http://127.0.0.1:\([0-9]*\)/metrics#\1#p' "$TMP/serve.out")
      python3 bench/lib/scrape_load.py "$port" "$RATE" "$SLOW" "$SECONDS_EACH" &
      load=$!
      PIDS+=("$load")
      ;;
    monitor)
      "$TB" monitor --interval 0.1 --no-store "${ROOT[@]}" >/dev/null 2>&1 &
      pid=$!
      PIDS+=("$pid")
      ;;
    review)
      "$TB" review -R --no-store "${ROOT[@]}" >/dev/null 2>&1 &
      pid=$!
      PIDS+=("$pid")
      ;;
    *) echo "unknown command $c (serve, monitor, review)" >&2; exit 2 ;;
  esac
  python3 bench/lib/growth.py "$pid" "$SECONDS_EACH" "$INTERVAL" "$c" "${WARMUP:-60}" || status=1
  # Ctrl-C's signal: review -R restores what it tuned.
  kill -INT "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  # The load client, not every child: the generated machine's helper runs on.
  [ -z "${load:-}" ] || wait "$load" 2>/dev/null || true
  load=''
  ev_stop
  echo "$c evidence: $EV_LINE"
done
exit $status
