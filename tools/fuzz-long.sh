#!/usr/bin/env bash
# A long libFuzzer run (docs/testing.md#fuzzing): builds the -Dfuzz=enabled tree
# (clang, ASan+UBSan) if needed, makes the seed corpora, then runs each target for
# SECONDS in libFuzzer's fork mode (-fork=JOBS), which keeps fuzzing past a crash,
# timeout or OOM and writes each into WORK/crashes/TARGET/. The corpus grows in
# WORK/corpus/TARGET and is reused by the next run. Prints one line per target:
#   fuzz-NAME: N execs in S s (E exec/s), cov C ft F, corpus K, crashes X
# Every crash found: minimize it (fuzz-NAME -minimize_crash=1 -runs=10000 FILE), fix
# it, and commit it as tests/fuzz/regress/TARGET/WHAT (suite fuzz replays those).
#   tools/fuzz-long.sh [-j JOBS] [-b BUILD_FUZZ] WORK SECONDS [TARGET...]
#   nice -n 15 tools/fuzz-long.sh /tmp/fuzz 3600 load pipeline
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=1 build=$root/build-fuzz
while getopts j:b: o; do
	case $o in
	j) jobs=$OPTARG ;;
	b) build=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || { echo "usage: tools/fuzz-long.sh [-j JOBS] [-b BUILD_FUZZ] WORK SECONDS [TARGET...]" >&2; exit 2; }
work=$(mkdir -p "$1" && cd "$1" && pwd) secs=$2
shift 2
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(load ir pipeline tensor image)
if [ ! -f "$build/build.ninja" ]; then
	CC=clang meson setup "$build" "$root" -Dfuzz=enabled -Dtests=false -Dbuildtype=debugoptimized || exit 1
fi
meson compile -C "$build" $(printf 'fuzz-%s ' "${targets[@]}") >/dev/null || exit 1
if [ ! -d "$work/seeds" ]; then
	ingot=()
	[ -x "$root/build/compiler/driver/ingot" ] && ingot=(--ingot "$root/build/compiler/driver/ingot")
	/usr/bin/python3 "$root/tests/fuzz/make_seeds.py" "$work/seeds" "$work/onnx-tests" "${ingot[@]}" \
		--models "$root/build/tests/models/out" || exit 1
fi
. "$root/tests/fuzz/dicts.sh"
status=0
for t in "${targets[@]}"; do
	dict=$(fuzz_dict "$t")
	mkdir -p "$work/corpus/$t" "$work/crashes/$t" "$work/tmp"
	log=$work/long-$t.log
	TMPDIR=$work/tmp "$build/tests/fuzz/fuzz-$t" -fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 \
		-ignore_ooms=1 -max_total_time="$secs" -timeout=5 -rss_limit_mb=2048 -malloc_limit_mb=2048 \
		-artifact_prefix="$work/crashes/$t/" ${dict:+-dict="$root/tests/fuzz/$dict"} \
		"$work/corpus/$t" "$work/seeds/$t" >"$log" 2>&1
	/usr/bin/python3 - "$t" "$log" "$work/corpus/$t" "$work/crashes/$t" <<'PY'
import os, re, sys
t, log, corpus, crashes = sys.argv[1:]
text = open(log, errors="replace").read()
stats = re.findall(r"#(\d+): cov: (\d+) ft: (\d+) corp: \d+ exec/s:? (\d+) .*time: (\d+)s", text)
n, c, f, rate, secs = stats[-1] if stats else ("?",) * 5
print("fuzz-%s: %s execs in %s s (%s exec/s), cov %s ft %s, corpus %d, crashes %d" % (
    t, n, secs, rate, c, f, len(os.listdir(corpus)), len(os.listdir(crashes))))
PY
	[ -z "$(ls -A "$work/crashes/$t")" ] || status=1
done
exit $status
