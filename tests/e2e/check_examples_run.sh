#!/bin/bash
# test: est=24 long
# The example rounds in assets/rounds really run: each one, cut to one rep
# with the quiet gate off (so a busy test machine does not stall it), must
# finish with exit 0 and one "ok" leg line per planned leg; the zstd round's
# scratch output is counted, and the levels' outputs differ in size; the
# nginx round (where nginx is installed) has one nginx per leg, measured,
# and its syscalls profiles.  Profiles are cut to 200 samples.
. "$(dirname "$0")/e2e_lib.sh"
src=$BENCHTUI_SOURCE_DIR

# A server round's PORT (vars.PORT and ready.tcp_port) moves to a free one
# (free_port), so two test runs at once do not meet on it.

for r in "$src"/assets/rounds/*.json; do
	name=$(basename "$r" .json)
	# The nginx example needs Debian's nginx, which the project does not.
	if [ "$name" = nginx-sendfile ] && [ ! -x /usr/sbin/nginx ]; then
		echo "note: /usr/sbin/nginx absent, $name not run"
		continue
	fi
	# Its server is on another host: remote_nginx runs it against an ssh
	# test host of its own.
	if [ "$name" = nginx-remote ]; then
		echo "note: $name needs a second host (its server.host): remote_nginx runs it"
		continue
	fi
	# A scratch folder of its own: the example's fixed /tmp path is emptied
	# before each leg, so two test runs at once (make check's two builds,
	# several build dirs) would empty each other's and count 0 bytes.
	jq --arg wd "$src/assets/rounds" --arg sc "$tmp/scratch-$name" \
		--arg port "$(free_port)" \
		'.quiet = false | .reps = 1 | .workdir = $wd |
		if .scratch then .scratch = $sc else . end |
		if .vars.PORT then .vars.PORT = $port |
		    .cells[].server.ready.tcp_port = ($port | tonumber) else . end |
		if .profile.perf then .profile.perf.min_samples = 200 else . end' \
		"$r" >"$tmp/$name.json"
	legs=$(jq '(.arms | length) * (.cells | length)' "$tmp/$name.json")
	"$BENCHTUI" run "$tmp/$name.json" --headless --out "$tmp/$name.out" \
		>"$tmp/$name.stdout" 2>&1
	rc=$?
	[ $rc -eq 0 ] || { fail "$name: run exited $rc: $(tail -5 "$tmp/$name.stdout")"; continue; }
	log=$tmp/$name.out/log.jsonl
	got=$(jq -c 'select(.t == "leg" and .status == "ok")' "$log" | wc -l)
	[ "$got" -eq "$legs" ] || fail "$name: $got ok legs of $legs"
	if jq -e '.scratch' "$r" >/dev/null; then
		jq -s -e 'map(select(.t == "leg")) | all(.bytes > 0)' "$log" >/dev/null ||
			fail "$name: a leg's scratch bytes are not counted"
		sizes=$(jq -r 'select(.t == "leg" and .cell == "text-t1") | .bytes' "$log" | sort -u | wc -l)
		[ "$sizes" -ge 3 ] || fail "$name: levels all wrote $sizes distinct sizes"
	fi
	if [ "$name" = nginx-sendfile ]; then
		jq -s -e 'map(select(.t == "leg")) | all(.server.cpu > 0 and
			.metrics.rps > 0 and .metrics.requests == 5000)' "$log" >/dev/null ||
			fail "$name: a leg lacks server.cpu or metrics.rps"
		# one nginx per leg, and one per profiled arm (rep 0)
		[ "$(jq -r 'select(.t == "server" and .state == "ready" and .rep != 0) | .pid' "$log" |
			sort -u | wc -l)" -eq "$legs" ] || fail "$name: not one nginx per leg"
		jq -s -e 'map(select(.t == "profile")) | length == 2 and all(.status == "ok" and
			(.top | any(.syscall == "writev" and .per_request > 0.9)))' "$log" >/dev/null ||
			fail "$name: syscalls profiles: $(jq -c 'select(.t == "profile")' "$log")"
	fi
done
echo "check_examples_run: $fails failures"
[ $fails -eq 0 ]
