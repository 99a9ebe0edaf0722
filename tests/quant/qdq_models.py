#!/usr/bin/env python3
"""QDQ models as ONNX Runtime's quantizer writes them (QuantizeLinear → DequantizeLinear
around each quantized op, int8 weights with per-channel scales, int32 biases at scale
x_scale * w_scale), in `ingot check` layout with ONNX Runtime's outputs as the expected
ones, to one quantization step of the output (each case's `tolerance` file). fold_qdq (passes/fold_qdq.c) turns them into integer nodes; tests/quant/run.sh
checks ingot's results against ORT's and that the integer nodes are there.
On an x86 CPU without VNNI the weights are 7-bit (ORT's reduce_range, [-64, 64]): ORT's
u8 x s8 kernels there use vpmaddubsw, whose int16 pair sums saturate with full-range
weights, so ORT's results would not be the exact ones ingot computes (WEIGHT_QMAX).
usage: qdq_models.py OUT_DIR ORT_DIR RUN_ORT_MJS"""
import json
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(20261202)


def weight_qmax():
    """127, or 64 (7-bit weights) on an x86 CPU without AVX512-VNNI or AVX-VNNI (the
    flags as tests/unit/x86/cpu.py reads them, INGOT_TEST_HIDE_CPU_FLAGS included)."""
    import platform
    if platform.machine() not in ("x86_64", "AMD64"):
        return 127
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "unit", "x86"))
    from cpu import cpu_flags
    flags = cpu_flags()
    if not flags:                # no /proc/cpuinfo: nothing known
        return 127
    return 127 if "avx512_vnni" in flags or "avx_vnni" in flags else 64


WEIGHT_QMAX = weight_qmax()


