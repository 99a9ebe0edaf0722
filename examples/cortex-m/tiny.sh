#!/usr/bin/env bash
# The four MLPerf Tiny reference architectures (tiny_nets.py: DS-CNN keyword spotting,
# ResNet-8, MobileNetV1-0.25 visual wake words, FC autoencoder; random weights) in int8
# (QDQ, folded into integer kernels by ingot) and in fp32, each compiled for a Cortex-M4
# (hard float, weights in .rodata.model), run under qemu-system-arm (MPS2 AN386) and
# compared with the same model compiled for this machine (`--target c`): int8 outputs
# must match bit for bit, fp32 ones to 1e-5 relative. Prints a table of flash (the
# model's code, counted from the linker map, and its weights) and RAM (workspace and
# the stack the run used) per net, and fails if an int8 net's code is over 32 KB.
#   examples/cortex-m/tiny.sh [INGOT] [WORKDIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ingot=${1:-$here/../../build/compiler/driver/ingot}
work=${2:-$here/../../build/examples/cortex-m-tiny}
py=/usr/bin/python3
mkdir -p "$work"
"$py" "$here/tiny_nets.py" "$work" >/dev/null
CFLAGS=(-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -O2 -std=c99 -ffreestanding
	-Wall -Wextra -Wdouble-promotion -Werror -ffunction-sections -fdata-sections)
table=$work/table.txt
printf '%-8s %-5s %10s %10s %10s %10s\n' net type code weights workspace stack > "$table"
status=0
for net in kws resnet8 vww ae; do
	for prec in int8 fp32; do
		m=${net}_$prec
		d=$work/$m
		rm -rf "$d" "$d-host"
		"$ingot" compile "$work/$m.onnx" --name net -o "$d" --emit c --weights c \
			--weights-section .rodata.model >/dev/null
		"$ingot" compile "$work/$m.onnx" --name net -o "$d-host" --emit exe >/dev/null
		mkdir -p "$d-host/out"
		"$d-host/net" --input "$work/${net}_input.pb" --output-dir "$d-host/out" >/dev/null
		cp "$work/${net}_input.h" "$d/net_input.h"
		n_out=$("$py" -c "import onnx,numpy as n,sys; from onnx import numpy_helper as h; \
t=onnx.TensorProto(); t.ParseFromString(open(sys.argv[1],'rb').read()); \
print(h.to_array(t).size)" "$d-host/out/output_0.pb")
		for f in net net_weights; do
			arm-none-eabi-gcc "${CFLAGS[@]}" -I"$d" -c "$d/$f.c" -o "$d/$f.o"
		done
		arm-none-eabi-gcc "${CFLAGS[@]}" -DNET_OUT_SIZE="$n_out" -I"$d" -I"$here" -nostartfiles \
			-T "$here/mps2.ld" -Wl,--gc-sections -Wl,-Map="$d/map.txt" --specs=nano.specs \
			"$here/startup.c" "$here/tiny_main.c" "$d/net.o" "$d/net_weights.o" \
			-lm -lc -lnosys -o "$d/net.elf"
		timeout 300 qemu-system-arm -M mps2-an386 -nographic \
			-semihosting-config enable=on,target=native -kernel "$d/net.elf" \
			> "$d/qemu.out" 2>&1 || { echo "tiny: $m failed under qemu"; cat "$d/qemu.out"; exit 1; }
		"$py" - "$d" "$prec" "$net" "$prec" >> "$table" <<'PY' || status=1
import re, sys
import numpy as np
import onnx
from onnx import numpy_helper
d, prec, net = sys.argv[1], sys.argv[2], sys.argv[3]
q = open(f"{d}/qemu.out").read()
got = np.array([int(v, 16) for v in re.findall(r"^out ([0-9a-f]{8})$", q, re.M)],
               np.uint32).view(np.float32)
t = onnx.TensorProto()
t.ParseFromString(open(f"{d}-host/out/output_0.pb", "rb").read())
want = numpy_helper.to_array(t).ravel().astype(np.float32)
if got.size != want.size:
    sys.exit(f"tiny: {net} {prec}: {got.size} outputs under qemu, {want.size} on the host")
if prec == "int8":
    bad = np.flatnonzero(got.view(np.uint32) != want.view(np.uint32))
else:
    bad = np.flatnonzero(np.abs(got - want) > 1e-5 * np.abs(want) + 1e-6)
if bad.size:
    sys.exit(f"tiny: {net} {prec}: {bad.size} of {want.size} outputs differ from the host "
             f"(first {bad[0]}: {got[bad[0]]!r} vs {want[bad[0]]!r})")
# the model's code: .text and .rodata (not .rodata.model) input sections from net.o
code = 0
lines = open(f"{d}/map.txt").read().split("Linker script and memory map", 1)[1].splitlines()
sec = None
for ln in lines:
    m = re.match(r"^ (\.\S+)(?:\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S+))?$", ln)
    if m:
        sec = m.group(1)
        if m.group(4) is None:
            continue
        size, obj = int(m.group(3), 16), m.group(4)
    else:
        m = re.match(r"^\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S+\.o)$", ln)
        if not m or sec is None:
            continue
        size, obj = int(m.group(2), 16), m.group(3)
    if obj == f"{d}/net.o" and (sec.startswith(".text") or
                                (sec.startswith(".rodata") and sec != ".rodata.model")):
        code += size
hdr = open(f"{d}/net.h").read()
weights = int(re.search(r"NET_WEIGHTS_SIZE (\d+)", hdr).group(1))
ws = int(re.search(r"NET_WORKSPACE_SIZE (\d+)", hdr).group(1))
stack = int(re.search(r"^stack (\d+)$", q, re.M).group(1))
print(f"{net:<8} {prec:<5} {code:>10} {weights:>10} {ws:>10} {stack:>10}")
if prec == "int8" and code > 32 * 1024:
    sys.exit(f"tiny: {net} int8: {code} bytes of model code, over 32 KB")
PY
	done
done
cat "$table"
[ "$status" = 0 ] || { echo "tiny: a net failed (see above)"; exit 1; }
echo "tiny: 8 nets run under qemu-system-arm and match the host"
