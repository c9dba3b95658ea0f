#!/bin/bash
# test: est=3 needs=gzip
# The round fields of what a leg reads and what counts as its success:
# ok_rc (a grep that finds nothing is ok, a grep with no file is not),
# stdin (a filter's input, opened afresh per leg, its output counted in
# bytes and compared), a cell's setup and cleanup (once around the cell's
# legs; a failing setup stops the round resumably and names the cell,
# resume runs it again), and files (copied into files/, hashed into
# environment.json, covered by verify; one over 16 MiB hashed, not
# copied, and check says so).
. "$(dirname "$0")/e2e_lib.sh"

# 1. ok_rc: [0, 1] counts a grep that finds nothing as ok.
printf 'alpha\nbeta\n' >"$tmp/words.txt"
cat >"$tmp/grep.json" <<EOF
{"name": "grep", "reps": 2, "command": ["grep", "-q", "\${PAT}", "\${FILE}"],
 "baseline": "found", "quiet": false, "ok_rc": [0, 1], "fail_fast": 0,
 "arms": [{"name": "found", "vars": {"PAT": "beta"}},
          {"name": "missing", "vars": {"PAT": "gamma"}}],
 "cells": [{"name": "here", "vars": {"FILE": "$tmp/words.txt"}},
           {"name": "gone", "vars": {"FILE": "$tmp/no-such-file"}}]}
EOF
"$BENCHTUI" run --headless --out "$tmp/grep" "$tmp/grep.json" >"$tmp/grep.out" 2>&1
rc=$?
[ "$rc" -eq 5 ] && ok "exit 5: grep's rc 2 (no file) still fails" ||
    fail "ok_rc round: exit $rc: $(tail -3 "$tmp/grep.out")"
st=$(jq -r 'select(.t == "leg") | "\(.cell) \(.arm) \(.rc) \(.status)"' \
    "$tmp/grep/log.jsonl" | sort -u | tr '\n' ',')
[ "$st" = "gone found 2 failed,gone missing 2 failed,here found 0 ok,here missing 1 ok," ] &&
    ok "ok_rc: rc 1 is ok, rc 2 is failed" || fail "ok_rc statuses: $st"
"$BENCHTUI" check "$tmp/grep.json" | grep -qx 'ok_rc 0 1' && ok "check prints ok_rc" ||
    fail "check: no ok_rc line"

# 2. stdin: gzip -c reads the round's input; its output is the bytes.
head -c 300000 /dev/urandom | od -An -tx1 >"$tmp/input.txt"
cat >"$tmp/gz.json" <<EOF
{"name": "gz", "reps": 6, "command": ["gzip", "-c", "\${LEVEL}"],
 "stdin": "\${INPUT}", "baseline": "l1", "quiet": false,
 "vars": {"INPUT": "$tmp/input.txt"},
 "arms": [{"name": "l1", "vars": {"LEVEL": "-1"}},
          {"name": "l9", "vars": {"LEVEL": "-9"}}],
 "cells": [{"name": "text"}]}
EOF
"$BENCHTUI" run --headless --out "$tmp/gz" "$tmp/gz.json" >"$tmp/gz.out" 2>&1 ||
    fail "stdin round: exit $?: $(tail -3 "$tmp/gz.out")"
want1=$(gzip -c -1 <"$tmp/input.txt" | wc -c)
want9=$(gzip -c -9 <"$tmp/input.txt" | wc -c)
got=$(jq -r 'select(.t == "leg") | "\(.arm) \(.bytes)"' "$tmp/gz/log.jsonl" |
    sort -u | tr '\n' ',')
[ "$got" = "l1 $want1,l9 $want9," ] && ok "stdin fed every leg whole; bytes = gzip's output" ||
    fail "bytes: $got (want l1 $want1, l9 $want9)"
jq -e '.cells.text.arms.l9.metrics.bytes | .n == 6 and .abs > 0 and
    .vs_abs > .abs and .verdict == "below"' "$tmp/gz/summary.json" >/dev/null &&
    ok "bytes compared: l9 smaller than l1" ||
    fail "no bytes comparison: $(jq -c .cells.text.arms.l9.metrics.bytes "$tmp/gz/summary.json")"
grep -Eq '^    bytes +[0-9.]+KiB vs [0-9.]+KiB +l9 is [0-9.]+% smaller than l1 in bytes' \
    "$tmp/gz.out" && ok "the summary leads with bytes too" ||
    fail "summary: $(grep bytes "$tmp/gz.out" | tail -2)"

# 3. setup and cleanup: once around the cell's legs, outside them; a
#    failing setup stops the round (exit 3) naming the cell, and resume
#    runs it again.
cat >"$tmp/hooks.json" <<EOF
{"name": "hooks", "reps": 2, "command": ["test", "-e", "\${M}"],
 "baseline": "a", "quiet": false, "fail_fast": 0,
 "arms": [{"name": "a"}, {"name": "b"}],
 "cells": [{"name": "one", "vars": {"M": "$tmp/marker"},
            "setup": ["touch", "\${M}"], "cleanup": ["rm", "\${M}"]},
           {"name": "two", "vars": {"M": "$tmp/gate"},
            "setup": ["test", "-e", "\${M}"], "cleanup": ["false"]}]}
