#!/usr/bin/env bash
# Opt-in, not in CI (about 15 minutes of 2 cores per target): the whole conformance
# gate (tests/conformance/must_pass.txt) and every exported model (tests/models/) with
# --target neon (qemu-aarch64) and --target neon32 (qemu-arm); prints the lines that
# did not pass and a pass count per target and set. Exit 0 only if all passed.
#   tests/cross/full.sh [INGOT] [WORKDIR] [JOBS]
# WORKDIR holds the generated node tests (WORKDIR/onnx-tests) and the exported models
# (WORKDIR/models); both are regenerated only when stale.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ingot=${1:-$here/../../build/compiler/driver/ingot}
work=${2:-$here/../../build/cross-full}
jobs=${3:-$(nproc)}
mkdir -p "$work"
work=$(cd "$work" && pwd)   # check resolves data-set paths from the runner's directory
/usr/bin/python3 "$here/../conformance/generate.py" "$work/onnx-tests" || exit 1
PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 "$here/../models/export.py" "$work/models" || exit 1
tests=()
while read -r t; do
	[ -n "$t" ] && tests+=("$work/onnx-tests/node/$t")
done < "$here/../conformance/must_pass.txt"
models=("$work"/models/*_op*)
rc=0
summary=()
for target in neon neon32; do
	for set in conformance models; do
		if [ "$set" = conformance ]; then dirs=("${tests[@]}"); else dirs=("${models[@]}"); fi
		start=$(date +%s)
		out=$("$ingot" check --target "$target" "${dirs[@]}" -j "$jobs" --timeout 600)
		echo "$out" | grep -v '^PASS '
		passed=$(echo "$out" | grep -c '^PASS ')
		[ "$passed" -eq "${#dirs[@]}" ] || rc=1
		summary+=("cross $target $set: $passed of ${#dirs[@]} pass ($(($(date +%s) - start)) s)")
	done
done
printf '%s\n' "${summary[@]}"
exit $rc
