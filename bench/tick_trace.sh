#!/usr/bin/env bash
# Where the sampler's tick spends its CPU time, against the C reference loop's, as the kernel
# sees it. On a generated N-CPU tree (crates/fixtures/src/machine.rs), truebench samples at
# 10 Hz in one of bench/sampler_scale.sh's two modes — plain: `monitor --interval 0.1
# --json-lines`; session: `monitor --interval 0.1 --quiet -- sleep …`, the Session's sampler
# thread — and, half an interval after it (ref_loop -a), the C loop (bench/lib/ref_loop.c)
# reads the same files (in plain mode printing a line as long), both at nice 19. The two
# sampling threads are traced together for SECONDS with ftrace: sched_switch and every system
# call's entry and exit, for those two threads only, timestamped in TSC cycles. bench/lib/tick_trace.py
# splits each tick into its time on the CPU, in each system call, and between calls (the
# process's own code, with the kernel's entry and exit paths around each call), then prints
# the medians side by side and the gaps between calls in order: which of the tick's steps
# holds the difference. Unlike bench/tick_phases.sh it sees the wake-up (the return from
# clock_nanosleep) and the kernel's part of each call; the tracing itself adds the same cost
# per event to both (they make the same calls, but for the C loop's line in session mode).
#
# Not a test: prints figures for BENCHMARKS.md. Needs root, tracefs (mounted here if it is
# not) and x86-64 (the TSC clock). One run is one window of the host: compare within it.
# Usage: [TB=BIN] [MACHINE_ROOT=BIN] [TRACE_OUT=FILE] bench/tick_trace.sh [SECONDS] [MODE] [N]
#        (default 15 s, plain, 2 CPUs; MODE plain or session; N as machine_root takes it)
. "$(dirname "$0")/lib/evidence.sh"
. "$(dirname "$0")/lib/sampler_side.sh"
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."
SECS=${1:-15}
MODE=${2:-plain}
N=${3:-2}
[[ $SECS =~ ^[0-9]+$ && $SECS -ge 3 ]] || { echo "SECONDS must be a whole number ≥ 3, not '$SECS'" >&2; exit 2; }
case $MODE in plain | session) ;; *) echo "MODE must be plain or session, not '$MODE'" >&2; exit 2 ;; esac
[[ $N =~ ^[0-9]+$ && $N -ge 1 ]] || { echo "N must be a whole number of CPUs ≥ 1, not '$N'" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "tracing needs root" >&2; exit 2; }
[ "$(uname -m)" = x86_64 ] || { echo "x86-64 only (the trace is timed by the TSC)" >&2; exit 2; }
T=/sys/kernel/tracing
mounted=
if [ ! -e "$T/trace" ]; then
  mount -t tracefs nodev "$T" || { echo "no tracefs at $T" >&2; exit 1; }
  mounted=1
  # Until the full clean-up below takes over.
  trap 'umount "$T" || true' EXIT
fi
grep -qw x86-tsc "$T/trace_clock" || { echo "$T/trace_clock offers no x86-tsc clock" >&2; exit 1; }
# The TSC's rate: the kernel's refined calibration, else its first one. /proc/cpuinfo's
# "cpu MHz" is the core's clock, which may differ from the TSC's: used only when the kernel's
# log says nothing, and said.
MHZ=$(dmesg 2>/dev/null | sed -n 's/.*Refined TSC clocksource calibration: \([0-9.]*\) MHz.*/\1/p' | tail -1)
[ -n "$MHZ" ] || MHZ=$(dmesg 2>/dev/null | sed -n 's/.*tsc: Detected \([0-9.]*\) MHz.*/\1/p' | tail -1)
if [ -z "$MHZ" ]; then
  MHZ=$(awk -F': ' '/^cpu MHz/ {print $2; exit}' /proc/cpuinfo)
  [ -n "$MHZ" ] || { echo "the TSC's rate is not known (neither the kernel's log nor /proc/cpuinfo says)" >&2; exit 1; }
  echo "the kernel's log gives no TSC rate: taking /proc/cpuinfo's cpu MHz ($MHZ), the core's clock, which may not be the TSC's" >&2
