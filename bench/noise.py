#!/usr/bin/env python3
"""Both estimators on simulated rounds: error rate and power.

Every verdict comes from build/meson/bench/estimate (bench/estimate.c),
which calls the functions benchtui's reports call, so this measures the C
arithmetic itself.  Two arms in mirror order (AB BA BA AB ..), n reps:

  vm    real noise: blocks of 20 consecutive legs (10 reps) drawn from
        tests/data/noise/vm-2026-12-01.csv, a fixed CPU loop on a shared VM
        (positive-only, heavy-tailed, bursty: lag-1 autocorrelation 0.42),
        each leg's wall over the data's floor;
  sym3  symmetric noise: each leg exp(N(0, 0.03)), independent;
  tail  the vm noise, but the arm's effect reaches only a random half of
        its legs (a slow path taken half the time): the floor does not
        move, the typical leg does.

The arm's legs are multiplied by (1 + effect).  At effect 0 an `above` or
`below` is a false positive; SPEC's bound is (1 - level) + 1% per
estimator.  Adaptive rows run SPEC's looks (reps min 10, max 40: looks at
10, 15, 23, 35, 40, each at level 1 - 0.05/5) and stop at the first
decided verdict.  Seeded: the same arguments print the same table.

usage: bench/noise.py [--rounds N] [--seed S] [--level L] [--margin M]
                      [--estimate PATH] [--out FILE.json] [--markdown]
       bench/noise.py --aa-check [--estimators floor] [--rounds N] [--seed S]
         (A/A only on the vm noise at n = 6, 10, 20, 40: exit 1 when a
         listed estimator's false-positive rate is over the bound)
"""
import argparse
import csv
import datetime
import json
import math
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DATA = os.path.join(ROOT, "tests", "data", "noise", "vm-2026-12-01.csv")
ESTIMATORS = ("paired", "floor")
VERDICTS = ("above", "below", "same", "undecided", "unknown")
NS = (6, 10, 20, 40)
EFFECTS = (0.0, 0.02, 0.05, 0.10)
BLOCK = 20
LOOKS = (10, 15, 23, 35, 40)


def load_noise(path=DATA):
    """The legs' wall times in run order, over their floor (>= 1)."""
    with open(path) as f:
        rows = sorted(csv.DictReader(f), key=lambda r: int(r["seq"]))
    wall = [float(r["wall_s"]) for r in rows]
    floor = min(wall)
    return [w / floor for w in wall]


