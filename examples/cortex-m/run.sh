#!/usr/bin/env bash
# Compiles the digits model for a Cortex-M4 (arm-none-eabi-gcc, hard float, weights
# in the .rodata.model section of flash), links it with a bare-metal main, runs it
# under qemu-system-arm (MPS2 AN386 board, semihosting) and checks the outputs
# against numpy. Prints flash (code + weights) and RAM (workspace + stack) sizes.
#   examples/cortex-m/run.sh [INGOT] [WORKDIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ingot=${1:-$here/../../build/compiler/driver/ingot}
work=${2:-$here/../../build/examples/cortex-m}
mkdir -p "$work"
/usr/bin/python3 "$here/make_model.py" "$work/digits.onnx"
ref=$(/usr/bin/python3 "$here/make_model.py" --reference)
echo "static const float expected_probs[10] = { $(echo "$ref" | sed 's/\([0-9.e-]*\)/\1f/g; s/f /f, /g') };" \
	> "$work/expected.h"
"$ingot" compile "$work/digits.onnx" --name digits -o "$work/digits" --emit c --weights c \
	--weights-section .rodata.model
CFLAGS=(-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -O2 -std=c99 -ffreestanding
	-Wall -Wextra -Wdouble-promotion -Werror -ffunction-sections -fdata-sections)
arm-none-eabi-gcc "${CFLAGS[@]}" -I"$work/digits" -I"$work" -nostartfiles -T "$here/mps2.ld" \
	-Wl,--gc-sections --specs=nano.specs \
	"$here/startup.c" "$here/main.c" "$work/digits/digits.c" "$work/digits/digits_weights.c" \
	-lm -lc -lnosys -o "$work/digits.elf"
arm-none-eabi-size -A "$work/digits.elf" | awk '
	/^\.text/ || /^\.model/ || /^\.rodata/ || /^\.ARM/ { flash += $2 }
	/^\.data/ { flash += $2; ram += $2 }
	/^\.bss/ { ram += $2 }
	END { printf "cortex-m: flash %d bytes (code + weights), RAM %d bytes (workspace + data)\n", flash, ram }'
weights=$(grep -o 'DIGITS_WEIGHTS_SIZE [0-9]*' "$work/digits/digits.h" | cut -d' ' -f2)
workspace=$(grep -o 'DIGITS_WORKSPACE_SIZE [0-9]*' "$work/digits/digits.h" | cut -d' ' -f2)
echo "cortex-m: weights $weights bytes in .rodata.model, workspace $workspace bytes"
model=$(arm-none-eabi-size -A "$work/digits.elf" | awk '/^\.model/ { print $2 }')
[ "${model:-0}" -ge "$weights" ] || { echo "cortex-m: the weights are not in .rodata.model"; exit 1; }
timeout 60 qemu-system-arm -M mps2-an386 -nographic -semihosting-config enable=on,target=native \
	-kernel "$work/digits.elf" 2>&1 | tee "$work/qemu.out"   # semihosting writes to stderr
grep -q "outputs match numpy" "$work/qemu.out"
