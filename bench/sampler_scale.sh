#!/usr/bin/env bash
# The sampler's cost against the machine's size. On generated machines of N CPUs
# (crates/fixtures/src/machine.rs: /proc + /sys trees with N columns of softirqs, N lines of
# /proc/stat, cpufreq policies, cpuidle states, thermal zones, hwmon), truebench samples at
# 10 Hz in both modes:
#  - plain: `monitor --interval 0.1 --json-lines` (one thread, the line printed each tick);
#  - session: `monitor --interval 0.1 --quiet -- sleep …` — the Session's sampler every
#    measuring command runs (memory detail, pressure, softirqs, disks, network, idle states,
#    each sample kept on the timeline), nothing printed per tick;
# and beside each, at the same time, the C reference loop (bench/lib/ref_loop.c) preading
# every file truebench holds open under the tree (taken from its /proc/PID/fd, 2.5 s after it
# started) each 100 ms — the C loop grows with the files as truebench does — and printing one
# line (in plain mode as long as truebench's). The C loop's ticks fall half an interval after
# truebench's (ref_loop -a): neither wakes into the kernel paths the other just warmed. Which
# of the two measuring windows opens first alternates from round to round; CPU time is every thread's
# (bench/lib/cpu_ns.sh) over a window after the first second, divided by the ticks in it (the
# lines printed; for the session, which prints none, the window over the interval). Each round
# carries the machine's other activity (bench/lib/evidence.sh); rounds where others used more
# than 3 % are left out of the medians. A helper rewrites the tree's counters every PERIOD_MS
# (default 1000) so the values move; its CPU time is the script's own.
#
# Generated trees live in memory (/dev/shm when there is one): the reads are the kernel's page
# cache on both sides, so the ratio is what truebench adds in parsing, keeping and bookkeeping
# to the reads themselves. On a real machine the /proc files cost the kernel more to generate,
# which both sides pay alike.
#
# Not a test: prints the table for BENCHMARKS.md.
# Usage: [TB=BIN] [MACHINE_ROOT=BIN] bench/sampler_scale.sh [SECONDS] [ROUNDS] [N…]
#        (default 6 s, 12 rounds, 2 8 64 192 512: about 27 minutes). A round is some 60 ticks
#        of a host whose speed moves in windows of seconds: with 8 rounds, a few slow ones or
#        the order of the windows moved a cell's median by 0.1 (BENCHMARKS.md).
. "$(dirname "$0")/lib/evidence.sh"
. "$(dirname "$0")/lib/cpu_ns.sh"
. "$(dirname "$0")/lib/sampler_side.sh"
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."
SECS=${1:-6}
ROUNDS=${2:-12}
shift $(($# < 2 ? $# : 2))
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(2 8 64 192 512)
[[ $SECS =~ ^[0-9]+$ && $SECS -ge 3 ]] || { echo "SECONDS must be a whole number ≥ 3, not '$SECS'" >&2; exit 2; }
[[ $ROUNDS =~ ^[0-9]+$ && $ROUNDS -ge 1 ]] || { echo "ROUNDS must be a whole number ≥ 1, not '$ROUNDS'" >&2; exit 2; }
# TB and MACHINE_ROOT: other builds of the two (a profiling build); by default this tree's.
side_bins
side_tmp sampler-scale
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$TMP"; }
trap cleanup EXIT
cc -O2 -o "$TMP/ref" bench/lib/ref_loop.c

echo "machine: $(nproc) CPUs, $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo), kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "${SECS} s per round, ${ROUNDS} rounds per N and mode; trees in $BASE"
printf '%5s %-8s %5s %6s %10s %10s %7s  %s\n' N mode files first "tb µs/tick" "C µs/tick" "tb/C" evidence
SUMMARY=()
for n in "${SIZES[@]}"; do
  root=$TMP/cpus$n
  # Counters keep moving: the helper writes the tree, says so, then rewrites the counters every
  # PERIOD_MS for as long as the rounds take.
  side_tree "$root" "$n"
  ticker=$TREE_PID
  PIDS+=("$ticker")
  for mode in plain session; do
    : >"$TMP/pairs"
    for ((i = 1; i <= ROUNDS; i++)); do
      ev_start
      # The C loop needs truebench's files: truebench starts, its files are listed, then the
      # C loop starts; the window starts a second later for both. Every other round the C
      # loop's window opens first (half an interval apart either way).
      ptb=$(side_start "$mode" "$root" "$TMP/tb.out")
      PIDS+=("$ptb")
      # Past its first 20 ticks: files it read through its helper thread and found quick are
      # its own reads by then (crates/monitor/src/reader/slow.rs).
      sleep 2.5
      mapfile -t files < <(open_files "$ptb" "$root")
      sleep 0.05
      # In plain mode the C loop's line is as long as truebench's lines so far (their mean):
      # storing what a monitor prints is the kernel's work for any monitor printing as much.
      pad=()
      if [ "$mode" = plain ] && [ -s "$TMP/tb.out" ]; then
        pad=(-l "$(side_line_len "$TMP/tb.out")")
      fi
      # Its ticks half an interval after truebench's (ref_loop -a): at a random phase the one
      # waking just after the other would find the kernel's paths warm.
      nice -n 19 "$TMP/ref" "${pad[@]}" -a "$ptb" "${files[@]}" >"$TMP/c.out" &
      pc=$!
      PIDS+=("$pc")
      sleep 1
      if ((i % 2)); then first=tb; else first=C; fi
      if [ $first = tb ]; then
        t0=$(date +%s.%N); a0=$(cpu_ns "$ptb"); na0=$(wc -l <"$TMP/tb.out")
        sleep 0.05; b0=$(cpu_ns "$pc"); nb0=$(wc -l <"$TMP/c.out")
        sleep "$SECS"
        t1=$(date +%s.%N); a1=$(cpu_ns "$ptb"); na1=$(wc -l <"$TMP/tb.out")
        sleep 0.05; b1=$(cpu_ns "$pc"); nb1=$(wc -l <"$TMP/c.out")
      else
        b0=$(cpu_ns "$pc"); nb0=$(wc -l <"$TMP/c.out")
        sleep 0.05; t0=$(date +%s.%N); a0=$(cpu_ns "$ptb"); na0=$(wc -l <"$TMP/tb.out")
        sleep "$SECS"
        b1=$(cpu_ns "$pc"); nb1=$(wc -l <"$TMP/c.out")
        sleep 0.05; t1=$(date +%s.%N); a1=$(cpu_ns "$ptb"); na1=$(wc -l <"$TMP/tb.out")
      fi
      ev_stop
      kill -TERM "$ptb" "$pc" 2>/dev/null || true
      while kill -0 "$ptb" 2>/dev/null || kill -0 "$pc" 2>/dev/null; do sleep 0.05; done
      PIDS=("$ticker")
      # The session prints nothing per tick: its ticks are the window over the interval.
      if [ "$mode" = session ]; then
        na=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%d", (b - a) / 0.1 + 0.5}')
      else
        na=$((na1 - na0))
      fi
      read -r ua ub r < <(awk -v a=$((a1 - a0)) -v na="$na" -v b=$((b1 - b0)) -v nb=$((nb1 - nb0)) \
        'BEGIN {x = a / na / 1000; y = b / nb / 1000; printf "%.1f %.1f %.3f\n", x, y, x / y}')
      printf '%5s %-8s %5s %6s %10s %10s %7s  %s\n' "$n" "$mode" "${#files[@]}" "$first" "$ua" "$ub" "$r" "$EV_LINE"
      [ "$EV_VALID" = 1 ] && echo "$ua $ub" >>"$TMP/pairs"
    done
    if [ -s "$TMP/pairs" ]; then
      mtb=$(ev_median $(cut -d' ' -f1 "$TMP/pairs"))
      mc=$(ev_median $(cut -d' ' -f2 "$TMP/pairs"))
      mr=$(ev_median $(awk '{printf "%.4f\n", $1 / $2}' "$TMP/pairs"))
      SUMMARY+=("$(printf '%5s %-8s %10s %10s %8s %5s' "$n" "$mode" "$mtb" "$mc" "$mr" "$(wc -l <"$TMP/pairs")")")
    else
      SUMMARY+=("$(printf '%5s %-8s %10s %10s %8s %5s' "$n" "$mode" - - - 0)")
    fi
  done
  kill "$ticker" 2>/dev/null || true
  wait "$ticker" 2>/dev/null || true
  PIDS=()
  rm -rf "$root"
done
echo
echo "medians of the valid rounds (µs of CPU per tick; tb/C: the median of the rounds' ratios):"
printf '%5s %-8s %10s %10s %8s %5s\n' N mode "tb µs" "C µs" "tb/C" valid
printf '%s\n' "${SUMMARY[@]}"
