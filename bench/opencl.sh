#!/usr/bin/env bash
# bench/run.sh --target opencl: per model of make_models.py, --target opencl on the first
# OpenCL device (PoCL's CPU device here) under --placement cpu, auto and device: the
# partitions and bytes copied per run (ingot inspect --json), the median run time
# (the runner's --bench, the device set up once), and the first start (NAME_cl_init)
# without and with the program binary cache (PoCL's own kernel cache off). Prints a
# markdown table; writes no file. A benchmark, not a test.
#
# usage: bench/run.sh --target opencl [--models a,b,..] [--runs N]
#   env: BUILD (default build/), WORK (default $BUILD/bench), PYTHON (/usr/bin/python3)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
work=${WORK:-$build/bench}
py=${PYTHON:-/usr/bin/python3}
ingot=$build/compiler/driver/ingot
models="lenet5 kws_cnn mlp" runs=20

while [ $# -gt 0 ]; do
	case $1 in
	--models) models=${2//,/ }; shift ;;
	--runs) runs=$2; shift ;;
	-h|--help) sed -n '2,10p' "$0"; exit 0 ;;
	*) echo "bench: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift
done
die() { echo "bench: $*" >&2; exit 1; }
[ -x "$ingot" ] || die "build ingot first (meson compile -C $build)"
mkdir -p "$work/models" "$work/opencl"
# shellcheck disable=SC2086
"$py" "$root/bench/make_models.py" "$work/models" $models >&2

inputs() { for f in "$work/models/$1"/input_*.npy; do printf -- '--input %s ' "$f"; done; }
field() { sed -n "s/^\(.* \)\{0,1\}$1=\([^ ]*\).*/\2/p" | tail -1; }
json() { "$py" -c "import json, sys; p = json.load(sys.stdin)['placement']; print(p['$1'])"; }

echo "| model | placement | device nodes | CPU nodes | partitions | bytes copied / run | est. us | median us | first init us (source) | first init us (cached binary) |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for m in $models; do
	src=$work/models/$m/model.onnx
	for pl in cpu auto device; do
		d=$work/opencl/$m-$pl
		rm -rf "$d"
		"$ingot" compile "$src" --target opencl --placement "$pl" --emit exe --name "$m" -o "$d" >&2 ||
			die "ingot compile $m --placement $pl failed"
		js=$("$ingot" inspect "$src" --target opencl --placement "$pl" --json)
		cache=$d/cl-cache
		mkdir -p "$cache"
		# shellcheck disable=SC2046
		src_us=$(POCL_KERNEL_CACHE=0 "$d/$m" --bench 1 --cl-cache "$cache" $(inputs "$m") 2>&1 >/dev/null | field cl_init_us)
		# shellcheck disable=SC2046
		out=$(POCL_KERNEL_CACHE=0 "$d/$m" --bench "$runs" --cl-cache "$cache" $(inputs "$m") 2>&1)
		bin_us=$(echo "$out" | field cl_init_us)
		med=$(echo "$out" | field median_us)
		printf '| %s | %s | %s | %s | %s | %s | %.0f | %s | %s | %s |\n' "$m" "$pl" \
			"$(echo "$js" | json device_nodes)" "$(echo "$js" | json cpu_nodes)" \
			"$(echo "$js" | json partitions)" "$(echo "$js" | json bytes_moved)" \
			"$(echo "$js" | json est_placed_us)" "$med" "$src_us" "$bin_us"
	done
done
echo
echo "OpenCL device: $(clinfo -l 2>/dev/null | sed -n 's/.*Device #0: //p' | head -1); load average $(cut -d' ' -f1-3 /proc/loadavg)"
