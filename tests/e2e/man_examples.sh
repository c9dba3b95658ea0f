#!/bin/bash
# test: needs=python3,jq est=8
# Every example in the man pages runs as written, as check_examples does
# for the example round files.  Each .EX block is marked by the comment
# line before it (a block without one fails):
#   .\" example: round NAME   a whole round file: saved as NAME, and check
#                             takes it with nothing on stderr
#   .\" example: fragment     keys of a round: over a base round (arms on,
#                             off and aa of on, a cell small with a
#                             server), check takes it with no warning
#   .\" example: cell         a cell: the base round's only cell, the same
#   .\" example: shell        "$ CMD" lines run in the folder the rounds
#                             are saved in (benchtui is this build's), each
#                             must exit 0; lines after one are its exact
#                             standard output
#   .\" example: load         shell lines against the nginx example round's
#                             server (assets/rounds/nginx/serve.sh, its
#                             www/ linked in the folder), which the test
#                             starts on a free port: the URL's 8080 is it
#   .\" example: output       what the program prints in a state a test
#                             cannot make (a busy box): shown, not run
# A command goes on over lines that end in a backslash or a pipe.
# Also: every option a command's --help lists is in its page
# (benchtui-COMMAND(1); resume's is benchtui-run(1)), and every option
# that page's SYNOPSIS gives the command is in its --help.
. "$(dirname "$0")/e2e_lib.sh"

mkdir -p "$tmp/bin" "$tmp/ex"
ln -s "$(realpath "$BENCHTUI")" "$tmp/bin/benchtui"
# The load examples' server, in its own session (master and worker end
# together, by group); nginx's worker runs as another user: it must see
# into the folder.
[ -x /usr/sbin/nginx ] || { echo "SKIP: /usr/sbin/nginx is not installed (apt-get install nginx-light)"; exit 77; }
chmod 755 "$tmp"
EXAMPLE_PORT=$(free_port)
export EXAMPLE_PORT
TMPDIR=$tmp SENDFILE=on setsid sh "$BENCHTUI_SOURCE_DIR/assets/rounds/nginx/serve.sh" \
	"$EXAMPLE_PORT" >"$tmp/nginx.log" 2>&1 &
nginx_pgid=$!
trap 'kill -- -$nginx_pgid 2>/dev/null; e2e_cleanup' EXIT
wait_until 20 port_busy "$EXAMPLE_PORT" || { echo "FAIL: nginx did not listen: $(cat "$tmp/nginx.log")"; exit 1; }
ln -s "$tmp/benchtui-nginx-$EXAMPLE_PORT/www" "$tmp/ex/www"
python3 - "$BENCHTUI_SOURCE_DIR" "$tmp" <<'PY' || fail "man examples (above)"
import json, os, re, subprocess, sys

src, tmp = sys.argv[1], sys.argv[2]
work = os.path.join(tmp, "ex")
env = dict(os.environ, PATH=os.path.join(tmp, "bin") + ":" + os.environ["PATH"])
bad = []
base = {"name": "example", "reps": 8, "bin": "/bin/true", "command": ["${BIN}"],
        "baseline": "on", "quiet": False,
        "arms": [{"name": "on"}, {"name": "off"}, {"name": "aa", "aa_of": "on"}],
        "cells": [{"name": "small", "server": {"cmd": ["${BIN}"],
                   "ready": {"tcp_port": 8080}}}]}

def unroff(line):
    for a, b in (("\\(dq", '"'), ("\\(aq", "'"), ("\\(lq", '"'), ("\\(rq", '"'),
                 ("\\(mu", "x"), ("\\-", "-"), ("\\&", "")):
        line = line.replace(a, b)
    line = re.sub(r"\\f[BIPR]", "", line)
    return line.replace("\\e", "\\")

def check(where, round_obj, name):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        json.dump(round_obj, f, indent=1)
    p = subprocess.run(["benchtui", "check", name], cwd=work, env=env,
                       capture_output=True, text=True)
    if p.returncode != 0 or p.stderr:
        bad.append("%s: check exit %d: %s" % (where, p.returncode, p.stderr.strip()))

