#!/usr/bin/env python3
"""Where benchtui's own thread spends a leg: a round of N legs of true
(tmpfs, gate off, the machine's default counters) under perf record
(the software clock, DWARF call chains, benchtui's thread alone), each
sample given to the innermost step of the leg it is in, and the shares
scaled to the thread's task-clock a leg in a second, unrecorded run.

  bench/leg-steps.py [N] [BENCHTUI]

Needs perf (linux-perf).  Prints one line a step: microseconds a leg and
the share.  The leg's own time (release to exit) is not benchtui's and
is not here; what is here is what a bare spawn-and-wait loop does not
do, plus its clone, poll and wait4.  Like every timing, take it on an
idle machine (cat /proc/loadavg under 1.0).
"""
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# Innermost match wins: a sample in logw_append under round_emit is the
# log's, one in round_emit itself the events' other work.
STEPS = [
    ("command (legcmd, scratch, paths)", ["round_leg_setup", "legcmd_build",
                                          "legcmd_finish"]),
    ("output pipe (made, drained, closed)", ["legout_create", "legout_finish"]),
    ("clone (spawn_create)", ["spawn_create"]),
    ("counters: open", ["counters_open"]),
    ("counters: read (and close)", ["counters_read",
                                    "counters_read_close"]),
    ("leg_start made", ["round_leg_start_made"]),
    ("release (kill)", ["spawn_release"]),
    ("wait (poll: sleep and wake-up)", ["leg_wait"]),
    ("reap (wait4)", ["__GI___wait4", "wait4", "spawn_reaped"]),
    ("strays (cgroup.events)", ["cgroup_kill", "round_leg_end_leftovers"]),
    ("spawn_finish (pidfd)", ["spawn_finish"]),
    ("leg line made", ["round_leg_event"]),
    ("events: log line encoded", ["event_line"]),
    ("events: log write", ["logw_append"]),
    ("events: tally", ["tally_feed"]),
    ("events: front end (headless line)", ["headless_event"]),
    ("events: other", ["round_emit"]),
    ("other round_leg", ["round_leg"]),
]


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    bt = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        ROOT, "build/meson/tui/benchtui")
    true = os.path.realpath(shutil.which("true"))
    tmp = tempfile.mkdtemp(prefix="leg-steps.")
    base = "/dev/shm" if os.path.isdir("/dev/shm") else tmp
    rnd = os.path.join(tmp, "r.json")
    with open(rnd, "w") as f:
        json.dump({"name": "steps", "reps": n, "command": [true],
                   "baseline": "a", "arms": [{"name": "a"}],
                   "cells": [{"name": "c"}], "quiet": False}, f)
    try:
        # The thread's cpu a leg, unrecorded.
        st = os.path.join(tmp, "stat.txt")
        out = tempfile.mkdtemp(prefix="leg-steps-out.", dir=base)
        subprocess.run(["perf", "stat", "-x,", "--no-inherit", "-e",
                        "task-clock", "-o", st, bt, "run", rnd, "--out",
                        out + "/r", "--headless"], check=True,
                       stdout=subprocess.DEVNULL)
        with open(st) as f:
            ms = next(float(x.split(",")[0]) for x in f
                      if "task-clock" in x)
        per_leg = ms * 1e3 / n
        data = os.path.join(tmp, "perf.data")
        subprocess.run(["perf", "record", "-q", "-o", data, "-e",
                        "cpu-clock", "-F", "5000", "--call-graph",
                        "dwarf,16384", "--no-inherit", bt, "run", rnd,
                        "--out", out + "/p", "--headless"], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        script = subprocess.run(["perf", "script", "-i", data, "-F", "ip,sym"],
                                check=True, capture_output=True,
                                text=True).stdout
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(out, ignore_errors=True)
    owner = {sym: name for name, syms in STEPS for sym in syms}
    count = collections.Counter()
    total = 0
    for sample in script.split("\n\n"):
        frames = [ln.split()[1].split("+")[0] for ln in sample.splitlines()
                  if len(ln.split()) >= 2]
        if not frames:
            continue
        total += 1
        if "round_leg" not in frames:
            count["outside the legs (set-up, seal)"] += 1
            continue
        count[next((owner[f] for f in frames if f in owner), "?")] += 1
    print("benchtui's thread: %.1f us a leg (task-clock, %d legs, "
          "unrecorded); %d samples" % (per_leg, n, total))
    for name in [s for s, _ in STEPS] + ["?",
                                         "outside the legs (set-up, seal)"]:
        if count[name]:
            print("  %-40s %6.1f us  %4.1f%%" % (
                name, per_leg * count[name] / total,
                100.0 * count[name] / total))


if __name__ == "__main__":
    main()
