#!/usr/bin/env python3
"""Summary of bench/tick_phases.sh: per loop the median over the valid rounds of each part of
a tick (µs), and truebench minus each C loop — the difference taken within each round (the
loops ran side by side, while the host's state moves every loop's figures from one round to
the next), then its median.

Input, one line per loop and round: VALID ROUND LOOP TICK READ WRITE USER PARSE FORMAT (VALID
1 or 0; PARSE and FORMAT "nan" for the C loops).

Usage: bench/lib/phases_summary.py ROWS_FILE
"""
import math
import statistics
import sys

PARTS = ["tick", "read", "write", "user", "parse", "format"]


def show(label, vals, signed=False):
    cells = ("-" if math.isnan(x) else ("%+.2f" if signed else "%.2f") % x for x in vals)
    print("%-12s" % label + "".join("%9s" % c for c in cells))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    rows = [line.split() for line in open(sys.argv[1]) if line.strip()]
    valid = [r for r in rows if r[0] == "1"]
    by = {(r[1], r[2]): [float(x) for x in r[3:]] for r in valid}
    rounds = sorted({r[1] for r in valid}, key=int)
    loops = [l for l in ("tb", "c", "cpad") if all((r, l) in by for r in rounds)]
    if not rounds or "tb" not in loops:
        sys.exit("no valid round with every loop's figures: nothing to summarise")
    print(f"medians over {len(rounds)} valid rounds, µs per tick:")
    print("%-12s" % "" + "".join("%9s" % p for p in PARTS))
    for loop in loops:
        show(loop, [statistics.median(col) for col in zip(*(by[(r, loop)] for r in rounds))])
    for ref in loops[1:]:
        diffs = [[a - b for a, b in zip(by[(r, "tb")][:4], by[(r, ref)][:4])] for r in rounds]
        show("tb - " + ref, [statistics.median(col) for col in zip(*diffs)], signed=True)
    print("(tb - c, tb - cpad: within each round, then the median over the rounds)")


if __name__ == "__main__":
    main()
