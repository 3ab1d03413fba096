#!/usr/bin/env bash
# What one monitoring tick touches in user space, counted rather than timed: `truebench monitor
# --interval 0.1 --json-lines` and the C reference loop of bench/monitor_side_by_side.sh
# (bench/lib/ref_loop.c: the same timed wake-up and reads, one short line) each run under
# valgrind's lackey, which reports every instruction and data access; bench/lib/footprint.py
# splits that at the lines each program prints and gives the median per tick of instructions,
# distinct 64-byte code and data lines and distinct 4-KiB pages, then truebench / C loop.
#
# Why counts: after a 100 ms sleep on a VM the caches and TLB are cold, so a tick pays for
# each distinct line and page it touches more than for its instructions, and a timing of that
# moves by a third with the host's state (see BENCHMARKS.md). These counts do not depend on
# the host: their medians move by ~2 % between runs only with the figures' lengths (what the
# parse walks), so they show what a change to the tick's code does before a side-by-side run
# prices it. The kernel's part (the reads, the same for both) is not seen.
#
# Not a test: prints figures for BENCHMARKS.md. Needs valgrind (Debian package) and cc.
# Usage: bench/tick_footprint.sh [SECONDS] [TRUEBENCH]   (default 20 s each under valgrind —
# truebench starts slowly there — and this tree's release build)
. "$(dirname "$0")/lib/evidence.sh"
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."
SECS=${1:-20}
command -v valgrind >/dev/null || { echo "valgrind is not installed (Debian package valgrind)" >&2; exit 1; }
if [ -n "${2:-}" ]; then
  TB=$(realpath -- "$2")
  [ -x "$TB" ] || { echo "$2: not an executable truebench binary" >&2; exit 2; }
else
  export CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1}
  cargo build --release -q -p truebench
  TB=$PWD/target/release/truebench
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cc -O2 -o "$TMP/ref" bench/lib/ref_loop.c
FILES=(/proc/stat /proc/loadavg /sys/devices/system/cpu/online /proc/meminfo)

# trace LABEL PROGRAM ARGS...: the program under lackey for SECS, its lines and lackey's
# trace in one pipe (valgrind's log on fd 9 = the program's stdout).
trace() {
  local label=$1
  shift
  ev_start
  { timeout "$SECS" valgrind --tool=lackey --trace-mem=yes --log-fd=9 "$@" 9>&1 2>/dev/null || true; } |
    python3 bench/lib/footprint.py "$label" | tee -a "$TMP/rows"
  ev_stop
  echo "    $EV_LINE (the counts do not depend on it)"
}

echo "machine: $(nproc) CPUs, $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo), kernel $(uname -r)"
echo "per tick, median over the ticks after the first three, user space only:"
trace truebench "$TB" monitor --interval 0.1 --json-lines
trace "C loop" "$TMP/ref" "${FILES[@]}"
awk 'NR == 1 {for (i = 1; i <= NF; i++) a[i] = $i} NR == 2 {
  printf "truebench / C loop: instructions %.2f, code lines %.2f, data lines %.2f, pages %.2f\n",
    a[5] / $6, a[8] / $9, a[11] / $12, a[13] / $14 }' "$TMP/rows"
