#!/usr/bin/env python3
"""A monitoring loop's user-space footprint per tick, from valgrind's lackey.

Reads, on standard input, `valgrind --tool=lackey --trace-mem=yes` output interleaved with the
program's own standard output (both to one pipe: bench/tick_footprint.sh). Every line the
program writes ends a tick; lackey's lines ("I  addr,size" an instruction, " L", " S", " M" a
data load, store or modify) between two of them are that tick's work. Prints, for the ticks
after the first SKIP (start-up), the median per tick of: instructions executed, distinct
64-byte lines of code and of data touched, and distinct 4-KiB pages touched (code and data).

Those are what a tick costs a CPU whose caches and TLB went cold during the sleep: each
distinct line is a miss, each distinct page a walk. Unlike a timing they do not move with
the host's state (their medians move by ~2 % between runs, with the lengths of the figures
parsed), so two builds compare to within that. Only user space is seen: the kernel's part
(the reads themselves) is not.

Usage: ... | bench/lib/footprint.py LABEL [SKIP]   (SKIP: ticks left out first, default 3)
"""
import statistics
import sys

KINDS = {b"I ": "i", b" L": "d", b" S": "d", b" M": "d"}


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        sys.exit(2)
    label = sys.argv[1]
    try:
        skip = int(sys.argv[2]) if len(sys.argv) == 3 else 3
    except ValueError:
        sys.exit(f"SKIP must be a whole number of ticks, not {sys.argv[2]!r}")
    ticks = []
    instr, code, data = 0, set(), set()
    for line in sys.stdin.buffer:
        kind = KINDS.get(line[:2])
        if kind is None:
            if line.startswith(b"=="):
                continue  # valgrind's own messages
            ticks.append((instr, len(code), len(data), len({a >> 6 for a in code | data})))
            instr, code, data = 0, set(), set()
            continue
        try:
            addr = int(line[3:].split(b",", 1)[0], 16)
        except ValueError:
            continue
        if kind == "i":
            instr += 1
            code.add(addr >> 6)
        else:
            data.add(addr >> 6)
    ticks = ticks[skip:]
    if len(ticks) < 5:
        sys.exit(
            f"{label}: {len(ticks)} ticks after the first {skip}: too few to tell "
            "(the program printed too few lines under valgrind: give it more seconds)"
        )
    cols = list(zip(*ticks))
    med = [statistics.median(c) for c in cols]
    print(
        f"{label:<12} {len(ticks):5d} ticks  instructions {med[0]:8.0f}  code lines {med[1]:5.0f}"
        f"  data lines {med[2]:5.0f}  pages {med[3]:4.0f}"
    )


if __name__ == "__main__":
    main()
