#!/bin/bash
# test life-tamper:
# The seal: a complete round is sealed (files read-only, verify and
# sha256sum -c agree); tampering (one byte changed, one file deleted, one
# added) is named by verify with exit 4, and sha256sum -c fails too.
# Signing: a round run with --sign (an openssl-made Ed25519 key) verifies
# with --pubkey and with `openssl pkeyutl -verify -rawin`; a flipped
# signature byte makes verify exit 4; a non-Ed25519 key is refused.
. "$(dirname "$0")/life_lib.sh"

export DEMO_SPIN_MS=5
make_round "$T/r.json" seal 2 0

# --- tamper ---
dir=$T/plain
"$BENCHTUI" run "$T/r.json" --out "$dir" --headless >"$T/run.out" 2>&1 ||
	{ cat "$T/run.out"; fail "run failed"; }
check_sealed "$dir"
# The log is complete at done; the seal event goes to the front end only
# (appending it would change a file the seal covers), with the right sum.
[ "$(tail -n 1 "$dir/log.jsonl" | jq -r .t)" = done ] || fail "the log does not end with done"
! grep -q '"t":"seal"' "$dir/log.jsonl" || fail "a seal event in log.jsonl"
sum=$(sha256sum "$dir/SHA256SUMS" | cut -d' ' -f1)
grep -q "$sum" "$T/run.out" || { cat "$T/run.out"; fail "the output does not show the seal's sha256 $sum"; }
for f in SHA256SUMS log.jsonl round.json summary.json summary.md legs/c1-a-r1.out; do
	[ -e "$dir/$f" ] || fail "$dir/$f missing from a sealed round"
	[ -z "$(find "$dir/$f" -perm /222)" ] || fail "$dir/$f is writable after the seal"
done
grep -q '  legs/c1-a-r1.out$' "$dir/SHA256SUMS" || fail "SHA256SUMS does not list legs/"
grep -q '  log.jsonl$' "$dir/SHA256SUMS" || fail "SHA256SUMS does not list log.jsonl"
! grep -q 'SHA256SUMS' "$dir/SHA256SUMS" || fail "SHA256SUMS lists itself"

# Change one byte of a leg's output, delete the markdown summary, add a file.
chmod u+w "$dir/legs/c1-b-r2.out"
printf 'X' | dd of="$dir/legs/c1-b-r2.out" bs=1 seek=0 conv=notrunc 2>/dev/null
rm -f "$dir/summary.md"
echo extra >"$dir/legs/zz-added.out"
"$BENCHTUI" verify "$dir" >"$T/verify.out" 2>"$T/verify.err"
rc=$?
[ $rc -eq 4 ] || { cat "$T/verify.out" "$T/verify.err"; fail "verify of a tampered folder: exit $rc, expected 4"; }
expect='added: legs/zz-added.out
changed: legs/c1-b-r2.out
missing: summary.md'
[ "$(sort "$T/verify.out")" = "$expect" ] ||
	{ cat "$T/verify.out"; fail "verify did not name exactly the three changes"; }
(cd "$dir" && sha256sum -c SHA256SUMS) >"$T/sha.out" 2>&1 &&
	fail "sha256sum -c passed a tampered folder"
grep -q 'legs/c1-b-r2.out: FAILED$' "$T/sha.out" || { cat "$T/sha.out"; fail "sha256sum -c does not name the changed file"; }
grep -q 'summary.md: FAILED open or read' "$T/sha.out" || { cat "$T/sha.out"; fail "sha256sum -c does not name the missing file"; }
# No seal at all, and a bad usage: exit 2.
"$BENCHTUI" verify "$T" >/dev/null 2>&1; [ $? -eq 2 ] || fail "verify of an unsealed folder did not exit 2"
"$BENCHTUI" verify >/dev/null 2>&1; [ $? -eq 2 ] || fail "verify without a folder did not exit 2"

