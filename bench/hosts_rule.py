#!/usr/bin/env python3
"""Rounds on several hosts, simulated: how often benchtui says the effect
depends on the machine, and names the right host.

Every figure comes from `benchtui report --format json` on a synthetic
log (one cell a simulated round, so one report reads them all), so this
measures the C arithmetic itself.  Three hosts, reps dealt in turn, n
reps a host; each host its own speed (divided out by the pairing), each
leg its own noise:

  sym3  exp(N(0, 0.03)) a leg, independent;
  tail  exp(N(0, 0.03)), and 1 leg in 5 slowed by U(0, 50%) (noise that
        only adds time, as on a shared VM).

The arm is slower by `effect` on host hB only (0: no host differs, so
any depends_on_machine is a false alarm; the rule's bound is 1 - level).
Seeded: the same arguments print the same table.

usage: bench/hosts_rule.py [--rounds N] [--seed S] [--benchtui PATH]
                      [--out FILE.json] [--markdown]
"""
import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile

HOSTS = ["hA", "hB", "hC"]


def leg_noise(rnd, kind):
    x = math.exp(rnd.gauss(0, 0.03))
    if kind == "tail" and rnd.random() < 0.2:
        x *= 1 + rnd.uniform(0, 0.5)
    return x


def write_log(path, rnd, kind, n, effect, rounds):
    with open(path, "w") as f:
        f.write(json.dumps({"t": "round", "name": "sim", "level": 0.95,
                            "margin": 0.01}) + "\n")
        for c in range(rounds):
            for r in range(1, 3 * n + 1):
                h = HOSTS[(r - 1) % 3]
                speed = 1 + 0.5 * HOSTS.index(h)
                b = speed * leg_noise(rnd, kind)
                a = speed * leg_noise(rnd, kind) * (
                    1 + effect if h == "hB" else 1)
                for arm, v in (("b", b), ("a", a)):
                    f.write(json.dumps({"t": "leg", "cell": "r%d" % c,
                                        "arm": arm, "rep": r, "host": h,
                                        "status": "ok", "wall": v}) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=32)
    ap.add_argument("--benchtui", default="build/meson/tui/benchtui")
    ap.add_argument("--out")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as d:
        for kind in ("sym3", "tail"):
            for effect in (0.0, 0.05, 0.10, 0.30):
                for n in (4, 6, 10, 20):
                    rnd = random.Random("%d-%s-%g-%d" % (args.seed, kind,
                                                         effect, n))
                    log = os.path.join(d, "sim.log")
                    write_log(log, rnd, kind, n, effect, args.rounds)
                    rep = json.loads(subprocess.run(
                        [args.benchtui, "report", log, "--baseline", "b",
                         "--format", "json"], check=True,
                        capture_output=True, text=True).stdout)
                    dep = named = other = 0
                    for cell in rep["cells"].values():
                        m = cell["arms"]["a"]["metrics"]["wall"]
                        if m["depends_on_machine"]:
                            dep += 1
                            if m["hosts_differ"] == ["hB"]:
                                named += 1
                            elif "hB" not in m["hosts_differ"]:
                                other += 1
                    rows.append({"noise": kind, "effect": effect, "n": n,
                                 "depends": dep / args.rounds,
                                 "named_hB": named / args.rounds,
                                 "hB_missed": other / args.rounds})
                    print("%s %+.0f%% n=%d: depends %.1f%%, names hB alone "
                          "%.1f%%, names others without hB %.1f%%" % (
                              kind, 100 * effect, n, 100 * dep / args.rounds,
                              100 * named / args.rounds,
                              100 * other / args.rounds), file=sys.stderr)
    if args.out:
        json.dump({"rounds": args.rounds, "seed": args.seed, "rows": rows},
                  open(args.out, "w"), indent=1)
    if args.markdown:
        print("| noise | hB's effect | reps a host | depends on the machine "
              "| hB alone named | others named, not hB |")
        print("|---|--:|--:|--:|--:|--:|")
        for r in rows:
            print("| %s | %s | %d | %.1f%% | %.1f%% | %.1f%% |" % (
                r["noise"], "none" if r["effect"] == 0 else
                "+%g%%" % (100 * r["effect"]), r["n"], 100 * r["depends"],
                100 * r["named_hB"], 100 * r["hB_missed"]))


if __name__ == "__main__":
    main()
