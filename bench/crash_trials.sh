#!/usr/bin/env bash
# Crash consistency, tried many times: truebench killed with SIGKILL at random instants
# (uniform over each command's measured runtime) while it stores a measurement into SQLite
# and into PostgreSQL (a private server, started and removed by the test: Debian's
# postgresql package) or keeps it for a server that cannot be reached (pending in the local
# history: every result there must be pending), writes a results folder, imports a folder
# of sbc-bench logs, builds a site and exports (json and .prom). After every kill: `history --check` passes (SQLite's
# integrity_check, then every result against its document: never a row without its
# figures, never half a document), every file in place is byte for byte one a complete
# command writes, whatever truebench said it stored or kept is there, and a rerun completes.
# The trials are the tests of crates/truebench/tests/cli/crash.rs (10 each in CI), here with
# TRIALS each, one operation at a time, in release mode.
#
#   bench/crash_trials.sh [TRIALS] [OPERATION…]   (default 1000 each; all operations)
#
# OPERATION: sqlite postgres pending results import site export. CRASH_PROFILE=debug skips the
# release build (a first try); TRUEBENCH_CRASH_SEED=N replays the instants of a seed.
#
# Prints, per operation, the line its test prints (kills, how many landed mid-run, the
# runtime the instants are drawn over, temporaries left) and the time it took; exits 1 when
# a trial found a problem (the test's message says which trial and what).
set -euo pipefail
cd "$(dirname "$0")/.."

TRIALS=${1:-1000}
shift || true
OPS=("$@")
[ ${#OPS[@]} -gt 0 ] || OPS=(sqlite postgres pending results import site export)
PROFILE=()
[ "${CRASH_PROFILE:-release}" = debug ] || PROFILE=(--release)
export TRUEBENCH_CRASH_TRIALS=$TRIALS
export CARGO_INCREMENTAL=0

test_of() {
  case $1 in
    sqlite) echo crash::sqlite_history_killed_while_storing ;;
    postgres) echo crash::postgres_history_killed_while_storing ;;
    pending) echo crash::result_kept_for_an_unreachable_server_killed ;;
    results) echo crash::results_folder_killed ;;
    import) echo crash::import_of_a_folder_killed ;;
    site) echo crash::site_build_killed ;;
    export) echo crash::export_killed ;;
    *) echo "unknown operation $1 (sqlite postgres pending results import site export)" >&2; exit 2 ;;
  esac
}

cargo test -q "${PROFILE[@]}" -p truebench --test cli --no-run 2>&1 | grep -v '^$' || true
status=0
for op in "${OPS[@]}"; do
  name=$(test_of "$op")
  t0=$(date +%s.%N)
  out=$(cargo test -q "${PROFILE[@]}" -p truebench --test cli "$name" -- --exact --nocapture --test-threads=1 2>&1) || status=1
  t1=$(date +%s.%N)
  line=$(printf '%s\n' "$out" | grep '^crash trials:' || true)
  if [ -z "$line" ] || printf '%s\n' "$out" | grep -q '^SKIPPED '; then
    status=1
    printf '%-8s FAILED or SKIPPED:\n%s\n' "$op" "$(printf '%s\n' "$out" | grep -E "SKIPPED|panicked|crash seed|assert" | head -20)"
    continue
  fi
  printf '%-8s %s (%.0f s)\n' "$op" "${line#crash trials: }" "$(echo "$t1 - $t0" | bc)"
done
exit $status
