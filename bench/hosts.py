#!/usr/bin/env python3
"""Time to a verdict for a +5% CPU loop on 1, 2 and 3 "hosts".

    bench/hosts.py [TRIALS]        (default: 2)

Each host is an sshd this script starts on 127.0.0.1 at a free port (as
tests/e2e/remote_lib.sh does: throw-away keys in a temporary folder, a
mount namespace of its own, stopped by its pid), so all of them share
this machine: what is measured is the protocol and the dealing of reps
among hosts, not a real speed-up (on a box with fewer cores than hosts
the legs even compete for them).

The round: two arms of bench/loop (14M iterations, and 14.7M: +5%), one
cell, reps left to the adaptive rule until decided on cpu (min 8, max
60), gate off.  It runs with --host for each host count, the counts'
order rotated from trial to trial.  Figures, each the median over trials:

  wall      benchtui run from start to exit (connect, legs, seal)
  verdict   from the first leg_start to the look that decided the cell
  reps      the counted reps when it decided
  legs/s    leg lines per second between the first leg_start and the
            last leg line
  setup     from start to the first leg_start (the hosts connected one
            after another, provenance)

Needs: root (the sshd logs in as root), openssh-server and -client, a
built benchtui and bench/loop (make build).  Not part of make check.
"""
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCHTUI = os.environ.get("BENCHTUI",
                          os.path.join(HERE, "build/meson/tui/benchtui"))
LOOP = os.path.join(HERE, "build/meson/bench/loop")
SSHD = os.environ.get("SSHD", "/usr/sbin/sshd")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_open(port):
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


class Hosts:
    """n sshd instances sharing one host key and one user key."""

    def __init__(self, tmp, n):
        self.tmp, self.pids, self.names = tmp, [], []
        d = os.path.join(tmp, "ssh")
        os.makedirs(d)
        for k in ("host_key", "user_key"):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "",
                            "-f", os.path.join(d, k)], check=True)
        shutil.copy(os.path.join(d, "user_key.pub"),
                    os.path.join(d, "authorized_keys"))
        hostpub = " ".join(open(os.path.join(d, "host_key.pub"))
                           .read().split()[:2])
        kh = open(os.path.join(d, "known_hosts"), "w")
        for i in range(n):
            port = free_port()
            home = os.path.join(tmp, "agent%d" % i)
            os.makedirs(home)
            conf = os.path.join(d, "sshd_config.%d" % port)
            with open(conf, "w") as f:
                f.write("Port %d\nListenAddress 127.0.0.1\nHostKey %s\n"
                        "PidFile %s/sshd.%d.pid\nAuthorizedKeysFile %s\n"
                        "PermitRootLogin prohibit-password\n"
                        "PasswordAuthentication no\nUsePAM no\n"
                        "StrictModes no\nLogLevel ERROR\n"
                        "SetEnv AGENT_HOME=%s\n" % (
                            port, os.path.join(d, "host_key"), d, port,
                            os.path.join(d, "authorized_keys"), home))
            kh.write("[127.0.0.1]:%d %s\n" % (port, hostpub))
            p = subprocess.Popen(
                ["unshare", "-m", "sh", "-c",
                 "mount -t tmpfs -o mode=755 none /run && "
                 "mkdir -m 755 /run/sshd && exec \"$0\" -D -e -f \"$1\"",
                 SSHD, conf], stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL)
            self.pids.append(p)
            self.names.append("ssh://root@127.0.0.1:%d" % port)
            for _ in range(100):
                if port_open(port):
                    break
                time.sleep(0.1)
            else:
                sys.exit("hosts: sshd on %d did not start" % port)
        kh.close()
        self.ssh = ["ssh", "-F", "/dev/null", "-o", "BatchMode=yes",
                    "-o", "IdentitiesOnly=yes", "-i",
                    os.path.join(d, "user_key"), "-o",
                    "UserKnownHostsFile=" + os.path.join(d, "known_hosts"),
                    "-o", "StrictHostKeyChecking=yes", "-o", "LogLevel=ERROR"]

    def stop(self):
        for p in self.pids:
            p.send_signal(signal.SIGTERM)
            p.wait()


