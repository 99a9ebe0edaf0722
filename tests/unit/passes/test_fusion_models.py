#!/usr/bin/python3
"""End-to-end check of the fusion passes on small generated models: a ResNet basic
block (Conv-BN-Relu-Conv-BN-Add-Relu), a MobileNetV2 inverted residual (Conv-BN-
Clip(0,6), depthwise Conv-BN-Clip, Conv-BN, Add) and a Linear stack (MatMul+Add-BN-
Relu, MatMul+Add-Sigmoid), and Conv/MatMul+Add followed by Gelu, both forms. For each: at -O2 the final IR has no BatchNormalization
and no standalone Relu/Clip/Sigmoid/Gelu (all fused into Conv/Gemm), and `ingot check`
passes against a numpy reference at both -O0 and -O2.

usage: test_fusion_models.py INGOT WORKDIR
"""
import math
import os
import re
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

RNG = np.random.default_rng(7)
EPS = 1e-5


def rand(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


class Builder:
    def __init__(self):
        self.nodes, self.inits, self.n = [], [], 0

    def const(self, name, arr):
        self.inits.append(numpy_helper.from_array(np.asarray(arr), name))
        return name

    def node(self, op, inputs, out=None, **attrs):
        self.n += 1
        out = out or "%s_%d" % (op.lower(), self.n)
        self.nodes.append(helper.make_node(op, inputs, [out], name="%s_%d" % (op, self.n), **attrs))
        return out

    def model(self, x_shape, y_shape, name, opset=13):
        g = helper.make_graph(self.nodes, name,
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, y_shape)],
                              self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
        if opset <= 17:          # Debian's ONNX 1.12 checker knows opsets up to 17
            onnx.checker.check_model(m)
        return m


# ---- numpy reference ----

def conv(x, w, b=None, pad=0, group=1):
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = h + 2 * pad - kh + 1, wd + 2 * pad - kw + 1
    y = np.zeros((n, m, oh, ow))
    mg = m // group
    for oc in range(m):
        g = oc // mg
        for i in range(kh):
            for j in range(kw):
                patch = xp[:, g * cg:(g + 1) * cg, i:i + oh, j:j + ow]
                y[:, oc] += np.einsum("ncij,c->nij", patch, w[oc, :, i, j].astype(np.float64))
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y


def bn(x, p):
    s, b, mean, var = p
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + EPS) * s.reshape(shape) + \
        b.reshape(shape)


def bn_params(c):
    # random statistics: the defaults would make BatchNormalization an identity
    return (rand(c, scale=0.5) + 1, rand(c, scale=0.3), rand(c, scale=0.3),
            np.abs(rand(c)).astype(np.float32) + 0.5)


def add_bn(bd, x, c, params):
    names = [bd.const("bn%d_%s" % (bd.n, k), v) for k, v in zip("sbmv", params)]
    return bd.node("BatchNormalization", [x] + names, epsilon=EPS)


# ---- models ----

def resnet_block():
    c = 8
    x = rand(1, c, 6, 6)
    w1, w2 = rand(c, c, 3, 3, scale=0.2), rand(c, c, 3, 3, scale=0.2)
    p1, p2 = bn_params(c), bn_params(c)
    bd = Builder()
    t = bd.node("Conv", ["x", bd.const("w1", w1)], pads=[1, 1, 1, 1])
    t = bd.node("Relu", [add_bn(bd, t, c, p1)])
    t = bd.node("Conv", [t, bd.const("w2", w2)], pads=[1, 1, 1, 1])
    t = bd.node("Add", [add_bn(bd, t, c, p2), "x"])
    bd.node("Relu", [t], out="y")
    ref = np.maximum(bn(conv(np.maximum(bn(conv(x, w1, pad=1), p1), 0), w2, pad=1), p2) + x, 0)
    return bd.model(x.shape, ref.shape, "resnet_block"), x, ref


def mobilenet_block():
    c, e = 8, 16
    x = rand(1, c, 6, 6)
    w1, wd, w3 = rand(e, c, 1, 1, scale=0.5), rand(e, 1, 3, 3, scale=0.5), rand(c, e, 1, 1, scale=0.3)
    p1, p2, p3 = bn_params(e), bn_params(e), bn_params(c)
    bd = Builder()
    lo, hi = bd.const("zero", np.array(0, np.float32)), bd.const("six", np.array(6, np.float32))
    t = bd.node("Conv", ["x", bd.const("w_expand", w1)])
    t = bd.node("Clip", [add_bn(bd, t, e, p1), lo, hi])
    t = bd.node("Conv", [t, bd.const("w_dw", wd)], pads=[1, 1, 1, 1], group=e)
    t = bd.node("Clip", [add_bn(bd, t, e, p2), lo, hi])
    t = bd.node("Conv", [t, bd.const("w_project", w3)])
    bd.node("Add", ["x", add_bn(bd, t, c, p3)], out="y")
    r = np.clip(bn(conv(x, w1), p1), 0, 6)
    r = np.clip(bn(conv(r, wd, pad=1, group=e), p2), 0, 6)
    ref = x + bn(conv(r, w3), p3)
    return bd.model(x.shape, ref.shape, "mobilenet_block"), x, ref


