#!/usr/bin/env bash
# truebench's clock kernel vs 7-Zip's own clock probe ("1T CPU Freq (MHz):" of `7zz b`), run
# alternately A B A B on the same CPU: PAIRS pairs on a quiet machine, then PAIRS pairs with a
# busy loop on another CPU. Where the PMU counts cycles (real boards), `perf stat -e cycles`
# over the truebench probe is a third, counter-based reference.
#
#   bench/clock_vs_7zip.sh [PAIRS]        (default 10; needs: 7zz from Debian's 7zip, taskset;
#                                          optional: stress-ng, perf)
# Env: CPU (measured CPU, default the last one allowed), LOAD_CPU (default the first other one),
#      TRUEBENCH (binary, default target/release/truebench, built if missing).
#
# Prints per condition: both medians and their ratio, both run-to-run CVs and their ratio,
# truebench's "effective" figure (its cycles over mean loop times, disturbances included, i.e.
# what a plain timed loop like 7-Zip's sees) vs 7-Zip, and the time per truebench measurement.
set -euo pipefail
cd "$(dirname "$0")/.."

PAIRS=${1:-10}
command -v 7zz >/dev/null || { echo "7zz not found: apt-get install -y 7zip" >&2; exit 1; }
command -v taskset >/dev/null || { echo "taskset not found (util-linux)" >&2; exit 1; }
TRUEBENCH=${TRUEBENCH:-target/release/truebench}
if [ ! -x "$TRUEBENCH" ]; then
  CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1} cargo build -q --release -p truebench
fi

