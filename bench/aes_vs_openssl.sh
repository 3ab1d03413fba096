#!/usr/bin/env bash
# truebench's built-in AES table (RustCrypto aes/cbc/aes-gcm) vs `openssl speed -elapsed -evp`
# on the same CPU, cipher by cipher: aes-128/192/256-cbc and aes-256-gcm over 16 … 16384-byte
# chunks, both in openssl's unit (1000s of bytes per second), with the ratio per cell.
#
#   bench/aes_vs_openssl.sh [SECONDS]     (per chunk size, default 1; needs openssl, taskset)
# Env: CPU (default: the last CPU allowed), TRUEBENCH (binary, default
#      target/release/truebench, built if missing).
. "$(dirname "$0")/lib/evidence.sh"
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."

SECS=${1:-1}
for t in openssl taskset; do
  command -v "$t" >/dev/null || { echo "$t not found: apt-get install -y openssl util-linux" >&2; exit 1; }
done
TRUEBENCH=${TRUEBENCH:-target/release/truebench}
if [ ! -x "$TRUEBENCH" ]; then
  CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1} cargo build -q --release -p truebench
fi
CPU=${CPU:-$(taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' | tail -1 | sed 's/.*-//')}

echo "machine: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), $(uptime | sed 's/.*load/load/')"
echo "cpu $CPU; $(openssl version); $SECS s per cell"
ev_start
TB=$("$TRUEBENCH" measure aes --cpu "$CPU" --seconds "$SECS")
ev_stop
TB_EV=$EV_LINE
TB_OK=$EV_VALID
echo "$TB" | sed -n '1,2p'
echo "evidence (truebench, all ciphers): $TB_EV"
printf '%-12s %6s %14s %14s %7s\n' cipher bytes truebench openssl ratio
for c in aes-128-cbc aes-192-cbc aes-256-cbc aes-256-gcm; do
  ours=$(echo "$TB" | awk -v c="$c" '$1 == c {for (i = 2; i <= 7; i++) {sub(/k$/, "", $i); printf "%s ", $i}}')
  # openssl 3 prints the row upper-case; 1.x lower-case.
  ev_start
  peer=$(taskset -c "$CPU" openssl speed -elapsed -seconds "$SECS" -evp "$c" 2>/dev/null |
    awk -v c="$c" 'tolower($1) == c {for (i = 2; i <= 7; i++) {sub(/k$/, "", $i); printf "%s ", $i}}')
  ev_stop
  echo "evidence (openssl $c): $EV_LINE"
  [ "$TB_OK" = 1 ] && [ "$EV_VALID" = 1 ] || echo "  (not valid: the $c rows were measured on a busy machine)"
  set -- $ours
  o=("$@")
  set -- $peer
  p=("$@")
  i=0
  for size in 16 64 256 1024 8192 16384; do
    printf '%-12s %6s %13.2fk %13.2fk %7.3f\n' "$c" "$size" "${o[$i]}" "${p[$i]}" \
      "$(awk -v a="${o[$i]}" -v b="${p[$i]}" 'BEGIN{print a/b}')"
    i=$((i + 1))
  done
done
