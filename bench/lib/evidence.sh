# Evidence for a benchmark figure: how much of the machine other processes used while it was
# measured. Source it, then around each measurement:
#
#   ev_start                 # before: /proc/stat and this session's processes
#   …measure…
#   ev_stop                  # after: sets EV_OTHERS (% of all CPUs used by other processes),
#                            # EV_LOAD ("0.12 → 0.35"), EV_VALID (1 or 0) and EV_LINE
#
# "Other processes" are everything outside this script's own process tree but kernel threads:
# the benchmark's tools, run from the script, are its own — with every process they start,
# also one that leaves their session, outlives them or is never waited for (interbench's
# loads); a build, a browser or another user's job are not; kernel threads (softirq, workers)
# do the network and storage work a benchmark causes, so they are shown apart and not held
# against the figure. The tree is a cgroup of its own (cgroup v2, else v1's cpuacct; as root),
# whose CPU time counts every process that was ever in it; without one, the script's session
# (setsid): utime + stime of its processes and of the children they waited for. The others'
# share is the machine's busy time (/proc/stat: user, nice, system, irq, softirq; steal is the
# hypervisor's and counted apart) minus the script's own, over the elapsed time × CPUs. A figure
# taken while others used more than EV_LIMIT % (default 3) is not valid: a vCPU shared with a
# build runs at half speed from one second to the next.
#
# Also: ev_median VALUES… (the median of the values given), used for the valid figures only;
# ev_wait_quiet SECONDS (waits, up to SECONDS, for a 3-second window in which the others stayed
# within the limit: a script started beside a long job measures once that job is done).

# A session of its own, so that only the benchmark's processes are "ours": sourced at the top
# of a script, before it changes directory, this re-runs the script under setsid.
if [ "$(awk '{print $4}' <<<"$(sed 's/.*) //' /proc/$$/stat)")" != "$$" ] && [ -z "${EV_REEXEC:-}" ]; then
  EV_REEXEC=1 exec setsid -w "$(readlink -f "$0")" "$@"
fi

EV_HZ=$(getconf CLK_TCK)
EV_CPUS=$(nproc)
EV_SID=$$

# This script's cgroup, every process it starts in it: EV_CG (its directory) and EV_CG_KIND
# (v2: cpu.stat's usage_usec, v1: cpuacct.usage in ns); empty without one (not root, no
# cgroup file system): the session is counted then. A cgroup left by an earlier script that
# has no process any more is removed.
ev_cgroup() {
  local base kind
  if [ -w /sys/fs/cgroup/cgroup.procs ]; then base=/sys/fs/cgroup kind=v2
  elif [ -w /sys/fs/cgroup/unified/cgroup.procs ]; then base=/sys/fs/cgroup/unified kind=v2
  elif [ -w /sys/fs/cgroup/cpuacct/tasks ]; then base=/sys/fs/cgroup/cpuacct kind=v1
  else return 0; fi
  local d
  for d in "$base"/truebench-bench-*; do
    [ -d "$d" ] && [ ! -s "$d/cgroup.procs" ] && rmdir "$d" 2>/dev/null || true
  done
  d="$base/truebench-bench-$$"
  mkdir -p "$d" 2>/dev/null && echo $$ >"$d/cgroup.procs" 2>/dev/null || return 0
  # Its time must be readable, or it counts for nothing.
  if [ $kind = v2 ] && ! grep -q '^usage_usec' "$d/cpu.stat" 2>/dev/null; then return 0; fi
  if [ $kind = v1 ] && [ ! -r "$d/cpuacct.usage" ]; then return 0; fi
  EV_CG=$d EV_CG_KIND=$kind
}
EV_CG='' EV_CG_KIND=''
ev_cgroup

# Jiffies of CPU time used in this script's cgroup so far.
ev_cg_jiffies() {
  if [ "$EV_CG_KIND" = v2 ]; then
    awk -v hz="$EV_HZ" '/^usage_usec/ {printf "%d", $2 * hz / 1e6}' "$EV_CG/cpu.stat"
  else
    awk -v hz="$EV_HZ" '{printf "%d", $1 * hz / 1e9}' "$EV_CG/cpuacct.usage"
  fi
}

