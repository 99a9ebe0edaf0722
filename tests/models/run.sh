#!/usr/bin/env bash
# The exported-model test: export.py writes the models and torch's outputs into OUT (only
# those whose stamp is stale), then `ingot check` compiles and runs every one of them.
# usage: run.sh INGOT PYTHON EXPORT_PY OUT [TARGET]
# INGOT_CHECK_CFLAGS (if set) is passed as --cflags, e.g. sanitizers for the generated code;
# INGOT_CHECK_OPT (if set, -O0 or -O3) picks the pass pipeline instead of the default -O2.
set -eu
ingot=$1 py=$2 export_py=$3 out=$4 target=${5:-c}
if ! [ -x "$py" ]; then
	echo "tests/models: $py not found; it needs python3-torch, python3-torchvision," \
	     "python3-onnx and python3-numpy (tools/install-deps.sh)" >&2
	exit 1
fi
# a target whose instructions this CPU lacks (x86-avx512 on an AVX2 CPU): skipped, exit 77
"$py" "$(dirname "$0")/../unit/x86/cpu.py" "$target" || exit 77
# --target opencl without an OpenCL platform: skipped, exit 77 (tests/opencl)
if [ "$target" = opencl ] && ! "$py" "$(dirname "$0")/../opencl/has_platform.py"; then
	echo "SKIP: no OpenCL platform (install pocl-opencl-icd)"
	exit 77
fi
start=$(date +%s)
"$py" "$export_py" "$out"
out=$(cd "$out" && pwd)  # check resolves data-set paths from the runner's directory
mid=$(date +%s)
jobs=$(nproc 2>/dev/null || echo 2)
[ "$jobs" -gt 4 ] && jobs=4
rc=0
extra=()
[ -n "${INGOT_CHECK_CFLAGS:-}" ] && extra+=(--cflags "$INGOT_CHECK_CFLAGS")
[ -n "${INGOT_CHECK_OPT:-}" ] && extra+=("$INGOT_CHECK_OPT")
"$ingot" check "$out"/*_op* --target "$target" -j "$jobs" ${extra[@]+"${extra[@]}"} || rc=$?
echo "export $((mid - start)) s, check $(($(date +%s) - mid)) s"
exit $rc
