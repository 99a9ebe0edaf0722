#!/usr/bin/env python3
"""fold_pad: a constant Pad before a Conv (zeros) or a MaxPool (-inf) on the spatial
axes becomes that node's padding (the Pad disappears from the final graph, `inspect
--json` ops), and the results still match numpy (`ingot check`, targets c and host:
the reference kernels and the SIMD ones, dense, strided and depthwise). A Pad that
must stay (another value, reflect mode, a padded channel axis, a second reader, a
crop, MaxPool's ceil_mode) stays, with the same results."""
import json
import os

import numpy as np
from onnx import TensorProto, helper

from common import (check, check_all_pass, init, main, model, pool2d, randf, rng, run_ok, save,
                    vi, write_test_dir)

F = TensorProto.FLOAT
N = helper.make_node


def conv_ref(x, w, b, stride, pads, group):
    """grouped 2-D convolution in float64, pads [t, l, b, r]"""
    t, l, bo, r = pads
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (t, bo), (l, r)))
    n, c, h, wd = xp.shape
    m, cg, kh, kw = w.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    y = np.zeros((n, m, oh, ow))
    mg = m // group
    for gi in range(group):
        xs = xp[:, gi * cg:(gi + 1) * cg]
        for i in range(kh):
            for j in range(kw):
                patch = xs[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride]
                y[:, gi * mg:(gi + 1) * mg] += np.einsum("nchw,mc->nmhw", patch,
                                                         w[gi * mg:(gi + 1) * mg, :, i, j].astype(np.float64))
    return (y + b.reshape(1, -1, 1, 1)).astype(np.float32)


def pad_node(inits, name, x, out, pads, value, mode="constant"):
    inits += [init(name + "_p", np.array(pads, np.int64)), init(name + "_v", np.array(value, np.float32))]
    return N("Pad", [x, name + "_p", name + "_v"], [out], name=name, mode=mode)


class Cases:
    """branches of one model, each on its own input: one build checks them all"""

    def __init__(self):
        self.nodes, self.inits, self.ins, self.outs, self.xs, self.ys = [], [], [], [], [], []

    def input(self, arr):
        name = "x%d" % len(self.xs)
        self.xs.append(arr)
        self.ins.append(vi(name, F, list(arr.shape)))
        return name

    def output(self, arr):
        name = "y%d" % len(self.ys)
        self.ys.append(arr)
        self.outs.append(vi(name, F, list(arr.shape)))
        return name

    def write(self, work, name):
        m = model(self.nodes, self.ins, self.outs, self.inits)
        return write_test_dir(work, name, m, self.xs, self.ys)


