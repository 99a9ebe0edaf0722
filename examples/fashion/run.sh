#!/usr/bin/env bash
# The first example: a CNN trained on Fashion-MNIST, compiled by ingot into a static
# library, classifying the 10,000 test images from C, on this machine and on aarch64.
#   examples/fashion/run.sh [INGOT] [WORKDIR] [CACHE] [host|neon|all]
# 1. train.py trains the net with torch (cached in CACHE: a second run skips it) and
#    exports it to CACHE/cnn.onnx, 2. ingot compiles it into libfashion.a, 3. app.c links
#    against it and classifies every test image, 4. its predictions must be torch's (at
#    most 2 of 10,000 may differ) and its accuracy above 80%.
# neon: the same for aarch64 (aarch64-linux-gnu-gcc), run under qemu-aarch64 on the first
# FASHION_QEMU_IMAGES (default 1000) test images; 10000 takes minutes under emulation.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ingot=${1:-$here/../../build/compiler/driver/ingot}
work=${2:-$here/../../build/examples/fashion}
cache=${3:-$here/../../build/fashion-cache}
what=${4:-all}
qemu_images=${FASHION_QEMU_IMAGES:-1000}
case $what in host|neon|all) ;; *) echo "usage: run.sh [INGOT] [WORKDIR] [CACHE] [host|neon|all]" >&2; exit 2 ;; esac
mkdir -p "$work"

# 1. train (or find in the cache) and export: cache/cnn.onnx, cache/cnn.json (torch's figures)
/usr/bin/python3 "$here/train.py" "$cache" cnn
images=$cache/t10k-images-idx3-ubyte labels=$cache/t10k-labels-idx1-ubyte

# predictions FILE NAME: FILE's classes against torch's, on as many images as FILE has
compare() {
	/usr/bin/python3 - "$cache/cnn.json" "$1" "$2" <<'PY'
import json, sys
meta = json.load(open(sys.argv[1]))
got = open(sys.argv[2]).read().strip()
torch_pred = meta["torch_predictions"][:len(got)]
labels = open(sys.argv[2].rsplit("/", 1)[0] + "/labels.txt").read().strip()[:len(got)]
differ = sum(a != b for a, b in zip(got, torch_pred))
t = sum(a == b for a, b in zip(torch_pred, labels))
i = sum(a == b for a, b in zip(got, labels))
print("%s: ingot %.2f%%, torch %.2f%% on %d images; %d predictions differ"
      % (sys.argv[3], 100 * i / len(got), 100 * t / len(got), len(got), differ))
if len(got) == 0 or i < 0.80 * len(got):
    sys.exit("fashion example: %s: accuracy %d of %d is not that of a trained CNN"
             % (sys.argv[3], i, len(got)))
if differ > 2:
    sys.exit("fashion example: %s: %d of %d predictions differ from torch's"
             % (sys.argv[3], differ, len(got)))
PY
}
/usr/bin/python3 -c 'import sys; d = open(sys.argv[1], "rb").read()[8:]; print("".join(str(b) for b in d))' \
	"$labels" >"$work/labels.txt"

if [ "$what" != neon ]; then
	# 2. compile for this machine (--target host: the best x86 kernels the CPU has)
	"$ingot" compile "$cache/cnn.onnx" --name fashion -o "$work/host" --target host --emit lib
	# 3. link the app against the library
	cc -std=c99 -O2 -Wall -Wextra -Werror -I"$work/host" "$here/app.c" "$work/host/libfashion.a" \
		-lm -o "$work/app"
	# 4. classify the 10,000 test images, compare with torch
	"$work/app" "$images" "$labels" "$work/host.pred"
	compare "$work/host.pred" host
fi
if [ "$what" != host ]; then
	# the same library for a 64-bit ARM board (see examples/arm-board), run under qemu
	"$ingot" compile "$cache/cnn.onnx" --name fashion -o "$work/neon" --target neon \
		--cpu cortex-a72 --emit lib
	aarch64-linux-gnu-gcc -std=c99 -O2 -Wall -Wextra -Werror -I"$work/neon" "$here/app.c" \
		"$work/neon/libfashion.a" -lm -o "$work/app-aarch64"
	qemu-aarch64 -L /usr/aarch64-linux-gnu "$work/app-aarch64" "$images" "$labels" \
		"$work/neon.pred" "$qemu_images"
	compare "$work/neon.pred" "aarch64 (qemu)"
fi
