#!/usr/bin/env bash
# A long fuzzing run of every parser of outside input: the same property tests CI runs with a
# few hundred inputs each, here with many (PROPTEST_CASES), in release mode. Each failure is
# shrunk to a small input and written to the crate's proptest-regressions/ file (commit it,
# and add a unit test for the input); the tests then try it first on every run.
#
#   bench/fuzz.sh [CASES] [TARGET…]   (per target, default 1000000: hours in release mode on
#                                     2 CPUs; TARGET: host sbcbench model monitor suites store,
#                                     default all)
#
# The targets: host's parsers of /proc and /sys, sbc-bench logs, result documents of every
# schema version (1 to the current), the monitor's request parser and its whole connection
# handler (a live server on a recorded root, any bytes in any pieces), the suites' inputs, and
# the history's database URL.
#
# Prints, per fuzz test, the inputs tried and the time it took.
set -euo pipefail
cd "$(dirname "$0")/.."

CASES=${1:-1000000}
export PROPTEST_CASES=$CASES
# New inputs each run (cargo test alone uses a fixed seed, the same inputs every time).
export TRUEBENCH_FUZZ_RANDOM=1
TARGETS=("${@:2}")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(host sbcbench model monitor suites store)
spec_of() {
  case $1 in
    host) echo "truebench-host --test fuzz" ;;
    sbcbench) echo "truebench-sbcbench --test fuzz" ;;
    model) echo "truebench-model --test fuzz" ;;
    monitor) echo "truebench-monitor --test fuzz" ;;
    suites) echo "truebench-suites --test fuzz" ;;
    store) echo "truebench-store --lib pg_tls::tests::a_db_url" ;;
    *) echo "unknown target $1 (host sbcbench model monitor suites store)" >&2; exit 2 ;;
  esac
}
status=0
for target in "${TARGETS[@]}"; do
  spec=$(spec_of "$target")
  set -- $spec
  pkg=$1; shift
  t0=$(date +%s.%N)
  out=$(cargo test -q --release -p "$pkg" "$@" -- --test-threads=2 2>&1) || status=1
  t1=$(date +%s.%N)
  tests=$(printf '%s\n' "$out" | sed -n 's/^test result: .* \([0-9]*\) passed; \([0-9]*\) failed.*/\1 \2/p' | head -1)
  printf '%-22s %-34s %s test(s) passed, %s failed, %s inputs each, %.0f s\n' \
    "$pkg" "$*" "${tests% *}" "${tests#* }" "$CASES" "$(echo "$t1 - $t0" | bc)"
  printf '%s\n' "$out" | grep -E 'minimal failing input|Test failed' || true
done
exit $status