fi
side_bins
side_tmp tick-trace
PIDS=()
# The tracing settings this changes, as they were, put back on any exit (the buffer's size as
# its number: an unused buffer reads "7 (expanded: 1408)").
old_clock=$(sed 's/.*\[\(.*\)\].*/\1/' "$T/trace_clock")
old_size=$(awk '{print $1; exit}' "$T/buffer_size_kb")
old_on=$(cat "$T/tracing_on")
cp "$T/set_event" "$TMP/set_event"
cp "$T/set_event_pid" "$TMP/set_event_pid"
cleanup() {
  # Every step is tried: one that fails does not leave the others undone.
  set +e
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  echo 0 >"$T/tracing_on"
  echo >"$T/set_event"
  echo >"$T/set_event_pid"
  # One event or pid per write: the files list them one per line.
  while read -r e; do [ -z "$e" ] || echo "$e" >>"$T/set_event"; done <"$TMP/set_event"
  while read -r e; do [ -z "$e" ] || echo "$e" >>"$T/set_event_pid"; done <"$TMP/set_event_pid"
  echo "$old_clock" >"$T/trace_clock"
  echo "$old_size" >"$T/buffer_size_kb"
  echo >"$T/trace"
  echo "$old_on" >"$T/tracing_on"
  rm -rf "$TMP"
  [ -z "$mounted" ] || umount "$T"
}
trap cleanup EXIT
cc -O2 -o "$TMP/ref" bench/lib/ref_loop.c

side_tree "$TMP/root" "$N"
PIDS+=("$TREE_PID")
ptb=$(side_start "$MODE" "$TMP/root" "$TMP/tb.out")
PIDS+=("$ptb")
# Past its first 20 ticks: files it read through its helper thread and found quick are its own
# reads by then (crates/monitor/src/reader/slow.rs).
sleep 2.5
# The thread that samples: the process itself in plain mode, its sampler thread in a session.
tid=$ptb
if [ "$MODE" = session ]; then
  tid=
  for t in /proc/"$ptb"/task/*; do
    [ "$(cat "$t/comm" 2>/dev/null)" = truebench-sampl ] && tid=${t##*/}
  done
  [ -n "$tid" ] || { echo "no sampler thread (truebench-sampl) in process $ptb" >&2; exit 1; }
fi
mapfile -t files < <(open_files "$ptb" "$TMP/root")
pad=()
if [ "$MODE" = plain ]; then
  [ -s "$TMP/tb.out" ] || { echo "truebench printed no line in 2.5 s" >&2; exit 1; }
  pad=(-l "$(side_line_len "$TMP/tb.out")")
fi
nice -n 19 "$TMP/ref" "${pad[@]}" -a "$ptb" "${files[@]}" >"$TMP/c.out" &
pc=$!
PIDS+=("$pc")
sleep 1.5

echo "machine: $(nproc) CPUs, $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo), kernel $(uname -r), TSC $MHZ MHz"
echo "$MODE mode, $N CPUs, ${#files[@]} files${pad:+, ${pad[1]}-byte lines}, traced for ${SECS} s"
echo 0 >"$T/tracing_on"
echo >"$T/trace"
echo 16384 >"$T/buffer_size_kb"
echo x86-tsc >"$T/trace_clock"
echo "$tid $pc" >"$T/set_event_pid"
echo 'sched:sched_switch raw_syscalls:sys_enter raw_syscalls:sys_exit' >"$T/set_event"
ev_start
echo 1 >"$T/tracing_on"
sleep "$SECS"
echo 0 >"$T/tracing_on"
ev_stop
cp "$T/trace" "$TMP/trace.txt"
# TRACE_OUT=FILE keeps the raw trace (bench/lib/tick_trace.py reads it again).
[ -z "${TRACE_OUT:-}" ] || cp "$TMP/trace.txt" "$TRACE_OUT"
echo "evidence: $EV_LINE"
[ "$EV_VALID" = 1 ] || echo "NOT VALID: others used more than 3 % of the machine" >&2
python3 bench/lib/tick_trace.py "$TMP/trace.txt" "$tid" truebench "$pc" "C loop" "$MHZ"