EOF
"$BENCHTUI" run --headless --out "$tmp/hooks" "$tmp/hooks.json" >"$tmp/hooks.out" 2>&1
rc=$?
[ "$rc" -eq 3 ] && grep -q 'cell two: setup exited 1' "$tmp/hooks.out" &&
    ok "a failing setup stops the round (exit 3) naming the cell" ||
    fail "setup failure: exit $rc: $(tail -3 "$tmp/hooks.out")"
order=$(jq -r 'select(.t == "hook" or .t == "leg") |
    if .t == "hook" then "\(.hook):\(.cell):\(.rc)" else "leg:\(.cell):\(.status)" end' \
    "$tmp/hooks/log.jsonl" | tr '\n' ' ')
[ "$order" = "setup:one:0 leg:one:ok leg:one:ok leg:one:ok leg:one:ok cleanup:one:0 setup:two:1 " ] &&
    ok "setup before the cell's legs, cleanup after; the legs saw its work" ||
    fail "hook order: $order"
[ ! -e "$tmp/marker" ] && ok "cleanup ran" || fail "marker left behind"
touch "$tmp/gate"
"$BENCHTUI" resume --headless "$tmp/hooks" >"$tmp/resume.out" 2>&1 ||
    fail "resume: exit $?: $(tail -3 "$tmp/resume.out")"
[ "$(jq -r 'select(.t == "hook" and .cell == "two") | "\(.hook):\(.rc)"' \
    "$tmp/hooks/log.jsonl" | tr '\n' ' ')" = "setup:1 setup:0 cleanup:1 " ] &&
    ok "resume runs the setup again" || fail "resume hooks"
grep -q 'warning: cell two: cleanup exited 1' "$tmp/resume.out" &&
    ok "a failing cleanup is a warning" || fail "no cleanup warning: $(cat "$tmp/resume.out")"

# 4. files: an nginx.conf copied into files/, hashed into
#    environment.json, covered by verify; one over 16 MiB only hashed.
printf 'worker_processes 1;\nevents { worker_connections 64; }\n' >"$tmp/nginx.conf"
truncate -s 17M "$tmp/big.bin"
cat >"$tmp/files.json" <<EOF
{"name": "files", "reps": 1, "command": ["true"], "baseline": "a",
 "quiet": false, "arms": [{"name": "a"}], "cells": [{"name": "c"}],
 "vars": {"CONF": "$tmp/nginx.conf"},
 "files": ["\${CONF}", {"path": "$tmp/big.bin", "as": "data.bin"}]}
EOF
"$BENCHTUI" check "$tmp/files.json" >"$tmp/check.out" 2>&1
grep -q '^files nginx.conf .* hashed and copied into files/' "$tmp/check.out" &&
    grep -q '^files data.bin .*17.0MiB: hashed into environment.json, not copied (over 16 MiB)' \
    "$tmp/check.out" && ok "check says which files are copied" ||
    fail "check: $(grep '^files' "$tmp/check.out")"
"$BENCHTUI" run --headless --out "$tmp/files" "$tmp/files.json" >/dev/null 2>&1 ||
    fail "files round: exit $?"
cmp -s "$tmp/nginx.conf" "$tmp/files/files/nginx.conf" && ok "nginx.conf copied into files/" ||
    fail "no copy in files/"
[ ! -e "$tmp/files/files/data.bin" ] && ok "the big file is not copied" ||
    fail "the big file was copied"
sha=$(sha256sum "$tmp/nginx.conf" | cut -d' ' -f1)
jq -e --arg s "$sha" '.files["nginx.conf"].sha256 == $s and
    .files["nginx.conf"].copied and (.files["data.bin"].copied | not) and
    .files["data.bin"].bytes == 17825792' "$tmp/files/environment.json" >/dev/null &&
    ok "environment.json hashes both" || fail "environment.json: $(jq -c .files "$tmp/files/environment.json")"
grep -q ' files/nginx.conf$' "$tmp/files/SHA256SUMS" && "$BENCHTUI" verify "$tmp/files" >/dev/null 2>&1 &&
    ok "the seal covers the copy" || fail "SHA256SUMS lacks files/nginx.conf or verify failed"
chmod u+w "$tmp/files/files/nginx.conf"
echo 'worker_processes 8;' >>"$tmp/files/files/nginx.conf"
"$BENCHTUI" verify "$tmp/files" >"$tmp/verify.out" 2>&1
rc=$?
[ "$rc" -eq 4 ] && grep -q 'files/nginx.conf' "$tmp/verify.out" &&
    ok "verify finds an edited copy (exit 4)" || fail "verify after an edit: exit $rc: $(cat "$tmp/verify.out")"
finish
