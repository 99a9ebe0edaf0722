#!/usr/bin/env bash
# --dot writes a Graphviz graph: every live node once (op + its ONNX names: the
# fused Conv lists conv1 and relu1), every
# intermediate edge labeled with its type and arena offset.
#   tests/golden/dot_test.sh INGOT WORKDIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ingot=$1 work=$2
mkdir -p "$work"
/usr/bin/python3 "$here/../../examples/cortex-m/make_model.py" "$work/digits.onnx"
"$ingot" compile "$work/digits.onnx" -o "$work/out" --dot "$work/g.dot" --dump-ir "$work/g.ir"
nodes=$(grep -c '^  n[0-9]* \[label=' "$work/g.dot")
ir_nodes=$(grep -c '^%.* = [A-Za-z]*(' "$work/g.ir")
[ "$nodes" -eq "$ir_nodes" ] || { echo "dot has $nodes nodes, IR has $ir_nodes"; exit 1; }
grep -q 'label="Conv\\nconv1\\n+ relu1"' "$work/g.dot" || { echo "fused conv+relu node label missing"; exit 1; }
grep -q 'f32\[1,4,8,8\]\\n@arena+' "$work/g.dot" || { echo "edge labels lack type/offset"; exit 1; }
[ "$(tail -n 1 "$work/g.dot")" = "}" ] || { echo "dot file not closed"; exit 1; }
echo "dot: $nodes nodes, labels and offsets present"
