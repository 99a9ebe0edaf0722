#!/usr/bin/python3
"""Writes cases.h: reference cases for the image op groups' unit test.

usage: /usr/bin/python3 tests/unit/image/gen_cases.py > tests/unit/image/cases.h
Each case is one node (op, opset, attributes, inputs, expected output). References:
ONNX 1.12's own Resize reference (onnx.backend.test.case.node.resize), extended for
the opset 18/19 features (antialias, axes, keep_aspect_ratio_policy,
half_pixel_symmetric) as the later ONNX reference defines them; PyTorch for
GridSample, AffineGrid and Col2Im (fold); direct numpy loops for the rest. Integer results of
interpolation round half away from zero and saturate (ingot's documented rule; the
ONNX reference truncates). float16 references are computed from the rounded inputs.
"""
import math
import warnings

import numpy as np
import torch
from onnx.backend.test.case.node import resize as onnx_resize

DT = {np.float32: 1, np.uint8: 2, np.int8: 3, np.uint16: 4, np.int16: 5, np.int32: 6,
      np.int64: 7, np.bool_: 9, np.float16: 10, np.float64: 11, np.uint32: 12, np.uint64: 13}
rng = np.random.default_rng(11)
cases = []


class T:
    """A tensor of a case: dtype code, shape, raw bytes, constant or not (None: absent)."""
    def __init__(self, arr, const=False):
        arr = np.asarray(arr)
        self.dt = DT[arr.dtype.type]
        self.shape = arr.shape
        self.raw = arr.tobytes()
        self.const = const


ABSENT = None


def add(name, op, opset, attrs, ins, out, tol=(1e-4, 1e-6)):
    cases.append((name, op, opset, attrs, ins, out, tol))


def to_dtype(y, dt):
    """Float reference -> output array of numpy dtype dt (ints round half away, saturate)."""
    if np.issubdtype(dt, np.floating):
        return y.astype(dt)
    if dt == np.bool_:
        return y != 0
    info = np.iinfo(dt)
    r = np.where(y < 0, np.ceil(y - 0.5), np.floor(y + 0.5))
    return np.clip(r, info.min, info.max).astype(dt)


# ---- Resize reference ----
def linear_aa(ratio, scale):
    s = min(scale, 1.0)
    start = int(np.floor(-1 / s) + 1)
    args = (np.arange(start, 2 - start) - ratio) * s
    c = np.clip(1 - np.abs(args), 0, 1)
    return c / c.sum()


def cubic_kernel(x, a):
    x = abs(x)
    if x <= 1:
        return (a + 2) * x ** 3 - (a + 3) * x ** 2 + 1
    if x < 2:
        return a * x ** 3 - 5 * a * x ** 2 + 8 * a * x - 4 * a
    return 0.0


def cubic_aa(ratio, scale, a):
    s = min(scale, 1.0)
    i0 = int(np.floor(-2 / s) + 1)
    c = np.array([cubic_kernel(s * (i - ratio), a) for i in range(i0, 2 - i0)])
    return c / c.sum()


def resize_ref(x, mode="nearest", ctm="half_pixel", nearest_mode="round_prefer_floor",
               cubic_a=-0.75, exclude_outside=0, extrapolation=0.0, antialias=0, scales=None,
               sizes=None, roi=None, axes=None, policy="stretch"):
    r = x.ndim
    axes = list(range(r)) if axes is None else [a % r for a in axes]
    if scales is not None:
        sc = [1.0] * r
        for i, d in enumerate(axes):
            sc[d] = float(np.float32(scales[i]))
        out = [int(sc[d] * x.shape[d]) for d in range(r)]
    else:
        out = list(x.shape)
        for i, d in enumerate(axes):
            out[d] = sizes[i]
        sc = [out[d] / x.shape[d] for d in range(r)]
        if policy != "stretch":
            s = (min if policy == "not_larger" else max)(sc[d] for d in axes)
            sc = [s if d in axes else 1.0 for d in range(r)]
            out = [int(s * x.shape[d] + 0.5) if d in axes else x.shape[d] for d in range(r)]
    full_roi = None
    if roi is not None:
        full_roi = [0.0] * r + [1.0] * r
        for i, d in enumerate(axes):
            full_roi[d] = roi[i]
            full_roi[r + d] = roi[len(axes) + i]
    # per-axis coefficient functions (scale-dependent with antialias)
    fns = []
    for d in range(r):
        if mode == "nearest" and nearest_mode == "simple":   # Resize-10 / Upsample
            m = "ceil" if sc[d] < 1 else "floor"
            fns.append(lambda ratio, m=m: onnx_resize.nearest_coeffs(ratio, m))
        elif mode == "nearest":
            fns.append(lambda ratio, m=nearest_mode: onnx_resize.nearest_coeffs(ratio, m))
        elif mode == "linear":
            fns.append((lambda ratio, s=sc[d]: linear_aa(ratio, s)) if antialias
                       else onnx_resize.linear_coeffs)
        else:
            fns.append((lambda ratio, s=sc[d]: cubic_aa(ratio, s, cubic_a)) if antialias
                       else (lambda ratio: onnx_resize.cubic_coeffs(ratio, cubic_a)))
    shift = [0.0] * r
    if ctm == "half_pixel_symmetric":   # = half_pixel at x + offset * scale
        for d in range(r):
            ow = sc[d] * x.shape[d]
            shift[d] = x.shape[d] / 2 * (1 - out[d] / ow) * sc[d]
        ctm = "half_pixel"
    elif ctm == "tf_half_pixel_for_nn":   # = half_pixel at x + scale / 2
        shift = [0.5 * s for s in sc]
        ctm = "half_pixel"

    def nd(data, dims, xs, roi_d):
        d = dims[0]
        kw = dict(extrapolation_value=extrapolation, coordinate_transformation_mode=ctm,
                  exclude_outside=bool(exclude_outside))
        rr = None if roi_d is None else [roi_d[0][0], roi_d[1][0]]
        if len(dims) == 1:
            vals = data
        else:
            sub = None if roi_d is None else (roi_d[0][1:], roi_d[1][1:])
            vals = [nd(data[i], dims[1:], xs[1:], sub) for i in range(data.shape[0])]
        return onnx_resize.interpolate_1d_with_x(vals, sc[d], xs[0] + shift[d], fns[d], roi=rr,
                                                 **kw)

    y = np.zeros(out)
    rois = None if full_roi is None else (full_roi[:r], full_roi[r:])
    for idx in np.ndindex(*out):
        y[idx] = nd(x.astype(np.float64), list(range(r)), [float(i) for i in idx], rois)
    return y


