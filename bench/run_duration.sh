#!/usr/bin/env bash
# How long `truebench run` takes on this machine, and where the time goes: runs the quick and
# then the standard mode (release build) and prints the wall time and each phase's duration
# from result.json, plus the load average around the run (the machine should be idle; with
# --force the idle gate gives up after 5 s instead of waiting).
#
# Each run is one long measurement, so each is wrapped whole in bench/lib/evidence.sh (its
# phases have no evidence of their own): the mode's figures are followed by the evidence of the
# whole run (the other processes' share of the machine and the load); a run during which others
# used more than 3 % is marked not valid.
#
#   bench/run_duration.sh [quick|standard|both] [extra truebench run flags…]
. "$(dirname "$0")/lib/evidence.sh"
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."
which="${1:-both}"; shift || true
cargo build --release -q -p truebench
bin=target/release/truebench
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

one() { # mode flag
  local name=$1; shift
  local dir="$out/$name"
  local load_before; load_before=$(cut -d' ' -f1-3 /proc/loadavg)
  ev_start
  local t0; t0=$(date +%s.%N)
  set +e
  "$bin" run "$@" --force --idle-timeout 5 --quiet --results-dir "$dir" >/dev/null
  local rc=$?
  set -e
  local t1; t1=$(date +%s.%N)
  ev_stop
  python3 - "$dir/result.json" "$name" "$rc" "$t0" "$t1" "$load_before" "$(cut -d' ' -f1-3 /proc/loadavg)" <<'PY'
import json, sys
path, name, rc, t0, t1, lb, la = sys.argv[1:]
r = json.load(open(path))
r = r.get("envelope", r)  # schema 4 keeps these in the envelope; older results at the top
wall = float(t1) - float(t0)
print(f"== {name}: {wall:.1f} s wall (exit {rc}, valid {r['valid']}), load average before {lb}, after {la}")
for p in r["phases"]:
    d = (p["ended"] or p["started"]) - p["started"]
    print(f"   {p['name']:<20} {d:7.1f} s  {p['status']}")
tools = ", ".join(f"{t['name']} {t['version'] or ''}".strip() for t in r["tools"])
print(f"   tools: {tools}")
crit = [f["kind"] for f in r["findings"] if f["severity"] == "critical"]
print(f"   critical findings: {', '.join(crit) or 'none'}")
PY
  echo "   evidence (the whole run): $EV_LINE"
  if [ "$EV_VALID" != 1 ]; then echo "   (not valid: this run's wall time and phases were measured on a busy machine)"; fi
}

case "$which" in
  quick) one quick --quick "$@" ;;
  standard) one standard "$@" ;;
  both) one quick --quick "$@"; one standard "$@" ;;
  *) echo "usage: $0 [quick|standard|both] [truebench run flags…]" >&2; exit 2 ;;
esac
