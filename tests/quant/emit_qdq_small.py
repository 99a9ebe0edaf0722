#!/usr/bin/python3
"""emit_qdq_small: `--emit-qdq` writes what the quantized graph holds beyond int8: 2- and
4-bit constants and an ai.onnx.ml node (Binarizer) after the quantized layers. The
model (opset 25) multiplies by DequantizeLinear of an INT2 and of a UINT4 initializer
(weights that --quantize int8 requantizes to int8 per axis) and also hands those two
initializers out through a Cast and an Identity (graph outputs, so nothing folds them
away). The written file must
  - hold the INT2 / UINT4 initializers packed as ONNX stores them (four / two elements a
    byte, the first lowest), with the model's codes;
  - write the Binarizer in domain ai.onnx.ml and import that domain at the model's
    ai.onnx.ml opset;
  - compile back (ingot on the written file) to what the quantized compile of the
    original model computes, bit for bit, on every output.
A Scaler (whose attributes ingot's import turns into inputs) is one error line instead.
Debian's python3-onnx (1.12) knows neither 2-bit type nor opset 25, so the file is read
as protobuf here, without onnx.checker.
usage: emit_qdq_small.py INGOT OUT_DIR"""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [here, os.path.join(here, "..", "unit", "small_types")]
from qdq_models import read_pb, run_or_exit, write_pb  # noqa: E402
from small_io import small as packed  # noqa: E402  (4-/2-bit TensorProtos from codes)

ingot, out = sys.argv[1], os.path.abspath(sys.argv[2])
rng = np.random.default_rng(18)
os.makedirs(out, exist_ok=True)
U4, I2 = 21, 26


def unpack(t, signed):
    per = 4 if t.data_type == I2 else 2
    bits = 8 // per
    n = int(np.prod(t.dims))
    v = np.array([(t.raw_data[i // per] >> (bits * (i % per))) & ((1 << bits) - 1)
                  for i in range(n)], np.int64)
    return np.where(v >= (1 << (bits - 1)), v - (1 << bits), v) if signed else v


def run(argv):
    return run_or_exit("emit_qdq_small", argv)


w2 = rng.integers(-2, 2, (8, 6))        # INT2 weights (odd count per row: packing across rows)
w4 = rng.integers(0, 16, (6, 5))        # UINT4 weights, zero point 8
N = helper.make_node
nodes = [N("DequantizeLinear", ["w2q", "s2"], ["w2"], name="dq_w2"),
         N("MatMul", ["x", "w2"], ["h"], name="fc1"), N("Relu", ["h"], ["r"], name="relu"),
         N("DequantizeLinear", ["w4q", "s4", "z4"], ["w4"], name="dq_w4"),
         N("MatMul", ["r", "w4"], ["y"], name="fc2"),
         N("Binarizer", ["y"], ["b"], name="bin", domain="ai.onnx.ml", threshold=0.05),
         N("Cast", ["w2q"], ["wc"], name="cast_w2", to=TensorProto.FLOAT),
         N("Identity", ["w4q"], ["wi"], name="id_w4")]
inits = [packed("w2q", I2, w2, [8, 6]), numpy_helper.from_array(np.array(0.25, np.float32), "s2"),
         packed("w4q", U4, w4, [6, 5]), numpy_helper.from_array(np.array(0.125, np.float32), "s4"),
         packed("z4", U4, [8], [])]
g = helper.make_graph(nodes, "small", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 8])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 5]),
                       helper.make_tensor_value_info("b", TensorProto.FLOAT, [2, 5]),
                       helper.make_tensor_value_info("wc", TensorProto.FLOAT, [8, 6]),
                       helper.make_tensor_value_info("wi", U4, [6, 5])], inits)
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 25), helper.make_opsetid("ai.onnx.ml", 1)])
m.ir_version = 11
src = os.path.join(out, "small.onnx")
onnx.save(m, src)
calib = os.path.join(out, "calib")
for i in range(8):
    write_pb(os.path.join(calib, "test_data_set_%d" % i, "input_0.pb"),
             rng.uniform(-1, 1, (2, 8)).astype(np.float32), "x")
x = rng.uniform(-1, 1, (2, 8)).astype(np.float32)
xin = os.path.join(out, "x.pb")
write_pb(xin, x, "x")

qdq = os.path.join(out, "qdq.onnx")
direct = os.path.join(out, "direct")
run([ingot, "compile", src, "--quantize", "int8", "--calibrate", calib, "--emit-qdq", qdq,
     "-o", direct, "--name", "small", "--emit", "exe"])
