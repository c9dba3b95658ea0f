#!/usr/bin/env python3
"""make bench, the quiet gate's part: what the gate costs and whether it
keeps its promises on a box that will not get quiet.

  bench/gate.py [--quick] [--no-save] [--only LIST] [--budget S]

hog            A hog busy on one core (a shell loop pinned there, nice -10
               as root) beside a 100-leg round of ~10 ms CPU legs with the
               default gate but budget_s S (default 30): the round must end
               within budget_s + its legs' time + 10%, and the start-up
               warning must name the hog's pid.
pinned         The client pinned to the hog's cpu, max_foreign_cores 100
               (so only the pinned cpu's own load can hold a leg): the
               legs wait, then run under "budget", and the report counts
               every one of them.
probe_cost     A 10 ms leg's wall against the probe's own time (from the
               leg lines) and against what the probe adds to a round (the
               same round with "probe" true and false, alternated): at most
               2% of the leg.
verdict        Time to a verdict: a +5% CPU loop arm and an A/A arm (three
               commands: loop N, loop 1.05N, loop N) with benchtui's
               defaults (no reps, no quiet: adaptive until decided on cpu,
               the scaled gate budget) against `hyperfine -N` with its
               defaults on the same three commands, alternated, on the box
               as it is and with a CPU hog on one core (a shell loop of the
               benchmark's own, ended by its pid).  For each run: the wall
               time from start to answer, whether the +5% arm was called
               slower (benchtui: its cpu verdict "above"; hyperfine: its
               mean ratio above 1, and beyond its own +- as well), whether
               the A/A pair was called different (benchtui: a cpu verdict
               above or below, and whether flagged biased; hyperfine: a
               ratio whose +- excludes 1), and benchtui's gate wait against
               5 s + 25% of its legs' time.
console_sleep  benchtui's own CPU in the console (tmux) during a 20 s sleep
               leg with window_ms 50, read from /proc/PID/stat over the
               middle of the leg: target <= 0.15% of a core.
probe_sibling  The client pinned to one cpu, a CPU loop started on the
               other (its sibling here: on this VM the two vCPUs share a
               host core, or not -- this measures which), every threshold
               but the probe's raised: how much slower the legs run with
               the loop than without, and whether the probe held them or
               marked them (gate "budget", their probe's slowdown).

Prints one table and writes bench/results/gate-LATEST.json and a dated
copy.  Not part of make check: it measures the machine, and its figures
mean something only on an otherwise idle one (the load at the start is
recorded; see docs/PERFORMANCE.md).
"""
import argparse
import datetime
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from bench import busy_cores, iso_s  # noqa: E402  (make bench's own)
BENCHTUI = os.environ.get("BENCHTUI",
                          os.path.join(ROOT, "build/meson/tui/benchtui"))
LOOP = os.path.join(os.path.dirname(BENCHTUI), "..", "bench", "loop")
NCPU = os.cpu_count() or 1


def die(msg):
    print("bench/gate: " + msg, file=sys.stderr)
    sys.exit(1)


def median(v):
    v = [x for x in v if x is not None]
    return statistics.median(v) if v else None


