#!/usr/bin/env bash
# Two monitoring loops measured at the same time, not one after the other: A and B sample
# every 100 ms side by side for SECONDS, B started half an interval after A so their ticks
# never overlap, and each round prints both CPU costs per sample and A/B. On a VM the cost of
# one loop moves by a third from one few-second window to the next (the host's state); two
# loops run in the same window see the same host, so their ratio is steady where two
# sequential figures are not. Half of the rounds start B first, so neither keeps the earlier
# phase. Each round carries the evidence of the machine's other activity
# (bench/lib/evidence.sh); rounds where others used more than 3 % are left out of the median.
#
# A and B are each `tb` (this tree's release build: `truebench monitor --interval 0.1
# --json-lines`), `c` (the C reference loop, bench/lib/ref_loop.c: one absolute timed
# wake-up, a pread of each file truebench reads, one short line; compiled here, nothing kept),
# `cpad` (the same loop with its line padded to the length of truebench's JSON line here,
# measured at the start: what the kernel does to store a line that long is then on both
# sides, and tb / cpad is what truebench's own parsing and formatting add) or the path of
# another truebench binary (an older build, to compare two versions).
#
# PLACE=split pins each loop to a CPU of its own (taskset), A on CPU 1 and B on CPU 0 in odd
# rounds, the other way round in even ones. On this kind of VM which vCPU a loop lands on moves
# its cost by up to a third, and two loops that share a CPU each pay the switch between their
# address spaces: split placement measures each loop alone on its CPU, and the summary adds the
# median of each placement and their geometric mean, in which a cost factor of one CPU that
# both loops pay cancels.
#
# A run of 14 rounds decides little on such a VM: the C loop against itself (`c c`) gives
# medians of 0.95–1.10 from run to run. So the summary gives the median and the geometric
# mean of the rounds' ratios with a bootstrap 95 % interval for both (bench/lib/ratios.py), and
# SAVE=FILE appends each valid round's two figures to FILE, so that runs pool into one figure:
# `bench/lib/ratios.py run1 run2 -i run3` (-i: a run with A and B swapped). Run `c c` beside
# to see the instrument's own spread.
#
# ROOT=DIR has both truebench loops read the machine below DIR (`--root`), e.g. a tree of
# crates/fixtures' machine_root example (keep it moving: `machine_root DIR N 100000 1000 &`),
# whose thermal zones, hwmon and cpufreq files this VM's /sys lacks. Two truebench builds
# only: the C loop reads this machine's files.
#
# Not a test: prints figures for BENCHMARKS.md.
# Usage: [PLACE=split] [SAVE=FILE] [ROOT=DIR] bench/monitor_side_by_side.sh A B [SECONDS] [ROUNDS]
#        (default 9 s, 14 rounds)
. "$(dirname "$0")/lib/evidence.sh"
. "$(dirname "$0")/lib/cpu_ns.sh"
set -euo pipefail
if [ -n "${SAVE:-}" ]; then
  SAVE=$(realpath -m -- "$SAVE")
  touch -- "$SAVE" || { echo "SAVE=$SAVE: cannot write there" >&2; exit 2; }
fi
# Before the cd below: a relative ROOT is the caller's.
[ -z "${ROOT:-}" ] || ROOT=$(realpath -m -- "$ROOT")
cd "$(dirname "$(readlink -f "$0")")/.."
[ $# -ge 2 ] || { echo "usage: $0 A B [SECONDS] [ROUNDS] (A, B: tb, c, cpad or a truebench binary)" >&2; exit 2; }
A=$1
B=$2
SECS=${3:-9}
ROUNDS=${4:-14}
export CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1}
cargo build --release -q -p truebench
TMP=$(mktemp -d)
PIDS=()
trap 'kill "${PIDS[@]}" 2>/dev/null || true; rm -rf "$TMP"' EXIT
FILES=(/proc/stat /proc/loadavg /sys/devices/system/cpu/online /proc/meminfo)

cc -O2 -o "$TMP/ref" bench/lib/ref_loop.c
ROOTARG=()
if [ -n "${ROOT:-}" ]; then
  [ -d "$ROOT/proc" ] || { echo "ROOT=$ROOT: no proc/ there (a machine tree is expected)" >&2; exit 2; }
  case " $A $B " in *" c "* | *" cpad "*) echo "ROOT compares truebench builds only: c and cpad read this machine's files" >&2; exit 2 ;; esac
  ROOTARG=(--root "$ROOT")
fi
if [ "$A" = cpad ] || [ "$B" = cpad ]; then
  # The third line: the first two may lack the deltas a line carries once it has a predecessor.
  PAD=$(timeout 1 target/release/truebench monitor --interval 0.1 --json-lines | sed -n 3p | wc -c || true)
  [ "${PAD:-0}" -gt 16 ] || { echo "cpad: could not read a line of truebench monitor to take its length" >&2; exit 1; }
  echo "cpad: the C loop's line padded to $PAD bytes, the length of truebench's third JSON line here"
fi

PLACE=${PLACE:-free}
case $PLACE in
  free) ;;
  split)
    command -v taskset >/dev/null || { echo "PLACE=split needs taskset (util-linux)" >&2; exit 2; }
    taskset -c 0,1 true 2>/dev/null || { echo "PLACE=split needs CPUs 0 and 1 to be usable" >&2; exit 2; }
    ;;
  *) echo "PLACE must be free or split, not '$PLACE'" >&2; exit 2 ;;
