#!/usr/bin/env bash
# The governor study's task sets run by rt-app (Debian's rt-app) and by `truebench governors`,
# same sets (exported with --export-rt-app, same seed), same machine, alternating rounds, under
# the current governor. Prints, per set, both tools' miss ratio (negative slacks / all
# slacks) and slack percentiles, and their ratio.
#
# What each includes: rt-app's slack is the time from the end of a period's run event to the
# end of the period (its log's `slack` column), with an absolute timer, like truebench's
# (deadline − end of the work, no period dropped). rt-app calibrates ns per loop of its own
# loop on CPU0 at every start; truebench uses its loops per ms (calibrated once, cached). Both
# do a fixed amount of work per period.
#
# Not a test: prints figures for BENCHMARKS.md. Usage:
#   bench/governors_vs_rt_app.sh [SECONDS_PER_SET] [ROUNDS] [UTILISATIONS] (default 5 2 0.5,1.0,1.5,2.0)
. "$(dirname "$0")/lib/evidence.sh"
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."
SECS=${1:-5}
ROUNDS=${2:-2}
UTIL=${3:-0.5,1.0,1.5,2.0}
SEED=${SEED:-1}
command -v rt-app >/dev/null || { echo "rt-app is not installed (Debian package rt-app)" >&2; exit 1; }
export CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1}
cargo build --release -q -p truebench
TB=$PWD/target/release/truebench
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
echo "machine: $(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg); sets at U = $UTIL, 10 tasks, ${SECS} s each, seed $SEED, ${ROUNDS} rounds"
"$TB" governors --utilisations "$UTIL" --sets 1 --tasks 10 --seed "$SEED" --duration "$SECS" \
  --export-rt-app "$WORK/sets" 2>/dev/null
# One round of each tool; r is the round.
run_rtapp() {
  echo "== round $r: rt-app"
  ev_start
  for f in "$WORK"/sets/*.json; do
    id=$(basename "$f" .json)
    logs="$WORK/logs/$r/$id"
    mkdir -p "$logs"
    python3 - "$f" "$logs" "$WORK/run.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["global"]["logdir"] = sys.argv[2]
json.dump(d, open(sys.argv[3], "w"))
EOF
    rt-app "$WORK/run.json" >/dev/null 2>&1 || echo "rt-app failed on $id"
    python3 - "$logs" "$id" <<'EOF'
import glob, sys
sl, run, want = [], 0, 0
for p in glob.glob(sys.argv[1] + "/*.log"):
    for line in open(p):
        if line.startswith("#") or not line.strip():
            continue
        f = line.split()
        if len(f) >= 9:
            sl.append(int(f[7]))
            run += int(f[2])
            want += int(f[8])
sl.sort()
n = len(sl)
neg = sum(1 for s in sl if s < 0)
q = lambda p: sl[min(n - 1, int(p * n))] if n else float("nan")
print("rt-app    %s miss ratio %6.2f %% (%d/%d), slack p1 %.1f ms, p50 %.1f ms, run time / asked %.3f"
      % (sys.argv[2], 100.0 * neg / max(n, 1), neg, n, q(0.01) / 1000, q(0.5) / 1000, run / max(want, 1)))
EOF
  done
  ev_stop
  echo "   evidence (rt-app, round $r): $EV_LINE"
}

run_truebench() {
  echo "== round $r: truebench"
  ev_start
  "$TB" governors --utilisations "$UTIL" --sets 1 --tasks 10 --seed "$SEED" --duration "$SECS" \
    --no-tuning --json --no-store 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
for row in d["body"]["rows"]:
    for l in row["per_level"]:
        m = l["miss_ratio"]
        print("truebench u%.2f-s0 miss ratio %6.2f %% (%d/%d)" % (l["utilisation"], 100.0 * (m or 0), l["negative"], l["periods"]))
    print("truebench all: slack p1 %.1f ms, p50 %.1f ms, work time ratio %.3f"
          % ((row["slack_p1_us"] or 0) / 1000, (row["slack_p50_us"] or 0) / 1000, row["work_time_ratio"] or 0))'
  ev_stop
  echo "   evidence (truebench, round $r): $EV_LINE"
}

for r in $(seq 1 "$ROUNDS"); do
  # Which tool goes first alternates from round to round.
  if [ $((r % 2)) = 1 ]; then run_rtapp; run_truebench; else run_truebench; run_rtapp; fi
done
# Calibration accuracy: a fresh calibration, then three light tasks (U = 0.3, no contention)
# asked for N ms of work each period: their CPU time against N (1.000 = exact). rt-app's
# figure is its logs' run time / asked run time at U = 0.5 above (it calibrates at each start).
for r in $(seq 1 "$ROUNDS"); do
  ev_start
  XDG_CACHE_HOME="$WORK/cache$r" "$TB" governors --recalibrate --utilisations 0.3 --sets 1 --tasks 3 \
    --seed "$SEED" --duration "$SECS" --no-tuning --json --no-store 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("truebench calibration check: %d loops per ms, work CPU time / asked %.3f"
      % (d["body"]["calibration"]["loops_per_ms"], d["body"]["rows"][0]["work_time_ratio"]))'
  ev_stop
  echo "   evidence: $EV_LINE"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
