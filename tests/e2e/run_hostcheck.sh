#!/bin/bash
# test: needs=jq
# run and resume check the host before anything runs: a program that is not
# there, or a cpu that is not online, is refused with exit 2 and a message
# naming the field, before run creates the folder and before resume
# appends to the log.
. "$(dirname "$0")/e2e_lib.sh"

cat > "$tmp/base.json" <<'EOF'
{
  "name": "hostcheck",
  "reps": 2,
  "command": ["/bin/true"],
  "baseline": "base",
  "arms": [{"name": "base"}],
  "cells": [{"name": "c"}],
  "counters": ["task-clock"],
  "quiet": false
}
EOF

# 1. A bin that is not there.
jq '.bin = "tools/absent" | .command = ["${BIN}"]' "$tmp/base.json" > "$tmp/nobin.json"
"$BENCHTUI" run --headless --out "$tmp/o1" "$tmp/nobin.json" > "$tmp/e1" 2>&1
rc=$?
[ "$rc" -eq 2 ] && ok "missing bin: exit 2" || fail "missing bin: exit $rc"
grep -q 'bin: no program "tools/absent"' "$tmp/e1" && ok "message names bin" ||
    fail "message: $(cat "$tmp/e1")"
[ ! -e "$tmp/o1" ] && ok "no folder created" || fail "folder $tmp/o1 created"

# 2. A client cpu this machine does not have online.
n=$(getconf _NPROCESSORS_CONF)
jq --arg c "$((n + 7))" '.cpus = {"client": $c}' "$tmp/base.json" > "$tmp/cpu.json"
"$BENCHTUI" run --headless --out "$tmp/o2" "$tmp/cpu.json" > "$tmp/e2" 2>&1
rc=$?
[ "$rc" -eq 2 ] && ok "offline cpu: exit 2" || fail "offline cpu: exit $rc"
grep -q 'cpus.client' "$tmp/e2" && ok "message names cpus.client" ||
    fail "message: $(cat "$tmp/e2")"
[ ! -e "$tmp/o2" ] && ok "no folder created" || fail "folder $tmp/o2 created"

# 3. resume refuses up front when the program has gone since the round
# started: during the first leg the operator stops the round (SIGTERM to
# benchtui from outside its tree, resumable), then the program is removed.
# (A SIGTERM from the leg itself is the leg's doing and would not stop it.)
mkdir "$tmp/tools"
cat > "$tmp/tools/prog" <<'EOF'
#!/bin/sh
[ -e "$1/stopped" ] || { touch "$1/stopped"; sleep 5; }
exit 0
EOF
chmod +x "$tmp/tools/prog"
jq --arg t "$tmp" '.bin = "tools/prog" | .command = ["${BIN}", $t]' \
    "$tmp/base.json" > "$tmp/res.json"
"$BENCHTUI" run --headless --out "$tmp/o3" "$tmp/res.json" > "$tmp/e3" 2>&1 &
bt=$!
wait_until 10 test -e "$tmp/stopped" || fail "the leg never ran"
kill -TERM "$bt"
wait "$bt"
rc=$?
[ "$rc" -eq 3 ] && ok "round stopped resumably" || fail "stop: exit $rc: $(cat "$tmp/e3")"
rm "$tmp/tools/prog"
before=$(wc -l < "$tmp/o3/log.jsonl")
"$BENCHTUI" resume --headless "$tmp/o3" > "$tmp/e4" 2>&1
rc=$?
[ "$rc" -eq 2 ] && ok "resume with the program gone: exit 2" || fail "resume: exit $rc"
grep -q 'no program "tools/prog"' "$tmp/e4" && ok "resume names the program" ||
    fail "resume message: $(cat "$tmp/e4")"
[ "$(wc -l < "$tmp/o3/log.jsonl")" = "$before" ] && ok "log untouched" ||
    fail "resume appended to the log: $(tail -n 3 "$tmp/o3/log.jsonl")"

finish
