#!/usr/bin/env bash
# The site at a fleet's scale: builds `truebench site`'s folder from N generated results (the
# corpus's sbc-bench logs as documents, each copied with its own id, board, kernel and date:
# crates/site/tests/common/site_rows.rs), then adds one result and rebuilds over it, and
# prints the build time, the rebuild's time and how many files it wrote, and the folder's
# bytes per result (each part's). Then opens the index in headless Chromium from file://, in
# an iframe 390 px wide (a phone's width; the CPU is this machine's, not a phone's), ROUNDS
# times, and prints the time to the first rows (the first contentful paint: the newest rows
# are in the page), the time until every shard is loaded and drawn, and the time of a search
# for a board, a SoC filter and a sort by 7-zip multi over all rows (each measured around the
# event, layout included). The machine's other activity is printed beside the builds.
# Then (CLI=1, the default) the same results stored in an SQLite history and `truebench site`
# itself timed: a whole build, and a rebuild after one more result is stored — what a user
# waits for — with the documents each read from the history (a rebuild reads only the new
# result's and those of the pages it makes again; the rest it kept in `.truebench-rows`).
#
# Not a test: prints figures for BENCHMARKS.md. Usage: bench/site_scale.sh [N] [ROUNDS]
# (default 100000 and 3). DIR=… keeps the site there (default: a temp dir, removed; a site of
# 10^5 results takes about 13 GB, 31 GB with the history and the CLI site beside it). PROFILE=debug uses the debug build (quicker to build,
# slower to run). Needs: chromium.
. "$(dirname "$0")/lib/evidence.sh"
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."
N=${1:-100000}
ROUNDS=${2:-3}
export CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1}
PROFILE=${PROFILE:-release}
flag=--release
[ "$PROFILE" = release ] || flag=
cargo build $flag -q -p truebench-site --example site_scale
cargo build $flag -q -p truebench
CHROME=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$CHROME" ] || { echo "site_scale: no chromium" >&2; exit 1; }
KEEP=${DIR:-}
WORK=${KEEP:-$(mktemp -d)}
cleanup() { [ -n "$KEEP" ] || rm -rf "$WORK"; }
trap cleanup EXIT
mkdir -p "$WORK"

echo "== build and rebuild of $N results ($PROFILE build) into $WORK/site"
ev_start
target/$PROFILE/examples/site_scale "$N" "$WORK/site"
ev_stop
echo "machine while building: $EV_LINE"

# The probe: the index in a 390 px iframe; once it has loaded (every shard: the shards are
# scripts added before the load event, which waits for them), a search, a filter and a sort.
cat >"$WORK/probe.html" <<'HTML'
<!DOCTYPE html><html><body style="margin:0"><pre id="out">no result</pre><script>
var f = document.createElement("iframe");
f.style.cssText = "border:0;width:390px;height:800px";
f.addEventListener("load", function () {
  var w = f.contentWindow, d = f.contentDocument, o = {}, t = d.getElementById("results");
  function timed(what, act) {
    var t0 = performance.now();
    act();
    void d.getElementById("scroller").offsetHeight; // the layout of the rows drawn
    o[what] = +(performance.now() - t0).toFixed(1);
    o[what + "_rows"] = d.getElementById("count").textContent;
  }
  try {
    o.inner_width = w.innerWidth;
    o.page_scrolls_sideways = d.documentElement.scrollWidth > w.innerWidth;
    var paint = w.performance.getEntriesByName("first-contentful-paint")[0];
    o.first_rows_ms = paint ? +paint.startTime.toFixed(1) : null;
    o.dom_ready_ms = +w.performance.getEntriesByType("navigation")[0].domContentLoadedEventEnd.toFixed(1);
    o.all_rows_ms = +t.dataset.readyAt;
    o.shards_ms = +t.dataset.loadMs;
    var first = d.querySelector("#results tbody tr[data-id] td.c-device");
    var word = first ? first.textContent.trim().split(/\s+/)[0] : "a";
    timed("search_ms", function () { var q = d.getElementById("q"); q.value = word; q.dispatchEvent(new Event("input")); });
    timed("clear_ms", function () { d.getElementById("reset").click(); });
    var soc = d.getElementById("f-soc");
    soc.value = soc.options[Math.min(1, soc.options.length - 1)].value;
    timed("soc_filter_ms", function () { soc.dispatchEvent(new Event("change")); });
    timed("sort_ms", function () { d.querySelector("button[data-sort=multi]").click(); });
    d.getElementById("reset").click();
    timed("sort_all_ms", function () { d.querySelector("button[data-sort=device]").click(); });
  } catch (e) { o.error = String(e); }
  document.getElementById("out").textContent = JSON.stringify(o);
});
f.src = "site/index.html";
document.body.appendChild(f);
</script></body></html>
HTML

echo "== the index in headless Chromium, an iframe 390 px wide, from file://"
for r in $(seq "$ROUNDS"); do
  out=$(timeout 600 "$CHROME" --headless --no-sandbox --disable-gpu --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --allow-file-access-from-files --user-data-dir="$WORK/profile" \
    --window-size=430,900 --dump-dom "file://$WORK/probe.html" 2>/dev/null |
    sed -n 's/.*<pre id="out">\([^<]*\)<\/pre>.*/\1/p' | sed 's/&amp;/\&/g')
  echo "round $r: ${out:-no output}"
done

[ "${CLI:-1}" = 1 ] || exit 0
echo "== truebench site over an SQLite history of $N results"
export XDG_DATA_HOME="$WORK/data" TRUEBENCH_LOCK_DIR="$WORK"
target/$PROFILE/examples/site_scale --history "$N" "$WORK/history.sqlite"
TB=target/$PROFILE/truebench
# One `truebench site` over the history, timed with the machine's other activity: sets OUT
# (what it printed) and SECS.
timed_site() {
  ev_start
  local t0 t1
  t0=$(date +%s.%N)
  OUT=$(/usr/bin/time -f %M -o "$WORK/rss" $TB site "$WORK/cli-site" --db "$WORK/history.sqlite" --title fleet)
  t1=$(date +%s.%N)
  ev_stop
  echo "$OUT"
  SECS=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}')
  PEAK=$(( $(tail -1 "$WORK/rss") / 1024 ))
}
timed_site
read_docs() { sed -n 's/.*; \([0-9]*\) documents\{0,1\} read).*/\1/p' <<<"$1"; }
echo "truebench site, whole build: $SECS s, peak memory $PEAK MiB, $(read_docs "$OUT") documents read; machine: $EV_LINE"
target/$PROFILE/examples/site_scale --history "$((N + 1))" "$WORK/history.sqlite"
timed_site
echo "truebench site, rebuild after one new result: $SECS s, peak memory $PEAK MiB, $(read_docs "$OUT") documents read of $((N + 1)); machine: $EV_LINE"
