#!/bin/bash
# test: needs=jq,ssh
# A server on a host of 253 characters (the most DNS allows) that cannot
# be reached: the round stops resumably (exit 3) before any leg, in ssh's
# own words, with the reason whole after the host (shortened in the
# message to its first 40 and last 20 characters); ssh's log is a file
# name any file system takes (never "File name too long"), and
# environment.json's hosts entry names it with the whole host.  Nothing
# leaves the machine: the name ends in .invalid, which never resolves.
. "$(dirname "$0")/e2e_lib.sh"

label=$(printf 'a%.0s' $(seq 63))
name="$label.$label.$label.$(printf 'b%.0s' $(seq 53)).invalid"
[ ${#name} = 253 ] || fail "the test's host name is ${#name} characters, not 253"
host="user@$name"
cat >"$tmp/far.json" <<EOF2
{"name": "far", "reps": 1, "command": ["/bin/true"], "baseline": "a",
 "quiet": false, "counters": ["task-clock"],
 "ssh": ["ssh", "-F", "/dev/null", "-o", "BatchMode=yes",
	 "-o", "ConnectTimeout=2", "-o", "ConnectionAttempts=1"],
 "arms": [{"name": "a"}],
 "cells": [{"name": "c", "server": {"host": "$host", "cmd": ["/bin/true"],
   "ready": {"tcp_port": 9}}}]}
EOF2
timeout 120 "$BENCHTUI" run "$tmp/far.json" --out "$tmp/d" --headless >"$tmp/d.out" 2>&1
rc=$?
[ $rc = 3 ] || { cat "$tmp/d.out"; fail "run exited $rc, not 3"; }
grep -q 'File name too long' "$tmp/d.out" && fail "the ssh log's name is too long: $(grep -m1 'too long' "$tmp/d.out")"
grep -q '"t":"leg_start"' "$tmp/d/log.jsonl" 2>/dev/null && fail "a leg ran"
short="user@$(printf 'a%.0s' $(seq 35))...bbbbbbbbbbbb.invalid"
line=$(grep -m1 'ssh: Could not resolve hostname' "$tmp/d.out")
[ -n "$line" ] || { cat "$tmp/d.out"; fail "no ssh words in the output"; }
case $line in
*"$short: ssh: Could not resolve hostname "*"(ssh exited 255; the command: ssh -F /dev/null "*" $short '"*"; no leg ran: the round stopped, resume connects again"*)
	ok "the reason shows whole after the shortened host" ;;
*) fail "the reason is not whole after the shortened host: $line" ;;
esac
jq -se --arg s "$short" 'map(select(.t == "abort")) | length == 1' \
	"$tmp/d/log.jsonl" >/dev/null || fail "no abort event"
jq -se --arg s "$short" 'any(.[]; (.error // .reason // "" | tostring) |
	contains($s + ": ssh: Could not resolve hostname") and
	contains("no leg ran: the round stopped, resume connects again"))' \
	"$tmp/d/log.jsonl" >/dev/null || fail "log.jsonl has no whole reason: $(tail -2 "$tmp/d/log.jsonl")"
log=$(jq -r --arg h "$host" '.hosts[] | select(.host == $h) | .ssh_log' "$tmp/d/environment.json")
case $log in
servers/ssh-user_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-[0-9a-f]*.log) ;;
*) fail "environment.json's hosts entry names no ssh log for the host: '$log'" ;;
esac
[ ${#log} -lt 100 ] && [ -s "$tmp/d/$log" ] &&
	grep -q 'Could not resolve hostname' "$tmp/d/$log" &&
	ok "ssh's words are in $log, named by environment.json with the whole host" ||
	fail "ssh's log $log is missing or empty"
# resume connects again: the same host, the same log, appended.
timeout 120 "$BENCHTUI" resume "$tmp/d" --headless >"$tmp/r.out" 2>&1
rc=$?
[ $rc = 3 ] && [ "$(grep -c 'Could not resolve hostname' "$tmp/d/$log")" -ge 2 ] &&
	[ "$(ls "$tmp/d/servers" | grep -c '^ssh-')" = 1 ] &&
	ok "resume appends to the same ssh log" ||
	{ cat "$tmp/r.out"; ls "$tmp/d/servers"; fail "resume: exit $rc"; }
"$BENCHTUI" verify "$tmp/d" >"$tmp/v.out" 2>&1
grep -q 'File name too long' "$tmp/v.out" && fail "verify: $(cat "$tmp/v.out")"
finish
