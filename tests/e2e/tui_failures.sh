#!/bin/bash
# test: tui
# The console's end state says what headless says: a round complete with a
# failed leg ends sealed with "failed 1" in the header and exits 5 with the
# same message on stderr; a fail_fast stop ends aborted and exits 3 naming
# the arm, the cell and the end of the leg's output.
. "$(dirname "$0")/tui_lib.sh"

cp "$BENCHTUI_SOURCE_DIR/tests/data/failures/some.json" "$tmp/"
start 100 30 sh -c 'exec "$0" run --out "$1" "$2" 2>"$3"' "$BENCHTUI" \
	"$tmp/some" "$tmp/some.json" "$tmp/some.err"
wait_for ' sealed ' 60 && ok "failed leg: the console ends sealed" ||
	fail "failed leg: never sealed"
screen | head -1 | grep -q 'failed 1' && ok "the header says failed 1" ||
	fail "no 'failed 1' in the header: $(screen | head -1)"
tm send-keys q
st=$(wait_exit 10)
[ "$st" = 5 ] && ok "failed leg: exit 5" || fail "failed leg: exit $st, want 5"
grep -q '1 leg failed or timed out (cell c 1' "$tmp/some.err" &&
    grep -q "$tmp/some/legs/c-b-r2.out" "$tmp/some.err" &&
    ok "the exit 5 message on stderr" || fail "stderr: $(cat "$tmp/some.err")"

cp "$BENCHTUI_SOURCE_DIR/tests/data/failures/ff.json" "$tmp/"
start 100 30 sh -c 'exec "$0" run --out "$1" "$2" 2>"$3"' "$BENCHTUI" \
	"$tmp/ff" "$tmp/ff.json" "$tmp/ff.err"
wait_for ' aborted ' 60 && ok "fail_fast: the console ends aborted" ||
	fail "fail_fast: never aborted"
tm send-keys q
st=$(wait_exit 10)
[ "$st" = 3 ] && ok "fail_fast: exit 3" || fail "fail_fast: exit $st, want 3"
grep -q 'fail_fast: arm b failed its first 2 legs in cell c' "$tmp/ff.err" &&
    grep -q '| cannot open input.bin' "$tmp/ff.err" &&
    ok "the fail_fast message on stderr" || fail "stderr: $(cat "$tmp/ff.err")"
finish
