#!/usr/bin/env bash
# Suite llvm: the conformance gate of --backend llvm. One passing ONNX node test per op
# type (tests/cross/list.txt, the C path's per-op list, a subset of must_pass.txt) must
# PASS with `ingot check --backend llvm --target host` (one process for all of them),
# against the C path's expected outputs and tolerances. The tests of not_yet.txt (ops
# the backend refuses with one line: control flow) must be reported UNSUPPORTED
# instead, so the list shrinks as soon as one passes.
#   tests/llvm/gate.sh INGOT DATA_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ingot=$1 data=$2
/usr/bin/python3 "$here/../conformance/generate.py" "$data" > /dev/null
declare -A not_yet
n_not_yet=0
while read -r t _; do
	[ -n "$t" ] && [ "${t:0:1}" != "#" ] && not_yet[$t]=1 && n_not_yet=$((n_not_yet + 1))
done < "$here/not_yet.txt"
dirs=()
while read -r t; do [ -n "$t" ] && dirs+=("$data/node/$t"); done < "$here/../cross/list.txt"
out=$("$ingot" check --backend llvm --target host "${dirs[@]}" -j 2 --timeout 120) || true
bad=0 passed=0
for d in "${dirs[@]}"; do
	t=${d##*/}
	line=$(echo "$out" | grep -E "^[A-Z]+ $d(:|$)" | head -1)
	if [ -n "${not_yet[$t]:-}" ]; then
		[[ $line == UNSUPPORTED* ]] || { echo "not_yet.txt names $t, but: ${line:-no result}"; bad=1; }
	elif [[ $line == PASS* ]]; then
		passed=$((passed + 1))
	else
		echo "${line:-no result for $t}"
		bad=1
	fi
done
echo "llvm gate: $passed of ${#dirs[@]} per-op tests pass, $n_not_yet refused (not_yet.txt)"
exit $bad
