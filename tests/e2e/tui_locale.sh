#!/bin/bash
# test: tui est=5 needs=jq,localedef long
# The operator's locale never reaches the sealed data: the same round, run
# in the console and headless under LC_ALL=de_DE.UTF-8 (a comma as the
# decimal point), seals summary.json and summary.md that are the same byte
# for byte once the measured numbers are masked (each as N: "1.00%" is
# "N%", "1,00%" stays "N,N%") and the profile tables set aside,
# hold no decimal comma, and its perf profile names the same symbols of
# the program's own; the console's header shows a dot.
# The locale is made here with localedef into the test's own folder
# (LOCPATH), so the machine needs only the locales package's sources.
. "$(dirname "$0")/tui_lib.sh"
: "${BENCHTUI_PROF_HOT:?set BENCHTUI_PROF_HOT to the prof-hot test program}"
command -v perf >/dev/null || { echo "SKIP: perf is not installed"; exit 77; }

mkdir -p "$tmp/loc"
if ! localedef -i de_DE -f UTF-8 "$tmp/loc/de_DE.UTF-8" >"$tmp/localedef" 2>&1; then
	echo "SKIP: localedef cannot make de_DE.UTF-8 here: $(head -3 "$tmp/localedef")"
	exit 77
fi
export LOCPATH=$tmp/loc
[ "$(LC_ALL=de_DE.UTF-8 awk 'BEGIN { printf "%.2f", 1.5 }' 2>/dev/null)" = "1,50" ] ||
	[ "$(LC_ALL=de_DE.UTF-8 /usr/bin/printf '%.2f' 1.5 2>/dev/null)" = "1,50" ] || {
	echo "SKIP: the locale made with localedef does not print a decimal comma"
	exit 77
}

# Two arms 20 ms apart (the units stay ms), 2 reps (no interval: the
# verdict is "unknown" every time), a perf profile of "on".
cat >"$tmp/round.json" <<EOF
{"name": "locale", "reps": 2, "baseline": "off", "quiet": false,
 "bin": "$BENCHTUI_PROF_HOT", "command": ["\${BIN}", "20000000"],
 "arms": [{"name": "off"}, {"name": "on", "env": {"PROF_HOT": "1"}}],
 "cells": [{"name": "cpu"}],
 "profile": {"arms": ["on"], "perf": {"args": ["-F", "999"]}}}
EOF

start 110 40 env LC_ALL=de_DE.UTF-8 LOCPATH="$LOCPATH" "$BENCHTUI" run \
	"$tmp/round.json" --out "$tmp/tui"
wait_for ' sealed ' 120 && ok "the console round is sealed" || fail "the console round never sealed"
screen > "$tmp/screen"
grep -Eq 'elapsed [0-9]+,[0-9]' "$tmp/screen" && fail "the header reads a decimal comma: $(grep -o 'elapsed [^ ]*' "$tmp/screen")"
grep -Eq 'elapsed [0-9]+\.[0-9]' "$tmp/screen" && ok "the header reads $(grep -oE 'elapsed [0-9.]+s' "$tmp/screen" | head -1)" ||
	fail "no 'elapsed N.NNs' in the header"
tm send-keys q
st=$(wait_exit 20)
[ "$st" = 0 ] || fail "the console exited $st"

LC_ALL=de_DE.UTF-8 "$BENCHTUI" run "$tmp/round.json" --out "$tmp/head" \
	--headless >"$tmp/head.out" 2>&1 || fail "the headless run failed: $(tail -3 "$tmp/head.out")"

# Measured digits masked; the folders' own paths as DIR; the profiles
# left out (which kernel symbols a sampling catches varies from run to
# run: they are compared below, and checked for commas with the rest),
# and so are context switches and migrations: a leg may have none, and a
# ratio to 0 is undefined (null, no row of figures) in one run and not
# in the other.
mask() {
	case $1 in
	*.json) jq 'del(.profiles) | walk(if type == "object"
		then del(.["context-switches"], .["cpu-migrations"]) else . end)' "$1" ;;
	*) sed -e '/^### Profiles/,$d' -e '/| context-switches |/d' -e '/| cpu-migrations |/d' "$1" ;;
	esac | sed -E -e "s#$tmp/[a-z]*#DIR#g" -e 's/[0-9]+(\.[0-9]+)?/N/g'
}
for f in summary.json summary.md; do
	[ -s "$tmp/tui/$f" ] && [ -s "$tmp/head/$f" ] || { fail "$f missing"; continue; }
	if cmp -s <(mask "$tmp/tui/$f") <(mask "$tmp/head/$f"); then
		ok "$f: the same bytes in the console and headless (digits masked)"
	else
		fail "$f differs: $(diff <(mask "$tmp/head/$f") <(mask "$tmp/tui/$f") | head -8)"
	fi
	if grep -Eq '[0-9],[0-9]' "$tmp/tui/$f"; then
		fail "$f from the console holds a decimal comma: $(grep -Eo '.{20}[0-9],[0-9].{10}' "$tmp/tui/$f" | head -2)"
	fi
done
# summary.json parses the same numbers
for d in tui head; do
	jq -e '.cells.cpu.arms.on.metrics.wall.n == 2' "$tmp/$d/summary.json" >/dev/null ||
		fail "$d/summary.json: wall.n is not 2"
done

# The profile: the same symbols of the program's own above 5% in each
# (the kernel's vary from run to run), and some.
syms() {
	jq -r 'select(.t == "profile" and .arm == "on") | .top[] |
		select(.share >= 5 and (.symbol | startswith("prof_"))) |
		.symbol' "$1/log.jsonl" | sort
}
a=$(syms "$tmp/tui") b=$(syms "$tmp/head")
if [ -n "$a" ] && [ "$a" = "$b" ]; then
	ok "the profile names the same symbols: $(echo $a)"
else
	fail "profile symbols: console [$(echo $a)], headless [$(echo $b)]"
fi
grep -q 'prof_hot_extra' <<<"$a" || fail "the console's profile lacks prof_hot_extra"
finish
