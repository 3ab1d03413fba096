#!/usr/bin/env bash
# truebench's memory bandwidth kernel vs mbw and sysbench memory (and tinymembench when one is
# installed — Debian has no package for it), on the same CPU with the same buffer size,
# ROUNDS rounds alternating tool by tool. Then one full standard memory run (bandwidth +
# latency) for its duration and spread.
#
#   bench/memory_vs_peers.sh [ROUNDS]     (default 3; needs: mbw, sysbench, taskset)
# Env: CPU (default: the last CPU allowed), MIB (buffer; default: truebench's own choice),
#      TRUEBENCH (binary, default target/release/truebench, built if missing).
#
# Units: MB/s = 10^6 bytes/s everywhere (mbw and sysbench print MiB/s: converted). Copies count
# the bytes copied once (all three tools). Each tool's figure is its best of the round:
# truebench's best sample (tinymembench's rule), mbw's fastest of 10 iterations per method,
# sysbench's rate over 5 s. The peer column is the best peer method; ratio = truebench / peer.
#
# Debian's mbw 1.2.2 `-t2` (MCBLOCK) copies the *same* 256 KiB source block into every block of
# the destination (`ltrace -e mempcpy mbw -q -n 1 -t2 1` shows a constant source address), so
# it measures writes with an L2-resident source: it is counted as a memset-class peer, not as a
# copy. Copy peers: mbw MEMCPY (-t0) and DUMB (-t1).
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${1:-3}
for t in mbw sysbench taskset; do
  command -v "$t" >/dev/null || { echo "$t not found: apt-get install -y mbw sysbench util-linux" >&2; exit 1; }
done
TRUEBENCH=${TRUEBENCH:-target/release/truebench}
if [ ! -x "$TRUEBENCH" ]; then
  CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1} cargo build -q --release -p truebench
fi
CPU=${CPU:-$(taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' | tail -1 | sed 's/.*-//')}

tb_run() { # -> "memcpy memset read bufmib"
  local args=(measure memory --cpu "$CPU" --no-latency)
  [ -n "${MIB:-}" ] && args+=(--buffer-mib "$MIB")
  "$TRUEBENCH" "${args[@]}" | awk '
    /^buffer:/ {buf=$2}
    /^memcpy:/ {c=$2} /^memset:/ {s=$2} /^read:/ {r=$2}
    END {print c, s, r, buf}'
}
mib_to_mb() { awk -v x="$1" 'BEGIN{printf "%.1f", x*1.048576}'; }
mbw_best() { # method -> best iteration MB/s
  taskset -c "$CPU" mbw -q -n 10 -t"$1" "$BUF" | awk '$1 ~ /^[0-9]+$/ {for(i=1;i<=NF;i++) if($i=="Copy:") {v=$(i+1); if(v>m)m=v}} END{printf "%.3f", m}'
}
sysbench_rate() { # oper -> MiB/s
  taskset -c "$CPU" sysbench memory --threads=1 --time=5 --memory-block-size="${BUF}M" \
    --memory-total-size=100000G --memory-oper="$1" run | sed -n 's/.*(\([0-9.]*\) MiB\/sec).*/\1/p'
}
tiny() { # -> "memcpy memset" from tinymembench's standard lines, if installed
  command -v tinymembench >/dev/null || { echo "- -"; return; }
  taskset -c "$CPU" tinymembench | awk '/standard memcpy/ {c=$(NF-1)} /standard memset/ {s=$(NF-1)} END{print c, s}'
}

echo "machine: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), $(uptime | sed 's/.*load/load/')"
echo "cpu $CPU, truebench $($TRUEBENCH --version)"
printf '%-6s %-7s %12s %12s %-26s %7s\n' round test truebench peer "peer (method)" ratio
declare -A best_tb best_peer best_peer_name
for r in $(seq 1 "$ROUNDS"); do
  read -r tc ts tr BUF < <(tb_run)
  m0=$(mib_to_mb "$(mbw_best 0)")
  m1=$(mib_to_mb "$(mbw_best 1)")
  m2=$(mib_to_mb "$(mbw_best 2)")
  sw=$(mib_to_mb "$(sysbench_rate write)")
  sr=$(mib_to_mb "$(sysbench_rate read)")
  read -r tmc tms < <(tiny)
  best_copy=$(printf '%s mbw-memcpy\n%s mbw-dumb\n%s tinymembench\n' "$m0" "$m1" "$tmc" | grep -v '^-' | sort -g | tail -1)
  best_set=$(printf '%s sysbench-write\n%s mbw-mcblock(writes)\n%s tinymembench\n' "$sw" "$m2" "$tms" | grep -v '^-' | sort -g | tail -1)
  for row in "memcpy $tc $best_copy" "memset $ts $best_set" "read $tr $sr sysbench-read"; do
    set -- $row
    printf '%-6s %-7s %12s %12s %-26s %7.3f\n' "$r" "$1" "$2" "$3" "$4 (${BUF} MiB)" "$(awk -v a="$2" -v b="$3" 'BEGIN{print a/b}')"
    if awk -v a="$2" -v b="${best_tb[$1]:-0}" 'BEGIN{exit !(a > b)}'; then best_tb[$1]=$2; fi
    if awk -v a="$3" -v b="${best_peer[$1]:-0}" 'BEGIN{exit !(a > b)}'; then best_peer[$1]=$3; best_peer_name[$1]=$4; fi
  done
  echo "       all peers: mbw memcpy $m0, dumb $m1, mcblock $m2; sysbench write $sw, read $sr; tinymembench ${tmc}/${tms} MB/s"
done

echo
echo "best of $ROUNDS rounds (the least disturbed figure of each side; the machine is shared):"
for t in memcpy memset read; do
  printf '  %-7s truebench %10s  peer %10s %-22s ratio %.3f\n' "$t" "${best_tb[$t]}" "${best_peer[$t]}" \
    "(${best_peer_name[$t]})" "$(awk -v a="${best_tb[$t]}" -v b="${best_peer[$t]}" 'BEGIN{print a/b}')"
done

echo
echo "full standard memory run (bandwidth + latency, THP off/on) on cpu $CPU:"
start=$(date +%s.%N)
"$TRUEBENCH" measure memory --cpu "$CPU" ${MIB:+--buffer-mib "$MIB"} --json > /tmp/truebench-memory.$$.json
end=$(date +%s.%N)
python3 - /tmp/truebench-memory.$$.json "$start" "$end" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"duration {float(sys.argv[3]) - float(sys.argv[2]):.1f} s (kernel: {r['seconds']:.1f} s), buffer {r['buffer']['bytes'] >> 20} MiB")
for b in r["bandwidth"]:
    print(f"  {b['test']}: {b['mb_s']:.1f} MB/s spread {b['spread_pct']:.2f}% over {len(b['samples_mb_s'])} samples [{b['implementation']}]")
lat = r["latency"]["points"]
print("  latency ns (THP off / on): " + ", ".join(
    f"{p['bytes'] // 1024}K {p['ns']:.1f}/{(p['ns_hugepages'] or 0):.1f}" for p in lat))
EOF
rm -f /tmp/truebench-memory.$$.json
