#!/usr/bin/env python3
"""make bench: benchtui's own costs, each beside a reference measured in the
same run, with the order of the measured things rotated from trial to trial
and the median of TRIALS trials reported.

  bench/bench.py [--trials 5] [--quick] [--no-save] [--only LIST]
                 [--before OLD_BENCHTUI]

--before measures another benchtui (an older build) beside this one in the
per-leg and fidelity benchmarks, in the same runs: before/after on a box
whose load moves between two separate runs.

Needs a built benchtui (build/meson), cc, hyperfine, jq, tmux and GNU time;
the load benchmark also wrk and nginx, load_tls also openssl and h2load
(nghttp2-client) (skipped without them).
Prints one table (figure, reference, ratio, target) and writes
bench/results/LATEST.json and a dated copy.  Not part of make check: it is
a measurement, and it wants a quiet machine; on a busy one the figures say
so (the load is recorded beside them).
"""
import argparse
import datetime
import json
import os
import platform
import random
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BENCHTUI = os.environ.get("BENCHTUI",
                          os.path.join(ROOT, "build/meson/tui/benchtui"))
TRUE = os.path.realpath(shutil.which("true") or "/bin/true")
SLEEP = os.path.realpath(shutil.which("sleep") or "/bin/sleep")
INTERVAL = os.path.join(os.path.dirname(BENCHTUI), "..", "bench",
                        "bench-interval")
RATIOS = os.path.join(os.path.dirname(BENCHTUI), "..", "bench",
                      "bench-ratios")


def die(msg):
    print("bench: " + msg, file=sys.stderr)
    sys.exit(1)


def iso_s(ts):
    """'2026-12-01T07:05:00.123Z' -> seconds since the epoch."""
    d = datetime.datetime.strptime(ts, "%Y-%m-%dT%H:%M:%S.%fZ")
    return d.replace(tzinfo=datetime.timezone.utc).timestamp()


def busy_cores(seconds=1.0):
    """Busy cores of the whole machine over an interval (/proc/stat)."""
    def read():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        idle = v[3] + (v[4] if len(v) > 4 else 0)
        return sum(v[:8]) - idle
    hz = os.sysconf("SC_CLK_TCK")
    a = read()
    time.sleep(seconds)
    return (read() - a) / hz / seconds


class BenchTls:
    """benchtui load over TLS against wrk (HTTP/1.1, keep-alive) and over
    HTTP/2 against h2load, on nginx with a self-signed certificate
    (assets/rounds/nginx-tls: one worker, the 64 KiB file): the same
    connections, one thread, one stream each, the same duration, order
    rotated; benchtui checks every body's sha256 and size, the references
    check nothing.  A mixin of Bench's."""

    def load_tls(self):
        nginx = "/usr/sbin/nginx"
        missing = [p for p, ok in (("wrk", shutil.which("wrk")),
                                   ("nghttp2-client", shutil.which("h2load")),
                                   ("nginx-light", os.access(nginx, os.X_OK)),
                                   ("openssl", shutil.which("openssl")))
                   if not ok]
        if missing:
            print("bench: load_tls skipped: needs %s (apt-get install %s)"
                  % (", ".join(missing), " ".join(missing)), file=sys.stderr)
            return {"skipped": "absent: " + " ".join(missing)}
        secs = 2 if self.quick else 5
        configs = [1, 8]
        srv, url, f64k = self.nginx_up("nginx-tls", "https", {},
                                       ["--insecure"])
        res = {"seconds": secs}
        try:
            for t in range(self.trials):
                fns = []
                for c in configs:
                    fns.append(("wrk c%d" % c, lambda c=c: self.wrk_rps(
                        url, c, secs)))
                    fns.append(("tls c%d" % c, lambda c=c: self.load_rps(
                        url, c, secs, f64k, ["--insecure"])))
                    fns.append(("h2load c%d" % c, lambda c=c: self.h2load_rps(
                        url, c, secs)))
                    fns.append(("h2 c%d" % c, lambda c=c: self.load_rps(
                        url, c, secs, f64k, ["--insecure", "--h2"])))
                for k, v in self.rotated(t, fns).items():
                    res.setdefault(k, []).append(v)
        finally:
            os.killpg(srv.pid, 15)
            srv.wait()
        for c in configs:
            for mine, ref, key, what, ref_what in (
                    ("tls", "wrk", "load_tls_vs_wrk_c%d" % c,
                     "load requests/s over TLS (HTTP/1.1 keep-alive), nginx "
                     "64 KiB, %d conn, 1 thread, %d s, every body checked",
                     "wrk -t1 -c%d -d%ds https://"),
                    ("h2", "h2load", "load_h2_vs_h2load_c%d" % c,
                     "load --h2 requests/s over TLS, nginx 64 KiB, %d conn, "
                     "1 stream each, 1 thread, %d s, every body checked",
                     "h2load -t1 -c%d -m1 -D%d https://")):
                b = statistics.median(res["%s c%d" % (mine, c)])
                w = statistics.median(res["%s c%d" % (ref, c)])
                pairs = [x / y for x, y in zip(res["%s c%d" % (mine, c)],
                                               res["%s c%d" % (ref, c)])]
                res["paired %s c%d" % (mine, c)] = pairs
                self.add(key, what % (c, secs), b, "req/s", w,
                         ref_what % (c, secs), ">= 0.9x (paired)",
                         statistics.median(pairs) >= 0.9,
                         "ratio of each trial's pair: median %.2f "
                         "(%.2f-%.2f)" % (statistics.median(pairs),
                                          min(pairs), max(pairs)))
        return res

    def nginx_up(self, name, scheme, env, load_args):
        """assets/rounds/NAME/serve.sh on a free port, in its own session,
        once it answers benchtui load: the process, the 64 KiB file's URL
        and the file."""
        os.chmod(self.tmp, 0o755)   # nginx's worker runs as another user
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        srv = subprocess.Popen(["sh", os.path.join(
            ROOT, "assets/rounds", name, "serve.sh"), str(port)],
            env=dict(os.environ, TMPDIR=self.tmp, **env),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)
        url = "%s://127.0.0.1:%d/f64k.txt" % (scheme, port)
        f64k = os.path.join(self.tmp, "benchtui-%s-%d" % (name, port), "www",
                            "f64k.txt")
        t_end = time.monotonic() + 20
        while not os.path.exists(f64k) or subprocess.run(
                [BENCHTUI, "load", url, "--requests", "1", "--no-summary"] +
                load_args, stderr=subprocess.DEVNULL).returncode != 0:
            if time.monotonic() > t_end or srv.poll() is not None:
                os.killpg(srv.pid, 15)
                srv.wait()
                die("%s: nginx did not start on %d" % (name, port))
            time.sleep(0.1)
        return srv, url, f64k

    def h2load_rps(self, url, conns, secs):
        p = subprocess.run(["h2load", "-t1", "-c%d" % conns, "-m1",
                            "-D%d" % secs, url], check=True,
                           capture_output=True, text=True)
        m = re.search(r"requests: \d+ total, \d+ started, \d+ done, "
                      r"(\d+) succeeded, (\d+) failed, (\d+) errored",
                      p.stdout)
        if m is None or int(m.group(2)) or int(m.group(3)):
            die("load_tls: h2load saw errors:\n" + p.stdout)
        m = re.search(r"finished in [0-9.]+s, ([0-9.]+) req/s", p.stdout)
        if m is None:
            die("load_tls: no req/s in h2load's output:\n" + p.stdout)
        return float(m.group(1))


