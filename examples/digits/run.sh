#!/usr/bin/env bash
# Builds and runs the example end to end, and checks it against numpy:
#   examples/digits/run.sh [INGOT] [WORKDIR]
# 1. make the model (python3-onnx), 2. compile it to a static library with ingot,
# 3. link app.c against it, 4. run it and compare with numpy's probabilities.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ingot=${1:-$here/../../build/compiler/driver/ingot}
work=${2:-$here/../../build/examples/digits}
mkdir -p "$work"
/usr/bin/python3 "$here/make_model.py" "$work/digits.onnx"
"$ingot" compile "$work/digits.onnx" --name digits -o "$work/digits" --emit lib
cc -std=c99 -O2 -Wall -Wextra -Werror -I"$work/digits" "$here/app.c" "$work/digits/libdigits.a" -lm \
	-o "$work/app"
"$work/app" | tee "$work/app.out"
ref=$(/usr/bin/python3 "$here/make_model.py" --reference)
/usr/bin/python3 - "$work/app.out" "$ref" <<'PY'
import sys
got = [float(x) for x in open(sys.argv[1]).readline().split()]
ref = [float(x) for x in sys.argv[2].split()]
bad = [i for i, (a, b) in enumerate(zip(got, ref)) if abs(a - b) > 1e-5 + 1e-3 * abs(b)]
if len(got) != 10 or bad:
    sys.exit("digits example: output differs from numpy at classes %s" % bad)
print("digits example: matches numpy")
PY
