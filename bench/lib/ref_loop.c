/* ref [-p] [-l BYTES] [-a PID] FILE...: the least a monitor must do per sample, as the
   reference for truebench monitor --interval 0.1: one absolute 100 ms timed wake-up, a pread
   of each file into a static buffer, one short line to stdout — with -l, padded with spaces to
   BYTES (a line as long as the monitor's: storing it is the kernel's work for any monitor
   printing that much) — until killed. With -a, its ticks fall half an interval after those of
   the process PID ticking at the same rate: it watches PID's CPU time (every thread's, from
   /proc/PID/task/x/schedstat, which moves when a thread goes back to sleep) until it moves —
   one of PID's ticks has ended — and ticks 50 ms after that. Loops side by side at a random
   phase share the kernel's warm caches unevenly: the one that wakes just after the other
   finds the read and wake-up paths warm. With -p, the wall-clock time per tick of its parts
   (from the wake-up to the line written, the reads, the write) is printed to stderr when
   SIGTERM or SIGINT stops it, in the words of truebench's `tick-profile` build
   (bench/tick_phases.sh).
   Compiled by the bench scripts that use it (cc -O2). bench/cold_costs.sh compiles it also with
   -DCOLD_CODE (each tick then runs 200 more 64-byte lines of code, each its own, reached by a
   taken jump over the line after it) or -DCOLD_PAGES=N (each tick writes one byte to each of N
   more pages, seven pages apart): what a tick's extra code or pages cost after the sleep. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
static volatile sig_atomic_t stop;
static void on_signal(int sig) { (void)sig; stop = 1; }
static unsigned long long ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000ULL + t.tv_nsec;
}
/* Every thread's CPU time of PID in ns (0 when it is gone). */
static unsigned long long task_ns(const char *pid) {
  char path[512];
  snprintf(path, sizeof path, "/proc/%s/task", pid);
  DIR *d = opendir(path);
  if (!d) return 0;
  unsigned long long total = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    snprintf(path, sizeof path, "/proc/%s/task/%s/schedstat", pid, e->d_name);
    FILE *f = fopen(path, "r");
    unsigned long long v = 0;
    if (f) {
      if (fscanf(f, "%llu", &v) == 1) total += v;
      fclose(f);
    }
  }
  closedir(d);
  return total;
}
/* Waits until PID's CPU time moves (one of its ticks ended), for 1 s at most. */
static int await_tick(const char *pid) {
  unsigned long long before = task_ns(pid), end = ns() + 1000000000ULL;
  struct timespec poll = {0, 200000};
  while (!stop && ns() < end) {
    nanosleep(&poll, NULL);
    unsigned long long now = task_ns(pid);
    if (now > before) return 1;
    before = now;
  }
  return 0;
}
#ifdef COLD_CODE
/* 200 lines of code: a jump, then padding to 128 bytes, 200 times (x86-64). */
__attribute__((noinline)) static void cold_code(void) {
  __asm__ volatile(".rept 200\n jmp 1f\n .skip 126, 0x90\n 1:\n .endr" ::: "memory");
}
#endif
#ifdef COLD_PAGES
static volatile char cold_pages[(COLD_PAGES) * 7 * 4096 + 1];
#endif
int main(int argc, char **argv) {
  int first = 1, want = 0, prof = 0;
  const char *after = NULL;
  /* 1 MiB: /proc/softirqs and /proc/stat of a 512-CPU machine fit whole. */
  static char buf[1 << 20], line[4096];
  if (argc > first && strcmp(argv[first], "-p") == 0) {
    prof = 1;
    first++;
  }
  if (argc > first + 1 && strcmp(argv[first], "-l") == 0) {
    want = atoi(argv[first + 1]);
    first += 2;
  }
  if (argc > first + 1 && strcmp(argv[first], "-a") == 0) {
    after = argv[first + 1];
    first += 2;
  }
  if (want < 0 || want > (int)sizeof line) want = sizeof line;
  int n = argc - first;
  /* As many files as given: a 512-CPU machine's sampler keeps thousands open. */
  int *fds = calloc(n > 0 ? n : 1, sizeof *fds);
  if (!fds) return 1;
  for (int i = 0; i < n; i++) fds[i] = open(argv[first + i], O_RDONLY);
  if (prof) {
    /* Without SA_RESTART: the signal ends the sleep, and the loop ends. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
  }
  unsigned long long ticks = 0, t_tick = 0, t_read = 0, t_write = 0;
  if (after && !await_tick(after))
    fprintf(stderr, "ref: no tick of process %s seen within 1 s: the phase is not set\n", after);
  struct timespec next;
  clock_gettime(CLOCK_MONOTONIC, &next);
  /* The first deadline below is 100 ms on: 50 ms back puts it half an interval after PID's. */
  if (after) {
    next.tv_nsec -= 50000000;
    if (next.tv_nsec < 0) { next.tv_nsec += 1000000000; next.tv_sec--; }
  }
  for (long long k = 0; !stop; k++) {
    next.tv_nsec += 100000000;
    if (next.tv_nsec >= 1000000000) { next.tv_nsec -= 1000000000; next.tv_sec++; }
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR && !stop) {}
    if (stop) break;
    unsigned long long t0 = prof ? ns() : 0, t1 = 0, t2 = 0;
    long sum = 0;
    for (int i = 0; i < n; i++) {
      if (prof) t1 = ns();
      if (fds[i] >= 0) sum += pread(fds[i], buf, sizeof buf, 0);
      if (prof) t_read += ns() - t1;
    }
#ifdef COLD_CODE
    cold_code();
#endif
#ifdef COLD_PAGES
    for (int p = 0; p < (COLD_PAGES); p++) cold_pages[p * 7 * 4096] += 1;
#endif
    int len = snprintf(line, 64, "%lld %ld\n", k, sum);
    if (want > len) {
      memset(line + len - 1, ' ', want - len);
      line[want - 1] = '\n';
      len = want;
    }
    if (prof) t2 = ns();
    if (write(1, line, len) < 0) return 1;
    if (prof) {
      unsigned long long t3 = ns();
      t_write += t3 - t2;
      t_tick += t3 - t0;
      ticks++;
    }
  }
  if (prof && ticks > 0) {
    double d = ticks * 1e3;
    fprintf(stderr, "tick-profile ticks %llu tick_us %.2f read_us %.2f write_us %.2f user_us %.2f\n",
            ticks, t_tick / d, t_read / d, t_write / d, (t_tick - t_read - t_write) / d);
  }
  return 0;
}
