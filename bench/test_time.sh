#!/usr/bin/env bash
# The warm test suite's time (issue: the suite within minutes): builds the test binaries first,
# then times `cargo test --workspace --no-fail-fast` as README says to run it, with its CPU time
# and the machine's other activity meanwhile (bench/lib/evidence.sh: a figure taken while
# others used more than its limit is marked NOT VALID), and the ten slowest test binaries.
#
#   bench/test_time.sh [ROUNDS]     (default 1)
#
# VARIANT="NAME=VALUE …" times a second build beside it in every round, alternating which goes
# first: the same command with those variables set, e.g. a profile setting and a target folder
# of its own: VARIANT="CARGO_PROFILE_DEV_OPT_LEVEL=1 CARGO_TARGET_DIR=target/o1".
. "$(dirname "$0")/lib/evidence.sh"
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."
ROUNDS=${1:-1}
VARIANT=${VARIANT:-}
# shellcheck disable=SC2086
suite() { if [ "$1" = variant ]; then env $VARIANT cargo test "${@:2}"; else cargo test "${@:2}"; fi; }
builds=(this)
[ -z "$VARIANT" ] || builds+=(variant)
for b in "${builds[@]}"; do suite "$b" --workspace --no-run -q; done
log=$(mktemp)
trap 'rm -f "$log" "$log.time"' EXIT
for r in $(seq "$ROUNDS"); do
  order=("${builds[@]}")
  if [ $((r % 2)) = 0 ] && [ ${#builds[@]} = 2 ]; then order=(variant this); fi
  for b in "${order[@]}"; do
    ev_start
    rc=0
    /usr/bin/time -f '%e %U %S' -o "$log.time" bash -c "$(declare -f suite); VARIANT='$VARIANT' suite $b --workspace --no-fail-fast" >"$log" 2>&1 || rc=$?
    ev_stop
    read -r wall user sys <"$log.time"
    binaries=$(grep -c '^test result:' "$log" || true)
    summed=$(sed -n 's/^test result:.*finished in \([0-9.]*\)s$/\1/p' "$log" | awk '{s += $1} END {printf "%.0f", s}')
    echo "round $r, $b${VARIANT:+ ($([ "$b" = variant ] && echo "$VARIANT" || echo "as configured"))}: exit $rc, $wall s wall, $(awk -v u="$user" -v s="$sys" 'BEGIN {printf "%.0f", u + s}') s CPU, $summed s summed over $binaries test binaries; $EV_LINE"
    # The slowest binaries: each `Running` line paired with its `test result` line.
    awk '/^ +Running /{name=$2 " " $3} /^test result:/{t=$NF; sub(/s$/, "", t); print t, name}' "$log" | sort -rn | head -10 | sed 's/^/  /'
    [ "$rc" = 0 ] || grep -E '^(test .* FAILED|failures:|---- )' "$log" | head -20 | sed 's/^/  /'
  done
done
