#!/usr/bin/env bash
# The side-by-side benchmark: ingot's generated executables against ONNX Runtime
# (onnxruntime-node, pinned, installed under bench/.ort) on the models of make_models.py,
# same inputs, alternating runtimes; prints a markdown table and writes docs/performance.md.
# A benchmark, not a test: --smoke only runs each model once through both runtimes.
#
# usage: bench/run.sh [--smoke] [--models a,b,..] [--rounds R] [--time-s T] [--no-doc] [--no-int8]
#        bench/run.sh --target opencl [--models a,b,..] [--runs N]   (bench/opencl.sh)
#        bench/run.sh --backend llvm [--models a,b,..] [--rounds R] [--runs N]   (bench/llvm.sh:
#          compile and run time of the LLVM backend against the C path, a -Dllvm=enabled build)
#   (each of INT8_MODELS also runs as NAME_int8: quantized by ingot, ORT on its --emit-qdq file)
#   env: BUILD (default build/), WORK (default $BUILD/bench), PYTHON (/usr/bin/python3)
set -euo pipefail

# --target opencl: the OpenCL table (placements, partitions, init with and without the
# program binary cache), bench/opencl.sh
if [ "${1:-}" = --target ] && [ "${2:-}" = opencl ]; then
	shift 2
	exec "$(dirname "$0")/opencl.sh" "$@"
fi
# --backend llvm: the LLVM backend against the C path, bench/llvm.sh
if [ "${1:-}" = --backend ] && [ "${2:-}" = llvm ]; then
	shift 2
	exec "$(dirname "$0")/llvm.sh" "$@"
fi

root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
work=${WORK:-$build/bench}
py=${PYTHON:-/usr/bin/python3}
ingot=$build/compiler/driver/ingot
ort_dir=$root/bench/.ort
smoke=0 rounds=3 time_s=2 doc=1 models="" int8=1
# the models that get an int8 row (issue 14)
INT8_MODELS="resnet18 mobilenet_v2 mobilenet_v3_small squeezenet1_1 mlp kws_cnn transformer_layer"

while [ $# -gt 0 ]; do
	case $1 in
	--smoke) smoke=1 ;;
	--models) models=${2//,/ }; shift ;;
	--rounds) rounds=$2; shift ;;
	--time-s) time_s=$2; shift ;;
	--no-doc) doc=0 ;;
	--no-int8) int8=0 ;;
	-h|--help) sed -n '2,11p' "$0"; exit 0 ;;
	*) echo "bench: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift
done

die() { echo "bench: $*" >&2; exit 1; }

# --- tools -------------------------------------------------------------------------
command -v node >/dev/null || die "node (>= 18) is needed for onnxruntime-node"
[ -x "$py" ] || die "$py not found (python3-torch, python3-torchvision, python3-onnx, python3-numpy)"
if ! [ -x /usr/bin/time ]; then
	if [ "$(id -u)" = 0 ]; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >/dev/null || die "cannot install 'time'"
	else
		die "/usr/bin/time is missing: sudo apt-get install time"
	fi
fi
if ! [ -x "$ingot" ]; then
	[ -f "$build/build.ninja" ] || meson setup "$build" "$root"
	meson compile -C "$build"
fi
if [ $doc = 1 ] && [ $smoke = 0 ]; then   # docs/performance.md names a commit that reproduces it
	prov=$("$root/tools/provenance.sh" docs/performance.md) || die "refusing to write docs/performance.md (--no-doc measures anyway)"
fi
"$root/tools/install-ort.sh" || die "cannot install onnxruntime-node into bench/.ort"
ORT_VERSION=$(node -p "require('$ort_dir/node_modules/onnxruntime-node/package.json').version")

