#!/bin/bash
# test: asan-covered est=23
# tools/include-graph given the build: the objects' calls run down the
# layers (tui/ above them all: it calls the engine, never the reverse),
# the round driver's files call only those below them in round_int.h's
# list, and no compile line has the source root on its include path.  It
# passes on the build as it is, and fails, naming the file, on a copy of
# the sources and objects with an upward call planted (base calling the
# driver, the driver calling the front end, round.c calling round_run.c
# above it, the record calling the command builder below it, which it
# keeps out of, agent_server.c calling agent_leg.c and model_gate.c
# calling model.c above them) and a driver file its list lacks.  A file including a header
# through the source root (`#include "engine/round/round.h"` from base)
# fails to compile, naming the file, and a compile line with the source
# root on its include path fails the check.
set -u
src=${BENCHTUI_SOURCE_DIR:?}
build=${BENCHTUI_BUILD_DIR:?}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
bad=0
fail() { echo "FAIL: $*"; bad=1; }
graph=$src/tools/include-graph

"$graph" "$src" "$build" >"$tmp/out" 2>&1 ||
	fail "the build itself: $(cat "$tmp/out")"

# A copy: engine/ and tui/, and the build's objects of them beside.
t=$tmp/tree
mkdir -p "$t/build" && cp -r "$src/engine" "$src/tui" "$t/" &&
	(cd "$build" && find engine tui -name '*.c.o' -exec cp --parents -t "$t/build" {} +) ||
	exit 1

# compile REL FILE: FILE compiled as the build compiles REL (its line in
# compile_commands.json, its dependency file left out), the object into
# the copy's build in REL's place.  The compiler's messages on stderr.
compile() {
	python3 - "$build" "$1" "$2" "$t/build" <<'PY'
import json, os, shlex, subprocess, sys
build, rel, file, dest = sys.argv[1:]
for e in json.load(open(os.path.join(build, "compile_commands.json"))):
    path = os.path.normpath(os.path.join(e["directory"], e["file"]))
    if not path.endswith("/" + rel) or not e["output"].startswith(
            os.path.dirname(rel) + "/"):
        continue
    args, cmd, skip = shlex.split(e["command"]), [], 0
    for i, a in enumerate(args):
        if skip:
            skip -= 1
        elif a == "-MD":
            pass
        elif a in ("-MQ", "-MF"):
            skip = 1
        elif i > 0 and args[i - 1] == "-o":
            cmd.append(os.path.join(dest, e["output"]))
        elif a == e["file"]:
            cmd.append(file)
        else:
            cmd.append(a)
    sys.exit(subprocess.run(cmd, cwd=e["directory"]).returncode)
sys.exit("no compile line for " + rel)
PY
}

# plant NAME REL TEXT: the copy with TEXT appended to REL and compiled
# (the last plant taken back first); include-graph's output in NAME.out.
last=
plant() {
	if [ -n "$last" ]; then
		cp "$src/$last" "$t/$last" && compile "$last" "$t/$last" || exit 1
	fi
	last=$2
	printf '%s\n' "$3" >>"$t/$2"
	compile "$2" "$t/$2" 2>"$tmp/$1.cc" ||
		fail "$1: the plant did not build: $(cat "$tmp/$1.cc")"
	"$graph" "$t" "$t/build" >"$tmp/$1.out" 2>&1
	echo $? >"$tmp/$1.rc"
}
expect() {  # expect NAME PATTERN: include-graph failed on plant NAME, saying PATTERN
	if [ "$(cat "$tmp/$1.rc")" = 0 ]; then
		fail "$1: passed"
	elif ! grep -q -- "$2" "$tmp/$1.out"; then
		fail "$1: no '$2' in: $(cat "$tmp/$1.out")"
	fi
}

"$graph" "$t" "$t/build" >"$tmp/copy.out" 2>&1 ||
	fail "the copy itself: $(cat "$tmp/copy.out")"

plant up engine/base/clock.c 'int round_dir_has_entries(int dfd);
int clock_planted(int fd);
int clock_planted(int fd) { return round_dir_has_entries(fd); }'
expect up 'engine/base/clock.c: calls round_dir_has_entries, defined in engine/round/round.c, a layer above engine/base'
plant tui engine/round/round.c 'struct theme;
void theme_init(struct theme *t, const char *name);
void round_planted(struct theme *t);
void round_planted(struct theme *t) { theme_init(t, "x"); }'
expect tui 'engine/round/round.c: calls theme_init, defined in tui/theme.c, a layer above engine/round'
plant order engine/round/round.c 'int round_planted(struct round *r);
int round_planted(struct round *r) { return round_run(r, 0, 0); }'
expect order 'engine/round/round.c: calls round_run, defined in engine/round/round_run.c, listed above it in round_int.h'
plant keepout engine/record/logw.c 'void legcmd_build(void);
void logw_planted(void);
void logw_planted(void) { legcmd_build(); }'
expect keepout 'engine/record/logw.c: calls legcmd_build, defined in engine/spec/legcmd.c, and engine/record keeps out of the command builder'
# The agent's and the console model's files run one way too.
plant agent engine/remote/agent_server.c 'void agent_planted(struct agent *a);
void agent_planted(struct agent *a) { (void)agent_leg(a, NULL); }'
expect agent 'engine/remote/agent_server.c: calls agent_leg, defined in engine/remote/agent_leg.c, listed above it in agent_int.h'
plant model tui/model_gate.c 'void model_planted(struct model *m);
void model_planted(struct model *m) { model_feed(m, NULL); }'
expect model 'tui/model_gate.c: calls model_feed, defined in tui/model.c, listed above it in model_int.h'
# The front end calling the engine is the way down: the copy as built
# passed above, its tui/ objects calling the engine throughout.

echo '#include "round_int.h"' >"$t/engine/round/round_planted.c"
"$graph" "$t" "$t/build" >"$tmp/unlisted.out" 2>&1
echo $? >"$tmp/unlisted.rc"
expect unlisted 'engine/round/round_planted.c: not in round_int.h'
rm "$t/engine/round/round_planted.c"

# An include through the source root does not build.
cp "$src/engine/base/clock.c" "$t/engine/base/clock.c" &&
	printf '#include "engine/round/round.h"\n' >>"$t/engine/base/clock.c"
if compile engine/base/clock.c "$t/engine/base/clock.c" 2>"$tmp/root.cc"; then
	fail "root: engine/base/clock.c including engine/round/round.h built"
elif ! grep -q 'engine/base/clock.c:.*engine/round/round.h' "$tmp/root.cc"; then
	fail "root: the compiler did not name the file: $(cat "$tmp/root.cc")"
fi

# And include-graph finds a compile line with the source root on it.
printf '[{"directory": "%s", "file": "../engine/base/clock.c", "output": "clock.o",
  "command": "cc -I.. -o clock.o -c ../engine/base/clock.c"}]\n' "$t/build" \
	>"$t/build/compile_commands.json"
"$graph" "$t" "$t/build" >"$tmp/rootline.out" 2>&1
echo $? >"$tmp/rootline.rc"
expect rootline 'engine/base/clock.c: compiled with the source root on its include path'

[ $bad = 0 ] && echo "link walls: all passed"
exit $bad
