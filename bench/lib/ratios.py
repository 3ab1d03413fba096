#!/usr/bin/env python3
"""A/B ratios of paired figures with their uncertainty.

Each input line holds two figures taken in the same round, "A B" (as
bench/monitor_side_by_side.sh writes them with SAVE=FILE); '#' starts a comment. Prints the
number of rounds, the median of the per-round ratios A/B and their geometric mean, each with a
bootstrap 95 % interval (4 000 resamples of the rounds, fixed seed: the same input prints the
same figures), and how many rounds came out below 1. Rounds of several runs pool into one
figure; a file given after -i holds B A instead (a run with the two sides swapped), so the
side a loop was started on cancels when both orders are pooled.

Usage: bench/lib/ratios.py [-i] FILE [[-i] FILE]...   (-i applies to the file after it)
"""
import math
import random
import statistics
import sys


def read_pairs(path, inverted):
    pairs = []
    try:
        text = open(path, encoding="utf-8").read()
    except OSError as e:
        sys.exit(f"{path}: cannot read: {e.strerror}")
    for n, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            a, b = (float(x) for x in line.split())
        except ValueError:
            sys.exit(f"{path}:{n}: expected two numbers 'A B', found {line!r}")
        if not (a > 0 and b > 0 and math.isfinite(a) and math.isfinite(b)):
            sys.exit(f"{path}:{n}: figures must be positive and finite, found {line!r}")
        pairs.append((b, a) if inverted else (a, b))
    return pairs


def interval(values, stat, rng, resamples=4000):
    runs = sorted(stat(rng.choices(values, k=len(values))) for _ in range(resamples))
    return runs[int(0.025 * resamples)], runs[int(0.975 * resamples) - 1]


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        # Asked for: the help on standard output; no arguments: on standard error, an error.
        print(__doc__.strip(), file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    pairs, inverted = [], False
    for arg in argv:
        if arg == "-i":
            inverted = True
            continue
        pairs += read_pairs(arg, inverted)
        inverted = False
    if len(pairs) < 2:
        sys.exit(f"{len(pairs)} round(s): at least two are needed for an interval")
    ratios = [a / b for a, b in pairs]
    logs = [math.log(r) for r in ratios]
    rng = random.Random(1)
    med_lo, med_hi = interval(ratios, statistics.median, rng)
    geo_lo, geo_hi = (math.exp(x) for x in interval(logs, statistics.fmean, rng))
    below = sum(r < 1 for r in ratios)
    print(
        f"{len(ratios)} rounds: A/B median {statistics.median(ratios):.3f} "
        f"(95 % {med_lo:.3f}–{med_hi:.3f}), geometric mean "
        f"{math.exp(statistics.fmean(logs)):.3f} (95 % {geo_lo:.3f}–{geo_hi:.3f}), "
        f"below 1 in {below}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
