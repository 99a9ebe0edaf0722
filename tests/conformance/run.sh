#!/usr/bin/env bash
# Runs the whole ONNX 1.12 node suite through `ingot check` in parallel and writes the
# per-op table to docs/conformance.md, naming the commit and the machine; it refuses
# to run on a tree with uncommitted changes (tools/provenance.sh).
#   tests/conformance/run.sh INGOT [DATA_DIR] [JOBS]
# DATA_DIR defaults to build/onnx-tests (generated on first use, ~5 s).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
ingot=$(realpath "$1")
data=${2:-$root/build/onnx-tests}
jobs=${3:-$(nproc)}
prov=$("$root/tools/provenance.sh" docs/conformance.md) || exit 1   # a clean tree: its commit
/usr/bin/python3 "$here/generate.py" "$data"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$ingot" check "$data/node" -j "$jobs" --timeout 120 > "$out" || true
/usr/bin/python3 "$here/report.py" "$out" "$data/node" "$here/ops456.txt" "$prov, $(date -u '+%Y-%m-%d')" \
	> "$root/docs/conformance.md"
tail -n 1 "$out"
# the newest opsets: tests/ort's cases against ONNX Runtime's outputs (needs node and
# onnxruntime-node under bench/.ort, as test ort_reference)
ort=$root/bench/.ort
if [ -f "$ort/node_modules/onnxruntime-node/package.json" ] && command -v node >/dev/null; then
	cases=$(dirname "$data")/ort-cases
	# the cases are written and checked as test ort_reference does it (its PASS/FAIL lines
	# are what report.py reads); a case that fails still goes into the report
	"$root/tests/ort/run.sh" "$ingot" /usr/bin/python3 "$root/tests/ort/make_tests.py" "$cases" "$ort" \
		"$root/tests/ort/known_failures.txt" > "$out" || true
	{ echo; /usr/bin/python3 "$root/tests/ort/report.py" "$out" "$cases" "$root"; } >> "$root/docs/conformance.md"
	grep '^ort_reference' "$out" || true
else
	echo "conformance/run.sh: onnxruntime-node not under bench/.ort: no newest-opsets section" >&2
fi
echo "wrote docs/conformance.md"
