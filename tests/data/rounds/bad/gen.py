#!/usr/bin/env python3
# Writes the broken round files of this folder and EXPECT, the table that
# test_spec.c and tests/e2e/check_examples.sh both read: one line per file,
# "FILE<Tab>text the error must contain".  Each case breaks one field or rule
# of an otherwise valid round.  Regenerate with: python3 gen.py
import copy, json, os

BASE = {
    "name": "r",
    "reps": 2,
    "bin": "/bin/true",
    "command": ["${BIN}", "x"],
    "baseline": "a",
    "arms": [{"name": "a"}, {"name": "b", "env": {"X": "1"}}],
    "cells": [{"name": "c"}],
}

def srv(**kw):
    s = {"cmd": ["/bin/true"], "ready": {"tcp_port": 8080}}
    s.update(kw)
    return s

CASES = []
def case(name, expect, patch=None, raw=None):
    CASES.append((name, expect, patch, raw))

def setp(path, value):
    def f(r):
        o = r
        for k in path[:-1]:
            o = o[k]
        if value is DEL:
            del o[path[-1]]
        elif isinstance(o, list) and path[-1] == len(o):
            o.append(value)
        else:
            o[path[-1]] = value
    return f
DEL = object()

case("syntax", "line 4, column", raw='{\n  "name": "r",\n  "reps": 2\n  "bin": "/bin/true"\n}\n')
case("duplicate-key", "line 1, column 20: duplicate object key", raw='{"name": "r", "name": "s"}\n')
case("reps-twice", "line 1, column 32: duplicate object key near '\"reps\"': reps is given twice; it is a number", raw='{"name": "r", "reps": 10, "reps": {"min": 6, "max": 20, "until": "decided"}}\n')
case("top-array", "(top): a round file holds one JSON object", raw='[1, 2]\n')
case("name-missing", "name: missing", setp(["name"], DEL))
case("name-digit", 'name: "1abc" is not a valid name', setp(["name"], "1abc"))
case("name-long", "name: ", setp(["name"], "a" * 50))
case("name-slash", "name: ", setp(["name"], "a/b"))
case("top-unknown", 'rep: unknown key "rep"', setp(["rep"], 3))
case("reps-zero", "reps: 0 is out of range", setp(["reps"], 0))
case("reps-string", "reps: must be an integer", setp(["reps"], "3"))
case("reps-real", "reps: must be an integer", setp(["reps"], 1.5))
case("command-empty", "command: must not be empty", setp(["command"], []))
case("command-string", "command: must be an array", setp(["command"], "/bin/true x"))
case("command-number", "command[1]: must be a string", setp(["command"], ["${BIN}", 3]))
case("command-first-empty", "command[0]: must not be empty", setp(["command"], ["", "x"]))
case("command-nul", "command[1]: contains a NUL", setp(["command"], ["${BIN}", "a\u0000b"]))
case("bin-empty", "bin: must not be empty", setp(["bin"], ""))
case("bin-unset", "command[0]: ${BIN} has no value here", setp(["bin"], DEL))
case("arms-empty", "arms: must hold at least one arm", setp(["arms"], []))
case("arms-object", "arms: must be an array", setp(["arms"], {"name": "a"}))
case("arm-no-name", "arms[1].name: missing", setp(["arms", 1], {"env": {}}))
case("arm-dup-name", 'arms[1].name: "a" is already the name of arms[0]', setp(["arms", 1, "name"], "a"))
case("arm-bad-name", "arms[1].name: ", setp(["arms", 1, "name"], "b c"))
case("arm-unknown-key", 'arms[1].enc: unknown key "enc"', setp(["arms", 1, "enc"], {}))
case("arm-env-array", "arms[1].env: must be an object", setp(["arms", 1, "env"], ["X=1"]))
case("arm-env-number", "arms[1].env.X: must be a string", setp(["arms", 1, "env"], {"X": 1}))
case("arm-env-key-eq", "arms[1].env.A=B: ", setp(["arms", 1, "env"], {"A=B": "1"}))
case("arm-bin-empty", "arms[1].bin: must not be empty", setp(["arms", 1, "bin"], ""))
case("baseline-missing", "baseline: missing", setp(["baseline"], DEL))
case("baseline-unknown", 'baseline: no arm named "z"', setp(["baseline"], "z"))
case("vs-unknown", 'arms[1].vs: no arm named "z"', setp(["arms", 1, "vs"], "z"))
case("vs-self", "arms[1].vs: an arm cannot be compared with itself", setp(["arms", 1, "vs"], "b"))
case("vs-on-baseline", "arms[0].vs: the baseline arm is compared with nothing", setp(["arms", 0, "vs"], "b"))
case("aa-unknown", 'arms[2].aa_of: no arm named "z"', setp(["arms", 2], {"name": "aa", "aa_of": "z"}))
case("aa-self", "arms[2].aa_of: an arm cannot be an A/A copy of itself", setp(["arms", 2], {"name": "aa", "aa_of": "aa"}))
case("aa-of-aa", 'arms[3].aa_of: "aa" is itself an A/A copy', lambda r: r["arms"].extend([{"name": "aa", "aa_of": "a"}, {"name": "aa2", "aa_of": "aa"}]))
case("aa-with-env", "arms[2].aa_of: an A/A arm takes env, bin and vs", setp(["arms", 2], {"name": "aa", "aa_of": "a", "env": {"X": "2"}}))
case("aa-with-vs", "arms[2].aa_of: an A/A arm takes env, bin and vs", setp(["arms", 2], {"name": "aa", "aa_of": "a", "vs": "b"}))
case("aa-baseline", "arms[0].aa_of: the baseline arm cannot be an A/A copy", setp(["arms", 0, "aa_of"], "b"))
case("cells-empty", "cells: must hold at least one cell", setp(["cells"], []))
case("cell-no-name", "cells[0].name: missing", setp(["cells", 0], {"vars": {}}))
case("cell-dup-name", 'cells[1].name: "c" is already the name of cells[0]', lambda r: r["cells"].append({"name": "c"}))
case("leg-file-clash", 'cells[1].name: cell "c" arm "b-a" and cell "c-b" arm "a" would both write legs/c-b-a-rREP.out', lambda r: (r["cells"].append({"name": "c-b"}), r["arms"].append({"name": "b-a"})))
case("cell-unknown-key", 'cells[0].var: unknown key "var"', setp(["cells", 0, "var"], {}))
case("cell-vars-number", "cells[0].vars.X: must be a string", setp(["cells", 0, "vars"], {"X": 2}))
case("vars-bad-name", 'vars.A-B: "A-B" is not a variable name', setp(["vars"], {"A-B": "x"}))
case("vars-builtin", 'vars.CELL: "CELL" would shadow the built-in', setp(["vars"], {"CELL": "x"}))
case("template-unknown", "command[1]: unknown variable ${NOPE}", setp(["command"], ["${BIN}", "${NOPE}"]))
case("template-unterminated", 'command[1]: unterminated "${"', setp(["command"], ["${BIN}", "${X"]))
case("template-bad-name", "command[1]: bad variable name", setp(["command"], ["${BIN}", "${A-B}"]))
case("template-cycle", "vars.A: variable cycle: A -> B -> A", setp(["vars"], {"A": "${B}", "B": "${A}"}))
case("template-cell-missing", 'vars.OUT: unknown variable ${IN} (cell "c2"', lambda r: (r.update(vars={"OUT": "${IN}.out"}), r.update(cells=[{"name": "c", "vars": {"IN": "x"}}, {"name": "c2"}])))
case("template-bin", "arms[1].bin: unknown variable ${TOOL}", setp(["arms", 1, "bin"], "/usr/bin/${TOOL}"))
case("template-scratch", "scratch: unknown variable ${DIR}", setp(["scratch"], "${DIR}/s"))
case("template-server", "cells[0].server.cmd[1]: unknown variable ${PORT}", setp(["cells", 0, "server"], srv(cmd=["/bin/true", "${PORT}"])))
case("template-server-rep", 'cells[0].server.cmd[1]: ${REP} has no value here: a cell\'s server serves every rep (cell "c")', setp(["cells", 0, "server"], srv(cmd=["/bin/true", "${REP}"])))
case("aa-with-server-env", "arms[2].aa_of: an A/A arm takes env, bin and vs (and server_bin, server_env)", setp(["arms", 2], {"name": "aa", "aa_of": "a", "server_env": {"X": "2"}}))
case("server-env-not-object", "arms[1].server_env", setp(["arms", 1, "server_env"], ["X=1"]))
case("template-server-scratch", "cells[0].server.cmd[1]: ${SCRATCH} has no value here", lambda r: (r.update(scratch="s"), r["cells"][0].update(server=srv(cmd=["/bin/true", "${SCRATCH}/x"]))))
# Arm vars, arrays that splice, matrix, warmup, prepare, output.
case("arm-vars-number", "arms[1].vars.X: must be a string", setp(["arms", 1, "vars"], {"X": 1}))
case("arm-vars-builtin", 'arms[1].vars.ARM: "ARM" would shadow the built-in', setp(["arms", 1, "vars"], {"ARM": "x"}))
case("arm-cell-var", 'arms[1].vars.X: cell "c" sets ${X} too', lambda r: (r["arms"][1].update(vars={"X": "1"}), r["cells"][0].update(vars={"X": "2"})))
case("aa-with-vars", "arms[2].aa_of: an A/A arm takes env, bin and vs", setp(["arms", 2], {"name": "aa", "aa_of": "a", "vars": {"X": "2"}}))
case("vars-array-number", "vars.F[0]: must be a string", setp(["vars"], {"F": [1]}))
case("array-in-string", 'command[1]: ${F} is an array; an array only splices into an argv', lambda r: (r.update(vars={"F": ["-1"]}), r.update(command=["${BIN}", "-x${F}"])))
case("array-in-var", 'vars.G: ${F} is an array', lambda r: r.update(vars={"F": ["-1"], "G": "${F}"}))
case("array-in-bin", 'bin: ${F} is an array', lambda r: r.update(vars={"F": ["/bin/true"]}, bin="${F}"))
case("array-unknown-inside", 'command[1]: unknown variable ${NOPE} (cell "c", arm "b")', lambda r: (r["arms"][1].update(vars={"F": ["-1", "${NOPE}"]}), r["arms"][0].update(vars={"F": []}), r.update(command=["${BIN}", "${F}"])))
case("arm-var-missing", 'command[1]: unknown variable ${F} (cell "c", arm "a")', lambda r: (r["arms"][1].update(vars={"F": ["-1"]}), r.update(command=["${BIN}", "${F}"])))
case("command-splices-empty", "command: splices to no arguments", lambda r: (r.pop("bin"), r.update(vars={"F": []}, command=["${F}"])))
case("matrix-string", "matrix: must be an object", setp(["matrix"], "x"))
case("matrix-no-name", "matrix.name: missing", setp(["matrix"], {"vars": {"S": ["a"]}}))
case("matrix-unknown-key", 'matrix.cells: unknown key "cells"', setp(["matrix"], {"name": "${S}", "vars": {"S": ["a"]}, "cells": 1}))
case("matrix-vars-empty", "matrix.vars: must be an object of at least one variable", setp(["matrix"], {"name": "m", "vars": {}}))
case("matrix-values-empty", "matrix.vars.S: must be a non-empty array", setp(["matrix"], {"name": "m${S}", "vars": {"S": []}}))
case("matrix-dup-name", 'matrix.name (cell 2): "m1" is already the name of cells[1]', setp(["matrix"], {"name": "m${S}", "vars": {"S": ["1", "2"], "T": ["a", "b"]}}))
case("matrix-bad-name", 'matrix.name (cell 1): "1k" is not a valid cell name', setp(["matrix"], {"name": "${S}", "vars": {"S": ["1k"]}}))
case("matrix-name-unknown", "matrix.name (cell 1): unknown variable ${T}", setp(["matrix"], {"name": "m${T}", "vars": {"S": ["1"]}}))
case("matrix-clash-cell", 'matrix.name (cell 1): "c" is already the name of cells[0]', setp(["matrix"], {"name": "${S}", "vars": {"S": ["c"]}}))
case("no-cells", "cells: missing (required unless a matrix", setp(["cells"], DEL))
case("warmup-negative", "warmup: -1 is out of range", setp(["warmup"], -1))
case("warmup-string", "warmup: must be an integer", setp(["warmup"], "2"))
case("prepare-string", "prepare: must be an array", setp(["prepare"], "sync"))
case("prepare-empty", "prepare: must not be empty", setp(["prepare"], []))
case("prepare-template", "prepare[1]: unknown variable ${NOPE}", setp(["prepare"], ["/bin/true", "${NOPE}"]))
case("output-string", "output: must be an object", setp(["output"], "none"))
case("output-keep", 'output.keep: must be "all" or "none"', setp(["output"], {"keep": "some"}))
case("output-max-negative", "output.max_bytes: must be an integer >= 0", setp(["output"], {"max_bytes": -1}))
case("output-unknown-key", 'output.max: unknown key "max"', setp(["output"], {"max": 1}))
case("cpus-bad", 'cpus.client: "0-" is not a cpu list', setp(["cpus"], {"client": "0-"}))
case("cpus-reversed", 'cpus.server: "3-1" is not a cpu list', setp(["cpus"], {"server": "3-1"}))
case("cpus-unknown-key", 'cpus.clinet: unknown key "clinet"', setp(["cpus"], {"clinet": "0"}))
case("cpus-string", "cpus: must be an object", setp(["cpus"], "0-1"))
case("cpus-overlap", "cpus.server: cpu 1 is also in cpus.client", lambda r: (r.update(cpus={"client": "0-1", "server": "1"}), r["cells"][0].update(server=srv())))
case("cpus-overlap-cell", "cells[0].server.cpus: cpu 0 is also in cpus.client", lambda r: (r.update(cpus={"client": "0"}), r["cells"][0].update(server=srv(cpus="0"))))
case("nice-high", "nice: 20 is out of range", setp(["nice"], 20))
case("nice-real", "nice: must be an integer", setp(["nice"], 1.5))
case("settle-negative", "settle_s: -1 is out of range", setp(["settle_s"], -1))
case("timeout-zero", "timeout_s: 0 is out of range", setp(["timeout_s"], 0))
case("counters-empty", "counters: must name at least one event", setp(["counters"], []))
case("counters-unknown", 'counters[1]: unknown event "cycels"', setp(["counters"], ["task-clock", "cycels"]))
case("counters-twice", 'counters[1]: "cycles" is listed twice', setp(["counters"], ["cycles", "cycles"]))
case("counters-string", "counters: must be an array", setp(["counters"], "cycles"))
case("quiet-string", "quiet: must be an object or false", setp(["quiet"], "off"))
case("quiet-window-zero", "quiet.window_ms: 0 is out of range", setp(["quiet"], {"window_ms": 0}))
case("quiet-foreign-negative", "quiet.max_foreign_cores: -0.5 is out of range", setp(["quiet"], {"max_foreign_cores": -0.5}))
case("quiet-timeout-zero", "quiet.timeout_s: 0 is out of range", setp(["quiet"], {"timeout_s": 0}))
case("quiet-on-timeout", 'quiet.on_timeout: must be "abort" or "proceed"', setp(["quiet"], {"on_timeout": "skip"}))
case("quiet-unknown-key", 'quiet.window: unknown key "window"', setp(["quiet"], {"window": 1000}))
case("quiet-budget-negative", "quiet.budget_s: -1 is out of range (must be >= 0", setp(["quiet"], {"budget_s": -1}))
case("quiet-budget-string", "quiet.budget_s: must be a number, not a string", setp(["quiet"], {"budget_s": "2m"}))
case("quiet-client-busy-negative", "quiet.max_client_busy: -0.1 is out of range", setp(["quiet"], {"max_client_busy": -0.1}))
case("quiet-server-busy-string", "quiet.max_server_busy: must be a number", setp(["quiet"], {"max_server_busy": "low"}))
case("quiet-probe-word", 'quiet.probe: must be true, false or "auto", not "on"', setp(["quiet"], {"probe": "on"}))
case("quiet-probe-number", 'quiet.probe: must be true, false or "auto", not an integer', setp(["quiet"], {"probe": 1}))
case("scratch-dot", 'scratch: "." is the workdir', setp(["scratch"], "."))
case("scratch-dotdot", 'scratch: "out/../.." holds ".."', setp(["scratch"], "out/../.."))
case("scratch-var-dotdot", 'scratch: ".." holds ".."', lambda r: r.update(scratch="${S}", vars={"S": ".."}))
case("scratch-root", 'scratch: "/" is the workdir or one of its parents', setp(["scratch"], "/"))
case("workdir-missing", 'workdir: "', setp(["workdir"], "no-such-folder"))
case("server-no-ready", "cells[0].server.ready: missing", setp(["cells", 0, "server"], {"cmd": ["/bin/true"]}))
case("server-port-range", "cells[0].server.ready.tcp_port: 70000 is out of range", setp(["cells", 0, "server"], srv(ready={"tcp_port": 70000})))
case("server-port-missing", "cells[0].server.ready.tcp_port: missing", setp(["cells", 0, "server"], srv(ready={"timeout_s": 5})))
case("server-ready-timeout", "cells[0].server.ready.timeout_s: 0 is out of range", setp(["cells", 0, "server"], srv(ready={"tcp_port": 80, "timeout_s": 0})))
case("server-cmd-empty", "cells[0].server.cmd: must not be empty", setp(["cells", 0, "server"], srv(cmd=[])))
case("server-unknown-key", 'cells[0].server.port: unknown key "port"', setp(["cells", 0, "server"], srv(port=80)))
case("server-cpus-bad", 'cells[0].server.cpus: "x" is not a cpu list', setp(["cells", 0, "server"], srv(cpus="x")))
case("server-env-number", "cells[0].server.env.P: must be a string", setp(["cells", 0, "server"], srv(env={"P": 1})))
# A server on another host: the host is one argument to ssh, never an option.
case("server-host-dash", "cells[0].server.host: \"-oProxyCommand=x\" starts with '-', which ssh would read as an option", setp(["cells", 0, "server"], srv(host="-oProxyCommand=x")))
case("server-host-empty", "cells[0].server.host: must not be empty", setp(["cells", 0, "server"], srv(host="")))
case("server-host-newline", "cells[0].server.host: holds a control character", setp(["cells", 0, "server"], srv(host="b\nc")))
case("server-dir-no-host", "cells[0].server.dir: is the agent's folder on the server's host: it needs server.host", setp(["cells", 0, "server"], srv(dir="d")))
case("server-hosts-two-dirs", 'cells[1].server.dir: "e" differs from cells[0].server.dir "d" on the same host h', lambda r: r.update(cells=[{"name": "c", "server": srv(host="h", dir="d")}, {"name": "c2", "server": srv(host="h", dir="e")}]))
case("ssh-empty", "ssh: must not be empty", setp(["ssh"], []))
case("agent-string", "agent: must be an array of strings", setp(["agent"], "benchtui agent"))
# Checks against this machine (spec_check_host): check exits 2 on them too.
case("host-bin-missing", 'bin: no program "/nonexistent/prog"', setp(["bin"], "/nonexistent/prog"))
case("host-command-missing", 'command[0]: no program "no-such-program-xyz"', lambda r: (r.pop("bin"), r.update(command=["no-such-program-xyz"])))
case("host-cpus-offline", "cpus.client: cpu 4000 (in \"4000\") is not online", setp(["cpus"], {"client": "4000"}))
case("host-ssh-missing", 'ssh[0]: no program "no-such-ssh-xyz"', lambda r: (r.update(ssh=["no-such-ssh-xyz"]), r["cells"][0].update(server=srv(host="h"))))
# One round on several hosts: each host once, not beside "host"; a
# cell server's own host one of them, and no server per leg yet.
case('hosts-twice', 'hosts[1]: "h1" is hosts[0] already; a host is listed once', raw='{"name": "r", "reps": 2, "command": ["/bin/true"], "baseline": "a", "arms": [{"name": "a"}], "cells": [{"name": "c"}], "hosts": ["h1", "h1"]}\n')
case('hosts-and-host', 'hosts: and "host" are both set', raw='{"name": "r", "reps": 2, "command": ["/bin/true"], "baseline": "a", "arms": [{"name": "a"}], "cells": [{"name": "c"}], "hosts": ["h1"], "host": "h1"}\n')
case('hosts-empty', 'hosts: must be a non-empty array of hosts, not an empty array', raw='{"name": "r", "reps": 2, "command": ["/bin/true"], "baseline": "a", "arms": [{"name": "a"}], "cells": [{"name": "c"}], "hosts": []}\n')
case('hosts-dash', 'hosts[1]: "-oProxyCommand=x" starts with \'-\', which ssh would read as an option', raw='{"name": "r", "reps": 2, "command": ["/bin/true"], "baseline": "a", "arms": [{"name": "a"}], "cells": [{"name": "c"}], "hosts": ["h1", "-oProxyCommand=x"]}\n')
case('hosts-server-elsewhere', 'cells[0].server.host: cell c runs its server on "h3", which is not one of the round\'s hosts', raw='{"name": "r", "reps": 2, "command": ["/bin/true"], "baseline": "a", "arms": [{"name": "a"}], "cells": [{"name": "c", "server": {"cmd": ["/bin/true"], "ready": {"tcp_port": 9}, "host": "h3"}}], "hosts": ["h1", "h2"]}\n')
case('hosts-server-per-leg', 'cells[0].server: cell c starts a server for each leg', raw='{"name": "r", "reps": 2, "command": ["/bin/true"], "baseline": "a", "arms": [{"name": "a", "server_env": {"X": "1"}}], "cells": [{"name": "c", "server": {"host": "h1", "cmd": ["/bin/true"], "ready": {"tcp_port": 9}}}], "hosts": ["h1", "h2"]}\n')

