#!/bin/bash
# test: asan-covered
# Symlinks a leg plants in the round folder never send benchtui's writes
# elsewhere, in run and in resume: a link under a leg's output name, under
# the summaries' temp names, a legs/ folder replaced by a link, and a
# log.jsonl that is a link.  The files they point at stay as they were.
. "$(dirname "$0")/life_lib.sh"

echo precious >"$T/victim"
cp "$T/victim" "$T/victim.orig"
mkdir "$T/elsewhere"

# Arm a rep 1 plants links under names benchtui writes next: the next
# leg's output, the summaries' temp files.  With LEGS_LINK set, it also
# turns legs/ into a link to $T/elsewhere.
cat >"$T/r.json" <<EOF
{
  "name": "links", "reps": 2, "quiet": false,
  "counters": ["task-clock"],
  "command": ["/bin/sh", "-c", "if [ \${ARM}\${REP} = a1 ]; then ln -sf $T/victim \${ROUND_DIR}/legs/c-b-r1.out; ln -sf $T/victim \${ROUND_DIR}/legs/c-a-r2.out; ln -sf $T/victim \${ROUND_DIR}/.summary.json.tmp; ln -sf $T/victim \${ROUND_DIR}/.summary.md.tmp; ln -sf $T/victim \${ROUND_DIR}/.SHA256SUMS.tmp; if [ -n \"\$LEGS_LINK\" ]; then mv \${ROUND_DIR}/legs \${ROUND_DIR}/legs.moved; ln -s $T/elsewhere \${ROUND_DIR}/legs; fi; fi; echo out"],
  "baseline": "a",
  "arms": [{"name": "a"}, {"name": "b"}],
  "cells": [{"name": "c"}]
}
EOF

# --- run: links under file names are removed, never followed ---
"$BENCHTUI" run "$T/r.json" --out "$T/d1" --headless >"$T/run1.out" 2>&1 ||
	{ cat "$T/run1.out"; fail "run with planted links failed"; }
cmp -s "$T/victim" "$T/victim.orig" || fail "the victim file was written through a planted link"
[ -f "$T/d1/legs/c-a-r2.out" ] && [ ! -L "$T/d1/legs/c-a-r2.out" ] ||
	fail "legs/c-a-r2.out is not benchtui's own file"
grep -q '^out$' "$T/d1/legs/c-a-r2.out" || fail "legs/c-a-r2.out lacks the leg's output"
check_sealed "$T/d1"

# --- run: legs/ replaced by a link stops the round resumably (exit 3) ---
LEGS_LINK=1 "$BENCHTUI" run "$T/r.json" --out "$T/d2" --headless >"$T/run2.out" 2>&1
rc=$?
[ $rc -eq 3 ] || { cat "$T/run2.out"; fail "legs/ as a link: exit $rc, expected 3"; }
grep -q 'symlink' "$T/run2.out" || { cat "$T/run2.out"; fail "the stop does not name the symlink"; }
[ -z "$(ls -A "$T/elsewhere")" ] || fail "benchtui wrote into the folder legs/ was linked to: $(ls "$T/elsewhere")"
cmp -s "$T/victim" "$T/victim.orig" || fail "the victim file was written (legs link run)"

# --- resume: the same links planted again are not followed either ---
rm "$T/d2/legs" && mv "$T/d2/legs.moved" "$T/d2/legs"
ln -sf "$T/victim" "$T/d2/legs/c-b-r1.out"
ln -sf "$T/victim" "$T/d2/legs/c-b-r2.out"
ln -sf "$T/victim" "$T/d2/.summary.json.tmp"
"$BENCHTUI" resume "$T/d2" --headless >"$T/res2.out" 2>&1 ||
	{ cat "$T/res2.out"; fail "resume with planted links failed"; }
cmp -s "$T/victim" "$T/victim.orig" || fail "resume wrote through a planted link"
check_sealed "$T/d2"
check_exactly_once "$T/d2/log.jsonl" 4

# --- resume: a log.jsonl that is a link is refused, not appended to ---
LEGS_LINK=1 "$BENCHTUI" run "$T/r.json" --out "$T/d3" --headless >/dev/null 2>&1
cp "$T/d3/log.jsonl" "$T/log.copy"
rm "$T/d3/log.jsonl" && ln -s "$T/log.copy" "$T/d3/log.jsonl"
cp "$T/log.copy" "$T/log.orig"
"$BENCHTUI" resume "$T/d3" --headless >"$T/res3.out" 2>&1
rc=$?
[ $rc -eq 2 ] || { cat "$T/res3.out"; fail "resume with log.jsonl a link: exit $rc, expected 2"; }
grep -q 'symlink' "$T/res3.out" || { cat "$T/res3.out"; fail "the refusal does not name the symlink"; }
cmp -s "$T/log.copy" "$T/log.orig" || fail "resume appended to the log through a link"
exit 0
