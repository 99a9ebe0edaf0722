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
  - the memory plan, checked from the printed IR (`@arena+N` offsets, node order,
    types) and not from the planner's own figures: tensors alive at the same time never
    share bytes unless one is a view or an in-place write of the other (same offset,
    an op that may alias, its input dying there); the arena is at most 1.05 x the peak
    of live bytes computed here, and at most 0.5 x the naive (one buffer per tensor)
    size computed here.
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

MODELS = ["resnet18", "mobilenet_v2", "mobilenet_v3_small", "shufflenet_v2_x0_5", "transformer_encoder"]
FUSED_CNNS = {"resnet18", "mobilenet_v2"}
OPSETS = [13, 17]
ACTIVATIONS = {"Relu", "Clip", "LeakyRelu", "Sigmoid", "HardSigmoid", "HardSwish", "Tanh"}
ELEMENTWISE = ACTIVATIONS | {"Add", "Sub", "Mul", "Div", "FusedElementwise"}
SHAPE_OPS = {"Shape", "Size", "ConstantOfShape", "Range"}
NAME = r'%(?:"(?:[^"\\]|\\.)*"|[^\s,()"]+)'
NODE = re.compile(r'^\s*(%s(?:, %s)*) = (\w+)\((.*?)\)(?: \{.*\})? : (\S+)' % (NAME, NAME))

failures = 0
ir_text = {}    # level -> the last printed IR


def fail(msg):
    global failures
    failures += 1
    print("FAIL: " + msg)


DTYPE_BYTES = {"f32": 4, "f16": 2, "bf16": 2, "f64": 8, "i8": 1, "u8": 1, "i16": 2, "u16": 2, "i32": 4,
               "u32": 4, "i64": 8, "u64": 8, "bool": 1}
# ops whose output may share its input's storage (docs/cli.md): views for as long as
# either lives, in-place writes only where the input dies
VIEW_OPS = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"}
INPLACE_OPS = ELEMENTWISE | {"Neg", "Abs", "Exp", "Log", "Sqrt", "Erf", "Gelu", "Softplus", "Elu", "Selu",
                             "Pow", "Min", "Max"}
PLAN_LINE = re.compile(r'^(%s(?:, %s)*) = (\w+)\((.*?)\)(?: \{.*\})? :(.*?)(?: loc\(.*\))?((?: @(?:arena\+\d+|-))*)$'
                       % (NAME, NAME))


def type_bytes(t):
    m = re.match(r"(\w+)\[([\d,]*)\]", t.strip())
    if not m or m.group(1) not in DTYPE_BYTES:
        raise SystemExit("cannot size type %r" % t)
    n = 1
    for d in filter(None, m.group(2).split(",")):
        n *= int(d)
    return n * DTYPE_BYTES[m.group(1)]


def check_plan(ir, base):
    """The memory plan of a top-level graph's printed IR, checked on its own terms:
    returns (arena end, peak live bytes, naive bytes), all computed here."""
    align = lambda b: (b + 63) // 64 * 64
    vals, nodes = {}, []            # vals: name -> [offset, bytes, def, last, group]
    for line in ir.splitlines():
        if line.startswith((" ", "//", "input", "const", "output")):
            continue                 # bodies of control flow (none here), comments, ...
        m = PLAN_LINE.match(line)
        if not m:
            continue
        outs = re.findall(NAME, m.group(1))
        ins = re.findall(NAME, m.group(3))
        types = [t for t in m.group(4).split(", ") if t.strip()]
        named = [o for o in outs if o != "_"]
        offs = re.findall(r"@(arena\+\d+|-)", m.group(5))
        i = len(nodes)
        nodes.append((m.group(2), ins))
        for k, o in enumerate(named):
            off = offs[k] if k < len(offs) else "-"
            if off != "-":
                vals[o] = [int(off[6:]), type_bytes(types[k]), i, i, o]
    for i, (op, ins) in enumerate(nodes):
        for v in ins:
            if v in vals:
                vals[v][3] = max(vals[v][3], i)
    # storage groups: an output at its input's offset, by an op that may alias
    for v, (off, size, d, last, _) in vals.items():
        op, ins = nodes[d]
        for src in ins:
            if src in vals and vals[src][0] == off and (op in VIEW_OPS or
                                                        op in INPLACE_OPS and vals[src][3] == d):
                vals[v][4] = vals[src][4]
                break
    root = lambda v: v if vals[v][4] == v else root(vals[v][4])
    groups = {}
    for v, (off, size, d, last, _) in vals.items():
        g = groups.setdefault(root(v), [off, 0, d, last])
        g[1], g[2], g[3] = max(g[1], align(size)), min(g[2], d), max(g[3], last)
        if off != g[0]:
            fail("%s: %s joins %s's storage at another offset" % (base, v, root(v)))
    gl = sorted(groups.items(), key=lambda kv: kv[1][2])
    for a in range(len(gl)):
        (va, (oa, sa, da, la)) = gl[a]
        for b in range(a + 1, len(gl)):
            (vb, (ob, sb, db, lb)) = gl[b]
            if db > la:
                break
            if oa < ob + sb and ob < oa + sa:
                fail("%s: %s [%d, +%d) and %s [%d, +%d) are alive together (nodes %d-%d, %d-%d) and overlap"
                     % (base, va, oa, sa, vb, ob, sb, da, la, db, lb))
    peak = max([sum(g[1] for g in groups.values() if g[2] <= t <= g[3]) for t in range(len(nodes))] or [0])
    end = max([g[0] + g[1] for g in groups.values()] or [0])
    naive = sum(align(v[1]) for v in vals.values())
    return end, peak, naive


def ir_nodes(ingot, model, level, work):
    """[(outputs, op, inputs, first output dtype)] of the final IR at `level`."""
    r = subprocess.run([ingot, "compile", model, level, "--emit", "c", "-o", work, "--dump-ir", "-"],
                       capture_output=True, text=True)
    if r.returncode:
        raise SystemExit("ingot compile %s %s failed: %s" % (model, level, r.stderr))
    nodes = []
    ir_text[level] = r.stdout
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
    end, peak, naive = check_plan(ir_text["-O2"], base)
    if end > plan["arena_bytes"]:
        fail("%s: tensors reach byte %d of an arena of %d" % (base, end, plan["arena_bytes"]))
    if plan["arena_bytes"] > 1.05 * peak or plan["arena_bytes"] > 0.5 * naive:
        fail("%s: arena %d bytes, peak live %d, naive %d (computed here)" % (base, plan["arena_bytes"],
             peak, naive))
    if peak != plan["peak_live_bytes"]:
        print("note: %s: peak live %d computed here, %d by the planner" % (base, peak, plan["peak_live_bytes"]))
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