def test(ingot, work):
    r = rng(11)
    fold, keep = Cases(), Cases()

    # ---- folded: dense stride-2 Conv (TF "SAME" as Pad + VALID conv), own pads too ----
    x = randf(r, 1, 8, 17, 19)
    w, b = randf(r, 16, 8, 3, 3), randf(r, 16)
    c = fold
    c.inits += [init("w0", w), init("b0", b)]
    xi = c.input(x)
    c.nodes += [pad_node(c.inits, "pad0", xi, "xp0", [0, 0, 0, 1, 0, 0, 1, 1], 0.0),
                N("Conv", ["xp0", "w0", "b0"], [c.output(conv_ref(x, w, b, 2, [1, 1, 1, 1], 1))], name="conv0",
                  strides=[2, 2], pads=[1, 0, 0, 0])]

    # ---- folded: depthwise stride 2 with a Relu after (MobileNet-style detectors) ----
    x = randf(r, 1, 16, 20, 20)
    w, b = randf(r, 16, 1, 3, 3), randf(r, 16)
    c.inits += [init("w1", w), init("b1", b)]
    xi = c.input(x)
    c.nodes += [pad_node(c.inits, "pad1", xi, "xp1", [0, 0, 1, 1, 0, 0, 1, 1], 0.0),
                N("Conv", ["xp1", "w1", "b1"], ["c1"], name="dw", strides=[2, 2], group=16),
                N("Relu", ["c1"], [c.output(np.maximum(conv_ref(x, w, b, 2, [1, 1, 1, 1], 16), 0))], name="relu1")]

    # ---- folded: MaxPool after a -inf Pad ----
    x = randf(r, 1, 8, 15, 15)
    xi = c.input(x)
    c.nodes += [pad_node(c.inits, "pad2", xi, "xp2", [0, 0, 1, 0, 0, 0, 1, 1], -np.inf),
                N("MaxPool", ["xp2"], [c.output(pool2d(x, (3, 3), (2, 2), (1, 0, 1, 1)))], name="pool2",
                  kernel_shape=[3, 3], strides=[2, 2])]

    # ---- kept: each breaks one condition ----
    c = keep
    x = randf(r, 1, 4, 9, 9)
    w, b = randf(r, 6, 4, 3, 3), randf(r, 6)
    c.inits += [init("w", w), init("b", b)]
    for i, (pads, value, mode, want) in enumerate((
            ([0, 0, 1, 1, 0, 0, 1, 1], 0.5, "constant",
             lambda xx: np.pad(xx, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=0.5)),
            ([0, 0, 1, 1, 0, 0, 1, 1], 0.0, "reflect",
             lambda xx: np.pad(xx, ((0, 0), (0, 0), (1, 1), (1, 1)), mode="reflect")),
            ([0, 0, -1, 0, 0, 0, 1, 0], 0.0, "constant",
             lambda xx: np.pad(xx[:, :, 1:], ((0, 0), (0, 0), (0, 1), (0, 0)))))):
        xi = c.input(x)
        c.nodes += [pad_node(c.inits, "kpad%d" % i, xi, "kxp%d" % i, pads, value, mode),
                    N("Conv", ["kxp%d" % i, "w", "b"], [c.output(conv_ref(want(x), w, b, 1, [0, 0, 0, 0], 1))],
                      name="kconv%d" % i)]
    # a padded channel axis
    w5 = randf(r, 6, 5, 3, 3)
    c.inits += [init("w5", w5)]
    xi = c.input(x)
    xc = np.pad(x, ((0, 0), (1, 0), (1, 1), (1, 1)))
    c.nodes += [pad_node(c.inits, "cpad", xi, "cxp", [0, 1, 1, 1, 0, 0, 1, 1], 0.0),
                N("Conv", ["cxp", "w5", "b"], [c.output(conv_ref(xc, w5, b, 1, [0, 0, 0, 0], 1))], name="cconv")]
    # two readers of the padded tensor
    xi = c.input(x)
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    c.nodes += [pad_node(c.inits, "spad", xi, "sxp", [0, 0, 1, 1, 0, 0, 1, 1], 0.0),
                N("Conv", ["sxp", "w", "b"], [c.output(conv_ref(xp, w, b, 1, [0, 0, 0, 0], 1))], name="sconv"),
                N("Relu", ["sxp"], [c.output(np.maximum(xp, 0))], name="srelu")]
    # MaxPool with ceil_mode
    xm = randf(r, 1, 3, 10, 10)
    xi = c.input(xm)
    xmp = np.pad(xm, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)   # ceil: one more window
    c.nodes += [pad_node(c.inits, "mpad", xi, "mxp", [0, 0, 1, 1, 0, 0, 0, 0], -np.inf),
                N("MaxPool", ["mxp"], [c.output(pool2d(xmp, (3, 3), (2, 2), (0, 0, 0, 0))[:, :, :5, :5])],
                  name="mpool", kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)]

    dirs = [fold.write(work, "folded"), keep.write(work, "kept")]
    for d, want in zip(dirs, (0, 6)):
        ops = json.loads(run_ok([ingot, "inspect", os.path.join(d, "model.onnx"), "--json"])[0])["ops"]
        check(ops.get("Pad", 0) == want, "%s: %d Pad nodes left, expected %d (ops %r)"
              % (os.path.basename(d), ops.get("Pad", 0), want, ops))
    for target in ("c", "host"):
        check_all_pass(ingot, dirs, "--target", target, "-j", "2")


if __name__ == "__main__":
    main(test)