def resize_case(name, opset, shape, dt=np.float32, attrs=(), scales=None, sizes=None, roi=None,
                axes=None, ints=False, **kw):
    if dt == np.bool_:
        x = rng.random(shape) > 0.5
    elif np.issubdtype(dt, np.integer):
        info = np.iinfo(dt)
        x = rng.integers(max(info.min, -100), min(info.max, 200), shape).astype(dt)
    else:
        x = (rng.standard_normal(shape) * 3).astype(dt)
    at = list(attrs)
    kw2 = dict(kw)
    for a in at:
        if a[0] in ("mode", "coordinate_transformation_mode", "nearest_mode",
                    "keep_aspect_ratio_policy"):
            key = {"coordinate_transformation_mode": "ctm",
                   "keep_aspect_ratio_policy": "policy"}.get(a[0], a[0])
            kw2[key] = a[2]
        elif a[0] == "cubic_coeff_a":
            kw2["cubic_a"] = a[2]
        elif a[0] in ("exclude_outside", "antialias"):
            kw2[a[0]] = a[2]
        elif a[0] == "extrapolation_value":
            kw2["extrapolation"] = a[2]
    if axes is not None:
        at.append(("axes", "ints", axes))
    y = resize_ref(x.astype(np.float64), scales=scales, sizes=sizes, roi=roi, axes=axes, **kw2)
    if opset < 11:
        ins = [T(x), T(np.array(scales, np.float32), True)]
    else:
        tr = T(np.array(roi, np.float32), True) if roi is not None else \
            T(np.zeros(0, np.float32), True) if opset < 13 or ints else ABSENT
        ts = T(np.array(scales, np.float32), True) if scales is not None else \
            T(np.zeros(0, np.float32), True) if opset < 13 or ints else ABSENT
        ins = [T(x), tr, ts]
        if sizes is not None:
            ins.append(T(np.array(sizes, np.int64), True))
    tol = (1e-2, 1e-3) if dt == np.float16 else (1e-5, 1e-6)
    add(name, "OP_RESIZE", opset, at, ins, T(to_dtype(y, dt)), tol)


S = "s"
resize_case("resize_linear_hp", 13, (1, 2, 3, 4), attrs=[("mode", S, "linear")],
            scales=[1, 1, 2.0, 1.5])
resize_case("resize_cubic_down_f64", 13, (1, 1, 5, 6), np.float64, [("mode", S, "cubic")],
            scales=[1, 1, 0.6, 0.5])
resize_case("resize_linear_f16", 13, (2, 3, 4), np.float16, [("mode", S, "linear")],
            sizes=[2, 5, 7])
resize_case("resize_trilinear_5d", 13, (1, 2, 3, 4, 3), attrs=[("mode", S, "linear")],
            sizes=[1, 2, 5, 3, 4])
resize_case("resize_nearest_1d", 13, (7,), attrs=[("nearest_mode", S, "round_prefer_ceil")],
            scales=[1.7])
for nm in ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil"):
    resize_case("resize_nearest_%s_hp" % nm, 13, (1, 1, 4, 5),
                attrs=[("nearest_mode", S, nm)], sizes=[1, 1, 7, 3])
    resize_case("resize_nearest_%s_ac" % nm, 11, (1, 1, 3, 5),
                attrs=[("nearest_mode", S, nm), ("coordinate_transformation_mode", S,
                                                 "align_corners")], scales=[1, 1, 2.5, 0.6])
for ctm in ("pytorch_half_pixel", "asymmetric", "align_corners", "half_pixel"):
    resize_case("resize_linear_" + ctm, 13, (1, 1, 3, 4),
                attrs=[("mode", S, "linear"), ("coordinate_transformation_mode", S, ctm)],
                sizes=[1, 1, 1, 6])
resize_case("resize_tf_half_pixel_for_nn", 11, (1, 1, 4, 4),
            attrs=[("coordinate_transformation_mode", S, "tf_half_pixel_for_nn")],
            scales=[1, 1, 1.5, 0.75])
resize_case("resize_tf_crop_axes_nearest", 18, (2, 5, 6),
            attrs=[("coordinate_transformation_mode", S, "tf_crop_and_resize"),
                   ("extrapolation_value", "f", -3.5)],
            sizes=[4, 5], roi=[0.2, -0.3, 1.1, 0.8], axes=[1, 2])
