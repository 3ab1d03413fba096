#!/usr/bin/env bash
# truebench interactivity against interbench 0.31, built by hand from its public source
# (never committed, no build script here: e.g. `gcc -O2 -o interbench interbench.c
# hackbench.c -lpthread -lm` in a copy of github.com/ckolivas/interbench), same machine,
# alternating rounds: Audio and Video under None and Burn, each tool with its own loops per
# ms, so that a task's work takes the same time in both: interbench's calibration given to it
# with -l, truebench's to it with --loops-per-ms (truebench's loop body is not interbench's, so
# one count of loops is not the same work; the two rates are printed).
#
# Differences to expect and why: interbench's "SD" is sqrt((Σx² − mean²/n)/(n−1)), about the
# root mean square, not the spread: truebench prints the sample SD and keeps interbench's
# figure as interbench_sd_us, printed here next to interbench's. interbench prints ms with one
# decimal; interbench's Burn load has -L threads (here the CPU count, as truebench's default);
# interbench runs every load at least 10 s.
#
# Each round runs both, alternating which goes first, under bench/lib/evidence.sh: the round
# ends with the other processes' share of the machine and the load; a round taken while
# others used more than 3 % is marked NOT VALID (leave it out). interbench's loads are forked
# processes that outlive it by seconds: the script waits for them to end.
#
# Not a test: prints figures for BENCHMARKS.md. Usage: INTERBENCH=/path/to/interbench
# bench/interactivity_vs_interbench.sh [SECONDS] [ROUNDS] (default 10 3).
. "$(dirname "$0")/lib/evidence.sh"
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."
SECS=${1:-10}
ROUNDS=${2:-3}
IB=${INTERBENCH:?set INTERBENCH to an interbench binary built by hand}
export CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1}
cargo build --release -q -p truebench
TB=$PWD/target/release/truebench
N=$(nproc)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
echo "machine: $N CPUs, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg); ${SECS} s per cell, ${ROUNDS} rounds"
# interbench calibrates when it has no interbench.loops_per_ms file; a 1 s run of one cell.
(cd "$WORK" && "$IB" -t 1 -x Video -x X -x Burn -x Write -x Read -x Compile -x Memload -x Ring \
   -X Video -X X -X Gaming >/dev/null 2>&1) || true
LPM=$(cat "$WORK/interbench.loops_per_ms")
OWN=$(XDG_CACHE_HOME="$WORK" "$TB" interactivity --benchmarks audio --loads none --duration 1 \
  --recalibrate --json --no-store --scratch-dir "$WORK" 2>/dev/null |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["body"]["calibration"]["loops_per_ms"])')
echo "loops per ms: interbench $LPM, truebench $OWN (each tool runs with its own)"
run_ib() {
  echo "== round $r: interbench"
  (cd "$WORK" && "$IB" -l "$LPM" -c -t "$SECS" -L "$N" -x Video -x X -x Write -x Read -x Compile -x Memload -x Ring \
     -X X -X Gaming 2>/dev/null | awk '/^--- Benchmarking/ {b=$5} /^(None|Burn)\t/ {gsub(/\t+/, " "); print "interbench", b, $0}') \
    || echo "interbench failed in this round (exit $?)"
  # Its forked loads outlive it by seconds, burning: wait until they are gone, or they run
  # under the next tool's cells (the evidence shows it as others' CPU).
  while pgrep -x interbench >/dev/null; do sleep 0.2; done
}
run_tb() {
  echo "== round $r: truebench"
  "$TB" interactivity --benchmarks audio,video --loads none,burn --duration "$SECS" --loops-per-ms "$OWN" --json --no-store \
    --scratch-dir "$WORK" 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
for t in d["body"]["benchmarks"]:
    for c in t["cells"]:
        l = c["latency"]
        if not l:
            print("truebench", t["label"], c["load_label"], c["status"]); continue
        print("truebench %s %s %.3f +/- %.3f (interbench-style %.3f) max %.1f ms, desired %.1f %%, deadlines %.1f %%, p99 %.0f µs"
              % (t["label"], c["load_label"], l["mean_us"]/1000, l["sd_us"]/1000, l["interbench_sd_us"]/1000,
                 l["max_us"]/1000, l["desired_cpu_pct"], l["deadlines_met_pct"] or 0, l["p99_us"]))'
}
for r in $(seq 1 "$ROUNDS"); do
  ev_start
  if [ $((r % 2)) = 1 ]; then run_ib; run_tb; else run_tb; run_ib; fi
  ev_stop
  echo "== round $r evidence: $EV_LINE"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
