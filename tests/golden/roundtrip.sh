#!/usr/bin/env bash
# print → parse → print is the identity: every ONNX node-test model that compiles
# without extra options is dumped (--dump-ir), read back by `ingot opt` and printed
# again; the two texts must be byte-identical.
#   tests/golden/roundtrip.sh INGOT DATA_DIR
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ingot=$1 data=$2
/usr/bin/python3 "$here/../conformance/generate.py" "$data" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
same=0 differ=0 skipped=0
for dir in "$data"/node/*/; do
	t=$(basename "$dir")
	if ! "$ingot" inspect "$dir/model.onnx" --dump-ir "$tmp/a.ir" >/dev/null 2>&1; then
		skipped=$((skipped + 1))   # does not compile standalone (needs --bind, or unsupported)
		continue
	fi
	if "$ingot" opt "$tmp/a.ir" --passes dce > "$tmp/b.ir" 2> "$tmp/err" && cmp -s "$tmp/a.ir" "$tmp/b.ir"; then
		same=$((same + 1))
	else
		differ=$((differ + 1))
		echo "DIFFERS $t: $(head -c 300 "$tmp/err")"
		diff "$tmp/a.ir" "$tmp/b.ir" | head -5
	fi
done
echo "roundtrip: $same identical, $differ differ, $skipped not compilable standalone"
[ "$differ" -eq 0 ] && [ "$same" -gt 300 ]
