#!/usr/bin/env bash
# Suite llvm: ONNX node tests through --backend llvm for one target, checked by
# `ingot check` against the same expected outputs (and tolerances) as the C path.
#   tests/llvm/conformance.sh INGOT DATA_DIR TARGET [LIST]
# LIST: the tests (default list.txt beside this script). An x86 target whose
# instructions this CPU lacks is skipped (exit 77); neon and neon32 run under their
# emulator (the target's default --runner, qemu-user), skipped without it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ingot=$1 data=$2 target=$3 list=${4:-$here/list.txt}
case $target in
neon) command -v qemu-aarch64 > /dev/null && command -v aarch64-linux-gnu-gcc > /dev/null || exit 77 ;;
neon32) command -v qemu-arm > /dev/null && command -v arm-linux-gnueabihf-gcc > /dev/null || exit 77 ;;
*) /usr/bin/python3 "$here/../unit/x86/cpu.py" "$target" || exit 77 ;;
esac
/usr/bin/python3 "$here/../conformance/generate.py" "$data" > /dev/null
dirs=()
while read -r t; do [ -n "$t" ] && dirs+=("$data/node/$t"); done < "$list"
"$ingot" check --backend llvm --target "$target" "${dirs[@]}" -j 2 --timeout 120
