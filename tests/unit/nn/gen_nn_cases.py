#!/usr/bin/env python3
"""Generates nn_cases.h, the data of the nn unit tests (MatMul, Gemm, Conv,
ConvTranspose, MaxPool, AveragePool, global pools): inputs and the expected outputs
of straightforward numpy references, written independently of the C kernels
(padding by np.pad, ConvTranspose by scatter-then-crop). Run with a python that
has numpy:  python3 tests/unit/nn/gen_nn_cases.py > tests/unit/nn/nn_cases.h"""
import itertools
import sys

import numpy as np

F32, U8, I8, I32, I64, F16, F64, U32, U64, BF16 = 1, 2, 3, 6, 7, 10, 11, 12, 13, 16
FLOATS = (F32, F16, F64, BF16)
rng = np.random.default_rng(1234)
cases = []


def bf16_round(a):
    """Rounds float32 values to the nearest bfloat16 (ties to even), as float32."""
    u = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    return u.astype(np.uint32).view(np.float32)


def rnd(shape, dt=F32, lo=-2.0, hi=2.0):
    """Random data exactly representable in every float dtype (multiples of 1/16)."""
    if dt in FLOATS:
        return np.round(rng.uniform(lo, hi, shape) * 16) / 16
    if dt == U8:
        return rng.integers(0, 256, shape)
    if dt == I8:
        return rng.integers(-128, 128, shape)
    if dt in (U32, U64):
        return rng.integers(0, 100, shape)
    return rng.integers(-50, 50, shape)


def finish(dt, y):
    """Rounds a float64 reference result the way the output dtype stores it."""
    if dt == F32:
        return np.asarray(y, np.float32).astype(np.float64)
    if dt == F16:
        return np.asarray(y, np.float16).astype(np.float64)
    if dt == BF16:
        return bf16_round(np.asarray(y, np.float32)).astype(np.float64)
    return np.asarray(y)


def case(name, op, opset, ins, attrs, outs, rtol=1e-5, atol=1e-6):
    cases.append((name, op, opset, ins, attrs, outs, rtol, atol))


# ---- MatMul / Gemm ----

def matmul_case(name, dt, sa, sb, rtol=1e-5):
    a, b = rnd(sa, dt), rnd(sb, dt)
    y = np.matmul(a.astype(np.float64) if dt in FLOATS else a, b.astype(np.float64) if dt in FLOATS else b)
    case(name, "MatMul", 13, [(dt, a), (dt, b)], {}, [(dt, finish(dt, y))], rtol)


matmul_case("matmul_2d", F32, (3, 4), (4, 5))
matmul_case("matmul_long_row", F32, (2, 3), (3, 70))        # more than one 64-column chunk
matmul_case("matmul_batch_bcast", F32, (2, 1, 2, 3), (3, 3, 4))
matmul_case("matmul_1d_2d", F32, (4,), (2, 4, 3))
matmul_case("matmul_2d_1d", F64, (2, 3, 4), (4,))
matmul_case("matmul_1d_1d", F32, (5,), (5,))
matmul_case("matmul_f16", F16, (2, 3), (3, 2), rtol=2e-3)
matmul_case("matmul_bf16", BF16, (2, 3), (3, 2), rtol=1e-2)
matmul_case("matmul_i64", I64, (2, 2, 3), (3, 2))
matmul_case("matmul_u64", U64, (2, 3), (3, 2))
# int32 wraps modulo 2^32 like numpy
a = np.array([[2000000000, 2000000000]], np.int64)
b = np.array([[3], [1]], np.int64)
case("matmul_i32_wrap", "MatMul", 13, [(I32, a), (I32, b)], {},
     [(I32, np.matmul(a.astype(np.int32), b.astype(np.int32)).astype(np.int64))])
a = np.array([[4000000000, 7]], np.int64)
b = np.array([[2], [3]], np.int64)
case("matmul_u32_wrap", "MatMul", 13, [(U32, a), (U32, b)], {},
     [(U32, np.matmul(a.astype(np.uint32), b.astype(np.uint32)).astype(np.int64))])