EV_LIMIT=${EV_LIMIT:-3}

# Busy and steal jiffies of the whole machine.
ev_machine() {
  awk '/^cpu /{print $2+$3+$4+$7+$8, $9}' /proc/stat
}

# Jiffies used by the processes of this session (waited-for children included), and by
# kernel threads (children of kthreadd: softirq, workers — the network and storage work a
# benchmark causes runs there too, so it is not counted as the others').
ev_session() {
  local sum=0 kern=0 f line rest
  for f in /proc/[0-9]*/stat; do
    line=$(cat "$f" 2>/dev/null) || continue
    rest=${line##*) }
    # Fields after "comm)": state(3) ppid pgrp session ... utime(14) stime cutime cstime.
    set -- $rest
    if [ "${4:-}" = "$EV_SID" ]; then
      sum=$((sum + ${12} + ${13} + ${14} + ${15}))
    elif [ "${2:-}" = 2 ]; then
      kern=$((kern + ${12} + ${13}))
    fi
  done
  # The cgroup counts every process of the tree, also those its session misses.
  [ -n "$EV_CG" ] && sum=$(ev_cg_jiffies)
  echo "$sum $kern"
}

ev_start() {
  read -r EV_B0 EV_S0 <<<"$(ev_machine)"
  read -r EV_O0 EV_K0 <<<"$(ev_session)"
  EV_L0=$(cut -d' ' -f1 /proc/loadavg)
  EV_T0=$(date +%s.%N)
}

ev_stop() {
  local b1 s1 o1 k1 t1
  read -r b1 s1 <<<"$(ev_machine)"
  read -r o1 k1 <<<"$(ev_session)"
  t1=$(date +%s.%N)
  EV_LOAD="$EV_L0 → $(cut -d' ' -f1 /proc/loadavg)"
  # Processes of this session that ended without being waited for take their time with
  # them: the others' share is then overstated, never understated.
  read -r EV_OTHERS EV_STEAL EV_KERNEL <<<"$(awk -v b=$((b1 - EV_B0)) -v o=$((o1 - EV_O0)) -v k=$((k1 - EV_K0)) \
    -v st=$((s1 - EV_S0)) -v t="$(echo "$t1 - $EV_T0" | bc)" -v hz="$EV_HZ" -v n="$EV_CPUS" \
    'BEGIN { d = t * hz * n; if (k < 0) k = 0; x = (b - o - k) / d * 100; if (x < 0) x = 0; printf "%.1f %.1f %.1f", x, st / d * 100, k / d * 100 }')"
  if awk -v x="$EV_OTHERS" -v l="$EV_LIMIT" 'BEGIN { exit !(x <= l) }'; then
    EV_VALID=1
    EV_LINE="others ${EV_OTHERS} % of ${EV_CPUS} CPUs, kernel threads ${EV_KERNEL} %, steal ${EV_STEAL} %, load ${EV_LOAD}${EV_CG:+ (own: cgroup)}"
  else
    EV_VALID=0
    EV_LINE="others ${EV_OTHERS} % of ${EV_CPUS} CPUs, kernel threads ${EV_KERNEL} %, steal ${EV_STEAL} %, load ${EV_LOAD}${EV_CG:+ (own: cgroup)} — NOT VALID (over ${EV_LIMIT} %)"
  fi
}

ev_median() {
  # No values ("-"): printf still prints one empty line, which is not a value.
  printf '%s\n' "$@" | sort -g | awk 'NF {v[++n] = $1} END { if (n == 0) print "-"; else if (n % 2) print v[(n + 1) / 2]; else print (v[n / 2] + v[n / 2 + 1]) / 2 }'
}

ev_wait_quiet() {
  local until=$(( SECONDS + ${1:-0} )) said=''
  while [ "$SECONDS" -lt "$until" ]; do
    ev_start
    sleep 3
    ev_stop
    [ "$EV_VALID" = 1 ] && { [ -z "$said" ] || echo "quiet now: $EV_LINE"; return 0; }
    [ -n "$said" ] || { echo "waiting up to $1 s for a quiet machine: $EV_LINE"; said=1; }
  done
}
