#!/usr/bin/env bash
# truebench's TCP throughput kernel (`truebench measure net`, the kernel of `truebench net`)
# against iperf3 (Debian), side by side in alternating rounds (which tool goes first alternates
# too), same streams and duration, on loopback and between two network namespaces joined by a
# veth pair: one way (client → server), full duplex (iperf3 --bidir) and one way with
# zero-copy sending (iperf3 -Z, truebench --zerocopy: both sendfile(2)). Prints both figures,
# their ratio, and for each figure the evidence of the machine's other activity
# (bench/lib/evidence.sh): a round in which other processes used more than 3 % of the machine
# is printed as not valid and left out of the medians.
#
# What each counts: iperf3's receiver figure for one way; truebench counts what the client
# wrote (the sender figure; at these durations the socket buffers make a difference of well
# under 1 %). Duplex: the sum of both directions for both tools.
#
# Nine rounds do not resolve a few per cent here (one run's zero-copy median moved from 0.93 to
# 1.06 between runs an hour apart), so the summary gives each median with a bootstrap 95 %
# interval (bench/lib/ratios.py), MODES= limits a run to some of the three modes, and SAVE=DIR
# appends each valid round's two figures to DIR/LABEL-MODE.txt, so that runs pool into one
# figure: `bench/lib/ratios.py DIR/loopback-zerocopy.txt`.
#
# Not a test: prints figures for BENCHMARKS.md. Needs root for the namespaces (iproute2).
# Usage: [MODES="oneway duplex zerocopy"] [SAVE=DIR] bench/net_vs_iperf3.sh [SECONDS] [ROUNDS]
#        [STREAMS] [loopback|netns|both]
. "$(dirname "$0")/lib/evidence.sh"
set -euo pipefail
# SAVE names a directory where the caller stands: resolved before the cd below.
if [ -n "${SAVE:-}" ]; then
  mkdir -p -- "$SAVE" && [ -w "$SAVE" ] || { echo "SAVE=$SAVE: cannot write there" >&2; exit 2; }
  SAVE=$(realpath -- "$SAVE")
fi
cd "$(dirname "$(readlink -f "$0")")/.."
SECS=${1:-5}
ROUNDS=${2:-3}
P=${3:-1}
WHERE=${4:-both}
command -v iperf3 >/dev/null || { echo "iperf3 is not installed (Debian package iperf3)" >&2; exit 1; }
MODES=${MODES:-oneway duplex zerocopy}
for m in $MODES; do
  case $m in oneway | duplex | zerocopy) ;; *) echo "MODES: '$m' is not oneway, duplex or zerocopy" >&2; exit 2 ;; esac
done
[ -n "${MODES// /}" ] || { echo "MODES is empty: name oneway, duplex or zerocopy" >&2; exit 2; }
export CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1}
cargo build --release -q -p truebench
TB=$PWD/target/release/truebench
PORT_TB=${PORT_TB:-15301}
PORT_IP=${PORT_IP:-15302}
NS_A=tbbench-a
NS_B=tbbench-b
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill -INT "$p" 2>/dev/null || true; done
  sleep 0.5
  for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  ip netns del "$NS_A" 2>/dev/null || true
  ip netns del "$NS_B" 2>/dev/null || true
}
trap cleanup EXIT

# run_in NS CMD…: in namespace NS, or here for "-".
run_in() {
  local ns=$1
  shift
  if [ "$ns" = - ]; then "$@"; else ip netns exec "$ns" "$@"; fi
}

# servers NS ADDR: a truebench and an iperf3 server in NS listening on ADDR (started directly,
# so that $! is the server itself and the clean-up reaches it).
servers() {
  local in=()
  [ "$1" = - ] || in=(ip netns exec "$1")
  "${in[@]}" "$TB" measure net --server "$2:$PORT_TB" 2>/dev/null &
  PIDS+=($!)
  "${in[@]}" iperf3 -s -B "$2" -p "$PORT_IP" >/dev/null 2>&1 &
  PIDS+=($!)
  sleep 1
  for p in "${PIDS[@]: -2}"; do
    kill -0 "$p" 2>/dev/null || { echo "a server did not start (is port $PORT_TB or $PORT_IP taken?)" >&2; exit 1; }
  done
}

iperf3_bps() { # NS ADDR MODE
  local extra=()
  case $3 in duplex) extra=(--bidir) ;; zerocopy) extra=(-Z) ;; esac
  run_in "$1" iperf3 -c "$2" -p "$PORT_IP" -t "$SECS" -P "$P" "${extra[@]}" -J | python3 -c '
