#!/usr/bin/env python3
"""Both estimators on this machine: a +5% CPU loop against its baseline.

Each round runs bench/loop (build/meson/bench/loop) as three arms in mirror
order: base (14M iterations, about 15 ms), plus5 (14.7M, +5% work) and aa
(an A/A copy of base), with adaptive reps (min 10, max 40, metric wall:
looks at 10, 15, 23, 35, 40).  ROUNDS rounds with "estimator": "paired"
and as many with "floor", alternating so both see the same machine.  A
round's verdict is its report's after its last look: the goal is plus5
`above` in >= 80% of the rounds within 40 reps, with aa `above`/`below` in
<= 5%.  Each round also reports the other estimator's verdict (`alt`) on
the same legs.  Wants an idle machine: the 1-minute load is printed
before and after.

usage: bench/floor-real.py [--rounds 20] [--quiet] [--benchtui PATH]
                           [--loop PATH] [--out FILE.json]
  --quiet: keep the quiet gate on (default off: on a box shared with
  others it holds every leg).
"""
import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BUILD = os.path.join(ROOT, "build", "meson")


def load1():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def round_file(path, loop, estimator, quiet):
    spec = {
        "name": "floor-real-%s" % estimator,
        "reps": {"min": 10, "max": 40, "until": "decided", "metric": "wall"},
        "command": [loop, "${N}"],
        "baseline": "base",
        "arms": [{"name": "base", "vars": {"N": "14000000"}},
                 {"name": "plus5", "vars": {"N": "14700000"}},
                 {"name": "aa", "aa_of": "base"}],
        "cells": [{"name": "loop"}],
        "counters": ["task-clock"],
        "estimator": estimator,
        "quiet": quiet,
    }
    with open(path, "w") as f:
        json.dump(spec, f)


def one_round(bt, loop, work, i, estimator, quiet):
    rf = os.path.join(work, "r%d-%s.json" % (i, estimator))
    out = os.path.join(work, "o%d-%s" % (i, estimator))
    round_file(rf, loop, estimator, quiet)
    subprocess.run([bt, "run", "--headless", "--out", out, rf], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rep = json.loads(subprocess.run([bt, "report", out, "--format", "json"],
                                    check=True, capture_output=True,
                                    text=True).stdout)
    cell = rep["cells"]["loop"]
    res = {"estimator": estimator, "reps": cell["arms"]["plus5"]["metrics"]
           ["wall"]["n"]}
    for arm in ("plus5", "aa"):
        m = cell["arms"][arm]["metrics"]["wall"]
        res[arm] = {"verdict": m["verdict"], "estimate": m["estimate"],
                    "ci": m["ci"], "alt": m["alt"]}
    return res


def summary(results, estimator):
    rs = [r for r in results if r["estimator"] == estimator]
    n = len(rs)
    above = sum(r["plus5"]["verdict"] == "above" for r in rs)
    fp = sum(r["aa"]["verdict"] in ("above", "below") for r in rs)
    alt_above = sum(r["plus5"]["alt"]["verdict"] == "above" for r in rs)
    alt_fp = sum(r["aa"]["alt"]["verdict"] in ("above", "below") for r in rs)
    reps = sum(r["reps"] for r in rs) / n if n else 0
    return {"rounds": n, "plus5_above": above, "aa_false_pos": fp,
            "mean_reps": reps, "alt_plus5_above": alt_above,
            "alt_aa_false_pos": alt_fp}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--benchtui", default=os.path.join(BUILD, "tui",
                                                        "benchtui"))
    ap.add_argument("--loop", default=os.path.join(BUILD, "bench", "loop"))
    ap.add_argument("--out")
    a = ap.parse_args()
    for p in (a.benchtui, a.loop):
        if not os.access(p, os.X_OK):
            sys.exit("floor-real.py: %s: not built (make build)" % p)
    work = tempfile.mkdtemp(prefix="benchtui-floor-real.")
    start_load = load1()
    results = []
    try:
        for i in range(a.rounds):
            for est in ("paired", "floor"):
                r = one_round(a.benchtui, a.loop, work, i, est, a.quiet)
                results.append(r)
                print("round %2d %-6s reps %2d  plus5 %-9s (alt %-9s)  "
                      "aa %-9s (alt %s)" % (
                          i + 1, est, r["reps"], r["plus5"]["verdict"],
                          r["plus5"]["alt"]["verdict"], r["aa"]["verdict"],
                          r["aa"]["alt"]["verdict"]), flush=True)
    finally:
        subprocess.run(["chmod", "-R", "u+w", work])
        shutil.rmtree(work, ignore_errors=True)
    end_load = load1()
    print("1-minute load: %.2f at the start, %.2f at the end%s" % (
        start_load, end_load, "" if max(start_load, end_load) < 1 else
        " (not idle: repeat on an idle machine)"))
    sums = {e: summary(results, e) for e in ("paired", "floor")}
    for e, s in sums.items():
        print("%-6s rounds: plus5 above in %d of %d (goal >= 80%%), aa "
              "false positives %d of %d (goal <= 5%%), mean reps %.1f; the "
              "other estimator on the same legs: above %d, aa %d" % (
                  e, s["plus5_above"], s["rounds"], s["aa_false_pos"],
                  s["rounds"], s["mean_reps"], s["alt_plus5_above"],
                  s["alt_aa_false_pos"]))
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"date": datetime.date.today().isoformat(),
                       "load1_start": start_load, "load1_end": end_load,
                       "quiet": a.quiet, "summary": sums,
                       "rounds": results}, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
