#!/bin/bash
# test: asan-covered
# Every command's synopsis is made from its option table (tui/opts.c), and
# says the same wherever it is written: "benchtui help --synopsis CMD" (the
# table's), the usage line of "CMD --help" and of a usage error, the lines
# of "benchtui --help", the man page's SYNOPSIS (benchtui-CMD(1), or the
# page whose SYNOPSIS has it), and README.md's line for the command.
# Also the option words: a misspelt long option names the nearest one, old
# spellings still parse, and short options are their long ones.
. "$(dirname "$0")/e2e_lib.sh"
need python3

src=$BENCHTUI_SOURCE_DIR
"$BENCHTUI" help --synopsis >"$tmp/all" || fail "help --synopsis: exit $?"
cmds=$(awk '{ print $2 }' "$tmp/all")
[ "$(wc -l <"$tmp/all")" -ge 12 ] || fail "help --synopsis lists $(wc -l <"$tmp/all") commands"
# "benchtui help" lists the same commands.
"$BENCHTUI" help | awk '/^commands:/ { p = 1; next } p && /^  [a-z]/ { print $1 }' \
    >"$tmp/listed"
[ "$(sort "$tmp/listed")" = "$(sort <<<"$cmds")" ] ||
	fail "benchtui help lists $(tr '\n' ' ' <"$tmp/listed"), the tables $(tr '\n' ' ' <<<"$cmds")"

# A usage block ("usage: " then its wrapped lines) as one line.
unwrap() {
	awk '/^usage: / { sub(/^usage: /, ""); line = $0; p = 1; next }
	    p && /^ +[^ ]/ { sub(/^ +/, ""); line = line " " $0; next }
	    p { exit } END { print line }' "$1"
}

# Every man page's SYNOPSIS as text, one command a line after its page's
# name and a tab (.br, .SY and .YS break lines; the font macros and
# escapes are dropped).
man_synopses() {
	python3 - "$@" <<'PY'
import os, re, shlex, sys
def text(s):
    s = re.sub(r"\\f(\(..|\[[^]]*\]|.)", "", s)
    return s.replace("\\-", "-").replace("\\&", "").replace("\\ ", " ")
for page in sys.argv[1:]:
    out, cur, on = [], [], False
    def flush():
        if cur:
            out.append(re.sub(r"\s+", " ", " ".join(cur)).strip())
        cur.clear()
    for l in open(page).read().split("\n"):
        if l.startswith(".SH"):
            if on:
                break
            on = l.split(None, 1)[1:] == ["SYNOPSIS"]
            continue
        if not on:
            continue
        if l.startswith("."):
            parts = l.split(None, 1)
            m, args = parts[0][1:], parts[1] if len(parts) > 1 else ""
            try:
                words = shlex.split(args.replace("\\", "\\\\"))
            except ValueError:
                words = args.split()
            if m in ("br", "YS", "PP", "sp", "LP", "P"):
                flush()
            elif m == "SY":
                flush()
                cur.append(text(" ".join(words)))
            elif m == "OP":
                cur.append("[" + text(" ".join(words)) + "]")
            elif m in ("B", "I", "R", "SM"):
                cur.append(text(" ".join(words)))
            elif m in ("BR", "RB", "IR", "RI", "BI", "IB"):
                cur.append(text("".join(words)))
            continue
        cur.append(text(l))
    flush()
    for line in out:
        print(os.path.basename(page) + "\t" + line)
PY
}

