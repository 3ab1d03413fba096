#!/usr/bin/env bash
# truebench's built-in LZMA benchmark (liblzma, compiled in) vs 7-Zip's own benchmark, single-
# threaded on the same CPU with the same dictionary (2^22 by default: 7-Zip's first line).
#
# The two are different units: 7-Zip reports MIPS ratings (its scores), truebench reports MB/s
# of uncompressed data. What can be compared is speed: 7-Zip's `Speed` column (KiB/s of
# uncompressed data) against truebench's figure converted to KiB/s — with different input data
# (7-Zip's generated benchmark data vs truebench's generated text-like data, ratio ~3.5), so
# the ratio is a sanity check, not a verdict. 7-Zip's MIPS are printed for reference.
#
#   bench/lzma_vs_7zip.sh [ROUNDS]        (default 3; needs 7zz/7z/7za and taskset)
# Env: CPU (default: the last CPU allowed), DICT (log2, default 22), SECONDS (truebench time
#      per direction, default 10), TRUEBENCH (binary, default target/release/truebench).
. "$(dirname "$0")/lib/evidence.sh"
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."

ROUNDS=${1:-3}
DICT=${DICT:-22}
SECS=${SECONDS_PER_DIRECTION:-${SECONDS:-10}}
SZ=$(command -v 7zz || command -v 7z || command -v 7za || true)
[ -n "$SZ" ] || { echo "no 7-zip found: apt-get install -y 7zip" >&2; exit 1; }
command -v taskset >/dev/null || { echo "taskset not found (util-linux)" >&2; exit 1; }
TRUEBENCH=${TRUEBENCH:-target/release/truebench}
if [ ! -x "$TRUEBENCH" ]; then
  CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1} cargo build -q --release -p truebench
fi
CPU=${CPU:-$(taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' | tail -1 | sed 's/.*-//')}

echo "machine: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), $(uptime | sed 's/.*load/load/')"
echo "cpu $CPU, dictionary 2^$DICT; $("$SZ" | sed -n '2p')"
printf '%-5s %-10s %14s %14s %7s   %s\n' round direction "truebench KiB/s" "7-zip KiB/s" ratio "7-zip rating (MIPS)"
# 7-zip's single-threaded benchmark on the CPU: the mean of its per-dictionary Speed columns
# (every 7-zip version has them) and its ratings, into zc zd zcr zdr ztot.
run_7zip() {
  # Mean of the per-dictionary lines' Speed columns (every 7-zip version has them).
  read -r zc zd zcr zdr ztot < <(taskset -c "$CPU" "$SZ" b -mmt1 -md"$DICT" | awk '
    /^[0-9]+:/ {sub(/\|/, " "); c += $2; d += $6; n++}
    /^Avr:/ {split($0, h, "|"); nc = split(h[1], a, " "); nd = split(h[2], b, " "); cr = a[nc]; dr = b[nd]}
    /^Tot:/ {tot = $NF}
    END {printf "%.0f %.0f %s %s %s\n", c / n, d / n, cr, dr, tot}')
}

for r in $(seq 1 "$ROUNDS"); do
  ev_start
  # Which tool goes first alternates from round to round.
  [ $((r % 2)) = 0 ] && run_7zip
  TB=$("$TRUEBENCH" measure lzma --cpus "$CPU" --seconds "$SECS" --dict "$DICT" --data-mib $((1 << (DICT - 20))))
  tc=$(echo "$TB" | awk '/^compress:/ {print $2}')
  td=$(echo "$TB" | awk '/^compress:/ {print $5}')
  ratio=$(echo "$TB" | sed -n 's/.*ratio \([0-9.]*\).*/\1/p')
  [ $((r % 2)) = 1 ] && run_7zip
  printf '%-5s %-10s %14s %14s %7.3f   %s\n' "$r" compress "$tc" "$zc" "$(awk -v a="$tc" -v b="$zc" 'BEGIN{print a/b}')" "$zcr"
  printf '%-5s %-10s %14s %14s %7.3f   %s (total %s)\n' "$r" decompress "$td" "$zd" "$(awk -v a="$td" -v b="$zd" 'BEGIN{print a/b}')" "$zdr" "$ztot"
  ev_stop
  echo "      truebench data ratio $ratio; $(echo "$TB" | head -1 | sed 's/:.*//')"
  echo "      evidence (both tools, this round): $EV_LINE"
done
