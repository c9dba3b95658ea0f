#!/bin/bash
# test: est=5
# bisect's bad input, each an error naming it (exit 2) before anything is
# built: a revision git does not know, --good not an ancestor of --bad, a
# --repo that is not a git repository, a round file without ${OUT}.
. "$(dirname "$0")/bisect_lib.sh"

bisect_repo "$tmp/repo"
bisect_round "$tmp/round.json"
build='./build.sh ${OUT}'

# bad NAME WANT ARGS...: exit 2, WANT in the message, no folder made.
bad() {
	local name=$1 want=$2
	shift 2
	rm -rf "$tmp/b"
	"$BENCHTUI" bisect "$@" --out "$tmp/b" --headless >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	if [ "$rc" -ne 2 ]; then
		fail "$name: exit $rc, want 2: $(cat "$tmp/err")"
	elif ! grep -qF -- "$want" "$tmp/err"; then
		fail "$name: message lacks '$want': $(cat "$tmp/err")"
	elif [ -e "$tmp/b" ]; then
		fail "$name: made $tmp/b"
	else
		ok "$name: $(head -1 "$tmp/err")"
	fi
}

bad "unknown good" "--good nosuch: git does not know" "$tmp/round.json" \
	--repo "$tmp/repo" --good nosuch --bad c24 --build "$build"
bad "unknown bad" "--bad 0123456789abcdef: git does not know" "$tmp/round.json" \
	--repo "$tmp/repo" --good c0 --bad 0123456789abcdef --build "$build"
bad "not an ancestor" "--good c24 is not an ancestor of --bad c3" "$tmp/round.json" \
	--repo "$tmp/repo" --good c24 --bad c3 --build "$build"
mkdir "$tmp/plain"
bad "not a repository" "--repo $tmp/plain: not a git repository" "$tmp/round.json" \
	--repo "$tmp/plain" --good c0 --bad c24 --build "$build"
jq '.bin = "/bin/true"' "$tmp/round.json" >"$tmp/noout.json"
bad "no \${OUT}" "$tmp/noout.json: the round file does not use \${OUT}" "$tmp/noout.json" \
	--repo "$tmp/repo" --good c0 --bad c24 --build "$build"
jq '.margin = "wide"' "$tmp/round.json" >"$tmp/badfield.json"
bad "a bad field" "$tmp/badfield.json: margin" "$tmp/badfield.json" \
	--repo "$tmp/repo" --good c0 --bad c24 --build "$build"
bad "missing --build" "missing --build" "$tmp/round.json" --repo "$tmp/repo" \
	--good c0 --bad c24
[ "$(git -C "$tmp/repo" worktree list | wc -l)" -eq 1 ] || fail "a worktree was made"
finish
