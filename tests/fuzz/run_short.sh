#!/usr/bin/env bash
# The short fuzz run of the test suite: every ONNX node-test model as a seed, plus
# ROUNDS deterministic mutations, through the loader and shape inference.
#   tests/fuzz/run_short.sh FUZZ_REPLAY DATA_DIR [ROUNDS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
/usr/bin/python3 "$here/../conformance/generate.py" "$2"
mapfile -t seeds < <(ls "$2"/node/*/model.onnx | sort)
"$1" "${3:-20000}" "${seeds[@]}"
