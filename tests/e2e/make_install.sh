#!/bin/bash
# test: asan-covered needs=make,man est=6 long
# make install: the program, every man page and the themes land under
# PREFIX (staged in DESTDIR), so `man benchtui`, `man benchtui-run`, ...
# and `man benchtui-round` find their pages.  The Makefile's target is read as make would run it
# (make -n: the build it would start is not this test's to pay for); what
# it runs, meson install of this build, runs for real into a folder.
. "$(dirname "$0")/e2e_lib.sh"
src=$BENCHTUI_SOURCE_DIR

make -s -n -C "$src" install PREFIX=/opt/bt DESTDIR="$tmp/stage" >"$tmp/plan" 2>&1 ||
    fail "make -n install: $(cat "$tmp/plan")"
grep -q -- '-Dprefix=/opt/bt' "$tmp/plan" && grep -q -- "meson install .*--destdir $tmp/stage" "$tmp/plan" &&
    ok "make install takes PREFIX and DESTDIR" || fail "make install: $(cat "$tmp/plan")"

meson install -C "$BENCHTUI_BUILD_DIR" --no-rebuild --destdir "$tmp/root" \
    >"$tmp/install.out" 2>&1 || fail "meson install: $(tail -3 "$tmp/install.out")"
prefix=$(meson introspect "$BENCHTUI_BUILD_DIR" --buildoptions |
    python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"][0])')
root=$tmp/root$prefix
[ -x "$root/bin/benchtui" ] && "$root/bin/benchtui" --version >/dev/null &&
    ok "bin/benchtui" || fail "no runnable $root/bin/benchtui"
for t in default light mono high-contrast; do
	[ -f "$root/share/benchtui/themes/$t.theme" ] || fail "theme $t not installed"
done
n=0
for f in "$src"/man/*.[1-8]; do
	page="${f##*.} $(basename "$f" ".${f##*.}")"
	n=$((n + 1))
	set -- $page
	found=$(MANPATH="$root/share/man" man -w "$2" 2>/dev/null)
	[ "$found" = "$root/share/man/man$1/$2.$1" ] && ok "man $2 finds $found" ||
	    fail "man -w $2 found '$found'"
	MANPATH="$root/share/man" MANWIDTH=80 man "$2" 2>"$tmp/man.err" |
	    grep -q "^NAME" && [ ! -s "$tmp/man.err" ] || fail "man $2 does not render: $(cat "$tmp/man.err")"
done
[ "$n" -ge 14 ] || fail "only $n man pages in man/"
finish
