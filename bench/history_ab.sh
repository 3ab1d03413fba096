#!/usr/bin/env bash
# Two truebench builds side by side on one filled history (a change's before and after): in
# ROUNDS rounds that alternate which build goes first, each build runs
#   history --kind run --device HOST     one machine's runs
#   history --since DATE                 the last 1 % of the results
#   compare A B                          that machine's last two runs
#   import ONE.json                      storing one more result (a new host name each time)
# as a user runs them (the whole process, output to /dev/null), and the medians of each are
# printed with the ratio NEW / OLD, over the rounds in which nothing else ran
# (bench/lib/evidence.sh).
#
#   bench/history_ab.sh FILL DB NEW OLD [ROUNDS]
# FILL: what crates/fixtures/examples/fill_history.rs printed when it filled DB (host=, since=,
# a=, b=); DB: the SQLite file or postgresql:// URL (each round stores two results in it);
# NEW, OLD: the two truebench binaries; ROUNDS: default 5. QUIET_WAIT (seconds, default 0): each round first waits for a quiet
# machine. A build that opens a history written by an older one may change it when it opens
# it (the store's layout): run NEW once before timing, so its first open is not timed.
# SERVER_PID: the PostgreSQL server DB is on (its postmaster), when it runs outside this script
# (e.g. crates/fixtures/examples/pg_server.rs): it and its processes are moved into this
# script's cgroup, so its work for the commands counts as theirs, not as others' activity.
. "$(dirname "$0")/lib/evidence.sh"
set -euo pipefail
if [ -n "${SERVER_PID:-}" ]; then
  [ -n "$EV_CG" ] || { echo "SERVER_PID: needs a cgroup of this script's own (root, cgroup file system)" >&2; exit 2; }
  for p in "$SERVER_PID" $(pgrep -P "$SERVER_PID"); do echo "$p" >"$EV_CG/cgroup.procs"; done
fi
[ $# -ge 4 ] || { awk 'NR > 1 && /^#/ { print; next } NR > 1 { exit }' "$0"; exit 2; }
FILL=$1 DB=$2 NEW=$3 OLD=$4 ROUNDS=${5:-5}
for b in "$NEW" "$OLD"; do [ -x "$b" ] || { echo "not an executable: $b" >&2; exit 2; }; done
HOST=$(sed -n 's/^host=//p' "$FILL")
SINCE=$(sed -n 's/^since=//p' "$FILL")
A=$(sed -n 's/^a=//p' "$FILL")
B=$(sed -n 's/^b=//p' "$FILL")
[ -n "$HOST" ] && [ -n "$SINCE" ] && [ -n "$A" ] && [ -n "$B" ] \
  || { echo "$FILL: expected host=, since=, a= and b= lines (fill_history's output)" >&2; exit 2; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export XDG_DATA_HOME=$TMP/xdg TRUEBENCH_LOCK_DIR=$TMP

# ms COMMAND…: run it, set MS (wall milliseconds).
ms() {
  local t0 t1
  t0=$(date +%s%N)
  "$@" >/dev/null 2>"$TMP/err" || { echo "failed: $* — $(tail -2 "$TMP/err")" >&2; return 1; }
  t1=$(date +%s%N)
  MS=$(( (t1 - t0) / 1000000 ))
}

declare -A T
names=(device since compare store)
KIND=$(dirname "$(readlink -f "$0")")/../crates/render/tests/data/kinds/monitor.json
run_build() {
  local which=$1 bin=$2 round=$3
  ms "$bin" history --db "$DB" --kind run --device "$HOST"; T[$which,device]+=" $MS"
  ms "$bin" history --db "$DB" --since "$SINCE"; T[$which,since]+=" $MS"
  ms "$bin" compare --db "$DB" "$A" "$B"; T[$which,compare]+=" $MS"
  python3 - "$KIND" "$TMP/one.json" "bench-ab-$which-$round-$$" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d['envelope']['hostname'] = sys.argv[3]
json.dump(d, open(sys.argv[2], 'w'))
EOF
  ms "$bin" import --db "$DB" "$TMP/one.json"; T[$which,store]+=" $MS"
}
echo "machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $ROUNDS rounds on $DB"
left=0
for r in $(seq "$ROUNDS"); do
  [ "${QUIET_WAIT:-0}" -gt 0 ] && ev_wait_quiet "$QUIET_WAIT"
  ev_start
  for which in $( ((r % 2)) && echo "new old" || echo "old new"); do
    if [ "$which" = new ]; then run_build new "$NEW" "$r"; else run_build old "$OLD" "$r"; fi
  done
  ev_stop
  echo "round $r: new $(for n in "${names[@]}"; do echo -n "${T[new,$n]##* } "; done)/ old $(for n in "${names[@]}"; do echo -n "${T[old,$n]##* } "; done)ms; $EV_LINE"
  if [ "$EV_VALID" != 1 ]; then
    # Left out: the last value of each list dropped.
    for k in "${!T[@]}"; do T[$k]=${T[$k]% *}; done
    left=$((left + 1))
  fi
done
printf '%-10s %10s %10s %8s\n' command "new ms" "old ms" ratio
for n in "${names[@]}"; do
  # shellcheck disable=SC2086
  a=$(ev_median ${T[new,$n]:-}) b=$(ev_median ${T[old,$n]:-})
  printf '%-10s %10s %10s %8s\n' "$n" "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')"
done
echo "rounds left out (others above the limit): $left of $ROUNDS"
