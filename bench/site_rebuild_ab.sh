#!/usr/bin/env bash
# `truebench site`'s rebuild after one new result, two builds of truebench side by side: each
# round stores one more generated result in the history, then each build rebuilds its own
# site folder over it (the first to go alternates from round to round), timed with the
# machine's other activity (bench/lib/evidence.sh) and the build's CPU time, peak memory and
# minor page faults (/usr/bin/time). Rounds where others used more than 3 % are left out of
# the medians.
#
# Set up with bench/site_scale.sh's parts: `site_scale --history N DB` (N results), then one
# whole `truebench site DIR --db DB` per build (each build keeps its own files in its folder).
#
# Not a test: prints figures for BENCHMARKS.md.
# Usage: bench/site_rebuild_ab.sh A_BIN A_DIR B_BIN B_DIR DB [ROUNDS]   (default 6 rounds)
#        SITE_SCALE=… the site_scale example (default target/release/examples/site_scale)
# Needs: sqlite3 (the newest id) and /usr/bin/time (Debian: time).
. "$(dirname "$0")/lib/evidence.sh"
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."
[ $# -ge 5 ] || { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
A=$1 ADIR=$2 B=$3 BDIR=$4 DB=$5 ROUNDS=${6:-6}
[[ $ROUNDS =~ ^[0-9]+$ && $ROUNDS -ge 1 ]] || { echo "ROUNDS must be a whole number ≥ 1, not '$ROUNDS'" >&2; exit 2; }
for f in "$A" "$B"; do [ -x "$f" ] || { echo "site_rebuild_ab: $f is not an executable" >&2; exit 2; }; done
for d in "$ADIR" "$BDIR"; do [ -f "$d/index.html" ] || { echo "site_rebuild_ab: $d holds no site (build it whole first)" >&2; exit 2; }; done
[ -f "$DB" ] || { echo "site_rebuild_ab: no history $DB" >&2; exit 2; }
SITE_SCALE=${SITE_SCALE:-target/release/examples/site_scale}
[ -x "$SITE_SCALE" ] || { echo "site_rebuild_ab: $SITE_SCALE missing: cargo build --release -p truebench-site --example site_scale" >&2; exit 2; }
command -v /usr/bin/time >/dev/null || { echo "site_rebuild_ab: /usr/bin/time (Debian: time) missing" >&2; exit 2; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export XDG_DATA_HOME="$TMP/data" TRUEBENCH_LOCK_DIR="$TMP"
n=$(sqlite3 "$DB" 'select max(id) from results' 2>/dev/null || true)
[[ $n =~ ^[0-9]+$ ]] || { echo "site_rebuild_ab: cannot read the newest id of $DB (sqlite3 missing?)" >&2; exit 2; }

# one NAME BIN DIR: one rebuild, its line printed; appends the valid wall time to NAME's list.
declare -A WALL=()
one() {
  ev_start
  local t0 t1 out
  t0=$(date +%s.%N)
  out=$(/usr/bin/time -f '%U %S %M %R' -o "$TMP/time" "$2" site "$3" --db "$DB" --title fleet 2>&1) || {
    echo "$1 failed: $out" >&2
    exit 1
  }
  t1=$(date +%s.%N)
  ev_stop
  local secs cpu rss faults written
  secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}')
  read -r u s rss faults <"$TMP/time"
  cpu=$(awk -v u="$u" -v s="$s" 'BEGIN {printf "%.2f", u + s}')
  written=$(sed -n 's/.*(\([0-9]*\) written.*/\1/p' <<<"$out")
  [[ $out == *"warning"* ]] && echo "  $1 warned: $out"
  printf '  %-2s %6s s  CPU %5s s  peak %5d MiB  faults %7d  written %4s  %s\n' \
    "$1" "$secs" "$cpu" $((rss / 1024)) "$faults" "$written" "$EV_LINE"
  [ "$EV_VALID" = 1 ] && WALL[$1]="${WALL[$1]:-} $secs"
  return 0
}

echo "A: $A ($ADIR)"
echo "B: $B ($BDIR)"
echo "history: $DB, $n results; machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$ROUNDS"); do
  n=$((n + 1))
  "$SITE_SCALE" --history "$n" "$DB" >/dev/null
  echo "round $r: result #$n stored"
  if [ $((r % 2)) = 1 ]; then
    one A "$A" "$ADIR"; one B "$B" "$BDIR"
  else
    one B "$B" "$BDIR"; one A "$A" "$ADIR"
  fi
done
# shellcheck disable=SC2086
ma=$(ev_median ${WALL[A]:-}) mb=$(ev_median ${WALL[B]:-})
echo "medians of the valid rounds: A $ma s, B $mb s$(awk -v a="$ma" -v b="$mb" 'BEGIN { if (a > 0 && b > 0) printf ", B/A %.2f", b / a }')"
