#!/usr/bin/env bash
# Where a monitor tick's time goes, in wall-clock microseconds per part, truebench beside the C
# reference loop. truebench is built apart with the `tick-profile` feature (into
# target/tick-profile; the normal build has none of it), which times each tick from the
# wake-up to the line written, each pread(2), taking the sample and formatting the line, and
# prints them per tick when stopped; the C loop (bench/lib/ref_loop.c -p) times the same parts
# of its own tick. Three loops run side by side each round, a third of an interval apart so
# their ticks do not overlap: truebench (`monitor --interval 0.1 --json-lines`), the C loop
# with its short line, and the C loop with its line padded to truebench's length. The first to
# start rotates. Each round carries the evidence of the machine's other activity
# (bench/lib/evidence.sh); rounds where others used more than 3 % are left out of the medians.
#
# The parts: read (the kernel generating the /proc and /sys files), write (storing the line),
# user (the rest of the tick: for truebench the parsing, the formatting and the loop; for the
# C loop its snprintf and loop). What this cannot see: the wake-up itself (the timer, the
# switch into the process), which the CPU-time ratio of bench/monitor_side_by_side.sh
# includes. The instrument adds two clock reads (~20 ns each) per part to both sides.
#
# Not a test: prints figures for BENCHMARKS.md.
# Usage: bench/tick_phases.sh [SECONDS] [ROUNDS]   (default 20 s, 6 rounds)
. "$(dirname "$0")/lib/evidence.sh"
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."
SECS=${1:-20}
ROUNDS=${2:-6}
[[ $SECS =~ ^[0-9]+$ && $SECS -ge 3 ]] || { echo "SECONDS must be a whole number ≥ 3, not '$SECS'" >&2; exit 2; }
[[ $ROUNDS =~ ^[0-9]+$ && $ROUNDS -ge 1 ]] || { echo "ROUNDS must be a whole number ≥ 1, not '$ROUNDS'" >&2; exit 2; }
export CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1}
cargo build --release -q -p truebench --features tick-profile --target-dir target/tick-profile
TB=target/tick-profile/release/truebench
TMP=$(mktemp -d)
PIDS=()
trap 'kill "${PIDS[@]}" 2>/dev/null || true; rm -rf "$TMP"' EXIT
cc -O2 -o "$TMP/ref" bench/lib/ref_loop.c

# The files truebench reads every tick (from its open descriptors), and its line's length (the
# third line: the first two may lack the deltas a line carries once it has a predecessor).
"$TB" monitor --interval 0.1 --json-lines >"$TMP/probe.out" 2>/dev/null &
probe=$!
sleep 0.5
for f in /proc/"$probe"/fd/*; do readlink "$f" || true; done | grep -E '^/(proc|sys)/' >"$TMP/files" || true
kill -INT "$probe"
wait "$probe" || true
mapfile -t FILES <"$TMP/files"
PAD=$(sed -n 3p "$TMP/probe.out" | wc -c)
[ "${#FILES[@]}" -gt 0 ] || { echo "could not see which files truebench monitor reads" >&2; exit 1; }
[ "$PAD" -gt 16 ] || { echo "could not read a line of truebench monitor to take its length" >&2; exit 1; }

# start WHICH: one loop at nice 19 (truebench's sampling thread runs at 19 too), its lines to
# $TMP/WHICH.out and its report to $TMP/WHICH.err; prints its pid.
start() {
  case $1 in
    tb) nice -n 19 "$TB" monitor --interval 0.1 --json-lines >"$TMP/tb.out" 2>"$TMP/tb.err" & ;;
    c) nice -n 19 "$TMP/ref" -p "${FILES[@]}" >"$TMP/c.out" 2>"$TMP/c.err" & ;;
    cpad) nice -n 19 "$TMP/ref" -p -l "$PAD" "${FILES[@]}" >"$TMP/cpad.out" 2>"$TMP/cpad.err" & ;;
  esac
  echo $!
}

echo "machine: $(nproc) CPUs, $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo), kernel $(uname -r)"
echo "files read: ${FILES[*]}; truebench's line: $PAD bytes (cpad's too)"
echo "${SECS} s per round, ${ROUNDS} rounds; µs per tick:"
printf "%5s %-5s %6s %8s %8s %8s %8s %8s %8s\n" round loop ticks tick read write user parse format
LOOPS=(tb c cpad)
: >"$TMP/rows"
for ((i = 0; i < ROUNDS; i++)); do
  ev_start
  PIDS=()
  for ((j = 0; j < 3; j++)); do
    w=${LOOPS[$(((i + j) % 3))]}
    PIDS+=("$(start "$w")")
    sleep 0.033
  done
  sleep "$SECS"
  ev_stop
  kill -INT "${PIDS[@]}" 2>/dev/null || true
  for p in "${PIDS[@]}"; do
    while kill -0 "$p" 2>/dev/null; do sleep 0.05; done
  done
  PIDS=()
  first=${LOOPS[$((i % 3))]}
  for w in "${LOOPS[@]}"; do
    r=$(grep '^tick-profile ' "$TMP/$w.err" | tail -1 || true)
    [ -n "$r" ] || { echo "round $((i + 1)): $w printed no tick profile:" >&2; cat "$TMP/$w.err" >&2; exit 1; }
    # "tick-profile ticks N tick_us A read_us B …" → name value pairs.
    set -- ${r#tick-profile }
    declare -A v=()
    while [ $# -ge 2 ]; do v[$1]=$2; shift 2; done
    printf "%5s %-5s %6s %8s %8s %8s %8s %8s %8s\n" "$((i + 1))" "$w" "${v[ticks]}" "${v[tick_us]}" \
      "${v[read_us]}" "${v[write_us]}" "${v[user_us]}" "${v[parse_us]:--}" "${v[format_us]:--}"
    echo "$EV_VALID $((i + 1)) $w ${v[tick_us]} ${v[read_us]} ${v[write_us]} ${v[user_us]} ${v[parse_us]:-nan} ${v[format_us]:-nan}" >>"$TMP/rows"
    unset v
  done
  echo "      $first started first; $EV_LINE"
  [ "$EV_VALID" = 1 ] || echo "      (not valid: left out of the medians)"
done

python3 bench/lib/phases_summary.py "$TMP/rows"
