# Shared preamble of the leg-order, verdict and failure e2e tests (sourced,
# not a test itself): $tmp removed on exit, fail() counting failures.
set -u
: "${BENCHTUI:?BENCHTUI is not set (run through meson test)}"
command -v jq >/dev/null || { echo "SKIP: jq is not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
