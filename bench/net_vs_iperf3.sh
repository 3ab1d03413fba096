#!/usr/bin/env bash
# truebench's TCP throughput kernel (`truebench measure net`, the kernel of `truebench net`)
# against iperf3 (Debian) on loopback, alternating rounds, same streams and duration: one way
# (client → server) and full duplex (iperf3 --bidir). Prints both figures and their ratio.
#
# What each counts: iperf3's receiver figure for one way; truebench counts what the client
# wrote (the sender figure; at these durations the socket buffers make a difference of well
# under 1 %). Duplex: the sum of both directions for both tools.
#
# Not a test: prints figures for BENCHMARKS.md. Usage: bench/net_vs_iperf3.sh [SECONDS] [ROUNDS] [STREAMS]
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${1:-5}
ROUNDS=${2:-3}
P=${3:-1}
command -v iperf3 >/dev/null || { echo "iperf3 is not installed (Debian package iperf3)" >&2; exit 1; }
export CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1}
cargo build --release -q -p truebench
TB=$PWD/target/release/truebench
PORT_TB=${PORT_TB:-15301}
PORT_IP=${PORT_IP:-15302}
"$TB" measure net --server "127.0.0.1:$PORT_TB" 2>/dev/null &
TBPID=$!
iperf3 -s -B 127.0.0.1 -p "$PORT_IP" >/dev/null 2>&1 &
IPPID=$!
trap 'kill -INT $TBPID 2>/dev/null; kill $IPPID 2>/dev/null; wait 2>/dev/null' EXIT
sleep 1
echo "machine: $(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg); loopback, ${SECS} s, ${P} stream(s), ${ROUNDS} rounds"
for r in $(seq 1 "$ROUNDS"); do
  for mode in oneway duplex; do
    if [ "$mode" = oneway ]; then
      ip=$(iperf3 -c 127.0.0.1 -p "$PORT_IP" -t "$SECS" -P "$P" -J | python3 -c 'import json,sys; d=json.load(sys.stdin)["end"]; print(d["sum_received"]["bits_per_second"])')
      tb=$("$TB" measure net --connect "127.0.0.1:$PORT_TB" --seconds "$SECS" --parallel "$P" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["sent_bps"])')
    else
      ip=$(iperf3 -c 127.0.0.1 -p "$PORT_IP" -t "$SECS" -P "$P" --bidir -J | python3 -c 'import json,sys; d=json.load(sys.stdin)["end"]; print(d["sum_received"]["bits_per_second"] + d["sum_received_bidir_reverse"]["bits_per_second"])')
      tb=$("$TB" measure net --connect "127.0.0.1:$PORT_TB" --seconds "$SECS" --parallel "$P" --direction duplex --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["sent_bps"] + d["received_bps"])')
    fi
    python3 -c "import sys; ip, tb = float('$ip'), float('$tb'); print('round $r $mode: truebench %.0f Mbit/s, iperf3 %.0f Mbit/s, ratio %.3f' % (tb/1e6, ip/1e6, tb/ip))"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
