#!/usr/bin/env python3
"""The response corpus (tests/data/http/responses.jsonl) over real sockets:
a server of our own replays each raw response cut into pieces, and the real
benchtui load reads it.

    load_replay.py BENCHTUI CORPUS OUTDIR [all]

The server (threads, 127.0.0.1, a port the kernel picks) answers
GET /c/NAME?mode=M&run=ID with NAME's bytes: mode=every cuts request k of
that URL at its k-th split point (the first request whole), so one run of
len(resp) requests reads every split into two writes; mode=at&at=K cuts at
K (0: whole); mode=bytes writes a byte at a time.  Pieces are 1 ms apart,
so the client reads them apart; four cases are loaded at a time.  After a
case marked close the server closes the connection; else it waits for the
next request on it.

Each valid response is loaded in every split (one run) and byte at a time,
its body's length and sha256 checked in the evidence of every request and
a new connection counted for each when the server closes; each invalid
response is loaded whole, byte at a time and cut at five points, and must
be refused (exit 1) naming a request and its reason; an incomplete one
must end in its reason within --timeout.  No run may outlast its
--timeout by more than a few seconds.  Prints the figures; exit 1 at the
first case that fails.

Without "all" (make check), a valid response is cut at 24 points spread
evenly over it, not at every one, and an invalid one is loaded whole,
byte at a time and cut in its middle: the other cuts take the same
parser paths, which the unit test (test_load_corpus.c) runs at every
split in-process.  "all" (suite 'slow', make check-slow) cuts every way.
"""
import concurrent.futures
import hashlib
import json
import os
import socket
import socketserver
import subprocess
import sys
import threading
import time
import urllib.parse

CASES = {}
COUNT = {}
COUNT_LOCK = threading.Lock()
# An "every" run reads at most this many split points (evenly spread);
# main() sets it.
MAX_SPLITS = 300
GAP = 0.001