esac

# start WHICH OUT [CPU]: one loop at nice 19 (truebench's sampling thread runs at 19 too), pinned
# to CPU if given; prints its pid (taskset and nice exec the loop: the same pid).
start() {
  local pin=()
  [ -z "${3:-}" ] || pin=(taskset -c "$3")
  case $1 in
    c) "${pin[@]}" nice -n 19 "$TMP/ref" "${FILES[@]}" >"$2" & ;;
    cpad) "${pin[@]}" nice -n 19 "$TMP/ref" -l "$PAD" "${FILES[@]}" >"$2" & ;;
    tb) "${pin[@]}" nice -n 19 target/release/truebench monitor "${ROOTARG[@]}" --interval 0.1 --json-lines >"$2" & ;;
    *) "${pin[@]}" nice -n 19 "$1" monitor "${ROOTARG[@]}" --interval 0.1 --json-lines >"$2" & ;;
  esac
  echo $!
}

echo "machine: $(nproc) CPUs, $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo), kernel $(uname -r)"
echo "A = $A, B = $B, at the same time (the second half an interval later), ${SECS} s per round, ${ROUNDS} rounds:"
printf "%5s %6s %10s %10s %7s  %s\n" round first "A µs/smp" "B µs/smp" "A/B" "evidence"
: >"$TMP/ratios"
: >"$TMP/pairs"
for ((i = 1; i <= ROUNDS; i++)); do
  ev_start
  cpu_a="" cpu_b=""
  [ "$PLACE" = free ] || { cpu_a=$((i % 2)) cpu_b=$(((i + 1) % 2)); }
  if ((i % 2)); then
    pa=$(start "$A" "$TMP/a.out" "$cpu_a")
    sleep 0.05
    pb=$(start "$B" "$TMP/b.out" "$cpu_b")
    first=A
  else
    pb=$(start "$B" "$TMP/b.out" "$cpu_b")
    sleep 0.05
    pa=$(start "$A" "$TMP/a.out" "$cpu_a")
    first=B
  fi
  PIDS=("$pa" "$pb")
  sleep 1
  a0=$(cpu_ns "$pa") b0=$(cpu_ns "$pb") na0=$(wc -l <"$TMP/a.out") nb0=$(wc -l <"$TMP/b.out")
  sleep "$SECS"
  a1=$(cpu_ns "$pa") b1=$(cpu_ns "$pb") na1=$(wc -l <"$TMP/a.out") nb1=$(wc -l <"$TMP/b.out")
  # The evidence before the kill: the loops are not this shell's children (started in a
  # command substitution), so only while alive is their CPU time counted as the session's.
  ev_stop
  kill -TERM "$pa" "$pb"
  while kill -0 "$pa" 2>/dev/null || kill -0 "$pb" 2>/dev/null; do sleep 0.05; done
  PIDS=()
  read -r ua ub r < <(awk -v a=$((a1 - a0)) -v na=$((na1 - na0)) -v b=$((b1 - b0)) -v nb=$((nb1 - nb0)) \
    'BEGIN {x = a / na / 1000; y = b / nb / 1000; printf "%.1f %.1f %.3f\n", x, y, x / y}')
  place=""
  [ "$PLACE" = free ] || place=" [A on CPU $cpu_a, B on CPU $cpu_b]"
  printf "%5s %6s %10s %10s %7s  %s%s\n" "$i" "$first" "$ua" "$ub" "$r" "$EV_LINE" "$place"
  if [ "$EV_VALID" = 1 ]; then
    echo "$r" >>"$TMP/ratios"
    echo "$ua $ub" >>"$TMP/pairs"
    [ "$PLACE" = free ] || echo "$r" >>"$TMP/ratios_a$cpu_a"
  else
    echo "      (not valid: left out of the median)"
  fi
done
mapfile -t R <"$TMP/ratios"
echo "valid rounds: ${#R[@]} of $ROUNDS; A/B range $(sort -g "$TMP/ratios" | head -1)–$(sort -g "$TMP/ratios" | tail -1)"
# The median with its interval from the rounds' figures (one place computes it).
if [ "${#R[@]}" -ge 2 ]; then python3 bench/lib/ratios.py "$TMP/pairs"; else echo "A/B median: ${R[*]:--}"; fi
if [ -n "${SAVE:-}" ]; then
  { echo "# $A / $B, $(date -u +%FT%TZ), PLACE=$PLACE, ${SECS} s × ${ROUNDS} rounds: A µs/sample, B µs/sample"; cat "$TMP/pairs"; } >>"$SAVE"
fi
if [ "$PLACE" = split ]; then
  m=()
  for c in 0 1; do
    P=()
    [ ! -s "$TMP/ratios_a$c" ] || mapfile -t P <"$TMP/ratios_a$c"
    m[c]=$(ev_median "${P[@]}")
    echo "A on CPU $c: ${#P[@]} valid rounds, A/B median ${m[c]}"
  done
  if [ "${m[0]}" != - ] && [ "${m[1]}" != - ]; then
    echo "geometric mean of the two placements' medians: $(awk -v x="${m[0]}" -v y="${m[1]}" 'BEGIN {printf "%.3f", sqrt(x * y)}')"
  else
    echo "geometric mean of the two placements: none (a placement has no valid round)"
  fi
fi
