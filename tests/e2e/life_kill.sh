#!/bin/bash
# test life-kill: est=6
# Kill campaign: kill -9 benchtui at >= 10 random moments of a 42-leg round,
# resuming after each (resume itself gets killed too), until it completes.
# Then: exactly one counted leg line per planned leg, no torn line, no leg
# process left alive, and the seal holds (verify and sha256sum -c).
. "$(dirname "$0")/life_lib.sh"

# Each leg spins ~100 ms, so the round takes a few seconds and random kills
# between 0.05 and 0.5 s land before, between and inside legs.
export DEMO_SPIN_MS=100
make_round "$T/kill.json" kill 7 0   # 3 arms x 2 cells x 7 reps = 42 legs
planned=42
dir=$T/round

seed_kills
torn='{"t":"leg","cell":"c1","arm":"a","rep":1,"seq":1,"sta'
kills=0 runs=0 rc=1 complete=0
while [ $complete -eq 0 ]; do
	runs=$((runs + 1))
	[ $runs -le 60 ] || fail "round not complete after $runs runs"
	if [ ! -f "$dir/log.jsonl" ] || ! grep -q '"t":"round"' "$dir/log.jsonl"; then
		# Killed before the round was even logged: no round to resume
		# yet, so start over (run refuses a non-empty folder).
		rm -rf "$dir"
		"$BENCHTUI" run "$T/kill.json" --out "$dir" --headless \
		    >>"$T/out.txt" 2>&1 &
		pid=$!
		# Let the first kill land after the round is logged.
		wait_for_line "$dir/log.jsonl" '.t == "round"' 20 ||
			{ kill -9 $pid; wait $pid; cat "$T/out.txt"; fail "run never logged its round event"; }
	else
		"$BENCHTUI" resume "$dir" --headless >>"$T/out.txt" 2>&1 &
		pid=$!
	fi
	if [ $kills -lt 12 ]; then
		sleep "0.$(printf '%03d' $((50 + RANDOM % 451)))"
		if kill -9 $pid 2>/dev/null; then
			wait $pid 2>/dev/null
			rc=$?
			if [ $rc -eq 137 ]; then
				kills=$((kills + 1))
				# A single write(2) per line makes a torn line rare
				# under kill -9; make one, as a crash inside the
				# write would, and expect resume to cut it.
				if [ $kills -eq 5 ]; then
					printf '%s' "$torn" >>"$dir/log.jsonl"
				fi
				continue
			fi
		else
			wait $pid
			rc=$?
		fi
	else
		wait $pid
		rc=$?
	fi
	case $rc in
	0) complete=1 ;;
	137) kills=$((kills + 1)) ;;
	*) tail -20 "$T/out.txt"; fail "run/resume exited $rc (run $runs)" ;;
	esac
done
echo "kill campaign: $kills kills, $runs runs"
[ $kills -ge 10 ] || fail "only $kills kills landed (the round finished too fast)"

log=$dir/log.jsonl
check_complete "$dir" $planned
jq -s -e 'map(select(.t == "done")) | length == 1' "$log" >/dev/null ||
	fail "$log: expected exactly one done event"
cuts=$(jq -s 'map(select(.t == "log_cut")) | length' "$log")
resumes=$(jq -s 'map(select(.t == "resume")) | length' "$log")
echo "log: $(wc -l <"$log") lines, $resumes resume events, $cuts torn-line cuts"
[ "$resumes" -ge 1 ] || fail "$log: no resume event"
jq -s -e --argjson n ${#torn} 'map(select(.t == "log_cut" and .bytes == $n))
    | length == 1' "$log" >/dev/null ||
	fail "$log: no log_cut event of ${#torn} bytes for the torn line made"
exit 0
