#!/bin/bash
# test: asan-covered
# The manual: mandoc -Tlint finds nothing in any page of man/, not even a
# style message (a line over 80 bytes), and no file users or contributors read (man/, README.md,
# HACKING.md, docs/, assets/) points at a contract file they do not have.
set -u
: "${BENCHTUI_SOURCE_DIR:?}"
command -v mandoc >/dev/null || { echo "mandoc is required (make packages)"; exit 77; }

src=$BENCHTUI_SOURCE_DIR
fails=0
out=$(mandoc -Tlint "$src"/man/* 2>&1)
if [ -n "$out" ]; then
	echo "FAIL: mandoc -Tlint:"
	echo "$out"
	fails=1
else
	echo "ok: mandoc -Tlint: clean"
fi
hits=$(grep -rn "SPEC\.md\|STYLE\.md\|\.\./shared" "$src/man" "$src/README.md" \
	"$src/HACKING.md" "$src/docs" "$src/assets" 2>/dev/null)
if [ -n "$hits" ]; then
	echo "FAIL: user-facing files refer to SPEC.md:"
	echo "$hits"
	fails=1
else
	echo "ok: no user-facing file mentions SPEC.md"
fi
exit $fails
