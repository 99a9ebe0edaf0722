#!/usr/bin/python3
"""The x86 targets' generated kernels (suite unit).

usage: x86_test.py INGOT WORKDIR
1. Builds small models with constant weights (so the compiler pre-packs them) that
   cover the x86 kernels' paths: Conv with tile edges in rows and columns, several
   k-blocks, groups, depthwise (dwconv.c: strides 1 and 2, unrolled and generic
   windows, and the cases left to sgemm.c), direct convolution (dconv.c: in place,
   padded, stride-2 phases, 1-D), strides, dilation, padding, 1-D, every fused
   epilogue (bias, residual, Relu/Clip/LeakyRelu/HardSigmoid/HardSwish in the
   microkernel, Sigmoid/Tanh/Gelu after it); Add/Sub/Mul/Div with broadcasts;
   Gemm with transB, alpha/beta and a C row or matrix; MatMul with a packed B, a shared batched B and two run-time operands; MaxPool and
   AveragePool with pads and both count_include_pad rules. Expected outputs come
   from numpy; `ingot check --target x86-avx512` and `--target x86-avx2` must pass
   them all (a target whose instructions this CPU lacks is not run, and the test
   then exits 77, skipped; cpu.py).
2. Each compiled model calls the x86 kernels, its weights are packed (the emitted
   blob differs from the ONNX initializers' bytes), the generated ukernel.h holds
   the register-blocked microkernels, and the objects hold vector FMAs on zmm
   (AVX-512) or ymm (AVX2) registers.
"""
import math
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from cpu import finish, runnable

# the sanitizers of a sanitizer build, for the generated code and kernels (meson.build)
SAN_CFLAGS = ["--cflags", os.environ["INGOT_CHECK_CFLAGS"]] if os.environ.get("INGOT_CHECK_CFLAGS") else []

ingot, work = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(7)
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL " + msg)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


# ---- numpy references ----

def conv_ref(x, w, b, strides, pads, dil, group):
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    oh = (h + pads[0] + pads[2] - dil[0] * (kh - 1) - 1) // strides[0] + 1
    ow = (wd + pads[1] + pads[3] - dil[1] * (kw - 1) - 1) // strides[1] + 1
    y = np.zeros((n, m, oh, ow), np.float64)
    mg = m // group
    for g in range(group):
        xs = xp[:, g * cg:(g + 1) * cg].astype(np.float64)
        ws = w[g * mg:(g + 1) * mg].astype(np.float64)
        for i in range(kh):
            for j in range(kw):
                patch = xs[:, :, i * dil[0]: i * dil[0] + strides[0] * (oh - 1) + 1: strides[0],
                           j * dil[1]: j * dil[1] + strides[1] * (ow - 1) + 1: strides[1]]
                y[:, g * mg:(g + 1) * mg] += np.einsum("ncpq,mc->nmpq", patch, ws[:, :, i, j])
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y


def pool_ref(x, kind, k, strides, pads, include_pad, ceil=False):
    n, c, h, w = x.shape
    def out(size, kk, s, pb, pe):
        num = size + pb + pe - kk
        return (-(-num // s) if ceil else num // s) + 1
    oh, ow = out(h, k[0], strides[0], pads[0], pads[2]), out(w, k[1], strides[1], pads[1], pads[3])
    y = np.zeros((n, c, oh, ow), np.float32)
    for a in range(oh):
        for b in range(ow):
            y0, x0 = a * strides[0] - pads[0], b * strides[1] - pads[1]
            ys, xs = max(y0, 0), max(x0, 0)
            ye, xe = min(y0 + k[0], h), min(x0 + k[1], w)
            win = x[:, :, ys:ye, xs:xe]
            if kind == "max":
                y[:, :, a, b] = win.max(axis=(2, 3))
            else:
                if include_pad:
                    cnt = (min(y0 + k[0], h + pads[2]) - max(y0, -pads[0])) * \
                          (min(x0 + k[1], w + pads[3]) - max(x0, -pads[1]))
                else:
                    cnt = (ye - ys) * (xe - xs)
                y[:, :, a, b] = win.sum(axis=(2, 3)) / cnt
    return y


ACTS = {
    "Relu": (lambda v: np.maximum(v, 0), {}),
    "Clip": (lambda v: np.clip(v, 0, 6), None),
    "LeakyRelu": (lambda v: np.where(v < 0, 0.1 * v, v), {"alpha": 0.1}),
    "Sigmoid": (lambda v: 1 / (1 + np.exp(-v)), {}),
    "HardSwish": (lambda v: v * np.clip(v / 6 + 0.5, 0, 1), {}),
    "HardSigmoid": (lambda v: np.clip(0.3 * v + 0.4, 0, 1), {"alpha": 0.3, "beta": 0.4}),
    "Tanh": (np.tanh, {}),
    # Gelu (opset 20), exact and tanh forms: after the microkernels, in simd/vmath.h
    "Gelu": (lambda v: 0.5 * v * (1 + np.vectorize(math.erf)(v / math.sqrt(2))), {}),
    "GeluTanh": (lambda v: 0.5 * v * (1 + np.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3))),
                 {"approximate": "tanh"}),
}


