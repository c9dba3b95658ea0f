#!/bin/bash
# test: timeout=300 est=2 needs=jq
# benchtui on a machine without openat2 (a seccomp filter answering EPERM),
# close_range (before Linux 5.9) and pidfds (before 5.3), as the shim
# libnofeat makes it (LD_PRELOAD, NOFEAT): each fallback keeps its
# guarantee.
#   - openat2: harden_links passes: no planted link is followed, in a
#     file's name or a folder of its path (the O_NOFOLLOW walk);
#   - close_range: hygiene_fds passes: legs and servers get 0, 1, 2 only;
#   - pidfd: a timeout ends a leg, Ctrl-C aborts one, and a leg printing
#     3 MB (more than a pipe holds) does not stall benchtui.
# The shim's log shows each call was refused, so the fallback ran.
. "$(dirname "$0")/e2e_lib.sh"
: "${BENCHTUI_NOFEAT:?set BENCHTUI_NOFEAT to libnofeat.so}"
here=$(dirname "$0")
# benchtui alone runs with the shim (not jq, not the test's shell): a
# wrapper the tests below take for benchtui.
export NOFEAT=openat2,close_range,pidfd NOFEAT_LOG=$tmp/refused
cat >"$tmp/benchtui" <<EOF
#!/bin/sh
# A sanitizer build wants its runtime first; the shim is a test's.
ASAN_OPTIONS=\${ASAN_OPTIONS:+\$ASAN_OPTIONS:}verify_asan_link_order=0 \\
LD_PRELOAD=$BENCHTUI_NOFEAT exec $BENCHTUI "\$@"
EOF
chmod +x "$tmp/benchtui"
export BENCHTUI=$tmp/benchtui

bash "$here/harden_links.sh" >"$tmp/links.out" 2>&1 && ok "harden_links passes without openat2" ||
	fail "harden_links without openat2: $(grep -i fail "$tmp/links.out" | head -3)"
bash "$here/hygiene_fds.sh" >"$tmp/fds.out" 2>&1 && ok "hygiene_fds passes without close_range" ||
	fail "hygiene_fds without close_range: $(grep -i fail "$tmp/fds.out" | head -3)"

# pidfd: a timeout.
cat >"$tmp/to.json" <<'EOF'
{"name": "to", "reps": 1, "baseline": "a", "quiet": false,
 "counters": ["task-clock"], "timeout_s": 0.5, "fail_fast": 0,
 "command": ["sleep", "20"], "arms": [{"name": "a"}], "cells": [{"name": "c"}]}
EOF
t0=$(date +%s)
timeout -k 5 15 "$BENCHTUI" run "$tmp/to.json" --out "$tmp/to" --headless >"$tmp/to.out" 2>&1
rc=$?
[ $rc -eq 5 ] && jq -s -e 'map(select(.t == "leg"))[0].status == "timed_out"' "$tmp/to/log.jsonl" >/dev/null &&
	ok "without pidfds a timeout ends the leg ($(( $(date +%s) - t0 )) s)" ||
	fail "timeout without pidfds: exit $rc"

# pidfd: an abort (SIGINT) of a running leg.
jq 'del(.timeout_s)' "$tmp/to.json" >"$tmp/ab.json"
set -m
timeout -k 5 15 "$BENCHTUI" run "$tmp/ab.json" --out "$tmp/ab" --headless >"$tmp/ab.out" 2>&1 &
pid=$!
wait_until 10 grep -q '"t":"leg_start"' "$tmp/ab/log.jsonl" || fail "the leg never started"
kill -INT $pid
wait $pid
rc=$?
set +m
[ $rc -eq 3 ] && jq -s -e 'map(select(.t == "leg"))[0].status == "aborted"' "$tmp/ab/log.jsonl" >/dev/null &&
	ok "without pidfds Ctrl-C aborts the running leg" ||
	fail "abort without pidfds: exit $rc"

# pidfd: 3 MB of output, drained while the leg runs.
jq '.command = ["head", "-c", "3000000", "/dev/zero"]' "$tmp/ab.json" >"$tmp/big.json"
timeout -k 5 30 "$BENCHTUI" run "$tmp/big.json" --out "$tmp/big" --headless >"$tmp/big.out" 2>&1
rc=$?
[ $rc -eq 0 ] && [ "$(jq 'select(.t == "leg") | .output_bytes' "$tmp/big/log.jsonl")" = 3000000 ] &&
	[ "$(stat -c %s "$tmp/big/legs/c-a-r1.out")" = 3000000 ] &&
	ok "without pidfds a leg printing 3 MB is drained" ||
	fail "3 MB without pidfds: exit $rc (124: benchtui stalled)"

for what in openat2 close_range pidfd_open; do
	grep -qx "$what" "$tmp/refused" 2>/dev/null || fail "the shim never refused $what: the fallback did not run"
done
finish
