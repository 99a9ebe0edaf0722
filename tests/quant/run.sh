#!/bin/sh
# QDQ models against ONNX Runtime (tests/quant/qdq_models.py writes them with ORT's
# outputs): `ingot check` must match ORT's dequantized outputs to one quantization
# step of the output (each case's `tolerance` file) on every target given, and
# fold_qdq must have left no float Conv, MatMul or Gemm behind, nor, in the
# qdq_blocks models, a float Add, Mul, Sigmoid, HardSwish, AveragePool,
# GlobalAveragePool or Concat of floats (the IR dump of each model is searched). How
# many cases match ORT bit for bit is printed.
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
	case $n in qdq_blocks_*)
		if grep -E '= (Add|Mul|Sigmoid|HardSwish|AveragePool|GlobalAveragePool)\(|= Concat\(.*: f32' \
			"$out/$n.ir" >/dev/null; then
			die "$n: a float op fold_qdq should fold is left (see $out/$n.ir)"
		fi
		for op in QLinearAdd QLinearMul QLinearLookup QLinearAveragePool \
			QLinearGlobalAveragePool Concat; do
			grep -E "= $op\(" "$out/$n.ir" >/dev/null || die "$n: no $op node"
		done
	esac
done
exact=$("$ingot" check "$out"/qdq_*/ --rtol 0 --atol 0 2>/dev/null | grep -c '^PASS' || true)
echo "tests/quant: $exact of $(ls -d "$out"/qdq_*/ | wc -l) cases match ORT bit for bit (target c)"
# a target whose instructions this CPU lacks is not run, and said (x86-avx512 on AVX2
# CPUs); the others run, then the test exits 77 (skipped), as tests/unit/x86/cpu.py does
runnable() { "$py" "$(dirname "$0")/../unit/x86/cpu.py" "$1"; }
not_run=0
for t in "$@"; do
	if ! runnable "$t"; then
		echo "tests/quant: target $t not run: this CPU lacks its instructions"
		not_run=1
		continue
	fi
	"$ingot" check "$out"/qdq_*/ --target "$t" || die "target $t differs from ORT"
done
[ $not_run = 0 ] || exit 77