allowed=$(taskset -pc $$ | sed 's/.*: //')
expand() { # "0-2,5" -> "0 1 2 5"
  local out="" part
  for part in ${1//,/ }; do
    if [[ $part == *-* ]]; then out="$out $(seq "${part%-*}" "${part#*-}" | tr '\n' ' ')"; else out="$out $part"; fi
  done
  echo $out
}
cpus=($(expand "$allowed"))
CPU=${CPU:-${cpus[-1]}}
LOAD_CPU=${LOAD_CPU:-}
if [ -z "$LOAD_CPU" ]; then
  for c in "${cpus[@]}"; do [ "$c" != "$CPU" ] && { LOAD_CPU=$c; break; }; done
  LOAD_CPU=${LOAD_CPU:-$CPU}
fi

tmp=$(mktemp -d)
load_pid=""
cleanup() {
  [ -n "$load_pid" ] && kill "$load_pid" 2>/dev/null && wait "$load_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

# 7-Zip: start the benchmark, keep the CPU Freq line, stop it there (the rest is LZMA).
# Its figure is the median of the line's values (7 loops of 64M…2048M dependent add/xor).
sevenzip() { # [chrt -f 1]: the same probe at real-time priority, like truebench's
  local line="" pid
  coproc Z { exec "$@" taskset -c "$CPU" stdbuf -oL 7zz b -mmt1 2>&1; }
  pid=$Z_PID
  while IFS= read -r -u "${Z[0]}" line; do
    case $line in *"CPU Freq (MHz):"*) break ;; esac
  done
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  echo "${line#*:}" | tr -s ' ' '\n' | grep -E '^[0-9]+$' | sort -n |
    awk '{a[NR]=$1} END {if (NR==0) print "nan"; else if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'
}

# truebench: one measurement (3 samples) through the hidden bench entry point.
truebench() {
  "$TRUEBENCH" clocks --bench-probe --cpu "$CPU"
}

field() { # key line
  tr ' ' '\n' <<<"$2" | sed -n "s/^$1=//p"
}

# 7-Zip a second time at SCHED_FIFO (as truebench runs when allowed): same scheduling, so the
# remaining difference is the method, not who else wanted the CPU.
rt_ok=false
if command -v chrt >/dev/null && chrt -f 1 true 2>/dev/null; then rt_ok=true; fi

# perf's cycles over task-clock of a truebench probe: the counter's average clock while it ran.
perf_ok=false
if command -v perf >/dev/null && perf stat -x, -e cycles true 2>&1 | grep -qv "not supported\|not counted\|<not"; then
  perf stat -x, -e cycles true >/dev/null 2>&1 && perf_ok=true
fi
perf_mhz() {
  perf stat -x, -e cycles,task-clock -- taskset -c "$CPU" "$TRUEBENCH" clocks --bench-probe --cpu "$CPU" 2>"$tmp/perf" >/dev/null
  awk -F, '$3=="cycles"{c=$1} $3=="task-clock"{t=$1} END {if (c>0 && t>0) printf "%.1f\n", c/(t*1000); else print "nan"}' "$tmp/perf"
}

run_pairs() { # label
  local label=$1 i tb z
  : >"$tmp/$label.tb"; : >"$tmp/$label.z"; : >"$tmp/$label.eff"; : >"$tmp/$label.ms"; : >"$tmp/$label.perf"; : >"$tmp/$label.zrt"
  for ((i = 0; i < PAIRS; i++)); do
    tb=$(truebench)
    field mhz "$tb" >>"$tmp/$label.tb"
    field effective "$tb" >>"$tmp/$label.eff"
    field ms "$tb" >>"$tmp/$label.ms"
    sevenzip >>"$tmp/$label.z"
    if $rt_ok; then sevenzip chrt -f 1 >>"$tmp/$label.zrt"; fi
    if $perf_ok; then perf_mhz >>"$tmp/$label.perf"; fi
  done
}

stats() { # file -> "median mean cv%"
  sort -n "$1" | awk '{a[NR]=$1; s+=$1; q+=$1*$1} END {
    m = (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2; mean = s/NR;
    var = q/NR - mean*mean; if (var < 0) var = 0;
    printf "%.1f %.1f %.3f\n", m, mean, 100*sqrt(var)/mean }'
}

report() { # label
  local l=$1 tb z eff ms
  read -r tb_med _ tb_cv < <(stats "$tmp/$l.tb")
  read -r z_med _ z_cv < <(stats "$tmp/$l.z")
  read -r eff_med _ eff_cv < <(stats "$tmp/$l.eff")
  read -r ms_med _ _ < <(stats "$tmp/$l.ms")
  ms_max=$(sort -n "$tmp/$l.ms" | tail -1)
  printf '%-6s median MHz   truebench %8.1f   7-Zip %8.1f   ratio %.4f\n' "$l" "$tb_med" "$z_med" "$(awk -v a="$tb_med" -v b="$z_med" 'BEGIN{print a/b}')"
  printf '%-6s CV %%         truebench %8.3f   7-Zip %8.3f   ratio %.4f\n' "$l" "$tb_cv" "$z_cv" "$(awk -v a="$tb_cv" -v b="$z_cv" 'BEGIN{print (b>0)?a/b:0}')"
  printf '%-6s effective    truebench %8.1f (CV %.3f %%)   ratio to 7-Zip %.4f\n' "$l" "$eff_med" "$eff_cv" "$(awk -v a="$eff_med" -v b="$z_med" 'BEGIN{print a/b}')"
  printf '%-6s time per truebench measurement: median %.1f ms, max %.1f ms\n' "$l" "$ms_med" "$ms_max"
  if $rt_ok; then
    read -r zr_med _ zr_cv < <(stats "$tmp/$l.zrt")
    printf '%-6s 7-Zip at SCHED_FIFO %8.1f (CV %.3f %%)   truebench/it %.4f   effective/it %.4f   CV ratio %.4f\n' "$l" "$zr_med" "$zr_cv" \
      "$(awk -v a="$tb_med" -v b="$zr_med" 'BEGIN{print a/b}')" "$(awk -v a="$eff_med" -v b="$zr_med" 'BEGIN{print a/b}')" \
      "$(awk -v a="$tb_cv" -v b="$zr_cv" 'BEGIN{print (b>0)?a/b:0}')"
  fi
  if $perf_ok; then
    read -r p_med _ p_cv < <(stats "$tmp/$l.perf")
    printf '%-6s perf cycles  %8.1f MHz (CV %.3f %%)   truebench/perf %.4f   7-Zip/perf %.4f\n' "$l" "$p_med" "$p_cv" \
      "$(awk -v a="$tb_med" -v b="$p_med" 'BEGIN{print a/b}')" "$(awk -v a="$z_med" -v b="$p_med" 'BEGIN{print a/b}')"
  fi
  printf '%-6s runs (MHz)   truebench %s\n' "$l" "$(tr '\n' ' ' <"$tmp/$l.tb")"
  printf '%-6s runs (MHz)   7-Zip     %s\n' "$l" "$(tr '\n' ' ' <"$tmp/$l.z")"
  if $rt_ok; then printf '%-6s runs (MHz)   7-Zip RT  %s\n' "$l" "$(tr '\n' ' ' <"$tmp/$l.zrt")"; fi
}

echo "clock_vs_7zip: cpu$CPU, $PAIRS alternating pairs per condition; load on cpu$LOAD_CPU; $(7zz 2>&1 | grep -m1 -o '7-Zip[^:]*'); perf cycles: $perf_ok; SCHED_FIFO for 7-Zip: $rt_ok"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
run_pairs quiet
if command -v stress-ng >/dev/null; then
  stress-ng --cpu 1 --taskset "$LOAD_CPU" --timeout 0 >/dev/null 2>&1 &
  load_what="stress-ng --cpu 1 --taskset $LOAD_CPU"
else
  taskset -c "$LOAD_CPU" sh -c 'while :; do :; done' &
  load_what="busy loop on cpu$LOAD_CPU"
fi
load_pid=$!
sleep 1
run_pairs load
kill "$load_pid" 2>/dev/null; wait "$load_pid" 2>/dev/null || true
load_pid=""
echo "load: $load_what"
report quiet
report load
# Why a plain timed loop reads low on a noisy machine: the longer its window, the more
# interrupts and stolen time it includes. truebench's kernel with longer trials shows it.
printf 'window sweep (the clock kernel, long-loop length → MHz):'
for us in 40 400 4000 20000; do
  printf ' %sus=%s' "$us" "$("$TRUEBENCH" clocks --bench-probe --cpu "$CPU" --trial-us "$us" | tr ' ' '\n' | sed -n 's/^mhz=//p')"
done
echo
