#!/bin/bash
# test:
# report --format json against hand-checked golden files, number by number
# (tolerance 1e-9), and report's handling of torn, bad and missing logs.
. "$(dirname "$0")/e2e_lib.sh"
data="$BENCHTUI_SOURCE_DIR/tests/data/report"

# Compare two JSON files: same keys in the same order, same strings, numbers
# within 1e-9.
jsoncmp() {
	python3 - "$1" "$2" <<'PY'
import json, sys
want = json.load(open(sys.argv[1]))
got = json.load(open(sys.argv[2]))
bad = []
def cmp(a, b, path):
    if isinstance(a, dict):
        if not isinstance(b, dict) or list(a) != list(b):
            bad.append("%s: keys %s != %s" % (path, list(a), list(b) if isinstance(b, dict) else b))
            return
        for k in a:
            cmp(a[k], b[k], path + "." + k)
    elif isinstance(a, list):
        if not isinstance(b, list) or len(a) != len(b):
            bad.append("%s: list length differs" % path)
            return
        for i, (x, y) in enumerate(zip(a, b)):
            cmp(x, y, "%s[%d]" % (path, i))
    elif isinstance(a, (int, float)) and not isinstance(a, bool):
        if not isinstance(b, (int, float)) or isinstance(b, bool) or abs(a - b) > 1e-9:
            bad.append("%s: %r != %r" % (path, a, b))
    elif a != b:
        bad.append("%s: %r != %r" % (path, a, b))
cmp(want, got, "$")
for b in bad[:20]:
    print("  " + b)
sys.exit(1 if bad else 0)
PY
}

# 1. The bare log: legacy rows, an aborted leg rerun, failed and timed-out
#    legs, missing values, unknown types and a torn last line.
"$BENCHTUI" report "$data/golden.jsonl" --aa aa=l3 --format json \
	>"$tmp/bare.json" 2>"$tmp/bare.err"
rc=$?
[ "$rc" -eq 0 ] || fail "bare log: exit $rc"
jsoncmp "$data/golden.json" "$tmp/bare.json" || fail "bare log differs from golden.json"
grep -q "golden.jsonl:36: torn last line" "$tmp/bare.err" ||
	fail "no torn-line warning naming the file and line 36: $(cat "$tmp/bare.err")"

# 2. A round folder: arms, vs and aa_of from its round.json; partial plan.
"$BENCHTUI" report "$data/round" --format json >"$tmp/round.json" 2>"$tmp/round.err"
rc=$?
[ "$rc" -eq 0 ] || fail "round folder: exit $rc ($(cat "$tmp/round.err"))"
jsoncmp "$data/golden-round.json" "$tmp/round.json" || fail "round folder differs from golden-round.json"

# 3. Its log given directly is "inside a round folder": same report, and
#    --baseline is ignored (said on stderr).
"$BENCHTUI" report "$data/round/log.jsonl" --baseline l1 --format json \
	>"$tmp/inside.json" 2>"$tmp/inside.err"
jsoncmp "$data/golden-round.json" "$tmp/inside.json" || fail "log inside the round folder differs"
grep -q "ignored" "$tmp/inside.err" || fail "--baseline with round.json not reported as ignored"

# 4. The same log copied out of its folder is bare: the first arm seen is
#    the baseline, so l9 is compared with l3, not l1.
cp "$data/round/log.jsonl" "$tmp/log.jsonl"
"$BENCHTUI" report "$tmp/log.jsonl" --format json >"$tmp/copy.json" || fail "bare copy: exit $?"
[ "$(jq -r '.cells.first.arms.l9.vs' "$tmp/copy.json")" = l3 ] || fail "bare copy: l9 not vs l3"

# 5. A folder whose round.json is broken is read as a bare log, with a note.
mkdir "$tmp/broken"
cp "$data/round/log.jsonl" "$tmp/broken/"
echo '{"name": ' >"$tmp/broken/round.json"
"$BENCHTUI" report "$tmp/broken" --format json >"$tmp/broken.json" 2>"$tmp/broken.err" ||
	fail "broken round.json: exit $?"
grep -q "bare log" "$tmp/broken.err" || fail "broken round.json not reported"

# 5b. A round folder from another machine: its workdir and bin are missing
#     here, which must not stop report from using its round.json.
mkdir "$tmp/moved"
cp "$data/round/log.jsonl" "$data/round/environment.json" "$tmp/moved/"
sed 's|"command": \["/bin/true"\]|"bin": "/nonexistent/zstd", "workdir": "/nonexistent/dir", "command": ["${BIN}"]|' \
	"$data/round/round.json" >"$tmp/moved/round.json"
grep -q nonexistent "$tmp/moved/round.json" || fail "moved: sed did not apply"
# ... as it ran there: the log records that round file's sha256.
sha=$(sha256sum "$tmp/moved/round.json" | cut -d' ' -f1)
sed -i "s/\"spec_sha256\":\"[0-9a-f]*\"/\"spec_sha256\":\"$sha\"/" "$tmp/moved/log.jsonl"
"$BENCHTUI" report "$tmp/moved" --format json >"$tmp/moved.json" 2>"$tmp/moved.err" ||
	fail "moved round folder: exit $?"
jsoncmp "$data/golden-round.json" "$tmp/moved.json" ||
	fail "moved round folder not read with its round.json: $(cat "$tmp/moved.err")"

# 6. A bad line in the middle: exit 2 naming the line.
{ head -3 "$data/golden.jsonl"; echo '{"t":"leg", oops}'; sed -n 4,6p "$data/golden.jsonl"; } >"$tmp/bad.jsonl"
"$BENCHTUI" report "$tmp/bad.jsonl" >/dev/null 2>"$tmp/bad.err"
rc=$?
[ "$rc" -eq 2 ] || fail "bad line: exit $rc, want 2"
grep -q "bad.jsonl:4: not valid JSON" "$tmp/bad.err" || fail "bad line message: $(cat "$tmp/bad.err")"

# 7. Unreadable input and bad usage: exit 2.
"$BENCHTUI" report "$tmp/nope.jsonl" >/dev/null 2>&1
[ $? -eq 2 ] || fail "missing log: exit not 2"
"$BENCHTUI" report "$data/golden.jsonl" --format yaml >/dev/null 2>&1
[ $? -eq 2 ] || fail "--format yaml: exit not 2"
"$BENCHTUI" report "$data/golden.jsonl" --aa nonsense >/dev/null 2>&1
[ $? -eq 2 ] || fail "--aa without =: exit not 2"

finish
