#!/usr/bin/env bash
# truebench's storage read kernel (`truebench measure io`) side by side with fio and hdparm,
# alternating tool by tool for ROUNDS rounds, on the same file (and the same block device):
#
#   sequential  2 MiB O_DIRECT reads    fio --rw=read --bs=2M --direct=1 --ioengine=psync
#               (device)                hdparm -t --direct DEVICE
#   random      4 KiB O_DIRECT, QD 1    fio --rw=randread --bs=4k --direct=1 --ioengine=psync --iodepth=1
#   cached      2 MiB from page cache   fio --rw=read --bs=2M --size=2M (the same 2 MiB again and
#                                       again, not direct: what hdparm -T and truebench read)
#               (device)                hdparm -T DEVICE
#
#   bench/io_vs_fio.sh [ROUNDS]     (default 3; needs fio, hdparm; reads only)
# Env: FILE (default /var/tmp/truebench-io-bench, created with 1 GiB of random data if missing
#      and removed afterwards; never on tmpfs: O_DIRECT), DEVICE (block device for the hdparm
#      rows, e.g. /dev/vda, or a loop device over a file where the disk itself may not be
#      opened: `losetup --direct-io=on -f --show FILE`; none by default), SECS (per test, default 3),
#      TRUEBENCH (binary, default target/release/truebench, built if missing).
# fio's buffers are page-aligned (--iomem_align=4096), as truebench's: on some CPUs (AMD Zen
# here) the kernel's copy into a buffer that is not cache-line aligned is ten times slower, and
# fio's default (malloc's 16 bytes) made its cached figure 1.8 GB/s instead of 22 GB/s.
# Units: MB/s = 10^6 bytes/s (fio's "bw" is KiB/s and hdparm's MB/sec is MiB/s: converted).
# Each pair runs under bench/lib/evidence.sh, alternating which tool goes first: its line
# carries the other processes' share of the machine; a pair measured while others used more
# than 3 % is marked not valid and left out of the medians.
. "$(dirname "$0")/lib/evidence.sh"
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."

ROUNDS=${1:-3}
SECS=${SECS:-3}
for t in fio hdparm; do
  command -v "$t" >/dev/null || { echo "$t not found: apt-get install -y fio hdparm" >&2; exit 1; }
done
TRUEBENCH=${TRUEBENCH:-target/release/truebench}
if [ ! -x "$TRUEBENCH" ]; then
  CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1} cargo build -q --release -p truebench
fi
FILE=${FILE:-/var/tmp/truebench-io-bench}
made=""
if [ ! -e "$FILE" ]; then
  dd if=/dev/urandom of="$FILE" bs=1M count=1024 status=none && sync
  made=1
fi
trap '[ -n "$made" ] && rm -f "$FILE"' EXIT

tb() { # test path -> MB/s
  "$TRUEBENCH" measure io --path "$2" --test "$1" --seconds "$SECS" --json |
    python3 -c 'import json,sys; print("%.1f" % json.load(sys.stdin)["mb_s"])'
}
fio_mb() { # rw bs direct [size] -> MB/s
  fio --name=b --filename="$FILE" --rw="$1" --bs="$2" --direct="$3" --ioengine=psync --iodepth=1 \
    --runtime="$SECS" --time_based --size="${4:-1G}" --invalidate=0 --iomem_align=4096 \
    --output-format=json 2>/dev/null |
    python3 -c 'import json,sys; j=json.load(sys.stdin)["jobs"][0]["read"]; print("%.1f" % (j["bw_bytes"]/1e6))'
}
hdparm_mb() { # -t|-T -> MB/s (hdparm prints MiB/s as "MB/sec")
  if [ "$1" = -t ]; then a=(-t --direct); else a=(-T); fi
  hdparm "${a[@]}" "$DEVICE" | awk '/MB\/sec/ {for(i=1;i<=NF;i++) if($i=="MB/sec") v=$(i-1)} END{printf "%.1f", v*1.048576}'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.3f", a/b}'; }

echo "machine: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), $(uptime | sed 's/.*load/load/')"
echo "file $FILE ($(df -T "$FILE" | awk 'NR==2{print $2" on "$1}')), device ${DEVICE:-none}, $SECS s per test"
printf '%-6s %-22s %12s %12s %7s  %s\n' round test truebench peer ratio evidence
declare -A R
# pair LABEL TB_CMD… -- PEER_CMD…: both, alternating which goes first by round; sets a, b.
pair() {
  local label=$1; shift
  local tbc=() peer=()
  while [ "$1" != -- ]; do tbc+=("$1"); shift; done
  shift; peer=("$@")
  ev_start
  if [ $((r % 2)) = 1 ]; then a=$("${tbc[@]}"); b=$("${peer[@]}"); else b=$("${peer[@]}"); a=$("${tbc[@]}"); fi
  ev_stop
  q=$(ratio "$a" "$b")
  printf '%-6s %-22s %12s %12s %7s  %s\n' "$r" "$label" "$a" "$b" "$q" "$EV_LINE"
  [ "$EV_VALID" = 1 ] && R["$label"]+="$q "
  return 0
}
for r in $(seq 1 "$ROUNDS"); do
  cat "$FILE" >/dev/null # cached: the file in the page cache for both
  for row in "sequential read 2M 1 1G" "random randread 4k 1 1G" "cached read 2M 0 2M"; do
    set -- $row
    pair "$1 (fio)" tb "$1" "$FILE" -- fio_mb "$2" "$3" "$4" "$5"
  done
  if [ -n "${DEVICE:-}" ]; then
    pair "sequential (hdparm -t)" tb sequential "$DEVICE" -- hdparm_mb -t
    pair "cached (hdparm -T)" tb cached "$DEVICE" -- hdparm_mb -T
  fi
done
echo
for k in "${!R[@]}"; do
  printf 'median ratio %-22s %s (%d valid)\n' "$k" "$(ev_median ${R[$k]})" "$(wc -w <<<"${R[$k]}")"
done
echo "($(uptime | sed 's/.*load/load/'))"
