#!/usr/bin/env python3
"""Write a synthetic round log of N leg lines (default 1,000,000) for the
report benchmark: CELLS cells x 4 arms (base, fast, slow, aa = A/A of base),
reps = N / (cells * 4), every leg line carrying the full field set of a leg
line and three counters.  Deterministic (seeded), so runs compare.

With --folder, OUT is a sealed round folder instead (round.json,
environment.json, log.jsonl and SHA256SUMS), for the compare benchmark:
--seed and --slow make a second round that differs from the first.
With --server, every leg line carries a server block (its cpu), as a
server round's do: one more metric, server_cpu.

usage: gen-legs.py OUT.jsonl [--legs N] [--cells C] [--server]
       gen-legs.py --folder DIR [--legs N] [--cells C] [--seed S] [--slow F]
                   [--server]
"""
import argparse
import hashlib
import json
import os
import random


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--legs", type=int, default=1_000_000)
    ap.add_argument("--cells", type=int, default=10)
    ap.add_argument("--folder", action="store_true",
                    help="OUT is a round folder to make and seal")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--slow", type=float, default=1.08,
                    help="the slow arm's factor")
    ap.add_argument("--server", action="store_true",
                    help="a server block (its cpu) on every leg line")
    args = ap.parse_args()

    arms = [("base", 1.00), ("fast", 0.93), ("slow", args.slow), ("aa", 1.00)]
    reps = max(1, args.legs // (args.cells * len(arms)))
    rnd = random.Random(args.seed)
    sha = "0" * 64
    log = args.out
    if args.folder:
        os.makedirs(args.out)
        sha = write_round(args.out, args.cells, reps)
        log = os.path.join(args.out, "log.jsonl")
    seq = 0
    with open(log, "w") as f:
        f.write('{"t":"round","ts":"2026-11-29T15:00:00.000Z","name":"bench1m",'
                '"spec_sha256":"%s","dir":"/tmp/bench1m"}\n' % sha)
        for c in range(args.cells):
            cell = "cell%02d" % c
            for r in range(1, reps + 1):
                for arm, factor in arms:
                    seq += 1
                    noise = 1 + rnd.gauss(0, 0.01)
                    wall = 0.5 * factor * noise * (1 + c / 10)
                    ut, st = wall * 0.8, wall * 0.1
                    cyc = int(wall * 3e9)
                    ins = int(cyc * (1.8 + rnd.random() * 0.1))
                    srv = ('"server":{"cpu":%.6f},' % (wall * 0.4 *
                           (1 + rnd.gauss(0, 0.02)))
                           if args.server else "")
                    f.write(
                        '{"t":"leg","ts":"2026-11-29T15:%02d:%02d.%03dZ","cell":"%s",'
                        '"arm":"%s","rep":%d,"seq":%d,"status":"ok","rc":0,'
                        '"signal":null,"timed_out":false,"wall":%.9f,"utime":%.6f,'
                        '"stime":%.6f,"cpu":%.6f,"maxrss_kb":%d,"minflt":%d,'
                        '"majflt":0,"cycles":%d,"instructions":%d,"counters":'
                        '{"cycles":%d,"instructions":%d,"task-clock":%d},'
                        '"bytes":%d,%s"foreign":%.3f,"bin":"/usr/bin/zstd"}\n'
                        % (seq // 60000 % 60, seq // 1000 % 60, seq % 1000, cell,
                           arm, r, seq, wall, ut, st, ut + st,
                           10000 + rnd.randrange(500), 2000 + rnd.randrange(50),
                           cyc, ins, cyc, ins, int(wall * 1e9),
                           1 << 20, srv, rnd.random() * 0.2))
    if args.folder:
        seal(args.out)
    print("%s: %d leg lines (%d cells x %d arms x %d reps)"
          % (args.out, seq, args.cells, len(arms), reps))


def write_round(folder, cells, reps):
    """round.json and environment.json of the generated round; the
    round file's sha256, for the log's round event."""
    rnd = {"name": "bench1m", "reps": reps, "command": ["/bin/true"],
           "baseline": "base", "quiet": False,
           "counters": ["cycles", "instructions", "task-clock"],
           "arms": [{"name": "base"}, {"name": "fast"}, {"name": "slow"},
                    {"name": "aa", "aa_of": "base"}],
           "cells": [{"name": "cell%02d" % c} for c in range(cells)]}
    raw = (json.dumps(rnd, indent=2) + "\n").encode()
    with open(os.path.join(folder, "round.json"), "wb") as f:
        f.write(raw)
    env = {"hostname": "bench", "kernel": "6.1.0", "cpu_model": "synthetic",
           "cores_online": 2, "microcode": None, "governor": {},
           "benchtui_version": "0.1.0", "bins": {"/bin/true": "0" * 64}}
    with open(os.path.join(folder, "environment.json"), "w") as f:
        json.dump(env, f, indent=2)
    return hashlib.sha256(raw).hexdigest()


def seal(folder):
    """SHA256SUMS over the folder's files, as sha256sum -c reads it."""
    lines = []
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), "rb") as f:
            lines.append("%s  %s\n" % (hashlib.sha256(f.read()).hexdigest(),
                                       name))
    with open(os.path.join(folder, "SHA256SUMS"), "w") as f:
        f.writelines(lines)


if __name__ == "__main__":
    main()
