#!/bin/bash
# test: asan-covered
# Legs and cell servers inherit no descriptor of benchtui's own (the log,
# the counters, the terminal): in each, only 0, 1 and 2 are open.  The
# test itself hands benchtui an extra descriptor (9) to make sure that one
# is not passed on either.
set -u
. "$(dirname "$0")/hygiene_lib.sh"

port=$(free_port)
# "$$" is a template escape: the shell's $$ is written $$$$.
cat >"$T/round.json" <<EOF
{"name": "fds", "reps": 1, "baseline": "a",
 "command": ["sh", "-c", "ls /proc/\$\$\$\$/fd"],
 "arms": [{"name": "a"}],
 $(net_cell 'ls /proc/$$$$/fd; exec'),
 "quiet": false}
EOF
"$BENCHTUI" run "$T/round.json" --out "$T/out" --headless >"$T/stdout" 2>&1 9<"$T/round.json"
rc=$?
[ "$rc" = 0 ] || fail "benchtui exited with $rc"
for f in "$T/out/legs/net-a-r1.out" "$T/out/servers/net.log"; do
	fds=$(grep -E '^[0-9]+$' "$f" | sort -n | tr '\n' ' ')
	[ "$fds" = "0 1 2 " ] || fail "$(basename "$f"): open descriptors $fds, expected 0 1 2"
done
echo "ok"