class Bench(BenchTls):
    def __init__(self, trials, quick, before=None):
        self.trials = trials
        self.quick = quick
        self.before = before
        self.tmp = tempfile.mkdtemp(prefix="benchtui-bench.")
        self.n = 0
        self.rows = []
        self.loads = []
        self.sock = "bench%d" % os.getpid()
        cc = shutil.which("cc") or die("no cc")
        for prog in ("spawnloop", "spin"):
            subprocess.run([cc, "-O2", "-o", os.path.join(self.tmp, prog),
                            os.path.join(HERE, prog + ".c")], check=True)
        self.spawnloop = os.path.join(self.tmp, "spawnloop")
        self.spin = os.path.join(self.tmp, "spin")

    def close(self):
        subprocess.run(["tmux", "-L", self.sock, "kill-server"],
                       stderr=subprocess.DEVNULL)
        subprocess.run(["chmod", "-R", "u+w", self.tmp])
        shutil.rmtree(self.tmp, ignore_errors=True)

    # --- running things ------------------------------------------------

    def round_file(self, rnd):
        self.n += 1
        path = os.path.join(self.tmp, "round%d.json" % self.n)
        with open(path, "w") as f:
            json.dump(rnd, f)
        return path

    def timed(self, argv, **kw):
        """Run argv under GNU time: (wall s, user+sys s, peak RSS KiB)."""
        tf = os.path.join(self.tmp, "time.txt")
        t0 = time.monotonic()
        subprocess.run(["/usr/bin/time", "-f", "%U %S %M", "-o", tf] + argv,
                       check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, **kw)
        wall = time.monotonic() - t0
        with open(tf) as f:
            u, s, m = f.read().split()[-3:]
        return wall, float(u) + float(s), int(m)

    def run_round(self, rnd, console=False, base=None, binary=None):
        """Run a round headless (or in the console, in tmux), its folder
        under base (default the bench's temp folder), with binary (default
        BENCHTUI, headless only); returns (events, wall s, cpu s of
        benchtui and its legs, peak RSS KiB)."""
        path = self.round_file(rnd)
        out = os.path.join(base or self.tmp, "out%d" % self.n)
        if not console:
            wall, cpu, rss = self.timed([binary or BENCHTUI, "run", path,
                                         "--out", out, "--headless"])
        else:
            tf = os.path.join(self.tmp, "ctime%d.txt" % self.n)
            cmd = ("cd %s && LANG=C.UTF-8 TERM=screen-256color "
                   "/usr/bin/time -f '%%U %%S %%M' -o %s %s run %s --out %s"
                   % (self.tmp, tf, BENCHTUI, path, out))
            t0 = time.monotonic()
            subprocess.run(["tmux", "-L", self.sock, "-f", "/dev/null",
                            "new-session", "-d", "-x", "120", "-y", "40",
                            cmd], check=True)
            sums = os.path.join(out, "SHA256SUMS")
            while not os.path.exists(sums):
                time.sleep(0.05)
            wall = time.monotonic() - t0
            # q quits at once only once the console has seen the seal.
            while " sealed " not in subprocess.run(
                    ["tmux", "-L", self.sock, "capture-pane", "-p"],
                    capture_output=True, text=True).stdout:
                time.sleep(0.05)
            subprocess.run(["tmux", "-L", self.sock, "send-keys", "q"],
                           check=True)
            while not (os.path.exists(tf) and os.path.getsize(tf) > 0):
                time.sleep(0.05)
            time.sleep(0.1)
            with open(tf) as f:
                u, s, m = f.read().split()[-3:]
            cpu, rss = float(u) + float(s), int(m)
            subprocess.run(["tmux", "-L", self.sock, "kill-server"],
                           stderr=subprocess.DEVNULL)
        with open(os.path.join(out, "log.jsonl")) as f:
            events = [json.loads(line) for line in f if line.strip()]
        if base is not None:
            subprocess.run(["chmod", "-R", "u+w", out])
            shutil.rmtree(out, ignore_errors=True)
        return events, wall, cpu, rss

    @staticmethod
    def legs(events):
        return [e for e in events if e.get("t") == "leg"]

    def true_round(self, n, quiet=False, counters=None):
        rnd = {"name": "bench", "reps": n, "command": [TRUE],
               "baseline": "a", "arms": [{"name": "a"}],
               "cells": [{"name": "c"}], "quiet": quiet}
        if counters is not None:
            rnd["counters"] = counters
        return rnd

    def rotated(self, trial, fns):
        """Run the functions in an order rotated by the trial number."""
        k = trial % len(fns)
        out = {}
        for name, fn in fns[k:] + fns[:k]:
            out[name] = fn()
        return out

    def add(self, key, what, figure, unit, ref=None, ref_what=None,
            target=None, met=None, note=None):
        row = {"key": key, "what": what, "figure": figure, "unit": unit,
               "reference": ref, "reference_what": ref_what,
               "ratio": (figure / ref) if (ref and figure is not None)
               else None,
               "target": target, "met": met}
        if note:
            row["note"] = note
        self.rows.append(row)

    # --- the benchmarks ----------------------------------------------

    def per_leg(self):
        n = 300 if self.quick else 1000
        hf_json = os.path.join(self.tmp, "hf.json")
        res = {"hyperfine": [], "hyperfine_elapsed": [], "spawnloop": [],
               "benchtui": [],
               "benchtui_tmpfs": [], "own_cpu": [], "own_cpu_before": []}
        shm = "/dev/shm" if os.path.isdir("/dev/shm") else None

        def hyperfine():
            t0 = time.monotonic()
            subprocess.run(["hyperfine", "-N", "--runs", str(n), "--warmup",
                            "20", "--style", "none", "--export-json", hf_json,
                            TRUE], check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            # Its whole command over every run it made: what hyperfine
            # spends between runs too, as benchtui's figure does.
            res["hyperfine_elapsed"].append(
                (time.monotonic() - t0) / (n + 20))
            with open(hf_json) as f:
                return json.load(f)["results"][0]["mean"]

        def spawnloop():
            p = subprocess.run([self.spawnloop, str(n), TRUE], check=True,
                               capture_output=True, text=True)
            return json.loads(p.stdout)["mean_s"]

        def benchtui(base=None, binary=None, counters=None):
            ev, _, cpu, _ = self.run_round(self.true_round(
                n, counters=counters), base=base, binary=binary)
            own = res["own_cpu_before" if binary else "own_cpu"]
            start = next(e for e in ev if e["t"] == "leg_start")
            legs = self.legs(ev)
            if len(legs) != n:
                die("per-leg: %d legs of %d" % (len(legs), n))
            # benchtui's own cpu a leg (its user+sys less the legs') on
            # tmpfs: what it adds, without the wall clock a loaded box
            # blurs or the disk's inode allocator (GNU time: 10 ms steps).
            if base is not None:
                own.append((cpu - sum(x["cpu"] or 0 for x in legs)) / n)
            return (iso_s(legs[-1]["ts"]) - iso_s(start["ts"])) / (n - 1)

        for t in range(self.trials):
            fns = [("hyperfine", hyperfine), ("spawnloop", spawnloop),
                   ("benchtui", benchtui),
                   # Counting nothing, as hyperfine: where the default
                   # counters are software events (no PMU), each leg
                   # opens three perf events; cycles alone, where there
                   # is no PMU, opens none (n/a after the first leg).
                   ("benchtui_nocounters",
                    lambda: benchtui(counters=["cycles"]))]
            if shm:
                fns.append(("benchtui_tmpfs", lambda: benchtui(shm)))
            if self.before:
                fns.append(("before", lambda: benchtui(None, self.before)))
                if shm:
                    fns.append(("before_tmpfs",
                                lambda: benchtui(shm, self.before)))
            res.setdefault("load1", []).append(os.getloadavg()[0])
            r = self.rotated(t, fns)
            for k, v in r.items():
                res.setdefault(k, []).append(v)
            # Each trial's runs are next to each other in time: their
            # ratio to hyperfine's moves less with the box's load (and
            # its drift through the day) than either median.
            for k in ("benchtui", "benchtui_tmpfs", "benchtui_nocounters",
                      "before", "before_tmpfs"):
                if k in r:
                    res.setdefault("paired_" + k, []).append(
                        r[k] / r["hyperfine"])
        hf = statistics.median(res["hyperfine"])
        load = "1-min load %.1f-%.1f over the trials" % (
            min(res["load1"]), max(res["load1"]))

        def paired(k):
            v = res["paired_" + k]
            return statistics.median(v), (
                "ratio of each trial's pair: median %.3f (%.3f-%.3f); %s"
                % (statistics.median(v), min(v), max(v), load))
        sl = statistics.median(res["spawnloop"])
        bt = statistics.median(res["benchtui"])
        pr, note = paired("benchtui")
        self.add("per_leg_vs_hyperfine",
                 "per-leg elapsed, %d legs of true (counters on, gate off)"
                 % n, bt * 1e3, "ms", hf * 1e3, "hyperfine -N, per run",
                 "<= 1.0x (paired)", pr <= 1.0, note)
        bn = statistics.median(res["benchtui_nocounters"])
        pr, note = paired("benchtui_nocounters")
        self.add("per_leg_nocounters_vs_hyperfine",
                 "per-leg elapsed, ext4, counters [cycles] (n/a w/o PMU)",
                 bn * 1e3, "ms", hf * 1e3, "hyperfine -N, per run",
                 "<= 1.0x (paired)", pr <= 1.0, note)
        he = statistics.median(res["hyperfine_elapsed"])
        self.add("per_leg_vs_hyperfine_elapsed",
                 "per-leg elapsed (same runs), against hyperfine's whole "
                 "command", bt * 1e3, "ms", he * 1e3,
                 "hyperfine -N wall / runs incl. warm-up")
        self.add("per_leg_vs_spawnloop", "per-leg elapsed (same runs)",
                 bt * 1e3, "ms", sl * 1e3, "bench/spawnloop.c, per run")
        if shm:
            bs = statistics.median(res["benchtui_tmpfs"])
            pr, note = paired("benchtui_tmpfs")
            self.add("per_leg_tmpfs_vs_hyperfine",
                     "per-leg elapsed, round folder on tmpfs (/dev/shm)",
                     bs * 1e3, "ms", hf * 1e3, "hyperfine -N, per run",
                     "<= 1.0x (paired)", pr <= 1.0, note)
        if res["own_cpu"]:
            self.add("per_leg_own_cpu",
                     "benchtui's own cpu a leg (the tmpfs runs)",
                     statistics.median(res["own_cpu"]) * 1e3, "ms")
        for k, what in (("before", "ext4"), ("before_tmpfs", "tmpfs")):
            if res.get(k):
                b = statistics.median(res[k])
                self.add("per_leg_%s_vs_hyperfine" % k,
                         "per-leg elapsed, %s, --before benchtui" % what,
                         b * 1e3, "ms", hf * 1e3, "hyperfine -N, per run",
                         note=paired(k)[1])
        if res["own_cpu_before"]:
            self.add("per_leg_own_cpu_before",
                     "own cpu a leg, tmpfs, --before benchtui",
                     statistics.median(res["own_cpu_before"]) * 1e3, "ms")
        return res

    def pair_n(self):
        return 100 if self.quick else 200

    def spin_pair_fns(self):
        """The 1 ms against 0.5 ms spin ratio with both sides paired in
        time: a round of two arms (reps alternate them, as every round
        does) against the bare loop alternating the two programs.  Each
        gives the median over its pairs of wall(1 ms) / wall(0.5 ms), so
        the box's drift between two blocks cannot enter either ratio."""
        n = self.pair_n()

        def bare():
            p = subprocess.run([self.spawnloop, "-a", "1", str(2 * n),
                                self.spin, "0.5"], check=True,
                               capture_output=True, text=True)
            return json.loads(p.stdout)["pair_ratio_median"]

        def leg():
            rnd = self.true_round(n)
            rnd["command"] = [self.spin, "${MS}"]
            rnd["baseline"] = "half"
            rnd["arms"] = [{"name": "half", "vars": {"MS": "0.5"}},
                           {"name": "one", "vars": {"MS": "1"}}]
            ev, _, _, _ = self.run_round(rnd)
            wall = {(x["arm"], x["rep"]): x["wall"] for x in self.legs(ev)}
            return statistics.median(wall[("one", r)] / wall[("half", r)]
                                     for r in range(1, n + 1))
        return [("bare spin_pair", bare), ("benchtui spin_pair", leg)]

    def fidelity(self):
        work = [("sleep_0.05", [SLEEP, "0.05"], 10 if self.quick else 20),
                ("sleep_0.2", [SLEEP, "0.2"], 5 if self.quick else 10),
                ("spin_0.5ms", [self.spin, "0.5"], 100 if self.quick else 200),
                ("spin_1ms", [self.spin, "1"], 100 if self.quick else 200)]
        res = {}
        for t in range(self.trials):
            fns = []
            for name, argv, n in work:
                def bare(argv=argv, n=n):
                    p = subprocess.run([self.spawnloop, str(n)] + argv,
                                       check=True, capture_output=True,
                                       text=True)
                    j = json.loads(p.stdout)
                    return j["wall_median_s"], j["cpu_median_s"]

                def leg(argv=argv, n=n, binary=None):
                    rnd = self.true_round(n)
                    rnd["command"] = argv
                    ev, _, _, _ = self.run_round(rnd, binary=binary)
                    legs = self.legs(ev)
                    return (statistics.median(x["wall"] for x in legs),
                            statistics.median(x["cpu"] for x in legs))
                fns.append(("bare " + name, bare))
                fns.append(("benchtui " + name, leg))
                if self.before:
                    fns.append(("before " + name,
                                lambda leg=leg: leg(binary=self.before)))
            fns += self.spin_pair_fns()
            for k, v in self.rotated(t, fns).items():
                res.setdefault(k, []).append(v)
        pair = {k: statistics.median(res.pop(k))
                for k in list(res) if k.endswith("spin_pair")}
        med = {k: (statistics.median(w for w, _ in v),
                   statistics.median(c for _, c in v))
               for k, v in res.items()}
        for name, _, n in work:
            bw, bc = med["benchtui " + name]
            rw, rc = med["bare " + name]
            self.add("wall_" + name, "leg wall, %s (median of %d)" % (name, n),
                     bw * 1e3, "ms", rw * 1e3, "bare loop's wall",
                     "within 0.1 ms", abs(bw - rw) <= 0.0001)
            self.add("cpu_" + name, "leg cpu, %s" % name, bc * 1e3, "ms",
                     rc * 1e3, "bare loop's cpu", "within 0.05 ms",
                     abs(bc - rc) <= 0.00005)
            if self.before:
                ow, oc = med["before " + name]
                self.add("wall_%s_before" % name, "leg wall, %s, --before "
                         "benchtui" % name, ow * 1e3, "ms", rw * 1e3,
                         "bare loop's wall")
                self.add("cpu_%s_before" % name, "leg cpu, %s, --before "
                         "benchtui" % name, oc * 1e3, "ms", rc * 1e3,
                         "bare loop's cpu")
        b_ratio = med["benchtui spin_1ms"][0] / med["benchtui spin_0.5ms"][0]
        r_ratio = med["bare spin_1ms"][0] / med["bare spin_0.5ms"][0]
        self.add("spin_ratio", "wall ratio, 1 ms spin / 0.5 ms spin, "
                 "separate blocks", b_ratio, "x", r_ratio,
                 "the bare loop's ratio")
        b_pair, r_pair = pair["benchtui spin_pair"], pair["bare spin_pair"]
        self.add("spin_ratio_paired", "wall ratio, 1 ms / 0.5 ms spin, "
                 "paired run by run (median of %d pairs)" % self.pair_n(),
                 b_pair, "x", r_pair, "the bare loop's, paired alike",
                 "within 1%", abs(b_pair / r_pair - 1) <= 0.01)
        if self.before:
            o_ratio = (med["before spin_1ms"][0] /
                       med["before spin_0.5ms"][0])
            self.add("spin_ratio_before", "wall ratio, spins, --before "
                     "benchtui", o_ratio, "x", r_ratio, "the bare loop's "
                     "ratio")
        return res

    def gate(self):
        n = 100 if self.quick else 200
        load = busy_cores(1.0)
        self.loads.append(load)
        quiet = {"window_ms": 1000, "timeout_s": 30, "on_timeout": "proceed"}
        note = None
        if load > 0.2:
            # Not a quiet box: the default threshold would hold every leg
            # for its timeout.  Measure the gate's own cost above the load.
            quiet["max_foreign_cores"] = round(load + 0.5, 2)
            note = ("the box was not quiet (%.2f busy cores): threshold "
                    "raised to %.2f" % (load, quiet["max_foreign_cores"]))
        res = {"on": [], "off": []}
        for t in range(self.trials):
            def on():
                ev, wall, _, _ = self.run_round(self.true_round(n, quiet))
                return wall

            def off():
                ev, wall, _, _ = self.run_round(self.true_round(n, False))
                return wall
            for k, v in self.rotated(t, [("on", on), ("off", off)]).items():
                res[k].append(v)
        on, off = statistics.median(res["on"]), statistics.median(res["off"])
        self.add("gate_on_off", "%d legs of true, default gate (window 1 s)"
                 % n, on, "s", off, "gate off",
                 "<= +window_ms + 0.2 s", on - off <= 1.0 + 0.2, note)
        return res

    def console(self):
        res = {"long_console": [], "long_headless": [],
               "burst_console": [], "burst_headless": []}
        long_s = 10 if self.quick else 30
        long_round = self.true_round(1)
        long_round["command"] = [SLEEP, str(long_s)]
        n = 200

        def own_cpu(r):
            ev, _, cpu, _ = r
            return cpu - sum(x["cpu"] or 0 for x in self.legs(ev))
        # The long leg once each way: 2 x 30 s is the budget.
        res["long_console"].append(own_cpu(self.run_round(long_round, True)))
        res["long_headless"].append(own_cpu(self.run_round(long_round)))
        for t in range(self.trials):
            fns = [("burst_console",
                    lambda: own_cpu(self.run_round(self.true_round(n), True))),
                   ("burst_headless",
                    lambda: own_cpu(self.run_round(self.true_round(n))))]
            for k, v in self.rotated(t, fns).items():
                res[k].append(v)
        lc, lh = res["long_console"][0], res["long_headless"][0]
        self.add("console_cpu_long",
                 "benchtui's own CPU, one %d s leg, console (1 run)" % long_s,
                 lc, "s", lh, "headless (1 run)")
        bc = statistics.median(res["burst_console"])
        bh = statistics.median(res["burst_headless"])
        self.add("console_cpu_burst",
                 "benchtui's own CPU, %d legs of true, console" % n,
                 bc, "s", bh, "headless")
        return res

    def report(self):
        legs = 200000 if self.quick else 1000000
        log = os.path.join(self.tmp, "legs.jsonl")
        subprocess.run([sys.executable, os.path.join(HERE, "gen-legs.py"),
                        log, "--legs", str(legs)], check=True,
                       stdout=subprocess.DEVNULL)
        subprocess.run(["cat", log], stdout=subprocess.DEVNULL)
        # jq alone takes close to a minute a run here: three trials (not
        # five) keep make bench under ten minutes.  The format rotates
        # with the trial; a format no trial ran is run once more for its
        # peak RSS.
        fmts = ["text", "json", "csv", "markdown"]
        trials = min(self.trials, 3)
        res = {"report": [], "jq": [], "trials": trials}
        rss = {}
        for t in range(trials):
            fmt = fmts[t % len(fmts)]
            fns = [("report", lambda fmt=fmt: self.timed(
                        [BENCHTUI, "report", log, "--aa", "aa=base",
                         "--format", fmt])),
                   ("jq", lambda: self.timed(
                        ["jq", "-c", 'select(.t=="leg")', log]))]
            for k, v in self.rotated(t, fns).items():
                res[k].append(v)
            rss[fmt] = max(rss.get(fmt, 0), res["report"][-1][2])
        for fmt in fmts:
            if fmt not in rss:
                rss[fmt] = self.timed([BENCHTUI, "report", log, "--aa",
                                       "aa=base", "--format", fmt])[2]
        rw = statistics.median(w for w, _, _ in res["report"])
        jw = statistics.median(w for w, _, _ in res["jq"])
        self.add("report_1m", "report on %d legs, wall (median of %d, "
                 "formats rotated)" % (legs, trials), rw, "s", jw,
                 "jq -c 'select(.t==\"leg\")'", "<= 0.5x", rw <= 0.5 * jw)
        worst = max(rss.values())
        self.add("report_rss", "report peak RSS, worst format (%s MiB)" %
                 ", ".join("%s %.0f" % (k, v / 1024) for k, v in rss.items()),
                 worst / 1024, "MiB", 128, "target", "<= 128 MiB",
                 worst <= 128 * 1024)
        res["rss_kb"] = rss
        return res

    def compare(self):
        """benchtui compare of two sealed 100,000-leg rounds (gen-legs.py
        --folder: 10 cells x 4 arms x 2500 reps, five metrics; the second
        round another seed and its slow arm 2% slower): every cell, arm
        and metric compared by the two-sample arithmetic (2500 x 2500
        values), and every effect.  Formats rotate with the trial;
        beside it, report of one of the two folders."""
        legs = 20000 if self.quick else 100000
        dirs = []
        for seed, slow in ((1, 1.08), (2, 1.10)):
            d = os.path.join(self.tmp, "cmp%d" % seed)
            subprocess.run([sys.executable, os.path.join(HERE,
                            "gen-legs.py"), "--folder", d, "--legs",
                            str(legs), "--seed", str(seed), "--slow",
                            str(slow)], check=True, stdout=subprocess.DEVNULL)
            dirs.append(d)
        fmts = ["text", "json", "csv", "markdown"]
        res = {"compare": [], "report": []}
        for t in range(self.trials):
            fmt = fmts[t % len(fmts)]
            fns = [("compare", lambda fmt=fmt: self.timed(
                        [BENCHTUI, "compare"] + dirs + ["--format", fmt])),
                   ("report", lambda: self.timed(
                        [BENCHTUI, "report", dirs[0]]))]
            for k, v in self.rotated(t, fns).items():
                res[k].append(v)
        cw = statistics.median(w for w, _, _ in res["compare"])
        rw = statistics.median(w for w, _, _ in res["report"])
        rss = max(m for _, _, m in res["compare"])
        self.add("compare_100k", "compare of two %d-leg rounds, wall "
                 "(median of %d, formats rotated)" % (legs, self.trials),
                 cw, "s", rw, "report of one of them", "<= 2 s", cw <= 2.0)
        self.add("compare_rss", "compare of two %d-leg rounds, peak RSS "
                 "(worst trial)" % legs, rss / 1024, "MiB", 128, "target",
                 "<= 128 MiB", rss <= 128 * 1024)
        return res

    def interval(self):
        """One paired interval at n reps as a report first meets it (k
        from the exact null distribution up to n = 2000, the normal
        approximation beyond), by bench-interval (bench/interval.c, built
        with the product's flags): the median of 7 runs, per n."""
        if not os.access(INTERVAL, os.X_OK):
            die("%s: not built (make build)" % INTERVAL)
        p = subprocess.run([INTERVAL], check=True, capture_output=True,
                           text=True)
        res = json.loads(p.stdout)
        for n, secs in sorted(res.items(), key=lambda kv: int(kv[0])):
            target = "<= 50 ms" if n == "2000" else None
            self.add("interval_%s" % n, "paired interval, n = %s (k, "
                     "estimate, interval; median of 7)" % n, secs * 1e3,
                     "ms", target=target,
                     met=(secs <= 0.05) if target else None)
        # k at n just after k at n - 1 (a live round's next rep): one
        # step on the distribution kept, against k from nothing above.
        p = subprocess.run([INTERVAL, "--next"], check=True,
                           capture_output=True, text=True)
        nxt = json.loads(p.stdout)
        for n, secs in sorted(nxt.items(), key=lambda kv: int(kv[0])):
            self.add("interval_next_%s" % n, "k at n = %s just after k at "
                     "n - 1 (median of 7)" % n, secs * 1e3, "ms")
        res["next"] = nxt
        return res

    # The console's keys at n reps: a replay in tmux of a made-up round (3
    # cells x 4 arms with an A/A arm; wall, cpu, three counters and a
    # server's cpu) whose legs all come in at once but the last KEYS_TAIL,
    # which come in KEYS_GAP s apart, each making the console compute
    # the ratios again as in a live round.  Meanwhile ? opens and closes
    # the help KEYS_PRESSES times a trial after a random pause, and the
    # time from tmux send-keys to the screen that shows it is taken.
    KEYS_TAIL = 240
    KEYS_GAP = 0.05
    KEYS_PRESSES = 20
    KEYS_MARK = "same: within the margin"

    def keys_folder(self, reps):
        """A round folder of reps reps whose log's last KEYS_TAIL legs are
        KEYS_GAP s apart and the rest at the start (no seal: the log is
        rewritten)."""
        d = os.path.join(self.tmp, "keys%d" % reps)
        if os.path.isdir(d):
            return d
        subprocess.run([sys.executable, os.path.join(HERE, "gen-legs.py"),
                        "--folder", d, "--legs", str(reps * 12), "--cells",
                        "3", "--server"], check=True,
                       stdout=subprocess.DEVNULL)
        os.remove(os.path.join(d, "SHA256SUMS"))
        log = os.path.join(d, "log.jsonl")
        with open(log) as f:
            events = [json.loads(line) for line in f]
        legs = [i for i, e in enumerate(events) if e.get("t") == "leg"]
        tail = legs[-min(self.KEYS_TAIL, len(legs)):]
        t0 = datetime.datetime(2026, 11, 29, 15, 0, 0)
        for i, e in enumerate(events):
            k = tail.index(i) + 1 if i >= tail[0] else 0
            ts = t0 + datetime.timedelta(seconds=k * self.KEYS_GAP)
            e["ts"] = ts.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (
                ts.microsecond // 1000)
        with open(log, "w") as f:
            for e in events:
                f.write(json.dumps(e, separators=(",", ":")) + "\n")
        return d

    def keys_session(self, reps, rnd):
        """One replay: the latencies of KEYS_PRESSES keys, in s, and
        whether legs still came in after the last."""
        d = self.keys_folder(reps)
        sess = ["tmux", "-L", self.sock]

        def screen():
            return subprocess.run(sess + ["capture-pane", "-p", "-t", "keys"],
                                  capture_output=True, text=True).stdout

        def done_legs(s):
            m = re.search(r"legs (\d+)/(\d+)", s)
            return int(m.group(1)) if m else -1

        def wait(pred, timeout):
            # A capture is a process and the box has 2 cores: a short
            # nap between captures leaves the console its core.
            end = time.monotonic() + timeout
            while time.monotonic() < end:
                if pred(screen()):
                    return time.monotonic()
                time.sleep(0.002)
            die("console keys: no screen change within %g s" % timeout)

        subprocess.run(sess + ["-f", "/dev/null", "new-session", "-d", "-s",
                               "keys", "-x", "160", "-y", "50",
                               "cd %s && LANG=C.UTF-8 TERM=screen-256color "
                               "%s --replay %s" % (self.tmp, BENCHTUI, d)],
                       check=True)
        total = reps * 12
        wait(lambda s: done_legs(s) >= total - self.KEYS_TAIL + 10, 120)
        lat = []
        for k in range(2 * self.KEYS_PRESSES):
            time.sleep(rnd.uniform(0, 2 * self.KEYS_GAP))
            opening = k % 2 == 0
            t0 = time.monotonic()
            subprocess.run(sess + ["send-keys", "-t", "keys", "?"],
                           check=True)
            t1 = wait(lambda s: (self.KEYS_MARK in s) == opening, 10)
            lat.append(t1 - t0)
        live = done_legs(screen()) < total
        subprocess.run(sess + ["kill-session", "-t", "keys"],
                       stderr=subprocess.DEVNULL)
        return lat, live

    def keys(self):
        """Console keypress latency at n = 2000 against n = 10 (the
        harness's own: tmux, the polling of its screen), and what
        bench-ratios says of the ratios' work at n = 2000."""
        if not os.access(RATIOS, os.X_OK):
            die("%s: not built (make build)" % RATIOS)
        rnd = random.Random(2000)
        big = 200 if self.quick else 2000
        trials = min(self.trials, 3)
        res = {"big": [], "small": [], "live": [], "trials": trials}
        for t in range(trials):
            fns = [("big", lambda: self.keys_session(big, rnd)),
                   ("small", lambda: self.keys_session(10, rnd))]
            for k, (lat, live) in self.rotated(t, fns).items():
                res[k].extend(lat)
                if k == "big":
                    res["live"].append(live)
        bmed, bmax = statistics.median(res["big"]), max(res["big"])
        smed, smax = statistics.median(res["small"]), max(res["small"])
        n = len(res["big"])
        note = None if all(res["live"]) else \
            "the replay's legs ended before the last key"
        self.add("console_keys_%d_median" % big, "console keypress latency, "
                 "n = %d, legs coming in (median of %d)" % (big, n),
                 bmed * 1e3, "ms", smed * 1e3, "n = 10", note=note)
        self.add("console_keys_%d_max" % big, "console keypress latency, "
                 "n = %d, legs coming in (worst of %d)" % (big, n),
                 bmax * 1e3, "ms", smax * 1e3, "n = 10", "<= 50 ms",
                 bmax <= 0.05, note=note)
        p = subprocess.run([RATIOS, self.keys_folder(big)], check=True,
                           capture_output=True, text=True)
        r = json.loads(p.stdout)
        res["ratios"] = r
        self.add("console_ratios_leg_%d" % big, "console ratios after one "
                 "leg, n = %d (median of %d legs)" % (big, r["legs"]),
                 r["leg_median_s"] * 1e3, "ms", r["whole_s"] * 1e3,
                 "the whole report (as before)")
        self.add("console_ratios_slice_%d" % big, "longest slice of the "
                 "console's ratio work, n = %d" % big,
                 r["slice_max_s"] * 1e3, "ms", target="<= 50 ms",
                 met=r["slice_max_s"] <= 0.05)
        return res

    def big_round(self):
        n = 2000 if self.quick else 10000
        ev, wall, cpu, rss = self.run_round(self.true_round(n))
        if len(self.legs(ev)) != n:
            die("big round: %d legs of %d" % (len(self.legs(ev)), n))
        self.add("round_rss", "peak RSS of a %d-leg round (headless)" % n,
                 rss / 1024, "MiB", 32, "target", "< 32 MiB", rss < 32 * 1024)
        return {"rss_kb": rss, "wall_s": wall}

    def load(self):
        """benchtui load against wrk on the nginx example's server (one
        nginx worker, the 64 KiB file): the same connections, one thread,
        the same duration, order rotated; benchtui checks every body's
        sha256 and size, wrk checks nothing."""
        nginx = "/usr/sbin/nginx"
        if shutil.which("wrk") is None or not os.access(nginx, os.X_OK):
            print("bench: load skipped: needs wrk and nginx "
                  "(apt-get install wrk nginx-light)", file=sys.stderr)
            return {"skipped": "wrk or nginx absent"}
        secs = 2 if self.quick else 5
        configs = [1, 8]
        srv, url, f64k = self.nginx_up("nginx", "http", {"SENDFILE": "on"},
                                       [])
        res = {"seconds": secs}
        try:
            for t in range(self.trials):
                fns = []
                for c in configs:
                    fns.append(("wrk c%d" % c, lambda c=c: self.wrk_rps(
                        url, c, secs)))
                    fns.append(("benchtui c%d" % c, lambda c=c:
                                self.load_rps(url, c, secs, f64k)))
                for k, v in self.rotated(t, fns).items():
                    res.setdefault(k, []).append(v)
        finally:
            os.killpg(srv.pid, 15)
            srv.wait()
        for c in configs:
            b = statistics.median(res["benchtui c%d" % c])
            w = statistics.median(res["wrk c%d" % c])
            # Each trial's two runs are next to each other in time: their
            # ratio moves less with the box's load than either median.
            pairs = [x / y for x, y in zip(res["benchtui c%d" % c],
                                           res["wrk c%d" % c])]
            res["paired c%d" % c] = pairs
            self.add("load_vs_wrk_c%d" % c, "load requests/s, nginx 64 KiB, "
                     "%d conn, 1 thread, %d s, every body checked"
                     % (c, secs), b, "req/s", w, "wrk -t1 -c%d -d%ds" %
                     (c, secs), ">= 0.8x (paired)",
                     statistics.median(pairs) >= 0.8,
                     "ratio of each trial's pair: median %.2f (%.2f-%.2f)"
                     % (statistics.median(pairs), min(pairs), max(pairs)))
        return res

    def wrk_rps(self, url, conns, secs):
        p = subprocess.run(["wrk", "-t1", "-c%d" % conns, "-d%ds" % secs,
                            url], check=True, capture_output=True,
                           text=True)
        if "Non-2xx" in p.stdout or "Socket errors" in p.stdout:
            die("load: wrk saw errors:\n" + p.stdout)
        for line in p.stdout.splitlines():
            if line.startswith("Requests/sec:"):
                return float(line.split()[1])
        die("load: no Requests/sec in wrk's output:\n" + p.stdout)

    def load_rps(self, url, conns, secs, f64k, extra=()):
        m = os.path.join(self.tmp, "load-metrics.json")
        subprocess.run([BENCHTUI, "load", url, "--connections", str(conns),
                        "--threads", "1", "--duration", str(secs),
                        "--expect-file", f64k, "--metrics", m, "--quiet"] +
                       list(extra), check=True)
        with open(m) as f:
            return json.load(f)["rps"]


def machine():
    info = {"cpus": os.cpu_count(), "kernel": platform.release()}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    info["cpu_model"] = line.split(":", 1)[1].strip()
                    break
        with open("/proc/meminfo") as f:
            info["mem_kb"] = int(f.readline().split()[1])
    except OSError:
        pass
    info["loadavg"] = os.getloadavg()
    return info


def fmt(v):
    if v is None:
        return "-"
    if abs(v) >= 100:
        return "%.1f" % v
    if abs(v) >= 1:
        return "%.3f" % v
    return "%.4f" % v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--quick", action="store_true",
                    help="smaller sizes, for trying the script out")
    ap.add_argument("--no-save", action="store_true")
    ap.add_argument("--before", default=None,
                    help="another benchtui to measure beside this one in "
                    "per_leg and fidelity")
    ap.add_argument("--only", default="",
                    help="comma-separated: per_leg,fidelity,gate,console,"
                    "keys,report,big_round,interval,compare,load,"
                    "load_tls")
    args = ap.parse_args()
    if not os.access(BENCHTUI, os.X_OK):
        die("%s: not built (make build)" % BENCHTUI)
    for tool in ("hyperfine", "jq", "tmux"):
        if shutil.which(tool) is None:
            die("%s is not installed" % tool)
    if args.before and not os.access(args.before, os.X_OK):
        die("%s: not an executable" % args.before)
    b = Bench(args.trials, args.quick, args.before)
    t0 = time.monotonic()
    raw = {}
    started = datetime.datetime.now(datetime.timezone.utc)
    load0 = busy_cores(1.0)
    try:
        for name in ("per_leg", "fidelity", "gate", "console", "keys",
                     "report", "big_round", "interval", "compare", "load",
                     "load_tls"):
            if args.only and name not in args.only.split(","):
                continue
            print("bench: %s ..." % name, file=sys.stderr, flush=True)
            raw[name] = getattr(b, name)()
    finally:
        b.close()
    took = time.monotonic() - t0
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short",
                             "HEAD"], capture_output=True,
                            text=True).stdout.strip()

    print()
    print("%-62s %10s %10s %7s  %-18s %s" % ("benchmark", "figure",
          "reference", "ratio", "target", ""))
    for r in b.rows:
        met = "" if r["met"] is None else ("met" if r["met"] else "MISSED")
        print("%-62s %10s %10s %7s  %-18s %s" % (
            (r["what"] + " [" + r["unit"] + "]")[:62], fmt(r["figure"]),
            fmt(r["reference"]), fmt(r["ratio"]), r["target"] or "", met))
        print("%-62s %10s %10s" % ("", "", ("(" + r["reference_what"] + ")")
                                   if r["reference_what"] else ""))
        if r.get("note"):
            print("%-62s %s" % ("", r["note"]))
    print("\n%d trials, order rotated, medians; %.0f s; busy cores at the "
          "start %.2f; commit %s" % (args.trials, took, load0, commit))
    out = {"date": started.isoformat(timespec="seconds"), "commit": commit,
           "trials": args.trials, "quick": args.quick, "seconds": took,
           "busy_cores_at_start": load0, "machine": machine(),
           "rows": b.rows, "raw": raw}
    if not args.no_save:
        rdir = os.path.join(HERE, "results")
        os.makedirs(rdir, exist_ok=True)
        dated = os.path.join(rdir, started.strftime("%Y-%m-%dT%H%M%SZ") +
                             ".json")
        for path in (os.path.join(rdir, "LATEST.json"), dated):
            with open(path, "w") as f:
                json.dump(out, f, indent=1)
                f.write("\n")
        print("wrote %s and %s" % (os.path.relpath(os.path.join(
            rdir, "LATEST.json"), ROOT), os.path.relpath(dated, ROOT)))


if __name__ == "__main__":
    main()
