#!/bin/sh
# stubs_alone.sh CC SOURCE_ROOT: runtime-stubs/ compiles alone. Every .c under it builds
# with only runtime-stubs/ on the include path (nothing generated: the SIMD stubs
# without ukernel.h compile their interface), for the host as it is and with
# -DINGOT_NO_THREADS; the NEON stubs with aarch64-linux-gnu-gcc when installed
# (otherwise skipped, exit 77, once the rest passed). Not translation units of their
# own: ingot_tensor_npy.c (ingot_tensor_io.c includes it) and ingot_runner.c (the
# runner each generated NAME_main.c includes after defining RUNNER_*).
cc=$1 stubs=$2/runtime-stubs
flags="-std=c99 -Wall -Wextra -Werror -I$stubs -c -o /dev/null"
fail=0 n=0 skipped=0
build() {   # build COMPILER FILE EXTRA...
	c=$1 f=$2; shift 2
	n=$((n + 1))
	if ! "$c" $flags "$@" "$f"; then
		echo "FAILED: $c $* ${f#$stubs/}"
		fail=$((fail + 1))
	fi
}
cross=aarch64-linux-gnu-gcc
command -v "$cross" >/dev/null 2>&1 || cross=
for f in $(find "$stubs" -name '*.c' | sort); do
	case $f in
	*/ingot_tensor_npy.c|*/ingot_runner.c) ;;
	*/kernels/neon/*)
		if [ -n "$cross" ]; then
			build "$cross" "$f"
			build "$cross" "$f" -DINGOT_NO_THREADS
		else
			skipped=$((skipped + 1))
		fi ;;
	*/kernels/x86/*)
		build "$cc" "$f" -mavx2 -mfma
		build "$cc" "$f" -mavx2 -mfma -DINGOT_NO_THREADS ;;
	*)
		build "$cc" "$f"
		build "$cc" "$f" -DINGOT_NO_THREADS ;;
	esac
done
echo "$n builds, $fail failed, $skipped NEON files skipped"
[ "$fail" -eq 0 ] || exit 1
if [ "$skipped" -gt 0 ]; then
	echo "skipped: no aarch64-linux-gnu-gcc for the NEON stubs"
	exit 77
fi
exit 0
