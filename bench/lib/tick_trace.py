#!/usr/bin/env python3
"""Where two sampling loops' ticks spend their CPU time, from a kernel trace.

Reads an ftrace text trace (`trace` of tracefs, trace_clock x86-tsc: timestamps in TSC
cycles) of the events sched:sched_switch, raw_syscalls:sys_enter and raw_syscalls:sys_exit of
two sampling threads (bench/tick_trace.sh). A tick starts when the call in which the thread
slept returns (clock_nanosleep, or the futex of a timed wait): the calls are then named "sleep"
on both sides, whichever each uses. Per tick and thread:
  - on-CPU: from the sleep's return to the switch out in the next sleep (what the CPU-time
    ratio counts, but for the kernel's return path after the wake-up: see Loop);
  - in the kernel, per system call: from its entry to its exit (for the sleep, from its entry
    to the switch out);
  - between calls: from one call's exit to the next one's entry — the process's own code, plus
    the kernel's entry and exit paths around each call, which both pay per call.
Ticks in which a thread was switched out other than to sleep are left out. Prints the medians
of each part for both processes, and the medians of each gap between two calls, in order.

Usage: tick_trace.py TRACE PID_A NAME_A PID_B NAME_B TSC_MHZ
"""
import re
import statistics
import sys
from collections import Counter

EVENT = re.compile(r"^\s*.+?-(\d+)\s+\[\d+\]\s+\S+\s+(\d+): (\w+): (.*)$")
SWITCH = re.compile(r"prev_pid=(\d+) .*prev_state=(\S+) ==>")
# A sleep shorter than this (µs) is a block within a tick, not the wait between two: the
# samplers traced tick every 100 ms.
MIN_SLEEP_US = 20_000
# Beyond 40 gaps, the ones with the largest differences shown.
SHOWN = 15


class Loop:
    """One thread's ticks. A tick runs from the return of the call in which the thread slept to
    its switch out in the next one. The switch back in is not used: the pid filter of ftrace
    does not log every switch from the idle task (here most were missing), so the kernel's
    return path after the wake-up is counted on neither side."""

    def __init__(self):
        self.start = None  # when the current tick began (the sleep's return)
        self.enter = None  # (call, when) of the call under way
        self.exit = None  # when the last call returned
        self.last_call = None
        self.cur = Counter()
        self.gaps = []
        self.preempted = False
        self.slept = False  # switched out asleep during the call under way
        self.out = None  # when it was switched out asleep
        self.ticks = []

    def switch_out(self, t, state):
        if self.slept:
            return  # switched out again in the same call: its first switch counts
        if state.startswith("S") and self.enter is not None:
            if self.start is not None:
                self.cur["on-CPU"] = t - self.start
                self.cur["call sleep"] += t - self.enter[1]
            self.slept = True
            self.out = t
        elif self.start is not None:
            self.preempted = True

    def sys_enter(self, t, call):
        if self.exit is not None:
            self.cur["between calls"] += t - self.exit
            self.gaps.append((f"{self.last_call}>{call}", t - self.exit))
        self.exit = None
        self.enter = (call, t)

    def sys_exit(self, t, call):
        if self.slept and self.start is not None and t - self.out < MIN_SLEEP_US:
            # Blocked briefly within a tick (a lock another thread held), not the tick's
            # sleep: the tick goes on, and is left out as a preempted one is.
            self.slept = False
            self.preempted = True
            self.cur.pop("call sleep", None)
        if self.slept:
            if self.gaps:  # the gap before the sleep was named by the call's number
                self.gaps[-1] = (self.gaps[-1][0].rsplit(">", 1)[0] + ">sleep", self.gaps[-1][1])
            if self.start is not None and not self.preempted:
                self.ticks.append((self.cur, self.gaps))
            self.cur, self.gaps, self.preempted, self.slept = Counter(), [], False, False
            self.start, self.enter, self.exit, self.last_call = t, None, t, "sleep"
            return
        if self.enter is not None:
            self.cur[f"call {call}"] += t - self.enter[1]
        self.enter = None
        self.exit = t
        self.last_call = call


