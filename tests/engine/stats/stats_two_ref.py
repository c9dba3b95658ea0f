#!/usr/bin/env python3
# test: est=7 long
"""engine/stats's two-sample arithmetic (stats-two-cli) against
tests/compare_ref.py, an independent implementation: small samples with
and without ties (the exact distribution, and the normal approximation
that ties bring), samples past the exact limit (50) with and without
ties, at levels 0.90, 0.95 and 0.99.  k must be equal, the estimate and
the interval equal to 1e-14."""
import math
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.join(os.environ["BENCHTUI_SOURCE_DIR"], "tests"))
import compare_ref  # noqa: E402

CLI = os.path.join(os.environ["BENCHTUI_BUILD_DIR"], "tests",
                   "stats-two-cli")


def sample(rnd, n, ties, scale):
    if ties:
        grid = [0.9, 0.95, 1.0, 1.0, 1.02, 1.05, 1.1]
        return [scale * rnd.choice(grid) for _ in range(n)]
    return [scale * math.exp(rnd.gauss(0, 0.05)) for _ in range(n)]


def cases():
    rnd = random.Random(21)
    sizes = [(1, 1), (1, 9), (3, 3), (4, 4), (4, 5), (6, 9), (10, 12),
             (20, 30), (50, 50), (50, 7)]
    big = [(51, 50), (80, 120), (300, 200), (1000, 700)]
    out = []
    for na, nb in sizes + big:
        for ties in (False, True):
            for level in (0.90, 0.95, 0.99):
                a = sample(rnd, na, ties, 1.0)
                b = sample(rnd, nb, ties, rnd.choice([0.97, 1.0, 1.04]))
                out.append((level, a, b, ties))
    return out


def close(x, y):
    if x is None or y is None:
        return x is None and y is None
    return abs(x - y) <= 1e-14 * abs(x)


def main():
    cs = cases()
    text = "".join("%r %d %d\n%s\n%s\n" % (
        lv, len(a), len(b), " ".join(repr(v) for v in a),
        " ".join(repr(v) for v in b)) for lv, a, b, _ in cs)
    p = subprocess.run([CLI], input=text, capture_output=True, text=True)
    if p.returncode != 0:
        print("stats-two-cli failed: " + p.stderr)
        return 1
    got = p.stdout.split("\n")
    bad = 0
    kinds = set()
    for (lv, a, b, ties), line in zip(cs, got):
        k, est, lo, hi = line.split()
        want_est, want_ci, want_k = compare_ref.interval2(a, b, lv)
        ci = None if lo == "nan" else [float(lo), float(hi)]
        tag = "na=%d nb=%d ties=%s level=%g" % (len(a), len(b), ties, lv)
        exact = not ties and len(a) <= 50 and len(b) <= 50
        kinds.add((exact, want_ci is not None))
        errs = []
        if int(k) != want_k:
            errs.append("k %s != %d" % (k, want_k))
        if not close(want_est, float(est)):
            errs.append("estimate %s != %r" % (est, want_est))
        if (ci is None) != (want_ci is None) or (ci and not all(
                close(x, y) for x, y in zip(want_ci, ci))):
            errs.append("ci %r != %r" % (ci, want_ci))
        for e in errs:
            print("FAIL %s: %s" % (tag, e))
        bad += bool(errs)
    # Every kind was seen: exact and normal, with and without an interval.
    for kind in ((True, True), (True, False), (False, True)):
        if kind not in kinds:
            print("FAIL: no case of kind (exact, has ci) = %r" % (kind,))
            bad += 1
    print("%d cases, %d failed" % (len(cs), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
