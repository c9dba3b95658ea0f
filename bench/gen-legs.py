#!/usr/bin/env python3
"""Write a synthetic round log of N leg lines (default 1,000,000) for the
report benchmark: CELLS cells x 4 arms (base, fast, slow, aa = A/A of base),
reps = N / (cells * 4), every leg line carrying SPEC.md's full field set and
three counters.  Deterministic (seeded), so runs compare.

usage: gen-legs.py OUT.jsonl [--legs N] [--cells C]
"""
import argparse
import random


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--legs", type=int, default=1_000_000)
    ap.add_argument("--cells", type=int, default=10)
    args = ap.parse_args()

    arms = [("base", 1.00), ("fast", 0.93), ("slow", 1.08), ("aa", 1.00)]
    reps = max(1, args.legs // (args.cells * len(arms)))
    rnd = random.Random(42)
    seq = 0
    with open(args.out, "w") as f:
        f.write('{"t":"round","ts":"2026-11-29T15:00:00.000Z","name":"bench1m",'
                '"spec_sha256":"%s","dir":"/tmp/bench1m"}\n' % ("0" * 64))
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
                    f.write(
                        '{"t":"leg","ts":"2026-11-29T15:%02d:%02d.%03dZ","cell":"%s",'
                        '"arm":"%s","rep":%d,"seq":%d,"status":"ok","rc":0,'
                        '"signal":null,"timed_out":false,"wall":%.9f,"utime":%.6f,'
                        '"stime":%.6f,"cpu":%.6f,"maxrss_kb":%d,"minflt":%d,'
                        '"majflt":0,"cycles":%d,"instructions":%d,"counters":'
                        '{"cycles":%d,"instructions":%d,"task-clock":%d},'
                        '"bytes":%d,"foreign":%.3f,"bin":"/usr/bin/zstd"}\n'
                        % (seq // 60000 % 60, seq // 1000 % 60, seq % 1000, cell,
                           arm, r, seq, wall, ut, st, ut + st,
                           10000 + rnd.randrange(500), 2000 + rnd.randrange(50),
                           cyc, ins, cyc, ins, int(wall * 1e9),
                           1 << 20, rnd.random() * 0.2))
    print("%s: %d leg lines (%d cells x %d arms x %d reps)"
          % (args.out, seq, args.cells, len(arms), reps))


if __name__ == "__main__":
    main()