class Hog:
    """A shell loop pinned to cpu, ended by its pid (never by name)."""

    def __init__(self, cpu):
        argv = ["taskset", "-c", str(cpu)]
        if os.geteuid() == 0:
            argv += ["nice", "-n", "-10"]
        # taskset and nice exec what follows: the pid is the loop's.
        self.p = subprocess.Popen(argv + ["sh", "-c", "while :; do :; done"])
        self.cpu = cpu

    def cpu_s(self):
        with open("/proc/%d/stat" % self.p.pid) as f:
            v = f.read().rsplit(")", 1)[1].split()
        return (int(v[11]) + int(v[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self):
        self.p.send_signal(signal.SIGKILL)
        self.p.wait()


class Gate:
    def __init__(self, args):
        self.quick = args.quick
        self.budget = args.budget
        self.tmp = tempfile.mkdtemp(prefix="benchtui-gate.")
        self.n = 0
        self.rows = []
        self.iters = self.calibrate(10.0)

    def close(self):
        subprocess.run(["chmod", "-R", "u+w", self.tmp])
        shutil.rmtree(self.tmp, ignore_errors=True)

    def calibrate(self, ms):
        """Loop iterations for about ms of cpu (the fastest of a few
        runs)."""
        best = None
        for _ in range(7):
            t0 = time.monotonic()
            subprocess.run([LOOP, "4000000"], check=True)
            t = time.monotonic() - t0
            best = t if best is None or t < best else best
        return int(4e6 * ms / 1e3 / best)

    def round(self, name, reps, arms=("a", "b"), quiet=None, cpus=None):
        rnd = {"name": name, "reps": reps, "baseline": arms[0],
               "command": [LOOP, str(self.iters)],
               "arms": [{"name": a} for a in arms],
               "cells": [{"name": "c"}], "quiet": quiet or {}}
        if cpus is not None:
            rnd["cpus"] = {"client": str(cpus)}
        return rnd

    def run(self, rnd, env=None):
        """Run a round headless: (events, wall s, report json)."""
        self.n += 1
        path = os.path.join(self.tmp, "round%d.json" % self.n)
        out = os.path.join(self.tmp, "out%d" % self.n)
        with open(path, "w") as f:
            json.dump(rnd, f)
        t0 = time.monotonic()
        subprocess.run([BENCHTUI, "run", path, "--out", out, "--headless"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       env=dict(os.environ, **(env or {})))
        wall = time.monotonic() - t0
        with open(os.path.join(out, "log.jsonl")) as f:
            events = [json.loads(x) for x in f if x.strip()]
        rep = json.loads(subprocess.run(
            [BENCHTUI, "report", out, "--format", "json"],
            capture_output=True, text=True).stdout or "{}")
        return events, wall, rep

    @staticmethod
    def of(events, t):
        return [e for e in events if e.get("t") == t]

    def add(self, key, what, figure, unit, target=None, met=None,
            note=None):
        self.rows.append({"key": key, "what": what, "figure": figure,
                          "unit": unit, "target": target, "met": met,
                          "note": note})

    # --- the benchmarks ----------------------------------------------

    def hog(self):
        reps = 10 if self.quick else 50
        hog = Hog(NCPU - 1)
        try:
            time.sleep(0.5)
            c0 = hog.cpu_s()
            t0 = time.monotonic()
            ev, wall, rep = self.run(self.round(
                "hog", reps, quiet={"budget_s": self.budget}))
            share = (hog.cpu_s() - c0) / (time.monotonic() - t0)
        finally:
            hog.stop()
        legs = self.of(ev, "leg")
        legs_s = sum(x["wall"] for x in legs)
        limit = 1.1 * (self.budget + legs_s)
        start = [e for e in self.of(ev, "gate") if e.get("kind") == "startup"]
        named = bool(start) and any(t["pid"] == hog.p.pid
                                    for t in start[0].get("top", []))
        warned = any("(pid %d)" % hog.p.pid in w.get("msg", "")
                     for w in self.of(ev, "warning"))
        gates = {}
        for x in legs:
            gates[x.get("gate")] = gates.get(x.get("gate"), 0) + 1
        self.add("hog_round", "%d-leg round, hog on cpu %d, budget_s %g: "
                 "whole command" % (len(legs), hog.cpu, self.budget), wall,
                 "s", "<= 1.1 x (budget_s + legs %.2f s) = %.1f s" %
                 (legs_s, limit), wall <= limit,
                 "legs by gate %s; the hog had %.2f of its cpu" %
                 (gates, share))
        self.add("hog_named", "start-up warning names the hog (pid %d)" %
                 hog.p.pid, 1.0 if (named and warned) else 0.0, "yes/no",
                 "named", named and warned,
                 start[0]["msg"] if start else "no startup event")
        return {"wall": wall, "legs_s": legs_s, "gates": gates,
                "hog_share": share, "startup": start[0] if start else None,
                "not_quiet": rep.get("gate")}

    def pinned(self):
        reps = 5 if self.quick else 20
        budget = min(self.budget, 10)
        hog = Hog(NCPU - 1)
        try:
            time.sleep(0.5)
            ev, wall, rep = self.run(self.round(
                "pinned", reps, cpus=NCPU - 1, quiet={
                    "budget_s": budget, "max_foreign_cores": 100}))
        finally:
            hog.stop()
        legs = self.of(ev, "leg")
        held = [e for e in self.of(ev, "quiet")
                if e.get("ok") is False and
                e.get("client_busy", 0) > e.get("max_client_busy", 1)]
        counted = sum(a["not_quiet"] for a in
                      rep.get("gate", {}).get("arms", {}).values())
        first = legs[0]["wait_s"] if legs else None
        self.add("pinned_wait", "client pinned to the hog's cpu: the first "
                 "leg's wait (budget_s %g)" % budget, first, "s",
                 ">= budget_s - 0.5", first is not None and
                 first >= budget - 0.5, "%d quiet events held on client_busy"
                 % len(held))
        self.add("pinned_counted", "legs run under budget and counted as "
                 "not quiet", counted, "legs", "= %d (every leg)" % len(legs),
                 counted == len(legs),
                 "client_busy during the legs: median %s" %
                 median([x.get("client_busy") for x in legs]))
        return {"wall": wall, "first_wait": first, "held_events": len(held),
                "counted": counted, "legs": len(legs)}

    def probe_cost(self):
        reps = 20 if self.quick else 100
        trials = 2 if self.quick else 4
        per_leg = {True: [], False: []}
        probe_us, leg_wall = [], []
        # The gate's thresholds out of the way: only the probe differs.
        q = {"max_foreign_cores": 100, "max_client_busy": 100,
             "window_ms": 100, "budget_s": 0}
        for t in range(trials):
            for on in ((True, False) if t % 2 == 0 else (False, True)):
                ev, _, _ = self.run(self.round(
                    "cost", reps, arms=("a",), cpus=NCPU - 1,
                    quiet=dict(q, probe=on)))
                legs = self.of(ev, "leg")
                starts = self.of(ev, "leg_start")
                # First leg_start to last leg line, over the legs between.
                span = (iso_s(legs[-1]["ts"]) - iso_s(starts[0]["ts"])) / \
                    (len(legs) - 1)
                per_leg[on].append(span)
                if on:
                    probe_us += [x["probe_us"] for x in legs
                                 if x.get("probe_us") is not None]
                leg_wall += [x["wall"] for x in legs]
        wall = median(leg_wall)
        pu = median(probe_us)
        added = median(per_leg[True]) - median(per_leg[False])
        self.add("probe_time", "the probe's own time (median over the legs)",
                 pu, "us", "<= 2%% of a leg's wall (%.0f us)" % (wall * 2e4),
                 pu is not None and pu <= wall * 2e4,
                 "%.2f%% of the %.2f ms leg" % (pu / wall / 1e4, wall * 1e3))
        self.add("probe_added", "what the probe adds a leg (round per leg, "
                 "probe on - off, median of %d trials each)" % trials,
                 added * 1e6, "us", "<= 2%% of a leg's wall (%.0f us)" %
                 (wall * 2e4), added <= wall * 0.02,
                 "%.2f%% of the leg" % (100 * added / wall))
        return {"per_leg": {str(k): v for k, v in per_leg.items()},
                "probe_us": pu, "leg_wall": wall}

    def verdict(self):
        # Ten rounds a box, as the figure's "right in 9 of 10" needs.
        k = 2 if self.quick else 10
        v = Verdict(self, int(self.iters * 1.5))
        res = {}
        for box in ("quiet", "hog"):
            hog = Hog(NCPU - 1) if box == "hog" else None
            runs = {"benchtui": [], "hyperfine": []}
            try:
                if hog is not None:
                    time.sleep(0.5)
                for t in range(k):
                    order = ["benchtui", "hyperfine"]
                    if t % 2:
                        order.reverse()
                    for tool in order:
                        runs[tool].append(getattr(v, tool)())
            finally:
                if hog is not None:
                    hog.stop()
            res[box] = runs
            for tool in ("benchtui", "hyperfine"):
                rs = runs[tool]
                w = sorted(x["wall"] for x in rs)
                right = sum(x["right"] for x in rs)
                diff = sum(x["aa_different"] for x in rs)
                note = "%s: %.1f-%.1f s; +5%% right %d of %d (wrong %d); " \
                       "A/A called different %d of %d" % (
                           tool, w[0], w[-1], right, len(rs),
                           sum(x["wrong"] for x in rs), diff, len(rs))
                if tool == "benchtui":
                    note += "; reps %s; gate waits within 5 s + 25%% of " \
                            "the legs in %d of %d" % (
                                [x["reps"] for x in rs],
                                sum(x["wait_ok"] for x in rs), len(rs))
                else:
                    note += "; +5%% beyond its +- in %d" % sum(
                        x["right_beyond_pm"] for x in rs)
                self.add("verdict_%s_%s" % (box, tool),
                         "time to a verdict, %s, %s box (median of %d)" %
                         (tool, box, len(rs)), median(w), "s", None, None,
                         note)
            bt = median(x["wall"] for x in runs["benchtui"])
            hf = median(x["wall"] for x in runs["hyperfine"])
            self.add("verdict_%s_ratio" % box, "benchtui / hyperfine time "
                     "to a verdict, %s box" % box, bt / hf, "x", "<= 1.0",
                     bt <= hf)
        return res

    def console_sleep(self):
        """The console's own CPU during a 20 s sleep leg, window_ms 50."""
        if shutil.which("tmux") is None:
            self.add("console_sleep", "console CPU, 20 s sleep leg", None,
                     "%", "<= 0.15", None, "tmux is not installed")
            return None
        self.n += 1
        path = os.path.join(self.tmp, "round%d.json" % self.n)
        out = os.path.join(self.tmp, "out%d" % self.n)
        pidf = os.path.join(self.tmp, "pid%d" % self.n)
        with open(path, "w") as f:
            json.dump({"name": "sleep", "reps": 1, "baseline": "a",
                       "command": ["/bin/sleep", "20"],
                       "arms": [{"name": "a"}], "cells": [{"name": "c"}],
                       "quiet": {"window_ms": 50, "budget_s": 2}}, f)
        sock = "benchtui-gate-%d" % os.getpid()
        cmd = ("cd %s && echo $$ >%s && LANG=C.UTF-8 "
               "TERM=screen-256color exec %s run %s --out %s" %
               (self.tmp, pidf, BENCHTUI, path, out))
        subprocess.run(["tmux", "-L", sock, "-f", "/dev/null",
                        "new-session", "-d", "-x", "120", "-y", "40", cmd],
                       check=True)
        log = os.path.join(out, "log.jsonl")
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and not (
                    os.path.exists(log) and '"leg_start"' in open(log).read()):
                time.sleep(0.1)
            with open(pidf) as f:
                pid = int(f.read())
            time.sleep(1.0)

            def cpu():
                """Every thread's run time (schedstat, nanoseconds: the
                10 ms ticks of /proc/PID/stat are too coarse here)."""
                t = 0
                for tid in os.listdir("/proc/%d/task" % pid):
                    with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                        t += int(f.read().split()[0])
                return t / 1e9
            c0, t0 = cpu(), time.monotonic()
            time.sleep(17.0)
            c1, t1 = cpu(), time.monotonic()
        finally:
            subprocess.run(["tmux", "-L", sock, "kill-server"],
                           stderr=subprocess.DEVNULL)
        pct = 100.0 * (c1 - c0) / (t1 - t0)
        self.add("console_sleep", "console's own CPU over 17 s of a 20 s "
                 "sleep leg, window_ms 50", pct, "% core", "<= 0.15",
                 pct <= 0.15, "%.4f s of cpu in %.1f s (schedstat)" %
                 (c1 - c0, t1 - t0))
        return {"cpu_s": c1 - c0, "secs": t1 - t0, "pct": pct}

    def probe_sibling(self):
        if NCPU < 2:
            return {"skipped": "one cpu"}
        reps = 10 if self.quick else 40
        client, other = NCPU - 1, NCPU - 2
        q = {"max_foreign_cores": 100, "max_client_busy": 100,
             "probe": True, "budget_s": min(self.budget, 20)}
        ev0, _, _ = self.run(self.round("alone", reps, cpus=client,
                                        quiet=q))
        hog = Hog(other)
        try:
            time.sleep(0.5)
            ev1, _, _ = self.run(self.round("sibling", reps, cpus=client,
                                            quiet=q))
        finally:
            hog.stop()
        alone, beside = self.of(ev0, "leg"), self.of(ev1, "leg")
        typical = median([x["cpu"] for x in alone])
        slow = median([x["cpu"] for x in beside]) / typical
        # Disturbed: over the legs alone (their median) by more than the
        # round's margin (1%).
        dist = [x for x in beside if x["cpu"] > typical * 1.01]
        caught = [x for x in dist if x.get("wait_s", 0) > 0.05 or
                  x.get("gate") != "quiet" or (x.get("probe") or 0) > 1.01]
        held = [x for x in beside if x.get("wait_s", 0) > 0.05]
        self.add("sibling_slowdown", "leg cpu with a loop on cpu %d / "
                 "alone (client on cpu %d), medians" % (other, client),
                 slow, "ratio", None, None,
                 "probe slowdown on the legs: alone %s, beside %s" % (
                     median([x.get("probe") for x in alone]),
                     median([x.get("probe") for x in beside])))
        self.add("sibling_caught", "disturbed legs (cpu over alone's median "
                 "+ 1%) the probe held or marked", len(caught), "legs",
                 ">= 90%% of %d" % len(dist), len(caught) >= 0.9 * len(dist),
                 "%d legs of %d held; gates %s" % (
                     len(held), len(beside), sorted({x.get("gate")
                                                      for x in beside})))
        return {"alone_cpu": [x["cpu"] for x in alone],
                "beside_cpu": [x["cpu"] for x in beside],
                "beside_probe": [x.get("probe") for x in beside],
                "beside_gate": [x.get("gate") for x in beside],
                "beside_wait": [x.get("wait_s") for x in beside]}


class Verdict:
    """The verdict benchmark's runs (see the module's docstring)."""

    def __init__(self, g, n):
        self.g = g
        self.n = n

    def commands(self):
        return [[LOOP, str(self.n)], [LOOP, str(int(self.n * 1.05))],
                [LOOP, str(self.n)]]

    def benchtui(self):
        rnd = {"name": "verdict", "command": [LOOP, "${N}"],
               "baseline": "base",
               "arms": [{"name": "base", "vars": {"N": str(self.n)}},
                        {"name": "plus5",
                         "vars": {"N": str(int(self.n * 1.05))}},
                        {"name": "aa", "aa_of": "base"}],
               "cells": [{"name": "c"}]}
        ev, wall, rep = self.g.run(rnd)
        arms = rep.get("cells", {}).get("c", {}).get("arms", {})
        cpu = {a: arms.get(a, {}).get("metrics", {}).get("cpu", {})
               for a in ("plus5", "aa")}
        legs = self.g.of(ev, "leg")
        legs_s = sum(x.get("wall") or 0 for x in legs)
        waited = sum(x.get("wait_s") or 0 for x in legs)
        biased = "cpu" in rep.get("cells", {}).get("c", {}).get("biased", [])
        return {"wall": wall, "right": cpu["plus5"].get("verdict") == "above",
                "wrong": cpu["plus5"].get("verdict") in ("below", "same"),
                "plus5": cpu["plus5"].get("verdict"),
                "plus5_est": cpu["plus5"].get("estimate"),
                "aa": cpu["aa"].get("verdict"),
                "aa_different": cpu["aa"].get("verdict") in ("above",
                                                            "below"),
                "aa_biased": biased, "reps": len(legs) // 3,
                "legs_s": legs_s, "waited_s": waited,
                "wait_ok": waited <= 5 + 0.25 * legs_s + 0.1}

    def hyperfine(self):
        self.g.n += 1
        js = os.path.join(self.g.tmp, "hf%d.json" % self.g.n)
        t0 = time.monotonic()
        subprocess.run(["hyperfine", "-N", "--export-json", js] +
                       [" ".join(c) for c in self.commands()],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wall = time.monotonic() - t0
        with open(js) as f:
            r = json.load(f)["results"]
        m = [x["mean"] for x in r]
        sd = [x["stddev"] or 0 for x in r]

        def ratio(i, j):
            q = m[i] / m[j]
            return q, q * ((sd[i] / m[i]) ** 2 + (sd[j] / m[j]) ** 2) ** 0.5
        p5, p5e = ratio(1, 0)
        aa, aae = ratio(2, 0)
        return {"wall": wall, "right": p5 > 1, "wrong": p5 <= 1,
                "right_beyond_pm": p5 - p5e > 1,
                "plus5": p5, "plus5_pm": p5e, "aa": aa, "aa_pm": aae,
                "aa_different": abs(aa - 1) > aae,
                "runs": [len(x["times"]) for x in r]}


def fmt(v):
    if v is None:
        return "-"
    if isinstance(v, float):
        return "%.3f" % v if abs(v) < 100 else "%.1f" % v
    return str(v)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-save", action="store_true")
    ap.add_argument("--budget", type=float, default=30.0,
                    help="budget_s of the hog round (default 30)")
    ap.add_argument("--only", default="",
                    help="comma-separated: hog,pinned,probe_cost,"
                    "probe_sibling,verdict,console_sleep")
    args = ap.parse_args()
    if not os.access(BENCHTUI, os.X_OK):
        die("%s: not built (make build)" % BENCHTUI)
    if not os.access(LOOP, os.X_OK):
        die("%s: not built (make build)" % LOOP)
    if shutil.which("taskset") is None:
        die("taskset is not installed")
    if shutil.which("hyperfine") is None:
        die("hyperfine is not installed (the verdict benchmark's "
            "reference)")
    load0 = busy_cores(1.0)
    started = datetime.datetime.now(datetime.timezone.utc)
    g = Gate(args)
    raw = {}
    try:
        for name in ("hog", "pinned", "probe_cost", "probe_sibling",
                     "verdict", "console_sleep"):
            if args.only and name not in args.only.split(","):
                continue
            print("bench/gate: %s ..." % name, file=sys.stderr, flush=True)
            raw[name] = getattr(g, name)()
    finally:
        g.close()
    print()
    print("%-66s %9s %-6s %s" % ("benchmark", "figure", "unit", "target"))
    for r in g.rows:
        met = "" if r["met"] is None else ("met" if r["met"] else "MISSED")
        print("%-66s %9s %-6s %s %s" % (r["what"][:66], fmt(r["figure"]),
                                        r["unit"], r["target"] or "", met))
        if r.get("note"):
            print("    " + r["note"])
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short",
                             "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    print("\nbusy cores at the start %.2f; leg %d iterations; commit %s"
          % (load0, g.iters, commit))
    out = {"date": started.isoformat(timespec="seconds"), "commit": commit,
           "quick": args.quick, "busy_cores_at_start": load0,
           "loadavg": os.getloadavg(), "loop_iterations": g.iters,
           "rows": g.rows, "raw": raw}
    if not args.no_save:
        rdir = os.path.join(HERE, "results")
        os.makedirs(rdir, exist_ok=True)
        dated = os.path.join(rdir, "gate-" + started.strftime(
            "%Y-%m-%dT%H%M%SZ") + ".json")
        for path in (os.path.join(rdir, "gate-LATEST.json"), dated):
            with open(path, "w") as f:
                json.dump(out, f, indent=1)
                f.write("\n")
        print("wrote bench/results/gate-LATEST.json and %s" %
              os.path.relpath(dated, ROOT))


if __name__ == "__main__":
    main()
