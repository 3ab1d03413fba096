# What the scripts that run truebench's sampler beside the C reference loop on a generated
# machine share (sampler_scale.sh, cold_costs.sh, tick_trace.sh). Source it after `cd` to the
# repository's root.

# side_bins: TB and MACHINE_ROOT — other builds of the two when set (a profiling build),
# else this tree's release builds, built now.
side_bins() {
  export CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1}
  if [ -z "${TB:-}" ]; then
    cargo build --release -q -p truebench
    TB=$PWD/target/release/truebench
  fi
  if [ -z "${MACHINE_ROOT:-}" ]; then
    cargo build --release -q -p truebench-fixtures --example machine_root
    MACHINE_ROOT=$PWD/target/release/examples/machine_root
  fi
}

# side_tmp NAME: TMP, a new folder in memory (/dev/shm when there is one: the generated
# tree's reads are then the page cache's on both sides), BASE the folder it is in; truebench's
# data and lock folders inside it.
side_tmp() {
  BASE=/dev/shm
  [ -d "$BASE" ] && [ -w "$BASE" ] || BASE=${TMPDIR:-/tmp}
  TMP=$(mktemp -d "$BASE/truebench-$1.XXXXXX")
  export XDG_DATA_HOME="$TMP/data" TRUEBENCH_LOCK_DIR="$TMP"
}

# side_tree ROOT N: writes the N-CPU tree at ROOT and keeps its counters moving (rewritten
# every PERIOD_MS, default 1000) in the background, once it is written; TREE_PID is the
# writer's pid, to stop with the rest.
side_tree() {
  "$MACHINE_ROOT" "$1" "$2" 100000 "${PERIOD_MS:-1000}" >"$1.ticker" &
  TREE_PID=$!
  for _ in $(seq 600); do [ -s "$1.ticker" ] && return 0; sleep 0.1; done
  kill "$TREE_PID" 2>/dev/null || true
  echo "the $2-CPU tree was not written within a minute" >&2
  exit 1
}

# open_files PID ROOT: the files PID holds open below ROOT, one per line.
open_files() {
  local fd t
  for fd in /proc/"$1"/fd/*; do
    t=$(readlink "$fd" 2>/dev/null) || continue
    case $t in "$2"/*) [ -f "$t" ] && echo "$t" ;; esac
  done
}

# side_start MODE ROOT OUT: truebench sampling ROOT at 10 Hz in MODE at nice 19 (its sampler
# thread runs at 19 too), its output to OUT; prints its pid. plain: `monitor --json-lines`,
# one thread printing a line each tick; session: `monitor --quiet -- sleep …`, the Session's
# sampler thread, keeping each sample and printing none.
side_start() {
  case $1 in
    plain) nice -n 19 "$TB" monitor --root "$2" --interval 0.1 --json-lines >"$3" 2>/dev/null & ;;
    session) nice -n 19 "$TB" monitor --root "$2" --interval 0.1 --quiet --no-store -- sleep 100000 >"$3" 2>/dev/null & ;;
    *) echo "side_start: no mode $1" >&2; return 2 ;;
  esac
  echo $!
}

# side_line_len FILE: the mean length of FILE's lines, newline included (what the C loop pads
# its line to, so that both store as much).
side_line_len() {
  awk '{n += length($0) + 1} END {if (NR) printf "%d", n / NR}' "$1"
}
