#!/bin/sh
# The ONNX Runtime reference test: make_tests.py writes the opset 17-26 cases with ORT's
# outputs into OUT (only when its stamp is stale), then `ingot check` runs every case
# but those in known_failures.txt. DFT cases are compared with --atol 1e-5: ORT's FFT
# leaves rounding noise (~1e-7..1e-6) where the exact result is 0.
# usage: run.sh INGOT PYTHON MAKE_TESTS_PY OUT ORT_DIR KNOWN_FAILURES
# INGOT_CHECK_CFLAGS (if set) is passed as --cflags, e.g. sanitizers for the generated code;
# INGOT_CHECK_OPT (if set, e.g. -O0 or -O3) picks the pass pipeline instead of the default -O2.
# make_tests.py writes exactly CASES cases (update it with make_tests.py's CASES); every
# one but the known failures must PASS, and the run prints how many did.
set -eu
CASES=324
ingot=$1 py=$2 make_tests=$3 out=$4 ort_dir=$5 known=$6
die() { echo "tests/ort: $*" >&2; exit 1; }
[ -x "$py" ] || die "$py not found; it needs python3-onnx and python3-numpy (tools/install-deps.sh)"
command -v node >/dev/null ||
	die "node not found; it needs nodejs and onnxruntime-node under $ort_dir (tools/install-deps.sh)"
[ -f "$ort_dir/node_modules/onnxruntime-node/package.json" ] ||
	die "onnxruntime-node is not installed under $ort_dir (tools/install-deps.sh installs it)"
start=$(date +%s)
"$py" "$make_tests" "$out" "$ort_dir"
out=$(cd "$out" && pwd)
mid=$(date +%s)
skip=$(grep -v '^#' "$known" | awk 'NF {print $1}')
plain='' dft='' total=0 want=0
for d in "$out"/*/; do
	n=$(basename "$d")
	total=$((total + 1))
	if echo "$skip" | grep -qx "$n"; then continue; fi
	want=$((want + 1))
	case $n in
	dft_*) dft="$dft $d" ;;
	*) plain="$plain $d" ;;
	esac
done
for n in $skip; do
	[ -d "$out/$n" ] || die "known_failures.txt names '$n', which make_tests.py does not write"
done
jobs=$(nproc 2>/dev/null || echo 2)
[ "$jobs" -gt 4 ] && jobs=4
set -- -j "$jobs"
[ "$total" -eq "$CASES" ] || die "make_tests.py wrote $total cases, run.sh expects $CASES"
[ -n "${INGOT_CHECK_CFLAGS:-}" ] && set -- "$@" --cflags "$INGOT_CHECK_CFLAGS"
[ -n "${INGOT_CHECK_OPT:-}" ] && set -- "$@" "$INGOT_CHECK_OPT"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# the gate is the count of PASS lines (a pipe loses check's status in sh)
# shellcheck disable=SC2086  # the case lists are space-separated paths without spaces
"$ingot" check $plain "$@" | tee "$log"
# shellcheck disable=SC2086
[ -z "$dft" ] || "$ingot" check $dft --atol 1e-5 "$@" | tee -a "$log"
passed=$(grep -c '^PASS ' "$log" || true)
echo "ort_reference (${INGOT_CHECK_OPT:--O2}): $passed of $want cases pass ($total written, $((total - want)) known failures)"
rc=0
[ "$passed" -eq "$want" ] || rc=1
echo "generate $((mid - start)) s, check $(($(date +%s) - mid)) s"
exit $rc
