#!/usr/bin/env bash
# truebench's clock kernel vs Willy Tarreau's `mhz`, the tool sbc-bench measures clocks with
# (its clock column and the "Checking cpufreq OPP" tables), alternating A B, B A on the same CPU.
# mhz is called as sbc-bench calls it: `mhz 1 1000000` to warm up, then `mhz 3 1000000`, whose
# three cpu_MHz values give the median of that call.
#
#   MHZ=/path/to/mhz bench/clock_vs_mhz.sh [PAIRS]      (default 10)
#
# mhz is not packaged by Debian: build it by hand from its public source (`cc -O2 -o mhz mhz.c`)
# outside this repository.
# Env: CPU (default: the last CPU allowed), TRUEBENCH (binary, default target/release/truebench,
#      built if missing).
#
# Each figure (truebench's probe; mhz's `mhz 3 1000000`, after its warm-up) is measured under
# bench/lib/evidence.sh: each pair's row is followed by both figures' evidence (the other
# processes' share of the machine and the load); a figure taken while others used more than 3 %
# is marked not valid and left out of the medians and CVs, and so is the pair's ratio.
. "$(dirname "$0")/lib/evidence.sh"
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."

PAIRS=${1:-10}
MHZ=${MHZ:-$(command -v mhz || true)}
[ -x "$MHZ" ] || { echo "set MHZ to an mhz binary (built by hand from its source)" >&2; exit 1; }
command -v taskset >/dev/null || { echo "taskset not found: apt-get install -y util-linux" >&2; exit 1; }
TRUEBENCH=${TRUEBENCH:-target/release/truebench}
if [ ! -x "$TRUEBENCH" ]; then
  CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1} cargo build -q --release -p truebench
fi
CPU=${CPU:-$(taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' | tail -1 | sed 's/.*-//')}

# The median of the values on stdin (ev_median), "-" when there are none.
median() {
  local xs
  xs=$(grep . || true)
  # shellcheck disable=SC2086
  if [ -n "$xs" ]; then ev_median $xs; else echo -; fi
}
cv() { awk 'NF {s+=$1; q+=$1*$1; n++} END{if (n == 0) {print "-"; exit}; m=s/n; printf "%.3f", (n>1) ? sqrt((q-n*m*m)/(n-1))/m*100 : 0}'; }
tb() { "$TRUEBENCH" clocks --bench-probe --cpu "$CPU" | tr ' ' '\n' | sed -n 's/^mhz=//p'; }
mhz_warm() { taskset -c "$CPU" "$MHZ" 1 1000000 >/dev/null; }
mhz() { taskset -c "$CPU" "$MHZ" 3 1000000 | sed -n 's/.*cpu_MHz=\([0-9.]*\).*/\1/p' | median; }

echo "machine: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), $(uptime | sed 's/.*load/load/')"
echo "cpu $CPU, truebench $($TRUEBENCH --version), mhz $MHZ"
printf '%-5s %12s %12s %8s\n' pair truebench mhz ratio
tbs=() mhzs=()
for p in $(seq 1 "$PAIRS"); do
  one_tb() {
    ev_start
    t=$(tb)
    ev_stop
    t_ev=$EV_LINE t_ok=$EV_VALID
  }
  one_mhz() {
    mhz_warm # as sbc-bench: a warm-up call first, not part of the figure
    ev_start
    m=$(mhz)
    ev_stop
    m_ev=$EV_LINE m_ok=$EV_VALID
  }
  # Which tool goes first alternates (odd pairs truebench): the order moves a figure.
  if ((p % 2)); then one_tb; one_mhz; else one_mhz; one_tb; fi
  printf '%-5s %12.1f %12.1f %8.4f\n' "$p" "$t" "$m" "$(awk -v a="$t" -v b="$m" 'BEGIN{print a/b}')"
  echo "      truebench: $t_ev"
  echo "      mhz:       $m_ev"
  [ "$t_ok" = 1 ] && tbs+=("$t")
  [ "$m_ok" = 1 ] && mhzs+=("$m")
  [ "$t_ok" = 1 ] && [ "$m_ok" = 1 ] || echo "      (not valid: the pair's ratio is left out, and so is each not valid figure from the medians)"
done
tm=$(printf '%s\n' "${tbs[@]}" | median)
mm=$(printf '%s\n' "${mhzs[@]}" | median)
echo
echo "valid figures: truebench ${#tbs[@]}, mhz ${#mhzs[@]} of $PAIRS"
f1() { awk -v x="$1" 'BEGIN{if (x == "-") print "-"; else printf "%.1f", x}'; }
printf 'median MHz  truebench %s  mhz %s  ratio %s\n' "$(f1 "$tm")" "$(f1 "$mm")" \
  "$(awk -v a="$tm" -v b="$mm" 'BEGIN{if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.4f", a/b}')"
printf 'CV %%        truebench %s  mhz %s   (%s)\n' "$(printf '%s\n' "${tbs[@]}" | cv)" "$(printf '%s\n' "${mhzs[@]}" | cv)" "$(uptime | sed 's/.*load/load/')"
