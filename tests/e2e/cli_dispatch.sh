#!/bin/bash
# test: counters asan-covered
# The command-line dispatch: --version names the counter backend, unknown
# commands are usage errors (exit 2), and --replay is accepted as an option
# anywhere among replay's own flags, and as the subcommand `replay`.
set -u
B=${BENCHTUI:?}
LOG=${BENCHTUI_SOURCE_DIR:?}/tests/data/report/golden.jsonl
fail() { echo "FAIL: $*"; exit 1; }

$B --version | grep -Eq '^benchtui [0-9.]+ \(counters: (libperf|perf_event_open)\)$' ||
	fail "--version does not name the counter backend"
# The backend this build's copy of the test is for (tests/meson.build).
[ -z "${BENCHTUI_COUNTERS_BACKEND:-}" ] ||
	$B --version | grep -qF "(counters: $BENCHTUI_COUNTERS_BACKEND)" ||
	fail "--version does not name $BENCHTUI_COUNTERS_BACKEND: $($B --version)"
$B --help >/dev/null || fail "--help exit $?"
$B frobnicate 2>/dev/null; [ $? -eq 2 ] || fail "unknown command is not exit 2"
$B 2>/dev/null; [ $? -eq 2 ] || fail "no command is not exit 2"

want=$($B --replay "$LOG" --headless 2>/dev/null) || fail "--replay LOG --headless exit $?"
[ -n "$want" ] || fail "headless replay printed nothing"
got=$($B --headless --replay "$LOG" 2>/dev/null) || fail "--headless --replay LOG exit $?"
[ "$got" = "$want" ] || fail "--headless --replay LOG differs from --replay LOG --headless"
got=$($B replay --headless "$LOG" 2>/dev/null) || fail "replay --headless LOG exit $?"
[ "$got" = "$want" ] || fail "the replay subcommand differs from --replay"
$B --headless --replay /nonexistent/log.jsonl 2>/dev/null; [ $? -eq 2 ] ||
	fail "a missing log is not exit 2"
echo "cli dispatch ok"
