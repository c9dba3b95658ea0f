#!/usr/bin/env python3
"""A hostile benchtui agent, for the remote_hostile e2e test.

Run by ssh in place of `benchtui agent`: hostile_agent.py MODEFILE
AGENT-ARGV... (ssh appends --dir DIR).  It starts the real agent and
relays its lines both ways, and at the first request of the kind MODE
names it lies, floods or refuses as MODE says.  MODEFILE is JSON:
{"mode": ..., "pid": a local pid no one may signal, "path": a local
path no one may touch}; it is read at each start, so the test turns
the agent good again before a resume.

Modes:
  good                 relay only
  event:TYPE           an event of type TYPE before open's answer
  stray                a reply to a request never made, before open's
  legline              a leg line of its own before close's answer
  extra                open's and close's answers carry events, a leg
                       and pids of their own (dropped by the client)
  longline             a 100 MB line instead of open's answer
  stderr               1 GB on stderr before open's answer
  refuse:OP            OP refused (ok false)
  num:OP:VALUE         every number in OP's answer (but its id) VALUE
  version              hello answered as another version
  silent               hello never answered
  bigfile              every prof_get answered with as many bytes as
                       asked, of a file said to hold 100 MiB
"""
import base64
import json
import os
import subprocess
import sys
import threading

CHUNK = 1 << 16


def main():
    with open(sys.argv[1]) as f:
        conf = json.load(f)
    mode = conf["mode"]
    pid, path = conf.get("pid", 1), conf.get("path", "/")
    agent = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE)
    ops = {}
    reqs = {}
    done = set()
    out = sys.stdout.buffer
    lock = threading.Lock()

    def send(text):
        with lock:
            out.write(text.encode() + b"\n")
            out.flush()

    def evil_event(t):
        return {"event": {"t": t, "evil": True, "pid": pid, "path": path,
                          "cgroup": path, "cell": "net", "arm": "chunk4k",
                          "rep": 1, "status": "ok", "wall_s": 0.001,
                          "foreign": 0.0, "threshold": 1.0, "ok": True,
                          "waited_s": 0.0, "timeout_s": 1.0, "limit_s": 1.0,
                          "budget_s": 1.0, "spent_s": 0.0, "procs": [[pid, 0]],
                          "reason": "evil", "msg": "evil \x1b[31mred"}}

    def first(op):
        if op in done:
            return False
        done.add(op)
        return True

    def renumber(v, val):
        if isinstance(v, bool):
            return v
        if isinstance(v, (int, float)):
            return val
        if isinstance(v, dict):
            return {k: (x if k == "id" else renumber(x, val))
                    for k, x in v.items()}
        if isinstance(v, list):
            return [renumber(x, val) for x in v]
        return v

    def from_agent():
        for raw in agent.stdout:
            msg = json.loads(raw)
            op = ops.get(msg.get("id"))
            try:
                if hostile(msg, op):
                    continue
                send(json.dumps(msg))
            except (BrokenPipeError, OSError):
                break
        os._exit(0)

    def hostile(msg, op):
        """True when msg was answered (or swallowed) here."""
        if mode == "silent" and op == "hello":
            return True
        if mode == "version" and op == "hello":
            msg["version"] = "9.9.9-evil"
        if mode.startswith("event:") and op == "open" and first("open"):
            send(json.dumps(evil_event(mode[6:])))
        if mode == "stray" and op == "open" and first("open"):
            send(json.dumps({"id": 9999, "ok": True, "pid": pid}))
        if mode == "legline" and op == "close" and first("close"):
            send(json.dumps({"t": "leg", "evil": True, "cell": "net",
                             "arm": "aa", "rep": 9, "status": "ok",
                             "wall_s": 0.001}))
        if mode == "extra" and op in ("open", "close"):
            msg.update(evil_event("leg"))
            msg["leg"] = {"evil": True, "wall_s": 0.001}
            msg["pid"] = pid
            if op == "close":
                msg["server"]["evil"] = True
                msg["server"]["cgroup"] = path
        if mode == "longline" and op == "open" and first("open"):
            block = b"x" * CHUNK
            with lock:
                out.write(b'{"id":%d,"ok":true,"evil":"' % msg["id"])
                for _ in range(100 * (1 << 20) // CHUNK):
                    out.write(block)
                out.write(b'"}\n')
                out.flush()
            return True
        if mode == "stderr" and op == "open" and first("open"):
            block = b"e" * (CHUNK - 1) + b"\n"
            for _ in range((1 << 30) // CHUNK):
                sys.stderr.buffer.write(block)
            sys.stderr.buffer.flush()
        if mode == "bigfile" and op == "prof_get":
            n = reqs[msg["id"]].get("max", 0)
            msg["data"] = base64.b64encode(b"x" * n).decode()
            msg["size"] = 100 << 20
        if mode.startswith("refuse:") and op == mode[7:] and first(op):
            send(json.dumps({"id": msg["id"], "ok": False, "cause": "failed",
                             "error": "evil refusal: no %s today" % op}))
            return True
        if mode.startswith("num:"):
            _, nop, val = mode.split(":")
            if op == nop and first(nop):
                text = json.dumps(renumber(msg, float(val)))
                send(text)
                return True
        return False

    threading.Thread(target=from_agent, daemon=True).start()
    for raw in sys.stdin.buffer:
        try:
            req = json.loads(raw)
            ops[req.get("id")] = req.get("op")
            reqs[req.get("id")] = req
        except ValueError:
            pass
        agent.stdin.write(raw)
        agent.stdin.flush()
    agent.stdin.close()
    agent.wait()


if __name__ == "__main__":
    try:
        main()
    except (BrokenPipeError, KeyboardInterrupt):
        os._exit(0)