"$BENCHTUI" --help >"$tmp/usage" || fail "benchtui --help: exit $?"
man_synopses "$src"/man/*.1 >"$tmp/man" || fail "the man pages' SYNOPSIS unread"
before=$fails
for c in $cmds; do
	want=$(grep "^benchtui $c\( \|$\)" "$tmp/all")
	# CMD --help, and a usage error.
	"$BENCHTUI" help "$c" >"$tmp/help" || fail "help $c: exit $?"
	[ "$(unwrap "$tmp/help")" = "$want" ] ||
		fail "$c --help: '$(unwrap "$tmp/help")', the table: '$want'"
	"$BENCHTUI" "$c" --no-such-option </dev/null >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc = 2 ] && [ "$(unwrap "$tmp/err")" = "$want" ] ||
		fail "$c's usage error (exit $rc): '$(unwrap "$tmp/err")', the table: '$want'"
	# benchtui --help
	grep -qxF -- "$want" <(sed 's/^usage: //; s/^       //' "$tmp/usage") ||
		fail "benchtui --help lacks '$want'"
	# The man page: the command's own, else the first page whose
	# SYNOPSIS has it (resume is in benchtui-run(1), help in benchtui(1)).
	got=$(awk -F '\t' -v own="benchtui-$c.1" -v c="$c" '
	    index($2, "benchtui " c " ") == 1 || $2 == "benchtui " c {
		if ($1 == own) { print $1 "\t" $2; found = 1; exit }
		if (first == "") first = $1 "\t" $2 }
	    END { if (!found && first != "") print first }' "$tmp/man")
	page=${got%%$'\t'*} got=${got#*$'\t'}
	[ "$got" = "$want" ] ||
		fail "${page:-no page}'s SYNOPSIS: '$got', the table: '$want'"
	# README.md: the command's line in the block of commands.
	got=$(sed -n "s/^    \(benchtui $c\( .*\)\?\)\$/\1/p" "$src/README.md" |
	    sed 's/ *# .*$//' | head -1)
	[ "$got" = "$want" ] || fail "README.md: '$got', the table: '$want'"
done
[ "$fails" = "$before" ] &&
	ok "every synopsis agrees with its table ($(wc -w <<<"$cmds") commands)"

# The words: did you mean, old spellings, short options.
"$BENCHTUI" run x.json --hedless 2>"$tmp/err"
[ $? = 2 ] && grep -q "unknown option '--hedless' (did you mean \"--headless\"?)" "$tmp/err" ||
	fail "a misspelt option: $(cat "$tmp/err")"
"$BENCHTUI" report x --format 2>"$tmp/err"
[ $? = 2 ] && grep -q "option '--format' needs a value (text|json|csv|markdown)" "$tmp/err" ||
	fail "a missing value: $(cat "$tmp/err")"
"$BENCHTUI" run x.json --headless=yes 2>"$tmp/err"
[ $? = 2 ] && grep -q "option '--headless' takes no value" "$tmp/err" ||
	fail "a flag given a value: $(cat "$tmp/err")"
"$BENCHTUI" run x.json --h 2>"$tmp/err"
[ $? = 2 ] && grep -q "ambiguous option '--h' (--headless, --host)" "$tmp/err" ||
	fail "an ambiguous option: $(cat "$tmp/err")"
log=$src/tests/data/report/golden.jsonl
"$BENCHTUI" report "$log" --format csv >"$tmp/long" || fail "report --format csv: exit $?"
"$BENCHTUI" report "$log" -f csv >"$tmp/short" || fail "report -f csv: exit $?"
cmp -s "$tmp/long" "$tmp/short" || fail "-f is not --format"
"$BENCHTUI" replay "$log" --headless >"$tmp/a" 2>/dev/null || fail "replay: exit $?"
"$BENCHTUI" --replay "$log" --headless >"$tmp/b" 2>/dev/null || fail "--replay: exit $?"
cmp -s "$tmp/a" "$tmp/b" || fail "--replay is not replay"
"$BENCHTUI" help compare | grep -q -- '--partial .*old spelling of --unsealed' ||
	fail "compare --help does not name --partial as --unsealed's old spelling"
"$BENCHTUI" check "$src/assets/demo/demo.json" --host=-oProxyCommand=x >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q "starts with '-'" "$tmp/err" || fail "check --host=-x: $(cat "$tmp/err")"
"$BENCHTUI" check "$src/assets/demo/demo.json" --host=user@b --host=c >"$tmp/out" 2>&1 ||
	fail "check --host=HOST: exit $? $(cat "$tmp/out")"
grep -qx 'hosts user@b c' "$tmp/out" || fail "check --host=HOST: no hosts line"
ok "did you mean, old spellings, short options"
finish
