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
echo "wrote docs/conformance.md"