def shell(where, lines, port=None):
    # A command goes on over lines that end in a backslash or a pipe.
    joined = []
    for l in lines:
        if joined and joined[-1].startswith("$ ") and joined[-1].endswith(("\\", "|")):
            joined[-1] += "\n" + l
        else:
            joined.append(l)
    lines = joined
    if port is not None:
        lines = [l.replace("127.0.0.1:8080/", "127.0.0.1:%s/" % port) for l in lines]
    i = 0
    while i < len(lines):
        if not lines[i].startswith("$ "):
            bad.append("%s: a line that is no command nor a command's output: %r" % (where, lines[i]))
            i += 1
            continue
        cmd, want = lines[i][2:], []
        i += 1
        while i < len(lines) and not lines[i].startswith("$ "):
            want.append(lines[i])
            i += 1
        p = subprocess.run(["bash", "-c", cmd], cwd=work, env=env,
                           capture_output=True, text=True)
        if p.returncode != 0:
            bad.append("%s: %s: exit %d: %s" % (where, cmd, p.returncode, p.stderr.strip()[-300:]))
        elif want and p.stdout.rstrip("\n").split("\n") != want:
            bad.append("%s: %s printed:\n%s\nnot:\n%s" % (where, cmd, p.stdout, "\n".join(want)))

# Every page of man/, the overview first (its round is saved for the
# others' examples).
pages = sorted(os.listdir(os.path.join(src, "man")), key=lambda p: (p != "benchtui.1", p))
n = 0
for man in ["man/" + p for p in pages if re.search(r"\.[1-8]$", p)]:
    lines = open(os.path.join(src, man)).read().split("\n")
    for i, l in enumerate(lines):
        if not l.startswith(".EX"):
            continue
        where = "%s:%d" % (man, i + 1)
        m = re.match(r'\.\\" example: (\w+) ?(\S*)$', lines[i - 1])
        end = lines.index(".EE", i)
        text = [unroff(x) for x in lines[i + 1:end]]
        n += 1
        if m is None:
            bad.append("%s: an example without a '.\\\" example:' line" % where)
            continue
        kind, arg = m.group(1), m.group(2)
        try:
            if kind == "round":
                check(where, json.loads("\n".join(text)), arg)
            elif kind == "fragment":
                r = dict(base)
                r.update(json.loads("{" + "\n".join(text) + "}"))
                check(where, r, "fragment-%d.json" % n)
            elif kind == "cell":
                r = dict(base)
                r["cells"] = [json.loads("\n".join(text))]
                check(where, r, "cell-%d.json" % n)
            elif kind == "shell":
                shell(where, text)
            elif kind == "load":
                shell(where, text, os.environ["EXAMPLE_PORT"])
            elif kind == "output":
                pass
            else:
                bad.append("%s: unknown example kind %r" % (where, kind))
        except ValueError as e:
            bad.append("%s: not JSON: %s" % (where, e))
for b in bad:
    print("FAIL: " + b)
print("%d examples" % n)
sys.exit(1 if bad or n < 10 else 0)
PY

# --help and the manual agree on every command's options.
for c in run resume replay report verify seal check load bisect agent; do
	page=benchtui-$c
	[ "$c" = resume ] && page=benchtui-run
	man1=$BENCHTUI_SOURCE_DIR/man/$page.1
	[ -f "$man1" ] || fail "no $page(1) for $c"
	"$BENCHTUI" "$c" --help | grep -oE '^  (-[a-zA-Z], )?--[a-z0-9-]+' | sed 's/^.*--/--/' | sort -u >"$tmp/help"
	# Found nothing, the loops below would check nothing.
	[ -s "$tmp/help" ] || fail "$c --help lists no option"
	while read -r opt; do
		# --help is every command's, in benchtui(1).
		[ "$opt" = --help ] && continue
		grep -qF -- "${opt//-/\\-}" "$man1" || fail "$c --help lists $opt; $page(1) does not"
	done <"$tmp/help"
	name=$c
	awk -v cmd=".B benchtui $name" '$0 == cmd { p = 1; next }
	    p && /^\.(br|SH)/ { exit } p { print } END { exit !p }' "$man1" >"$tmp/synopsis" ||
		fail "$page(1) SYNOPSIS has no '.B benchtui $name' line"
	grep -oE '\\-\\-[a-z]+(\\-[a-z]+)*' "$tmp/synopsis" |
	    sed 's/\\-/-/g' | sort -u >"$tmp/syn"
	while read -r opt; do
		grep -qx -- "$opt" "$tmp/help" || fail "$page(1) SYNOPSIS gives $c $opt; $c --help does not"
	done <"$tmp/syn"
done
finish
