#!/usr/bin/env bash
# What touching a page costs after the process slept: a C program compiled here at run time
# (nothing compiled is kept) touches 32 pages of its own memory — already in memory, one byte
# each — after each sleep, timing each touch with the TSC, and prints for each sleep length the
# mean cost per page and how many of the 32 pages per wake-up cost more than 5 000 cycles.
# On a VM the host may take pages back between two touches; then a page untouched for a
# while costs a fault in the hypervisor when touched again, and a sampler that sleeps
# between ticks pays it for every page its tick touches. This says how much that is here.
#
# Not a test: prints figures for BENCHMARKS.md. x86-64 only (rdtscp). Usage:
# bench/cold_pages.sh [WAKEUPS] (default 30 per sleep length). Each line carries the evidence
# of the machine's other activity (bench/lib/evidence.sh).
. "$(dirname "$0")/lib/evidence.sh"
set -euo pipefail
N=${1:-30}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cat >"$TMP/touch.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>
static char mem[64 * 4096];
int main(int argc, char **argv) {
  long ms = atol(argv[1]);
  int n = atoi(argv[2]);
  for (long i = 0; i < (long)sizeof mem; i += 4096) mem[i] = 1;
  struct timespec d = {ms / 1000, (ms % 1000) * 1000000};
  unsigned aux;
  double sum = 0;
  long slow = 0, worst = 0;
  for (int rep = 0; rep < n + 2; rep++) {
    nanosleep(&d, NULL);
    for (int i = 0; i < 32; i++) {
      unsigned long long t0 = __rdtscp(&aux);
      (void)((volatile char *)mem)[(long)i * 4096 + 128];
      long c = (long)(__rdtscp(&aux) - t0);
      if (rep < 2) continue; /* the first wake-ups warm up */
      sum += c;
      if (c > 5000) slow++;
      if (c > worst) worst = c;
    }
  }
  printf("sleep %5ld ms: %8.0f cycles per page (mean), %5.2f of 32 pages per wake-up over 5000 cycles, worst %ld cycles\n",
         ms, sum / (32.0 * n), slow / (double)n, worst);
  return 0;
}
C
cc -O2 -o "$TMP/touch" "$TMP/touch.c"
echo "machine: $(nproc) CPUs, $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo), kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg); TSC $(awk -F': ' '/^cpu MHz/ {print $2; exit}' /proc/cpuinfo) MHz"
for ms in 1 10 100 1000; do
  n=$N
  [ "$ms" = 1000 ] && n=$(( N < 10 ? N : 10 ))
  ev_start
  line=$("$TMP/touch" "$ms" "$n")
  ev_stop
  valid=""
  [ "$EV_VALID" = 1 ] || valid=" (NOT VALID: others above ${EV_LIMIT} %)"
  echo "$line; $EV_LINE$valid"
done