resize_case("resize_tf_crop_cubic", 13, (1, 1, 4, 5),
            attrs=[("mode", S, "cubic"), ("coordinate_transformation_mode", S, "tf_crop_and_resize")],
            scales=[1, 1, 1.5, 0.8], roi=[0, 0, 0.1, 0.25, 1, 1, 0.9, 0.75])
resize_case("resize_cubic_exclude", 13, (1, 1, 4, 4),
            attrs=[("mode", S, "cubic"), ("exclude_outside", "i", 1), ("cubic_coeff_a", "f", -0.5)],
            scales=[1, 1, 1.25, 0.75])
resize_case("resize_empty_roi_scales_sizes", 13, (1, 1, 2, 3), attrs=[("mode", S, "linear")],
            sizes=[1, 1, 3, 2], ints=True)
resize_case("resize_opset11_empty_scales", 11, (1, 1, 2, 3), attrs=[("mode", S, "cubic")],
            sizes=[1, 1, 4, 4])
resize_case("resize10_nearest_down", 10, (1, 1, 5, 5), scales=[1, 1, 0.6, 0.6],
            ctm="asymmetric", nearest_mode="simple")
resize_case("resize10_linear_up", 10, (1, 1, 2, 3), attrs=[("mode", S, "linear")],
            scales=[1, 1, 2, 2], ctm="asymmetric")
resize_case("resize_u8_linear", 13, (1, 2, 3, 3), np.uint8, [("mode", S, "linear")],
            scales=[1, 1, 1.7, 2.3])
resize_case("resize_i8_cubic_saturates", 13, (1, 1, 4, 4), np.int8, [("mode", S, "cubic")],
            scales=[1, 1, 2, 2])
resize_case("resize_i32_nearest", 13, (2, 3, 4), np.int32, sizes=[2, 5, 2])
resize_case("resize_i64_linear", 13, (3, 4), np.int64, [("mode", S, "linear")], sizes=[5, 3])
resize_case("resize_bool_nearest", 13, (3, 4), np.bool_, scales=[2, 0.5])
resize_case("resize18_antialias_linear", 18, (1, 1, 6, 7),
            attrs=[("mode", S, "linear"), ("antialias", "i", 1)], scales=[1, 1, 0.5, 0.6])
resize_case("resize18_antialias_cubic", 18, (1, 1, 8, 8),
            attrs=[("mode", S, "cubic"), ("antialias", "i", 1)], sizes=[1, 1, 3, 5])
resize_case("resize18_antialias_up_is_plain", 18, (1, 1, 3, 3),
            attrs=[("mode", S, "linear"), ("antialias", "i", 1)], scales=[1, 1, 2, 1.5])
resize_case("resize18_axes_sizes", 18, (1, 2, 4, 4), attrs=[("mode", S, "linear")],
            sizes=[3, 6], axes=[2, 3])
resize_case("resize18_axes_negative_scales", 18, (2, 3, 4), attrs=[("mode", S, "cubic")],
            scales=[1.5, 0.5], axes=[-1, 1])
resize_case("resize18_not_larger", 18, (1, 1, 4, 6),
            attrs=[("mode", S, "linear"), ("keep_aspect_ratio_policy", S, "not_larger")],
            sizes=[7, 8], axes=[2, 3])
resize_case("resize18_not_smaller", 18, (1, 1, 4, 6),
            attrs=[("keep_aspect_ratio_policy", S, "not_smaller")], sizes=[1, 1, 7, 8])
resize_case("resize19_half_pixel_symmetric", 19, (1, 1, 4, 5),
            attrs=[("mode", S, "linear"), ("coordinate_transformation_mode", S,
                                           "half_pixel_symmetric")], scales=[1, 1, 0.7, 1.3])
resize_case("resize19_half_pixel_symmetric_sizes", 19, (1, 1, 4, 4),
            attrs=[("mode", S, "cubic"), ("coordinate_transformation_mode", S,
                                          "half_pixel_symmetric")], sizes=[1, 1, 6, 3])


# ---- Upsample ----
def upsample_case(name, opset, shape, scales, mode="nearest", attr_scales=False):
    x = (rng.standard_normal(shape) * 2).astype(np.float32)
    y = resize_ref(x.astype(np.float64), mode=mode, ctm="asymmetric", nearest_mode="simple",
                   scales=scales)
    attrs = [("mode", S, mode)]
    ins = [T(x)]
    if attr_scales:
        attrs.append(("scales", "floats", scales))
    else:
        ins.append(T(np.array(scales, np.float32), True))
    add(name, "OP_UPSAMPLE", opset, attrs, ins, T(y.astype(np.float32)))


upsample_case("upsample7_linear_attr", 7, (1, 1, 2, 3), [1, 1, 2, 2.5], "linear", True)
upsample_case("upsample9_nearest", 9, (1, 2, 2, 2), [1, 1, 3, 2])
upsample_case("upsample9_linear_3d", 9, (2, 3, 2), [1, 2, 3], "linear")


