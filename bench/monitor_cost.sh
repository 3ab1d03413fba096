#!/usr/bin/env bash
# Cost of monitoring: CPU time per sample and peak RSS of `truebench monitor --interval 0.1
# --json-lines` on this machine, judged two ways:
#  - against a reference loop in C compiled here at run time (nothing compiled is kept): one
#    absolute timed wake-up per interval, a pread(2) of every /proc and /sys file truebench
#    keeps open (taken from its /proc/PID/fd), and one line written to stdout, at the same
#    nice 19 as truebench's sampling. On a VM the timed wake-up and the cold reads dominate
#    both, so the ratio says what truebench adds to the unavoidable. The loop runs twice: with
#    a short line (its counters), and with its line padded to the length of truebench's JSON
#    lines — storing the bytes is the kernel's work for any monitor printing that much, so
#    the second ratio is what truebench's parsing and formatting add;
#  - against sbc-bench's way of producing one monitoring line (a shell that forks
#    awk/cut/sed/date and command substitutions for every value: ~14 processes per line).
# The three run one after the other, RUNS rounds, the order rotating each round, so load
# from elsewhere and drift hit all alike; the medians and the median of the per-round ratios
# are printed with the load average. On a VM a loop's cost moves by ±30 % from one few-second
# window to the next (two identical C loops run at once differ as much), so many short
# rounds say more than a few long ones. Then the same monitor on a synthetic 192-CPU root,
# and the reading cost alone.
#
# Not a test: prints figures for BENCHMARKS.md. Usage: bench/monitor_cost.sh [SECONDS] [ROUNDS]
# (default 10 and 12). Needs: bash, awk, sed, cut, date, cc (the C reference loop).
. "$(dirname "$0")/lib/evidence.sh"
. "$(dirname "$0")/lib/cpu_ns.sh"
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."
SECS=${1:-10}
RUNS=${2:-12}
export CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1}
cargo build --release -q -p truebench
cargo build --release -q -p truebench-monitor --example epyc_root --example sample_cost
TB=target/release/truebench
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
target/release/examples/epyc_root "$TMP/epyc192" 192 >/dev/null

# The C reference loop (bench/lib/ref_loop.c), with -l BYTES its line padded to BYTES.
cc -O2 -o "$TMP/ref" bench/lib/ref_loop.c

# measure PID OUTFILE: after a 1 s warm-up (start-up and the first sample excluded), CPU
# time and lines written over SECS; prints "samples cpu_ns peak_rss_kib".
measure() {
  local pid=$1 out=$2 n0 c0 n1 c1 rss
  sleep 1
  n0=$(wc -l <"$out")
  c0=$(cpu_ns "$pid")
  sleep "$SECS"
  n1=$(wc -l <"$out")
  c1=$(cpu_ns "$pid")
  rss=$(awk '/^VmHWM:/ {print $2}' /proc/"$pid"/status)
  echo "$((n1 - n0)) $((c1 - c0)) $rss"
}