def main():
    if len(sys.argv) != 7:
        sys.exit(__doc__.strip().splitlines()[-1])
    path, pa, na, pb, nb, mhz = sys.argv[1:]
    try:
        per_us = float(mhz)
    except ValueError:
        sys.exit(f"TSC_MHZ must be a number, not {mhz!r}")
    loops = {pa: Loop(), pb: Loop()}
    with open(path) as f:
        for line in f:
            if "LOST" in line and "EVENTS]" in line:
                sys.exit(f"{path}: the trace lost events ({line.strip()}): a larger buffer or a shorter run")
            m = EVENT.match(line)
            if not m:
                continue
            tid, ts, kind, rest = m.groups()
            t = int(ts) / per_us
            if kind == "sched_switch":
                s = SWITCH.search(rest)
                if s and s.group(1) in loops:
                    loops[s.group(1)].switch_out(t, s.group(2))
            elif tid in loops and kind in ("sys_enter", "sys_exit"):
                call = rest.split()[1]
                loop = loops[tid]
                (loop.sys_enter if kind == "sys_enter" else loop.sys_exit)(t, call)
    names = {pa: na, pb: nb}
    # Whole ticks only: each from a sleep's return seen in the trace to the next sleep.
    ticks = {p: loops[p].ticks for p in loops}
    if not all(ticks.values()):
        sys.exit("no whole tick of both processes in the trace")
    keys = sorted(set(k for p in ticks for c, _ in ticks[p] for k in c))
    print(f"median µs per tick ({len(ticks[pa])} and {len(ticks[pb])} ticks):")
    print(f"{'':16} {names[pa]:>12} {names[pb]:>12} {'difference':>11}")
    for k in ["on-CPU"] + [k for k in keys if k != "on-CPU"]:
        a = statistics.median(c[k] for c, _ in ticks[pa])
        b = statistics.median(c[k] for c, _ in ticks[pb])
        print(f"{k:16} {a:12.2f} {b:12.2f} {a - b:+11.2f}")
    print("(calls are numbered as on x86-64: 0 read, 1 write, 17 pread64, 202 futex)")
    # The gaps in order. A call that only one side makes (the C loop's write in session mode)
    # is left out: the gaps before and after it count as one.
    def calls_of(gaps):
        return [g.split(">")[1] for g, _ in gaps]

    shared = set.intersection(*(set(c for _, gaps in ticks[p] for c in calls_of(gaps)) for p in ticks))

    def merged(gaps):
        out, acc, since = [], 0.0, gaps[0][0].split(">")[0] if gaps else ""
        for g, d in gaps:
            acc += d
            to = g.split(">")[1]
            if to in shared:
                out.append((f"{since}>{to}", acc))
                acc, since = 0.0, to
        return out

    cols = {p: [merged(gaps) for _, gaps in ticks[p]] for p in ticks}
    shapes = {p: Counter(tuple(g for g, _ in m) for m in cols[p]) for p in cols}
    sa = shapes[pa].most_common(1)[0][0]
    if sa != shapes[pb].most_common(1)[0][0]:
        print("the two make different calls in a tick: no gap-by-gap comparison")
        return
    cols = {p: [m for m in cols[p] if tuple(g for g, _ in m) == sa] for p in cols}
    print(f"between calls, in order (median µs; {names[pa]} and {names[pb]}; {len(cols[pa])} and {len(cols[pb])} ticks of that shape):")
    rows = []
    for i, gap in enumerate(sa):
        a = statistics.median(g[i][1] for g in cols[pa])
        b = statistics.median(g[i][1] for g in cols[pb])
        rows.append((i, gap, a, b))
    # A large machine's tick makes hundreds of calls: its largest differences, in order.
    shown = rows if len(rows) <= 40 else sorted(sorted(rows, key=lambda r: r[3] - r[2])[:SHOWN])
    for i, gap, a, b in shown:
        print(f"  {i:3} {gap:9} {a:8.2f} {b:8.2f} {a - b:+8.2f}")
    if len(shown) < len(rows):
        rest = [r for r in rows if r not in shown]
        d = sum(a - b for _, _, a, b in rest)
        print(f"  the other {len(rest)} gaps: {d:+.2f} together (sum of their medians' differences)")


if __name__ == "__main__":
    main()