def split_points(n):
    pts = list(range(1, n))
    if len(pts) > MAX_SPLITS:
        pts = [1 + (n - 2) * i // (MAX_SPLITS - 1) for i in range(MAX_SPLITS)]
    return pts


class Handler(socketserver.BaseRequestHandler):
    def read_request(self):
        while b"\r\n\r\n" not in self.buf:
            try:
                d = self.request.recv(65536)
            except OSError:
                return None
            if not d:
                return None
            self.buf += d
        hdr, self.buf = self.buf.split(b"\r\n\r\n", 1)
        return hdr.split(b" ", 2)[1].decode()

    def pieces(self, target):
        u = urllib.parse.urlsplit(target)
        q = dict(urllib.parse.parse_qsl(u.query))
        case = CASES[u.path[len("/c/"):]]
        data = case["bytes"]
        mode = q.get("mode", "at")
        if mode == "bytes":
            return case, [data[i:i + 1] for i in range(len(data))]
        if mode == "every":
            with COUNT_LOCK:
                k = COUNT.get(target, 0)
                COUNT[target] = k + 1
            pts = split_points(len(data))
            at = 0 if k == 0 else pts[(k - 1) % len(pts)] if pts else 0
        else:
            at = int(q.get("at", "0"))
        if at <= 0 or at >= len(data):
            return case, [data]
        return case, [data[:at], data[at:]]

    def handle(self):
        self.buf = b""
        s = self.request
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        while True:
            target = self.read_request()
            if target is None:
                return
            case, parts = self.pieces(target)
            try:
                for i, p in enumerate(parts):
                    if i:
                        time.sleep(GAP)
                    s.sendall(p)
            except OSError:
                return
            if case.get("close"):
                try:
                    s.shutdown(socket.SHUT_WR)
                except OSError:
                    pass
                return


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256


class Failure(Exception):
    pass


def fail(msg):
    raise Failure(msg)


class Runner:
    def __init__(self, benchtui, base, out):
        self.benchtui, self.base, self.out = benchtui, base, out
        self.runs = self.requests = self.splits = 0
        self.worst = 0.0
        self.lock = threading.Lock()

    def load(self, case, query, requests, timeout, evidence=None):
        """(exit status, stderr, seconds) of one benchtui load."""
        o = case.get("opts", {})
        args = [self.benchtui, "load", "%s/c/%s?%s" % (self.base,
                case["name"], query), "--requests", str(requests),
                "--timeout", str(timeout), "--quiet"]
        if "method" in o:
            args += ["--method", o["method"]]
        if "expect_status" in o:
            args += ["--expect-status", str(o["expect_status"])]
        if "expect_bytes" in o:
            args += ["--expect-bytes", str(o["expect_bytes"])]
        if "accept_encoding" in o:
            args += ["--accept-encoding", o["accept_encoding"]]
        if evidence:
            args += ["--evidence", evidence, "--metrics", evidence + ".m"]
        t = time.monotonic()
        p = subprocess.run(args, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=timeout + 60)
        took = time.monotonic() - t
        with self.lock:
            self.runs += 1
            self.requests += requests
            self.worst = max(self.worst, took - timeout)
        if took > timeout + 10:
            fail("%s %s: %.1f s, past --timeout %g" % (case["name"], query,
                                                     took, timeout))
        return p.returncode, p.stderr.decode("utf-8", "replace"), took

    def accept(self, case):
        want = hashlib.sha256(case["body_bytes"]).hexdigest()
        n = len(split_points(len(case["bytes"]))) + 1
        for query, requests in (("mode=every&run=%s" % case["name"], n),
                                ("mode=bytes", 2)):
            ev = os.path.join(self.out, case["name"] + ".jsonl")
            rc, err, _ = self.load(case, query, requests, 10, ev)
            if rc != 0:
                fail("%s (%s): exit %d: %s" % (case["name"], query, rc, err))
            lines = [json.loads(x) for x in open(ev)]
            m = json.load(open(ev + ".m"))
            if len(lines) != requests:
                fail("%s (%s): %d evidence lines" % (case["name"], query,
                                                    len(lines)))
            for e in lines:
                if (e["sha256"] != want or
                        e["bytes"] != len(case["body_bytes"])):
                    fail("%s (%s): request %d: %d bytes %s, want %d %s" % (
                        case["name"], query, e["req"], e["bytes"],
                        e["sha256"], len(case["body_bytes"]), want))
            fresh = sum(1 for e in lines if e["new_conn"])
            # A server that closes (or a 101) costs a connection a request.
            closes = case.get("close") or \
                case.get("opts", {}).get("expect_status") == 101
            if fresh != (requests if closes else 1) or \
                    m["connections"] != fresh:
                fail("%s (%s): %d new connections (metrics %d) for %d "
                     "requests" % (case["name"], query, fresh,
                                   m["connections"], requests))
            with self.lock:
                self.splits += requests if query.startswith("mode=every") \
                    else 1

    def refuse(self, case):
        n = len(case["bytes"])
        cuts = {1, n // 3, n // 2, 2 * n // 3, n - 1} if ALL else {n // 2}
        queries = ["mode=at&at=0", "mode=bytes"] + \
            ["mode=at&at=%d" % k for k in sorted(cuts)]
        if case.get("incomplete"):
            queries = queries[:3]
            reasons = ["in the middle of the response"] if \
                case.get("close") else ["no complete response within"]
        else:
            reasons = case["refuse"]
        for q in queries:
            rc, err, _ = self.load(case, q, 2, 1 if case.get("incomplete")
                                   else 10)
            if rc != 1 or not any(r in err for r in reasons) or \
                    "request " not in err:
                fail("%s (%s): exit %d, want 1 naming a request and '%s': "
                     "%s" % (case["name"], q, rc, reasons[0], err.strip()))
            with self.lock:
                self.splits += 1


ALL = False


def main():
    global ALL, MAX_SPLITS
    benchtui, corpus, out = sys.argv[1:4]
    ALL = sys.argv[4:] == ["all"]
    MAX_SPLITS = 300 if ALL else 24
    for line in open(corpus):
        c = json.loads(line)
        c["bytes"] = c["resp"].encode("latin-1")
        if "body" in c:
            c["body_bytes"] = c["body"].encode("latin-1")
        CASES[c["name"]] = c
    srv = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    r = Runner(benchtui, "http://127.0.0.1:%d" % srv.server_address[1], out)
    # Four cases at a time: a run mostly waits on the 1 ms gaps between
    # pieces (byte at a time) and on --timeout (incomplete ones).
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        runs = [pool.submit(r.accept if "body" in c else r.refuse, c)
                for c in CASES.values()]
        for f in runs:
            try:
                f.result()
            except Failure as e:
                print("FAIL: %s" % e)
                for g in runs:
                    g.cancel()
                sys.exit(1)
    print("ok: %d responses (%d valid) over sockets: %d ways of cutting "
          "them, %d runs, %d requests; no run past its --timeout by more "
          "than %.2f s" % (len(CASES), sum("body" in c for c in
                                            CASES.values()), r.splits,
                           r.runs, r.requests, max(r.worst, 0)))


if __name__ == "__main__":
    main()