def gemm_case(name, dt, m, n, k, ta=0, tb=0, alpha=None, beta=None, cshape=(), opset=13, rtol=1e-5):
    a = rnd((k, m) if ta else (m, k), dt)
    b = rnd((n, k) if tb else (k, n), dt)
    c = rnd(cshape, dt) if cshape is not None else None
    al = 1.0 if alpha is None else alpha
    be = 1.0 if beta is None else beta
    y = al * np.matmul(a.T if ta else a, b.T if tb else b).astype(np.float64)
    if c is not None:
        y = y + be * c
    if dt not in FLOATS:
        y = y.astype(np.int64)
    attrs = {}
    if alpha is not None:
        attrs["alpha"] = float(alpha)
    if beta is not None:
        attrs["beta"] = float(beta)
    if ta:
        attrs["transA"] = 1
    if tb:
        attrs["transB"] = 1
    ins = [(dt, a), (dt, b)] + ([(dt, c)] if c is not None else [])
    case(name, "Gemm", opset, ins, attrs, [(dt, finish(dt, y))], rtol)


gemm_case("gemm_default", F32, 3, 4, 5, cshape=(3, 4))
gemm_case("gemm_all_attrs", F32, 3, 4, 5, ta=1, tb=1, alpha=0.25, beta=0.5, cshape=(1, 4))
gemm_case("gemm_trans_b_long", F32, 2, 70, 3, tb=1, cshape=(70,))
gemm_case("gemm_col_bias", F64, 3, 2, 4, ta=1, cshape=(3, 1))
gemm_case("gemm_scalar_c", F32, 2, 3, 2, cshape=(), opset=9)
gemm_case("gemm_no_c", F32, 2, 3, 4, cshape=None, opset=11)
gemm_case("gemm_f16", F16, 2, 3, 4, tb=1, cshape=(3,), rtol=2e-3)
gemm_case("gemm_bf16", BF16, 2, 3, 4, cshape=(2, 3), rtol=1e-2)
gemm_case("gemm_i64", I64, 2, 3, 4, ta=1, cshape=(2, 3))
gemm_case("gemm_i32_alpha", I32, 2, 3, 4, alpha=2.0, beta=-3.0, cshape=(3,))
gemm_case("gemm_u32", U32, 2, 2, 3, cshape=(2, 1))


# ---- Conv / ConvTranspose ----