def linear():
    x = rand(4, 16)
    w1, b1, w2, b2 = rand(16, 32, scale=0.3), rand(32), rand(32, 10, scale=0.3), rand(10)
    p = bn_params(32)
    bd = Builder()
    t = bd.node("MatMul", ["x", bd.const("w1", w1)])
    t = bd.node("Add", [t, bd.const("b1", b1)])
    t = bd.node("Relu", [add_bn(bd, t, 32, p)])
    t = bd.node("MatMul", [t, bd.const("w2", w2)])
    t = bd.node("Add", [bd.const("b2", b2), t])
    bd.node("Sigmoid", [t], out="y")
    h = np.maximum(bn(x.astype(np.float64) @ w1 + b1, p), 0)
    ref = 1 / (1 + np.exp(-(h @ w2 + b2)))
    return bd.model(x.shape, ref.shape, "linear"), x, ref


def gelu_erf(v):
    return 0.5 * v * (1 + np.vectorize(math.erf)(v / math.sqrt(2)))


def gelu_mlp():
    """Conv-Gelu, MatMul+Add-Gelu(tanh), MatMul+Add-Gelu (opset 20's Gelu op)."""
    x = rand(2, 3, 5, 5)
    wc, bc = rand(4, 3, 3, 3, scale=0.3), rand(4)
    w1, b1, w2, b2 = rand(100, 24, scale=0.2), rand(24), rand(24, 6, scale=0.3), rand(6)
    bd = Builder()
    t = bd.node("Conv", ["x", bd.const("wc", wc), bd.const("bc", bc)], pads=[1, 1, 1, 1])
    t = bd.node("Gelu", [t])
    t = bd.node("Reshape", [t, bd.const("shape", np.array([2, 100], np.int64))])
    t = bd.node("MatMul", [t, bd.const("w1", w1)])
    t = bd.node("Add", [t, bd.const("b1", b1)])
    t = bd.node("Gelu", [t], approximate="tanh")
    t = bd.node("MatMul", [t, bd.const("w2", w2)])
    t = bd.node("Add", [t, bd.const("b2", b2)])
    bd.node("Gelu", [t], out="y", approximate="none")
    h = gelu_erf(conv(x.astype(np.float64), wc, bc, pad=1)).reshape(2, 100) @ w1 + b1
    h = 0.5 * h * (1 + np.tanh(math.sqrt(2 / math.pi) * (h + 0.044715 * h ** 3)))
    ref = gelu_erf(h @ w2 + b2)
    return bd.model(x.shape, ref.shape, "gelu_mlp", opset=20), x, ref


# ---- checks ----

def node_ops(ingot, model_path, level, work):
    r = subprocess.run([ingot, "compile", model_path, "-o", os.path.join(work, "out" + level), level,
                        "--dump-ir", "-"], capture_output=True, text=True)
    if r.returncode:
        raise SystemExit("compile %s %s failed: %s" % (model_path, level, r.stderr))
    return re.findall(r"^%\S* = (\w+)\(", r.stdout, re.M)


def main():
    ingot, work = sys.argv[1], sys.argv[2]
    failed = 0
    for make in (resnet_block, mobilenet_block, linear, gelu_mlp):
        model, x, ref = make()
        d = os.path.join(work, model.graph.name)
        os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
        path = os.path.join(d, "model.onnx")
        onnx.save(model, path)
        for name, arr in (("input_0", x), ("output_0", ref.astype(np.float32))):
            with open(os.path.join(d, "test_data_set_0", name + ".pb"), "wb") as f:
                f.write(numpy_helper.from_array(arr, "x" if name == "input_0" else "y")
                        .SerializeToString())
        before = node_ops(ingot, path, "-O0", d)
        after = node_ops(ingot, path, "-O2", d)
        leftover = [op for op in after if op in ("BatchNormalization", "Relu", "Clip", "Sigmoid",
                                                 "Gelu", "Add", "MatMul")]
        print("%s: %d nodes at -O0 (%s), %d at -O2 (%s)" % (model.graph.name, len(before),
              " ".join(before), len(after), " ".join(after)))
        if leftover:
            print("FAIL %s: not fused at -O2: %s" % (model.graph.name, " ".join(leftover)))
            failed += 1
        for level in ("-O0", "-O2"):
            r = subprocess.run([ingot, "check", d, level], capture_output=True, text=True)
            ok = r.returncode == 0
            print("%s %s %s%s" % ("PASS" if ok else "FAIL", model.graph.name, level,
                                  "" if ok else ": " + r.stdout.strip() + r.stderr.strip()))
            failed += not ok
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
