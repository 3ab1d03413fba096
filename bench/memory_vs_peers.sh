#!/usr/bin/env bash
# truebench's memory bandwidth kernel vs mbw and sysbench memory (and tinymembench when one is
# installed — Debian has no package for it), on the same CPU with the same buffer size,
# ROUNDS rounds, truebench first in odd rounds and the peers first in even ones. Then one full standard memory run (bandwidth +
# latency) for its duration and spread.
#
#   bench/memory_vs_peers.sh [ROUNDS]     (default 3; needs: mbw, sysbench, taskset)
# Env: CPU (default: the last CPU allowed), MIB (buffer; default: truebench's own choice),
#      TRUEBENCH (binary, default target/release/truebench, built if missing), TINYMEMBENCH
#      (a tinymembench built by hand; default the one on PATH, if any).
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
#
# Each tool run (truebench's, each mbw method, each sysbench operation, tinymembench) is measured
# under bench/lib/evidence.sh, and the full standard run at the end as a whole: each round's
# rows are followed by every run's evidence (the other processes' share of the machine and the
# load). A figure taken while others used more than 3 % is not valid: it is not chosen as the
# best peer, its row's ratio is not given, and it is left out of the best of the rounds.
. "$(dirname "$0")/lib/evidence.sh"
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."

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
TINYMEMBENCH=${TINYMEMBENCH:-$(command -v tinymembench || true)}
tiny() { # -> "memcpy memset" from tinymembench's standard lines (its spread, "(0.5%)", may follow)
  taskset -c "$CPU" "$TINYMEMBENCH" | awk '
    /standard memcpy/ {c = $(index($0, "(") ? NF - 2 : NF - 1)}
    /standard memset/ {s = $(index($0, "(") ? NF - 2 : NF - 1)}
    END {print c, s}'
}
declare -A F E V
# measure KEY CMD…: CMD's output into F[KEY], its evidence into E[KEY] and V[KEY] (1 = valid).
# CMD runs in a command substitution, so that it has ended (and is counted) at ev_stop.
measure() {
  local key=$1
  shift
  ev_start
  F[$key]=$("$@")
  ev_stop
  E[$key]=$EV_LINE
  V[$key]=$EV_VALID
}
# cand FIGURE NAME KEY: "FIGURE NAME" when KEY's run was valid and gave a figure.
cand() {
  if [ "${V[$3]:-0}" = 1 ] && [ -n "$1" ] && [ "$1" != - ]; then echo "$1 $2"; fi
}