# --- sign ---
command -v openssl >/dev/null || { echo "SKIP sign part: no openssl"; exit 0; }
openssl genpkey -algorithm ed25519 -out "$T/key.pem" 2>/dev/null || fail "openssl genpkey failed"
openssl pkey -in "$T/key.pem" -pubout -out "$T/pub.pem" || fail "openssl pkey -pubout failed"
dir=$T/signed
"$BENCHTUI" run "$T/r.json" --out "$dir" --headless --sign "$T/key.pem" >"$T/run2.out" 2>&1 ||
	{ cat "$T/run2.out"; fail "run --sign failed"; }
[ "$(stat -c %s "$dir/SHA256SUMS.sig")" -eq 64 ] || fail "SHA256SUMS.sig is not a 64-byte Ed25519 signature"
check_sealed "$dir"
out=$("$BENCHTUI" verify "$dir" --pubkey "$T/pub.pem") || fail "verify --pubkey failed: $out"
(cd "$dir" && openssl pkeyutl -verify -pubin -inkey "$T/pub.pem" -rawin \
    -in SHA256SUMS -sigfile SHA256SUMS.sig) >"$T/ossl.out" 2>&1 ||
	{ cat "$T/ossl.out"; fail "openssl pkeyutl -verify rejects the signature"; }
# Another key's public half: bad signature.
openssl genpkey -algorithm ed25519 -out "$T/key2.pem" 2>/dev/null
openssl pkey -in "$T/key2.pem" -pubout -out "$T/pub2.pem"
"$BENCHTUI" verify "$dir" --pubkey "$T/pub2.pem" >"$T/v2.out" 2>&1
[ $? -eq 4 ] && grep -q '^signature: bad$' "$T/v2.out" || { cat "$T/v2.out"; fail "verify with another key did not say signature: bad"; }
# A public key that cannot be read is bad usage (exit 2), also on a
# folder that is not signed (not "signature: missing", exit 4).
for d in "$dir" "$T/plain"; do
	"$BENCHTUI" verify "$d" --pubkey "$T/nokey.pem" >"$T/vk.out" 2>&1
	rc=$?
	[ $rc -eq 2 ] && grep -q 'nokey.pem' "$T/vk.out" ||
		{ cat "$T/vk.out"; fail "verify $d --pubkey nokey.pem: exit $rc, expected 2 naming the key"; }
done
# Flip one byte of the signature.
chmod u+w "$dir/SHA256SUMS.sig"
b=$(od -An -tu1 -N1 "$dir/SHA256SUMS.sig" | tr -d ' ')
printf "\\$(printf '%03o' $((b ^ 1)))" | dd of="$dir/SHA256SUMS.sig" bs=1 seek=0 conv=notrunc 2>/dev/null
"$BENCHTUI" verify "$dir" --pubkey "$T/pub.pem" >"$T/v3.out" 2>&1
rc=$?
[ $rc -eq 4 ] || { cat "$T/v3.out"; fail "verify of a flipped signature: exit $rc, expected 4"; }
grep -q '^signature: bad$' "$T/v3.out" || { cat "$T/v3.out"; fail "no 'signature: bad' line"; }
# A key that is not Ed25519 is refused before any leg runs (exit 2).
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$T/ec.pem" 2>/dev/null
"$BENCHTUI" run "$T/r.json" --out "$T/ec" --headless --sign "$T/ec.pem" >"$T/ec.out" 2>&1
rc=$?
[ $rc -eq 2 ] || { cat "$T/ec.out"; fail "run --sign with an EC key: exit $rc, expected 2"; }
grep -q 'ec.pem' "$T/ec.out" && grep -qi 'Ed25519' "$T/ec.out" ||
	{ cat "$T/ec.out"; fail "no clear message for a non-Ed25519 key"; }
[ ! -e "$T/ec/log.jsonl" ] || fail "legs ran before the bad key was refused"
exit 0
