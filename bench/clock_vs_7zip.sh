#!/usr/bin/env bash
# truebench's clock kernel vs 7-Zip's own clock probe ("1T CPU Freq (MHz):" of `7zz b`), run
# alternately A B, B A on the same CPU: PAIRS pairs on a quiet machine, then PAIRS pairs with a
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
#
# Each tool run (truebench's probe, 7-Zip, 7-Zip at SCHED_FIFO, perf, each point of the window
# sweep) is measured under bench/lib/evidence.sh and printed as it is taken with the other
# processes' share of the machine and the load; a figure taken while others used more than 3 %
# is marked not valid and left out of the medians, CVs and ratios. The load the script puts on
# LOAD_CPU is its own (in its session), so it is not counted as the others'. A truebench probe
# takes ~0.1 s: at 100 jiffies a second its evidence is coarse (one jiffy of another process is
# ~2 % on 2 CPUs).
. "$(dirname "$0")/lib/evidence.sh"
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."

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

# row LABEL PAIR TOOL FIGURE: after ev_stop, the figure with its evidence; true when it counts.
row() {
  if [ "$EV_VALID" = 1 ]; then
    printf '%-6s %4s  %-10s %10s  %s\n' "$1" "$2" "$3" "$4" "$EV_LINE"
  else
    printf '%-6s %4s  %-10s %10s  %s; left out\n' "$1" "$2" "$3" "$4" "$EV_LINE"
  fi
  [ "$EV_VALID" = 1 ]
}

run_pairs() { # label: each figure under its own evidence; only the valid ones go to the files
  local label=$1 i tb z
  : >"$tmp/$label.tb"; : >"$tmp/$label.z"; : >"$tmp/$label.eff"; : >"$tmp/$label.ms"; : >"$tmp/$label.perf"; : >"$tmp/$label.zrt"
  one_tb() {
    ev_start
    tb=$(truebench)
    ev_stop
    if row "$label" "$i" truebench "$(field mhz "$tb")"; then
      field mhz "$tb" >>"$tmp/$label.tb"
      field effective "$tb" >>"$tmp/$label.eff"
      field ms "$tb" >>"$tmp/$label.ms"
    fi
  }
  peers() {
    ev_start
    z=$(sevenzip)
    ev_stop
    if row "$label" "$i" 7-Zip "$z"; then echo "$z" >>"$tmp/$label.z"; fi
    if $rt_ok; then
      ev_start
      z=$(sevenzip chrt -f 1)
      ev_stop
      if row "$label" "$i" "7-Zip RT" "$z"; then echo "$z" >>"$tmp/$label.zrt"; fi
    fi
    if $perf_ok; then
      ev_start
      z=$(perf_mhz)
      ev_stop
      if row "$label" "$i" perf "$z"; then echo "$z" >>"$tmp/$label.perf"; fi
    fi
  }
  for ((i = 1; i <= PAIRS; i++)); do
    # Which side goes first alternates (odd pairs truebench): the order moves a figure.
    if ((i % 2)); then one_tb; peers; else peers; one_tb; fi
  done
}

stats() { # file -> "median mean cv%" of its (valid) figures, "- - -" when there are none
  local m
  # shellcheck disable=SC2046
  m=$(ev_median $(cat "$1"))
  awk -v m="$m" '{s+=$1; q+=$1*$1} END {
    if (NR == 0) { print "- - -"; exit }
    mean = s/NR; var = q/NR - mean*mean; if (var < 0) var = 0;
    printf "%.1f %.1f %.3f\n", m, mean, (mean > 0) ? 100*sqrt(var)/mean : 0 }' "$1"
}
# q A B: A/B to 4 decimals, "-" when either is missing; f1 X: X to 1 decimal or "-".
q() { awk -v a="$1" -v b="$2" 'BEGIN{ if (a == "-" || b == "-" || a == "" || b == "" || b == 0) print "-"; else printf "%.4f", a/b }'; }
f1() { awk -v x="$1" 'BEGIN{ if (x == "-" || x == "") print "-"; else printf "%.1f", x }'; }

