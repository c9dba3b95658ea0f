#!/bin/bash
# test: est=2
# benchtui load against python3 -m http.server: a verified run writes its
# metrics and one evidence line per request over one reused connection; a
# wrong --expect-sha256 fails on request 1 naming both digests; bad usage
# exits 2.  (An HTTP/1.0 server, which closes after each response: see
# load_framing.sh.)
set -u
. "$(dirname "$0")/load_lib.sh"

port=$(free_port)
start_http "$port" HTTP/1.1
url="http://127.0.0.1:$port/f.bin"

"$BENCHTUI" load "$url" --requests 40 --warmup 5 --expect-file "$T/www/f.bin" \
	--expect-bytes 65536 --header 'X-Bench: 1' --evidence "$T/ev.jsonl" \
	--metrics "$T/m.json" >"$T/stdout" 2>&1 || fail "a good load exited $?"
grep -q 'requests/s' "$T/stdout" || fail "no summary line"
[ "$(grep -c . "$T/ev.jsonl")" = 45 ] || fail "expected 45 evidence lines"
[ "$(jq -r .local_port "$T/ev.jsonl" | sort -u | grep -c .)" = 1 ] ||
	fail "the requests did not all use one connection"
[ "$(jq -r .sha256 "$T/ev.jsonl" | sort -u)" = "$FILE_SHA" ] ||
	fail "evidence digests differ from the file's"
[ "$(jq -c 'select(.warmup)' "$T/ev.jsonl" | grep -c .)" = 5 ] ||
	fail "expected 5 warm-up lines"
jq -e '.requests == 40 and .rps > 0 and .bytes == 40 * 65536 and
	.lat_p50_ms > 0 and .lat_p50_ms <= .lat_p90_ms and
	.lat_p90_ms <= .lat_p99_ms and .lat_p99_ms <= .lat_max_ms' "$T/m.json" \
	>/dev/null || fail "metrics: $(cat "$T/m.json")"

# --no-summary, and --quiet its old spelling.
for flag in --no-summary --quiet; do
	"$BENCHTUI" load "$url" --requests 3 $flag >"$T/stdout" 2>"$T/stderr" ||
		fail "$flag: exit $?"
	[ ! -s "$T/stdout" ] && [ ! -s "$T/stderr" ] || fail "$flag printed something"
done

# Several connections, each persistent.
"$BENCHTUI" load "$url" --requests 30 --connections 3 --expect-sha256 "$FILE_SHA" \
	--evidence "$T/ev3.jsonl" >"$T/stdout" 2>&1 || fail "3 connections exited $?"
[ "$(jq -r '"\(.conn) \(.local_port)"' "$T/ev3.jsonl" | sort -u | grep -c .)" = 3 ] ||
	fail "3 connections did not keep one port each"

wrong=$(printf '%064d' 0)
"$BENCHTUI" load "$url" --requests 5 --expect-sha256 "$wrong" >"$T/stdout" 2>&1
rc=$?
[ "$rc" = 1 ] || fail "a wrong --expect-sha256 exited $rc, not 1"
grep -q "request 1: body sha256 is $FILE_SHA, expected $wrong" "$T/stdout" ||
	fail "the message does not name request 1 and both digests"

"$BENCHTUI" load "$url" --requests 2 --expect-bytes 10 >"$T/stdout" 2>&1
[ $? = 1 ] && grep -q 'request 1: body is 65536 bytes, expected 10' "$T/stdout" ||
	fail "a wrong --expect-bytes was not named"
"$BENCHTUI" load "http://127.0.0.1:$port/missing" --requests 2 >"$T/stdout" 2>&1
[ $? = 1 ] && grep -q 'request 1: status 404, expected 200' "$T/stdout" ||
	fail "a 404 was not named"

# Nobody listening: exit 1 naming the address.
"$BENCHTUI" load "http://127.0.0.1:$(free_port)/" --requests 1 >"$T/stdout" 2>&1
[ $? = 1 ] && grep -q 'cannot connect to 127.0.0.1' "$T/stdout" ||
	fail "a refused connection was not named"
for bad in "ftp://x/" "--requests 0 http://x/" "http://x/ --bogus 1" ""; do
	# shellcheck disable=SC2086
	"$BENCHTUI" load $bad >"$T/stdout" 2>&1
	[ $? = 2 ] || fail "'load $bad' did not exit 2"
done

# Every option load --help lists is the program's and is in the manual's
# page, benchtui-load(1); the usage line names each, or ends in [options].
man=$(cat "$BENCHTUI_SOURCE_DIR/man/benchtui-load.1")
"$BENCHTUI" load --help >"$T/help"
"$BENCHTUI" load >/dev/null 2>"$T/usage"
n=0
for flag in $(grep -oE '^  (-[a-zA-Z], )?--[a-z0-9-]*' "$T/help" | sed 's/^.*--/--/'); do
	[ "$flag" = --help ] && continue
	n=$((n + 1))
	grep -qF -- "${flag//-/\\-}" <<<"$man" ||
		fail "$flag is not in benchtui-load(1)"
	grep -qF -- "$flag" "$T/usage" || grep -qF '[options]' "$T/usage" ||
		fail "$flag is not in load's usage"
	"$BENCHTUI" load "$flag" >"$T/stdout" 2>&1
	grep -q "option '$flag' needs a value" "$T/stdout" ||
		grep -q "no URL given" "$T/stdout" || fail "$flag: $(cat "$T/stdout")"
done
[ "$n" -ge 17 ] || fail "load --help lists $n options"
echo ok
