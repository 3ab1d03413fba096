#!/usr/bin/env bash
# Cost of monitoring: CPU time per sample and peak RSS of `truebench monitor --interval 0.1
# --json-lines` on this machine and on a synthetic 192-CPU root, against the cost of
# sbc-bench's way of producing one monitoring line (a shell that forks awk/cut/sed/date and
# command substitutions for every value: ~14 processes per line).
#
# Not a test: prints figures for BENCHMARKS.md. Usage: bench/monitor_cost.sh [SECONDS]
# (default 30). Needs: bash, awk, sed, cut, date (the emulated sbc-bench line).
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${1:-30}
export CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1}
cargo build --release -q -p truebench
cargo build --release -q -p truebench-monitor --example epyc_root --example sample_cost
TB=target/release/truebench
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
target/release/examples/epyc_root "$TMP/epyc192" 192 >/dev/null

# CPU time of every thread of PID, in ns (schedstat: sum_exec_runtime; tick-free).
cpu_ns() {
  local total=0 t
  for t in /proc/"$1"/task/*/schedstat; do
    read -r ns _ <"$t" || continue
    total=$((total + ns))
  done
  echo "$total"
}

# run_monitor LABEL ARGS…: prints "LABEL samples cpu_ns peak_rss_kib"
run_monitor() {
  local label=$1
  shift
  "$TB" monitor --interval 0.1 --json-lines "$@" >"$TMP/out.jsonl" &
  local pid=$!
  sleep "$SECS"
  local ns rss
  ns=$(cpu_ns "$pid")
  rss=$(awk '/^VmHWM:/ {print $2}' /proc/"$pid"/status)
  kill -INT "$pid"
  wait "$pid" || true
  local n
  n=$(wc -l <"$TMP/out.jsonl")
  echo "$label $n $ns $rss"
}

# One sbc-bench monitoring line (singlecluster case of MonitorBoard, same commands and command
# substitutions), reading this machine's /proc and a stand-in for the cpufreq and thermal
# files (this VM has neither).
echo 45000 >"$TMP/temp"
echo 1800000 >"$TMP/freq"
sbc_line() {
  local LoadAvg SocTemp procStatLine Total=0 s CPULoad SystemLoad UserLoad NiceLoad IOWaitLoad IrqLoad CpuFreq procStats
  LoadAvg=$(cut -f1 -d" " </proc/loadavg)
  SocTemp=$(read_temp)
  procStatLine=($(sed -n 's/^cpu\s//p' /proc/stat))
  for s in "${procStatLine[@]}"; do Total=$((Total + s)); done
  CPULoad=$(( (Total - procStatLine[3]) * 100 / Total ))
  SystemLoad=$((procStatLine[2] * 100 / Total)); UserLoad=$((procStatLine[0] * 100 / Total))
  NiceLoad=$((procStatLine[1] * 100 / Total)); IOWaitLoad=$((procStatLine[4] * 100 / Total))
  IrqLoad=$(( (procStatLine[5] + procStatLine[6]) * 100 / Total ))
  procStats=$(echo -e "$(printf "%3s" ${CPULoad})%$(printf "%4s" ${SystemLoad})%$(printf "%4s" ${UserLoad})%$(printf "%4s" ${NiceLoad})%$(printf "%4s" ${IOWaitLoad})%$(printf "%4s" ${IrqLoad})%")
  CpuFreq=$(awk '{printf ("%0.0f",$1/1000); }' <"$TMP/freq")
  printf "%s: %4sMHz %5s %s %8s\n" "$(date "+%H:%M:%S")" "${CpuFreq}" "${LoadAvg}" "${procStats}" "${SocTemp}°C"
}
read_temp() {
  local RawTemp
  read -r RawTemp <"$TMP/temp"
  RawTemp=$(awk '{printf ("%0.1f",$1/1000); }' <<<"${RawTemp}")
  echo -e "${RawTemp}"
}

echo "machine: $(nproc) CPUs, $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo), kernel $(uname -r)"
echo "running truebench monitor --interval 0.1 --json-lines for ${SECS}s each…"
read -r _ n_live ns_live rss_live < <(run_monitor live)
read -r _ n_192 ns_192 rss_192 < <(run_monitor epyc192 --root "$TMP/epyc192")

# sbc-bench emulation: N lines back to back, CPU time of the shell and all its children.
N=200
t0=$(date +%s%N)
cpu_before=$(awk '{print $14+$15+$16+$17}' /proc/$$/stat)
for ((i = 0; i < N; i++)); do sbc_line >/dev/null; done
cpu_after=$(awk '{print $14+$15+$16+$17}' /proc/$$/stat)
t1=$(date +%s%N)
tck=$(getconf CLK_TCK)
sbc_us=$(awk -v a="$cpu_before" -v b="$cpu_after" -v t="$tck" -v n="$N" 'BEGIN {printf "%.0f", (b-a)/t*1e6/n}')
wall_us=$(awk -v a="$t0" -v b="$t1" -v n="$N" 'BEGIN {printf "%.0f", (b-a)/1e3/n}')
forks=$( (strace -f -c -e trace=clone,clone3,fork,vfork bash -c "$(declare -f sbc_line read_temp); TMP=$TMP; sbc_line >/dev/null" 2>&1 >/dev/null || true) | awk '/clone|fork/ {s+=$4} END {print s+0}')

per() { awk -v ns="$1" -v n="$2" 'BEGIN {if (n > 0) printf "%.1f", ns/1e3/n; else print "n/a"}'; }
live_us=$(per "$ns_live" "$n_live")
e192_us=$(per "$ns_192" "$n_192")
echo
printf "%-46s %10s %12s %10s\n" "" "samples" "CPU/sample" "peak RSS"
printf "%-46s %10s %10s µs %7s MiB\n" "truebench monitor, this machine" "$n_live" "$live_us" "$(awk -v k="$rss_live" 'BEGIN {printf "%.1f", k/1024}')"
printf "%-46s %10s %10s µs %7s MiB\n" "truebench monitor, 192-CPU root (files only)" "$n_192" "$e192_us" "$(awk -v k="$rss_192" 'BEGIN {printf "%.1f", k/1024}')"
printf "%-46s %10s %10s µs %11s\n" "sbc-bench monitoring line (emulated)" "$N" "$sbc_us" "-"
echo "sbc-bench line: ${wall_us} µs wall each; processes forked per line: ${forks} (strace; 0 = strace not installed)"
awk -v a="$sbc_us" -v b="$live_us" 'BEGIN {if (b > 0) printf "ratio sbc-bench / truebench CPU per line: %.0fx\n", a/b}'
echo "targets: <= 100 µs CPU per sample, <= 10 MiB RSS"
echo
echo "breakdown (reading only, no thread, no output):"
target/release/examples/sample_cost / 2000
target/release/examples/sample_cost "$TMP/epyc192" 2000
