#!/usr/bin/env bash
# opencl_nodes: one ONNX node test per kind of OpenCL kernel (nodes.txt) under
# `ingot check --target opencl --placement device` on the first OpenCL device (PoCL's
# CPU device in CI): every node that has a kernel runs there, and each test must PASS
# (ONNX's expected outputs, check's tolerance); the dumped IR must show the node on the
# device. A line may name inputs after the test, NAME=K: the shape inputs (Slice's
# starts, Pad's pads...) that ingot check binds to their values (input_K.pb of the
# first data set), which the placement check binds too.
# Exit 77 (skipped) only when no OpenCL platform exists.
#   tests/opencl/check_nodes.sh INGOT DATA_DIR LIST WORKDIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ingot=$1 data=$2 list=$3 work=$4
rm -rf "$work"
mkdir -p "$work"
if ! /usr/bin/python3 "$here/has_platform.py"; then
	echo "SKIP: no OpenCL platform (install pocl-opencl-icd)"
	exit 77
fi
/usr/bin/python3 "$here/../conformance/generate.py" "$data"
dirs=()
while read -r t binds; do
	[ -z "$t" ] && continue
	d="$data/node/$t"
	bind=()
	for b in $binds; do
		bind+=(--bind "${b%%=*}=$d/test_data_set_0/input_${b#*=}.pb")
	done
	# the op runs on the device, not on the CPU fallback
	"$ingot" compile "$d/model.onnx" --target opencl --placement device -o "$work/$t" "${bind[@]}" --dump-ir - |
		grep -q ' on(device)' || { echo "FAIL $t: nothing placed on the device"; exit 1; }
	dirs+=("$d")
done < "$list"
out=$("$ingot" check "${dirs[@]}" --target opencl --placement device -j 2 --timeout 120) || true
echo "$out"
echo "$out" | grep -qx "${#dirs[@]} passed, 0 failed, 0 unsupported, 0 errors"
