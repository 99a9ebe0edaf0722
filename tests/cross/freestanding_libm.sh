#!/usr/bin/env bash
# The `--emit c` output needs no C library beyond the libm functions (and memcmp /
# memcpy / memset) that docs/arm.md lists between its `libm:begin` and `libm:end` markers.
# Compiles every reference kernel family (all a model directory can hold) and a whole
# emitted model for a Cortex-M4 with -ffreestanding at -O0, -Os and -O2, and checks
# the objects' undefined symbols, compiler-runtime helpers (__aeabi_*, __*) aside:
# each must be in the documented set, and each documented name must be referenced
# (the list stays derived from the kernels, not padded).
#   tests/cross/freestanding_libm.sh INGOT WORKDIR SRCROOT
set -euo pipefail
ingot=$1 work=$2 src=$3
doc=$src/docs/arm.md
mkdir -p "$work"
rm -rf "${work:?}/obj" "$work/digits"
mkdir -p "$work/obj"

documented=$(sed -n '/<!-- libm:begin -->/,/<!-- libm:end -->/p' "$doc" | grep -v '<!--' |
	tr -c 'a-z0-9_\n' '\n' | grep -E '^[a-z][a-z0-9_]*$' | sort -u)
[ -n "$documented" ] || { echo "freestanding: no libm list between the markers in $doc"; exit 1; }

/usr/bin/python3 "$src/examples/cortex-m/make_model.py" "$work/digits.onnx"
"$ingot" compile "$work/digits.onnx" --name digits -o "$work/digits" --emit c --weights c
cflags=(-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -std=c99 -ffreestanding
	-Wall -Wextra -Werror)
for opt in -O0 -Os -O2; do
	for f in "$src"/runtime-stubs/kernels/*.c; do
		arm-none-eabi-gcc "${cflags[@]}" "$opt" -I"$src/runtime-stubs" -I"$src/runtime-stubs/kernels" \
			-c "$f" -o "$work/obj/$(basename "$f" .c)$opt.o"
	done
	for f in digits.c digits_weights.c; do
		arm-none-eabi-gcc "${cflags[@]}" "$opt" -I"$work/digits" -c "$work/digits/$f" \
			-o "$work/obj/${f%.c}$opt.o"
	done
done
# undefined in some object and defined in none (the model's weights are its own)
defined=$(arm-none-eabi-nm --defined-only "$work"/obj/*.o | awk 'NF == 3 { print $3 }' | sort -u)
used=$(arm-none-eabi-nm -u "$work"/obj/*.o | awk 'NF == 2 { print $2 }' | grep -v '^__' | sort -u |
	comm -23 - <(echo "$defined"))

rc=0
extra=$(comm -23 <(echo "$used") <(echo "$documented"))
stale=$(comm -13 <(echo "$used") <(echo "$documented"))
if [ -n "$extra" ]; then
	echo "freestanding: the emitted code references functions docs/arm.md does not list:" $extra
	rc=1
fi
if [ -n "$stale" ]; then
	echo "freestanding: docs/arm.md lists functions no kernel references:" $stale
	rc=1
fi
echo "freestanding: $(echo "$used" | wc -l) library functions referenced, all documented: $([ $rc = 0 ] && echo yes || echo no)"
exit $rc
