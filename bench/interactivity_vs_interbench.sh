#!/usr/bin/env bash
# truebench interactivity against interbench 0.31, built by hand from its public source
# (never committed, no build script here: e.g. `gcc -O2 -o interbench interbench.c
# hackbench.c -lpthread -lm` in a copy of github.com/ckolivas/interbench), same machine,
# alternating rounds: Audio and Video under None and Burn, both with the same loops per ms
# (the two loop bodies are the same empty memory barrier, so one figure means the same work):
# interbench's own calibration, given to interbench with -l and to truebench with
# --loops-per-ms; truebench's own calibration of the same loop is printed next to it.
#
# Differences to expect and why: interbench's "SD" is sqrt((Σx² − mean²/n)/(n−1)), about the
# root mean square, not the spread: truebench prints the sample SD and keeps interbench's
# figure as interbench_sd_us, printed here next to interbench's. interbench prints ms with one
# decimal; interbench's Burn load has -L threads (here the CPU count, as truebench's default);
# interbench runs every load at least 10 s.
#
# Not a test: prints figures for BENCHMARKS.md. Usage: INTERBENCH=/path/to/interbench
# bench/interactivity_vs_interbench.sh [SECONDS] [ROUNDS] (default 10 3).
set -euo pipefail
cd "$(dirname "$0")/.."
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
echo "loops per ms: interbench $LPM, truebench's own calibration $OWN (ratio $(python3 -c "print(round($OWN/$LPM, 3))")); both runs use $LPM"
for r in $(seq 1 "$ROUNDS"); do
  echo "== round $r: interbench"
  (cd "$WORK" && "$IB" -l "$LPM" -c -t "$SECS" -L "$N" -x Video -x X -x Write -x Read -x Compile -x Memload -x Ring \
     -X X -X Gaming 2>/dev/null | awk '/^--- Benchmarking/ {b=$5} /^(None|Burn)\t/ {gsub(/\t+/, " "); print "interbench", b, $0}')
  echo "== round $r: truebench"
  "$TB" interactivity --benchmarks audio,video --loads none,burn --duration "$SECS" --loops-per-ms "$LPM" --json --no-store \
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
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
