#!/bin/bash
# test: tui est=6
# The ratios pane of a round run on several hosts: a metric whose hosts
# differ is marked BY HOST (the effect depends on the machine), one
# whose hosts agree is not.  A synthetic log replayed: arm x is 30%
# slower on host hB only; arm y is the same everywhere.
. "$(dirname "$0")/tui_lib.sh"

python3 - "$tmp/log.jsonl" <<'PY'
import json, sys
lines = [{"t": "round", "name": "hosts", "level": 0.95, "margin": 0.01}]
for r in range(1, 19):
    h = ["hA", "hB", "hC"][(r - 1) % 3]
    base = 0.01 * (1 + 0.001 * r)
    noise = 1 + 0.002 * ((r * 7) % 5 - 2)
    for arm, v in (("base", base), ("x", base * noise *
                   (1.3 if h == "hB" else 1.0)), ("y", base * noise)):
        lines.append({"t": "leg", "ts": "2026-12-02T00:00:00.000Z",
                      "cell": "c", "arm": arm, "rep": r, "seq": 3 * r,
                      "host": h, "status": "ok", "rc": 0, "wall": v,
                      "cpu": v})
open(sys.argv[1], "w").write("".join(json.dumps(d) + "\n" for d in lines))
PY
start 140 40 "$BENCHTUI" --replay "$tmp/log.jsonl" --speed 50
wait_for 'BY HOST' 30 && ok "a metric whose hosts differ is marked BY HOST" ||
	fail "no BY HOST mark: $(screen)"
s=$(screen)
grep -E 'x vs base +wall .*BY HOST' <<<"$s" >/dev/null ||
	fail "x's wall not marked: $s"
grep -E 'y vs base +wall .*BY HOST' <<<"$s" >/dev/null &&
	fail "y's wall marked though its hosts agree: $s"
finish
