#!/usr/bin/env bash
# The history at a fleet's scale: for each N (default 100000 1000000), fills an SQLite history
# and a private PostgreSQL server's with N results of a generated fleet
# (crates/fixtures/src/fleet.rs: the repository's documents and sbc-bench logs on many
# machines, SoCs, kernels, distributions and dates over three years), then times, in REPEATS
# rounds that alternate which back end goes first, each command as a user runs it (the whole
# process: start, open, query, output to /dev/null) with its peak RSS:
#   history --kind run --device HOST     one machine's runs (targets: ≤ 100 ms)
#   history --since DATE                 the last 1 % of the results (≤ 100 ms)
#   compare A B                          that machine's last two runs (≤ 100 ms)
#   latest                               serve's store call per refresh: the latest result of
#                                        every kind, in process (≤ 10 ms); and one first scrape
#                                        of `serve --db` (its families computed, uncached)
#   store                                import of one more result document (≤ 50 ms)
#   import                               every sbc-bench log of tests/data (≤ 10 s): round 1
#                                        stores them, later rounds find them stored
# and prints the median of each over the rounds (figures taken while other processes used
# more than bench/lib/evidence.sh's limit are left out and counted), the history's size on
# disk, and the machine's other activity per round.
#
#   bench/history_scale.sh [N…]
# Env: BACKENDS (default "sqlite postgres"; one of them alone: a 10⁶ history in PostgreSQL
# fits where the SQLite one does not), REPEATS (default 5), PROFILE (release; debug builds quicker, times are not comparable),
# BASELINE (another truebench build, e.g. the commit before a change: its `compare` is timed
# beside this build's in every round, alternating which goes first, and both medians printed),
# QUIET_WAIT (seconds to wait before each round for the machine to be quiet, default 0: a long
# fill can run beside other work, and the rounds wait for it to end), HISTORY_DIR (where the
# histories and the server's data go; default a new folder in /var/tmp, removed at the end;
# given, its SQLite histories are kept there, each N's beside the next). An N whose histories would not fit the free space there (about 40 kB a
# result in SQLite and 15 kB in PostgreSQL, the generated documents' size) is skipped, said.
# PostgreSQL: Debian's server binaries (the tests' helper, crates/fixtures/src/pg.rs); without
# them only SQLite is measured. Peak RSS is truebench's own, not the server's.
. "$(dirname "$0")/lib/evidence.sh"
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(100000 1000000)
REPEATS=${REPEATS:-5}
PROFILE=${PROFILE:-release}
flag=--release
[ "$PROFILE" = release ] || flag=
export CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1}
cargo build $flag -q -p truebench
cargo build $flag -q -p truebench-fixtures --features fleet --example fill_history --example history_latest --example pg_server
TB=$PWD/target/$PROFILE/truebench
EX=$PWD/target/$PROFILE/examples
KEEP=${HISTORY_DIR:-}
DIR=${KEEP:-$(mktemp -d -p /var/tmp truebench-history-scale.XXXXXX)}
mkdir -p "$DIR"
# Run as root, the server runs as `postgres`: it must reach its folder inside.
chmod 755 "$DIR"
# The server's cluster goes there too (its temporary folder), not to a RAM-backed /tmp.
export TMPDIR=$DIR
PIDS=()
SERVE=''
cleanup() {
  exec 3>&- 2>/dev/null || true
  for p in "${PIDS[@]}" $SERVE; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  [ -n "$KEEP" ] || rm -rf "$DIR"
}
trap cleanup EXIT
export XDG_DATA_HOME=$DIR/xdg TRUEBENCH_LOCK_DIR=$DIR

# The corpus's logs, and a result document to store once per round (a new host name each).
mkdir -p "$DIR/logs"
tar xzf tests/data/sbc-bench/results.tar.gz -C "$DIR/logs"
LOGS=$DIR/logs/results

# A private PostgreSQL server, kept while fd 3 is open.
PG=''
mkfifo "$DIR/pg.fifo"
"$EX/pg_server" <"$DIR/pg.fifo" >"$DIR/pg.url" 2>"$DIR/pg.err" &
PIDS+=($!)
exec 3>"$DIR/pg.fifo"
for _ in $(seq 300); do [ -s "$DIR/pg.url" ] && break; kill -0 "${PIDS[0]}" 2>/dev/null || break; sleep 0.1; done
if [ -s "$DIR/pg.url" ]; then
  PG=$(head -1 "$DIR/pg.url")
else
  echo "PostgreSQL: not measured ($(cat "$DIR/pg.err"))"
