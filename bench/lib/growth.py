#!/usr/bin/env python3
"""Resident memory, open descriptors and threads of one process over time, and whether they
stay flat: every INTERVAL seconds for SECONDS, a row `t rss_kib anon_kib fds threads sockets`;
at the end the range of each over the readings after the first WARMUP seconds and the verdict:
its own memory (RssAnon: what it allocated — the resident pages of its binary come and go with
the page cache, and a busy machine's reclaim drops them) within LIMIT KiB, the same descriptors
(sockets apart: a server's come and go with its clients) and threads. Exit 1 when the process
ended early or grew.

    growth.py PID SECONDS INTERVAL LABEL [WARMUP] [LIMIT_KIB]
"""
import os
import sys
import time


def reading(pid):
    """(RSS KiB, anonymous RSS KiB, descriptors other than sockets, threads, sockets): a
    server's sockets come and go with its clients; the rest must not change."""
    status = open(f"/proc/{pid}/status").read()
    field = {l.split(":")[0]: l.split(":")[1].split() for l in status.splitlines() if ":" in l}
    files = sockets = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:"):
            sockets += 1
        else:
            files += 1
    return int(field["VmRSS"][0]), int(field["RssAnon"][0]), files, int(field["Threads"][0]), sockets


def main():
    pid, seconds, interval, label = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    warmup = float(sys.argv[5]) if len(sys.argv) > 5 else 60.0
    limit = int(sys.argv[6]) if len(sys.argv) > 6 else 1024
    t0 = time.monotonic()
    rows = []
    print(f"{label}: t(s) rss(KiB) anon(KiB) fds threads sockets")
    while True:
        t = time.monotonic() - t0
        try:
            r = reading(pid)
        except (FileNotFoundError, ProcessLookupError):
            print(f"{label}: the process ended after {t:.0f} s")
            return 1
        rows.append((t, *r))
        print(f"{label}: {t:7.0f} {r[0]:9d} {r[1]:9d} {r[2]:4d} {r[3]:4d} {r[4]:4d}", flush=True)
        if t >= seconds:
            break
        time.sleep(max(0.0, min(interval, seconds - t)))
    # The readings after the first WARMUP seconds (the one at WARMUP itself is the last of them).
    after = [r for r in rows if r[0] > warmup] or rows[-1:]
    span = lambda i: (min(r[i] for r in after), max(r[i] for r in after))
    rss, anon, fds, thr, sock = span(1), span(2), span(3), span(4), span(5)
    ok = anon[1] - anon[0] <= limit and fds[0] == fds[1] and thr[0] == thr[1]
    print(f"{label}: after {warmup:.0f} s: own memory (RssAnon) {anon[0]}–{anon[1]} KiB ({anon[1] - anon[0]} KiB, "
          f"limit {limit}), RSS {rss[0]}–{rss[1]} KiB, descriptors {fds[0]}–{fds[1]} (and {sock[0]}–{sock[1]} "
          f"sockets), threads {thr[0]}–{thr[1]}: {'flat' if ok else 'GREW'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
