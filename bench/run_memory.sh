#!/usr/bin/env bash
# A run's memory against the machine's size: on generated machines of N CPUs
# (crates/fixtures/src/machine.rs), a Session samples until its timeline holds SAMPLES samples
# (default 3,600: an hour-long run at the run's 1 s interval — a standard run takes less), then
# makes and serialises the result document (crates/suites/examples/run_memory.rs). Printed per
# N: the process's peak resident memory (VmHWM) before sampling and at the end, the document's
# size, what each CPU added to it since the previous N, and its size per sample — with the run's sources, and with every source (what
# `monitor -- CMD` keeps: softirqs per CPU, disks, network, pressure in each sample).
#
# The bound held: peak RSS ≤ 64 MiB at 512 CPUs with the run's sources. The document's size per
# CPU is what grows with the machine (its inventory); per sample, the run's timeline holds one
# value per cluster, not per CPU.
#
# Not a test: prints the table for BENCHMARKS.md. Memory, not time: the machine's other
# activity moves none of these figures, but it is printed.
# Usage: bench/run_memory.sh [SAMPLES] [N…]   (default 3600, 2 8 64 192 512)
. "$(dirname "$0")/lib/evidence.sh"
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."
SAMPLES=${1:-3600}
shift || true
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(2 8 64 192 512)
[[ $SAMPLES =~ ^[0-9]+$ && $SAMPLES -ge 1 ]] || { echo "SAMPLES must be a whole number ≥ 1, not '$SAMPLES'" >&2; exit 2; }
export CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1}
cargo build --release -q -p truebench-suites --example run_memory
EX=target/release/examples/run_memory
# The generated trees go where temporary files go: memory when TMPDIR is a tmpfs.
[ -n "${TMPDIR:-}" ] || { [ -w /dev/shm ] && export TMPDIR=/dev/shm; }
echo "machine: $(nproc) CPUs, kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg); $SAMPLES samples each"
printf '%5s %-8s %8s %12s %10s %12s %12s %10s  %s\n' N sources samples "peak before" "peak MiB" "document" "B/extra CPU" "B/sample" evidence
# The document's growth per CPU: its size against the previous N's, per CPU added.
declare -A PREV_N PREV_B
status=0
for n in "${SIZES[@]}"; do
  for src in run all; do
    ev_start
    arg=()
    [ $src = run ] || arg=(all)
    line=$("$EX" "$n" "$SAMPLES" "${arg[@]}") || { echo "run_memory $n $SAMPLES ${arg[*]} failed" >&2; status=1; continue; }
    ev_stop
    # "N 8 sources run samples 3601 sampling_s 9.1 peak_before_kib … peak_kib … document_bytes … bytes_per_cpu … bytes_per_sample …"
    read -r _ _ _ _ _ kept _ _ _ before _ peak _ bytes _ _ _ per_sample <<<"$line"
    per_cpu=-
    if [ -n "${PREV_N[$src]:-}" ] && [ "$n" -gt "${PREV_N[$src]}" ]; then
      per_cpu=$(((bytes - PREV_B[$src]) / (n - PREV_N[$src])))
    fi
    PREV_N[$src]=$n PREV_B[$src]=$bytes
    printf '%5s %-8s %8s %10s K %10.1f %12s %12s %10s  %s\n' "$n" "$src" "$kept" "$before" \
      "$(echo "$peak / 1024" | bc -l)" "$bytes" "$per_cpu" "$per_sample" "$EV_LINE"
    if [ $src = run ] && [ "$n" -ge 512 ] && [ "$peak" -gt $((64 * 1024)) ]; then
      echo "      over the bound: $((peak / 1024)) MiB > 64 MiB at $n CPUs" >&2
      status=1
    fi
  done
done
exit $status
