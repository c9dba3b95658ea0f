#!/bin/bash
# test: counters asan-covered timeout=60
# glibc's _np calls (strerrordesc_np, strerrorname_np, sigabbrev_np) are
# engine/base/sysname.c's alone: no other object of the build refers to
# one (but test_sysname.c's, which holds the tables against them), so a
# machine without them (musl, glibc < 2.32) links every program.  A build
# with -Dglibc_np=false (make check-raw) checks the same by failing to
# link; this checks it in the build at hand.  Then the check fails,
# naming the object, on an object with a reference planted.
set -u
build=${BENCHTUI_BUILD_DIR:?}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
bad=0
fail() { echo "FAIL: $*"; bad=1; }

# refs DIR: "object: symbol" for each reference to an _np call in DIR's
# objects but sysname.c's and test_sysname.c's.
refs() {
	find "$1" -name '*.o' ! -name '*sysname.c.o' -print0 |
	    xargs -0 -r nm -A --undefined-only 2>/dev/null |
	    sed -n 's/^\(.*\.o\): *U \(strerrordesc_np\|strerrorname_np\|sigabbrev_np\)$/\1: \2/p'
}

n=$(find "$build" -name '*.o' | grep -c .)
[ "$n" -gt 50 ] || fail "only $n objects under $build: not a built tree"
found=$(refs "$build")
[ -z "$found" ] || fail "glibc's _np calls outside sysname.c: $found"

mkdir "$tmp/plant"
printf '#define _GNU_SOURCE\n#include <string.h>\nconst char *f(int e) { return strerrorname_np(e); }\n' \
	>"$tmp/plant/use.c"
if cc -c -o "$tmp/plant/use.o" "$tmp/plant/use.c" 2>"$tmp/cc.err"; then
	case $(refs "$tmp/plant") in
	*"use.o: strerrorname_np") ;;
	*) fail "a planted strerrorname_np was not found: $(refs "$tmp/plant")" ;;
	esac
else
	echo "note: this C library has no strerrorname_np to plant ($(head -1 "$tmp/cc.err"))"
fi
[ $bad = 0 ] && echo "np calls: sysname.c's alone ($n objects)"
exit $bad