# --- models ------------------------------------------------------------------------
mkdir -p "$work/models" "$work/exe"
# shellcheck disable=SC2086
"$py" "$root/bench/make_models.py" "$work/models" $models
[ -n "$models" ] || models=$("$py" -c "
import sys; sys.path.insert(0, '$root/bench'); import make_models; print(' '.join(make_models.ALL))")

# --- int8 rows: each of these models also as NAME_int8, quantized by ingot (--quantize
# int8, calibrated on 32 generated inputs; --reduce-range without VNNI), the QDQ model it writes (--emit-qdq) being
# what ONNX Runtime runs and what ingot compiles for the row
# On an x86 CPU without VNNI, 7-bit weights (--reduce-range, ORT's reduce_range): ORT's
# u8 x s8 kernels there (vpmaddubsw) saturate int16 pair sums with full-range weights
reduce_range=
if [ "$(uname -m)" = x86_64 ] && ! grep -qw -e avx512_vnni -e avx_vnni /proc/cpuinfo; then
	reduce_range=--reduce-range
fi
if [ $int8 = 1 ]; then
	for m in $models; do
		case " $INT8_MODELS " in *" $m "*) ;; *) continue ;; esac
		q=$work/models/${m}_int8
		if ! [ -f "$q/model.onnx" ] || [ "$work/models/$m/model.onnx" -nt "$q/model.onnx" ] ||
			[ "$ingot" -nt "$q/model.onnx" ]; then
			rm -rf "$q" "$work/calib/$m" && mkdir -p "$q" "$work/calib/$m"
			"$py" - "$work/models/$m" "$work/calib/$m" <<-'PY'
			import glob, os, sys
			import numpy as np
			src, dst = sys.argv[1], sys.argv[2]
			rng = np.random.default_rng(32)
			for i in range(32):
			    d = os.path.join(dst, "test_data_set_%d" % i)
			    os.makedirs(d)
			    for f in sorted(glob.glob(os.path.join(src, "input_*.npy"))):
			        a = np.load(f)
			        v = rng.standard_normal(a.shape).astype(a.dtype) if a.dtype.kind == "f" else a
			        np.save(os.path.join(d, os.path.basename(f)), v)
			PY
			# shellcheck disable=SC2086
			"$ingot" compile "$work/models/$m/model.onnx" --quantize int8 --calibrate "$work/calib/$m" \
				$reduce_range --emit-qdq "$q/model.onnx" -o "$work/calib/$m-build" 2>"$work/calib/$m.report" ||
				die "ingot --quantize int8 $m failed: $(tail -3 "$work/calib/$m.report")"
			cp "$work/models/$m"/input_*.npy "$q/"
		fi
		models="$models ${m}_int8"
	done
fi

macs_of() { "$ingot" inspect "$work/models/$1/model.onnx" --json | sed -n 's/.*"macs": *\([0-9]*\).*/\1/p'; }

for m in $models; do
	src=$work/models/$m/model.onnx exe=$work/exe/$m/$m
	# recompile when the model or ingot is newer than the executable
	if ! [ -x "$exe" ] || [ "$src" -nt "$exe" ] || [ "$ingot" -nt "$exe" ]; then
		rm -rf "$work/exe/$m"
		"$ingot" compile "$src" --emit exe --target host --name "$m" -o "$work/exe/$m" >&2 ||
			die "ingot compile $m failed"
	fi
done

inputs() { for f in "$work/models/$1"/input_*.npy; do printf -- '--input %s ' "$f"; done; }
field() { sed -n "s/^\(.* \)\{0,1\}$1=\([^ ]*\).*/\2/p" | tail -1; }

# --- smoke: once through both runtimes, outputs compared ---------------------------
if [ $smoke = 1 ]; then
	fail=0
	for m in $models; do
		d=$work/smoke/$m
		rm -rf "$d" && mkdir -p "$d/ingot" "$d/ort"
		# shellcheck disable=SC2046
		if ! "$work/exe/$m/$m" $(inputs "$m") --output-dir "$d/ingot" >/dev/null 2>"$d/ingot.err"; then
			echo "FAIL $m: ingot run: $(tail -1 "$d/ingot.err")"; fail=1; continue
		fi
		# shellcheck disable=SC2046
		if ! node "$root/bench/ort_bench.mjs" "$work/models/$m/model.onnx" $(inputs "$m") --once \
			--output-dir "$d/ort" --ort-dir "$ort_dir" >/dev/null 2>"$d/ort.err"; then
			echo "FAIL $m: ort run: $(tail -1 "$d/ort.err")"; fail=1; continue
		fi
		# the two runtimes must agree on a model with random weights (loosely: different
		# summation orders), which shows both read the same inputs
		"$py" - "$d" "$m" <<-'EOF' || fail=1
		import glob, os, sys
		import numpy as np
		d, m = sys.argv[1], sys.argv[2]
		outs = sorted(glob.glob(os.path.join(d, "ort", "output_*.npy")))
		worst = 0.0
		for o in outs:
		    a = np.load(o)
		    b = np.load(os.path.join(d, "ingot", os.path.basename(o)))
		    if a.shape != b.shape:
		        sys.exit(print("FAIL %s: shape ort %s ingot %s" % (m, a.shape, b.shape)) or 1)
		    err = float(np.max(np.abs(a - b) / (1e-3 + np.abs(a)))) if a.size else 0.0
		    worst = max(worst, err)
		ok = outs and worst < 1e-2
		if m.endswith("_int8"):
		    # int8 outputs are dequantized steps: ORT runs some QDQ groups in float, so
		    # the two may round to neighbouring steps; no further
		    worst = 0.0
		    for o in outs:
		        a = np.load(o).ravel()
		        b = np.load(os.path.join(d, "ingot", os.path.basename(o))).ravel()
		        u = np.unique(b)
		        step = float(np.min(np.diff(u))) if u.size > 1 else 0.0
		        worst = max(worst, float(np.max(np.abs(a - b))) / step if step else 0.0)
		    ok = outs and worst <= 1.001
		    print("%s %s: %d output(s), max diff %.2f output steps" % ("PASS" if ok else "FAIL", m, len(outs), worst))
		    sys.exit(0 if ok else 1)
		print("%s %s: %d output(s), max rel diff %.2g" % ("PASS" if ok else "FAIL", m, len(outs), worst))
		sys.exit(0 if ok else 1)
		EOF
	done
	# the timing paths and what run.sh parses from them, on the smallest model (or the
	# first of --models when lenet5 is not among them)
	m=lenet5
	case " $models " in *" lenet5 "*) ;; *) m=${models%% *} ;; esac
	# shellcheck disable=SC2046
	line=$("$work/exe/$m/$m" --bench 1 $(inputs $m) | tail -1)
	[ -n "$(echo "$line" | field median_us)" ] || { echo "FAIL ingot --bench output: $line"; fail=1; }
	# shellcheck disable=SC2046
	line=$(node "$root/bench/ort_bench.mjs" "$work/models/$m/model.onnx" $(inputs $m) --warmup 1 \
		--runs 1 --ort-dir "$ort_dir" | tail -1)
	[ -n "$(echo "$line" | field median_us)" ] || { echo "FAIL ort_bench timing output: $line"; fail=1; }
	[ $fail = 0 ] && echo "bench smoke: ok" || echo "bench smoke: FAILED"
	exit $fail
