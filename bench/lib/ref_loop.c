/* ref [-l BYTES] FILE...: the least a monitor must do per sample, as the reference for
   truebench monitor --interval 0.1: one absolute 100 ms timed wake-up, a pread of each file
   into a static buffer, one short line to stdout — with -l, padded with spaces to BYTES (a
   line as long as the monitor's: storing it is the kernel's work for any monitor printing
   that much) — until killed. Compiled by the bench scripts that use it (cc -O2). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char **argv) {
  int first = 1, want = 0, fds[512];
  static char buf[1 << 16], line[4096];
  if (argc > 2 && strcmp(argv[1], "-l") == 0) {
    want = atoi(argv[2]);
    first = 3;
  }
  if (want < 0 || want > (int)sizeof line) want = sizeof line;
  int n = argc - first;
  if (n > 512) n = 512;
  for (int i = 0; i < n; i++) fds[i] = open(argv[first + i], O_RDONLY);
  struct timespec next;
  clock_gettime(CLOCK_MONOTONIC, &next);
  for (long long k = 0;; k++) {
    next.tv_nsec += 100000000;
    if (next.tv_nsec >= 1000000000) { next.tv_nsec -= 1000000000; next.tv_sec++; }
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR) {}
    long sum = 0;
    for (int i = 0; i < n; i++)
      if (fds[i] >= 0) sum += pread(fds[i], buf, sizeof buf, 0);
    int len = snprintf(line, 64, "%lld %ld\n", k, sum);
    if (want > len) {
      memset(line + len - 1, ' ', want - len);
      line[want - 1] = '\n';
      len = want;
    }
    if (write(1, line, len) < 0) return 1;
  }
}