# Profiles: which arms and cells, which kinds, and what the round sets.
def prof(profile, server=None):
    def f(r):
        if server is not None:
            r["cells"][0]["server"] = server
        r["profile"] = profile
    return f
case("profile-arm-unknown", 'profile.arms[1]: no arm named "z"', prof({"arms": ["a", "z"], "perf": {}}))
case("profile-cell-unknown", 'profile.cells[0]: no cell named "z"', prof({"arms": ["a"], "cells": ["z"], "perf": {}}))
case("profile-arms-empty", "profile.arms: must be a non-empty array of arm names", prof({"arms": [], "perf": {}}))
case("profile-no-kind", "profile: names no kind of profile", prof({"arms": ["a"]}))
case("profile-unknown-key", 'profile.strace: unknown key "strace"', prof({"arms": ["a"], "perf": {}, "strace": {}}))
case("profile-perf-output", 'profile.perf.args[1]: "-o" is the round\'s to set', prof({"arms": ["a"], "perf": {"args": ["-g", "-o", "x.data"]}}))
case("profile-min-samples", "profile.perf.min_samples: must be an integer of at least 1", prof({"arms": ["a"], "perf": {"min_samples": 0}}))
case("profile-min-runs", "profile.perf.min_runs: must be an integer from 2 to 100000", prof({"arms": ["a"], "perf": {"min_runs": 1}}))
case("profile-max-s", "profile.perf.max_s: 0 is out of range", prof({"arms": ["a"], "perf": {"max_s": 0}}))
case("profile-server-perf-no-server", "profile.server_perf: none of the profiled cells has a server to profile", prof({"arms": ["a"], "server_perf": {}}))
case("profile-perf-pid", 'profile.perf.args[0]: "-p" is the round\'s to set', prof({"arms": ["a"], "perf": {"args": ["-p", "1"]}}))
case("profile-callgraph-bad", 'profile.perf.args[1]: "dwarf,big" sets a call-graph method benchtui cannot read back', prof({"arms": ["a"], "perf": {"args": ["--call-graph", "dwarf,big"]}}))
case("profile-branch-stack", 'profile.server_perf.args[2]: "-b" sets a call-graph method benchtui cannot read back', prof({"arms": ["a"], "server_perf": {"args": ["-F", "99", "-b"]}}, {"cmd": ["/bin/sleep", "60"], "ready": {"tcp_port": 1}}))
case("profile-syscalls-no-server", "profile.syscalls: none of the profiled cells has a server to trace", prof({"arms": ["a"], "syscalls": {}}))
case("profile-server-perf-min-runs", "profile.server_perf.min_runs: must be an integer from 2 to 100000", prof({"arms": ["a"], "server_perf": {"min_runs": 1}}, {"cmd": ["/bin/sleep", "60"], "ready": {"tcp_port": 1}}))
case("profile-trace-bad", 'profile.syscalls.trace[1]: "wr ite" is not a system call name', prof({"arms": ["a"], "syscalls": {"trace": ["read", "wr ite"]}}, {"cmd": ["/bin/sleep", "60"], "ready": {"tcp_port": 1}}))
# Leg order, statistics and adaptive reps, on a one-arm round without bin.
def solo(**kw):
    def f(r):
        del r["bin"]
        r["command"] = ["x"]
        r["arms"] = [{"name": "a"}]
        r.update(kw)
    return f
