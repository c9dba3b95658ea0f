# Shared by the bisect tests (sourced): a git repository of the test's
# own, 24 commits after a first good one, built from bisect_loop.c, and a
# round file that runs its build.
. "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"
need git jq cc

# The commit that makes work() 8% slower, and the two after it that
# change other code only.
BISECT_CULPRIT=11
BISECT_OTHER="15 19"

# bisect_repo DIR [BROKEN]: the repository; commit BROKEN (a number,
# 1..24) does not build (the next one mends it).  Prints nothing; the
# commits are tagged c0 (the good end) .. c24 (the bad end).
bisect_repo() {
	local dir=$1 broken=${2:-0} k cost=100
	mkdir -p "$dir"
	git -C "$dir" init -q
	git -C "$dir" config user.email test@example.com
	git -C "$dir" config user.name test
	cp "$BENCHTUI_SOURCE_DIR/tests/e2e/bisect_loop.c" "$dir/loop.c"
	echo 'unsigned long other(unsigned long x) { return x ^ 1; }' >"$dir/other.c"
	printf '#!/bin/sh\nset -e\nmkdir -p "$1"\ncc -O2 -o "$1/prog" loop.c other.c\n' \
		>"$dir/build.sh"
	chmod +x "$dir/build.sh"
	echo "notes 0" >"$dir/NOTES"
	git -C "$dir" add -A
	git -C "$dir" commit -q -m "c0: the good end"
	git -C "$dir" tag c0
	for k in $(seq 1 24); do
		echo "notes $k" >"$dir/NOTES"
		[ "$k" -eq "$BISECT_CULPRIT" ] && cost=108
		sed -i "s/^#define COST .*/#define COST $cost/" "$dir/loop.c"
		case " $BISECT_OTHER " in *" $k "*)
			echo "unsigned long other(unsigned long x) { return x ^ $k; }" \
				>"$dir/other.c" ;;
		esac
		if [ "$k" -eq "$broken" ]; then
			echo 'this does not compile' >>"$dir/other.c"
		elif [ "$k" -eq $((broken + 1)) ]; then
			sed -i '/does not compile/d' "$dir/other.c"
		fi
		git -C "$dir" commit -q -a -m "c$k"
		git -C "$dir" tag "c$k"
	done
}

# bisect_round FILE: a small round on ${OUT}/prog, adaptive on cpu, the
# quiet gate off (the box is shared).  24M steps, about 40 ms of cpu a
# leg: at 6M (10 ms) the start of a process blurred the 8% to 2-7% and a
# confirmation under a loaded box could end undecided at max.
bisect_round() {
	jq -n '{name: "loop", command: ["${BIN}", "24000000"],
	  bin: "${OUT}/prog", baseline: "x", arms: [{name: "x"}],
	  cells: [{name: "c"}], reps: {min: 8, max: 40, until: "decided",
	  metric: "cpu"}, margin: 0.04, counters: ["task-clock"],
	  quiet: false}' >"$1"
}

# bisect_rev DIR TAG: the full sha of a tag.
bisect_rev() { git -C "$1" rev-parse "$2^{commit}"; }

# bisect_headless OUT [OPTION...]: bisect $tmp/round.json over
# $tmp/repo's c0..c24 (an OPTION given again wins) headless into OUT, its
# stdout in $tmp/out (and printed), its stderr in $tmp/err; its exit
# status.
bisect_headless() {
	local out=$1 rc
	shift
	"$BENCHTUI" bisect "$tmp/round.json" --repo "$tmp/repo" --good c0 \
		--bad c24 --build './build.sh ${OUT}' --out "$out" --headless "$@" \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	cat "$tmp/out"
	return $rc
}
