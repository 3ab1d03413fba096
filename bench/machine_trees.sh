#!/usr/bin/env bash
# Generated machines of every size (crates/fixtures/src/machine.rs): writes the /proc + /sys
# tree of N = 2, 8, 64, 192 and 512 CPUs (or the Ns given) below DIR, then runs `info`,
# `review`, `monitor -- sleep 3` and one `serve` scrape on each while a helper process
# rewrites the tree's counters every 100 ms, and prints what a reader gets at that size:
# the bytes of /proc/interrupts, /proc/softirqs and /proc/stat per read, each command's lines
# and widest line, and the scrape's samples.
#
# The trees are inputs for the scale checks (the sampler's cost per N, the run's memory);
# this script prints sizes, not timings. Usage: bench/machine_trees.sh [DIR] [N...]
# (default DIR: a temp dir, removed at the end; a DIR given is kept). PROFILE=debug uses the
# debug build (quicker to build; the sizes are the same).
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."
export CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1}
PROFILE=${PROFILE:-release}
flag=--release
[ "$PROFILE" = release ] || flag=
cargo build $flag -q -p truebench
cargo build $flag -q -p truebench-fixtures --example machine_root
KEEP=${1:-}
shift || true
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(2 8 64 192 512)
DIR=${KEEP:-$(mktemp -d)}
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  [ -n "$KEEP" ] || rm -rf "$DIR"
}
trap cleanup EXIT
TB=target/$PROFILE/truebench
export XDG_DATA_HOME="$DIR/data" TRUEBENCH_LOCK_DIR="$DIR"

# shape FILE → "LINES lines, widest W"
shape() { printf '%s lines, widest %s' "$(wc -l <"$1")" "$(wc -L <"$1")"; }

printf '%5s  %12s %10s %8s  %-26s %-26s %-26s %s\n' N interrupts softirqs stat info review monitor "serve samples"
for n in "${SIZES[@]}"; do
  root="$DIR/cpus$n"
  rm -rf "$root"
  # The helper keeps the counters moving for the commands below (about 10 s in all).
  target/$PROFILE/examples/machine_root "$root" "$n" 30 >/dev/null &
  PIDS+=($!)
  for _ in $(seq 100); do [ -e "$root/sys/class/hwmon/hwmon0" ] && break; sleep 0.05; done
  $TB info --root "$root" >"$DIR/info$n.txt"
  $TB review --root "$root" --no-store >"$DIR/review$n.txt" 2>/dev/null
  $TB monitor --root "$root" --no-store --interval 0.5 -- sleep 3 >"$DIR/monitor$n.txt"
  $TB serve --listen 127.0.0.1:0 --root "$root" >"$DIR/serve$n.out" 2>&1 &
  spid=$!
  for _ in $(seq 100); do grep -q Serving "$DIR/serve$n.out" 2>/dev/null && break; sleep 0.05; done
  url=$(sed -n 's#^Serving metrics on \(http://[^ ]*\)$#\1#p' "$DIR/serve$n.out")
  python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1]).read().decode())' "$url" >"$DIR/metrics$n.txt"
  kill "$spid"
  wait "$spid" 2>/dev/null || true
  printf '%5s  %12s %10s %8s  %-26s %-26s %-26s %s\n' "$n" \
    "$(wc -c <"$root/proc/interrupts")" "$(wc -c <"$root/proc/softirqs")" "$(wc -c <"$root/proc/stat")" \
    "$(shape "$DIR/info$n.txt")" "$(shape "$DIR/review$n.txt")" "$(shape "$DIR/monitor$n.txt")" \
    "$(grep -vc '^#' "$DIR/metrics$n.txt")"
done
[ -z "$KEEP" ] || echo "trees and outputs kept in $DIR"