fi

# --- timing ------------------------------------------------------------------------
results=$work/results.tsv
printf 'model\tmacs\truntime\tthreads\tround\truns\tmedian_us\tp10_us\tp90_us\tsync_median_us\tsync_p10_us\tmaxrss_kb\tbudget_kb\n' >"$results"
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
t_start=$(date +%s)

# does the runner use a second thread? (it says so when it does not; asked of a small model)
first=${models%% *}
probe=$first
case " $models " in *" lenet5 "*) probe=lenet5 ;; esac
ingot_threads="1"
# shellcheck disable=SC2046
if ! "$work/exe/$probe/$probe" --bench 1 --threads 2 $(inputs "$probe") 2>&1 >/dev/null |
	grep -q "one thread"; then
	ingot_threads="1 2"
fi

# how busy the machine was, in words, from the 1-minute load averages at both ends
load_words() {
	awk -v a="${1%% *}" -v b="${2%% *}" -v n="$3" 'BEGIN {
		m = (a > b ? a : b) / n
		print m < 0.25 ? "quiet: little else ran" : m < 1 ? "shared: other work ran beside it, so the figures carry noise" : "loaded: more runnable work than CPUs, so the figures carry much noise" }'
}
clamp() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { v = int(v); print (v < lo ? lo : v > hi ? hi : v) }'; }

