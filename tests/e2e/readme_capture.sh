#!/bin/bash
# test: tui needs=tmux,jq,python3
# README.md starts with the two commands and the console's capture, and
# the capture is what the program draws: tools/readme-capture replays the
# recorded demo round (tests/data/readme) at 100x30 in tmux, and the
# first fenced block of README.md must be exactly that.  With
# BENCHTUI_README_UPDATE=1 the test writes the fresh capture into
# README.md instead (and passes).
. "$(dirname "$0")/e2e_lib.sh"
src=$BENCHTUI_SOURCE_DIR

"$src/tools/readme-capture" "$BENCHTUI" >"$tmp/capture" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 77 ] && { cat "$tmp/err"; exit 77; }
[ "$rc" -eq 0 ] || { fail "readme-capture: exit $rc: $(cat "$tmp/err")"; finish; }
python3 - "$src/README.md" "$tmp/capture" "${BENCHTUI_README_UPDATE:-}" <<'PY' || fail "README.md"
import sys
readme, capture, update = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(readme).read()
lines = text.split("\n")
fresh = open(capture).read().rstrip("\n").split("\n")
start = lines.index("```")
end = lines.index("```", start + 1)
before = [l for l in lines[:start] if l.strip()]
if before != ["# benchtui",
              "    make demo     # set up (Debian packages, libperf), build, run the demo round",
              "    make check    # the same set-up, then the tests (quick tier, < 4 min)"]:
    print("FAIL: README.md does not start with the two commands, then the capture:", before)
    sys.exit(1)
if update:
    lines[start + 1:end] = fresh
    open(readme, "w").write("\n".join(lines))
    print("ok: README.md rewritten with the fresh capture")
    sys.exit(0)
old = lines[start + 1:end]
if old != fresh:
    import difflib
    print("\n".join(difflib.unified_diff(old, fresh, "README.md", "capture", lineterm="")))
    print("FAIL: the README's capture is not what the program draws; "
          "BENCHTUI_README_UPDATE=1 meson test -C build/meson readme_capture rewrites it")
    sys.exit(1)
print("ok: the README's capture is what the program draws")
PY
finish
