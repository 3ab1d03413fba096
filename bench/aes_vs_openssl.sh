#!/usr/bin/env bash
# truebench's built-in AES table (RustCrypto aes/cbc/aes-gcm) vs `openssl speed -elapsed -evp`
# on the same CPU, cipher by cipher: aes-128/192/256-cbc and aes-256-gcm over 16 … 16384-byte
# chunks, both in openssl's unit (1000s of bytes per second), with the ratio per cell.
#
#   bench/aes_vs_openssl.sh [SECONDS] [ROUNDS]   (per chunk size, default 1; rounds, default 2;
#                                                needs openssl, taskset)
# Each round measures every cipher with both tools, truebench first in odd rounds and openssl
# first in even ones (the order alone moves a figure by a few percent); the last table gives
# each cell's median ratio over the valid rounds.
# Env: CPU (default: the last CPU allowed), TRUEBENCH (binary, default
#      target/release/truebench, built if missing).
. "$(dirname "$0")/lib/evidence.sh"
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."

SECS=${1:-1}
ROUNDS=${2:-2}
for t in openssl taskset; do
  command -v "$t" >/dev/null || { echo "$t not found: apt-get install -y openssl util-linux" >&2; exit 1; }
done
TRUEBENCH=${TRUEBENCH:-target/release/truebench}
if [ ! -x "$TRUEBENCH" ]; then
  CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1} cargo build -q --release -p truebench
fi
CPU=${CPU:-$(taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' | tail -1 | sed 's/.*-//')}

echo "machine: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), $(uptime | sed 's/.*load/load/')"
echo "cpu $CPU; $(openssl version); $SECS s per cell; $ROUNDS rounds"
CIPHERS="aes-128-cbc aes-192-cbc aes-256-cbc aes-256-gcm"
declare -A OPS RATIOS
ours() {
  ev_start
  TB=$("$TRUEBENCH" measure aes --cpu "$CPU" --seconds "$SECS")
  ev_stop
  TB_EV=$EV_LINE TB_OK=$EV_VALID
}
theirs() {
  local c
  for c in $CIPHERS; do
    # openssl 3 prints the row upper-case; 1.x lower-case.
    ev_start
    OPS[$c]=$(taskset -c "$CPU" openssl speed -elapsed -seconds "$SECS" -evp "$c" 2>/dev/null |
      awk -v c="$c" 'tolower($1) == c {for (i = 2; i <= 7; i++) {sub(/k$/, "", $i); printf "%s ", $i}}')
    ev_stop
    OPS[$c-ev]=$EV_LINE OPS[$c-ok]=$EV_VALID
  done
}
for r in $(seq 1 "$ROUNDS"); do
  if [ $((r % 2)) = 1 ]; then first=truebench; ours; theirs; else first=openssl; theirs; ours; fi
  echo "== round $r ($first first)"
  echo "$TB" | sed -n '1,2p'
  echo "evidence (truebench, all ciphers): $TB_EV"
  printf '%-12s %6s %14s %14s %7s\n' cipher bytes truebench openssl ratio
  for c in $CIPHERS; do
    o=($(echo "$TB" | awk -v c="$c" '$1 == c {for (i = 2; i <= 7; i++) {sub(/k$/, "", $i); printf "%s ", $i}}'))
    p=(${OPS[$c]})
    echo "evidence (openssl $c): ${OPS[$c-ev]}"
    ok=0
    if [ "$TB_OK" = 1 ] && [ "${OPS[$c-ok]}" = 1 ]; then ok=1; else echo "  (not valid: the $c rows were measured on a busy machine)"; fi
    i=0
    for size in 16 64 256 1024 8192 16384; do
      q=$(awk -v a="${o[$i]}" -v b="${p[$i]}" 'BEGIN{print a/b}')
      printf '%-12s %6s %13.2fk %13.2fk %7.3f\n' "$c" "$size" "${o[$i]}" "${p[$i]}" "$q"
      [ $ok = 1 ] && RATIOS[$c-$size]+="$q "
      i=$((i + 1))
    done
  done
done
echo
echo "median ratio truebench / openssl over the valid rounds ($(uptime | sed 's/.*load/load/')):"
for c in $CIPHERS; do
  line="$c"
  for size in 16 64 256 1024 8192 16384; do
    line+=" $size:$(ev_median ${RATIOS[$c-$size]:-})"
  done
  echo "  $line"
done
