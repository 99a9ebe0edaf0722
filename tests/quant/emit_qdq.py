#!/usr/bin/env python3
"""emit_qdq_ort: `--quantize int8 --calibrate DIR --emit-qdq FILE.onnx` writes a standard
QDQ model that ONNX Runtime runs with ingot's scales and zero points. A float conv net
(conv, relu, maxpool, a residual add, average pool, flatten, matmul + bias), calibrated on
16 generated sets, u8 and s8 activations:
  - the written file passes onnx.checker's full check;
  - ingot compiling the written file computes, bit for bit, what the quantized compile
    of the float model computes (the same graph, through the file);
  - ONNX Runtime on the written file matches ingot to one quantization step of the
    output (ORT evaluates some QDQ groups in float, see tests/quant/qdq_models.py);
  - on an x86 CPU without VNNI both compiles use --reduce-range (ORT's u8 x s8 kernels
    there saturate with full-range weights; qdq_models.weight_qmax), and on every CPU a
    --reduce-range compile writes its weights in [-64, 64], reaching 64.
usage: emit_qdq.py INGOT OUT_DIR ORT_DIR RUN_ORT_MJS"""
import json
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qdq_models import WEIGHT_QMAX, read_pb, run_or_exit, write_pb  # noqa: E402

ingot, out, ort_dir, mjs = sys.argv[1], *(os.path.abspath(a) for a in sys.argv[2:5])
rng = np.random.default_rng(20261203)
os.makedirs(out, exist_ok=True)


def f32(name, a):
    return numpy_helper.from_array(np.asarray(a, np.float32), name)


def run(argv):
    return run_or_exit("emit_qdq", argv)


def int8_weights(m):
    """The int8 initializers a DequantizeLinear reads as its x (the weights)."""
    xs = {n.input[0] for n in m.graph.node if n.op_type == "DequantizeLinear"}
    return [numpy_helper.to_array(t) for t in m.graph.initializer
            if t.name in xs and t.data_type == TensorProto.INT8]


N = helper.make_node
inits = [f32("w1", rng.standard_normal((8, 3, 3, 3)) * 0.3), f32("b1", rng.standard_normal(8) * 0.1),
         f32("w2", rng.standard_normal((8, 8, 3, 3)) * 0.2), f32("b2", rng.standard_normal(8) * 0.1),
         f32("w3", rng.standard_normal((8 * 4 * 4, 10)) * 0.1), f32("b3", rng.standard_normal(10) * 0.1)]
nodes = [N("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
         N("Relu", ["c1"], ["r1"], name="relu1"),
         N("MaxPool", ["r1"], ["p1"], name="pool", kernel_shape=[2, 2], strides=[2, 2]),
         N("Conv", ["p1", "w2", "b2"], ["c2"], name="conv2", pads=[1, 1, 1, 1]),
         N("Relu", ["c2"], ["r2"], name="relu2"), N("Add", ["r2", "p1"], ["a"], name="residual"),
         N("AveragePool", ["a"], ["ap"], name="avg", kernel_shape=[2, 2], strides=[2, 2]),
         N("Flatten", ["ap"], ["f"], name="flat"), N("MatMul", ["f", "w3"], ["mm"], name="fc"),
         N("Add", ["mm", "b3"], ["y"], name="fc_bias")]
g = helper.make_graph(nodes, "net", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])], inits)
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
m.ir_version = 8
float_model = os.path.join(out, "net.onnx")
onnx.save(m, float_model)
calib = os.path.join(out, "calib")
for i in range(16):
    write_pb(os.path.join(calib, "test_data_set_%d" % i, "input_0.pb"),
             rng.uniform(-1, 1, (1, 3, 16, 16)).astype(np.float32), "x")
x = rng.uniform(-1, 1, (1, 3, 16, 16)).astype(np.float32)
xin = os.path.join(out, "x.pb")
write_pb(xin, x, "x")

