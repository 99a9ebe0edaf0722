#!/usr/bin/env bash
# Cross-compiles a model into a static library for a 64-bit ARM Linux board
# (Raspberry Pi 3/4/5 with a 64-bit OS, any Cortex-A53/A72/A76 board), links a tiny
# app against it, and runs the app here under qemu-user. On a real board, copy
# `app` over and run it there instead of the qemu line.
#   examples/arm-board/run.sh [INGOT] [WORKDIR] [TARGET]     TARGET: neon (default) or neon32
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ingot=${1:-$here/../../build/compiler/driver/ingot}
work=${2:-$here/../../build/examples/arm-board}
target=${3:-neon}
case $target in
neon)   cc=aarch64-linux-gnu-gcc;   qemu="qemu-aarch64 -L /usr/aarch64-linux-gnu"; cpu=cortex-a72 ;;
neon32) cc=arm-linux-gnueabihf-gcc; qemu="qemu-arm -L /usr/arm-linux-gnueabihf"; cpu=cortex-a7 ;;
*) echo "usage: run.sh [INGOT] [WORKDIR] [neon|neon32]" >&2; exit 2 ;;
esac
mkdir -p "$work"

# 1. the model (any .onnx works; this one is made by a script)
/usr/bin/python3 "$here/../cortex-m/make_model.py" "$work/digits.onnx"

# 2. compile it for the board: C + NEON build files, and libdigits.a built with the
#    target's cross compiler (--cc overrides it, --cpu picks the core's tuning)
"$ingot" compile "$work/digits.onnx" --name digits -o "$work/digits" --target "$target" --cpu "$cpu" \
	--emit lib

# 3. link your app against it (on the board: the same line with the native gcc)
"$cc" -O2 -std=c99 -Wall -Wextra -Werror -I"$work/digits" "$here/app.c" \
	"$work/digits/libdigits.a" -lm -o "$work/app"
file "$work/app" | grep -q -E 'ARM|aarch64' || { echo "app is not an ARM binary"; exit 1; }

# 4. run it (on the board: ./app)
$qemu "$work/app" | tee "$work/app.out"
ref=$(/usr/bin/python3 "$here/../cortex-m/make_model.py" --reference)
/usr/bin/python3 - "$work/app.out" "$ref" <<'PY'
import sys
got = [float(x) for x in open(sys.argv[1]).readline().split()]
ref = [float(x) for x in sys.argv[2].split()]
bad = [i for i, (a, b) in enumerate(zip(got, ref)) if abs(a - b) > 1e-5 + 1e-3 * abs(b)]
if len(got) != 10 or bad:
    sys.exit("arm-board example: output differs from numpy at classes %s" % bad)
print("arm-board example: matches numpy")
PY
