#!/usr/bin/env bash
# print → parse → print is the identity: every ONNX node-test model is dumped
# (--dump-ir), read back by `ingot opt` and printed again; the two texts must be
# byte-identical. The models that do not compile without options are exactly those of
# roundtrip_skip.txt: one outside it that does not compile fails, and so does a listed
# one that now compiles (stale) or that the suite does not generate.
#   tests/golden/roundtrip.sh INGOT DATA_DIR
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ingot=$1 data=$2
/usr/bin/python3 "$here/../conformance/generate.py" "$data" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
grep -v '^#' "$here/roundtrip_skip.txt" | awk 'NF {print $1}' | sort > "$tmp/skip"
same=0 differ=0 skipped=0 bad=0
: > "$tmp/seen"
for dir in "$data"/node/*/; do
	t=$(basename "$dir")
	echo "$t" >> "$tmp/seen"
	listed=0
	grep -qxF "$t" "$tmp/skip" && listed=1
	if ! "$ingot" inspect "$dir/model.onnx" --dump-ir "$tmp/a.ir" >/dev/null 2> "$tmp/err"; then
		if [ "$listed" -eq 1 ]; then
			skipped=$((skipped + 1))
		else
			bad=$((bad + 1))
			echo "NOT COMPILABLE $t (not in roundtrip_skip.txt): $(head -c 300 "$tmp/err")"
		fi
		continue
	fi
	if [ "$listed" -eq 1 ]; then
		bad=$((bad + 1))
		echo "STALE $t: compiles now; remove it from roundtrip_skip.txt"
	fi
	if "$ingot" opt "$tmp/a.ir" --passes dce > "$tmp/b.ir" 2> "$tmp/err" && cmp -s "$tmp/a.ir" "$tmp/b.ir"; then
		same=$((same + 1))
	else
		differ=$((differ + 1))
		echo "DIFFERS $t: $(head -c 300 "$tmp/err")"
		diff "$tmp/a.ir" "$tmp/b.ir" | head -5
	fi
done
for t in $(sort "$tmp/seen" | comm -13 - "$tmp/skip"); do
	bad=$((bad + 1))
	echo "STALE $t: in roundtrip_skip.txt but not generated"
done
echo "roundtrip: $same identical, $differ differ, $skipped skipped as listed, $bad off the list"
[ "$differ" -eq 0 ] && [ "$bad" -eq 0 ] && [ "$same" -gt 0 ]