cases = []
for act in ("u8", "s8"):
    d = os.path.join(out, "qdq_" + act)
    qdq = os.path.join(d, "model.onnx")
    os.makedirs(d, exist_ok=True)
    direct = os.path.join(out, "direct_" + act)
    run([ingot, "compile", float_model, "--quantize", "int8", "--calibrate", calib,
         "--activations", act, "--emit-qdq", qdq, "-o", direct, "--name", "net", "--emit", "exe"]
        + (["--reduce-range"] if WEIGHT_QMAX == 64 else []))
    onnx.checker.check_model(onnx.load(qdq), full_check=True)
    mq = onnx.load(qdq)
    wmax = max(int(np.abs(w.astype(np.int32)).max()) for w in int8_weights(mq))
    if wmax != WEIGHT_QMAX:
        sys.exit("emit_qdq: %s: the weights reach %d, expected %d" % (act, wmax, WEIGHT_QMAX))
    ops = [n.op_type for n in mq.graph.node]
    if ops.count("QuantizeLinear") < 6 or "Conv" not in ops:
        sys.exit("emit_qdq: %s: not a QDQ graph: %s" % (act, ops))
    # ingot on the written file = the quantized compile of the float model, bit for bit
    via = os.path.join(out, "via_" + act)
    run([ingot, "compile", qdq, "-o", via, "--name", "net", "--emit", "exe"])
    outs = []
    for exe in (direct, via):
        od = os.path.join(exe, "out")
        os.makedirs(od, exist_ok=True)
        run([os.path.join(exe, "net"), "--input", xin, "--output-dir", od])
        outs.append(read_pb(os.path.join(od, "output_0.pb")))
    if not np.array_equal(outs[0].view(np.uint32), outs[1].view(np.uint32)):
        sys.exit("emit_qdq: %s: ingot on the written QDQ file differs from the quantized "
                 "compile: %r vs %r" % (act, outs[1], outs[0]))
    # the output's scale: the last DequantizeLinear's
    last = [n for n in mq.graph.node if n.output[0] == "y"][0]
    scale = [numpy_helper.to_array(t) for t in mq.graph.initializer if t.name == last.input[1]][0]
    write_pb(os.path.join(d, "test_data_set_0", "input_0.pb"), x, "x")
    with open(os.path.join(d, "tolerance"), "w") as fh:
        fh.write("rtol = 0\natol = %.9g\n" % (float(scale) * 1.001))
    f = os.path.join(d, "in_0.bin")
    x.tofile(f)
    cases.append({"dir": d, "inputs": [{"name": "x", "dtype": "float32", "dims": [1, 3, 16, 16],
                                        "file": f}]})
man = os.path.join(out, "MANIFEST.json")
with open(man, "w") as fh:
    json.dump(cases, fh)
subprocess.run(["node", mjs, man, ort_dir], check=True)
for c in cases:
    v = np.fromfile(os.path.join(c["dir"], "ort_out_0.bin"), np.float32).reshape(1, 10)
    write_pb(os.path.join(c["dir"], "test_data_set_0", "output_0.pb"), v, "y")
# --reduce-range on every CPU: 7-bit weights (whatever the compiles above used)
rr = os.path.join(out, "reduced.onnx")
run([ingot, "compile", float_model, "--quantize", "int8", "--calibrate", calib, "--reduce-range",
     "--emit-qdq", rr, "-o", os.path.join(out, "reduced"), "--emit", "c"])
ws = int8_weights(onnx.load(rr))
if len(ws) < 3 or any(int(np.abs(w.astype(np.int32)).max()) != 64 for w in ws):
    sys.exit("emit_qdq: --reduce-range: weights not in [-64, 64] reaching 64: %r"
             % [int(np.abs(w.astype(np.int32)).max()) for w in ws])
r = subprocess.run([ingot, "check"] + [c["dir"] for c in cases], capture_output=True, text=True)
print(r.stdout.strip())
if r.returncode:
    sys.exit("emit_qdq: ingot and ONNX Runtime differ on the written QDQ models\n" + r.stderr)
exact = subprocess.run([ingot, "check", "--rtol", "0", "--atol", "0"] + [c["dir"] for c in cases],
                       capture_output=True, text=True).stdout.count("PASS")
print("emit_qdq: 2 written QDQ models pass onnx.checker, equal ingot's quantized compile bit "
      "for bit, and match ONNX Runtime (%d of 2 bit for bit)" % exact)