report() { # label: over the valid figures only
  local l=$1 tb_med tb_cv z_med z_cv eff_med eff_cv ms_med ms_max zr_med zr_cv p_med p_cv
  read -r tb_med _ tb_cv < <(stats "$tmp/$l.tb")
  read -r z_med _ z_cv < <(stats "$tmp/$l.z")
  read -r eff_med _ eff_cv < <(stats "$tmp/$l.eff")
  read -r ms_med _ _ < <(stats "$tmp/$l.ms")
  ms_max=$(sort -n "$tmp/$l.ms" | tail -1)
  printf '%-6s valid figures: truebench %d, 7-Zip %d%s%s of %d\n' "$l" "$(wc -l <"$tmp/$l.tb")" "$(wc -l <"$tmp/$l.z")" \
    "$($rt_ok && echo ", 7-Zip RT $(wc -l <"$tmp/$l.zrt")")" "$($perf_ok && echo ", perf $(wc -l <"$tmp/$l.perf")")" "$PAIRS"
  printf '%-6s median MHz   truebench %8s   7-Zip %8s   ratio %s\n' "$l" "$(f1 "$tb_med")" "$(f1 "$z_med")" "$(q "$tb_med" "$z_med")"
  printf '%-6s CV %%         truebench %8s   7-Zip %8s   ratio %s\n' "$l" "$tb_cv" "$z_cv" "$(q "$tb_cv" "$z_cv")"
  printf '%-6s effective    truebench %8s (CV %s %%)   ratio to 7-Zip %s\n' "$l" "$(f1 "$eff_med")" "$eff_cv" "$(q "$eff_med" "$z_med")"
  printf '%-6s time per truebench measurement: median %s ms, max %s ms\n' "$l" "$(f1 "$ms_med")" "$(f1 "$ms_max")"
  if $rt_ok; then
    read -r zr_med _ zr_cv < <(stats "$tmp/$l.zrt")
    printf '%-6s 7-Zip at SCHED_FIFO %8s (CV %s %%)   truebench/it %s   effective/it %s   CV ratio %s\n' "$l" "$(f1 "$zr_med")" "$zr_cv" \
      "$(q "$tb_med" "$zr_med")" "$(q "$eff_med" "$zr_med")" "$(q "$tb_cv" "$zr_cv")"
  fi
  if $perf_ok; then
    read -r p_med _ p_cv < <(stats "$tmp/$l.perf")
    printf '%-6s perf cycles  %8s MHz (CV %s %%)   truebench/perf %s   7-Zip/perf %s\n' "$l" "$(f1 "$p_med")" "$p_cv" \
      "$(q "$tb_med" "$p_med")" "$(q "$z_med" "$p_med")"
  fi
  printf '%-6s runs (MHz)   truebench %s\n' "$l" "$(tr '\n' ' ' <"$tmp/$l.tb")"
  printf '%-6s runs (MHz)   7-Zip     %s\n' "$l" "$(tr '\n' ' ' <"$tmp/$l.z")"
  if $rt_ok; then printf '%-6s runs (MHz)   7-Zip RT  %s\n' "$l" "$(tr '\n' ' ' <"$tmp/$l.zrt")"; fi
}

echo "clock_vs_7zip: cpu$CPU, $PAIRS alternating pairs per condition; load on cpu$LOAD_CPU; $(7zz 2>&1 | grep -m1 -o '7-Zip[^:]*'); perf cycles: $perf_ok; SCHED_FIFO for 7-Zip: $rt_ok"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %4s  %-10s %10s  %s\n' cond pair tool MHz evidence
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
echo "(runs: the valid figures only)"
report quiet
report load
# Why a plain timed loop reads low on a noisy machine: the longer its window, the more
# interrupts and stolen time it includes. truebench's kernel with longer trials shows it.
echo 'window sweep (the clock kernel, long-loop length → MHz), each point with its evidence:'
for us in 40 400 4000 20000; do
  ev_start
  sw=$("$TRUEBENCH" clocks --bench-probe --cpu "$CPU" --trial-us "$us" | tr ' ' '\n' | sed -n 's/^mhz=//p')
  ev_stop
  if [ "$EV_VALID" = 1 ]; then
    printf '  %sus=%s  %s\n' "$us" "$sw" "$EV_LINE"
  else
    printf '  %sus=%s  %s; this point is not valid\n' "$us" "$sw" "$EV_LINE"
  fi
done
