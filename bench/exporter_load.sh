#!/usr/bin/env bash
# Latency of /metrics under 40 concurrent scrapers: truebench serve vs Prometheus'
# node_exporter (Debian package prometheus-node-exporter, same machine, same load).
#
# Not a test: prints figures for BENCHMARKS.md. Usage: bench/exporter_load.sh [REQUESTS]
# (per scraper, default 50). Needs python3 (the load client, stdlib only); installs
# prometheus-node-exporter with apt-get when missing and allowed (root).
#
# Each load (truebench on this machine, truebench on the 192-CPU root, node_exporter) is
# measured under bench/lib/evidence.sh and its row followed by its evidence (the other
# processes' share of the machine and the load; the servers and the load client are the
# script's own). A load measured while others used more than 3 % is marked not valid, and the
# ratios it is part of are not given.
. "$(dirname "$0")/lib/evidence.sh"
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."
REQ=${1:-50}
CONC=40
export CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1}
cargo build --release -q -p truebench
cargo build --release -q -p truebench-monitor --example epyc_root
TMP=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$TMP"; }
trap cleanup EXIT
target/release/examples/epyc_root "$TMP/epyc192" 192 >/dev/null

NE=$(command -v prometheus-node-exporter || true)
if [ -z "$NE" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  (apt-get install -y -qq prometheus-node-exporter >/dev/null 2>&1 ||
    (apt-get update -qq && apt-get install -y -qq prometheus-node-exporter >/dev/null 2>&1)) || true
  NE=$(command -v prometheus-node-exporter || true)
fi

# start_truebench ROOT → sets PORT (not in a $(…) subshell: PIDS must be this shell's)
start_truebench() {
  target/release/truebench serve --listen 127.0.0.1:0 --root "$1" >"$TMP/tb.out" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 100); do grep -q Serving "$TMP/tb.out" 2>/dev/null && break; sleep 0.05; done
  PORT=$(sed -n 's#.*http://127.0.0.1:\([0-9]*\)/metrics#\1#p' "$TMP/tb.out")
}

load() { # URL → "median_ms p99_ms max_ms bytes req/s"
  python3 - "$1" "$CONC" "$REQ" <<'PY'
import sys, threading, time, http.client, urllib.parse
url, conc, req = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
u = urllib.parse.urlparse(url)
lat, size, errors = [], [0], [0]
lock = threading.Lock()
def worker():
    mine = []
    for _ in range(req):
        t = time.perf_counter()
        try:
            c = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
            c.request("GET", u.path)
            body = c.getresponse().read()
            c.close()
            size[0] = len(body)
        except Exception:
            with lock:
                errors[0] += 1
            continue
        mine.append(time.perf_counter() - t)
    with lock:
        lat.extend(mine)
start = time.perf_counter()
ts = [threading.Thread(target=worker) for _ in range(conc)]
[t.start() for t in ts]
[t.join() for t in ts]
wall = time.perf_counter() - start
lat.sort()
q = lambda p: lat[min(len(lat) - 1, int(p * len(lat)))] * 1e3
print(f"{q(0.5):.2f} {q(0.99):.2f} {lat[-1]*1e3:.2f} {size[0]} {len(lat)/wall:.0f} {errors[0]}")
PY
}

report() { # LABEL RESULT: after ev_stop, the row and its evidence
  read -r med p99 max bytes rps err <<<"$2"
  printf "%-44s %9s %9s %9s %9s %8s %4s\n" "$1" "$med" "$p99" "$max" "$bytes" "$rps" "$err"
  if [ "$EV_VALID" = 1 ]; then
    echo "    evidence: $EV_LINE"
  else
    echo "    evidence: $EV_LINE; this row is not valid"
  fi
}

echo "machine: $(nproc) CPUs, $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)"
echo "$CONC concurrent scrapers x $REQ requests each, new connection per request"
printf "%-44s %9s %9s %9s %9s %8s %4s\n" "" "median ms" "p99 ms" "max ms" "bytes" "req/s" "err"
start_truebench /
ev_start
TB_LIVE=$(load "http://127.0.0.1:$PORT/metrics")
ev_stop
TB_OK=$EV_VALID
report "truebench serve (this machine)" "$TB_LIVE"
start_truebench "$TMP/epyc192"
ev_start
TB_192=$(load "http://127.0.0.1:$PORT/metrics")
ev_stop
report "truebench serve (192-CPU root)" "$TB_192"
if [ -n "$NE" ]; then
  "$NE" --web.listen-address=127.0.0.1:19100 >/dev/null 2>&1 &
  PIDS+=($!)
  sleep 1
  ev_start
  NE_LIVE=$(load "http://127.0.0.1:19100/metrics")
  ev_stop
  report "node_exporter $("$NE" --version 2>&1 | awk 'NR==1 {print $3}') (this machine, defaults)" "$NE_LIVE"
  if [ "$TB_OK" = 1 ] && [ "$EV_VALID" = 1 ]; then
    awk -v a="$(cut -d' ' -f1 <<<"$NE_LIVE")" -v b="$(cut -d' ' -f1 <<<"$TB_LIVE")" \
      'BEGIN {if (b > 0) printf "median latency ratio node_exporter / truebench: %.1fx\n", a/b}'
    awk -v a="$(cut -d' ' -f2 <<<"$NE_LIVE")" -v b="$(cut -d' ' -f2 <<<"$TB_LIVE")" \
      'BEGIN {if (b > 0) printf "p99 latency ratio node_exporter / truebench: %.1fx\n", a/b}'
  else
    echo "median and p99 latency ratios node_exporter / truebench: not valid (a load above was measured on a busy machine)"
  fi
else
  echo "prometheus-node-exporter not installed: no peer figures"
fi
