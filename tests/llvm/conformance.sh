#!/usr/bin/env bash
# Suite llvm: ONNX node tests through --backend llvm for one target, checked by
# `ingot check` against the same expected outputs (and tolerances) as the C path.
#   tests/llvm/conformance.sh INGOT DATA_DIR TARGET
# A target whose instructions this CPU lacks is skipped (exit 77).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ingot=$1 data=$2 target=$3
/usr/bin/python3 "$here/../unit/x86/cpu.py" "$target" || exit 77
/usr/bin/python3 "$here/../conformance/generate.py" "$data" > /dev/null
dirs=()
while read -r t; do dirs+=("$data/node/$t"); done < "$here/list.txt"
"$ingot" check --backend llvm --target "$target" "${dirs[@]}" -j 2 --timeout 60