def ts(s):
    return datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ").timestamp()


def one(tmp, hosts, n, k):
    rnd = {
        "name": "hosts%d" % n, "baseline": "a", "workdir": tmp,
        "command": [LOOP, "${N}"],
        "arms": [{"name": "a", "vars": {"N": "14000000"}},
                 {"name": "b", "vars": {"N": "14700000"}}],
        "cells": [{"name": "loop"}],
        "reps": {"min": 8, "max": 60, "until": "decided", "metric": "cpu"},
        "ssh": hosts.ssh, "quiet": False,
        "agent": ["sh", "-c", "cd \"$AGENT_HOME\" && exec \"$0\" agent "
                  "\"$@\"", BENCHTUI],
    }
    path = os.path.join(tmp, "r%d-%d.json" % (n, k))
    out = os.path.join(tmp, "out%d-%d" % (n, k))
    json.dump(rnd, open(path, "w"))
    argv = [BENCHTUI, "run", path, "--headless", "--out", out]
    for h in hosts.names[:n]:
        argv += ["--host", h]
    t0, e0 = time.monotonic(), time.time()
    rc = subprocess.run(argv, stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL).returncode
    wall = time.monotonic() - t0
    e1 = time.time()
    evs = [json.loads(x) for x in open(os.path.join(out, "log.jsonl"))]
    starts = [ts(e["ts"]) for e in evs if e.get("t") == "leg_start"]
    legs = [e for e in evs if e.get("t") == "leg"]
    looks = [e for e in evs if e.get("t") == "look" and e.get("decided")]
    first = min(starts)
    verdict = ts(looks[0]["ts"]) - first if looks else float("nan")
    reps = looks[0]["rep"] if looks else max(e["rep"] for e in legs)
    last = max(ts(e["ts"]) for e in legs)
    span = last - first
    return (rc, wall, verdict, reps, len(legs) / span if span > 0 else 0,
            first - e0, e1 - last)


def main():
    trials = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    for p in (BENCHTUI, LOOP):
        if not os.access(p, os.X_OK):
            sys.exit("hosts: build first (make build): no %s" % p)
    if os.geteuid() != 0:
        sys.exit("hosts: the sshd logs in as root; run as root")
    print("load average: %.2f %.2f %.2f" % os.getloadavg())
    tmp = tempfile.mkdtemp(prefix="benchtui-hosts.")
    hosts = Hosts(tmp, 3)
    res = {n: [] for n in (1, 2, 3)}
    try:
        for k in range(trials):
            order = [1, 2, 3][k % 3:] + [1, 2, 3][:k % 3]
            for n in order:
                r = one(tmp, hosts, n, k)
                res[n].append(r)
                print("trial %d, %d host%s: exit %d, wall %.1f s (%.1f s to "
                      "the first leg, %.1f s after the last), verdict "
                      "%.1f s at rep %d, %.1f legs/s" % (
                          k + 1, n, "s" if n > 1 else "", r[0], r[1], r[5],
                          r[6], r[2], r[3], r[4]), flush=True)
    finally:
        hosts.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    base = statistics.median(x[2] for x in res[1])
    print("\nhosts  wall(s)  setup(s)  verdict(s)  reps  legs/s  "
          "verdict vs 1 host")
    for n in (1, 2, 3):
        v = statistics.median(x[2] for x in res[n])
        print("%5d  %7.1f  %8.1f  %10.1f  %4.0f  %6.1f  %.2fx" % (
            n, statistics.median(x[1] for x in res[n]),
            statistics.median(x[5] for x in res[n]), v,
            statistics.median(x[3] for x in res[n]),
            statistics.median(x[4] for x in res[n]), v / base))


if __name__ == "__main__":
    main()
