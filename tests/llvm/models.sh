#!/usr/bin/env bash
# Suite llvm: a few of the exported models (tests/models/export.py: the keyword-spotting
# CNN and the LSTM at opset 17) through --backend llvm for the
# host target, checked by `ingot check` against torch's outputs with the tolerances
# the C path is checked with. The export is shared with suite models (same OUT).
#   tests/llvm/models.sh INGOT PYTHON EXPORT_PY OUT
set -eu
ingot=$1 py=$2 export_py=$3 out=$4
models=(kws_cnn lstm)
"$py" "$export_py" "$out" "${models[@]}"
dirs=()
for m in "${models[@]}"; do dirs+=("$(cd "$out" && pwd)/${m}_op17"); done
"$ingot" check --backend llvm --target host "${dirs[@]}" -j 2
