#!/usr/bin/env python3
"""Power of benchtui's verdict, simulated.

Each leg's value is its arm's true value times exp(N(0, noise)) (noise 3%
by default: independent per leg, so a paired ratio's log has sd
noise * sqrt(2)).  For each effect and n, many rounds are drawn and given
the verdict benchtui gives (tests/stats_ref.py, the reference the C is
pinned to by tests/e2e/stats_ref.sh): false-positive rate = above or below
at effect 0; detection rate = above at a positive effect.

usage: bench/power.py [--trials N] [--noise 0.03] [--margin 0.01] [--level 0.95] [--seed S]
"""
import argparse
import math
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tests"))
import stats_ref  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=2000)
    ap.add_argument("--noise", type=float, default=0.03)
    ap.add_argument("--margin", type=float, default=0.01)
    ap.add_argument("--level", type=float, default=0.95)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    print("noise %.1f%% per leg, margin %.1f%%, level %g, %d rounds each"
          % (100 * a.noise, 100 * a.margin, a.level, a.trials))
    print("%-7s %4s %8s %8s %8s %10s %8s" % ("effect", "n", "above", "below",
                                             "same", "undecided", "unknown"))
    for effect in (0.0, 0.02, 0.05):
        for n in (6, 10, 30):
            counts = {"above": 0, "below": 0, "same": 0, "undecided": 0,
                      "unknown": 0}
            for _ in range(a.trials):
                rs = []
                for _ in range(n):
                    b = math.exp(rnd.gauss(0, a.noise))
                    x = (1 + effect) * math.exp(rnd.gauss(0, a.noise))
                    rs.append(x / b)
                _, ci = stats_ref.interval(rs, a.level)
                counts[stats_ref.verdict(ci, a.margin)] += 1
            print("%-7s %4d %7.1f%% %7.1f%% %7.1f%% %9.1f%% %7.1f%%" % (
                "+%g%%" % (100 * effect), n,
                *(100.0 * counts[k] / a.trials for k in
                  ("above", "below", "same", "undecided", "unknown"))))


main()
