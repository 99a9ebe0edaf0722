#!/usr/bin/env bash
# The conformance regression gate (meson suite `conformance`): every test named in
# LIST must PASS under `ingot check`; anything else fails the suite.
#   tests/conformance/must_pass.sh INGOT DATA_DIR LIST [JOBS]
# LIST is must_pass.txt or a subset of it (conformance_O1 runs tests/cross/list.txt).
# INGOT_CHECK_CFLAGS (if set) is passed as --cflags, e.g. sanitizers for the generated code;
# INGOT_CHECK_OPT (if set, -O0, -O1 or -O3) picks the pass pipeline instead of the default -O2.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ingot=$1 data=$2 list=$3 jobs=${4:-$(nproc)}
/usr/bin/python3 "$here/generate.py" "$data"
# every generated test is either required to pass or listed, with its reason, as known to fail
/usr/bin/python3 "$here/known_failures.py" "$data/node" "$here/must_pass.txt" "$here/known_failures.txt"
extra=$(grep -vxFf "$here/must_pass.txt" "$list" || true)
[ -z "$extra" ] || { echo "$list names tests not in must_pass.txt: $extra"; exit 1; }
dirs=()
while read -r t; do
	[ -n "$t" ] && dirs+=("$data/node/$t")
done < "$list"
cflags=(); [ -n "${INGOT_CHECK_CFLAGS:-}" ] && cflags=(--cflags "$INGOT_CHECK_CFLAGS")
[ -n "${INGOT_CHECK_OPT:-}" ] && cflags+=("$INGOT_CHECK_OPT")   # -O0 / -O1 / -O3: the pass pipeline
out=$("$ingot" check "${dirs[@]}" -j "$jobs" --timeout 120 "${cflags[@]}") || true
echo "$out" | grep -v '^PASS ' || true
passed=$(echo "$out" | grep -c '^PASS ' || true)
# .ci/run takes the four-count line above the default gate's "conformance: " line
echo "conformance${INGOT_CHECK_OPT:+ $INGOT_CHECK_OPT}: $passed of ${#dirs[@]} required tests pass"
[ "$passed" -eq "${#dirs[@]}" ]
