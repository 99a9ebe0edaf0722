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
# the tests of exact.txt (ops that only move, pick or compare values: data movement,
# Max/Min, MaxPool, Relu, Cast, comparisons, ...) must match bit for bit
# (--rtol 0 --atol 0; 0 and -0 compare equal), the others within check's tolerance
bad=$(grep -vxFf "$here/must_pass.txt" "$here/exact.txt" || true)
[ -z "$bad" ] || { echo "exact.txt names tests not in must_pass.txt: $bad"; exit 1; }
declare -A is_exact
while read -r t; do is_exact[$t]=1; done < "$here/exact.txt"
dirs=() exact=()
while read -r t; do
	[ -z "$t" ] && continue
	if [ -n "${is_exact[$t]:-}" ]; then exact+=("$data/node/$t"); else dirs+=("$data/node/$t"); fi
done < "$list"
cflags=(); [ -n "${INGOT_CHECK_CFLAGS:-}" ] && cflags=(--cflags "$INGOT_CHECK_CFLAGS")
[ -n "${INGOT_CHECK_OPT:-}" ] && cflags+=("$INGOT_CHECK_OPT")   # -O0 / -O1 / -O3: the pass pipeline
out=$( { [ ${#dirs[@]} -eq 0 ] || "$ingot" check "${dirs[@]}" -j "$jobs" --timeout 120 "${cflags[@]}";
         [ ${#exact[@]} -eq 0 ] ||
         "$ingot" check "${exact[@]}" -j "$jobs" --timeout 120 --rtol 0 --atol 0 "${cflags[@]}"; }) || true
dirs+=("${exact[@]}")
count='^[0-9]+ passed, [0-9]+ failed, [0-9]+ unsupported, [0-9]+ errors$'
echo "$out" | grep -v '^PASS ' | grep -vE "$count" || true
# the two runs' four-count lines as one; .ci/run takes it from above the plain build's
# "conformance: " line
echo "$out" | grep -E "$count" | awk '{ p += $1; f += $3; u += $5; e += $7 }
	END { printf "%d passed, %d failed, %d unsupported, %d errors\n", p, f, u, e }'
passed=$(echo "$out" | grep -c '^PASS ' || true)
echo "conformance${INGOT_CHECK_OPT:+ $INGOT_CHECK_OPT}: $passed of ${#dirs[@]} required tests pass"
[ "$passed" -eq "${#dirs[@]}" ]