# the RSS budget: the emitted weights blob + the workspace + the graph's inputs and
# outputs (the runner's buffers, which the issue's "weights + workspace + 4 MB" leaves
# out: GEMM 1024's alone are 8 MB) + 4 MB, from the header and the model
io_kb() {
	"$py" - "$work/models/$1/model.onnx" <<'PY'
import sys
import numpy as np
import onnx
g = onnx.load(sys.argv[1], load_external_data=False).graph
init = {t.name for t in g.initializer}
n = 0
for v in list(g.input) + list(g.output):
    if v.name in init:
        continue
    t = v.type.tensor_type
    n += int(np.prod([d.dim_value for d in t.shape.dim])) * onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[t.elem_type].itemsize
print(n // 1024)
PY
}
budget_kb() {
	awk -v io="$(io_kb "$1")" '$1 == "#define" && $2 ~ /_WEIGHTS_SIZE$/ { w = $3 } $1 == "#define" && $2 ~ /_WORKSPACE_SIZE$/ { s = $3 } END { printf "%d", (w + s) / 1024 + io + 4096 }' \
		"$work/exe/$1/$1.h"
}

for m in $models; do
	macs=$(macs_of "$m")
	[ -n "$macs" ] || macs=0
	budget=$(budget_kb "$m")
	# first round: runs guessed at 2 GFLOP/s (the reference kernels' order of magnitude),
	# then from the measured median: about time_s seconds of timed runs per process
	if [ "$macs" -gt 0 ]; then
		n=$(clamp "$(awk -v s="$time_s" -v m="$macs" 'BEGIN { print s * 2e9 / (2 * m) }')" 5 2000)
	else
		n=20
	fi
	for r in $(seq 1 "$rounds"); do
		for t in $ingot_threads; do
			# shellcheck disable=SC2046
			out=$(/usr/bin/time -v "$work/exe/$m/$m" --bench "$n" --threads "$t" $(inputs "$m") 2>&1) ||
				die "ingot $m failed: $(echo "$out" | tail -3)"
			med=$(echo "$out" | field median_us)
			rss=$(echo "$out" | sed -n 's/.*Maximum resident set size (kbytes): *\([0-9]*\).*/\1/p')
			printf '%s\t%s\tingot\t%s\t%s\t%s\t%s\t%s\t%s\tna\tna\t%s\t%s\n' "$m" "$macs" "$t" "$r" "$n" "$med" \
				"$(echo "$out" | field p10_us)" "$(echo "$out" | field p90_us)" "$rss" "$budget" >>"$results"
			[ "$t" = 1 ] && n1=$(clamp "$(awk -v s="$time_s" -v u="$med" 'BEGIN { print s * 1e6 / u }')" 5 2000)
		done
		for t in 1 2; do
			# shellcheck disable=SC2046
			out=$(node "$root/bench/ort_bench.mjs" "$work/models/$m/model.onnx" $(inputs "$m") \
				--threads "$t" --time-ms "$(awk -v s="$time_s" 'BEGIN { printf "%d", s * 750 }')" --ort-dir "$ort_dir" 2>&1) ||
				die "ort $m failed: $(echo "$out" | tail -3)"
			printf '%s\t%s\tort\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\tna\n' "$m" "$macs" "$t" "$r" \
				"$(echo "$out" | field runs)" "$(echo "$out" | field median_us)" \
				"$(echo "$out" | field p10_us)" "$(echo "$out" | field p90_us)" \
				"$(echo "$out" | field sync_median_us)" "$(echo "$out" | field sync_p10_us)" \
				"$(echo "$out" | field maxrss_kb)" >>"$results"
		done
		n=$n1
	done
	echo "bench: $m done ($(($(date +%s) - t_start)) s)" >&2
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

# --- report ------------------------------------------------------------------------
machine=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
cpus=$(nproc)
cache=$(lscpu | sed -n 's/^L2 cache: *//p' | head -1)
for idx in /sys/devices/system/cpu/cpu0/cache/index*; do   # lscpu may not know it
	[ -z "$cache" ] && [ "$(cat "$idx/level" 2>/dev/null)" = 2 ] && cache="$(cat "$idx/size") per core"
done
cache=${cache:-not reported (neither lscpu nor sysfs)}
simd=$(grep -o -w -E 'avx512f|avx2|fma|neon|asimd' /proc/cpuinfo | sort -u | paste -sd' ')
cflags=$(sed -n 's/^CFLAGS ?= *//p' "$work/exe/$first/Makefile" | head -1)
case " $cflags " in   # what --target host chose on this CPU (codegen/target.c), from its flags
*" -mavx512f "*) host_target=x86-avx512 ;;
*" -mavx2 "*) host_target=x86-avx2 ;;
*) host_target="c or neon (no x86 SIMD flags)" ;;
esac
# the single-thread FMA peak at the host target's flags (bench/fma_peak.c): the GFLOP/s
# columns' "% of peak"
peak=''
# shellcheck disable=SC2086  # cflags is a list of flags
if cc -O2 -std=c99 $cflags -ffp-contract=fast "$root/bench/fma_peak.c" -o "$work/fma_peak" 2>/dev/null; then
	read -r peak lanes chains secs < <("$work/fma_peak")
	peak_words="$peak GFLOP/s single-thread fp32 FMA peak (bench/fma_peak.c: $secs s runs of $chains chains of $lanes-lane FMAs, fastest of 200)"
else
	peak_words="not measured (bench/fma_peak.c did not build with \\`$cflags\\`)"
fi
echo "bench: $simd; FMA peak: $peak_words" >&2
node_rss=$(node -e "console.log(process.resourceUsage().maxRSS)")
ort_rss=$(node -e "const r=require('module').createRequire('$ort_dir/package.json');r('onnxruntime-node');r('onnxruntime-node/dist/binding.js').initOrt();console.log(process.resourceUsage().maxRSS)")
sync_ok=$(awk -F'\t' '$3 == "ort" && $10 != "na" && $10 != "" { ok = 1 } END { print ok ? 1 : 0 }' "$results")

