#!/usr/bin/env python3
"""Generates cases.h, the data of the quant/spectral unit tests: QuantizeLinear,
DequantizeLinear, DynamicQuantizeLinear, MatMulInteger, QLinearMatMul, ConvInteger,
QLinearConv, DFT, STFT, the windows and MelWeightMatrix. Expected outputs come from
numpy references written after the ONNX reference implementation (onnx.reference),
independently of the C kernels (numpy.fft for the transforms, a naive loop conv).
Run with a python that has numpy:
    python3 tests/unit/quant_spectral/gen_cases.py > tests/unit/quant_spectral/cases.h"""
import sys

import numpy as np

F32, U8, I8, U16, I16, I32, I64, F16, F64, BF16 = 1, 2, 3, 4, 5, 6, 7, 10, 11, 16
FLOATS = (F32, F16, F64, BF16)
NP = {F32: np.float32, U8: np.uint8, I8: np.int8, U16: np.uint16, I16: np.int16,
      I32: np.int32, I64: np.int64, F16: np.float16, F64: np.float64}
RANGE = {U8: (0, 255), I8: (-128, 127), U16: (0, 65535), I16: (-32768, 32767)}
rng = np.random.default_rng(4321)
cases = []


def case(name, op, opset, ins, attrs, outs, rtol=1e-6, atol=1e-6):
    """ins: (dtype, array[, 'const']) or None for an omitted input."""
    cases.append((name, op, opset, ins, attrs, outs, rtol, atol))


# ---- QuantizeLinear / DequantizeLinear ----

def expand(v, shape, axis, block):
    """Scale / zero point broadcast onto x (per tensor, per axis, blocked)."""
    v = np.asarray(v)
    if v.size == 1 and not block:
        return v.reshape(())
    if block:
        v = np.repeat(v, block, axis=axis)
        return v.take(range(shape[axis]), axis=axis)
    dims = [1] * len(shape)
    dims[axis] = v.size
    return v.reshape(dims)


def quantize(x, xdt, s, sdt, zp, ydt, axis=1, block=0):
    se = expand(s, x.shape, axis, block).astype(NP[sdt])
    xv = x.astype(NP[xdt])
    q = np.rint(xv / se).astype(np.float64)      # numpy promotion decides the precision
    if zp is not None:
        q = q + expand(zp, x.shape, axis, block)
    lo, hi = RANGE[ydt]
    return np.clip(q, lo, hi).astype(np.int64)


def qcase(name, opset, x, xdt, s, sdt, zp, ydt, attrs=None, axis=1, block=0):
    ins = [(xdt, x), (sdt, s)]
    if zp is not None:
        ins.append((ydt, zp))
    y = quantize(np.asarray(x), xdt, np.asarray(s), sdt, None if zp is None else np.asarray(zp),
                 ydt, axis, block)
    case(name, "QuantizeLinear", opset, ins, attrs or {}, [(ydt, y)])


# ties round half to even; saturation at both ends
x = np.array([0.0, 1.0, 2.5, 3.5, -0.5, -1.5, 300.0, -300.0, 127.4, -7.25, 1e30, -1e30], np.float32)
qcase("quantize_u8_ties", 10, x, F32, np.float32(0.5), F32, np.uint8(128), U8)
qcase("quantize_i8", 13, x, F32, np.float32(2.0), F32, np.int8(-3), I8)
qcase("quantize_no_zp", 13, x, F32, np.float32(1.0), F32, None, U8)
x = rng.uniform(-100, 100, (2, 3, 4)).astype(np.float32)
qcase("quantize_axis1_i8", 13, x, F32, np.array([0.5, 1.0, 2.0], np.float32), F32,
      np.array([-1, 0, 5], np.int8), I8)
qcase("quantize_axis_neg", 13, x, F32, np.array([0.25, 0.75, 1.5, 3.0], np.float32), F32,
      np.array([0, 100, 128, 255], np.uint8), U8, {"axis": -1}, axis=2)
qcase("quantize_u16", 21, x * 100, F32, np.float32(0.125), F32, np.uint16(30000), U16)
qcase("quantize_i16_axis0", 21, x * 100, F32, np.array([0.5, 2.0], np.float32), F32,
      np.array([-7, 9], np.int16), I16, {"axis": 0}, axis=0)