import json, sys
d = json.load(sys.stdin)["end"]
b = d["sum_received"]["bits_per_second"]
if "sum_received_bidir_reverse" in d: b += d["sum_received_bidir_reverse"]["bits_per_second"]
print(b)'
}

truebench_bps() { # NS ADDR MODE
  local extra=()
  case $3 in duplex) extra=(--direction duplex) ;; zerocopy) extra=(--zerocopy) ;; esac
  run_in "$1" "$TB" measure net --connect "$2:$PORT_TB" --seconds "$SECS" --parallel "$P" "${extra[@]}" --json |
    python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["sent_bps"] + d["received_bps"])'
}

declare -A PAIRS
measure_where() { # LABEL NS ADDR
  local label=$1 ns=$2 addr=$3 r mode ip tb ip_ev tb_ev ip_ok tb_ok first
  for r in $(seq 1 "$ROUNDS"); do
    for mode in $MODES; do
      # Alternate which tool goes first, so a slow start or a warm cache favours neither.
      first=$(( (r + ${#mode}) % 2 ))
      for tool in $([ "$first" = 1 ] && echo "iperf3 truebench" || echo "truebench iperf3"); do
        ev_start
        if [ "$tool" = iperf3 ]; then ip=$(iperf3_bps "$ns" "$addr" "$mode"); else tb=$(truebench_bps "$ns" "$addr" "$mode"); fi
        ev_stop
        if [ "$tool" = iperf3 ]; then ip_ev=$EV_LINE; ip_ok=$EV_VALID; else tb_ev=$EV_LINE; tb_ok=$EV_VALID; fi
      done
      python3 -c "print('$label round $r %-8s: truebench %6.0f Mbit/s, iperf3 %6.0f Mbit/s, ratio %.3f' % ('$mode', $tb/1e6, $ip/1e6, $tb/$ip))"
      echo "    truebench: $tb_ev"
      echo "    iperf3:    $ip_ev"
      if [ "$tb_ok" = 1 ] && [ "$ip_ok" = 1 ]; then
        PAIRS[$label-$mode]+="$tb $ip"$'\n'
      else
        echo "    (not valid: left out of the median)"
      fi
    done
  done
}

echo "machine: $(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg); ${SECS} s, ${P} stream(s), ${ROUNDS} rounds; iperf3 $(iperf3 --version | head -1 | cut -d' ' -f2)"
if [ "$WHERE" = loopback ] || [ "$WHERE" = both ]; then
  servers - 127.0.0.1
  measure_where loopback - 127.0.0.1
fi
if [ "$WHERE" = netns ] || [ "$WHERE" = both ]; then
  ip netns add "$NS_A"
  ip netns add "$NS_B"
  ip link add tbbench-va netns "$NS_A" type veth peer name tbbench-vb netns "$NS_B"
  ip -n "$NS_A" addr add 10.231.77.1/24 dev tbbench-va
  ip -n "$NS_B" addr add 10.231.77.2/24 dev tbbench-vb
  for ns in "$NS_A" "$NS_B"; do ip -n "$ns" link set lo up; done
  ip -n "$NS_A" link set tbbench-va up
  ip -n "$NS_B" link set tbbench-vb up
  servers "$NS_B" 10.231.77.2
  measure_where veth "$NS_A" 10.231.77.2
fi
echo
echo "truebench / iperf3 over the valid rounds (median, its bootstrap 95 % interval):"
for k in $(printf '%s\n' "${!PAIRS[@]}" | sort); do
  if [ -n "${SAVE:-}" ]; then
    { echo "# truebench iperf3 bit/s, $k, ${SECS} s, ${P} stream(s), $(date -u +%FT%TZ)"; printf '%s' "${PAIRS[$k]}"; } >>"$SAVE/$k.txt"
  fi
  if [ "$(printf '%s' "${PAIRS[$k]}" | wc -l)" -ge 2 ]; then
    printf '  %-18s %s\n' "$k" "$(printf '%s' "${PAIRS[$k]}" | python3 bench/lib/ratios.py /dev/stdin)"
  else
    printf '  %-18s %s (1 valid round)\n' "$k" "$(awk 'NF {printf "%.3f", $1 / $2}' <<<"${PAIRS[$k]}")"
  fi
done
[ -z "${SAVE:-}" ] || echo "each valid round's figures appended to $SAVE/LABEL-MODE.txt"

echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
