#!/usr/bin/env bash
# Renders the pictures of docs/cli.md ("Pictures"): ResNet-18 (bench/make_models.py,
# random weights from a fixed seed; the model is generated into a temporary folder,
# never committed) before and after -O2, as PNG through Graphviz. -O0 runs no pass but
# the memory plan, so its picture is the imported graph with arena offsets.
#   tools/render_graphs.sh [INGOT] [OUT_DIR]   (defaults: build/compiler/driver/ingot, docs/images)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ingot=${1:-$root/build/compiler/driver/ingot}
out=${2:-$root/docs/images}
command -v dot >/dev/null || { echo "render_graphs: needs Graphviz's dot (apt-get install graphviz)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 "$root/bench/make_models.py" "$work" resnet18 >/dev/null
mkdir -p "$out"
for level in O0 O2; do
	"$ingot" compile "$work/resnet18/model.onnx" "-$level" -o "$work/out_$level" --dot "$work/$level.dot"
	# 40 dpi keeps the files small (about 100 KB); the SVG (--svg) has the full detail
	dot -Tpng -Gdpi=40 "$work/$level.dot" -o "$out/resnet18_$level.png"
	echo "wrote $out/resnet18_$level.png"
done