def mirror(legs, n):
    """Legs in run order -> (arm, base) values of n reps in mirror order."""
    a, b = [], []
    for r in range(1, n + 1):
        x, y = legs[2 * r - 2], legs[2 * r - 1]
        rot = ((r - 1) // 2) % 2
        first_is_arm = (rot == 0) == (r % 2 == 1)
        a.append(x if first_is_arm else y)
        b.append(y if first_is_arm else x)
    return a, b


def draw(rnd, model, n, effect, noise):
    if model == "sym3":
        legs = [math.exp(rnd.gauss(0, 0.03)) for _ in range(2 * n)]
    else:
        legs = []
        while len(legs) < 2 * n:
            s = rnd.randrange(len(noise) - BLOCK)
            legs.extend(noise[s:s + BLOCK])
    a, b = mirror(legs, n)
    if model == "tail":
        a = [x * (1 + effect) if rnd.random() < 0.5 else x for x in a]
    else:
        a = [x * (1 + effect) for x in a]
    return a, b


def estimate(exe, jobs):
    """jobs: (level, margin, a, b) -> [{estimator: verdict}] in order."""
    text = "".join("%r %r %d %s %s\n" % (lv, mg, len(a),
                                          " ".join("%r" % x for x in a),
                                          " ".join("%r" % x for x in b))
                   for lv, mg, a, b in jobs)
    out = subprocess.run([exe], input=text, capture_output=True, text=True,
                         check=True).stdout.splitlines()
    res = []
    for line in out:
        f = line.split()
        res.append({f[0]: f[4], f[5]: f[9]})
    return res


def fixed_row(exe, rnd, noise, model, effect, n, rounds, level, margin):
    jobs = [(level, margin) + draw(rnd, model, n, effect, noise)
            for _ in range(rounds)]
    counts = {e: dict.fromkeys(VERDICTS, 0) for e in ESTIMATORS}
    for r in estimate(exe, jobs):
        for e in ESTIMATORS:
            counts[e][r[e]] += 1
    return {"model": model, "effect": effect, "n": n, "rounds": rounds,
            "level": level, "counts": counts}


def adaptive_row(exe, rnd, noise, model, effect, rounds, confidence, margin):
    level = 1 - (1 - confidence) / len(LOOKS)
    jobs = []
    for _ in range(rounds):
        a, b = draw(rnd, model, LOOKS[-1], effect, noise)
        jobs.extend((level, margin, a[:k], b[:k]) for k in LOOKS)
    res = estimate(exe, jobs)
    counts = {e: dict.fromkeys(VERDICTS, 0) for e in ESTIMATORS}
    reps = dict.fromkeys(ESTIMATORS, 0)
    for i in range(rounds):
        looks = res[i * len(LOOKS):(i + 1) * len(LOOKS)]
        for e in ESTIMATORS:
            k = next((j for j, r in enumerate(looks)
                      if r[e] in ("above", "below", "same")), len(LOOKS) - 1)
            counts[e][looks[k][e]] += 1
            reps[e] += LOOKS[k]
    return {"model": model, "effect": effect, "n": "10..40", "rounds": rounds,
            "level": level, "counts": counts,
            "mean_reps": {e: reps[e] / rounds for e in ESTIMATORS}}


def pct(row, e, v):
    return 100.0 * row["counts"][e][v] / row["rounds"]


def false_pos(row, e):
    return pct(row, e, "above") + pct(row, e, "below")


def print_table(rows, markdown, bound):
    """above / below / same per estimator; OVER marks an A/A false-positive
    rate (above + below) past the bound."""
    if markdown:
        print("| noise | effect | n | paired above | below | same | "
              "floor above | below | same |")
        print("|---|--:|--:|--:|--:|--:|--:|--:|--:|")
    else:
        print("%-5s %15s %6s | %-26s | %-26s" % (
            "noise", "effect", "n", "paired above/below/same",
            "floor above/below/same"))
    for row in rows:
        cells = []
        for e in ESTIMATORS:
            over = row["effect"] == 0 and false_pos(row, e) > bound
            cells.append((pct(row, e, "above"), pct(row, e, "below"),
                          " OVER" if over else "", pct(row, e, "same")))
        eff = "+%g%%" % (100 * row["effect"]) if row["effect"] else "A/A"
        if "mean_reps" in row:
            eff += " (adaptive)"
        if markdown:
            print("| %s | %s | %s | %s |" % (
                row["model"], eff, row["n"], " | ".join(
                    "%.1f%% | %.1f%%%s | %.1f%%" % c for c in cells)))
        else:
            print("%-5s %15s %6s | %s" % (row["model"], eff, row["n"],
                  " | ".join("%5.1f%% %5.1f%%%-5s %5.1f%%" % c
                             for c in cells)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=20)
    ap.add_argument("--level", type=float, default=0.95)
    ap.add_argument("--margin", type=float, default=0.01)
    ap.add_argument("--estimate", default=os.path.join(
        ROOT, "build", "meson", "bench", "estimate"))
    ap.add_argument("--out")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--aa-check", action="store_true")
    ap.add_argument("--estimators", default=",".join(ESTIMATORS),
                    help="--aa-check: the estimators held to the bound")
    a = ap.parse_args()
    if not os.access(a.estimate, os.X_OK):
        sys.exit("noise.py: %s: not built (make build)" % a.estimate)
    rnd = random.Random(a.seed)
    noise = load_noise()
    bound = 100 * (1 - a.level) + 1
    rows = []
    if a.aa_check:
        for n in NS:
            rows.append(fixed_row(a.estimate, rnd, noise, "vm", 0.0, n,
                                  a.rounds, a.level, a.margin))
        print_table(rows, False, bound)
        held = a.estimators.split(",")
        over = [(r["n"], e) for r in rows for e in held
                if false_pos(r, e) > bound]
        for n, e in over:
            print("FAIL %s at n = %d: A/A false positives over %.1f%%"
                  % (e, n, bound))
        sys.exit(1 if over else 0)
    for model in ("vm", "sym3"):
        for effect in EFFECTS:
            for n in NS:
                rows.append(fixed_row(a.estimate, rnd, noise, model, effect,
                                      n, a.rounds, a.level, a.margin))
    for n in NS:
        rows.append(fixed_row(a.estimate, rnd, noise, "tail", 0.10, n,
                              a.rounds, a.level, a.margin))
    for model in ("vm", "sym3"):
        for effect in (0.0, 0.05):
            rows.append(adaptive_row(a.estimate, rnd, noise, model, effect,
                                     a.rounds, a.level, a.margin))
    print("%d rounds a row, level %g, margin %g, seed %d; OVER: A/A false "
          "positives above %.1f%%" % (a.rounds, a.level, a.margin, a.seed,
                                       bound))
    print_table(rows, a.markdown, bound)
    for row in rows:
        if "mean_reps" in row:
            print("adaptive %s %s: mean reps paired %.1f, floor %.1f" % (
                row["model"], "+%g%%" % (100 * row["effect"]),
                row["mean_reps"]["paired"], row["mean_reps"]["floor"]))
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"date": datetime.date.today().isoformat(),
                       "seed": a.seed, "rounds": a.rounds, "level": a.level,
                       "margin": a.margin, "block": BLOCK, "rows": rows}, f,
                      indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
