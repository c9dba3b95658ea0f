#!/bin/bash
# test life-sealcrash: asan-covered
# A crash between "done" and the seal: the folder as a kill -9 would leave
# it at each step of the end (done logged but no summary; summaries written
# but a half-written SHA256SUMS temp file; a stale signature), made by hand
# from a finished round.  resume must finish the seal without running any
# leg again, and verify must pass.
. "$(dirname "$0")/life_lib.sh"

export DEMO_SPIN_MS=5
make_round "$T/r.json" sealcrash 1 0   # 6 legs
"$BENCHTUI" run "$T/r.json" --out "$T/done" --headless >"$T/run.out" 2>&1 ||
	{ cat "$T/run.out"; fail "run failed"; }

unseal() {   # unseal SRC DST: DST is SRC as it was just after "done"
	cp -a "$1" "$2"
	chmod -R u+w "$2"
	rm -f "$2/SHA256SUMS" "$2/SHA256SUMS.sig"
}

# 1: killed right after done: no summaries, no seal.
unseal "$T/done" "$T/s1"
rm -f "$T/s1/summary.json" "$T/s1/summary.md"
# 2: killed in the middle of writing SHA256SUMS (its temp file), with a
# signature left from the half-finished seal.
unseal "$T/done" "$T/s2"
head -c 100 "$T/done/SHA256SUMS" >"$T/s2/.SHA256SUMS.tmp"
head -c 64 /dev/urandom >"$T/s2/SHA256SUMS.sig"

for d in "$T/s1" "$T/s2"; do
	legs_before=$(jq -s 'map(select(.t == "leg")) | length' "$d/log.jsonl")
	"$BENCHTUI" resume "$d" --headless >"$d.out" 2>&1 ||
		{ cat "$d.out"; fail "resume of $(basename "$d") failed"; }
	legs_after=$(jq -s 'map(select(.t == "leg")) | length' "$d/log.jsonl")
	[ "$legs_before" -eq "$legs_after" ] ||
		fail "$(basename "$d"): resume ran legs again ($legs_before -> $legs_after leg lines)"
	check_exactly_once "$d/log.jsonl" 6
	[ -s "$d/summary.json" ] && [ -s "$d/summary.md" ] || fail "$(basename "$d"): no summaries"
	[ ! -e "$d/.SHA256SUMS.tmp" ] || fail "$(basename "$d"): the seal's temp file is left"
	[ ! -e "$d/SHA256SUMS.sig" ] || fail "$(basename "$d"): a stale signature is left"
	check_sealed "$d"
done
exit 0
