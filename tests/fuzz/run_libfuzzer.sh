#!/usr/bin/env bash
# Runs the libFuzzer targets of a -Dfuzz=enabled build, each for SECONDS, on its seed
# corpus (tests/fuzz/make_seeds.py) with its dictionary; new inputs collect in
# WORK/corpus/TARGET, a crash in WORK/crashes/TARGET/. Prints one line per target:
#   fuzz-NAME: N execs in S s (E exec/s), cov C ft F, corpus K, crashes X
# and exits 1 if any target crashed, leaked, timed out on an input (-timeout, 5 s)
# or went over 2 GB (-rss_limit_mb). CI runs it (.ci/run, step 4); tools/fuzz-long.sh
# runs it for hours.
#   tests/fuzz/run_libfuzzer.sh BUILD_FUZZ SEEDS WORK SECONDS [TARGET...]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$1 seeds=$2 work=$3 secs=$4
shift 4
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(load ir pipeline tensor image)
. "$here/dicts.sh"
status=0
for t in "${targets[@]}"; do
	dict=$(fuzz_dict "$t")
	mkdir -p "$work/corpus/$t" "$work/crashes/$t"
	log=$work/fuzz-$t.log
	# TMPDIR: the load/pipeline/ir targets write each input to a file there
	mkdir -p "$work/tmp"
	TMPDIR=$work/tmp ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
	"$build/tests/fuzz/fuzz-$t" -max_total_time="$secs" -timeout=5 -rss_limit_mb=2048 \
		-malloc_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/crashes/$t/" \
		${dict:+-dict="$here/$dict"} "$work/corpus/$t" "$seeds/$t" >"$log" 2>&1
	rc=$?
	/usr/bin/python3 - "$t" "$log" "$work/corpus/$t" "$work/crashes/$t" "$rc" <<'PY'
import os, re, sys
t, log, corpus, crashes, rc = sys.argv[1:]
text = open(log, errors="replace").read()
runs = re.findall(r"stat::number_of_executed_units: (\d+)", text)
rate = re.findall(r"stat::average_exec_per_sec:\s+(\d+)", text)
secs = re.findall(r"Done \d+ runs in (\d+) second", text)
cov = re.findall(r"cov: (\d+) ft: (\d+)", text)
c, f = cov[-1] if cov else ("?", "?")
print("fuzz-%s: %s execs in %s s (%s exec/s), cov %s ft %s, corpus %d, crashes %d, exit %s" % (
    t, runs[-1] if runs else "?", secs[-1] if secs else "?", rate[-1] if rate else "?", c, f,
    len(os.listdir(corpus)), len(os.listdir(crashes)), rc))
PY
	if [ "$rc" -ne 0 ]; then
		status=1
		grep -m1 -A12 -E "ERROR:|SUMMARY:|runtime error" "$log" | head -20
	fi
done
exit $status