x = rng.uniform(-10, 10, (2, 5, 3)).astype(np.float32)
s = rng.uniform(0.05, 0.2, (2, 3, 3)).astype(np.float32)
zp = rng.integers(-20, 20, (2, 3, 3)).astype(np.int8)
qcase("quantize_blocked", 21, x, F32, s, F32, zp, I8, {"axis": 1, "block_size": 2}, axis=1, block=2)
qcase("quantize_output_dtype", 21, x, F32, np.float32(0.1), F32, None, I8, {"output_dtype": I8})
x16 = (np.round(rng.uniform(-30, 30, (6,)) * 8) / 8).astype(np.float16)
qcase("quantize_f16", 19, x16, F16, np.float16(0.375), F16, np.uint8(10), U8)
qcase("quantize_i32", 13, np.array([-1000, -3, 0, 5, 7, 1000, 2**31 - 1], np.int32), I32,
      np.float32(3.0), F32, np.uint8(100), U8)

# a zero point of shape [1] with a scalar scale (and the reverse)
qcase("quantize_zp_shape1", 21, x16.astype(np.float32), F32, np.float32(0.5), F32,
      np.array([3], np.int8), I8)
qcase("quantize_scale_shape1", 21, x16.astype(np.float32), F32, np.array([0.5], np.float32), F32,
      np.int8(-2), I8)


def dequantize(x, xdt, s, sdt, zp, axis=1, block=0, ydt=None):
    dx = x.astype(np.float32)
    if zp is not None:
        dx = dx - expand(zp, x.shape, axis, block).astype(np.float32)
    y = (dx * expand(s, x.shape, axis, block).astype(NP[sdt])).astype(np.float32)
    return y.astype(NP[ydt or sdt]).astype(np.float64)


def dqcase(name, opset, x, xdt, s, sdt, zp, attrs=None, axis=1, block=0, ydt=None, rtol=1e-6):
    ins = [(xdt, x), (sdt, s)]
    if zp is not None:
        ins.append((xdt, zp))
    y = dequantize(np.asarray(x), xdt, np.asarray(s), sdt, None if zp is None else np.asarray(zp),
                   axis, block, ydt)
    case(name, "DequantizeLinear", opset, ins, attrs or {}, [(ydt or sdt, y)], rtol)


xq = rng.integers(0, 256, (2, 3, 4)).astype(np.uint8)
dqcase("dequantize_u8", 10, xq, U8, np.float32(0.02), F32, np.uint8(128))
dqcase("dequantize_u8_no_zp", 10, xq, U8, np.float32(0.5), F32, None)
xi = rng.integers(-128, 128, (2, 3, 4)).astype(np.int8)
dqcase("dequantize_axis_i8", 13, xi, I8, np.array([0.5, 1.5, 0.1], np.float32), F32,
       np.array([-3, 0, 7], np.int8))
dqcase("dequantize_i32", 13, np.array([-70000, 0, 3, 2**31 - 1], np.int32), I32, np.float32(0.25), F32, None)
xs = rng.integers(-30000, 30000, (2, 5, 3)).astype(np.int16)
dqcase("dequantize_blocked_i16", 21, xs, I16, s, F32, rng.integers(-99, 99, (2, 3, 3)).astype(np.int16),
       {"axis": 1, "block_size": 2}, axis=1, block=2)
dqcase("dequantize_f16", 19, xq, U8, np.float16(0.0625), F16, np.uint8(3), rtol=1e-3)
dqcase("dequantize_output_f16", 23, xi, I8, np.float32(0.3), F32, np.int8(1),
       {"output_dtype": F16}, ydt=F16, rtol=1e-3)
dqcase("dequantize_zp_shape1", 21, xi, I8, np.float32(0.3), F32, np.array([5], np.int8))

# ---- DynamicQuantizeLinear (the formulas of the ONNX node test) ----


def dynq(x):
    x = np.asarray(x, np.float32)
    x_min = np.minimum(0, np.min(x))
    x_max = np.maximum(0, np.max(x))
    scale = np.float32((x_max - x_min) / (255 - 0))
    zp = np.clip(round((0 - x_min) / scale), 0, 255).astype(np.uint8)
    y = np.clip(np.round(x / scale) + zp, 0, 255).astype(np.uint8)
    return [(U8, y), (F32, np.array(scale, np.float64)), (U8, np.array(zp))]


