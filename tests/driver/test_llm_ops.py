#!/usr/bin/env python3
"""llm_ops: Attention and RotaryEmbedding (opset 23) in the element types the ONNX
Runtime cases (tests/ort) cannot cover: bfloat16, which onnxruntime-node cannot feed,
and double, which ORT has no kernel for. numpy computes the expected outputs in
double from the same (rounded) inputs; each case must PASS `ingot check`."""
import os

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from common import check_all_pass, main, model, softmax, vi, write_test_dir

T = TensorProto


def bf16_bits(x):
    """float32 -> bfloat16 bits, rounding to nearest even"""
    b = np.ascontiguousarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((b + 0x7fff + ((b >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_round(x):
    return (bf16_bits(x).astype(np.uint32) << 16).view(np.float32)


class Bf16(np.ndarray):
    """marks an array (of bf16-exact float32 values) to be written as BFLOAT16"""


def to_tensor(arr, name):
    if isinstance(arr, Bf16):
        return helper.make_tensor(name, T.BFLOAT16, arr.shape, bf16_bits(np.asarray(arr)).tobytes(),
                                  raw=True)
    return numpy_helper.from_array(np.asarray(arr), name)


def attention_ref(q, k, v, mask, past_k, past_v, causal, softcap):
    """4-D Attention in double: GQA by repeating kv heads, ORT's softcap-then-mask order"""
    k = np.concatenate([past_k, k], 2)
    v = np.concatenate([past_v, v], 2)
    rep = q.shape[1] // k.shape[1]
    k, v = np.repeat(k, rep, 1), np.repeat(v, rep, 1)
    s = q @ k.swapaxes(-1, -2) / np.sqrt(q.shape[-1])
    s = softcap * np.tanh(s / softcap)
    n_q, n_t, past = q.shape[2], k.shape[2], past_k.shape[2]
    keep = mask & (np.arange(n_t)[None, :] <= np.arange(n_q)[:, None] + past) if causal else mask
    s = np.where(keep, s, -np.inf)
    return softmax(s, dtype=np.float64) @ v, k[:, ::rep], v[:, ::rep]


def rotary_ref(x, cos, sin, pos, heads, rot):
    """3-D input, interleaved pairs, the first `rot` dims of each head rotated"""
    b, s, hid = x.shape
    x4 = x.reshape(b, s, heads, hid // heads).copy()
    c, sn = cos[pos][:, :, None, :], sin[pos][:, :, None, :]
    x1, x2 = x4[..., 0:rot:2].copy(), x4[..., 1:rot:2].copy()
    x4[..., 0:rot:2] = c * x1 - sn * x2
    x4[..., 1:rot:2] = sn * x1 + c * x2
    return x4.reshape(b, s, hid)


def cases(kind, r):
    """(name, model, inputs, outputs) for element type kind (bf16 or f64)"""
    dt = T.BFLOAT16 if kind == "bf16" else T.DOUBLE

    def data(*shape):
        x = r.standard_normal(shape)
        return bf16_round(x).astype(np.float64) if kind == "bf16" else x

    def wrap(x):
        return np.asarray(x, np.float32).view(Bf16) if kind == "bf16" else x

    def out(x):
        return wrap(bf16_round(x)) if kind == "bf16" else x

    q, k, v = data(2, 4, 3, 8), data(2, 2, 3, 8), data(2, 2, 3, 6)
    pk, pv = data(2, 2, 2, 8), data(2, 2, 2, 6)
    mask = r.random((2, 1, 3, 5)) < 0.7
    mask[..., 0] = True
    y, pres_k, pres_v = attention_ref(q, k, v, mask, pk, pv, True, 2.5)
    node = helper.make_node("Attention", ["q", "k", "v", "mask", "pk", "pv"],
                            ["y", "present_k", "present_v"], is_causal=1, softcap=2.5)
    m = model([node], [vi("q", dt, q.shape), vi("k", dt, k.shape), vi("v", dt, v.shape),
                       vi("mask", T.BOOL, mask.shape), vi("pk", dt, pk.shape), vi("pv", dt, pv.shape)],
              [vi("y", dt, y.shape), vi("present_k", dt, pres_k.shape),
               vi("present_v", dt, pres_v.shape)], opset=23)
    yield ("attention_" + kind, m, [wrap(q), wrap(k), wrap(v), mask, wrap(pk), wrap(pv)],
           [out(y), out(pres_k), out(pres_v)])

    x = data(2, 3, 24)
    ang = r.uniform(-np.pi, np.pi, (6, 2))
    cos, sin = np.cos(ang), np.sin(ang)
    if kind == "bf16":
        cos, sin = bf16_round(cos).astype(np.float64), bf16_round(sin).astype(np.float64)
    pos = r.integers(0, 6, (2, 3), dtype=np.int64)
    y = rotary_ref(x, cos, sin, pos, 2, 4)
    node = helper.make_node("RotaryEmbedding", ["x", "cos", "sin", "pos"], ["y"], num_heads=2,
                            rotary_embedding_dim=4, interleaved=1)
    m = model([node], [vi("x", dt, x.shape), vi("cos", dt, cos.shape), vi("sin", dt, sin.shape),
                       vi("pos", T.INT64, pos.shape)], [vi("y", dt, y.shape)], opset=23)
    yield "rotary_" + kind, m, [wrap(x), wrap(cos), wrap(sin), pos], [out(y)]


def test(ingot, work):
    r = np.random.default_rng(23)
    dirs = []
    for kind in ("bf16", "f64"):
        for name, m, ins, outs in cases(kind, r):
            d = write_test_dir(work, name, m, ins, outs, to_tensor)
            if kind == "bf16":   # one bf16 step: the output is rounded once from float
                with open(os.path.join(d, "tolerance"), "w") as f:
                    f.write("rtol = 8e-3\natol = 1e-2\n")
            dirs.append(d)
    check_all_pass(ingot, dirs)


if __name__ == "__main__":
    main(test)
