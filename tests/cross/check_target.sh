#!/usr/bin/env bash
# Every conformance test that must pass with --target c must also pass when compiled
# for TARGET with its cross compiler and run under its emulator (qemu-user; the
# target's default --runner on an x86 host).
#   tests/cross/check_target.sh INGOT DATA_DIR LIST TARGET [JOBS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ingot=$1 data=$2 list=$3 target=$4 jobs=${5:-$(nproc)}
/usr/bin/python3 "$here/../conformance/generate.py" "$data"
dirs=()
while read -r t; do
	[ -n "$t" ] && dirs+=("$data/node/$t")
done < "$list"
errs=$(mktemp)
trap 'rm -f "$errs"' EXIT
out=$("$ingot" check --target "$target" "${dirs[@]}" -j "$jobs" --timeout 300 2>"$errs") || true
cat "$errs" >&2
echo "$out" | grep -v '^PASS ' || true
passed=$(echo "$out" | grep -c '^PASS ' || true)
echo "cross $target: $passed of ${#dirs[@]} tests pass under emulation"
# the kernels are prebuilt once for the whole run; a kernel file that does not build
# alone (a header not copied, a file that is not a translation unit) makes every test
# build its own, silently slower
if grep -q 'prebuilding kernels failed' "$errs"; then
	echo "cross $target: prebuilding the kernels failed"
	exit 1
fi
[ "$passed" -eq "${#dirs[@]}" ]
