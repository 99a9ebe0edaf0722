#!/usr/bin/python3
"""What -O2 leaves of real exported models (issue 4's "done when"), and the figures for
docs: export.py writes the models into OUT (only those whose stamp is stale), then for
each model the final IR at -O0 and -O2 (`ingot compile --dump-ir -`) and the memory
plan (`ingot inspect --json`) are checked:
  - ResNet-18 and MobileNetV2: at -O2 no BatchNormalization, no Relu/Clip (or other
    activation) reading a Conv's output, no elementwise op left at all; the -O0 IR of
    the same model does have activations after Convs (so the check can fail);
  - every model: no shape computation at -O2 (Shape, Size, ConstantOfShape, Range, or
    any node computing an integer tensor from shapes, e.g. Gather/Unsqueeze/Concat on
    i64); ShuffleNet and the Transformer encoder have Shape/Gather in their ONNX graph;
  - arena_bytes <= 1.05 x peak_live_bytes and <= 0.5 x naive_bytes at -O2.
Prints one table row per model: ONNX nodes, IR nodes at -O0 and -O2, arena, scratch,
naive and peak-live bytes, compile time.

usage: check_optimized.py INGOT EXPORT_PY OUT
"""
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import onnx

MODELS = ["resnet18", "mobilenet_v2", "shufflenet_v2_x0_5", "transformer_encoder"]
FUSED_CNNS = {"resnet18", "mobilenet_v2"}
OPSETS = [13, 17]
ACTIVATIONS = {"Relu", "Clip", "LeakyRelu", "Sigmoid", "HardSigmoid", "HardSwish", "Tanh"}
ELEMENTWISE = ACTIVATIONS | {"Add", "Sub", "Mul", "Div", "FusedElementwise"}
SHAPE_OPS = {"Shape", "Size", "ConstantOfShape", "Range"}
NAME = r'%(?:"(?:[^"\\]|\\.)*"|[^\s,()"]+)'
NODE = re.compile(r'^\s*(%s(?:, %s)*) = (\w+)\((.*?)\)(?: \{.*\})? : (\S+)' % (NAME, NAME))

failures = 0


def fail(msg):
    global failures
    failures += 1
    print("FAIL: " + msg)


def ir_nodes(ingot, model, level, work):
    """[(outputs, op, inputs, first output dtype)] of the final IR at `level`."""
    r = subprocess.run([ingot, "compile", model, level, "--emit", "c", "-o", work, "--dump-ir", "-"],
                       capture_output=True, text=True)
    if r.returncode:
        raise SystemExit("ingot compile %s %s failed: %s" % (model, level, r.stderr))
    nodes = []
    for line in r.stdout.splitlines():
        m = NODE.match(line)
        if m:
            outs = re.findall(NAME, m.group(1))
            nodes.append((outs, m.group(2), re.findall(NAME, m.group(3)), m.group(4).split("[")[0]))
    return nodes


def after_conv(nodes):
    """Activation nodes that read a Conv's output."""
    producer = {o: op for outs, op, _, _ in nodes for o in outs}
    return [(op, ins[0]) for _, op, ins, _ in nodes
            if op in ACTIVATIONS and ins and producer.get(ins[0]) == "Conv"]


def check(ingot, d, name, work):
    model = os.path.join(d, "model.onnx")
    onnx_ops = collections.Counter(n.op_type for n in onnx.load(model, load_external_data=False).graph.node)
    o0 = ir_nodes(ingot, model, "-O0", work)
    t0 = time.time()
    o2 = ir_nodes(ingot, model, "-O2", work)
    compile_s = time.time() - t0
    r = subprocess.run([ingot, "inspect", model, "--json"], capture_output=True, text=True)
    plan = json.loads(r.stdout)
    ops2 = collections.Counter(op for _, op, _, _ in o2)
    base = os.path.basename(d)
    if name in FUSED_CNNS:
        if ops2["BatchNormalization"]:
            fail("%s: BatchNormalization left at -O2" % base)
        if after_conv(o2):
            fail("%s: activations after a Conv at -O2: %s" % (base, after_conv(o2)[:3]))
        if not after_conv(o0):
            fail("%s: no activation after a Conv at -O0 either (the check proves nothing)" % base)
        left = sorted(op for op in ops2 if op in ELEMENTWISE)
        if left:
            fail("%s: elementwise ops left at -O2: %s" % (base, left))
    shape = [(op, outs[0]) for outs, op, _, dt in o2
             if op in SHAPE_OPS or dt in ("i64", "i32")]
    if shape:
        fail("%s: shape computation left at -O2: %s" % (base, shape[:3]))
    if plan["arena_bytes"] > 1.05 * plan["peak_live_bytes"] or plan["arena_bytes"] > 0.5 * plan["naive_bytes"]:
        fail("%s: arena %d bytes, peak live %d, naive %d" % (base, plan["arena_bytes"],
             plan["peak_live_bytes"], plan["naive_bytes"]))
    shape_in_onnx = sum(onnx_ops[op] for op in ("Shape", "Gather", "ConstantOfShape"))
    print("%-26s %5d %5d %5d %10d %8d %10d %10d %6.2f %s" % (
        base, sum(onnx_ops.values()) - onnx_ops["Constant"], len(o0), len(o2), plan["arena_bytes"],
        plan["scratch_bytes"], plan["naive_bytes"], plan["peak_live_bytes"], compile_s,
        "(ONNX has %d Shape/Gather/ConstantOfShape)" % shape_in_onnx if shape_in_onnx else ""))


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    ingot, export_py, out = sys.argv[1:]
    subprocess.run([sys.executable, export_py, out] + MODELS, check=True)
    print("%-26s %5s %5s %5s %10s %8s %10s %10s %6s" % ("model", "onnx", "-O0", "-O2", "arena",
          "scratch", "naive", "peak_live", "sec"))
    with tempfile.TemporaryDirectory() as work:
        for name in MODELS:
            for opset in OPSETS:
                check(ingot, os.path.join(out, "%s_op%d" % (name, opset)), name, work)
    print("check_optimized: %d failures" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