def write_pb(path, arr, name):
    """arr as a TensorProto file at path (its folder made)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(arr, name).SerializeToString())


def read_pb(path):
    t = TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def run_or_exit(who, argv):
    """Runs argv; exits naming who, the command and its output when it fails."""
    r = subprocess.run(argv, capture_output=True, text=True)
    if r.returncode:
        sys.exit("%s: %s failed (exit %d)\n%s%s" % (who, " ".join(argv), r.returncode, r.stdout,
                                                     r.stderr))
    return r


class Net:
    """Builds one QDQ graph: activations are (float name, scale, zero point)."""

    def __init__(self, act_dtype=np.uint8):
        self.nodes, self.inits, self.n = [], [], 0
        self.adt = act_dtype

    def name(self, base):
        self.n += 1
        return f"{base}{self.n}"

    def const(self, base, arr):
        nm = self.name(base)
        self.inits.append(numpy_helper.from_array(np.asarray(arr), nm))
        return nm

    def node(self, op, ins, base, **attrs):
        out = self.name(base)
        self.nodes.append(helper.make_node(op, ins, [out], name=self.name(op), **attrs))
        return out

    def qdq(self, x, scale, zp):
        """Q then DQ of float tensor x: returns the DQ output."""
        s = self.const("s", np.float32(scale))
        z = self.const("z", np.array(zp, dtype=self.adt))
        q = self.node("QuantizeLinear", [x, s, z], "q")
        self.out_scale = scale           # the last one is the model's output
        return self.node("DequantizeLinear", [q, s, z], "dq"), scale

    def weight(self, w, axis):
        """Per-channel symmetric int8 weight w along axis, with its DQ."""
        red = tuple(i for i in range(w.ndim) if i != axis)
        scale = (np.abs(w).max(axis=red) / WEIGHT_QMAX).astype(np.float32)
        scale[scale == 0] = 1e-8
        shp = [1] * w.ndim
        shp[axis] = -1
        wq = np.clip(np.rint(w / scale.reshape(shp)), -WEIGHT_QMAX, WEIGHT_QMAX).astype(np.int8)
        s = self.const("ws", scale)
        z = self.const("wz", np.zeros(scale.shape, np.int8))
        return self.node("DequantizeLinear", [self.const("w", wq), s, z], "wdq",
                         axis=axis), scale

    def bias(self, b, x_scale, w_scale):
        bs = (np.float32(x_scale) * w_scale).astype(np.float32)
        bq = np.rint(b / bs).astype(np.int32)
        return self.node("DequantizeLinear", [self.const("b", bq), self.const("bs", bs),
                                              self.const("bz", np.zeros(bs.shape, np.int32))],
                         "bdq", axis=0)


def conv_net(act_dtype, per_channel=True):
    """Conv-Relu-MaxPool-Conv(stride 2, Clip)-Flatten-Gemm(transB), all in QDQ."""
    net = Net(act_dtype)
    zp = 128 if act_dtype == np.uint8 else 0
    x, xs = net.qdq("x", 0.02, zp)
    w1 = rng.standard_normal((8, 3, 3, 3)).astype(np.float32) * 0.3
    if not per_channel:
        w1 = w1 * 0 + w1.mean()
        w1 += rng.standard_normal(w1.shape).astype(np.float32) * 0.3
    wd, ws = net.weight(w1, 0)
    if not per_channel:
        ws[:] = ws.max()
    b1 = net.bias(rng.standard_normal(8).astype(np.float32) * 0.1, xs, ws)
    y = net.node("Conv", [x, wd, b1], "conv", pads=[1, 1, 1, 1])
    y = net.node("Relu", [y], "relu")
    y, ys = net.qdq(y, 0.03, 0 if act_dtype == np.uint8 else -128)
    y = net.node("MaxPool", [y], "pool", kernel_shape=[2, 2], strides=[2, 2])
    y, ys = net.qdq(y, 0.03, 0 if act_dtype == np.uint8 else -128)
    w2 = rng.standard_normal((16, 8, 3, 3)).astype(np.float32) * 0.2
    wd, ws = net.weight(w2, 0)
    b2 = net.bias(rng.standard_normal(16).astype(np.float32) * 0.1, ys, ws)
    y = net.node("Conv", [y, wd, b2], "conv", strides=[2, 2], pads=[1, 1, 1, 1])
    y = net.node("Clip", [y, net.const("lo", np.float32(0)), net.const("hi", np.float32(6))],
                 "clip")
    y, ys = net.qdq(y, 0.025, 0 if act_dtype == np.uint8 else -128)
    y = net.node("Flatten", [y], "flat")
    y, ys = net.qdq(y, 0.025, 0 if act_dtype == np.uint8 else -128)
    w3 = rng.standard_normal((10, 16 * 4 * 4)).astype(np.float32) * 0.1
    wd, ws = net.weight(w3, 0)
    b3 = net.bias(rng.standard_normal(10).astype(np.float32) * 0.1, ys, ws)
    y = net.node("Gemm", [y, wd, b3], "fc", transB=1)
    y, _ = net.qdq(y, 0.05, zp)
    net.nodes[-1].output[0] = "y"
    return net, [("x", (1, 3, 16, 16))]


def matmul_net(act_dtype):
    """MatMul with a per-column weight, then Relu, on a 3-D activation."""
    net = Net(act_dtype)
    zp = 100 if act_dtype == np.uint8 else -3
    x, xs = net.qdq("x", 0.015, zp)
    w = rng.standard_normal((32, 24)).astype(np.float32) * 0.2
    wd, ws = net.weight(w, 1)
    y = net.node("MatMul", [x, wd], "mm")
    y = net.node("Relu", [y], "relu")
    y, _ = net.qdq(y, 0.02, 5 if act_dtype == np.uint8 else -100)
    net.nodes[-1].output[0] = "y"
    return net, [("x", (2, 5, 32))]


def blocks_net(act_dtype):
    """The other patterns fold_qdq folds: a residual Add + Relu, HardSwish, Sigmoid and
    a Mul (a squeeze-excite gate), AveragePool, a Concat of two scales (one input is
    requantized), GlobalAveragePool, Flatten and a Gemm."""
    net = Net(act_dtype)
    u8 = act_dtype == np.uint8
    zp = 128 if u8 else 0
    x, xs = net.qdq("x", 0.02, zp)
    w1 = rng.standard_normal((8, 4, 3, 3)).astype(np.float32) * 0.3
    wd, ws = net.weight(w1, 0)
    y1 = net.node("Conv", [x, wd, net.bias(rng.standard_normal(8).astype(np.float32) * 0.1,
                                            xs, ws)], "conv", pads=[1, 1, 1, 1])
    y1, s1 = net.qdq(y1, 0.04, 120 if u8 else -8)
    w2 = rng.standard_normal((8, 8, 3, 3)).astype(np.float32) * 0.2
    wd, ws = net.weight(w2, 0)
    y2 = net.node("Conv", [y1, wd, net.bias(rng.standard_normal(8).astype(np.float32) * 0.1,
                                             s1, ws)], "conv", pads=[1, 1, 1, 1])
    y2, _ = net.qdq(y2, 0.05, 130 if u8 else 2)
    r = net.node("Add", [y1, y2], "add")
    r = net.node("Relu", [r], "relu")
    r, _ = net.qdq(r, 0.06, 0 if u8 else -128)
    h = net.node("HardSwish", [r], "hswish")
    h, _ = net.qdq(h, 0.03, 10 if u8 else -118)
    sg = net.node("Sigmoid", [h], "sigmoid")
    sg, _ = net.qdq(sg, 1 / 256, 0 if u8 else -128)
    m = net.node("Mul", [h, sg], "mul")
    m, _ = net.qdq(m, 0.02, 5 if u8 else -123)
    ap = net.node("AveragePool", [m], "avg", kernel_shape=[3, 3], strides=[2, 2],
                  pads=[1, 1, 1, 1])
    ap, _ = net.qdq(ap, 0.015, 3 if u8 else -125)
    mp = net.node("MaxPool", [r], "pool", kernel_shape=[2, 2], strides=[2, 2])
    mp, _ = net.qdq(mp, 0.06, 0 if u8 else -128)
    c = net.node("Concat", [ap, mp], "cat", axis=1)
    c, _ = net.qdq(c, 0.06, 0 if u8 else -128)
    gp = net.node("GlobalAveragePool", [c], "gap")
    gp, gs = net.qdq(gp, 0.04, 2 if u8 else -126)
    f = net.node("Flatten", [gp], "flat")
    f, fs = net.qdq(f, 0.04, 2 if u8 else -126)
    w3 = rng.standard_normal((10, 16)).astype(np.float32) * 0.3
    wd, ws = net.weight(w3, 0)
    b3 = net.bias(rng.standard_normal(10).astype(np.float32) * 0.1, fs, ws)
    y = net.node("Gemm", [f, wd, b3], "fc", transB=1)
    y, _ = net.qdq(y, 0.01, zp)
    net.nodes[-1].output[0] = "y"
    return net, [("x", (1, 4, 12, 12))]


def write(out, name, net, inputs, out_shape, opset=13):
    d = os.path.join(out, name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    g = helper.make_graph(net.nodes, name,
                          [helper.make_tensor_value_info(n, TensorProto.FLOAT, s)
                           for n, s in inputs],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)],
                          net.inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(d, "model.onnx"))
    # One quantization step of the output: ORT evaluates some QDQ groups in float
    # (DequantizeLinear, the float op, QuantizeLinear), where a float accumulation can
    # round to the other side of a step than ingot's exact integer one.
    with open(os.path.join(d, "tolerance"), "w") as fh:
        fh.write(f"rtol = 0\natol = {net.out_scale * 1.001:.9g}\n")
    feeds = []
    for i, (n, s) in enumerate(inputs):
        v = rng.uniform(-2.5, 2.5, s).astype(np.float32)
        f = os.path.join(d, f"in_{i}.bin")
        v.tofile(f)
        with open(os.path.join(d, "test_data_set_0", f"input_{i}.pb"), "wb") as fh:
            fh.write(numpy_helper.from_array(v, n).SerializeToString())
        feeds.append({"name": n, "dtype": "float32", "dims": list(s), "file": f})
    return {"dir": d, "inputs": feeds}


def main():
    out, ort_dir, mjs = (os.path.abspath(a) for a in sys.argv[1:4])
    cases = []
    for dt, tag in ((np.uint8, "u8"), (np.int8, "s8")):
        net, ins = conv_net(dt)
        cases.append(write(out, f"qdq_convnet_{tag}", net, ins, (1, 10)))
        net, ins = matmul_net(dt)
        cases.append(write(out, f"qdq_matmul_{tag}", net, ins, (2, 5, 24)))
        net, ins = blocks_net(dt)
        cases.append(write(out, f"qdq_blocks_{tag}", net, ins, (1, 10), opset=14))
    net, ins = conv_net(np.uint8, per_channel=False)
    cases.append(write(out, "qdq_convnet_per_tensor", net, ins, (1, 10)))
    man = os.path.join(out, "MANIFEST.json")
    with open(man, "w") as f:
        json.dump(cases, f)
    subprocess.run(["node", mjs, man, ort_dir], check=True)
    for c in cases:
        meta = json.load(open(os.path.join(c["dir"], "ort_out.json")))
        for i, o in enumerate(meta):
            v = np.fromfile(os.path.join(c["dir"], f"ort_out_{i}.bin"), np.float32)
            v = v.reshape(o["dims"])
            with open(os.path.join(c["dir"], "test_data_set_0", f"output_{i}.pb"), "wb") as fh:
                fh.write(numpy_helper.from_array(v, o["name"]).SerializeToString())
    print(f"qdq_models: wrote {len(cases)} cases with ORT's outputs (weights in "
          f"[-{WEIGHT_QMAX}, {WEIGHT_QMAX}])")


if __name__ == "__main__":
    main()
