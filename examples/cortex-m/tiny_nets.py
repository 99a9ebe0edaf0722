#!/usr/bin/env python3
"""The four MLPerf Tiny reference architectures, with random weights (fixed seed), each
written twice: an fp32 ONNX model and an int8 QDQ one (QuantizeLinear/DequantizeLinear
around every activation, int8 weights symmetric per output channel, int32 biases at
x_scale * w_scale, s8 activations with scales from this net's own float activations on
the sample input, as a min/max calibration on one input would set them).

  kws     DS-CNN keyword spotting: 49x10x1 MFCCs, conv 10x4/2 then four depthwise-
          separable blocks of 64, average pool, 12 classes
  resnet8 ResNet-8 image classification: 32x32x3, three residual stacks (16, 32, 64)
  vww     MobileNetV1 0.25 visual wake words: 96x96x3, 13 depthwise-separable blocks,
          2 classes
  ae      FC autoencoder anomaly detection: 640 -> 128 x4 -> 8 -> 128 x4 -> 640

usage: tiny_nets.py OUT_DIR   (writes NAME_fp32.onnx, NAME_int8.onnx, NAME_input.pb,
       NAME_input.h for each net)"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(20261203)


def conv2d(x, w, b, stride, pad, group):
    """NCHW convolution in numpy (the float reference for the activation ranges)."""
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[2]), (pad[1], pad[3])))
    win = np.lib.stride_tricks.sliding_window_view(xp, (kh, kw), axis=(2, 3))
    win = win[:, :, ::stride, ::stride]                  # n, c, oh, ow, kh, kw
    outs = []
    for g in range(group):
        xs = win[:, g * cg:(g + 1) * cg]
        ws = w[g * (m // group):(g + 1) * (m // group)]
        outs.append(np.einsum("ncyxij,mcij->nmyx", xs, ws))
    return np.concatenate(outs, axis=1) + b.reshape(1, -1, 1, 1)


class Net:
    """Builds the fp32 and the QDQ graph of one net at once, running it in numpy."""

    def __init__(self, name, x):
        self.name, self.k = name, 0
        self.f_nodes, self.q_nodes, self.f_inits, self.q_inits = [], [], [], []
        self.x = x
        self.cur = ("input", "input", x)                  # (fp32 name, QDQ name, value)
        self.cur = self.quant(self.cur)

    def uid(self, base):
        self.k += 1
        return f"{base}_{self.k}"

    def init(self, both, base, arr):
        nm = self.uid(base)
        t = numpy_helper.from_array(np.asarray(arr), nm)
        if both:
            self.f_inits.append(t)
        self.q_inits.append(t)
        return nm

    def node(self, op, f_in, q_in, base, **attrs):
        out = self.uid(base)
        self.f_nodes.append(helper.make_node(op, f_in, [out], name=self.uid(op), **attrs))
        self.q_nodes.append(helper.make_node(op, q_in, [out + "_q"], name=self.uid(op),
                                             **attrs))
        return out, out + "_q"

    def quant(self, t):
        """Q/DQ on the QDQ graph's tensor t: s8, range from the float value."""
        f, q, v = t
        lo, hi = min(float(v.min()), 0.0), max(float(v.max()), 0.0)
        scale = np.float32(max(hi - lo, 1e-6) / 255.0)
        zp = np.int8(np.clip(np.rint(-128 - lo / scale), -128, 127))
        s, z = self.init(False, "s", scale), self.init(False, "z", zp)
        qn, dq = self.uid("q"), self.uid("dq")
        self.q_nodes.append(helper.make_node("QuantizeLinear", [q, s, z], [qn], name=qn))
        self.q_nodes.append(helper.make_node("DequantizeLinear", [qn, s, z], [dq], name=dq))
        self.scale = scale
        return (f, dq, v)

    def weight(self, w, axis):
        red = tuple(i for i in range(w.ndim) if i != axis)
        ws = (np.abs(w).max(axis=red) / 127).astype(np.float32)
        ws[ws == 0] = 1e-8
        shp = [1] * w.ndim
        shp[axis] = -1
        wq = np.clip(np.rint(w / ws.reshape(shp)), -127, 127).astype(np.int8)
        f = self.init(False, "w", wq)
        dq = self.uid("wdq")
        self.q_nodes.append(helper.make_node(
            "DequantizeLinear", [f, self.init(False, "ws", ws),
                                 self.init(False, "wz", np.zeros(ws.shape, np.int8))],
            [dq], name=dq, axis=axis))
        fw = numpy_helper.from_array(w.astype(np.float32), self.uid("wf"))
        self.f_inits.append(fw)
        return fw.name, dq, ws

    def bias(self, b, ws):
        bs = (np.float32(self.scale) * ws).astype(np.float32)
        bq = np.rint(b / bs).astype(np.int32)
        dq = self.uid("bdq")
        self.q_nodes.append(helper.make_node(
            "DequantizeLinear", [self.init(False, "b", bq), self.init(False, "bs", bs),
                                 self.init(False, "bz", np.zeros(bs.shape, np.int32))],
            [dq], name=dq, axis=0))
        fb = numpy_helper.from_array(b.astype(np.float32), self.uid("bf"))
        self.f_inits.append(fb)
        return fb.name, dq

    def conv(self, m, k, stride=1, group=1, relu=True, src=None):
        f, q, v = src or self.cur
        c = v.shape[1]
        kh, kw = (k, k) if isinstance(k, int) else k
        w = rng.standard_normal((m, c // group, kh, kw)).astype(np.float32)
        w *= np.float32(np.sqrt(2.0 / (c // group * kh * kw)))
        b = (rng.standard_normal(m) * 0.05).astype(np.float32)
        fw, qw, ws = self.weight(w, 0)
        fb, qb = self.bias(b, ws)
        # "same" padding, the odd pixel at the end as TensorFlow pads
        tot = [max((-(-n // stride) - 1) * stride + kk - n, 0)
               for n, kk in ((v.shape[2], kh), (v.shape[3], kw))]
        pads = [tot[0] // 2, tot[1] // 2, tot[0] - tot[0] // 2, tot[1] - tot[1] // 2]
        y = conv2d(v, w, b, stride, pads, group)
        f, q = self.node("Conv", [f, fw, fb], [q, qw, qb], "conv", strides=[stride, stride],
                         pads=pads, group=group)
        t = (f, q, y)
        if relu:
            t = self.relu(t)
        self.cur = self.quant(t)
        return self.cur

    def relu(self, t):
        f, q, v = t
        f, q = self.node("Relu", [f], [q], "relu")
        return (f, q, np.maximum(v, 0))

    def add_relu(self, a, b):
        f, q = self.node("Add", [a[0], b[0]], [a[1], b[1]], "add")
        self.cur = self.quant(self.relu((f, q, a[2] + b[2])))
        return self.cur

    def avgpool(self, k):
        f, q, v = self.cur
        n, c, h, w = v.shape
        y = v[:, :, :h // k[0] * k[0], :w // k[1] * k[1]]
        y = y.reshape(n, c, h // k[0], k[0], w // k[1], k[1]).mean(axis=(3, 5))
        f, q = self.node("AveragePool", [f], [q], "avgpool", kernel_shape=list(k),
                         strides=list(k))
        self.cur = self.quant((f, q, y))

    def flatten(self):
        f, q, v = self.cur
        f, q = self.node("Flatten", [f], [q], "flatten")
        self.cur = self.quant((f, q, v.reshape(v.shape[0], -1)))

    def fc(self, n, relu=True):
        f, q, v = self.cur
        w = (rng.standard_normal((n, v.shape[1])) * np.sqrt(2.0 / v.shape[1])).astype(np.float32)
        b = (rng.standard_normal(n) * 0.05).astype(np.float32)
        fw, qw, ws = self.weight(w, 0)
        fb, qb = self.bias(b, ws)
        f, q = self.node("Gemm", [f, fw, fb], [q, qw, qb], "fc", transB=1)
        t = (f, q, v @ w.T + b)
        if relu:
            t = self.relu(t)
        self.cur = self.quant(t)

    def write(self, out):
        f, q, v = self.cur
        for nodes, last in ((self.f_nodes, f), (self.q_nodes, q)):
            for nd in nodes:
                for i, o in enumerate(nd.output):
                    if o == last:
                        nd.output[i] = "output"
        for tag, nodes, inits in (("fp32", self.f_nodes, self.f_inits),
                                  ("int8", self.q_nodes, self.q_inits)):
            g = helper.make_graph(nodes, f"{self.name}_{tag}",
                                  [helper.make_tensor_value_info("input", TensorProto.FLOAT,
                                                                 self.x.shape)],
                                  [helper.make_tensor_value_info("output", TensorProto.FLOAT,
                                                                 v.shape)], inits)
            m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
            m.ir_version = 8
            onnx.checker.check_model(m)
            onnx.save(m, os.path.join(out, f"{self.name}_{tag}.onnx"))
        with open(os.path.join(out, f"{self.name}_input.pb"), "wb") as fh:
            fh.write(numpy_helper.from_array(self.x, "input").SerializeToString())
        vals = ", ".join(f"{float(a)!r}f" for a in self.x.ravel())
        with open(os.path.join(out, f"{self.name}_input.h"), "w") as fh:
            fh.write(f"/* {self.name}: the sample input (tiny_nets.py) */\n"
                     f"static const float net_input[{self.x.size}] = {{ {vals} }};\n")


def kws():
    net = Net("kws", rng.uniform(-1, 1, (1, 1, 49, 10)).astype(np.float32))
    net.conv(64, (10, 4), stride=2)
    for _ in range(4):
        net.conv(64, 3, group=64)
        net.conv(64, 1)
    net.avgpool((25, 5))
    net.flatten()
    net.fc(12, relu=False)
    return net


def resnet8():
    net = Net("resnet8", rng.uniform(0, 1, (1, 3, 32, 32)).astype(np.float32))
    net.conv(16, 3)
    for m, stride in ((16, 1), (32, 2), (64, 2)):
        x = net.cur
        net.conv(m, 3, stride=stride)
        y = net.conv(m, 3, relu=False)
        sc = x if stride == 1 else net.conv(m, 1, stride=stride, relu=False, src=x)
        net.add_relu(y, sc)
    net.avgpool((8, 8))
    net.flatten()
    net.fc(10, relu=False)
    return net


def vww():
    net = Net("vww", rng.uniform(0, 1, (1, 3, 96, 96)).astype(np.float32))
    net.conv(8, 3, stride=2)
    for m, stride in ((16, 1), (32, 2), (32, 1), (64, 2), (64, 1), (128, 2), (128, 1),
                      (128, 1), (128, 1), (128, 1), (128, 1), (256, 2), (256, 1)):
        c = net.cur[2].shape[1]
        net.conv(c, 3, stride=stride, group=c)
        net.conv(m, 1)
    net.avgpool((3, 3))
    net.flatten()
    net.fc(2, relu=False)
    return net


def ae():
    net = Net("ae", rng.uniform(-1, 1, (1, 640)).astype(np.float32))
    for n in (128, 128, 128, 128):
        net.fc(n)
    net.fc(8)
    for n in (128, 128, 128, 128):
        net.fc(n)
    net.fc(640, relu=False)
    return net


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for make in (kws, resnet8, vww, ae):
        make().write(out)
    print(f"tiny_nets: wrote kws, resnet8, vww and ae to {out}")


if __name__ == "__main__":
    main()
