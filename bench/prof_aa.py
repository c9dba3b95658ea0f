#!/usr/bin/env python3
"""A/A pairs of real profiles: how often the intervals over runs call a
symbol moved when nothing moved.

Each round is one benchtui round of prof-memcpy (tests/e2e/prof_memcpy.c)
with two arms, a and aa (an A/A copy of a: the same program, the same
environment), both profiled by perf under the profile's settings (default:
DWARF call chains, runs interleaved in mirror order, min_samples 2000,
min_runs 10).  From each round's report (json), every symbol above
--share (default 0.5%) of its samples in either arm counts once; it is a
false move when its difference is not marked noise.  SPEC's bound: at most
5% of those symbols.  Exit 1 when the fraction is over --bound.

usage: bench/prof_aa.py [--rounds 20] [--min-samples N] [--min-runs N]
                        [--share 0.5] [--bound 0.05] [--keep DIR [--reread]]
  (BENCHTUI and BENCHTUI_PROF_MEMCPY default to build/meson's)
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def one_round(bt, prog, perf, tmp, i):
    """Run round i in tmp/out-i; its folder."""
    rnd = {"name": "prof-aa-%d" % i, "reps": 1, "baseline": "a",
           "quiet": False, "bin": prog, "command": ["${BIN}", "50000"],
           "arms": [{"name": "a"}, {"name": "aa", "aa_of": "a"}],
           "cells": [{"name": "c"}],
           "profile": {"arms": ["a", "aa"], "perf": perf}}
    path = os.path.join(tmp, "round-%d.json" % i)
    out = os.path.join(tmp, "out-%d" % i)
    with open(path, "w") as f:
        json.dump(rnd, f)
    subprocess.run([bt, "run", path, "--headless", "--out", out],
                   check=True, stdout=subprocess.DEVNULL)
    return out


def read_round(bt, out):
    """The report's profile of aa against a, as json."""
    rep = subprocess.run([bt, "report", out, "--format", "json"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(rep)["profiles"]["c"]["aa"]["perf"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--min-samples", type=int, default=None)
    ap.add_argument("--min-runs", type=int, default=None)
    ap.add_argument("--share", type=float, default=0.5)
    ap.add_argument("--bound", type=float, default=0.05)
    ap.add_argument("--keep", help="keep the rounds' folders here (and "
                    "with --reread, read them again instead of running)")
    ap.add_argument("--reread", action="store_true")
    a = ap.parse_args()
    bt = os.environ.get("BENCHTUI",
                        os.path.join(ROOT, "build/meson/tui/benchtui"))
    prog = os.environ.get("BENCHTUI_PROF_MEMCPY",
                          os.path.join(ROOT, "build/meson/tests/prof-memcpy"))
    perf = {}
    if a.min_samples is not None:
        perf["min_samples"] = a.min_samples
    if a.min_runs is not None:
        perf["min_runs"] = a.min_runs
    counted = moved = 0
    tmp = a.keep or tempfile.mkdtemp(prefix="prof-aa-")
    os.makedirs(tmp, exist_ok=True)
    try:
        for i in range(a.rounds):
            out = os.path.join(tmp, "out-%d" % i)
            if not a.reread:
                shutil.rmtree(out, ignore_errors=True)
                one_round(bt, prog, perf, tmp, i)
            p = read_round(bt, out)
            n = m = 0
            names = []
            for r in p.get("symbols", []):
                if "kind" in r or "diff" not in r:
                    continue
                if max(r.get("share", 0), r.get("vs_share", 0)) <= a.share:
                    continue
                n += 1
                if r.get("noise") is False:
                    m += 1
                    names.append("%s %+.2f [%+.2f, %+.2f]" % (
                        r["symbol"], r["diff"], r["diff_ci"][0],
                        r["diff_ci"][1]))
            counted += n
            moved += m
            print("round %2d: %d samples vs %d, %d symbols above %.1f%%, "
                  "%d marked moved %s" % (i + 1, p.get("samples", 0),
                                          p.get("vs_samples", 0), n,
                                          a.share, m, "; ".join(names)),
                  flush=True)
    finally:
        if not a.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    frac = moved / counted if counted else 0.0
    print("A/A: %d of %d symbols above %.1f%% marked moved over %d rounds: "
          "%.1f%% (bound %.0f%%)" % (moved, counted, a.share, a.rounds,
                                     100 * frac, 100 * a.bound))
    return 1 if frac > a.bound else 0


if __name__ == "__main__":
    sys.exit(main())
