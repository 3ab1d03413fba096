#!/usr/bin/env bash
# Timer latency of truebench's periodic-task engine against cyclictest (Debian rt-tests) at
# the same interval, priority, CPU and memory locking, alternating runs so load from
# elsewhere hits both alike. Both hold /dev/cpu_dma_latency at 0 µs, lock memory and wake at
# absolute times with clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME).
#
# What each includes: cyclictest's latency is now − intended wake in its own thread, in whole
# µs (its avg is rounded down); truebench's is the same difference in ns, recorded into a
# histogram and exact moments. Then the engine's own CPU per period (time keeping, sleeping,
# recording), from its thread's CPU clock.
#
# Each round runs both tools, alternating which goes first, under bench/lib/evidence.sh: the
# round's line carries the other processes' share of the machine and the load, and a round
# taken while others used more than 3 % is marked not valid and left out of the medians.
#
# Not a test: prints figures for BENCHMARKS.md. Usage: bench/periodic_vs_cyclictest.sh
# [SECONDS] [ROUNDS] [INTERVAL_US] [PRIORITY] (default 10 5 1000 80). Needs root (SCHED_FIFO),
# cyclictest (apt install rt-tests; installed here when missing and allowed).
. "$(dirname "$0")/lib/evidence.sh"
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."
SECS=${1:-10}
ROUNDS=${2:-5}
INTERVAL=${3:-1000}
PRIO=${4:-80}
CPU=${CPU:-0}
if ! command -v cyclictest >/dev/null; then
  [ "$(id -u)" = 0 ] && (apt-get install -y -qq rt-tests >/dev/null 2>&1 || true)
fi
command -v cyclictest >/dev/null || { echo "cyclictest is not installed (apt install rt-tests)" >&2; exit 1; }
export CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1}
cargo build --release -q -p truebench
TB=target/release/truebench
echo "machine: $(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "interval ${INTERVAL} µs, SCHED_FIFO ${PRIO}, CPU ${CPU}, ${SECS} s per run, ${ROUNDS} rounds"
tb_avg=(); ct_avg=(); tb_max=(); ct_max=(); ovh=()
run_tb() {
  j=$("$TB" measure --json periodic --interval-us "$INTERVAL" --priority "$PRIO" --cpu "$CPU" --seconds "$SECS" --mlock)
  read -r avg max o <<<"$(echo "$j" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["latency"]["mean_us"], d["latency"]["max_us"], d["overhead_us_per_period"])')"
}
run_ct() {
  line=$(cyclictest -m -q -p "$PRIO" -i "$INTERVAL" -a "$CPU" -t 1 -D "$SECS" 2>/dev/null | grep '^T:' | tail -1)
  cavg=$(echo "$line" | sed -E 's/.*Avg: *([0-9]+).*/\1/')
  cmax=$(echo "$line" | sed -E 's/.*Max: *([0-9]+).*/\1/')
}
valid=0
for r in $(seq 1 "$ROUNDS"); do
  ev_start
  if [ $((r % 2)) = 1 ]; then run_tb; run_ct; first=truebench; else run_ct; run_tb; first=cyclictest; fi
  ev_stop
  printf "round %d (%s first): truebench avg %.2f µs max %.0f µs | cyclictest avg %s µs max %s µs | %s\n" \
    "$r" "$first" "$avg" "$max" "$cavg" "$cmax" "$EV_LINE"
  [ "$EV_VALID" = 1 ] || continue
  valid=$((valid + 1))
  tb_avg+=("$avg"); tb_max+=("$max"); ovh+=("$o"); ct_avg+=("$cavg"); ct_max+=("$cmax")
done
[ "$valid" -gt 0 ] || { echo "no valid round: the machine was busy in every one" >&2; exit 1; }
median() { ev_median "$@"; }
ta=$(median "${tb_avg[@]}"); ca=$(median "${ct_avg[@]}")
tm=$(median "${tb_max[@]}"); cm=$(median "${ct_max[@]}")
oh=$(median "${ovh[@]}")
echo "medians of the $valid valid rounds:"
echo "median avg latency: truebench $ta µs, cyclictest $ca µs (cyclictest rounds down), difference $(awk -v a="$ta" -v b="$ca" 'BEGIN{printf "%+.2f", a-b}') µs, ratio $(awk -v a="$ta" -v b="$ca" 'BEGIN{printf "%.2f", a/b}')"
echo "median max latency: truebench $tm µs, cyclictest $cm µs, ratio $(awk -v a="$tm" -v b="$cm" 'BEGIN{printf "%.2f", a/b}')"
echo "truebench engine CPU per period (median): $oh µs"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
