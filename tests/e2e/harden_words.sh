#!/bin/bash
# test:
# Clear words: a file without the execute bit says so; a deleted workdir is
# named (not blamed on /bin/sh) and stops the round resumably; a server that
# would not start stops it resumably (exit 3); a resume that succeeds does
# not repeat the earlier run's stop message.
. "$(dirname "$0")/life_lib.sh"

printf '#!/bin/sh\necho hi\n' >"$T/prog.sh"
chmod 644 "$T/prog.sh"
cat >"$T/ne.json" <<EOF
{"name": "ne", "reps": 1, "quiet": false, "counters": ["task-clock"],
 "command": ["$T/prog.sh"], "baseline": "a", "arms": [{"name": "a"}], "cells": [{"name": "c"}]}
EOF
"$BENCHTUI" check "$T/ne.json" >"$T/o1" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q 'no execute permission' "$T/o1" ||
	{ cat "$T/o1"; fail "a file without the execute bit: exit $rc, not named as such"; }

mkdir "$T/wd"
cat >"$T/wd.json" <<EOF
{"name": "wd", "reps": 2, "quiet": false, "counters": ["task-clock"], "workdir": "$T/wd",
 "command": ["/bin/sh", "-c", "[ \${REP} = 1 ] && rmdir $T/wd; true"],
 "baseline": "a", "arms": [{"name": "a"}], "cells": [{"name": "c"}]}
EOF
"$BENCHTUI" run "$T/wd.json" --out "$T/d2" --headless >"$T/o2" 2>&1
rc=$?
[ $rc -eq 3 ] || { cat "$T/o2"; fail "a deleted workdir: exit $rc, expected 3"; }
grep -q "the workdir $T/wd is gone" "$T/o2" || { cat "$T/o2"; fail "the deleted workdir is not named"; }
! grep -q 'cannot run /bin/sh' "$T/o2" || { cat "$T/o2"; fail "the deleted workdir is blamed on /bin/sh"; }
mkdir "$T/wd"
"$BENCHTUI" resume "$T/d2" --headless >"$T/o2r" 2>&1 || { cat "$T/o2r"; fail "resume with the workdir back failed"; }
! grep -q 'stopped' "$T/o2r" || { cat "$T/o2r"; fail "a resume that succeeded repeats the old stop message"; }
check_exactly_once "$T/d2/log.jsonl" 2
check_sealed "$T/d2"

cat >"$T/srv.json" <<EOF
{"name": "srv", "reps": 1, "quiet": false, "counters": ["task-clock"],
 "command": ["/bin/true"], "baseline": "a", "arms": [{"name": "a"}],
 "cells": [{"name": "c", "server": {"cmd": ["/bin/sh", "-c", "exit 3"],
   "ready": {"tcp_port": 1, "timeout_s": 5}}}]}
EOF
"$BENCHTUI" run "$T/srv.json" --out "$T/d3" --headless >"$T/o3" 2>&1
rc=$?
[ $rc -eq 3 ] || { cat "$T/o3"; fail "a server that would not start: exit $rc, expected 3"; }
grep -q 'resume continues it' "$T/o3" || { cat "$T/o3"; fail "the stop does not say resume continues it"; }
grep -q 'server died' "$T/o3" || { cat "$T/o3"; fail "a server that exited is not said to have died"; }

# A port someone else holds, and a server that never listens, are not
# "server died".
port=$(free_port 2) || fail "no two free ports"
"$BENCHTUI_DEMO" serve --port "$port" >/dev/null 2>&1 &
holder=$!
life_cleanup_hooks+=("kill -9 $holder 2>/dev/null; wait $holder 2>/dev/null")
wait_until 5 port_busy $port || fail "the port holder never listened"
for tag in taken slow; do
	if [ $tag = taken ]; then
		cmd="\"$BENCHTUI_DEMO\", \"serve\", \"--port\", \"$port\"" p=$port
		want='its port is taken'
	else
		cmd='"/bin/sleep", "30"' p=$((port + 1))
		want='not ready in time'
	fi
	cat >"$T/$tag.json" <<EOF
{"name": "$tag", "reps": 1, "quiet": false, "counters": ["task-clock"],
 "command": ["/bin/true"], "baseline": "a", "arms": [{"name": "a"}],
 "cells": [{"name": "c", "server": {"cmd": [$cmd], "ready": {"tcp_port": $p, "timeout_s": 1}}}]}
EOF
	"$BENCHTUI" run "$T/$tag.json" --out "$T/d$tag" --headless >"$T/o$tag" 2>&1
	rc=$?
	[ $rc -eq 3 ] || { cat "$T/o$tag"; fail "$tag server: exit $rc, expected 3"; }
	! grep -q 'server died' "$T/o$tag" || { cat "$T/o$tag"; fail "$tag server: said to have died"; }
	grep -q "$want" "$T/o$tag" || { cat "$T/o$tag"; fail "$tag server: no '$want'"; }
done
exit 0
