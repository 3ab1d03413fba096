#!/usr/bin/env bash
# truebench's `standard memcpy`/`standard memset` (tinymembench's measure, what the Results.md
# row and `compare --corpus` use) side by side with tinymembench itself, on the same CPU,
# ROUNDS rounds of the two tools (A B, then B A, …). Prints both figures and their ratio per
# round, then the median ratio; which tool goes first alternates from round to round (odd rounds
# truebench, even rounds tinymembench), and the medians are also given per order. Each tool's run is measured under bench/lib/evidence.sh: the
# round's rows are followed by each run's evidence (the other processes' share of the machine
# and the load); a figure taken while others used more than 3 % is marked not valid and left
# out of the best rounds, and its round's ratios out of the medians.
#
#   TINYMEMBENCH=/path/to/tinymembench bench/memory_vs_tinymembench.sh [ROUNDS]   (default 5)
#
# tinymembench is not packaged by Debian: build it by hand from its public source (`make`)
# outside this repository. A full tinymembench run takes minutes (C copies, latency); a build
# whose main() stops after the `standard memcpy`/`standard memset` lines measures the same
# thing faster — the script only reads those two lines.
# Env: CPU (default: the last CPU allowed), TRUEBENCH (binary, default target/release/truebench,
#      built if missing).
. "$(dirname "$0")/lib/evidence.sh"
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."

ROUNDS=${1:-5}
TINYMEMBENCH=${TINYMEMBENCH:-$(command -v tinymembench || true)}
[ -x "$TINYMEMBENCH" ] || { echo "set TINYMEMBENCH to a tinymembench binary (built by hand from its source)" >&2; exit 1; }
command -v taskset >/dev/null || { echo "taskset not found: apt-get install -y util-linux" >&2; exit 1; }
TRUEBENCH=${TRUEBENCH:-target/release/truebench}
if [ ! -x "$TRUEBENCH" ]; then
  CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1} cargo build -q --release -p truebench
fi
CPU=${CPU:-$(taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' | tail -1 | sed 's/.*-//')}

tb() { # -> "memcpy memset spread_memcpy spread_memset"
  "$TRUEBENCH" measure memory --cpu "$CPU" --no-latency --json | python3 -c '
import json, sys
r = {b["test"]: b for b in json.load(sys.stdin)["standard"]}
print(r["memcpy"]["mb_s"], r["memset"]["mb_s"], r["memcpy"]["spread_pct"], r["memset"]["spread_pct"])'
}
tiny() { # -> "memcpy memset spread_memcpy spread_memset" (spread 0 when tinymembench prints none)
  taskset -c "$CPU" "$TINYMEMBENCH" | awk '
    function sd(line) { return match(line, /\(([0-9.]+)%\)/) ? substr(line, RSTART + 1, RLENGTH - 3) : 0 }
    /standard memcpy/ { c = $(index($0, "(") ? NF - 2 : NF - 1); cs = sd($0) }
    /standard memset/ { s = $(index($0, "(") ? NF - 2 : NF - 1); ss = sd($0) }
    END { print c, s, cs, ss }'
}

echo "machine: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), $(uptime | sed 's/.*load/load/')"
echo "cpu $CPU, truebench $($TRUEBENCH --version), tinymembench $TINYMEMBENCH"
printf '%-6s %-7s %12s %8s %12s %8s %7s\n' round test truebench spread tinymembench spread ratio
ratios_c=() ratios_s=() tb_c=() tb_s=() tm_c=() tm_s=() all_tc=() all_ts=() all_mc=() all_ms=()
for r in $(seq 1 "$ROUNDS"); do
  # Each run in a command substitution, so that it has ended (and is counted) at ev_stop.
  # Which tool goes first alternates: the order alone moves a figure by a few percent.
  run_tb() {
    ev_start
    out=$(tb)
    ev_stop
    read -r tc ts tcs tss <<<"$out"
    t_ev=$EV_LINE t_ok=$EV_VALID
  }
  run_tiny() {
    ev_start
    out=$(tiny)
    ev_stop
    read -r mc ms mcs mss <<<"$out"
    m_ev=$EV_LINE m_ok=$EV_VALID
  }
  if [ $((r % 2)) = 1 ]; then first=truebench; run_tb; run_tiny; else first=tinymembench; run_tiny; run_tb; fi
  rc=$(awk -v a="$tc" -v b="$mc" 'BEGIN{printf "%.3f", a/b}')
  rs=$(awk -v a="$ts" -v b="$ms" 'BEGIN{printf "%.3f", a/b}')
  printf '%-6s %-7s %12.1f %7.1f%% %12.1f %7.1f%% %7s\n' "$r" memcpy "$tc" "$tcs" "$mc" "$mcs" "$rc"
  printf '%-6s %-7s %12.1f %7.1f%% %12.1f %7.1f%% %7s\n' "$r" memset "$ts" "$tss" "$ms" "$mss" "$rs"
  echo "       ($first first)"
  echo "       truebench:    $t_ev"
  echo "       tinymembench: $m_ev"
  [ "$t_ok" = 1 ] && all_tc+=("$tc") all_ts+=("$ts")
  [ "$m_ok" = 1 ] && all_mc+=("$mc") all_ms+=("$ms")
  if [ "$t_ok" = 1 ] && [ "$m_ok" = 1 ]; then
    ratios_c+=("$rc") ratios_s+=("$rs")
    if [ "$first" = truebench ]; then tb_c+=("$rc") tb_s+=("$rs"); else tm_c+=("$rc") tm_s+=("$rs"); fi
  else
    echo "       (not valid: this round's ratios are left out of the medians, its not valid figures out of the best rounds)"
  fi
done
# The median of the values given (ev_median), "-" when there are none.
median() { if [ $# = 0 ]; then echo -; else ev_median "$@"; fi; }
echo
echo "median ratio truebench / tinymembench over the ${#ratios_c[@]} valid rounds of $ROUNDS: memcpy $(median "${ratios_c[@]}"), memset $(median "${ratios_s[@]}") ($(uptime | sed 's/.*load/load/'))"
echo "  truebench first: memcpy $(median "${tb_c[@]}"), memset $(median "${tb_s[@]}") (${#tb_c[@]} rounds); tinymembench first: memcpy $(median "${tm_c[@]}"), memset $(median "${tm_s[@]}") (${#tm_c[@]} rounds)"
# Both tools report their best repeat; the best valid round of each is the least disturbed figure.
best() { if [ $# = 0 ]; then echo -; else printf '%s\n' "$@" | sort -g | tail -1; fi; }
for t in memcpy memset; do
  if [ $t = memcpy ]; then a=$(best "${all_tc[@]}") b=$(best "${all_mc[@]}"); else a=$(best "${all_ts[@]}") b=$(best "${all_ms[@]}"); fi
  echo "best valid round: $t truebench $a tinymembench $b ratio $(awk -v a="$a" -v b="$b" 'BEGIN{if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.3f", a/b}')"
done