mq = onnx.ModelProto()
with open(qdq, "rb") as f:
    mq.ParseFromString(f.read())
failures = []
by_name = {t.name: t for t in mq.graph.initializer}
for name, dt, codes, signed in (("w2q", I2, w2, True), ("w4q", U4, w4, False)):
    t = by_name.get(name)
    if t is None or t.data_type != dt:
        failures.append("%s: not written as type %d: %r" % (name, dt, t and t.data_type))
        continue
    per = 4 if dt == I2 else 2
    if len(t.raw_data) != (codes.size + per - 1) // per:
        failures.append("%s: %d raw bytes, expected %d packed" % (name, len(t.raw_data),
                                                                  (codes.size + per - 1) // per))
    elif not np.array_equal(unpack(t, signed), codes.ravel()):
        failures.append("%s: codes %r, expected %r" % (name, unpack(t, signed), codes.ravel()))
ml = [n for n in mq.graph.node if n.op_type == "Binarizer"]
if len(ml) != 1 or ml[0].domain != "ai.onnx.ml":
    failures.append("Binarizer not written in ai.onnx.ml: %r" % [(n.op_type, n.domain) for n in ml])
imports = {o.domain: o.version for o in mq.opset_import}
if imports != {"": 25, "ai.onnx.ml": 1}:
    failures.append("opset_import %r, expected ai.onnx 25 and ai.onnx.ml 1" % imports)
if "QuantizeLinear" not in [n.op_type for n in mq.graph.node]:
    failures.append("not a QDQ graph: %r" % [n.op_type for n in mq.graph.node])

via = os.path.join(out, "via")
run([ingot, "compile", qdq, "-o", via, "--name", "small", "--emit", "exe"])
outs = []
for exe in (direct, via):
    od = os.path.join(exe, "out")
    os.makedirs(od, exist_ok=True)
    run([os.path.join(exe, "small"), "--input", xin, "--output-dir", od])
    outs.append([read_pb(os.path.join(od, "output_%d.pb" % i)) for i in range(3)])
    wi = TensorProto()
    with open(os.path.join(od, "output_3.pb"), "rb") as f:
        wi.ParseFromString(f.read())
    if wi.data_type != U4 or not np.array_equal(unpack(wi, False), w4.ravel()):
        failures.append("%s: the UINT4 output is not the initializer's codes" % exe)
if not np.array_equal(outs[0][2], w2.astype(np.float32)):
    failures.append("the Cast INT2 output %r is not the codes %r" % (outs[0][2], w2))
for i, (a, b) in enumerate(zip(*outs)):
    if a.shape != b.shape or not np.array_equal(a.view(np.uint32), b.view(np.uint32)):
        failures.append("output %d: the written file computes %r, the quantized compile %r" % (i, b, a))
if not outs[0][1].any() or outs[0][1].all():
    failures.append("Binarizer output is constant %r: the test would not notice a wrong threshold"
                    % outs[0][1])

# an ai.onnx.ml op whose attributes ingot's import turned into inputs (Scaler) is one
# error line naming the node, not a file with the wrong inputs
g = helper.make_graph([N("MatMul", ["x", "w"], ["h"], name="fc"),
                       N("Scaler", ["h"], ["y"], name="scale_it", domain="ai.onnx.ml",
                         offset=[0.5], scale=[2.0])], "bad",
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 8])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
                      [numpy_helper.from_array(rng.standard_normal((8, 3)).astype(np.float32), "w")])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("ai.onnx.ml", 1)])
m.ir_version = 8
bad = os.path.join(out, "scaler.onnx")
onnx.save(m, bad)
r = subprocess.run([ingot, "compile", bad, "--quantize", "int8", "--calibrate", calib, "--emit-qdq",
                    os.path.join(out, "scaler_qdq.onnx"), "-o", os.path.join(out, "scaler_out")],
                   capture_output=True, text=True)
lines = r.stderr.strip().splitlines()
if r.returncode == 0 or len(lines) != 1 or "scale_it" not in lines[0]:
    failures.append("Scaler: expected one error line naming the node, got rc %d: %r"
                    % (r.returncode, r.stderr))

for f in failures:
    print("FAIL " + f)
print("emit_qdq_small: INT2/UINT4 initializers and an ai.onnx.ml node, %d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
