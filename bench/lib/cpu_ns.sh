# CPU time of every thread of a process, in ns: the sum of sum_exec_runtime over
# /proc/PID/task/*/schedstat (tick-free, user + kernel). Source it; usage: cpu_ns PID.
cpu_ns() {
  local total=0 t ns
  for t in /proc/"$1"/task/*/schedstat; do
    read -r ns _ <"$t" || continue
    total=$((total + ns))
  done
  echo "$total"
}