# ---- GridSample (PyTorch; 1-D as 2-D with H = 1 and y = 0) ----
def grid_case(name, opset, xshape, oshape, mode, padding, align, dt=np.float32, names20=True):
    nsp = len(xshape) - 2
    x = rng.standard_normal(xshape).astype(dt)
    g = (rng.random((xshape[0],) + tuple(oshape) + (nsp,)) * 2.6 - 1.3).astype(dt)
    tmode = {"linear": "bilinear", "cubic": "bicubic", "nearest": "nearest"}[mode]
    tg = g.astype(np.float64)
    if mode == "cubic" and padding != "zeros":
        # the ONNX reference moves an outside coordinate in first (PyTorch only pads the
        # taps); do that here, then let PyTorch interpolate
        for k in range(nsp):
            n = xshape[1 + nsp - k]
            lo, hi = (0.0, n - 1.0) if align else (-0.5, n - 0.5)
            v = (tg[..., k] + 1) / 2 * (n - 1) if align else ((tg[..., k] + 1) * n - 1) / 2
            if padding == "border":
                v = np.where((v < lo) | (v > hi), np.clip(v, 0, n - 1), v)
            else:
                rngw = hi - lo
                dx = np.where(v < lo, lo - v, v - hi)
                q = np.floor(dx / rngw)
                r = dx - q * rngw
                even = np.mod(q, 2) == 0
                refl = np.where(v < lo, np.where(even, lo + r, hi - r), np.where(even, hi - r, lo + r))
                v = np.where((v < lo) | (v > hi), refl, v)
            tg[..., k] = v * 2 / (n - 1) - 1 if align else (2 * v + 1) / n - 1
    tx, tg = torch.from_numpy(x.astype(np.float64)), torch.from_numpy(tg)
    if nsp == 1:
        tx = tx.unsqueeze(2)
        tg = torch.stack([tg[..., 0], torch.zeros_like(tg[..., 0])], -1).unsqueeze(1)
    y = torch.nn.functional.grid_sample(tx, tg, mode=tmode, padding_mode=padding,
                                        align_corners=bool(align)).numpy()
    if nsp == 1:
        y = y[:, :, 0]
    onnx_mode = mode if names20 else tmode
    attrs = [("mode", S, onnx_mode), ("padding_mode", S, padding), ("align_corners", "i", align)]
    tol = (1e-2, 1e-3) if dt == np.float16 else (1e-5, 1e-6)
    add(name, "OP_GRID_SAMPLE", opset, attrs, [T(x), T(g)], T(y.astype(dt)), tol)


for pad in ("zeros", "border", "reflection"):
    for align in (0, 1):
        grid_case("gs3d_linear_%s_%d" % (pad, align), 20, (1, 2, 3, 4, 5), (2, 3, 2), "linear",
                  pad, align)
        grid_case("gs2d_cubic_%s_%d" % (pad, align), 16, (2, 1, 4, 5), (3, 4), "cubic", pad,
                  align, names20=False)
grid_case("gs3d_nearest", 20, (1, 1, 3, 4, 5), (3, 2, 2), "nearest", "zeros", 0)
grid_case("gs2d_nearest_reflect", 16, (1, 2, 5, 4), (3, 3), "nearest", "reflection", 1,
          names20=False)
grid_case("gs2d_f64", 16, (2, 2, 3, 3), (2, 5), "linear", "border", 0, np.float64, False)
grid_case("gs2d_f16", 20, (1, 2, 4, 3), (3, 3), "linear", "zeros", 1, np.float16)
grid_case("gs1d_linear", 20, (2, 3, 6), (7,), "linear", "zeros", 0)


# ---- RoiAlign (direct loops after the spec and the ONNX reference) ----
def roi_align_ref(x, rois, bidx, oh, ow, sr, ss, mode, half):
    n_r, (c, h, w) = rois.shape[0], x.shape[1:]
    y = np.zeros((n_r, c, oh, ow))
    for r in range(n_r):
        off = 0.5 if half else 0.0
        x1, y1, x2, y2 = [float(v) * ss - off for v in rois[r]]
        rw, rh = x2 - x1, y2 - y1
        if not half:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        bh, bw = rh / oh, rw / ow
        gh = sr if sr > 0 else int(np.ceil(rh / oh))
        gw = sr if sr > 0 else int(np.ceil(rw / ow))
        cnt = max(gh * gw, 1)
        for ch in range(c):
            img = x[bidx[r], ch].astype(np.float64)
            for ph in range(oh):
                for pw in range(ow):
                    vals = []
                    for iy in range(gh):
                        yy = y1 + ph * bh + (iy + 0.5) * bh / gh
                        for ix in range(gw):
                            xx = x1 + pw * bw + (ix + 0.5) * bw / gw
                            if yy < -1 or yy > h or xx < -1 or xx > w:
                                vals.append([0.0] * 4)
                                continue
                            yv, xv = max(yy, 0.0), max(xx, 0.0)
                            yl, xl = int(yv), int(xv)
                            if yl >= h - 1:
                                yl = yhh = h - 1
                                yv = float(yl)
                            else:
                                yhh = yl + 1
                            if xl >= w - 1:
                                xl = xhh = w - 1
                                xv = float(xl)
                            else:
                                xhh = xl + 1
                            ly, lx = yv - yl, xv - xl
                            vals.append([(1 - ly) * (1 - lx) * img[yl, xl], (1 - ly) * lx * img[yl, xhh],
                                         ly * (1 - lx) * img[yhh, xl], ly * lx * img[yhh, xhh]])
                    if mode == "avg":
                        y[r, ch, ph, pw] = sum(sum(v) for v in vals) / cnt
                    else:
                        y[r, ch, ph, pw] = max(max(v) for v in vals) if vals else 0.0
    return y


