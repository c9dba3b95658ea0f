#!/bin/bash
# test: asan-covered needs=strace,jq
# report and --replay read a recorded round; they never build its commands
# or look its programs up on PATH (a folder from another machine names
# programs this one lacks).  The round runs `true` by its bare name, which
# run finds on PATH; strace then watches report and a headless replay of
# the sealed folder for any look-up of a PATH entry's "true".  And a
# folder whose round.json names a template no build of it expands (hand
# made, unsealed) still reports.
. "$(dirname "$0")/e2e_lib.sh"

cat >"$tmp/r.json" <<'JSON'
{"name": "nolookup", "reps": 2, "command": ["true"], "baseline": "a",
 "arms": [{"name": "a"}, {"name": "b"}], "cells": [{"name": "c"}],
 "quiet": false}
JSON
"$BENCHTUI" run "$tmp/r.json" --out "$tmp/d" --headless >"$tmp/run.out" 2>&1 ||
	{ cat "$tmp/run.out"; fail "the round did not run"; finish; }

lookups() {  # lookups TRACE: the PATH look-ups of "true" the trace holds
	grep -E '(access|stat|execve)[a-z0-9]*\(.*"[^"]*/true"' "$1"
}
strace -f -qq -e trace=access,faccessat,faccessat2,stat,newfstatat,statx,execve \
	-o "$tmp/report.trace" "$BENCHTUI" report "$tmp/d" >"$tmp/report.out" 2>&1 ||
	fail "report failed: $(cat "$tmp/report.out")"
if lookups "$tmp/report.trace" | grep -q .; then
	fail "report looked a program up: $(lookups "$tmp/report.trace" | head -3)"
else
	ok "report looks up no program"
fi
strace -f -qq -e trace=access,faccessat,faccessat2,stat,newfstatat,statx,execve \
	-o "$tmp/replay.trace" "$BENCHTUI" --replay "$tmp/d" --instant --headless \
	>"$tmp/replay.out" 2>&1 || fail "replay failed: $(cat "$tmp/replay.out")"
if lookups "$tmp/replay.trace" | grep -q .; then
	fail "replay looked a program up: $(lookups "$tmp/replay.trace" | head -3)"
else
	ok "replay looks up no program"
fi

# A copy whose round.json holds a template this benchtui cannot expand
# (its log's round event recording that file's sha256).
mkdir "$tmp/e"
cp "$tmp/d/environment.json" "$tmp/e/"
jq '.command = ["true", "${NO_SUCH_VAR}"]' "$tmp/d/round.json" >"$tmp/e/round.json"
sha=$(sha256sum "$tmp/e/round.json" | cut -d' ' -f1)
jq -c --arg sha "$sha" 'if .t == "round" then .spec_sha256 = $sha else . end' \
	"$tmp/d/log.jsonl" >"$tmp/e/log.jsonl"
if "$BENCHTUI" report "$tmp/e" --format json >"$tmp/e.json" 2>"$tmp/e.err" &&
	jq -e '.cells.c.arms.b.metrics.wall.n == 2' "$tmp/e.json" >/dev/null; then
	ok "a round file whose templates do not expand still reports"
else
	fail "report of the unexpandable round: $(cat "$tmp/e.err")"
fi
if "$BENCHTUI" check "$tmp/e/round.json" >"$tmp/check.out" 2>&1; then
	fail "check passed a template that does not expand"
elif grep -q 'NO_SUCH_VAR' "$tmp/check.out"; then
	ok "check still refuses it, naming the template"
else
	fail "check's message: $(cat "$tmp/check.out")"
fi
finish
