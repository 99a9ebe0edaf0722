#!/usr/bin/env bash
# The x86 SIMD targets run natively: every conformance test of LIST that must pass with
# --target c must also pass with TARGET (x86-avx512, x86-avx2). With `ops` (CI), only
# the tests of the op families that have x86 kernels (Conv, Gemm, MatMul, pooling,
# binary, unary, Softmax, LayerNormalization, RNN/GRU/LSTM) plus one test per op
# (tests/cross/list.txt) run: 327 of the 905; `full` (tests/full.sh) runs them all. Exits 77 (skipped, never
# counted as passed) when this CPU lacks the target's instructions. INGOT_CHECK_OPT and
# INGOT_CHECK_CFLAGS are honoured as by tests/conformance/must_pass.sh.
#   tests/simd/check_x86.sh INGOT DATA_DIR LIST TARGET full|ops [JOBS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ingot=$1 data=$2 list=$3 target=$4 mode=$5 jobs=${6:-$(nproc)}
case $target in
x86-avx512) need="avx512f avx512bw avx512dq avx512vl fma" ;;
x86-avx2) need="avx2 fma" ;;
*) echo "check_x86: unknown target '$target'" >&2; exit 2 ;;
esac
for f in $need; do
	if ! grep -qw "$f" /proc/cpuinfo; then
		echo "check_x86: this CPU lacks $f; $target cannot run here (skipped)"
		exit 77
	fi
done
/usr/bin/python3 "$here/../conformance/generate.py" "$data"
if [ "$mode" = ops ]; then
	fam='conv|gemm|matmul|maxpool|averagepool|lppool|globalaveragepool|globalmaxpool'
	fam+='|add|sub|mul|div|softmax|logsoftmax|layer_normalization|rnn|gru|lstm|simple_rnn'
	fam+='|relu|leakyrelu|sigmoid|tanh|exp|erf|gelu|elu|selu|hardsigmoid|hardswish|softplus'
	fam+='|softsign|mish|celu|thresholdedrelu|clip|prelu|abs|neg|sqrt|reciprocal'
	tests=$( { grep -E "^test_($fam)" "$list";
	           cat "$here/../cross/list.txt"; } | sort -u)
else
	tests=$(cat "$list")
fi
dirs=()
for t in $tests; do
	dirs+=("$data/node/$t")
done
opt=(); [ -n "${INGOT_CHECK_OPT:-}" ] && opt=("$INGOT_CHECK_OPT")   # -O0 / -O3: the pass pipeline
[ -n "${INGOT_CHECK_CFLAGS:-}" ] && opt+=(--cflags "$INGOT_CHECK_CFLAGS")   # e.g. sanitizers
errs=$(mktemp)
trap 'rm -f "$errs"' EXIT
out=$("$ingot" check --target "$target" "${dirs[@]}" -j "$jobs" --timeout 300 ${opt[@]+"${opt[@]}"} 2>"$errs") || true
cat "$errs" >&2
echo "$out" | grep -v '^PASS ' || true
passed=$(echo "$out" | grep -c '^PASS ' || true)
echo "simd $target: $passed of ${#dirs[@]} tests pass"
# the kernels are prebuilt once for the whole run; a kernel file that does not build
# alone (a header not copied, a file that is not a translation unit) makes every test
# build its own, silently slower
if grep -q 'prebuilding kernels failed' "$errs"; then
	echo "simd $target: prebuilding the kernels failed"
	exit 1
fi
[ "$passed" -eq "${#dirs[@]}" ]
