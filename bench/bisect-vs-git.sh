#!/bin/bash
# benchtui bisect against `git bisect run` driving hyperfine with an 8%
# threshold, on the bisect tests' repository (24 commits after the good
# one, c11 making the hot function 8% slower in cpu, two later commits
# changing other code only; tests/e2e/bisect_lib.sh).  Each run of each
# tool hunts the same range; printed per run: the culprit it named
# (right or wrong), its steps, the steps whose mark was wrong (a
# candidate before c11 called bad, or from c11 on called good), the
# timed executions of the program, and the wall time.
#
# usage: [TH=1.04] [HF=cpu] bench/bisect-vs-git.sh [RUNS]  (default 5; BENCHTUI: the
#        binary, default build/meson/tui/benchtui)
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
export BENCHTUI=${BENCHTUI:-$src/build/meson/tui/benchtui}
export BENCHTUI_SOURCE_DIR=$src
runs=${1:-5}
# The threshold on hyperfine's mean ratio (TH, default 1.08: 8%).
th=${TH:-1.08}
# What of hyperfine's is compared (HF: wall, its mean, default; or cpu,
# its mean user + system time).
case ${HF:-wall} in
wall) hfm='.mean' ;;
cpu) hfm='(.user + .system)' ;;
*) echo "HF must be wall or cpu" >&2; exit 2 ;;
esac
. "$src/tests/e2e/bisect_lib.sh"
need hyperfine

bisect_repo "$tmp/repo"
bisect_round "$tmp/round.json"
repo=$tmp/repo
culprit=$(bisect_rev "$repo" "c$BISECT_CULPRIT")
# truth SHA: bad when the commit is c11 or later.
truth() {
	git -C "$repo" merge-base --is-ancestor "$culprit" "$1" && echo bad || echo good
}

# git bisect run's step: build the checkout, hyperfine the good end's
# binary against it, bad when its ratio to the good one reaches TH.
mkdir -p "$tmp/good"
git -C "$repo" worktree add -q --detach "$tmp/goodtree" c0
(cd "$tmp/goodtree" && ./build.sh "$tmp/good")
cat >"$tmp/step.sh" <<STEP
#!/bin/bash
out=\$(mktemp -d "$tmp/out.XXXXXX")
./build.sh "\$out" >/dev/null 2>&1 || exit 125
hyperfine -N -w 2 -r 10 --export-json "\$out/h.json" \
	"$tmp/good/prog 6000000" "\$out/prog 6000000" >/dev/null 2>&1 || exit 125
r=\$(jq '.results[1] as \$c | .results[0] as \$g | (\$c | $hfm) / (\$g | $hfm)' "\$out/h.json")
echo "\$(git rev-parse HEAD) \$r" >>"$tmp/gitsteps"
awk -v r="\$r" -v th=$th 'BEGIN { exit (r >= th) }'
STEP
chmod +x "$tmp/step.sh"

printf '%-7s %-3s %-6s %5s %5s %6s %7s\n' tool run named steps wrong execs wall_s
for k in $(seq 1 "$runs"); do
	# benchtui bisect
	rm -rf "$tmp/b"
	t0=$(date +%s.%N)
	"$BENCHTUI" bisect "$tmp/round.json" --repo "$repo" --good c0 --bad c24 \
		--build './build.sh ${OUT}' --out "$tmp/b" --headless >/dev/null 2>&1
	t1=$(date +%s.%N)
	j=$tmp/b/bisect.json
	named=$(jq -r '.culprit.revision // "none"' "$j")
	wrong=0
	while read -r rev mark; do
		[ "$mark" = skip ] && continue
		[ "$(truth "$rev")" = "$mark" ] || wrong=$((wrong + 1))
	done < <(jq -r '.steps[] | select(.kind == "step") | "\(.revision) \(.mark)"' "$j")
	printf '%-7s %-3s %-6s %5s %5s %6s %7.1f\n' benchtui "$k" \
		"$([ "$named" = "$culprit" ] && echo right || { [ "$named" = none ] && echo none || echo wrong; })" \
		"$(jq '.steps | length' "$j")" "$wrong" \
		"$(jq '[.steps[].reps] | add * 2' "$j")" "$(echo "$t1 - $t0" | bc)"
	chmod -R u+w "$tmp/b"

	# git bisect run + hyperfine
	: >"$tmp/gitsteps"
	t0=$(date +%s.%N)
	(cd "$repo" && git bisect start c24 c0 >/dev/null &&
	    git bisect run "$tmp/step.sh" >"$tmp/gitrun" 2>&1)
	t1=$(date +%s.%N)
	named=$(sed -n 's/^\([0-9a-f]\{40\}\) is the first bad commit.*/\1/p' "$tmp/gitrun")
	[ -n "$named" ] || named=none
	skips=$(( $(grep -c "^running" "$tmp/gitrun") - $(wc -l <"$tmp/gitsteps") ))
	(cd "$repo" && git bisect reset >/dev/null 2>&1)
	wrong=0
	while read -r rev r; do
		mark=$(awk -v r="$r" -v th="$th" 'BEGIN { print (r >= th ? "bad" : "good") }')
		[ "$(truth "$rev")" = "$mark" ] || wrong=$((wrong + 1))
	done <"$tmp/gitsteps"
	printf '%-7s %-3s %-6s %5s %5s %6s %7.1f%s\n' git+hf "$k" \
		"$([ "$named" = "$culprit" ] && echo right || { [ "$named" = none ] && echo none || echo wrong; })" \
		"$(wc -l <"$tmp/gitsteps")" "$wrong" \
		"$(( $(wc -l <"$tmp/gitsteps") * 24 ))" "$(echo "$t1 - $t0" | bc)" \
		"$([ "$skips" -gt 0 ] && echo " ($skips skipped)")"
	rm -rf "$tmp"/out.*
done
git -C "$repo" worktree remove --force "$tmp/goodtree"
[ -n "${KEEP:-}" ] && cat "$tmp/gitrun"