echo "machine: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), $(uptime | sed 's/.*load/load/')"
echo "cpu $CPU, truebench $($TRUEBENCH --version), tinymembench ${TINYMEMBENCH:-not installed}"
printf '%-6s %-7s %12s %12s %-26s %7s\n' round test truebench peer "peer (method)" ratio
declare -A best_tb best_peer best_peer_name
peers() {
  measure mbw0 mbw_best 0
  measure mbw1 mbw_best 1
  measure mbw2 mbw_best 2
  measure sbw sysbench_rate write
  measure sbr sysbench_rate read
  if [ -n "$TINYMEMBENCH" ]; then measure tiny tiny; fi
}
for r in $(seq 1 "$ROUNDS"); do
  # Which side goes first alternates (odd rounds truebench, even rounds the peers): the order
  # alone moves a figure by a few percent.
  if [ $((r % 2)) = 1 ]; then measure tb tb_run; peers; else peers; measure tb tb_run; fi
  read -r tc ts tr BUF <<<"${F[tb]}"
  m0=$(mib_to_mb "${F[mbw0]}")
  m1=$(mib_to_mb "${F[mbw1]}")
  m2=$(mib_to_mb "${F[mbw2]}")
  sw=$(mib_to_mb "${F[sbw]}")
  sr=$(mib_to_mb "${F[sbr]}")
  if [ -n "$TINYMEMBENCH" ]; then
    read -r tmc tms <<<"${F[tiny]}"
  else
    tmc=- tms=- V[tiny]=0
  fi
  # The best valid peer of each class ("- none" when no peer run of the class was valid).
  best_copy=$( { cand "$m0" mbw-memcpy mbw0; cand "$m1" mbw-dumb mbw1; cand "$tmc" tinymembench tiny; } | sort -g | tail -1)
  best_set=$( { cand "$sw" sysbench-write sbw; cand "$m2" "mbw-mcblock(writes)" mbw2; cand "$tms" tinymembench tiny; } | sort -g | tail -1)
  best_read=$(cand "$sr" sysbench-read sbr)
  for row in "memcpy $tc ${best_copy:-- none}" "memset $ts ${best_set:-- none}" "read $tr ${best_read:-- none}"; do
    set -- $row
    if [ "${V[tb]}" = 1 ] && [ "$3" != - ]; then
      q=$(awk -v a="$2" -v b="$3" 'BEGIN{printf "%.3f", a/b}')
    else
      q=-
    fi
    printf '%-6s %-7s %12s %12s %-26s %7s\n' "$r" "$1" "$2" "$3" "$4 (${BUF} MiB)" "$q"
    if [ "${V[tb]}" = 1 ] && awk -v a="$2" -v b="${best_tb[$1]:-0}" 'BEGIN{exit !(a > b)}'; then best_tb[$1]=$2; fi
    if [ "$3" != - ] && awk -v a="$3" -v b="${best_peer[$1]:-0}" 'BEGIN{exit !(a > b)}'; then best_peer[$1]=$3; best_peer_name[$1]=$4; fi
  done
  echo "       ($([ $((r % 2)) = 1 ] && echo truebench || echo the peers) first)"
  echo "       all peers: mbw memcpy $m0, dumb $m1, mcblock $m2; sysbench write $sw, read $sr; tinymembench ${tmc}/${tms} MB/s"
  echo "       evidence truebench:       ${E[tb]}"
  echo "       evidence mbw memcpy:      ${E[mbw0]}"
  echo "       evidence mbw dumb:        ${E[mbw1]}"
  echo "       evidence mbw mcblock:     ${E[mbw2]}"
  echo "       evidence sysbench write:  ${E[sbw]}"
  echo "       evidence sysbench read:   ${E[sbr]}"
  if [ -n "$TINYMEMBENCH" ]; then echo "       evidence tinymembench:    ${E[tiny]}"; fi
  if [ "${V[tb]}" != 1 ]; then echo "       (truebench's figures not valid: no ratio, left out of the best of the rounds)"; fi
  for k in mbw0 mbw1 mbw2 sbw sbr ${TINYMEMBENCH:+tiny}; do
    if [ "${V[$k]}" != 1 ]; then echo "       (a peer's figure not valid: not chosen as the best peer, left out of the best of the rounds)"; break; fi
  done
done

echo
echo "best of $ROUNDS rounds, valid figures only (the least disturbed figure of each side; the machine is shared):"
for t in memcpy memset read; do
  printf '  %-7s truebench %10s  peer %10s %-22s ratio %s\n' "$t" "${best_tb[$t]:--}" "${best_peer[$t]:--}" \
    "(${best_peer_name[$t]:-none valid})" \
    "$(awk -v a="${best_tb[$t]:--}" -v b="${best_peer[$t]:--}" 'BEGIN{if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.3f", a/b}')"
done

echo
echo "full standard memory run (bandwidth + latency, THP off/on) on cpu $CPU, one run under one evidence:"
ev_start
start=$(date +%s.%N)
"$TRUEBENCH" measure memory --cpu "$CPU" ${MIB:+--buffer-mib "$MIB"} --json > /tmp/truebench-memory.$$.json
end=$(date +%s.%N)
ev_stop
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
echo "  evidence: $EV_LINE"
if [ "$EV_VALID" != 1 ]; then echo "  (not valid: this run's duration and spread were measured on a busy machine)"; fi