fi
psql_url() { echo "${PG%/*}/$1"; }
# pg_admin SQL: run it on the server's `postgres` database, print what it returns.
pg_admin() { python3 - "$PG" "$1" <<'EOF'
import glob, subprocess, sys
# psql beside the server binaries (Debian's postgresql-client), else on the PATH.
psql = next(iter(sorted(glob.glob('/usr/lib/postgresql/*/bin/psql'))), 'psql')
subprocess.run([psql, '-q', '-X', '-tA', '-v', 'ON_ERROR_STOP=1', sys.argv[1], '-c', sys.argv[2]], check=True)
EOF
}

# ms COMMAND…: run it (stdout, stderr to files), set MS (wall milliseconds) and RSS (peak KiB).
ms() {
  local t0 t1
  t0=$(date +%s%N)
  /usr/bin/time -f %M -o "$DIR/rss" "$@" >"$DIR/out" 2>"$DIR/err" || { echo "failed: $* — $(tail -2 "$DIR/err")" >&2; return 1; }
  t1=$(date +%s%N)
  MS=$(( (t1 - t0) / 1000000 ))
  RSS=$(tail -1 "$DIR/rss")
}

echo "machine: $(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg); $PROFILE build; $REPEATS rounds; histories in $DIR"
for n in "${SIZES[@]}"; do
  backends=()
  for b in ${BACKENDS:-sqlite postgres}; do
    case $b in
      sqlite) backends+=(sqlite) ;;
      postgres) [ -n "$PG" ] && backends+=(postgres) ;;
      *) echo "BACKENDS: unknown back end '$b' (sqlite postgres)" >&2; exit 2 ;;
    esac
  done
  [ ${#backends[@]} -gt 0 ] || { echo "N=$n: no back end to measure" >&2; continue; }
  free_kb=$(df -Pk "$DIR" | awk 'NR == 2 {print $4}')
  need_kb=0
  for b in "${backends[@]}"; do
    if [ "$b" = sqlite ]; then need_kb=$((need_kb + n * 40)); else need_kb=$((need_kb + n * 15)); fi
  done
  if [ "$need_kb" -gt "$free_kb" ]; then
    echo "N=$n: skipped — needs about $(( need_kb / 1048576 )) GiB, $(( free_kb / 1048576 )) GiB free in $DIR (HISTORY_DIR)"
    continue
  fi
  declare -A DB HOST SINCE A B
  for b in "${backends[@]}"; do
    if [ "$b" = sqlite ]; then
      DB[$b]=$DIR/fleet-$n.sqlite
    else
      pg_admin "CREATE DATABASE fleet_$n" >/dev/null
      DB[$b]=$(psql_url "fleet_$n")
    fi
    ev_start
    "$EX/fill_history" "${DB[$b]}" "$n" >"$DIR/fill"
    ev_stop
    HOST[$b]=$(sed -n 's/^host=//p' "$DIR/fill")
    SINCE[$b]=$(sed -n 's/^since=//p' "$DIR/fill")
    A[$b]=$(sed -n 's/^a=//p' "$DIR/fill")
    B[$b]=$(sed -n 's/^b=//p' "$DIR/fill")
    if [ "$b" = sqlite ]; then
      size=$(du -sk "${DB[$b]}"* | awk '{s += $1} END {print s}')
    else
      size=$(pg_admin "SELECT pg_database_size('fleet_$n') / 1024")
    fi
    echo "N=$n $b: filled in $(sed -n 's/^seconds=//p' "$DIR/fill") s ($(sed -n 's/^machines=//p' "$DIR/fill") machines, host ${HOST[$b]} with $(sed -n 's/^runs=//p' "$DIR/fill") runs), ${size} KiB on disk; $EV_LINE"
  done
  declare -A T M
  skipped=0
  for r in $(seq "$REPEATS"); do
    ev_wait_quiet "${QUIET_WAIT:-0}"
    order=("${backends[@]}")
    if [ $((r % 2)) = 0 ] && [ ${#backends[@]} = 2 ]; then order=(postgres sqlite); fi
    for b in "${order[@]}"; do
      db=${DB[$b]}
      # A result document to store, new to the history (its own host name).
      python3 - "crates/render/tests/data/kinds/monitor.json" "$DIR/one.json" "bench-$b-$n-$r" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d['envelope']['hostname'] = sys.argv[3]
json.dump(d, open(sys.argv[2], 'w'))
EOF
      ev_start
      ms "$TB" history --db "$db" --kind run --device "${HOST[$b]}"; t_dev=$MS m_dev=$RSS
      ms "$TB" history --db "$db" --since "${SINCE[$b]}"; t_since=$MS m_since=$RSS
      if [ -n "${BASELINE:-}" ] && [ $((r % 2)) = 1 ]; then
        ms "$BASELINE" compare --db "$db" "${A[$b]}" "${B[$b]}"; t_bcmp=$MS
      fi
      ms "$TB" compare --db "$db" "${A[$b]}" "${B[$b]}"; t_cmp=$MS m_cmp=$RSS
      if [ -n "${BASELINE:-}" ] && [ $((r % 2)) = 0 ]; then
        ms "$BASELINE" compare --db "$db" "${A[$b]}" "${B[$b]}"; t_bcmp=$MS
      fi
      ms "$EX/history_latest" "$db"; t_latest=$(sed -n 's/.*best=//p' "$DIR/out")
      # One scrape of serve with the history: its families computed (the first, uncached).
      "$TB" serve --db "$db" --listen 127.0.0.1:0 >"$DIR/serve.out" 2>&1 &
      spid=$!
      SERVE=$spid
      for _ in $(seq 1200); do grep -q Serving "$DIR/serve.out" 2>/dev/null && break; sleep 0.05; done
      url=$(sed -n 's#^Serving metrics on \(http://[^ ]*\)$#\1#p' "$DIR/serve.out")
      [ -n "$url" ] || { echo "serve did not start: $(cat "$DIR/serve.out")" >&2; exit 1; }
      t_scrape=$(python3 -c 'import sys, time, urllib.request
t = time.monotonic(); urllib.request.urlopen(sys.argv[1]).read(); print(round((time.monotonic() - t) * 1000))' "$url")
      m_serve=$(awk '/VmHWM/ {print $2}' "/proc/$spid/status")
      kill "$spid"; wait "$spid" 2>/dev/null || true
      SERVE=''

      ms "$TB" import --db "$db" "$DIR/one.json"; t_store=$MS m_store=$RSS
      ms "$TB" import --db "$db" "$LOGS"; t_import=$MS m_import=$RSS
      ev_stop
      echo "  round $r $b: $EV_LINE"
      if [ "$EV_VALID" = 1 ]; then
        T[$b.dev]+=" $t_dev"; T[$b.since]+=" $t_since"; T[$b.cmp]+=" $t_cmp"; T[$b.latest]+=" $t_latest"
        [ -z "${BASELINE:-}" ] || T[$b.bcmp]+=" $t_bcmp"
        T[$b.scrape]+=" $t_scrape"; T[$b.store]+=" $t_store"
        if [ "$r" = 1 ]; then T[$b.import1]=$t_import; else T[$b.import]+=" $t_import"; fi
        M[$b.dev]+=" $m_dev"; M[$b.since]+=" $m_since"; M[$b.cmp]+=" $m_cmp"; M[$b.serve]+=" $m_serve"
        M[$b.store]+=" $m_store"; M[$b.import]+=" $m_import"
      else
        skipped=$((skipped + 1))
      fi
    done
  done
  printf '\nN=%s, medians over the valid rounds (%s left out: others busy); ms, peak RSS in MiB\n' "$n" "$skipped"
  printf '%-9s %16s %16s %16s %10s %16s %16s %16s %16s\n' backend "history --device" "history --since" compare latest "serve scrape" store "import (new)" "import (again)"
  mib() { awk -v k="$(ev_median $1)" 'BEGIN { if (k == "-") print "-"; else printf "%.0f", k / 1024 }'; }
  for b in "${backends[@]}"; do
    printf '%-9s %16s %16s %16s %10s %16s %16s %16s %16s\n' "$b" \
      "$(ev_median ${T[$b.dev]:-}) / $(mib "${M[$b.dev]:-}")" \
      "$(ev_median ${T[$b.since]:-}) / $(mib "${M[$b.since]:-}")" \
      "$(ev_median ${T[$b.cmp]:-}) / $(mib "${M[$b.cmp]:-}")" \
      "$(ev_median ${T[$b.latest]:-})" \
      "$(ev_median ${T[$b.scrape]:-}) / $(mib "${M[$b.serve]:-}")" \
      "$(ev_median ${T[$b.store]:-}) / $(mib "${M[$b.store]:-}")" \
      "${T[$b.import1]:--}" \
      "$(ev_median ${T[$b.import]:-}) / $(mib "${M[$b.import]:-}")"
  done
  if [ -n "${BASELINE:-}" ]; then
    for b in "${backends[@]}"; do
      echo "$b: compare by BASELINE $BASELINE: $(ev_median ${T[$b.bcmp]:-}) ms, by this build: $(ev_median ${T[$b.cmp]:-}) ms (side by side in each round, alternating which went first)"
    done
  fi
  echo
  # The next N's histories need the room; with HISTORY_DIR the SQLite ones stay there for a
  # look afterwards (`EXPLAIN QUERY PLAN`; the PostgreSQL server goes with the script).
  for b in "${backends[@]}"; do
    if [ "$b" = sqlite ]; then
      [ -n "$KEEP" ] && echo "kept: ${DB[$b]}" || rm -f "${DB[$b]}"*
    else
      pg_admin "DROP DATABASE fleet_$n" >/dev/null
    fi
  done
  unset DB HOST SINCE A B T M
done