case("order-bad", 'order: must be "mirror", "seed" or "shuffle", not "random"', solo(order="random"))
case("shuffle-seed-no-shuffle", "shuffle_seed: only applies to", solo(shuffle_seed=1))
case("shuffle-seed-negative", "shuffle_seed: must be an integer from 0 to 2^53-1", solo(order="shuffle", shuffle_seed=-1))
case("confidence-one", "confidence: must be below 1", solo(confidence=1))
case("confidence-zero", "confidence:", solo(confidence=0))
case("margin-negative", "margin:", solo(margin=-0.01))
case("fail-fast-negative", "fail_fast:", solo(fail_fast=-1))
case("reps-until", 'reps.until: must be "decided"', solo(reps={"min": 6, "max": 10, "until": "forever"}))
case("reps-max-below-min", "reps.max: (5) is below reps.min (6)", solo(reps={"min": 6, "max": 5, "until": "decided"}))
case("reps-unknown-key", "reps", solo(reps={"min": 6, "max": 10, "until": "decided", "step": 2}))
case("reps-metric-misspelt", 'reps.metric: "wal" is not a metric of this round (did you mean "wall"?), so no look could decide on it and every cell would run to max; its metrics are wall, cpu, bytes, task-clock (a leg\'s own names need ${METRICS} in the command)', solo(reps={"min": 6, "max": 10, "until": "decided", "metric": "wal"}, counters=["task-clock"]))
case("reps-metric-own-no-metrics", 'reps.metric: "rps" is not a metric of this round, so no look could decide on it and every cell would run to max; its metrics are wall, cpu, bytes, task-clock', solo(reps={"min": 6, "max": 10, "until": "decided", "metric": "rps"}, counters=["task-clock"]))
# What a leg reads and what counts as ok: ok_rc, stdin, files, a cell's
# setup and cleanup.
case("ok-rc-empty", "ok_rc: must be a non-empty array", setp(["ok_rc"], []))
case("ok-rc-range", "ok_rc[1]: 256 is out of range", setp(["ok_rc"], [0, 256]))
case("ok-rc-twice", "ok_rc[1]: 1 is listed twice", setp(["ok_rc"], [1, 1]))
case("stdin-number", "stdin: must be a string", setp(["stdin"], 3))
case("stdin-template", "stdin: unknown variable ${NOPE}", setp(["stdin"], "${NOPE}"))
case("stdin-missing", "stdin: /nonexistent/input.txt: No such file or directory", setp(["stdin"], "/nonexistent/input.txt"))
case("setup-string", "cells[0].setup: must be an array", setp(["cells", 0, "setup"], "true"))
case("setup-arm", "cells[0].setup[1]: ${ARM} has no value here", setp(["cells", 0, "setup"], ["/bin/true", "${ARM}"]))
case("cleanup-missing", 'cells[0].cleanup[0]: no program "no-such-program-xyz"', setp(["cells", 0, "cleanup"], ["no-such-program-xyz"]))
case("files-string", "files: must be an array", setp(["files"], "/etc/hostname"))
case("files-dup", "files[1]: its copy would be files/hostname", setp(["files"], ["/etc/hostname", "/nonexistent/dir/hostname"]))
case("files-bad-name", 'files[0].as: "a/b" is no name', setp(["files"], [{"path": "/etc/hostname", "as": "a/b"}]))
case("files-no-path", "files[0].path: missing", setp(["files"], [{"as": "x"}]))
case("files-missing", "files[0]: /nonexistent/nginx.conf: No such file or directory", setp(["files"], ["/nonexistent/nginx.conf"]))
# A slip of the keyboard gets the name it meant to type.
case("key-suggest", 'warmups: unknown key "warmups" (did you mean "warmup"?)', setp(["warmups"], 2))
case("cell-key-suggest", 'cells[0].setpu: unknown key "setpu" (did you mean "setup"?)', setp(["cells", 0, "setpu"], ["/bin/true"]))
case("event-suggest", 'counters[0]: unknown event "task-clk" (did you mean "task-clock"?)', setp(["counters"], ["task-clk"]))
case("fail-on-string", "fail_on: must be an array of rules", setp(["fail_on"], "wall:above"))
case("fail-on-number", "fail_on[1]: must be a string", setp(["fail_on"], ["wall:above", 3]))
case("fail-on-verdict", "fail_on[0]: 'wall:abov': unknown verdict 'abov'", setp(["fail_on"], ["wall:abov"]))
case("fail-on-shape", "fail_on[0]: 'wall': not a rule (METRIC:VERDICT", setp(["fail_on"], ["wall"]))
case("fail-on-arm", "fail_on[0]: 'fast/wall:above': the round has no arm 'fast'", setp(["fail_on"], ["fast/wall:above"]))
case("fail-on-baseline", "fail_on[0]: 'a/wall:above': a is the baseline", setp(["fail_on"], ["a/wall:above"]))
case("fail-on-metric", "fail_on[0]: 'b/:above': '' is not a metric's name", setp(["fail_on"], ["b/:above"]))
case("fail-on-metric-misspelt", 'fail_on[0]: \'b/wal:above\': "wal" is not a metric of this round (did you mean "wall"?), so the rule could never match', setp(["fail_on"], ["b/wal:above"]))
case("fail-on-list-arm", "fail_on[0]: 'zz/wall:above': the round has no arm 'zz'", setp(["fail_on"], ["cpu:below,zz/wall:above"]))
case("fail-on-list-empty", "fail_on[0]: 'wall:above,': an empty rule in a list", setp(["fail_on"], ["wall:above,"]))

here = os.path.dirname(os.path.abspath(__file__))
for f in os.listdir(here):
    if f.endswith(".json"):
        os.unlink(os.path.join(here, f))
with open(os.path.join(here, "EXPECT"), "w") as ex:
    for name, expect, patch, raw in CASES:
        fname = name + ".json"
        if raw is None:
            r = copy.deepcopy(BASE)
            patch(r)
            raw = json.dumps(r, indent=2) + "\n"
        with open(os.path.join(here, fname), "w") as f:
            f.write(raw)
        ex.write("%s\t%s\n" % (fname, expect))
print(len(CASES), "cases")
