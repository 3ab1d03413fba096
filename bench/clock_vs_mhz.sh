#!/usr/bin/env bash
# truebench's clock kernel vs Willy Tarreau's `mhz`, the tool sbc-bench measures clocks with
# (its clock column and the "Checking cpufreq OPP" tables), alternating A B A B on the same CPU.
# mhz is called as sbc-bench calls it: `mhz 1 1000000` to warm up, then `mhz 3 1000000`, whose
# three cpu_MHz values give the median of that call.
#
#   MHZ=/path/to/mhz bench/clock_vs_mhz.sh [PAIRS]      (default 10)
#
# mhz is not packaged by Debian: build it by hand from its public source (`cc -O2 -o mhz mhz.c`)
# outside this repository.
# Env: CPU (default: the last CPU allowed), TRUEBENCH (binary, default target/release/truebench,
#      built if missing).
set -euo pipefail
cd "$(dirname "$0")/.."

PAIRS=${1:-10}
MHZ=${MHZ:-$(command -v mhz || true)}
[ -x "$MHZ" ] || { echo "set MHZ to an mhz binary (built by hand from its source)" >&2; exit 1; }
command -v taskset >/dev/null || { echo "taskset not found: apt-get install -y util-linux" >&2; exit 1; }
TRUEBENCH=${TRUEBENCH:-target/release/truebench}
if [ ! -x "$TRUEBENCH" ]; then
  CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1} cargo build -q --release -p truebench
fi
CPU=${CPU:-$(taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' | tail -1 | sed 's/.*-//')}

median() { sort -g | awk '{v[NR]=$1} END{print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
cv() { awk '{s+=$1; q+=$1*$1; n++} END{m=s/n; printf "%.3f", (n>1) ? sqrt((q-n*m*m)/(n-1))/m*100 : 0}'; }
tb() { "$TRUEBENCH" clocks --bench-probe --cpu "$CPU" | tr ' ' '\n' | sed -n 's/^mhz=//p'; }
mhz() {
  taskset -c "$CPU" "$MHZ" 1 1000000 >/dev/null
  taskset -c "$CPU" "$MHZ" 3 1000000 | sed -n 's/.*cpu_MHz=\([0-9.]*\).*/\1/p' | median
}

echo "machine: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), $(uptime | sed 's/.*load/load/')"
echo "cpu $CPU, truebench $($TRUEBENCH --version), mhz $MHZ"
printf '%-5s %12s %12s %8s\n' pair truebench mhz ratio
tbs=() mhzs=()
for p in $(seq 1 "$PAIRS"); do
  t=$(tb)
  m=$(mhz)
  printf '%-5s %12.1f %12.1f %8.4f\n' "$p" "$t" "$m" "$(awk -v a="$t" -v b="$m" 'BEGIN{print a/b}')"
  tbs+=("$t") mhzs+=("$m")
done
tm=$(printf '%s\n' "${tbs[@]}" | median)
mm=$(printf '%s\n' "${mhzs[@]}" | median)
echo
printf 'median MHz  truebench %.1f  mhz %.1f  ratio %.4f\n' "$tm" "$mm" "$(awk -v a="$tm" -v b="$mm" 'BEGIN{print a/b}')"
printf 'CV %%        truebench %s  mhz %s   (%s)\n' "$(printf '%s\n' "${tbs[@]}" | cv)" "$(printf '%s\n' "${mhzs[@]}" | cv)" "$(uptime | sed 's/.*load/load/')"
