#!/usr/bin/env bash
# print → parse → print is the identity: every ONNX node-test model is dumped (as
# `ingot inspect --dump-ir` dumps it), read back (as `ingot opt --passes dce` reads it)
# and printed again; the two texts must be byte-identical. roundtrip_tool
# (roundtrip_tool.c) does all models in one process. The models that do not compile
# without options are exactly those of roundtrip_skip.txt: one outside it that does not
# compile fails, and so does a listed one that now compiles (stale) or that the suite
# does not generate.
#   tests/golden/roundtrip.sh ROUNDTRIP_TOOL DATA_DIR
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tool=$1 data=$2
/usr/bin/python3 "$here/../conformance/generate.py" "$data" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
grep -v '^#' "$here/roundtrip_skip.txt" | awk 'NF {print $1}' | sort > "$tmp/skip"
declare -A skip
while read -r t; do skip[$t]=1; done < "$tmp/skip"
for dir in "$data"/node/*/; do
	dir=${dir%/}
	echo "${dir##*/}"
done > "$tmp/seen"
"$tool" "$tmp" "$data"/node/*/model.onnx > "$tmp/out"
rc=$?
same=0 differ=0 skipped=0 bad=0
while read -r kind t rest; do
	t=${t%:}
	listed=${skip[$t]:-0}
	case $kind in
	NOT_COMPILABLE)
		if [ "$listed" -eq 1 ]; then
			skipped=$((skipped + 1))
		else
			bad=$((bad + 1))
			echo "NOT COMPILABLE $t (not in roundtrip_skip.txt): $rest"
		fi
		continue ;;
	SAME) same=$((same + 1)) ;;
	*) differ=$((differ + 1)); echo "$kind $t $rest" ;;
	esac
	if [ "$listed" -eq 1 ]; then
		bad=$((bad + 1))
		echo "STALE $t: compiles now; remove it from roundtrip_skip.txt"
	fi
done < "$tmp/out"
seen=$(wc -l < "$tmp/seen") done_n=$(wc -l < "$tmp/out")
if [ "$rc" -ne 0 ] || [ "$done_n" -ne "$seen" ]; then
	bad=$((bad + 1))
	echo "roundtrip_tool exit $rc after $done_n of $seen models"
fi
for t in $(sort "$tmp/seen" | comm -13 - "$tmp/skip"); do
	bad=$((bad + 1))
	echo "STALE $t: in roundtrip_skip.txt but not generated"
done
echo "roundtrip: $same identical, $differ differ, $skipped skipped as listed, $bad off the list"
[ "$differ" -eq 0 ] && [ "$bad" -eq 0 ] && [ "$same" -gt 0 ]