# ---- model building ----

class Model:
    def __init__(self, name):
        self.name, self.nodes, self.inits, self.inputs, self.feeds = name, [], [], [], []
        self.opset = 14
        self.k = 0

    def const(self, arr):
        self.k += 1
        nm = "w%d" % self.k
        self.inits.append(numpy_helper.from_array(arr, nm))
        return nm

    def input(self, arr):
        nm = "in%d" % len(self.inputs)
        self.inputs.append(helper.make_tensor_value_info(nm, TensorProto.FLOAT, list(arr.shape)))
        self.feeds.append(arr)
        return nm

    def node(self, op, ins, **attrs):
        self.k += 1
        out = "t%d" % self.k
        self.nodes.append(helper.make_node(op, ins, [out], **attrs))
        return out

    def act(self, name, v):
        if name == "Clip":
            return self.node("Clip", [v, self.const(np.float32(0)), self.const(np.float32(6))])
        if name.startswith("Gelu"):
            self.opset = 20
            return self.node("Gelu", [v], **ACTS[name][1])
        return self.node(name, [v], **ACTS[name][1])

    def save(self, out, expected, atol=None, rtol=None):
        d = os.path.join(work, "data", self.name)
        os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
        if atol is not None or rtol is not None:   # read by ingot check (default rtol 1e-3)
            open(os.path.join(d, "tolerance"), "w").write(
                "".join("%s=%g\n" % (k, v) for k, v in (("atol", atol), ("rtol", rtol)) if v is not None))
        y = helper.make_tensor_value_info(out, TensorProto.FLOAT, list(expected.shape))
        g = helper.make_graph(self.nodes, self.name, self.inputs, [y], self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", self.opset)])
        onnx.save(m, os.path.join(d, "model.onnx"))
        for i, a in enumerate(self.feeds):
            t = numpy_helper.from_array(a, self.inputs[i].name)
            open(os.path.join(d, "test_data_set_0", "input_%d.pb" % i), "wb").write(t.SerializeToString())
        t = numpy_helper.from_array(expected.astype(np.float32), out)
        open(os.path.join(d, "test_data_set_0", "output_0.pb"), "wb").write(t.SerializeToString())
        return d


def conv_case(name, n, c, h, w, m, k, strides=(1, 1), pads=(0, 0, 0, 0), dil=(1, 1), group=1,
              bias=True, act=None, residual=False, one_d=False, atol=None):
    md = Model(name)
    x = f32(n, c, h, w)
    wt = (f32(m, c // group, k[0], k[1]) / np.sqrt(c // group * k[0] * k[1])).astype(np.float32)
    b = f32(m) if bias else None
    y = conv_ref(x, wt, b, strides, pads, dil, group)
    if one_d:
        xi = md.input(x[:, :, 0, :])
        ins = [xi, md.const(wt[:, :, 0, :])] + ([md.const(b)] if bias else [])
        v = md.node("Conv", ins, strides=[strides[1]], pads=[pads[1], pads[3]], dilations=[dil[1]],
                    group=group)
        y = y[:, :, 0, :]
    else:
        xi = md.input(x)
        ins = [xi, md.const(wt)] + ([md.const(b)] if bias else [])
        v = md.node("Conv", ins, strides=list(strides), pads=list(pads), dilations=list(dil),
                    group=group)
    if residual:
        r = f32(*y.shape)
        v = md.node("Add", [v, md.input(r)])
        y = y + r
    if act:
        v = md.act(act, v)
        y = ACTS[act][0](y)
    return md.save(v, y, atol)


def block_case(name, n, c, h, w, e, m, k=3, stride=1, act="Clip", dw_act="Clip", residual=False,
               tail=None, branch=False):
    """An inverted-residual block: 1x1 expand (c -> e) + act, depthwise k x k + dw_act,
    1x1 project (e -> m) + the input as residual; then `tail` more 1x1 Convs
    (channel counts, Relu after each); `branch`: the expanded tensor is read by the
    depthwise Conv and by a second 1x1 Conv, whose output is added at the end. The
    tensors between them may be blocked (pwconv.h) on the x86 targets."""
    md = Model(name)
    x = f32(n, c, h, w)

    def conv(v, ref, ci, co, kk, group=1, stride=1, pad=0, act=None):
        wt = (f32(co, ci // group, kk, kk) / np.sqrt(ci // group * kk * kk)).astype(np.float32)
        b = f32(co)
        out = md.node("Conv", [v, md.const(wt), md.const(b)], strides=[stride, stride], pads=[pad] * 4,
                      group=group)
        r = conv_ref(ref, wt, b, (stride, stride), (pad,) * 4, (1, 1), group)
        if act:
            out = md.act(act, out)
            r = ACTS[act][0](r)
        return out, r.astype(np.float32)

    xi = md.input(x)
    t, y = conv(xi, x, c, e, 1, act=act)
    t2, y2 = (conv(t, y, e, m, 1, act="Relu") if branch else (None, None))
    t, y = conv(t, y, e, e, k, group=e, stride=stride, pad=k // 2, act=dw_act)
    t, y = conv(t, y, e, m, 1)
    if residual:
        t = md.node("Add", [t, xi])
        y = y + x
    for co in tail or []:
        t, y = conv(t, y, y.shape[1], co, 1, act="Relu")
    if branch:
        t = md.node("Add", [t, t2])
        y = y + y2
    return md.save(t, y.astype(np.float64))


def gemm_case(name, m, k, n, trans_b=False, c="row", alpha=1.0, beta=1.0, act=None):
    md = Model(name)
    a = f32(m, k)
    bm = (f32(k, n) / np.sqrt(k)).astype(np.float32)
    y = alpha * (a.astype(np.float64) @ bm)
    ins = [md.input(a), md.const(np.ascontiguousarray(bm.T) if trans_b else bm)]
    if c == "row":
        cv = f32(n)
    elif c == "matrix":
        cv = f32(m, n)
    else:
        cv = None
    if cv is not None:
        ins.append(md.input(cv) if c == "matrix" else md.const(cv))
        y = y + beta * cv
    v = md.node("Gemm", ins, transB=int(trans_b), alpha=alpha, beta=beta)
    if act:
        v = md.act(act, v)
        y = ACTS[act][0](y)
    return md.save(v, y)


def matmul_case(name, a_shape, b_shape, const_b=True):
    md = Model(name)
    a, bm = f32(*a_shape), (f32(*b_shape) / np.sqrt(b_shape[-2])).astype(np.float32)
    v = md.node("MatMul", [md.input(a), md.const(bm) if const_b else md.input(bm)])
    return md.save(v, a.astype(np.float64) @ bm)


def pool_case(name, kind, shape, k, strides, pads, include_pad=0, ceil=0, one_d=False):
    md = Model(name)
    x = f32(*shape)
    attrs = dict(kernel_shape=list(k), strides=list(strides), pads=list(pads), ceil_mode=ceil)
    if kind == "avg":
        attrs["count_include_pad"] = include_pad
    if one_d:                  # shape (n, c, w): the 2-D reference on rows of height 1
        y = pool_ref(x[:, :, None, :], kind, (1,) + tuple(k), (1,) + tuple(strides),
                     (0, pads[0], 0, pads[1]), include_pad, bool(ceil))[:, :, 0, :]
    else:
        y = pool_ref(x, kind, k, strides, pads, include_pad, bool(ceil))
    v = md.node("MaxPool" if kind == "max" else "AveragePool", [md.input(x)], **attrs)
    return md.save(v, y)


def gap_case(name, shape, op="GlobalAveragePool"):
    md = Model(name)
    x = f32(*shape)
    v = md.node(op, [md.input(x)])
    ax = tuple(range(2, len(shape)))
    xd = x.astype(np.float64)
    return md.save(v, xd.mean(axis=ax, keepdims=True) if op == "GlobalAveragePool" else
                   xd.max(axis=ax, keepdims=True))


def binary_case(name, op, a_shape, b_shape, const_b=False, specials=False):
    """op(a, b) with numpy broadcasting; the expected values are float32 results of
    the same single operation, which the kernel must give exactly (atol = rtol = 0)."""
    md = Model(name)
    a, b = f32(*a_shape), f32(*b_shape)
    if op == "Div":
        b = np.where(np.abs(b) < 0.1, np.float32(0.5), b).astype(np.float32)
    if specials:
        a.reshape(-1)[:4] = [np.nan, np.inf, -np.inf, 0.0]
        b.reshape(-1)[:2] = [0.0, -0.0]
    v = md.node(op, [md.input(a), md.const(b) if const_b else md.input(b)])
    with np.errstate(all="ignore"):
        y = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide}[op](a, b)
    return md.save(v, y.astype(np.float64), atol=0, rtol=0)


def softmax_case(name, shape, axis=-1, log=False, neg_inf=False):
    md = Model(name)
    x = (f32(*shape) * 4).astype(np.float32)
    if neg_inf:
        x.reshape(-1)[::7] = -np.inf
    v = md.node("LogSoftmax" if log else "Softmax", [md.input(x)], axis=axis)
    xd = x.astype(np.float64)
    m = xd.max(axis=axis, keepdims=True)
    e = np.exp(xd - m)
    s = e.sum(axis=axis, keepdims=True)
    return md.save(v, (xd - m - np.log(s)) if log else e / s)


def layernorm_case(name, shape, axis=-1, bias=True, scale_shape=None):
    md = Model(name)
    md.opset = 17
    x = (f32(*shape) * 3 + 1).astype(np.float32)
    nd = shape[axis:]
    sc = f32(*(scale_shape or nd))
    ins = [md.input(x), md.const(sc)]
    b = f32(*nd)
    if bias:
        ins.append(md.const(b))
    v = md.node("LayerNormalization", ins, axis=axis, epsilon=1e-3)
    xd = x.astype(np.float64)
    ax = tuple(range(len(shape) + axis if axis < 0 else axis, len(shape)))
    m = xd.mean(axis=ax, keepdims=True)
    y = (xd - m) / np.sqrt(((xd - m) ** 2).mean(axis=ax, keepdims=True) + 1e-3) * sc
    return md.save(v, y + b if bias else y)


def make_cases():
    shutil.rmtree(os.path.join(work, "data"), ignore_errors=True)
    dirs = [
        # tiles: 20 rows (2 full + 4), 11 x 13 = 143 columns (edges), K = 27
        conv_case("conv3x3_edges", 1, 3, 11, 13, 20, (3, 3), pads=(1, 1, 1, 1), act="Relu"),
        # K = 64 * 9 = 576: several k-blocks; residual and a post activation
        conv_case("conv3x3_kblocks", 1, 64, 9, 9, 24, (3, 3), pads=(1, 1, 1, 1), residual=True,
                  act="Sigmoid"),
        # Winograd F(2x2, 3x3): odd and even output sizes, no padding, two images
        conv_case("conv_wino_relu", 1, 16, 14, 15, 20, (3, 3), pads=(1, 1, 1, 1), act="Relu"),
        conv_case("conv_wino_nopad", 2, 24, 10, 9, 16, (3, 3), bias=False, residual=True),
        conv_case("conv_stride2_clip", 2, 8, 15, 15, 16, (3, 3), strides=(2, 2),
                  pads=(1, 0, 1, 2), act="Clip"),
        conv_case("conv_dilated_leaky", 1, 4, 12, 12, 8, (3, 3), dil=(2, 2), pads=(2, 2, 2, 2),
                  act="LeakyRelu"),
        conv_case("conv1x1_hswish", 1, 32, 7, 7, 40, (1, 1), act="HardSwish"),
        # 1x1 in ingot_x86_pwconv on NCHW tensors: 7 x 7 planes (7-pixel tiles), 1 x 1
        # planes with two images and a residual (fewer pixels than a tile)
        conv_case("pw_7x7_plain", 1, 24, 7, 7, 96, (1, 1), act="Clip"),
        conv_case("pw_1x1_plane", 2, 64, 1, 1, 48, (1, 1), act="HardSigmoid", residual=True),
        conv_case("conv_group2_tanh", 1, 8, 6, 6, 12, (3, 3), group=2, pads=(1, 1, 1, 1), act="Tanh"),
        conv_case("conv_depthwise", 1, 16, 20, 37, 16, (3, 3), group=16, pads=(1, 1, 1, 1),
                  residual=True, act="Relu"),
        conv_case("conv_depthwise_s2", 1, 8, 17, 17, 8, (5, 5), strides=(2, 2), group=8,
                  pads=(2, 2, 2, 2), act="Clip"),
        # HardSigmoid and HardSwish run in the microkernels' epilogue, on every path
        conv_case("conv_depthwise_hswish", 1, 8, 9, 21, 8, (3, 3), group=8, pads=(1, 1, 1, 1),
                  act="HardSwish"),
        conv_case("conv_wino_hsigmoid", 1, 16, 8, 10, 16, (3, 3), pads=(1, 1, 1, 1), act="HardSigmoid"),
        gemm_case("gemm_hsigmoid", 7, 40, 53, trans_b=True, act="HardSigmoid"),
        conv_case("conv_1d", 2, 6, 1, 50, 10, (1, 5), pads=(0, 2, 0, 2), one_d=True, bias=False),
        # direct kernel (dconv.c): no pads (reads the input in place), three column
        # tiles and three row panels per output row, stride 2 through the input's
        # phases in 2-D and 1-D, a 7x7 stride-2 window
        conv_case("dc_nopad", 1, 2, 12, 30, 6, (5, 5)),
        conv_case("dc_tiles_res", 2, 5, 4, 100, 20, (3, 3), pads=(1, 1, 1, 1), residual=True,
                  act="LeakyRelu"),
        conv_case("dc_k7_s2", 1, 3, 23, 21, 9, (7, 7), strides=(2, 2), pads=(3, 3, 3, 3), act="Relu"),
        conv_case("dc_1d_s2", 1, 7, 1, 61, 12, (1, 4), strides=(1, 2), pads=(0, 1, 0, 2), one_d=True),
        # direct kernel with the output channels on the lanes (packed = 4: they fill
        # vectors better than the output rows): LeNet's second conv, channels that
        # are not whole vectors with pads and a residual, stride 2 through phases
        conv_case("dc_lanes_lenet", 1, 6, 14, 14, 16, (5, 5), act="Relu"),
        conv_case("dc_lanes_res", 2, 5, 7, 5, 24, (3, 3), pads=(1, 1, 1, 1), residual=True,
                  act="HardSwish"),
        conv_case("dc_lanes_s2", 1, 3, 17, 17, 32, (3, 3), strides=(2, 2), pads=(1, 1, 1, 1),
                  bias=False, act="Clip"),
        # 1-D Winograd (wino1d.c): F(6, 3) and F(4, 5); output channels that are not
        # whole vectors, input channels that are not (zero lanes), tile blocks of
        # unequal size, two images, a residual with the activation after it, rows
        # shorter than a vector with unequal pads, no pads and no bias. Its transforms
        # round (points up to 2 and 1/2): outputs of unit scale are off by up to 1e-6
        # here (1e-7 for the direct kernel), so outputs near 0 take atol 2e-6 (rtol
        # stays 1e-3)
        conv_case("w1_k3_relu", 1, 16, 1, 49, 20, (1, 3), pads=(0, 1, 0, 1), one_d=True, act="Relu",
                  atol=2e-6),
        conv_case("w1_k5_res", 2, 24, 1, 30, 16, (1, 5), pads=(0, 2, 0, 2), one_d=True, residual=True,
                  act="LeakyRelu", atol=2e-6),
        conv_case("w1_k3_long_clip", 1, 20, 1, 100, 40, (1, 3), one_d=True, bias=False, act="Clip",
                  atol=2e-6),
        conv_case("w1_k5_short_hswish", 1, 17, 1, 7, 33, (1, 5), pads=(0, 1, 0, 3), one_d=True,
                  act="HardSwish", atol=2e-6),
        # depthwise kernel (dwconv.c): row tails, strides 1 and 2, the unrolled 3x3 and
        # 5x5 variants and the generic one (7x7, 2x3, unequal strides), 1-D, planes
        # narrower than a vector, asymmetric pads, every vector-form activation
        conv_case("dw_s1_tail_res", 2, 5, 9, 40, 5, (3, 3), pads=(1, 1, 1, 1), residual=True,
                  group=5, act="Relu"),
        conv_case("dw_s2_odd_clip", 2, 6, 15, 37, 6, (3, 3), strides=(2, 2), pads=(1, 1, 1, 1),
                  group=6, act="Clip"),
        conv_case("dw_s2_nopad_hswish", 1, 3, 16, 16, 3, (3, 3), strides=(2, 2), group=3,
                  bias=False, act="HardSwish"),
        conv_case("dw_s1_7x7_planes", 1, 20, 7, 7, 20, (3, 3), pads=(1, 1, 1, 1), group=20,
                  act="Clip"),
        conv_case("dw_s1_asym_pads", 1, 4, 10, 19, 4, (3, 3), pads=(2, 0, 1, 1), group=4),
        conv_case("dw_k5_s1_leaky", 1, 4, 11, 21, 4, (5, 5), pads=(2, 2, 2, 2), group=4,
                  act="LeakyRelu"),
        conv_case("dw_k7_hsigmoid", 1, 3, 10, 12, 3, (7, 7), pads=(3, 3, 3, 3), group=3,
                  act="HardSigmoid"),
        conv_case("dw_k2x3_s21", 1, 3, 13, 18, 3, (2, 3), strides=(2, 1), pads=(0, 1, 1, 1),
                  group=3, residual=True),
        conv_case("dw_1d_s2", 2, 8, 1, 50, 8, (1, 5), strides=(1, 2), pads=(0, 2, 0, 2), group=8,
                  one_d=True, act="Relu"),
        # depthwise left to ingot_x86_conv: rows wider than the kernel's buffers, Sigmoid
        conv_case("dw_wide_fallback", 1, 2, 3, 600, 2, (3, 3), pads=(1, 1, 1, 1), group=2),
        conv_case("dw_sigmoid_fallback", 1, 4, 9, 9, 4, (3, 3), pads=(1, 1, 1, 1), group=4,
                  act="Sigmoid"),
        # Gelu after the tile (GEMM edges), after Winograd's rows, after depthwise rows.
        # Its tail below -3 magnifies the Conv's float32 rounding about x^2 times
        # (relative): those tiny outputs take atol 1e-6
        gemm_case("gemm_gelu_tanh", 13, 37, 45, act="GeluTanh"),
        conv_case("conv_wino_gelu", 1, 16, 9, 11, 16, (3, 3), pads=(1, 1, 1, 1), act="Gelu",
                  atol=1e-6),
        conv_case("dw_gelu", 1, 8, 10, 23, 8, (3, 3), group=8, pads=(1, 1, 1, 1), act="Gelu",
                  atol=1e-6),
        # stride 2 in ingot_x86_conv (deinterleaved rows): Gelu keeps it from dwconv.c,
        # so does dilation (odd taps, an odd left pad)
        conv_case("dw_s2_gelu", 1, 8, 19, 37, 8, (3, 3), strides=(2, 2), group=8, pads=(1, 1, 1, 1),
                  act="Gelu", atol=1e-6),
        conv_case("dw_s2_dil2", 2, 4, 15, 40, 4, (3, 3), strides=(2, 2), dil=(2, 2), group=4,
                  pads=(2, 1, 2, 2), residual=True),
        # blocked tensors between 1x1 and depthwise Convs (pwconv.c, dwconv.c): 7 x 7
        # planes (tiles of 7 pixels), a residual on an NCHW output, two images, stride 2
        # with odd sizes, 5x5 windows, expand widths that are whole vectors on AVX2 only
        # (24, 40), project widths that stay in ingot_x86_conv on AVX-512 (24), 1x1
        # chains (pointwise into pointwise), a blocked tensor with two readers, HardSwish
        block_case("blk_7x7_res", 1, 32, 7, 7, 96, 32, residual=True),
        block_case("blk_n2_s2_odd", 2, 16, 13, 11, 48, 32, stride=2, tail=[48, 64]),
        block_case("blk_k5_hswish", 1, 16, 9, 20, 64, 16, k=5, act="HardSwish", dw_act="HardSwish",
                   residual=True),
        block_case("blk_e24_m24", 1, 8, 12, 12, 24, 24, act="Relu", dw_act="Relu"),
        block_case("blk_e40_s2", 1, 24, 16, 17, 40, 40, stride=2, tail=[80]),
        block_case("blk_branch", 1, 16, 10, 10, 64, 32, branch=True, tail=[32]),
        block_case("blk_wide", 1, 32, 3, 70, 160, 48, residual=False, tail=[320, 16]),
        gemm_case("gemm_transb_relu", 5, 70, 100, trans_b=True, act="Relu"),
        gemm_case("gemm_matrix_c", 9, 33, 50, c="matrix", alpha=0.5, beta=2.0),
        gemm_case("gemm_no_c", 17, 200, 49, c=None),
        matmul_case("matmul_packed", (13, 96), (96, 130)),
        matmul_case("matmul_shared_batch", (2, 3, 7, 40), (40, 20)),
        matmul_case("matmul_runtime_b", (2, 12, 30), (2, 30, 55), const_b=False),
        # rows shorter than a vector, whole vectors plus a tail, -inf entries, and an
        # axis that is not the last (the reference kernel)
        # Add/Sub/Mul/Div: a per-channel scale (SE blocks), a bias row, a scalar, both
        # sides broadcast, runs shorter than a vector, NaN/inf/0 and division by +-0
        binary_case("bin_mul_channel", "Mul", (1, 24, 7, 9), (1, 24, 1, 1), const_b=False),
        binary_case("bin_add_row", "Add", (5, 3, 37), (37,), const_b=True),
        binary_case("bin_sub_scalar", "Sub", (), (4, 50)),
        binary_case("bin_div_outer", "Div", (6, 1, 19), (1, 5, 1), specials=True),
        binary_case("bin_mul_short", "Mul", (9, 3), (9, 3), specials=True),
        softmax_case("softmax_rows", (3, 5, 37)),
        softmax_case("softmax_short", (4, 3)),
        softmax_case("logsoftmax_rows", (2, 70), log=True),
        softmax_case("softmax_neg_inf", (6, 33), neg_inf=True),
        softmax_case("softmax_axis1", (2, 9, 5), axis=1),
        # rows of a vector plus a tail, short rows, two normalized dims, no bias, and a
        # broadcast scale (the reference kernel)
        layernorm_case("layernorm_rows", (2, 3, 37)),
        layernorm_case("layernorm_short", (5, 7), bias=False),
        layernorm_case("layernorm_2d", (3, 4, 20), axis=-2),
        layernorm_case("layernorm_bcast", (3, 4, 20), axis=-2, scale_shape=(1, 20)),
        # GlobalAveragePool (x86: planes of whole vectors, a tail, 7 x 7, 1-D), GlobalMaxPool
        # (the reference)
        gap_case("gap_7x7", (2, 5, 7, 7)),
        gap_case("gap_long_1d", (1, 3, 70)),
        gap_case("gap_planes_of_32", (1, 4, 4, 8)),
        gap_case("gmp_ref", (1, 3, 5, 5), op="GlobalMaxPool"),
        pool_case("maxpool_3x3_s2", "max", (1, 5, 21, 40), (3, 3), (2, 2), (1, 1, 1, 1)),
        pool_case("maxpool_ceil", "max", (1, 3, 10, 10), (3, 3), (2, 2), (0, 0, 0, 0), ceil=1),
        pool_case("avgpool_pad_excl", "avg", (2, 4, 9, 33), (3, 3), (1, 1), (1, 1, 1, 1)),
        pool_case("avgpool_pad_incl", "avg", (1, 4, 8, 8), (2, 3), (2, 2), (1, 1, 0, 1), include_pad=1),
        # every window inside the plane: one pass over the input rows (the last plane
        # through the row buffer), 2-D and 1-D
        pool_case("maxpool_2x2_inside", "max", (2, 5, 12, 37), (2, 2), (2, 2), (0, 0, 0, 0)),
        pool_case("avgpool_3x3_s1_inside", "avg", (1, 6, 9, 21), (3, 3), (1, 1), (0, 0, 0, 0)),
        pool_case("maxpool_1d_inside", "max", (1, 9, 49), (2,), (2,), (0, 0), one_d=True),
    ]
    return dirs


def main():
    os.makedirs(work, exist_ok=True)
    dirs = make_cases()
    fmas = {"x86-avx2": re.compile(r"\bvfmadd\w*ps\s+.*%ymm"),
            "x86-avx512": re.compile(r"\bvfmadd\w*ps\s+.*%zmm")}
    run_on, skipped = runnable(["x86-avx2", "x86-avx512"])
    targets = [(t, fmas[t]) for t in run_on]
    for target, fma in targets:
        # chains of Convs (blk_*) round at every step: outputs that cancel to near 0
        # get an absolute tolerance that fits four float32 Convs
        for group, extra in (([d for d in dirs if "/blk_" not in d], []),
                             ([d for d in dirs if "/blk_" in d], ["--atol", "2e-6"])):
            r = subprocess.run([ingot, "check"] + group + ["--target", target, "-j", "2"] + SAN_CFLAGS + extra,
                               capture_output=True, text=True)
            print(r.stdout.strip())
            if r.returncode or r.stdout.count("\nPASS ") + r.stdout.startswith("PASS ") != len(group):
                fail("%s: ingot check failed:\n%s%s" % (target, r.stdout, r.stderr))
        # the emitted code: x86 kernels, packed weights, microkernels, vector FMAs
        out = os.path.join(work, "out-" + target)
        shutil.rmtree(out, ignore_errors=True)
        mr = None
        for case, kind in (("conv_dilated_leaky", 1), ("conv3x3_kblocks", 2)):
            src = os.path.join(work, "data", case, "model.onnx")
            shutil.rmtree(out, ignore_errors=True)
            # the library once, for its instructions; the sources alone for the rest
            emit = ["--emit", "lib"] if kind == 1 else []
            r = subprocess.run([ingot, "compile", src, "-o", out, "--name", "m", "--target", target,
                                "--weights", "incbin"] + emit, capture_output=True, text=True)
            if r.returncode:
                fail("%s: compile failed: %s" % (target, r.stderr))
                continue
            code = open(os.path.join(out, "m.c")).read()
            # called directly, or through ingot_par_call (the nodes NAME_run_par may split)
            if not re.search(r"\bingot_x86_conv[(,]", code) or (".packed = %d" % kind) not in code:
                fail("%s %s: m.c does not call the x86 conv kernel with packed = %d" % (target, case, kind))
            uk = open(os.path.join(out, "kernels", "x86", "ukernel.h")).read()
            if case == "conv_dilated_leaky":
                # the binary ops run the x86 kernel
                bout = os.path.join(work, "bin-" + target)
                shutil.rmtree(bout, ignore_errors=True)
                r = subprocess.run([ingot, "compile", os.path.join(work, "data", "bin_mul_channel", "model.onnx"),
                                    "-o", bout, "--name", "m", "--target", target], capture_output=True,
                                   text=True)
                if r.returncode or "ingot_x86_binary" not in open(os.path.join(bout, "m.c")).read():
                    fail("%s: Mul does not call ingot_x86_binary: %s" % (target, r.stderr))
            mr = int(re.search(r"#define UK_MR (\d+)", uk).group(1))
            nr = int(re.search(r"#define UK_NR (\d+)", uk).group(1))
            want = (8, 48) if target == "x86-avx512" else (4, 24)
            if (mr, nr) != want or "static void uk_full_%d(" % mr not in uk:
                fail("%s: ukernel.h blocks %dx%d, expected %dx%d" % (target, mr, nr, want[0], want[1]))
            if kind == 1:           # which Convs run in ingot_x86_dwconv and ingot_x86_dconv
                # (case, kernel, called?, the `packed` it must see or None)
                for case2, fn, want, pk in (("dw_s2_odd_clip", "dwconv", True, None),
                                            ("dw_sigmoid_fallback", "dwconv", False, None),
                                            ("conv_stride2_clip", "dconv", True, None),
                                            ("dc_1d_s2", "dconv", True, 1),
                                            ("dc_tiles_res", "dconv", True, 1),
                                            ("conv3x3_kblocks", "dconv", False, None),
                                            # output channels on the lanes: they fill
                                            # vectors better than the output rows
                                            ("dc_lanes_lenet", "dconv", True, 4),
                                            ("dc_lanes_res", "dconv", True, 4),
                                            ("dc_lanes_s2", "dconv", True, 4),
                                            # 1-D k = 3 or 5, >= 16 channels: Winograd
                                            ("w1_k3_relu", "wconv1", True, 3),
                                            ("w1_k5_short_hswish", "wconv1", True, 3),
                                            ("conv_1d", "wconv1", False, None),
                                            ("dc_1d_s2", "wconv1", False, None)):
                    out2 = out + "-dw"
                    shutil.rmtree(out2, ignore_errors=True)
                    r = subprocess.run([ingot, "compile", os.path.join(work, "data", case2, "model.onnx"),
                                        "-o", out2, "--name", "m", "--target", target],
                                       capture_output=True, text=True)
                    code2 = open(os.path.join(out2, "m.c")).read() if not r.returncode else ""
                    if bool(re.search(r"\bingot_x86_%s[(,]" % fn, code2)) != want:
                        fail("%s %s: ingot_x86_%s %s" % (target, case2, fn, "not called" if want else "called"))
                    if pk is not None and ".packed = %d" % pk not in code2:
                        fail("%s %s: ingot_x86_%s without packed = %d" % (target, case2, fn, pk))
                    if pk == 3 and ".winograd" not in code2:
                        fail("%s %s: no 1-D Winograd weights" % (target, case2))
            if emit:
                dis = subprocess.run(["objdump", "-d", os.path.join(out, "libm.a")], capture_output=True,
                                     text=True).stdout
                if not fma.search(dis):
                    fail("%s: no vector FMA on the target's registers in libm.a" % target)
            # the blob holds W packed as panels of MR output channels ([k][row] per
            # panel) or, for Winograd, U = G g G^T per position, so packed; never W itself
            m = onnx.load(src)
            w = numpy_helper.to_array([i for i in m.graph.initializer if i.name == "w1"][0])
            if kind == 1:
                w2 = w.reshape(w.shape[0], -1)
            else:
                G = np.array([[1, 0, 0], [.5, .5, .5], [.5, -.5, .5], [0, 0, 1]])
                u = np.einsum("rk,mckl,ql->rqmc", G, w.astype(np.float64), G)
                w2 = u[0, 0].astype(np.float32)
            packed = np.concatenate([w2[r:r + mr].T.ravel() for r in range(0, w2.shape[0], mr)])
            blob = open(os.path.join(out, "m_weights.bin"), "rb").read()
            if blob.find(packed.astype(np.float32).tobytes()) < 0 or blob.find(w.tobytes()) >= 0:
                fail("%s %s: the weights were not packed (kind %d, %d-row panels)" % (target, case, kind, mr))
        # blocked layouts: which Convs run in ingot_x86_pwconv and with which layouts
        lanes = 16 if target == "x86-avx512" else 8
        for case2, want in (("blk_7x7_res", {"pw": 2, "layouts": {1, 2, 3}}),
                            ("blk_e24_m24", {"pw": 0, "layouts": {0}} if lanes == 16 else
                                            {"pw": 2, "layouts": {1, 2, 3}}),
                            # AVX-512: only the last 1x1 (80 channels, 8 x 9 pixels) in pwconv
                            ("blk_e40_s2", {"pw": 1, "layouts": {0}} if lanes == 16 else
                                           {"pw": 3, "layouts": {1, 2, 3}}),
                            ("blk_n2_s2_odd", {"pw": 4, "layouts": {1, 2, 3}}),
                            # NCHW in and out, pixels leaving the last vector nearly empty
                            ("conv1x1_hswish", {"pw": 0 if lanes == 16 else 1, "layouts": {0}}),
                            ("pw_7x7_plain", {"pw": 1, "layouts": {0}}),
                            ("pw_1x1_plane", {"pw": 1, "layouts": {0}}),
                            ("conv3x3_kblocks", {"pw": 0, "layouts": {0}})):
            out2 = out + "-blk"
            shutil.rmtree(out2, ignore_errors=True)
            r = subprocess.run([ingot, "compile", os.path.join(work, "data", case2, "model.onnx"),
                                "-o", out2, "--name", "m", "--target", target],
                               capture_output=True, text=True)
            code2 = open(os.path.join(out2, "m.c")).read() if not r.returncode else ""
            npw = len(re.findall(r"\bingot_x86_pwconv[(,]", code2))
            lays = set(int(v) for v in re.findall(r"\.layout = (\d+)", code2))
            if npw != want["pw"] or ("layouts" in want and lays != want["layouts"]):
                fail("%s %s: %d ingot_x86_pwconv calls, layouts %s; expected %s" % (target, case2, npw,
                                                                                sorted(lays), want))
        # Softmax over contiguous rows runs the x86 kernel, other axes the reference
        for case, fn in (("softmax_rows", "ingot_x86_softmax"), ("logsoftmax_rows", "ingot_x86_softmax"),
                         ("softmax_axis1", "ingot_softmax"), ("layernorm_rows", "ingot_x86_layernorm"),
                         ("layernorm_2d", "ingot_x86_layernorm"), ("layernorm_bcast", "ingot_layernorm"),
                         ("gap_7x7", "ingot_x86_global_pool"), ("gmp_ref", "ingot_global_pool")):
            shutil.rmtree(out, ignore_errors=True)
            run_ok = subprocess.run([ingot, "compile", os.path.join(work, "data", case, "model.onnx"), "-o",
                                     out, "--name", "m", "--target", target], capture_output=True, text=True)
            code = open(os.path.join(out, "m.c")).read() if run_ok.returncode == 0 else ""
            if not re.search(r"\b%s[(,]" % fn, code):
                fail("%s %s: m.c does not call %s" % (target, case, fn))
    finish(failures, skipped)


main()
