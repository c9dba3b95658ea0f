#!/bin/bash
# test: timeout=1800
# make deb: dpkg-buildpackage builds benchtui_*.deb from debian/, and
# lintian passes it with no error or warning (make deb fails otherwise;
# its output is printed here).  Then the .deb holds the program, every
# man page of man/ and the themes, its program runs, and it depends on no
# libperf (linked in, built from linux-source).  Minutes of CPU: suite
# 'deb', which make check leaves out and make check-deb runs.
set -u
src=${BENCHTUI_SOURCE_DIR:?}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
bad=0
fail() { echo "FAIL: $*"; bad=1; }
for tool in dpkg-buildpackage dh lintian; do
	command -v $tool >/dev/null || { echo "skipped: no $tool (apt-get install debhelper dpkg-dev lintian)"; exit 77; }
done

make -C "$src" deb JOBS="${JOBS:-2}" >"$tmp/make.out" 2>&1
rc=$?
sed -n '/^lintian /,$p' "$tmp/make.out"
[ $rc = 0 ] || { tail -40 "$tmp/make.out"; fail "make deb: exit $rc"; exit 1; }

debs=("$src"/build/deb/benchtui_*.deb)
[ ${#debs[@]} = 1 ] && [ -f "${debs[0]}" ] || { fail "not one .deb: ${debs[*]}"; exit 1; }
deb=${debs[0]}
echo "$(basename "$deb"): $(stat -c %s "$deb") bytes, installed $(dpkg-deb -f "$deb" Installed-Size) KiB"

dpkg-deb -c "$deb" | awk '{print $6}' >"$tmp/files"
pages=$(cd "$src/man" && for m in *.[1-8]; do echo "./usr/share/man/man${m##*.}/$m.gz"; done)
for f in ./usr/bin/benchtui $pages \
	./usr/share/benchtui/themes/ ./usr/share/doc/benchtui/copyright; do
	grep -qxF -- "$f" "$tmp/files" || fail "the .deb lacks $f"
done
depends=$(dpkg-deb -f "$deb" Depends)
case $depends in
*libjansson*) ;;
*) fail "Depends names no libjansson: $depends" ;;
esac
case $depends in
*perf*) fail "Depends names a libperf: $depends" ;;
esac

dpkg-deb -x "$deb" "$tmp/root"
"$tmp/root/usr/bin/benchtui" --version >"$tmp/version" 2>&1 ||
	fail "benchtui --version: $(cat "$tmp/version")"
grep -q "$(dpkg-deb -f "$deb" Version)" "$tmp/version" ||
	fail "--version does not say the package's version: $(cat "$tmp/version")"
[ $bad = 0 ] && echo "deb: built, lintian clean, contents as installed"
exit $bad