table=$("$py" "$root/bench/report.py" "$results" $peak)
echo "$table"

if [ $doc = 1 ]; then
	cat >"$root/docs/performance.md" <<EOF
# Performance: ingot against ONNX Runtime

Measured by \`bench/run.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC'); regenerate with
\`bench/run.sh\` (about 10-15 minutes), check the harness with \`bench/run.sh --smoke\`.

- Measured at $prov, $(uname -sr); L2 $cache; $simd.
  FMA peak: $peak_words.
  Load average $load_start at the start and $load_end at the end on $cpus CPUs
  ($(load_words "$load_start" "$load_end" "$cpus")); medians of $rounds alternating rounds.
- ingot: \`ingot compile M.onnx --emit exe --target host\` (-O2 pipeline), built with
  $(cc --version | head -1) and \`$cflags\`. The host target is $host_target here$( [ "${host_target#x86}" != "$host_target" ] || echo " (what follows is the x86 targets' and does not apply)" ):
  Conv/Gemm/MatMul run on the generated microkernels (\`kernels/x86/ukernel.h\`) with
  weights pre-packed at compile time, 3x3 stride-1 Conv as Winograd F(2x2, 3x3)
  (its transformed weights are 16/9 the size: ResNet-18's blob grows from 47 to 75 MB,
  which the RSS column shows), pooling, activations (exp, sigmoid, tanh, erf, Gelu),
  Add/Sub/Mul/Div, Softmax, LayerNormalization and LSTM/GRU/RNN on x86 kernels, chains
  of elementwise ops as generated vector loops; data movement runs the portable
  reference kernels.
- ONNX Runtime: onnxruntime-node $ORT_VERSION (CPU execution provider, its bundled
  library), Node $(node --version), \`graphOptimizationLevel: 'all'\`, sequential execution,
  \`intraOpNumThreads\` 1 or 2.
- Models: \`bench/make_models.py\` (random weights, fixed seed, opset 13, static shapes;
  torch $("$py" -c 'import torch; print(torch.__version__)'), torchvision $("$py" -c 'import torchvision; print(torchvision.__version__)')). Both runtimes read the same input
  \`.npy\` files.

$table

How to read it:
- Times are medians (of each round's median over its runs; ~${time_s} s of timed runs per
  process after 10 warm-ups). ingot: the generated executable's \`--bench N\`, i.e. the
  \`NAME_run_v\` call alone. ORT $( [ "$sync_ok" = 1 ] && echo "sync: the binding's synchronous \`run\` (the native call the async API wraps in \`setImmediate\`, reached through the package's internal \`dist/binding.js\`); ORT async: \`await session.run()\`, which adds the promise and event-loop overhead" || echo "figures are \`await session.run()\` only: this binding offers no synchronous path" ).
- ingot/ORT = ingot 1-thread median / ORT 1-thread async median (\`await session.run()\`;
  above 1: ingot is slower)$( [ "$sync_ok" = 1 ] && echo "; ingot/ORT sync divides by ORT's synchronous median instead, the stricter ratio" ); the
  last row is their geometric mean. GFLOP/s = 2 x MACs / median; % of peak divides it by
  the FMA peak above.
- MACs come from \`ingot inspect --json\` (by formula for Conv/Gemm/MatMul/RNNs); a dash
  means inspect reported 0.
- ORT 2T uses a second intra-op thread; on a small machine shared with other jobs that
  thread often finds no free CPU (and ORT's pool spins while it waits), so where ORT 2T
  is slower than 1T, that is the load, not ORT.
- ingot runs on one thread: its runner accepts \`--threads\` but $( [ "$ingot_threads" = 1 ] && echo "is single-threaded today, so no 2-thread ingot figure is given" || echo "now runs on 2 threads as well (2T column)" ).
- Peak RSS is the whole process: ingot's \`/usr/bin/time -v\` maximum resident set (the
  executable with its weights, workspace and I/O buffers); the budget column is
  weights + workspace + the graph's inputs and outputs + 4 MB (the issue's budget
  without the I/O buffers cannot hold where they alone pass 4 MB: GEMM 1024's A and
  C are 8 MB, the depthwise conv's 3.2 MB); ORT's
  \`process.resourceUsage().maxRSS\` of the Node process with one session, measured before
  the synchronous session is created. Node alone peaks at $((node_rss / 1024)) MB, Node with
  onnxruntime-node loaded and no session at $((ort_rss / 1024)) MB.
EOF
	echo "bench: wrote docs/performance.md" >&2
fi
echo "bench: $(($(date +%s) - t_start)) s" >&2