def conv_ref(x, w, b, s, d, pb, pe, group):
    nsp = x.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0)] + [(pb[i], pe[i]) for i in range(nsp)])
    k = w.shape[2:]
    out = [(xp.shape[2 + i] - ((k[i] - 1) * d[i] + 1)) // s[i] + 1 for i in range(nsp)]
    N, C, M = x.shape[0], x.shape[1], w.shape[0]
    cg, mg = C // group, M // group
    y = np.zeros((N, M) + tuple(out))
    for n, m in itertools.product(range(N), range(M)):
        g = m // mg
        for o in itertools.product(*[range(v) for v in out]):
            acc = b[m] if b is not None else 0.0
            for kk in itertools.product(*[range(v) for v in k]):
                idx = tuple(o[i] * s[i] + kk[i] * d[i] for i in range(nsp))
                acc += np.dot(xp[(n, slice(g * cg, (g + 1) * cg)) + idx], w[(m, slice(None)) + kk])
            y[(n, m) + o] = acc
    return y


def same_pads(ins, k, s, d, upper):
    pb, pe, out = [], [], []
    for i in range(len(ins)):
        o = -(-ins[i] // s[i])
        total = max(0, (o - 1) * s[i] + (k[i] - 1) * d[i] + 1 - ins[i])
        b = total // 2 if upper else total - total // 2
        pb.append(b)
        pe.append(total - b)
    return pb, pe


def conv_case(name, dt, xs, ws, group=1, s=None, d=None, pads=None, auto_pad=None, bias=True,
              ks_attr=False, rtol=1e-5):
    nsp = len(xs) - 2
    x, w = rnd(xs, dt), rnd(ws, dt)
    b = rnd((ws[0],), dt) if bias else None
    ss, dd = s or [1] * nsp, d or [1] * nsp
    pp = pads or [0] * (2 * nsp)
    pb, pe = pp[:nsp], pp[nsp:]
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        pb, pe = same_pads(xs[2:], ws[2:], ss, dd, auto_pad == "SAME_UPPER")
    elif auto_pad == "VALID":
        pb, pe = [0] * nsp, [0] * nsp
    y = conv_ref(x, w, b, ss, dd, pb, pe, group)
    attrs = {}
    if group != 1:
        attrs["group"] = group
    if s:
        attrs["strides"] = s
    if d:
        attrs["dilations"] = d
    if pads:
        attrs["pads"] = pads
    if auto_pad:
        attrs["auto_pad"] = auto_pad
    if ks_attr:
        attrs["kernel_shape"] = list(ws[2:])
    ins = [(dt, x), (dt, w)] + ([(dt, b)] if bias else [])
    case(name, "Conv", 11, ins, attrs, [(dt, finish(dt, y))], rtol)


conv_case("conv_2d_pads", F32, (1, 2, 5, 5), (3, 2, 3, 3), pads=[1, 1, 1, 1], ks_attr=True)
conv_case("conv_2d_strides_asym", F32, (2, 3, 7, 6), (2, 3, 3, 2), s=[2, 2], pads=[1, 0, 2, 1])
conv_case("conv_2d_group_dil", F32, (1, 4, 7, 7), (4, 2, 3, 3), group=2, d=[2, 1], bias=False)
conv_case("conv_depthwise", F32, (1, 3, 5, 4), (3, 1, 3, 3), group=3, pads=[1, 1, 1, 1])
conv_case("conv_same_lower", F32, (1, 2, 6, 5), (2, 2, 4, 3), s=[2, 2], auto_pad="SAME_LOWER")
conv_case("conv_same_upper", F64, (1, 1, 5, 5), (2, 1, 2, 2), auto_pad="SAME_UPPER")
conv_case("conv_valid", F32, (1, 1, 5, 4), (1, 1, 3, 3), s=[2, 1], auto_pad="VALID", pads=[9, 9, 9, 9])
conv_case("conv_1d_wide", F32, (1, 2, 150), (2, 2, 3), s=[2], d=[3], pads=[2, 4])
conv_case("conv_3d", F32, (1, 2, 4, 4, 3), (2, 2, 2, 3, 2), pads=[1, 0, 1, 0, 1, 0], s=[1, 2, 1])
conv_case("conv_f16", F16, (1, 2, 4, 4), (2, 2, 3, 3), pads=[1, 1, 1, 1], rtol=3e-3)


def convt_ref(x, w, b, s, d, pb, out, group):
    """Scatter every input into the full output, then crop `pb` at the start."""
    nsp = x.ndim - 2
    N, C = x.shape[:2]
    k = w.shape[2:]
    mg = w.shape[1]
    M = mg * group
    cg = C // group
    full = [(x.shape[2 + i] - 1) * s[i] + (k[i] - 1) * d[i] + 1 for i in range(nsp)]
    big = [max(full[i], pb[i] + out[i]) for i in range(nsp)]
    f = np.zeros((N, M) + tuple(big))
    for n, c in itertools.product(range(N), range(C)):
        g = c // cg
        for i in itertools.product(*[range(v) for v in x.shape[2:]]):
            for kk in itertools.product(*[range(v) for v in k]):
                o = tuple(i[t] * s[t] + kk[t] * d[t] for t in range(nsp))
                for mm in range(mg):
                    f[(n, g * mg + mm) + o] += x[(n, c) + i] * w[(c, mm) + kk]
    y = f[(slice(None), slice(None)) + tuple(slice(pb[i], pb[i] + out[i]) for i in range(nsp))]
    if b is not None:
        y = y + b.reshape((1, M) + (1,) * nsp)
    return y


def convt_case(name, dt, xs, ws, group=1, s=None, d=None, pads=None, opad=None, oshape=None,
               auto_pad=None, bias=True, rtol=1e-5):
    nsp = len(xs) - 2
    x, w = rnd(xs, dt), rnd(ws, dt)
    M = ws[1] * group
    b = rnd((M,), dt) if bias else None
    ss, dd = s or [1] * nsp, d or [1] * nsp
    op = opad or [0] * nsp
    pp = pads or [0] * (2 * nsp)
    full = [ss[i] * (xs[2 + i] - 1) + op[i] + (ws[2 + i] - 1) * dd[i] + 1 for i in range(nsp)]
    if oshape or auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        out = list(oshape) if oshape else [xs[2 + i] * ss[i] for i in range(nsp)]
        pb = []
        for i in range(nsp):
            total = max(0, full[i] - out[i])
            pb.append(total // 2 if auto_pad == "SAME_UPPER" else total - total // 2)
    else:
        pb = pp[:nsp]
        out = [full[i] - pp[i] - pp[nsp + i] for i in range(nsp)]
    y = convt_ref(x, w, b, ss, dd, pb, out, group)
    attrs = {}
    for key, val in (("group", group if group != 1 else None), ("strides", s), ("dilations", d),
                     ("pads", pads), ("output_padding", opad), ("output_shape", oshape),
                     ("auto_pad", auto_pad)):
        if val is not None:
            attrs[key] = val
    ins = [(dt, x), (dt, w)] + ([(dt, b)] if bias else [])
    case(name, "ConvTranspose", 11, ins, attrs, [(dt, finish(dt, y))], rtol)


convt_case("convt_2d", F32, (1, 1, 3, 3), (1, 2, 3, 3))
convt_case("convt_strides_pads", F32, (1, 2, 3, 4), (2, 3, 3, 2), s=[3, 2], pads=[1, 2, 1, 0])
convt_case("convt_output_padding", F32, (1, 1, 3, 3), (1, 2, 3, 3), s=[3, 2], opad=[1, 1])
convt_case("convt_output_shape", F32, (1, 1, 3, 3), (1, 2, 3, 3), s=[3, 2], oshape=[10, 8])
convt_case("convt_output_shape_crop", F32, (1, 1, 3, 3), (1, 1, 3, 3), s=[2, 2], oshape=[6, 5])
convt_case("convt_same_upper", F32, (1, 1, 3, 3), (1, 2, 3, 3), s=[2, 2], auto_pad="SAME_UPPER")
convt_case("convt_same_lower", F32, (1, 1, 3, 3), (1, 1, 2, 3), s=[2, 2], auto_pad="SAME_LOWER")
convt_case("convt_group_dil", F64, (2, 4, 3, 3), (4, 1, 2, 2), group=2, d=[2, 2], s=[2, 1])
convt_case("convt_1d_long", F32, (1, 2, 40), (2, 1, 3), s=[2], bias=False)
convt_case("convt_3d", F32, (1, 1, 2, 3, 2), (1, 2, 2, 2, 2), s=[2, 1, 2], pads=[0, 1, 0, 1, 0, 0])
convt_case("convt_f16", F16, (1, 2, 3, 3), (2, 1, 2, 2), s=[2, 2], rtol=3e-3)


# ---- pools ----

def pool_geom(xs, k, s, d, pads, auto_pad, ceil):
    nsp = len(xs)
    pb, pe = list(pads[:nsp]), list(pads[nsp:])
    out = []
    for i in range(nsp):
        ek = (k[i] - 1) * d[i] + 1
        if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            o = -(-xs[i] // s[i])
            total = max(0, (o - 1) * s[i] + ek - xs[i])
            pb[i] = total // 2 if auto_pad == "SAME_UPPER" else total - total // 2
            pe[i] = total - pb[i]
        else:
            if auto_pad == "VALID":
                pb[i] = pe[i] = 0
            num = xs[i] + pb[i] + pe[i] - ek
            o = (-(-num // s[i]) if ceil else num // s[i]) + 1
            if ceil and (o - 1) * s[i] >= xs[i] + pb[i]:
                o -= 1
        out.append(o)
    return pb, pe, out


def pool_case(name, op, dt, xs, k, s=None, d=None, pads=None, auto_pad=None, ceil=0,
              cip=0, storage=0, indices=False, opset=12, rtol=1e-5):
    nsp = len(xs) - 2
    x = rnd(xs, dt)
    ss, dd = s or [1] * nsp, d or [1] * nsp
    pb, pe, out = pool_geom(xs[2:], k, ss, dd, pads or [0] * (2 * nsp), auto_pad, ceil)
    y = np.zeros(tuple(xs[:2]) + tuple(out))
    ind = np.zeros(y.shape, np.int64)
    plane = int(np.prod(xs[2:]))
    for n, c in itertools.product(range(xs[0]), range(xs[1])):
        for o in itertools.product(*[range(v) for v in out]):
            vals, idxs, padded = [], [], 1
            for i in range(nsp):
                st = o[i] * ss[i] - pb[i]
                padded *= sum(1 for t in range(k[i]) if -pb[i] <= st + t * dd[i] < xs[2 + i] + pe[i])
            for kk in itertools.product(*[range(v) for v in k]):
                p = [o[i] * ss[i] - pb[i] + kk[i] * dd[i] for i in range(nsp)]
                if all(0 <= p[i] < xs[2 + i] for i in range(nsp)):
                    vals.append(x[(n, c) + tuple(p)])
                    if storage:
                        flat, mul = 0, 1
                        for i in range(nsp):
                            flat += p[i] * mul
                            mul *= xs[2 + i]
                    else:
                        flat = int(np.ravel_multi_index(p, xs[2:]))
                    idxs.append((n * xs[1] + c) * plane + flat)
            if op == "MaxPool":
                j = int(np.argmax(vals))
                y[(n, c) + o] = vals[j]
                ind[(n, c) + o] = idxs[j]
            else:
                y[(n, c) + o] = sum(vals) / (padded if cip else len(vals))
    attrs = {"kernel_shape": k}
    for key, val in (("strides", s), ("dilations", d), ("pads", pads), ("auto_pad", auto_pad),
                     ("ceil_mode", ceil or None), ("count_include_pad", cip or None),
                     ("storage_order", storage or None)):
        if val is not None:
            attrs[key] = val
    outs = [(dt, finish(dt, y))] + ([(I64, ind)] if indices else [])
    case(name, op, opset, [(dt, x)], attrs, outs, rtol)


pool_case("maxpool_2d", "MaxPool", F32, (1, 2, 5, 5), [3, 3], indices=True)
pool_case("maxpool_pads_strides", "MaxPool", F32, (1, 1, 6, 7), [3, 2], s=[2, 2], pads=[1, 1, 1, 0], indices=True)
pool_case("maxpool_ceil", "MaxPool", F32, (1, 1, 5, 6), [3, 3], s=[2, 2], ceil=1)
pool_case("maxpool_ceil_drop", "MaxPool", F32, (1, 1, 5, 5), [2, 2], s=[2, 2], pads=[1, 1, 1, 1], ceil=1)
pool_case("maxpool_dilations", "MaxPool", F32, (1, 1, 6, 6), [2, 2], d=[2, 2], indices=True)
pool_case("maxpool_same_lower", "MaxPool", F64, (1, 2, 5, 5), [3, 2], s=[2, 2], auto_pad="SAME_LOWER")
pool_case("maxpool_storage_order", "MaxPool", F32, (2, 2, 4, 5), [2, 2], s=[2, 2], storage=1, indices=True)
pool_case("maxpool_1d", "MaxPool", F32, (1, 3, 130), [4], s=[3], pads=[1, 2], indices=True)
pool_case("maxpool_3d", "MaxPool", F32, (1, 1, 4, 4, 3), [2, 2, 2], indices=True)
pool_case("maxpool_i8", "MaxPool", I8, (1, 2, 4, 4), [2, 2], pads=[1, 1, 0, 0])
pool_case("maxpool_u8", "MaxPool", U8, (1, 1, 5, 5), [3, 3], s=[2, 2], auto_pad="SAME_UPPER")
pool_case("maxpool_f16", "MaxPool", F16, (1, 1, 4, 4), [2, 2], indices=True)
pool_case("avgpool_2d", "AveragePool", F32, (1, 2, 5, 5), [3, 3])
pool_case("avgpool_pads", "AveragePool", F32, (1, 1, 5, 5), [3, 3], pads=[1, 2, 2, 1])
pool_case("avgpool_pads_cip", "AveragePool", F32, (1, 1, 5, 5), [3, 3], pads=[1, 2, 2, 1], cip=1)
pool_case("avgpool_ceil_cip", "AveragePool", F32, (1, 1, 6, 6), [3, 3], s=[2, 2], pads=[1, 1, 1, 1], ceil=1, cip=1)
pool_case("avgpool_same_upper", "AveragePool", F64, (1, 1, 6, 5), [2, 3], s=[2, 1], auto_pad="SAME_UPPER")
pool_case("avgpool_valid", "AveragePool", F32, (1, 1, 6, 5), [2, 3], s=[2, 2], auto_pad="VALID")
pool_case("avgpool_1d", "AveragePool", F32, (2, 1, 9), [3], s=[2], pads=[1, 1])
pool_case("avgpool_3d", "AveragePool", F16, (1, 1, 3, 4, 4), [2, 2, 2], s=[1, 2, 2], rtol=3e-3)


def global_case(name, op, dt, xs, rtol=1e-5):
    x = rnd(xs, dt)
    ax = tuple(range(2, len(xs)))
    y = (np.max if op == "GlobalMaxPool" else np.mean)(x, axis=ax, keepdims=True)
    case(name, op, 1, [(dt, x)], {}, [(dt, finish(dt, y))], rtol)


global_case("globalavg_2d", "GlobalAveragePool", F32, (2, 3, 4, 5))
global_case("globalavg_1d_f16", "GlobalAveragePool", F16, (1, 2, 7), rtol=3e-3)
global_case("globalmax_3d", "GlobalMaxPool", F64, (1, 2, 2, 3, 2))
global_case("globalmax_f16", "GlobalMaxPool", F16, (1, 3, 3, 3))

# 2-D 8-bit MaxPool without dilation or indices takes pool.c's row-buffer path: the
# ResNet stem (3x3/2, pads 1), stride 1 with uneven pads, a row wider than its 256-column
# buffer (chunked), a ceil_mode window past the end, a window wider than the buffer
# (the generic loop), and dilation (the generic loop).
pool_case("maxpool_u8_stem", "MaxPool", U8, (1, 3, 9, 11), [3, 3], s=[2, 2], pads=[1, 1, 1, 1])
pool_case("maxpool_i8_s1", "MaxPool", I8, (2, 2, 6, 7), [2, 3], pads=[1, 0, 0, 2])
pool_case("maxpool_u8_wide", "MaxPool", U8, (1, 1, 3, 600), [2, 3], s=[1, 2], pads=[0, 1, 0, 1])
pool_case("maxpool_i8_ceil", "MaxPool", I8, (1, 2, 5, 5), [2, 2], s=[2, 2], pads=[1, 1, 1, 1], ceil=1)
pool_case("maxpool_u8_kwide", "MaxPool", U8, (1, 1, 2, 300), [1, 260], s=[1, 7])
pool_case("maxpool_i8_dil", "MaxPool", I8, (1, 1, 6, 6), [2, 2], d=[2, 2])


# ---- emit ----

def emit():
    w = sys.stdout.write
    w("/* nn_cases.h — generated by gen_nn_cases.py (numpy references); do not edit. */\n")
    w("#ifndef NN_CASES_H\n#define NN_CASES_H\n\n")
    body = []
    for ci, (name, op, opset, ins, attrs, outs, rtol, atol) in enumerate(cases):
        def tensor(tag, dt, arr):
            arr = np.asarray(arr)
            flat = arr.reshape(-1)
            if dt in FLOATS:
                vals = ",".join(repr(float(v)) for v in flat)
                w("static const double c%d_%s[] = {%s};\n" % (ci, tag, vals or "0"))
                ref = "c%d_%s, NULL" % (ci, tag)
            else:
                vals = ",".join("INT64_C(%d)" % int(v) for v in flat)
                w("static const int64_t c%d_%s[] = {%s};\n" % (ci, tag, vals or "0"))
                ref = "NULL, c%d_%s" % (ci, tag)
            dims = ",".join(str(v) for v in arr.shape) or "0"
            return "{%d, %d, {%s}, %s}" % (dt, arr.ndim, dims, ref)
        tin = [tensor("in%d" % i, dt, a) for i, (dt, a) in enumerate(ins)]
        tout = [tensor("out%d" % i, dt, a) for i, (dt, a) in enumerate(outs)]
        tat = []
        for ai, (key, val) in enumerate(attrs.items()):
            if isinstance(val, str):
                tat.append('{"%s", RA_STRING, 0, 0, "%s", 0, NULL}' % (key, val))
            elif isinstance(val, float):
                tat.append('{"%s", RA_FLOAT, 0, %sf, NULL, 0, NULL}' % (key, repr(val)))
            elif isinstance(val, int):
                tat.append('{"%s", RA_INT, %d, 0, NULL, 0, NULL}' % (key, val))
            else:
                w("static const int64_t c%d_a%d[] = {%s};\n" % (ci, ai, ",".join(str(v) for v in val)))
                tat.append('{"%s", RA_INTS, 0, 0, NULL, %d, c%d_a%d}' % (key, len(val), ci, ai))
        body.append('\t{"%s", "%s", %d, %d, {%s}, %d, {%s}, %d, {%s}, %g, %g},\n' % (
            name, op, opset, len(tin), ", ".join(tin), len(tat), ", ".join(tat) or "{NULL, RA_INT, 0, 0, NULL, 0, NULL}",
            len(tout), ", ".join(tout), rtol, atol))
    w("\nstatic const NnCase nn_cases[] = {\n")
    for line in body:
        w(line)
    w("};\n\n#endif /* NN_CASES_H */\n")


emit()
