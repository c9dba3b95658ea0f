#!/bin/bash
# test: est=4 needs=sha256sum
# compare's environment header sets the servers' hosts side by side: two
# rounds of the demo's server cell with its server on the ssh test host (an
# sshd on 127.0.0.1 this test starts), the far server's binary a copy of
# the demo that is changed (a byte appended, so it still runs) between the
# rounds.  The header's differences are exactly that binary's sha256 as
# hashed there, under the host's name, in json and in text; the host's
# facts are the same.
. "$(dirname "$0")/remote_lib.sh"
remote_up

far=$T/far/demo-server
mkdir -p "$T/far"
cp "$BENCHTUI_DEMO" "$far"
remote_round "$T/r.json" 300 --arg far "$far" '.reps = 2 | .cells[0].server.cmd[0] = $far'
"$BENCHTUI" run "$T/r.json" --headless --out "$T/a" >"$T/stdout" 2>&1 || fail "run a: exit $?"
sha_a=$(sha256sum "$far" | cut -d' ' -f1)
printf '\n' >>"$far"
sha_b=$(sha256sum "$far" | cut -d' ' -f1)
[ "$sha_a" != "$sha_b" ] || fail "the far binary did not change"
"$BENCHTUI" run "$T/r.json" --headless --out "$T/b" >"$T/stdout" 2>&1 || fail "run b: exit $?"
ok "two rounds, the far server's binary changed between them"

"$BENCHTUI" compare "$T/a" "$T/b" --format json >"$T/cmp.json" 2>"$T/cmp.err" ||
	fail "compare: exit $? $(cat "$T/cmp.err")"
key="host:$RHOST:bin:$far"
jq -e --arg k "$key" --arg a "$sha_a" --arg b "$sha_b" '.env.differ |
	keys == [$k] and .[$k] == [$a, $b]' "$T/cmp.json" >/dev/null ||
	fail "the header's differences are not exactly $key: $(jq -c .env.differ "$T/cmp.json")"
jq -e --arg h "$RHOST" '.env.same | .["host:" + $h + ":kernel"] != null and
	.["host:" + $h + ":hostname"] != null and .["host:" + $h + ":cpus"] > 0' \
	"$T/cmp.json" >/dev/null || fail "the host's facts are not in the header: $(jq -c .env.same "$T/cmp.json")"
ok "the header names exactly the far binary's sha256 under the host"

"$BENCHTUI" compare "$T/a" "$T/b" >"$T/cmp.txt" 2>&1 || fail "compare text: exit $?"
grep -A2 "^    $key\$" "$T/cmp.txt" | grep -q "A $sha_a" &&
	grep -A2 "^    $key\$" "$T/cmp.txt" | grep -q "B $sha_b" ||
	fail "the text header does not name it: $(sed -n '/differ/,/^$/p' "$T/cmp.txt")"
ok "the text header names it with both sha256"
finish