def roi_case(name, opset, dt, attrs, n=2, c=2, h=6, w=7, n_r=3):
    a = dict((k, v) for k, _, v in attrs)
    x = rng.standard_normal((n, c, h, w)).astype(dt)
    rois = np.concatenate([rng.random((n_r, 2)) * 4 - 1, rng.random((n_r, 2)) * 4 + 3], 1)
    rois = rois[:, [0, 1, 2, 3]].astype(dt)
    bidx = rng.integers(0, n, n_r).astype(np.int64)
    half = a.get("coordinate_transformation_mode", "half_pixel" if opset >= 16 else
                 "output_half_pixel") == "half_pixel"
    y = roi_align_ref(x, rois, bidx, a.get("output_height", 1), a.get("output_width", 1),
                      a.get("sampling_ratio", 0), a.get("spatial_scale", 1.0),
                      a.get("mode", "avg"), half)
    add(name, "OP_ROI_ALIGN", opset, attrs, [T(x), T(rois), T(bidx)], T(y.astype(dt)),
        (1e-5, 1e-6))


roi_case("roi_avg_adaptive", 16, np.float32, [("output_height", "i", 3), ("output_width", "i", 2)])
roi_case("roi_max_sr2", 16, np.float32, [("mode", S, "max"), ("output_height", "i", 2),
                                          ("output_width", "i", 3), ("sampling_ratio", "i", 2)])
roi_case("roi10_default_output_half_pixel_f64", 10, np.float64,
         [("output_height", "i", 2), ("output_width", "i", 2), ("spatial_scale", "f", 0.5)])