# run_monitor ARGS…: prints "samples cpu_ns peak_rss_kib"; leaves the /proc and /sys files
# it keeps open in $TMP/files.
run_monitor() {
  "$TB" monitor --interval 0.1 --json-lines "$@" >"$TMP/out.jsonl" &
  local pid=$! r f
  sleep 0.5
  for f in /proc/"$pid"/fd/*; do readlink "$f" || true; done | grep -E '^/(proc|sys)/' >"$TMP/files" || true
  r=$(measure "$pid" "$TMP/out.jsonl")
  kill -INT "$pid"
  wait "$pid" || true
  echo "$r"
}

# run_ref LINE_BYTES: the C loop; prints "samples cpu_ns peak_rss_kib".
run_ref() {
  local files
  mapfile -t files <"$TMP/files"
  # At nice 19, like truebench's sampling thread (sbc-bench renices its monitor too).
  nice -n 19 "$TMP/ref" -l "$1" "${files[@]}" >"$TMP/ref.out" &
  local pid=$! r
  r=$(measure "$pid" "$TMP/ref.out")
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  echo "$r"
}

per() { awk -v ns="$1" -v n="$2" 'BEGIN {if (n > 0) printf "%.1f", ns/1e3/n; else print "n/a"}'; }
median() { sort -g | awk '{v[NR]=$1} END {if (NR == 0) print "n/a"; else if (NR % 2) print v[(NR+1)/2]; else printf "%.2f\n", (v[NR/2]+v[NR/2+1])/2}'; }

echo "machine: $(nproc) CPUs, $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo), kernel $(uname -r)"
echo "truebench monitor --interval 0.1 --json-lines vs the C reference loop (short line; line as long as truebench's), ${SECS}s each, ${RUNS} rounds, order rotating:"
printf "%4s %6s %10s %10s %10s %10s %7s %7s %6s  %s\n" round load1 "tb µs/smp" "tb RSS" "C µs/smp" "C= µs/smp" "tb/C" "tb/C=" bytes "evidence (the whole round)"
: >"$TMP/tb" >"$TMP/c" >"$TMP/ceq" >"$TMP/ratio" >"$TMP/ratio_eq" >"$TMP/load"
rss_max=0
line_bytes=0
for ((i = 1; i <= RUNS; i++)); do
  load=$(cut -d' ' -f1 /proc/loadavg)
  ev_start
  # Round i starts with the (i mod 3)-th of the three; truebench first in round 1, so the
  # padded loop knows the length of its lines.
  for k in 0 1 2; do
    case $(((i - 1 + k) % 3)) in
      0)
        read -r n_tb ns_tb rss < <(run_monitor)
        line_bytes=$(wc -lc <"$TMP/out.jsonl" | awk '{print ($1 ? int($2 / $1) : 0)}')
        ;;
      1) read -r n_c ns_c _ < <(run_ref 0) ;;
      2) read -r n_ceq ns_ceq _ < <(run_ref "$line_bytes") ;;
    esac
  done
  ev_stop
  tb_us=$(per "$ns_tb" "$n_tb")
  c_us=$(per "$ns_c" "$n_c")
  ceq_us=$(per "$ns_ceq" "$n_ceq")
  ratio=$(awk -v a="$tb_us" -v b="$c_us" 'BEGIN {if (b > 0) printf "%.2f", a/b; else print "n/a"}')
  ratio_eq=$(awk -v a="$tb_us" -v b="$ceq_us" 'BEGIN {if (b > 0) printf "%.2f", a/b; else print "n/a"}')
  # Only figures of a quiet machine count towards the medians.
  if [ "$EV_VALID" = 1 ]; then
    echo "$tb_us" >>"$TMP/tb"
    echo "$c_us" >>"$TMP/c"
    echo "$ceq_us" >>"$TMP/ceq"
    echo "$ratio" >>"$TMP/ratio"
    echo "$ratio_eq" >>"$TMP/ratio_eq"
    echo "$load" >>"$TMP/load"
  fi
  ((rss > rss_max)) && rss_max=$rss
  printf "%5s %6s %10s %6.1f MiB %10s %10s %7s %7s %6s  %s\n" "$i" "$load" "$tb_us" "$(awk -v k="$rss" 'BEGIN {print k/1024}')" "$c_us" "$ceq_us" "$ratio" "$ratio_eq" "$line_bytes" "$EV_LINE"
done
echo "files read per sample: $(tr '\n' ' ' <"$TMP/files")"
echo "valid rounds: $(wc -l <"$TMP/ratio") of $RUNS"
ratio_of() { awk -v a="$(median <"$1")" -v b="$(median <"$2")" 'BEGIN {if (b > 0) printf "%.2f", a/b; else print "n/a"}'; }
echo "median: truebench $(median <"$TMP/tb") µs/sample, C loop $(median <"$TMP/c") (short line) and $(median <"$TMP/ceq") (${line_bytes}-byte line) µs/sample (load1 median $(median <"$TMP/load"), now $(cut -d' ' -f1-3 /proc/loadavg)); peak RSS $(awk -v k="$rss_max" 'BEGIN {printf "%.1f", k/1024}') MiB"
echo "ratio to the short-line loop: median of rounds $(median <"$TMP/ratio"), of medians $(ratio_of "$TMP/tb" "$TMP/c")"
echo "ratio to the same-length loop: median of rounds $(median <"$TMP/ratio_eq"), of medians $(ratio_of "$TMP/tb" "$TMP/ceq")"
echo "targets: <= 100 µs CPU per sample, <= 10 MiB RSS"

read -r n_192 ns_192 rss_192 < <(run_monitor --root "$TMP/epyc192")
printf "192-CPU root (files only): %s µs/sample, %s MiB peak RSS, %s samples\n" "$(per "$ns_192" "$n_192")" "$(awk -v k="$rss_192" 'BEGIN {printf "%.1f", k/1024}')" "$n_192"

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
echo "sbc-bench monitoring line (emulated): ${sbc_us} µs CPU, ${wall_us} µs wall each; processes forked per line: ${forks} (strace; 0 = strace not installed)"
awk -v a="$sbc_us" -v b="$(median <"$TMP/tb")" 'BEGIN {if (b > 0) printf "ratio sbc-bench / truebench CPU per line: %.0fx\n", a/b}'
echo
echo "breakdown (reading only, no thread, no output):"
target/release/examples/sample_cost / 2000
target/release/examples/sample_cost "$TMP/epyc192" 2000
