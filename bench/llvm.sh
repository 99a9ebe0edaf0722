#!/usr/bin/env bash
# bench/run.sh --backend llvm: the LLVM backend against the C path on the models of
# make_models.py, same target (host), same inputs. Per model: the compile time of
# `ingot compile --emit exe` (the C path: C sources and the C compiler's build of them;
# LLVM: NAME.o through LLVM, then only the runner is compiled), as wall and user+sys
# seconds of the whole command, and the run time (the executable's --bench N median,
# one thread), C and LLVM alternating over the rounds. Prints a markdown table; the
# ratios are LLVM / C (below 1: LLVM is faster). Needs an ingot built with
# -Dllvm=enabled (BUILD, default build-llvm/).
#
# usage: bench/run.sh --backend llvm [--models a,b,..] [--rounds R] [--runs N]
#   env: BUILD (default build-llvm/), WORK (default $BUILD/bench-llvm), PYTHON
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build-llvm}
work=${WORK:-$build/bench-llvm}
py=${PYTHON:-/usr/bin/python3}
ingot=$build/compiler/driver/ingot
models="" rounds=3 runs=20
while [ $# -gt 0 ]; do
	case $1 in
	--models) models=${2//,/ }; shift ;;
	--rounds) rounds=$2; shift ;;
	--runs) runs=$2; shift ;;
	-h|--help) sed -n '2,12p' "$0"; exit 0 ;;
	*) echo "bench: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift
done
die() { echo "bench: $*" >&2; exit 1; }
[ -x "$ingot" ] || die "$ingot not found: meson setup $build -Dllvm=enabled && meson compile -C $build"
[ -x /usr/bin/time ] || die "/usr/bin/time is missing (apt-get install time)"
mkdir -p "$work/models" "$work/exe"
# shellcheck disable=SC2086
"$py" "$root/bench/make_models.py" "$work/models" $models >&2
[ -n "$models" ] || models=$("$py" -c "
import sys; sys.path.insert(0, '$root/bench'); import make_models; print(' '.join(make_models.ALL))")
inputs() { for f in "$work/models/$1"/input_*.npy; do printf -- '--input %s ' "$f"; done; }
field() { sed -n "s/^\(.* \)\{0,1\}$1=\([^ ]*\).*/\2/p" | tail -1; }
med() { sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "| model | compile C (wall / cpu s) | compile LLVM (wall / cpu s) | LLVM/C cpu | run C (us) | run LLVM (us) | LLVM/C run |"
echo "|---|---|---|---|---|---|---|"
for m in $models; do
	src=$work/models/$m/model.onnx
	declare -A wall cpu
	for b in c llvm; do   # compile: the whole `ingot compile --emit exe`, cold (a fresh folder)
		rm -rf "$work/exe/$m-$b"
		/usr/bin/time -o "$work/exe/$m-$b.time" -f '%e %U %S' "$ingot" compile "$src" --emit exe --target host \
			--backend "$b" --name "$m" -o "$work/exe/$m-$b" -q > /dev/null 2> "$work/exe/$m-$b.err" ||
			die "ingot compile --backend $b $m failed: $(tail -3 "$work/exe/$m-$b.err")"
		t=$(tail -1 "$work/exe/$m-$b.time")
		wall[$b]=$(echo "$t" | awk '{ print $1 }')
		cpu[$b]=$(echo "$t" | awk '{ printf "%.2f", $2 + $3 }')
	done
	rc=() rl=()
	for r in $(seq 1 "$rounds"); do   # run: C and LLVM alternating
		for b in c llvm; do
			# shellcheck disable=SC2046
			out=$("$work/exe/$m-$b/$m" --bench "$runs" --threads 1 $(inputs "$m") 2>&1 | tail -1) ||
				die "$m ($b) failed: $out"
			v=$(echo "$out" | field median_us)
			[ -n "$v" ] || die "$m ($b): no median_us in: $out"
			if [ $b = c ]; then rc+=("$v"); else rl+=("$v"); fi
		done
	done
	mc=$(printf '%s\n' "${rc[@]}" | med) ml=$(printf '%s\n' "${rl[@]}" | med)
	awk -v m="$m" -v wc="${wall[c]}" -v cc="${cpu[c]}" -v wl="${wall[llvm]}" -v cl="${cpu[llvm]}" -v mc="$mc" -v ml="$ml" \
		'BEGIN { printf "| %s | %s / %s | %s / %s | %.2f | %.0f | %.0f | %.2f |\n", m, wc, cc, wl, cl, cl / (cc > 0 ? cc : 1e-9), mc, ml, ml / mc }'
	unset wall cpu
done
echo "bench: load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs (figures from a loaded machine carry noise)" >&2
