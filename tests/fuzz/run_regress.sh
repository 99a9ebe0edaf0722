#!/usr/bin/env bash
# Replays every committed regression input (tests/fuzz/regress/TARGET/*: inputs a
# libFuzzer run crashed on, kept after the fix) through its fuzz target, plus 200
# deterministic mutations of them; each must end without a crash or sanitizer report.
#   tests/fuzz/run_regress.sh REGRESS_DIR REPLAY_LOAD REPLAY_IR REPLAY_PIPELINE REPLAY_TENSOR REPLAY_IMAGE
set -euo pipefail
dir=$1; shift
total=0
for target in load ir pipeline tensor image; do
	replay=$1; shift
	mapfile -t inputs < <(find "$dir/$target" -type f 2>/dev/null | sort)
	if [ "${#inputs[@]}" -eq 0 ]; then
		echo "$target: no regression inputs"
		continue
	fi
	"$replay" 200 "${inputs[@]}"
	total=$((total + ${#inputs[@]}))
done
echo "fuzz_regress: $total inputs replayed"
