#!/bin/bash
# test: alone asan-beside asan-covered est=1 needs=/usr/bin/time arg=early
# test load_bounds_stream: est=7 long
# benchtui load bounded by what it was told (against load_server.py):
# --timeout is a whole-response limit (a body or a header trickling one
# byte a second is ended by it); a 2 GiB body is hashed as it streams
# (peak RSS under 32 MiB); --expect-bytes, or --expect-file's size, ends
# the run on a 1 GiB Content-Length before the body is read (under 0.1 s
# and 16 MiB); two Content-Length values that differ, a signed one and a
# header over 64 KiB arriving in one piece are refused, each named; LF-only
# header lines are read.  Two tests: "early" (load_bounds: the 0.1 s
# bounds, which run alone), and the rest (load_bounds_stream, beside
# other tests: its bounds are a whole second and more, and memory).
set -u
. "$(dirname "$0")/load_lib.sh"
part=${1:-stream}
start_load_server
# Under ASan (make check-asan) memory and time are the sanitizer's: the
# checks run, their bounds are read only in an uninstrumented build.
bounded=1
if ldd "$BENCHTUI" 2>/dev/null | grep -q libasan; then
	bounded=0
	echo "note: $BENCHTUI is built with ASan: RSS and time bounds not read"
fi
under() {   # VALUE LIMIT: VALUE < LIMIT, or not bounded here
	[ "$bounded" = 0 ] || awk -v v="$1" -v l="$2" 'BEGIN { exit !(v < l) }'
}

if [ "$part" = stream ]; then
# Trickling: one byte a second keeps the connection busy, never complete.
for path in "trickle?n=100" trickle-header; do
	timed_load trickle "$LS/$path" --requests 1 --timeout 2
	[ "$rc" = 1 ] || fail "$path: exit $rc, not 1: $(cat "$T/trickle.out")"
	grep -q 'request 1: no complete response within 2 s' "$T/trickle.out" ||
		fail "$path: $(cat "$T/trickle.out")"
	under "$wall" 4.5 || fail "$path: --timeout 2 ended the run after $wall s"
done
ok "a trickling body or header ends at --timeout"

# sha256 of 2 GiB of zero bytes (head -c 2147483648 /dev/zero | sha256sum).
zeros2g=a7c744c13cc101ed66c29f672f92455547889cc586ce6d44fe76ae824958ea51
timed_load big "$LS/big?n=2147483648" --requests 1 --expect-sha256 "$zeros2g" \
	--timeout 120
[ "$rc" = 0 ] || fail "the 2 GiB body: exit $rc: $(cat "$T/big.out")"
under "$rss" $((32 * 1024)) || fail "the 2 GiB body: peak RSS $rss KiB"
ok "a 2 GiB body checked in $wall s, peak RSS $rss KiB"
fi

if [ "$part" = early ]; then
timed_load early "$LS/big?n=1073741824" --requests 1 --expect-bytes 1088
[ "$rc" = 1 ] || fail "1 GiB with --expect-bytes 1088: exit $rc"
grep -q 'request 1: body is 1073741824 bytes, expected 1088' "$T/early.out" ||
	fail "1 GiB with --expect-bytes 1088: $(cat "$T/early.out")"
under "$wall" 0.1 || fail "1 GiB with --expect-bytes 1088 took $wall s"
under "$rss" $((16 * 1024)) || fail "1 GiB with --expect-bytes: RSS $rss KiB"
head -c 1088 /dev/zero >"$T/zero1088"
timed_load early2 "$LS/big?n=1073741824" --requests 1 --expect-file "$T/zero1088"
[ "$rc" = 1 ] && grep -q 'body is 1073741824 bytes, expected 1088' \
	"$T/early2.out" || fail "--expect-file's size: $(cat "$T/early2.out")"
under "$wall" 0.1 || fail "1 GiB with --expect-file took $wall s"
ok "a 1 GiB Content-Length past --expect-bytes fails before the body"
finish
fi

check_refused() {   # PATH WHAT: exit 1 naming WHAT
	"$BENCHTUI" load "$LS/$1" --requests 2 >"$T/r.out" 2>&1
	local rc=$?
	[ "$rc" = 1 ] || fail "$1: exit $rc, not 1: $(cat "$T/r.out")"
	grep -qF "request 1: $2" "$T/r.out" || fail "$1: $(cat "$T/r.out")"
}
check_refused dupcl "two Content-Length values that differ (5 and 6)"
check_refused signed "bad Content-Length '+5' (digits only)"
check_refused "hugeheader?n=70000" "response header longer than 65536 bytes"
ok "conflicting and signed Content-Length, a 70 KiB header: refused"

bench_sha=$(printf bench | sha256sum | cut -d' ' -f1)
for path in samecl "hugeheader?n=60000" "lf?n=5"; do
	want=$bench_sha
	[ "$path" = samecl ] && want=$(printf hello | sha256sum | cut -d' ' -f1)
	[ "${path%%\?*}" = hugeheader ] && want=$(printf hello | sha256sum | cut -d' ' -f1)
	"$BENCHTUI" load "$LS/$path" --requests 20 --expect-bytes 5 \
		--expect-sha256 "$want" >"$T/r.out" 2>&1 ||
		fail "$path: exit $?: $(cat "$T/r.out")"
done
ok "equal Content-Length repeats, a 60 KiB header, LF-only lines: read"
finish