for name, xv in [("dynq_mixed", [0, 2, -3, -2.5, 1.34, 0.5]),
                 ("dynq_positive", [1, 2.1, 1.3, 2.5, 3.34, 4.0, 1.5, 2.6, 3.9, 4.0, 3.0, 2.345]),
                 ("dynq_negative", [[-1, -2.1], [-1.3, -2.5], [-3.34, -4.0]])]:
    xv = np.array(xv, np.float32)
    case(name, "DynamicQuantizeLinear", 11, [(F32, xv)], {}, dynq(xv))

# ---- MatMulInteger / QLinearMatMul ----


def q8(dt, shape):
    return rng.integers(*((0, 256) if dt == U8 else (-128, 128)), shape).astype(np.int64)


def mm_zp_sub(a, zp, is_a):
    if zp is None:
        return a
    zp = np.asarray(zp)
    if zp.ndim == 1 and zp.size > 1:
        zp = zp.reshape((-1, 1)) if is_a else zp.reshape((1, -1))
    return a - zp


def mmi_case(name, adt, sa, bdt, sb, azp_shape=None, bzp_shape=None):
    a, b = q8(adt, sa), q8(bdt, sb)
    azp = None if azp_shape is None else q8(adt, azp_shape)
    bzp = None if bzp_shape is None else q8(bdt, bzp_shape)
    y = np.matmul(mm_zp_sub(a, azp, True), mm_zp_sub(b, bzp, False))
    ins = [(adt, a), (bdt, b)]
    if azp is not None or bzp is not None:
        ins.append((adt, azp) if azp is not None else None)
    if bzp is not None:
        ins.append((bdt, bzp))
    case(name, "MatMulInteger", 10, ins, {}, [(I32, y)])


mmi_case("matmulinteger_2d", U8, (4, 3), U8, (3, 2), (1,), (1,))
mmi_case("matmulinteger_no_zp", I8, (3, 70), I8, (70, 67))
mmi_case("matmulinteger_rows_cols", U8, (2, 3, 5), I8, (5, 4), (3,), (4,))
mmi_case("matmulinteger_batch_zp", I8, (2, 3, 5), U8, (2, 5, 4), (2, 3, 1), (2, 1, 4))
mmi_case("matmulinteger_bcast", U8, (2, 1, 2, 3), U8, (3, 3, 4), (), None)
mmi_case("matmulinteger_1d", I8, (5,), I8, (2, 5, 3), None, (1,))


def requant(acc, mult, zp, ydt):
    lo, hi = RANGE[ydt]
    return np.clip(np.rint(acc.astype(np.float64) * mult.astype(np.float64)) + zp, lo, hi).astype(np.int64)


def qmm_case(name, adt, sa, bdt, sb, ydt, a_vec=False, b_vec=False):
    a, b = q8(adt, sa), q8(bdt, sb)
    m, n = (sa[-2] if len(sa) > 1 else 1), (sb[-1] if len(sb) > 1 else 1)
    a_s = rng.uniform(0.01, 0.05, (m,) if a_vec else (1,)).astype(np.float32)
    b_s = rng.uniform(0.01, 0.05, (n,) if b_vec else ()).astype(np.float32)
    y_s = np.array([0.03], np.float32)
    azp = q8(adt, (m,) if a_vec else (1,))
    bzp = q8(bdt, (n,) if b_vec else ())
    yzp = q8(ydt, (1,))
    acc = np.matmul(mm_zp_sub(a, azp, True), mm_zp_sub(b, bzp, False))
    am = a_s.reshape(-1, 1) if a_vec else a_s.reshape(())
    mult = am * b_s / y_s.reshape(())     # float32, as the reference
    if len(sb) == 1 and b_vec:
        mult = mult.reshape(-1)
    if len(sa) == 1:
        mult = mult.reshape(mult.shape[-1:]) if mult.ndim else mult
    y = requant(acc, mult.astype(np.float32), yzp.reshape(()), ydt)
    ins = [(adt, a), (F32, a_s), (adt, azp), (bdt, b), (F32, b_s), (bdt, bzp), (F32, y_s), (ydt, yzp)]
    case(name, "QLinearMatMul", 10, ins, {}, [(ydt, y)])


qmm_case("qlinearmatmul_2d", U8, (2, 4), U8, (4, 3), U8)
qmm_case("qlinearmatmul_3d_i8", I8, (2, 2, 4), I8, (2, 4, 3), I8)
qmm_case("qlinearmatmul_bcast", U8, (2, 1, 3, 5), I8, (3, 5, 66), U8)
qmm_case("qlinearmatmul_per_row_col", U8, (3, 4), U8, (4, 5), I8, a_vec=True, b_vec=True)