# ---- LRN, LpPool, LpNormalization, MVN, GroupNormalization ----
def lrn_case(name, dt, shape, size, alpha=1e-4, beta=0.75, bias=1.0):
    x = (rng.standard_normal(shape) * 2).astype(dt)
    xv = x.astype(np.float64)
    c = shape[1]
    sq = np.zeros_like(xv)
    for ch in range(c):
        lo, hi = max(0, ch - (size - 1) // 2), min(c - 1, ch + int(math.ceil((size - 1) / 2)))
        sq[:, ch] = (xv[:, lo:hi + 1] ** 2).sum(axis=1)
    y = xv / (bias + alpha / size * sq) ** beta
    attrs = [("size", "i", size), ("alpha", "f", alpha), ("beta", "f", beta), ("bias", "f", bias)]
    tol = (1e-2, 1e-3) if dt == np.float16 else (1e-5, 1e-6)
    add(name, "OP_LRN", 13, attrs, [T(x)], T(y.astype(dt)), tol)


lrn_case("lrn_even_size", np.float32, (2, 5, 3), 4, 0.3, 0.6, 1.5)
lrn_case("lrn_f16", np.float16, (1, 3, 2, 2), 3, 0.5)


def lp_pool_ref(x, k, s, pads, p, dil=None, ceil=False):
    nsp = x.ndim - 2
    dil = dil or [1] * nsp
    out = []
    for d in range(nsp):
        ek = (k[d] - 1) * dil[d] + 1
        num = x.shape[2 + d] + pads[d] + pads[nsp + d] - ek
        o = (num + (s[d] - 1 if ceil else 0)) // s[d] + 1
        if ceil and (o - 1) * s[d] >= x.shape[2 + d] + pads[d]:
            o -= 1
        out.append(o)
    y = np.zeros(x.shape[:2] + tuple(out))
    for o in np.ndindex(*out):
        acc = np.zeros(x.shape[:2])
        for kk in np.ndindex(*k):
            idx = [o[d] * s[d] - pads[d] + kk[d] * dil[d] for d in range(nsp)]
            if all(0 <= idx[d] < x.shape[2 + d] for d in range(nsp)):
                acc += np.abs(x[(slice(None), slice(None)) + tuple(idx)]) ** p
        y[(slice(None), slice(None)) + o] = acc ** (1.0 / p)
    return y


x = rng.standard_normal((1, 2, 5, 6)).astype(np.float32)
add("lppool_p3_pads_strides", "OP_LP_POOL", 11,
    [("kernel_shape", "ints", [2, 3]), ("strides", "ints", [2, 2]), ("pads", "ints", [1, 0, 1, 1]),
     ("p", "i", 3)], [T(x)], T(lp_pool_ref(x, [2, 3], [2, 2], [1, 0, 1, 1], 3).astype(np.float32)))
x = rng.standard_normal((2, 1, 7)).astype(np.float64)
add("lppool18_ceil_dil_p1", "OP_LP_POOL", 18,
    [("kernel_shape", "ints", [2]), ("strides", "ints", [2]), ("dilations", "ints", [2]),
     ("ceil_mode", "i", 1), ("p", "i", 1)], [T(x)],
    T(lp_pool_ref(x, [2], [2], [0, 0], 1, [2], True)))
x = rng.standard_normal((1, 1, 4, 4)).astype(np.float32)
add("lppool_same_upper_default_p", "OP_LP_POOL", 11,
    [("kernel_shape", "ints", [3, 3]), ("auto_pad", S, "SAME_UPPER")], [T(x)],
    T(lp_pool_ref(x, [3, 3], [1, 1], [1, 1, 1, 1], 2).astype(np.float32)))
add("lppool1_float_p", "OP_LP_POOL", 1,
    [("kernel_shape", "ints", [2, 2]), ("p", "f", 2.0)], [T(x)],
    T(lp_pool_ref(x, [2, 2], [1, 1], [0, 0, 0, 0], 2).astype(np.float32)))

for p, axis, shape in ((2, -1, (3, 4)), (1, 0, (3, 2, 2)), (2, 1, (2, 3, 2))):
    x = rng.standard_normal(shape).astype(np.float32)
    x[(0,) * len(shape)] = 0
    if p == 2 and axis == -1:
        x[1] = 0       # a zero row: ingot gives 0, not NaN
    n = (np.abs(x.astype(np.float64)) ** p).sum(axis=axis, keepdims=True) ** (1 / p)
    y = np.where(n == 0, 0, x / np.where(n == 0, 1, n))
    add("lpnorm_p%d_axis%d" % (p, axis), "OP_LP_NORMALIZATION", 1,
        [("p", "i", p), ("axis", "i", axis)], [T(x)], T(y.astype(np.float32)))

for axes, shape, dt in ((None, (2, 3, 2, 2), np.float32), ([1], (2, 3, 4), np.float64),
                        ([0, -1], (3, 2, 4), np.float16)):
    x = (rng.standard_normal(shape) * 3 + 1).astype(dt)
    xv = x.astype(np.float64)
    ax = tuple([0, 2, 3] if axes is None else axes)
    m = xv.mean(axis=ax, keepdims=True)
    y = (xv - m) / (np.sqrt(((xv - m) ** 2).mean(axis=ax, keepdims=True)) + 1e-9)
    tol = (1e-2, 1e-3) if dt == np.float16 else (1e-5, 1e-6)
    add("mvn_axes_%s" % ("default" if axes is None else "_".join(map(str, axes))),
        "OP_MEAN_VARIANCE_NORMALIZATION", 13, [] if axes is None else [("axes", "ints", axes)],
        [T(x)], T(y.astype(dt)), tol)


def group_norm_case(name, opset, dt, shape, groups, per_channel, eps=1e-5):
    x = (rng.standard_normal(shape) * 2 + 0.5).astype(dt)
    c = shape[1]
    k = c if per_channel else groups
    s = rng.standard_normal(k).astype(dt)
    b = rng.standard_normal(k).astype(dt)
    xv = x.astype(np.float64).reshape(shape[0], groups, -1)
    m = xv.mean(axis=2, keepdims=True)
    v = xv.var(axis=2, keepdims=True)
    yn = ((xv - m) / np.sqrt(v + eps)).reshape(shape)
    bs = (1, c) + (1,) * (len(shape) - 2)
    sc = s.astype(np.float64) if per_channel else np.repeat(s.astype(np.float64), c // groups)
    bc = b.astype(np.float64) if per_channel else np.repeat(b.astype(np.float64), c // groups)
    y = yn * sc.reshape(bs) + bc.reshape(bs)
    attrs = [("num_groups", "i", groups), ("epsilon", "f", eps)]
    add(name, "OP_GROUP_NORMALIZATION", opset, attrs, [T(x), T(s), T(b)], T(y.astype(dt)),
        (1e-2, 1e-3) if dt == np.float16 else (1e-5, 1e-6))


group_norm_case("groupnorm18_per_group", 18, np.float32, (2, 6, 3, 2), 3, False)
group_norm_case("groupnorm21_per_channel", 21, np.float32, (2, 4, 5), 2, True, 1e-3)
group_norm_case("groupnorm21_f64_one_group", 21, np.float64, (1, 3, 4), 1, True)


# ---- MaxUnpool (ONNX reference: scatter into the unpooled shape, then pad) ----
def unpool_case(name, xshape, k, s, pads, out_shape=None, dt=np.float32):
    nsp = len(xshape) - 2
    full = list(xshape[:2]) + [(xshape[2 + d] - 1) * s[d] - pads[d] - pads[nsp + d] + k[d]
                               for d in range(nsp)]
    x = (rng.standard_normal(xshape) * 5).astype(dt)
    plane = int(np.prod(full[2:]))
    ind = np.zeros(xshape, np.int64)
    for nc in np.ndindex(*xshape[:2]):
        base = (nc[0] * xshape[1] + nc[1]) * plane
        ind[nc] = base + rng.choice(plane, size=int(np.prod(xshape[2:])), replace=False).reshape(
            xshape[2:])
    yf = np.zeros(int(np.prod(full)), dt)
    yf[ind.flatten()] = x.flatten()
    yf = yf.reshape(full)
    shape = out_shape or full
    y = np.zeros(shape, dt)
    y[tuple(slice(0, m) for m in full)] = yf
    attrs = [("kernel_shape", "ints", k), ("strides", "ints", s), ("pads", "ints", pads)]
    ins = [T(x), T(ind)]
    if out_shape:
        ins.append(T(np.array(out_shape, np.int64), True))
    add(name, "OP_MAX_UNPOOL", 11, attrs, ins, T(y))


unpool_case("maxunpool_1d_pads", (1, 2, 3), [3], [2], [1, 0])
unpool_case("maxunpool_2d_out_shape", (2, 1, 2, 3), [2, 2], [2, 2], [0, 0, 0, 0], [2, 1, 5, 7])
unpool_case("maxunpool_i32", (1, 1, 2, 2), [2, 2], [2, 2], [0, 0, 0, 0], dt=np.int32)


# ---- Col2Im (PyTorch fold for 2-D; scatter loops for the rest) ----
def col2im_ref(x, img, blk, dil, pads, strides):
    nsp = len(img)
    lpos = [(img[d] + pads[d] + pads[nsp + d] - (dil[d] * (blk[d] - 1) + 1)) // strides[d] + 1
            for d in range(nsp)]
    n, cb, _ = x.shape
    c = cb // int(np.prod(blk))
    y = np.zeros((n, c) + tuple(img), dtype=np.float64 if x.dtype.kind == "f" else np.int64)
    xr = x.reshape((n, c) + tuple(blk) + tuple(lpos))
    for k in np.ndindex(*blk):
        for l in np.ndindex(*lpos):
            pos = [l[d] * strides[d] - pads[d] + k[d] * dil[d] for d in range(nsp)]
            if all(0 <= pos[d] < img[d] for d in range(nsp)):
                y[(slice(None), slice(None)) + tuple(pos)] += xr[(slice(None), slice(None)) + k + l]
    return y, lpos


def col2im_case(name, n, c, img, blk, dil=None, pads=None, strides=None, dt=np.float32):
    nsp = len(img)
    dil, strides = dil or [1] * nsp, strides or [1] * nsp
    pads = pads or [0] * (2 * nsp)
    lpos = [(img[d] + pads[d] + pads[nsp + d] - (dil[d] * (blk[d] - 1) + 1)) // strides[d] + 1
            for d in range(nsp)]
    shape = (n, c * int(np.prod(blk)), int(np.prod(lpos)))
    x = rng.integers(-50, 50, shape).astype(dt) if dt == np.int32 else \
        rng.standard_normal(shape).astype(dt)
    y, _ = col2im_ref(x, img, blk, dil, pads, strides)
    if nsp == 2 and dt == np.float32 and pads[0] == pads[2] and pads[1] == pads[3]:
        t = torch.nn.functional.fold(torch.from_numpy(x.astype(np.float64)), img, blk,
                                     dilation=dil, padding=pads[:2], stride=strides).numpy()
        assert np.allclose(t, y)
    attrs = []
    if dil != [1] * nsp:
        attrs.append(("dilations", "ints", dil))
    if pads != [0] * (2 * nsp):
        attrs.append(("pads", "ints", pads))
    if strides != [1] * nsp:
        attrs.append(("strides", "ints", strides))
    add(name, "OP_COL2IM", 18, attrs,
        [T(x), T(np.array(img, np.int64), True), T(np.array(blk, np.int64), True)],
        T(y.astype(dt)))


col2im_case("col2im_2d", 1, 2, [4, 5], [2, 2])
col2im_case("col2im_2d_pads_strides_dil", 2, 1, [5, 6], [2, 3], [2, 1], [1, 1, 1, 1], [2, 1])
col2im_case("col2im_1d_asym_pads", 1, 3, [7], [3], None, [2, 1], [2])
col2im_case("col2im_3d_i32", 1, 1, [3, 3, 4], [2, 1, 2], dt=np.int32)


# ---- NonMaxSuppression (greedy, as the spec and ONNX Runtime) ----
def iou_over(a, b, center, thr):
    def corners(bx):
        if center:
            return [bx[1] - bx[3] / 2, bx[0] - bx[2] / 2, bx[1] + bx[3] / 2, bx[0] + bx[2] / 2]
        return [min(bx[0], bx[2]), min(bx[1], bx[3]), max(bx[0], bx[2]), max(bx[1], bx[3])]
    a, b = corners(a), corners(b)
    ih = min(a[2], b[2]) - max(a[0], b[0])
    iw = min(a[3], b[3]) - max(a[1], b[1])
    if ih <= 0 or iw <= 0:
        return False
    inter = ih * iw
    ua = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / ua > thr


def nms_ref(boxes, scores, max_out, iou, sthr, center):
    rows = []
    for b in range(boxes.shape[0]):
        for c in range(scores.shape[1]):
            s = scores[b, c]
            cand = [i for i in range(len(s)) if sthr is None or s[i] > sthr]
            cand.sort(key=lambda i: (-s[i], i))
            kept = []
            for i in cand:
                if len(kept) >= max_out:
                    break
                if not any(iou_over(boxes[b, i], boxes[b, j], center, iou) for j in kept):
                    kept.append(i)
                    rows.append([b, c, i])
    return np.array(rows, np.int64).reshape(-1, 3)


def nms_case(name, batch, n_box, n_cls, max_out, iou, sthr, center, const):
    xy = rng.random((batch, n_box, 2)) * 10
    wh = rng.random((batch, n_box, 2)) * 4 + 0.5
    if center:
        boxes = np.concatenate([xy, wh], 2)
    else:
        boxes = np.concatenate([xy, xy + wh], 2)[..., [2, 1, 0, 3]]   # flipped y corners
    boxes = boxes.astype(np.float32)
    scores = rng.random((batch, n_cls, n_box)).astype(np.float32)
    scores[0, 0, 1] = scores[0, 0, 2]          # a tie: lower index first
    y = nms_ref(boxes.astype(np.float64), scores, max_out if max_out is not None else 0,
                np.float32(iou) if iou is not None else 0.0, sthr, center)
    ins = [T(boxes, const), T(scores, const)]
    for v, dt in ((max_out, np.int64), (iou, np.float32), (sthr, np.float32)):
        ins.append(ABSENT if v is None else T(np.array([v], dt), const))
    while ins[-1] is ABSENT:
        ins.pop()
    add(name, "OP_NON_MAX_SUPPRESSION", 11, [("center_point_box", "i", center)], ins, T(y))


nms_case("nms_runtime_corners", 2, 12, 2, 3, 0.3, 0.2, 0, False)
nms_case("nms_const_center", 1, 10, 3, 4, 0.2, None, 1, True)
nms_case("nms_runtime_no_thresholds", 1, 8, 1, 20, None, None, 0, False)
nms_case("nms_no_max_output", 1, 5, 1, None, 0.5, None, 0, False)


# ---- AffineGrid (PyTorch's affine_grid, which gives 0 along a dim of length 1) ----
agrng = np.random.default_rng(20)      # its own stream: the cases above stay as they were


def bf16_tensor(a):
    """T of bfloat16 (dtype 16) rounded to nearest even from a, and its float64 values."""
    u = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    b = ((u + 0x7fff + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    t = T(b)
    t.dt = 16
    return t, (b.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def affine_case(name, size, align, dt=np.float32):
    nsp = len(size) - 2
    theta = agrng.standard_normal((size[0], nsp, nsp + 1))
    if dt == "bf16":
        tt, tv = bf16_tensor(theta)
    else:
        tv = theta.astype(dt).astype(np.float64)
        tt = T(tv.astype(dt))
    with warnings.catch_warnings():     # PyTorch warns about unit-size dims; they are tested
        warnings.simplefilter("ignore")
        y = torch.nn.functional.affine_grid(torch.from_numpy(tv), list(size),
                                            align_corners=bool(align)).numpy()
    if dt == "bf16":
        ty, _ = bf16_tensor(y)
        tol = (1e-2, 1e-2)
    else:
        ty = T(y.astype(dt))
        tol = (2e-3, 1e-3) if dt == np.float16 else (1e-5, 1e-6)
    add(name, "OP_AFFINE_GRID", 20, [("align_corners", "i", align)],
        [tt, T(np.array(size, np.int64), True)], ty, tol)


for align in (0, 1):
    affine_case("affine2d_%d" % align, (2, 3, 4, 5), align)
    affine_case("affine3d_%d" % align, (2, 1, 3, 2, 4), align, np.float64)
    affine_case("affine2d_h1_%d" % align, (1, 1, 1, 3), align)
    affine_case("affine3d_w1_%d" % align, (1, 2, 2, 3, 1), align)
affine_case("affine2d_f16", (1, 1, 3, 4), 0, np.float16)
affine_case("affine3d_bf16", (1, 1, 2, 3, 2), 1, "bf16")


# ---- output ----
def c_float(v):
    t = "%.9g" % v
    return t + (".0f" if not any(ch in t for ch in ".en") else "f")


def c_bytes(b):
    return ", ".join(str(v) for v in b) if b else "0"


def dims(shape):
    return "{ %s }" % (", ".join(str(d) for d in shape) if shape else "0")


def tensor(ci, k, t):
    if t is None:
        return "{ 0, 0, { 0 }, NULL, 0, 0, 1 }"
    return "{ %d, %d, %s, c%d_t%d, %d, %d, 0 }" % (t.dt, len(t.shape), dims(t.shape), ci, k,
                                                  len(t.raw), int(t.const))


print("/* generated by gen_cases.py: reference cases for test_image.c */")
print("/* clang-format off */")
for ci, (name, op, opset, attrs, ins, out, tol) in enumerate(cases):
    for k, t in enumerate(ins + [out]):
        if t is not None:
            print("static const uint8_t c%d_t%d[] = { %s };" % (ci, k, c_bytes(t.raw)))
    for k, a in enumerate(attrs):
        if a[1] == "ints":
            print("static const int64_t c%d_a%d[] = { %s };" % (ci, k, ", ".join(map(str, a[2]))))
        elif a[1] == "floats":
            print("static const float c%d_a%d[] = { %s };" %
                  (ci, k, ", ".join(c_float(v) for v in a[2])))
print("static const TCase cases[] = {")
for ci, (name, op, opset, attrs, ins, out, tol) in enumerate(cases):
    tins = ", ".join(tensor(ci, k, t) for k, t in enumerate(ins))
    tout = tensor(ci, len(ins), out)
    at = []
    for k, a in enumerate(attrs):
        if a[1] == "i":
            at.append('{ "%s", RA_INT, %d, 0, NULL, NULL, NULL, 0 }' % (a[0], a[2]))
        elif a[1] == "f":
            at.append('{ "%s", RA_FLOAT, 0, %s, NULL, NULL, NULL, 0 }' % (a[0], c_float(a[2])))
        elif a[1] == "s":
            at.append('{ "%s", RA_STRING, 0, 0, "%s", NULL, NULL, 0 }' % (a[0], a[2]))
        elif a[1] == "ints":
            at.append('{ "%s", RA_INTS, 0, 0, NULL, c%d_a%d, NULL, %d }' % (a[0], ci, k, len(a[2])))
        else:
            at.append('{ "%s", RA_FLOATS, 0, 0, NULL, NULL, c%d_a%d, %d }' % (a[0], ci, k, len(a[2])))
    print('\t{ "%s", %s, %d, %d, { %s }, %s, %d, { %s }, %g, %g },' % (
        name, op, opset, len(ins), tins, tout, len(attrs), ", ".join(at) or "{ 0 }",
        tol[0], tol[1]))
print("};")
