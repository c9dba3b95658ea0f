#!/bin/bash
# test: est=15 long
# test load_corpus_all: slow arg=all
# The response corpus (tests/data/http/responses.jsonl) over real sockets:
# load_replay.py replays each raw response in every split of its bytes
# (valid ones) or whole, byte at a time and cut at five points (invalid
# ones), and the real benchtui load must accept each valid one with its
# body's length and sha256, refuse each invalid one naming the request and
# its reason, and end each incomplete one within --timeout.  make check
# cuts each response a few ways (load_replay.py says which);
# load_corpus_all (suite 'slow', make check-slow) every way.
set -u
. "$(dirname "$0")/load_lib.sh"

python3 "$BENCHTUI_SOURCE_DIR/tests/e2e/load_replay.py" "$BENCHTUI" \
	"$BENCHTUI_SOURCE_DIR/tests/data/http/responses.jsonl" "$T" ${1:-} >"$T/out" 2>&1 ||
	fail "$(tail -n 5 "$T/out")"
cat "$T/out"
finish
