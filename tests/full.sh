#!/usr/bin/env bash
# Opt-in, not in CI (over an hour on 2 cores): the long forms of the gates that CI runs
# on subsets to stay within its 40 minutes.
#   - the whole must-pass list with --target x86-avx512 (-O3) and x86-avx2, natively
#     (CI's suite simd runs the 327 tests of the op families with x86 kernels);
#   - the whole must-pass list under ASan+UBSan at -O0, generated code built with the
#     sanitizers, when a sanitizer build is given (CI's step 3 runs tests/cross/list.txt),
#     and there the x86 kernel tests on both x86 targets (CI's on the widest);
#   - tests/cross/full.sh: the whole list and the exported models on neon and neon32
#     under qemu (CI's suite cross runs tests/cross/list.txt).
# Prints one line per part and exits 0 only if every part passed.
#   tests/full.sh [BUILD] [ASAN_BUILD]
# BUILD is a plain build (default build/), ASAN_BUILD one configured with
# -Db_sanitize=address,undefined (skipped when not given).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
asan=${2:-}
ingot=$build/compiler/driver/ingot
export INGOT_CHECK_CACHE=$build/check-cache
rc=0
summary=()
part() {   # NAME COMMAND...: runs one part, records its result and time
	local name=$1 start; shift
	start=$(date +%s)
	"$@"
	case $? in
	0) summary+=("PASS $name ($(($(date +%s) - start)) s)") ;;
	77) summary+=("SKIP $name: this CPU cannot run it") ;;
	*) summary+=("FAIL $name ($(($(date +%s) - start)) s)"); rc=1 ;;
	esac
}
list=$here/conformance/must_pass.txt
INGOT_CHECK_OPT=-O3 part "x86-avx512 -O3, whole list" \
	"$here/simd/check_x86.sh" "$ingot" "$build/onnx-tests" "$list" x86-avx512 full
part "x86-avx2, whole list" "$here/simd/check_x86.sh" "$ingot" "$build/onnx-tests" "$list" x86-avx2 full
if [ -n "$asan" ]; then
	asan=$(cd "$asan" && pwd)
	INGOT_CHECK_CACHE=$asan/check-cache INGOT_CHECK_OPT=-O0 \
	INGOT_CHECK_CFLAGS='-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer' \
	part "ASan+UBSan -O0, whole list" \
		"$here/conformance/must_pass.sh" "$asan/compiler/driver/ingot" "$asan/onnx-tests" "$list"
	for t in x86 x86_rnn; do
		INGOT_CHECK_CACHE=$asan/check-cache INGOT_TEST_X86_WIDEST=0 \
		INGOT_CHECK_CFLAGS='-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer' \
		part "ASan+UBSan ${t}_test.py, both x86 targets" /usr/bin/python3 "$here/unit/x86/${t}_test.py" \
			"$asan/compiler/driver/ingot" "$asan/full-$t"
	done
fi
part "neon and neon32 under qemu (tests/cross/full.sh)" "$here/cross/full.sh" "$ingot"
printf '%s\n' "${summary[@]}"
exit $rc
