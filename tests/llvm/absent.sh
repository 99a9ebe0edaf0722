#!/usr/bin/env bash
# A build without LLVM (the default): `ingot compile --backend llvm` fails with one line
# that says how to get the backend (-Dllvm=enabled, the Debian package), and no output.
#   tests/llvm/absent.sh INGOT WORK
set -u
ingot=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
printf 'not a model' > "$work/m.onnx"
"$ingot" compile "$work/m.onnx" --backend llvm -o "$work/out" > "$work/stdout" 2> "$work/stderr"
rc=$?
[ "$rc" -ne 0 ] || { echo "FAIL: exit 0"; exit 1; }
[ "$(wc -l < "$work/stderr")" -eq 1 ] || { echo "FAIL: not one line:"; cat "$work/stderr"; exit 1; }
grep -q -- '-Dllvm=enabled' "$work/stderr" && grep -q 'llvm-14-dev' "$work/stderr" ||
	{ echo "FAIL: no way to get it:"; cat "$work/stderr"; exit 1; }
[ ! -e "$work/out" ] || { echo "FAIL: wrote $work/out"; exit 1; }
echo "ok: $(cat "$work/stderr")"
