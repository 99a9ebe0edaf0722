#!/usr/bin/env bash
# Suite llvm: exported models (tests/models/export.py) through --backend llvm for
# TARGET, checked by `ingot check` against torch's outputs with the tolerances the C
# path is checked with; neon and neon32 run under qemu-user (the target's default
# --runner). The export is shared with suite models (same OUT).
#   tests/llvm/models.sh INGOT PYTHON EXPORT_PY OUT TARGET MODEL...
set -eu
ingot=$1 py=$2 export_py=$3 out=$4 target=$5
shift 5
models=("$@")
"$py" "$export_py" "$out" "${models[@]}"
dirs=()
for m in "${models[@]}"; do dirs+=("$(cd "$out" && pwd)/${m}_op17"); done
"$ingot" check --backend llvm --target "$target" "${dirs[@]}" -j 2 --timeout 300
