#!/usr/bin/env bash
# What a sampler's tick pays for the code and the memory it touches after its 100 ms sleep,
# on this host: the C reference loop (bench/lib/ref_loop.c, the sampler_scale.sh comparison's
# other side) against itself with one thing added per tick, side by side in alternating
# rounds:
#  - code: 200 more lines of code (each 64-byte line its own, reached by a taken jump);
#  - pages: 12 more pages written (one byte each, seven pages apart).
# Both loops read the files a `truebench monitor` holds open on a generated 2-CPU tree
# (crates/fixtures/src/machine.rs) and print a line as long as its; the second loop's ticks
# fall half an interval after the first's (ref_loop -a), and which one starts first
# alternates. CPU time is every thread's (bench/lib/cpu_ns.sh) over the window, per tick.
# Each round carries the machine's other activity (bench/lib/evidence.sh); rounds where
# others used more than 3 % are left out of the medians.
#
# Why: truebench's tick touches more code lines and pages than the C loop's (counted by
# bench/tick_footprint.sh); this prices each kind here, so the counts say what a change to
# the tick can be worth in time before a side-by-side run, which moves by more than that.
#
# Not a test: prints figures for BENCHMARKS.md. x86-64 only (the code lines are assembly).
# Usage: [TB=BIN] [MACHINE_ROOT=BIN] bench/cold_costs.sh [SECONDS] [ROUNDS]  (default 8 s, 12)
. "$(dirname "$0")/lib/evidence.sh"
. "$(dirname "$0")/lib/sampler_side.sh"
. "$(dirname "$0")/lib/cpu_ns.sh"
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."
SECS=${1:-8}
ROUNDS=${2:-12}
[[ $SECS =~ ^[0-9]+$ && $SECS -ge 3 ]] || { echo "SECONDS must be a whole number ≥ 3, not '$SECS'" >&2; exit 2; }
[[ $ROUNDS =~ ^[0-9]+$ && $ROUNDS -ge 1 ]] || { echo "ROUNDS must be a whole number ≥ 1, not '$ROUNDS'" >&2; exit 2; }
[ "$(uname -m)" = x86_64 ] || { echo "x86-64 only (the added code lines are x86-64 assembly)" >&2; exit 2; }
side_bins
side_tmp cold-costs
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$TMP"; }
trap cleanup EXIT
cc -O2 -o "$TMP/base" bench/lib/ref_loop.c
cc -O2 -DCOLD_CODE -o "$TMP/code" bench/lib/ref_loop.c
cc -O2 -DCOLD_PAGES=12 -o "$TMP/pages" bench/lib/ref_loop.c

# The tree, its counters moving, and the files a monitor on it holds open.
side_tree "$TMP/root" 2
PIDS+=("$TREE_PID")
ptb=$(side_start plain "$TMP/root" "$TMP/tb.out")
PIDS+=("$ptb")
sleep 2.5
mapfile -t files < <(open_files "$ptb" "$TMP/root")
kill "$ptb"
while kill -0 "$ptb" 2>/dev/null; do sleep 0.05; done
[ -s "$TMP/tb.out" ] || { echo "truebench printed no line in 2.5 s" >&2; exit 1; }
len=$(side_line_len "$TMP/tb.out")

echo "machine: $(nproc) CPUs, $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo), kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "${#files[@]} files, ${len}-byte lines, ${SECS} s per round, ${ROUNDS} rounds per kind"
printf '%-6s %6s %10s %10s %7s  %s\n' kind first "+ µs/tick" "C µs/tick" ratio evidence
SUMMARY=()
for kind in code pages; do
  : >"$TMP/pairs"
  for ((i = 1; i <= ROUNDS; i++)); do
    ev_start
    if ((i % 2)); then first=$kind; else first=base; fi
    if [ "$first" = "$kind" ]; then
      nice -n 19 "$TMP/$kind" -l "$len" "${files[@]}" >"$TMP/a.out" &
      pa=$!
      sleep 0.3
      nice -n 19 "$TMP/base" -l "$len" -a "$pa" "${files[@]}" >"$TMP/b.out" &
      pb=$!
    else
      nice -n 19 "$TMP/base" -l "$len" "${files[@]}" >"$TMP/b.out" &
      pb=$!
      sleep 0.3
      nice -n 19 "$TMP/$kind" -l "$len" -a "$pb" "${files[@]}" >"$TMP/a.out" &
      pa=$!
    fi
    PIDS+=("$pa" "$pb")
    sleep 2
    a0=$(cpu_ns "$pa"); na0=$(wc -l <"$TMP/a.out"); b0=$(cpu_ns "$pb"); nb0=$(wc -l <"$TMP/b.out")
    sleep "$SECS"
    a1=$(cpu_ns "$pa"); na1=$(wc -l <"$TMP/a.out"); b1=$(cpu_ns "$pb"); nb1=$(wc -l <"$TMP/b.out")
    ev_stop
    kill "$pa" "$pb" 2>/dev/null || true
    wait "$pa" "$pb" 2>/dev/null || true
    PIDS=("${PIDS[0]}")
    read -r ua ub r < <(awk -v a=$((a1 - a0)) -v na=$((na1 - na0)) -v b=$((b1 - b0)) -v nb=$((nb1 - nb0)) \
      'BEGIN {x = a / na / 1000; y = b / nb / 1000; printf "%.1f %.1f %.3f\n", x, y, x / y}')
    printf '%-6s %6s %10s %10s %7s  %s\n' "$kind" "$first" "$ua" "$ub" "$r" "$EV_LINE"
    [ "$EV_VALID" = 1 ] && echo "$ua $ub" >>"$TMP/pairs"
  done
  if [ -s "$TMP/pairs" ]; then
    mr=$(ev_median $(awk '{printf "%.4f\n", $1 / $2}' "$TMP/pairs"))
    md=$(ev_median $(awk '{printf "%.2f\n", $1 - $2}' "$TMP/pairs"))
    SUMMARY+=("$(printf '%-6s %8s %10s %5s' "$kind" "$mr" "$md" "$(wc -l <"$TMP/pairs")")")
  else
    SUMMARY+=("$(printf '%-6s %8s %10s %5s' "$kind" - - 0)")
  fi
done
echo
echo "medians of the valid rounds (with / without the addition; the difference in µs of CPU per tick):"
printf '%-6s %8s %10s %5s\n' kind ratio "+ µs" valid
printf '%s\n' "${SUMMARY[@]}"