# ---- ConvInteger / QLinearConv ----


def conv_ref(x, w, strides, dil, pads, group):
    """Naive N-D conv of int64 arrays (zero points already subtracted), zero padding."""
    nsp = x.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0)] + [(pads[i], pads[nsp + i]) for i in range(nsp)])
    N, C = x.shape[:2]
    M = w.shape[0]
    ks = w.shape[2:]
    out = [(xp.shape[2 + i] - ((ks[i] - 1) * dil[i] + 1)) // strides[i] + 1 for i in range(nsp)]
    y = np.zeros([N, M] + out, np.int64)
    cg, mg = C // group, M // group
    for n in range(N):
        for m in range(M):
            g = m // mg
            for pos in np.ndindex(*out):
                acc = 0
                for kp in np.ndindex(*ks):
                    idx = tuple(pos[i] * strides[i] + kp[i] * dil[i] for i in range(nsp))
                    acc += int(np.dot(xp[(n, slice(g * cg, (g + 1) * cg)) + idx], w[(m, slice(None)) + kp]))
                y[(n, m) + pos] = acc
    return y


def conv_attrs(nsp, strides, dil, pads, group):
    a = {}
    if any(s != 1 for s in strides):
        a["strides"] = list(strides)
    if any(d != 1 for d in dil):
        a["dilations"] = list(dil)
    if any(pads):
        a["pads"] = list(pads)
    if group != 1:
        a["group"] = group
    return a


def convi_case(name, xdt, xs, wdt, ws, strides=None, dil=None, pads=None, group=1, xzp=True, wzp_n=0):
    nsp = len(xs) - 2
    strides, dil, pads = strides or [1] * nsp, dil or [1] * nsp, pads or [0] * 2 * nsp
    x, w = q8(xdt, xs), q8(wdt, ws)
    xz = q8(xdt, ()) if xzp else None
    wz = q8(wdt, (wzp_n,)) if wzp_n else None
    xe = x - (xz if xz is not None else 0)
    we = w - (wz.reshape((-1,) + (1,) * (w.ndim - 1)) if wz is not None else 0)
    y = conv_ref(xe, we, strides, dil, pads, group)
    ins = [(xdt, x), (wdt, w)]
    if xz is not None or wz is not None:
        ins.append((xdt, xz) if xz is not None else None)
    if wz is not None:
        ins.append((wdt, wz))
    case(name, "ConvInteger", 10, ins, conv_attrs(nsp, strides, dil, pads, group), [(I32, y)])


convi_case("convinteger_pads", U8, (1, 1, 3, 3), U8, (1, 1, 2, 2), pads=[1, 1, 1, 1])
convi_case("convinteger_no_zp", I8, (2, 2, 5, 6), I8, (3, 2, 3, 2), xzp=False)
convi_case("convinteger_group_stride", U8, (1, 4, 7, 7), I8, (6, 2, 3, 3), strides=[2, 2],
           pads=[1, 0, 2, 1], group=2, wzp_n=6)
convi_case("convinteger_1d_dil", I8, (2, 3, 80), U8, (2, 3, 3), dil=[2], pads=[3, 1], wzp_n=1)
convi_case("convinteger_3d", U8, (1, 2, 4, 3, 5), U8, (2, 2, 2, 2, 3), pads=[0, 1, 1, 1, 0, 1])


def qconv_case(name, xdt, xs, wdt, ws, ydt, strides=None, dil=None, pads=None, group=1,
               per_ch=False, bias=False):
    nsp = len(xs) - 2
    strides, dil, pads = strides or [1] * nsp, dil or [1] * nsp, pads or [0] * 2 * nsp
    M = ws[0]
    x, w = q8(xdt, xs), q8(wdt, ws)
    x_s = np.float32(rng.uniform(0.002, 0.01))
    w_s = rng.uniform(0.002, 0.01, (M,) if per_ch else (1,)).astype(np.float32)
    y_s = np.float32(rng.uniform(0.01, 0.05))
    xz, wz, yz = q8(xdt, ()), q8(wdt, (M,) if per_ch else (1,)), q8(ydt, ())
    xe = x - xz
    we = w - wz.reshape((-1,) + (1,) * (w.ndim - 1)) if per_ch else w - wz.reshape(())
    acc = conv_ref(xe, we, strides, dil, pads, group)
    b = rng.integers(-5000, 5000, (M,)).astype(np.int64) if bias else None
    if bias:
        acc = acc + b.reshape((1, M) + (1,) * nsp)
    mult = (x_s * w_s / y_s).astype(np.float32)
    mult = mult.reshape((1, M) + (1,) * nsp) if per_ch else mult.reshape(())
    y = requant(acc, mult, yz, ydt)
    ins = [(xdt, x), (F32, x_s), (xdt, xz), (wdt, w), (F32, w_s), (wdt, wz), (F32, y_s), (ydt, yz)]
    if bias:
        ins.append((I32, b))
    case(name, "QLinearConv", 10, ins, conv_attrs(nsp, strides, dil, pads, group), [(ydt, y)])


qconv_case("qlinearconv_basic", U8, (1, 1, 7, 7), U8, (1, 1, 1, 1), U8)
qconv_case("qlinearconv_i8_per_channel", I8, (2, 3, 6, 5), I8, (4, 3, 3, 3), I8, pads=[1, 1, 1, 1],
           per_ch=True, bias=True)
qconv_case("qlinearconv_group_stride", U8, (1, 4, 9, 8), I8, (4, 2, 3, 2), U8, strides=[2, 3],
           dil=[1, 2], pads=[1, 2, 0, 1], group=2, bias=True)
qconv_case("qlinearconv_1d", U8, (1, 2, 70), U8, (3, 2, 5), I8, pads=[2, 2], per_ch=True)

# ---- DFT ----


def as_complex(x):
    return x[..., 0] + 1j * x[..., 1] if x.shape[-1] == 2 else x[..., 0].astype(np.complex128)


def dft_ref(x, axis, n, inverse, onesided):
    c = as_complex(x.astype(np.float64))
    y = (np.fft.ifft if inverse else np.fft.fft)(c, n=n, axis=axis)
    if onesided:
        y = y.take(range(n // 2 + 1), axis=axis)
    return np.stack([y.real, y.imag], axis=-1)


def dft_case(name, opset, dt, shape, axis=None, n=None, inverse=0, onesided=0, axis_input=None,
             rtol=1e-5, atol=1e-4):
    x = (np.round(rng.uniform(-4, 4, shape) * 16) / 16)
    r = len(shape)
    ax = axis if axis is not None else (1 if opset < 20 else -2)
    if axis_input is not None:
        ax = axis_input
    axn = ax + r if ax < 0 else ax
    nn = n if n is not None else shape[axn]
    y = dft_ref(x, axn, nn, inverse, onesided)
    if dt == F32:
        y = y.astype(np.float32).astype(np.float64)
    elif dt == F16:
        y = y.astype(np.float16).astype(np.float64)
    ins = [(dt, x)]
    if n is not None or axis_input is not None:
        ins.append((I64, np.array(n, np.int64), "const") if n is not None else None)
    if axis_input is not None:
        ins.append((I64, np.array(axis_input, np.int64), "const"))
    attrs = {}
    if axis is not None:
        attrs["axis"] = axis
    if inverse:
        attrs["inverse"] = 1
    if onesided:
        attrs["onesided"] = 1
    case(name, "DFT", opset, ins, attrs, [(dt, y)], rtol, atol)


dft_case("dft_real_axis1", 17, F32, (1, 10, 10, 1), axis=1)
dft_case("dft_real_axis2", 17, F32, (1, 10, 10, 1), axis=2)
dft_case("dft_complex_inverse", 17, F32, (2, 10, 3, 2), axis=1, inverse=1)
dft_case("dft_onesided_pad", 17, F64, (3, 7, 1), axis=1, n=12, onesided=1)
dft_case("dft_truncate", 17, F32, (2, 40, 2), axis=1, n=33)
dft_case("dft_neg_axis_default", 20, F32, (2, 3, 6, 1))
dft_case("dft_axis_input", 20, F64, (2, 5, 4, 2), axis_input=1, inverse=1)
dft_case("dft_long_f16", 17, F16, (1, 100, 1), axis=1, rtol=2e-3, atol=0.1)


def irfft_case(name, opset, dt, shape, axis, n=None):
    """DFT with inverse and onesided (IRFFT): numpy.fft.irfft of the bins, output
    [..., n, 1] with n = dft_length or 2 * (bins - 1). Its own generator, so the
    cases after it keep their data."""
    x = np.round(irng.uniform(-4, 4, shape) * 16) / 16
    r = len(shape)
    axn = axis + r if axis < 0 else axis
    y = np.fft.irfft(as_complex(x), n=n, axis=axn)[..., None]
    if dt == F32:
        y = y.astype(np.float32).astype(np.float64)
    ins = [(dt, x)]
    if opset < 20:
        attrs = {"axis": axis, "inverse": 1, "onesided": 1}
        if n is not None:
            ins.append((I64, np.array(n, np.int64), "const"))
    else:
        attrs = {"inverse": 1, "onesided": 1}
        ins.append((I64, np.array(n, np.int64), "const") if n is not None else None)
        ins.append((I64, np.array(axis, np.int64), "const"))
    case(name, "DFT", opset, ins, attrs, [(dt, y)], 1e-5, 1e-4)


irng = np.random.default_rng(20261203)
irfft_case("dft_irfft_20", 20, F32, (2, 5, 2), axis=1)                 # n 8
irfft_case("dft_irfft_20_odd", 20, F64, (2, 5, 2), axis=-2, n=9)       # 5 bins, n 9
irfft_case("dft_irfft_20_crop_bins", 20, F32, (1, 7, 2), axis=1, n=6)   # bins 4.. dropped
irfft_case("dft_irfft_20_pad_bins", 20, F64, (2, 3, 4, 2), axis=1, n=10)  # bins 3..5 zero
irfft_case("dft_irfft_17_inner", 17, F32, (2, 3, 6, 2), axis=2)       # n 10
irfft_case("dft_irfft_17_len_real_in", 17, F64, (2, 6, 1), axis=1, n=7)  # real bins

# ---- STFT ----


def stft_case(name, dt, batch, length, in_c, step, flen=None, window=False, onesided=1):
    x = np.round(rng.uniform(-4, 4, (batch, length, in_c)) * 16) / 16
    wl = flen if flen else 16
    win = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(wl) / wl)) if window else None
    c = as_complex(x)
    frames = (length - wl) // step + 1
    nb = wl // 2 + 1 if onesided else wl
    y = np.zeros((batch, frames, nb, 2))
    for b in range(batch):
        for t in range(frames):
            seg = c[b, t * step:t * step + wl] * (win if window else 1)
            f = np.fft.fft(seg)[:nb]
            y[b, t, :, 0], y[b, t, :, 1] = f.real, f.imag
    if dt == F32:
        y = y.astype(np.float32).astype(np.float64)
        if window:
            win = win.astype(np.float32).astype(np.float64)
            # recompute with the float32 window the kernel sees
            for b in range(batch):
                for t in range(frames):
                    f = np.fft.fft(c[b, t * step:t * step + wl] * win)[:nb]
                    y[b, t, :, 0] = f.real.astype(np.float32)
                    y[b, t, :, 1] = f.imag.astype(np.float32)
    ins = [(dt, x), (I64, np.array(step, np.int64), "const")]
    ins.append((dt, win) if window else None)
    if flen:
        ins.append((I64, np.array(flen, np.int64), "const"))
    attrs = {} if onesided else {"onesided": 0}
    case(name, "STFT", 17, ins, attrs, [(dt, y)], 1e-5, 1e-4)


stft_case("stft_frame_length", F32, 1, 128, 1, 8, flen=16)
stft_case("stft_window", F32, 2, 100, 1, 7, window=True)
stft_case("stft_complex_twosided", F64, 1, 50, 2, 5, flen=10, onesided=0)
stft_case("stft_window_and_length", F32, 1, 40, 1, 16, flen=16, window=True)

# ---- windows ----


def win_case(op, size, periodic=1, odt=None):
    N = size if periodic else size - 1
    n = np.arange(size, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        x = 2 * np.pi * n / N
    if op == "HannWindow":
        y = 0.5 - 0.5 * np.cos(x)
    elif op == "HammingWindow":
        y = 25 / 46 - 21 / 46 * np.cos(x)
    else:
        y = 0.42 - 0.5 * np.cos(x) + 0.08 * np.cos(2 * x)
    if N == 0:
        y = np.ones(size)
    odt = odt or F32
    if odt in FLOATS:
        y = y.astype(NP[odt]).astype(np.float64)
    else:
        y = np.trunc(y).astype(np.int64)
    attrs = {}
    if not periodic:
        attrs["periodic"] = 0
    if odt != F32:
        attrs["output_datatype"] = odt
    name = "%s_%d_%s_%d" % (op.lower(), size, "periodic" if periodic else "symmetric", odt)
    case(name, op, 17, [(I32, np.array(size, np.int64), "const")], attrs, [(odt, y)], 1e-6, 1e-7)


for op in ("HannWindow", "HammingWindow", "BlackmanWindow"):
    win_case(op, 10)
    win_case(op, 10, periodic=0)
    win_case(op, 33, odt=F64)
win_case("HannWindow", 1, periodic=0)
win_case("HammingWindow", 0)
win_case("BlackmanWindow", 7, odt=I32)

# ---- MelWeightMatrix (the ONNX reference formula) ----


def mel_case(name, n_mel, dft, sr, lo, hi, odt=F32):
    lo, hi = np.float32(lo), np.float32(hi)
    nspec = dft // 2 + 1
    fb = np.arange(0, n_mel + 2)
    lm = 2595 * np.log10(1 + lo / 700)
    hm = 2595 * np.log10(1 + hi / 700)
    step = (hm - lm) / fb.shape[0]
    fb = fb * step + lm
    fb = 700 * (np.power(10, (fb / 2595)) - 1)
    fb = ((dft + 1) * fb) // sr
    fb = fb.astype(int)
    out = np.zeros((nspec, n_mel))
    for i in range(n_mel):
        l, c, h = fb[i], fb[i + 1], fb[i + 2]
        if c == l:
            out[c, i] = 1
        else:
            for j in range(l, c + 1):
                out[j, i] = float(j - l) / float(c - l)
        if h > c:
            for j in range(c, h):
                out[j, i] = float(h - j) / float(h - c)
    out = out.astype(NP[odt]).astype(np.float64)
    ins = [(I32, np.array(n_mel), "const"), (I32, np.array(dft), "const"), (I32, np.array(sr), "const"),
           (F32, np.array(lo, np.float64), "const"), (F32, np.array(hi, np.float64), "const")]
    attrs = {} if odt == F32 else {"output_datatype": odt}
    case(name, "MelWeightMatrix", 17, ins, attrs, [(odt, out)], 1e-6, 1e-7)


mel_case("mel_node_test", 8, 16, 8192, 0, 4096)
mel_case("mel_speech", 40, 512, 16000, 20, 7600, F64)
mel_case("mel_f16", 10, 64, 8000, 100, 4000, F16)


def emit():
    w = sys.stdout.write
    w("/* cases.h — generated by gen_cases.py (numpy references); do not edit. */\n")
    w("#ifndef QS_CASES_H\n#define QS_CASES_H\n\n")
    body = []
    for ci, (name, op, opset, ins, attrs, outs, rtol, atol) in enumerate(cases):
        def tensor(tag, t):
            if t is None:
                return "{0, 0, {0}, NULL, NULL, 0}"
            dt, arr = t[0], np.asarray(t[1])
            const = 1 if len(t) > 2 else 0
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
            return "{%d, %d, {%s}, %s, %d}" % (dt, arr.ndim, dims, ref, const)
        tin = [tensor("in%d" % i, t) for i, t in enumerate(ins)]
        tout = [tensor("out%d" % i, t) for i, t in enumerate(outs)]
        tat = []
        for ai, (key, val) in enumerate(attrs.items()):
            if isinstance(val, int):
                tat.append('{"%s", RA_INT, %d, 0, 0, NULL}' % (key, val))
            else:
                w("static const int64_t c%d_a%d[] = {%s};\n" % (ci, ai, ",".join(str(v) for v in val)))
                tat.append('{"%s", RA_INTS, 0, 0, %d, c%d_a%d}' % (key, len(val), ci, ai))
        body.append('\t{"%s", "%s", %d, %d, {%s}, %d, {%s}, %d, {%s}, %g, %g},\n' % (
            name, op, opset, len(tin), ", ".join(tin), len(tat),
            ", ".join(tat) or '{NULL, RA_INT, 0, 0, 0, NULL}', len(tout), ", ".join(tout), rtol, atol))
    w("\nstatic const QsCase qs_cases[] = {\n")
    for line in body:
        w(line)
    w("};\n\n#endif /* QS_CASES_H */\n")


emit()
