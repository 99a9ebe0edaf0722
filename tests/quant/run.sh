#!/bin/sh
# QDQ models against ONNX Runtime (tests/quant/qdq_models.py writes them with ORT's
# outputs): `ingot check` must match ORT's dequantized outputs at its default
# tolerance on every target given, and fold_qdq must have left no float Conv, MatMul
# or Gemm behind (the IR dump of each model is searched).
# usage: run.sh INGOT PYTHON QDQ_MODELS_PY OUT ORT_DIR RUN_ORT_MJS TARGET...
set -eu
ingot=$1 py=$2 gen=$3 out=$4 ort=$5 mjs=$6
shift 6
die() { echo "tests/quant: $*" >&2; exit 1; }
command -v node >/dev/null || die "node not found (tools/install-deps.sh installs it)"
mkdir -p "$out"
"$py" "$gen" "$out" "$ort" "$mjs"
for m in "$out"/qdq_*/; do
	n=$(basename "$m")
	"$ingot" compile "$m/model.onnx" -o "$out/build-$n" --emit c --dump-ir "$out/$n.ir" >/dev/null ||
		die "$n: compile failed"
	if grep -E '= (Conv|MatMul|Gemm)\(' "$out/$n.ir" >/dev/null; then
		die "$n: a float Conv/MatMul/Gemm is left (see $out/$n.ir)"
	fi
	grep -E '= QLinear(Conv|MatMul)\(' "$out/$n.ir" >/dev/null || die "$n: no integer node"
	grep -F '!q(' "$out/$n.ir" >/dev/null || die "$n: no quantized type in the IR"
done
for t in "$@"; do
	"$ingot" check "$out"/qdq_*/ --target "$t" || die "target $t differs from ORT"
done
