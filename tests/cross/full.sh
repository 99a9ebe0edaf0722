#!/usr/bin/env bash
# Opt-in, not in CI (about 5 minutes per target for the must-pass list on 2 cores): the
# whole conformance gate (tests/conformance/must_pass.txt) and every exported model
# (tests/models/) with --target neon (qemu-aarch64) and --target neon32 (qemu-arm);
# prints the lines that did not pass and a pass count per target and set, and writes them to
# tests/cross/full_results.md (naming the commit and the machine; it refuses to run on
# a tree with uncommitted changes, tools/provenance.sh), which
# tests/conformance/report.py puts into docs/conformance.md. Exit 0 only if all passed.
#   tests/cross/full.sh [INGOT] [WORKDIR] [JOBS]
# WORKDIR holds the generated node tests (WORKDIR/onnx-tests) and the exported models
# (WORKDIR/models); both are regenerated only when stale.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ingot=${1:-$here/../../build/compiler/driver/ingot}
work=${2:-$here/../../build/cross-full}
jobs=${3:-$(nproc)}
prov=$("$here/../../tools/provenance.sh" tests/cross/full_results.md) || exit 1   # a clean tree
mkdir -p "$work"
work=$(cd "$work" && pwd)   # check resolves data-set paths from the runner's directory
/usr/bin/python3 "$here/../conformance/generate.py" "$work/onnx-tests" || exit 1
PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 "$here/../models/export.py" "$work/models" || exit 1
tests=()
while read -r t; do
	[ -n "$t" ] && tests+=("$work/onnx-tests/node/$t")
done < "$here/../conformance/must_pass.txt"
models=("$work"/models/*_op*)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
rc=0
summary=()
rows=()
notes=()
for target in neon neon32; do
	for set in conformance models; do
		if [ "$set" = conformance ]; then dirs=("${tests[@]}"); else dirs=("${models[@]}"); fi
		start=$(date +%s)
		out=$("$ingot" check --target "$target" "${dirs[@]}" -j "$jobs" --timeout 600)
		bad=$(echo "$out" | grep -E '^(FAIL|ERROR|UNSUPPORTED) ')
		[ -n "$bad" ] && echo "$bad"
		passed=$(echo "$out" | grep -c '^PASS ')
		[ "$passed" -eq "${#dirs[@]}" ] || rc=1
		secs=$(($(date +%s) - start))
		summary+=("cross $target $set: $passed of ${#dirs[@]} pass ($secs s)")
		rows+=("| $target | $set | ${#dirs[@]} | $passed | $((${#dirs[@]} - passed)) | $secs s |")
		while IFS= read -r l; do
			[ -n "$l" ] && notes+=("- $target: \`${l%%:*}\`${l#"${l%%:*}"}")
		done <<< "${bad//$work\//}"
	done
done
{
	echo "## ARM targets under qemu (\`tests/cross/full.sh\`)"
	echo
	echo "The whole must-pass list and the exported models, compiled with \`--target neon\`"
	echo "(aarch64, run by qemu-aarch64) and \`--target neon32\` (armv7 hard-float + NEON, qemu-arm),"
	echo "measured at $prov, $(date -u '+%Y-%m-%d'), load average $load_start at the start"
	echo "and $(cut -d' ' -f1-3 /proc/loadavg) at the end."
	echo "CI runs the per-op subset \`tests/cross/list.txt\` on both targets (suite \`cross\`)."
	echo
	echo "| target | set | tests | pass | not passed | time |"
	echo "|---|---|---|---|---|---|"
	printf '%s\n' "${rows[@]}"
	if [ ${#notes[@]} -gt 0 ]; then
		echo
		printf '%s\n' "${notes[@]}"
	fi
} > "$here/full_results.md"
printf '%s\n' "${summary[@]}"
exit $rc
