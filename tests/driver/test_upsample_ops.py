#!/usr/bin/env python3
"""upsample_ops: the row paths of the image decoders' ops against numpy, on c and
host (`ingot check`, one model): Resize of H and W (bilinear half_pixel and
align_corners, nearest asymmetric and round_prefer_ceil, cubic) taken by rows, and
ConvTranspose whose kernel equals its stride (2x2/2 and 3x3/3, grouped, rows wider
than the kernel's 64-column chunk and narrower) with the BatchNormalization and Relu
after it folded in."""
import numpy as np
from onnx import TensorProto, helper

from common import check_all_pass, init, main, model, randf, rng, vi, write_test_dir

F = TensorProto.FLOAT
N = helper.make_node


def coords(out_n, in_n, mode):
    o = np.arange(out_n, dtype=np.float64)
    if mode == "align_corners":
        return o * (in_n - 1) / (out_n - 1) if out_n > 1 else np.zeros(out_n)
    if mode == "asymmetric":
        return o * in_n / out_n
    return (o + 0.5) * in_n / out_n - 0.5    # half_pixel


def linear_1d(x, axis, out_n, mode):
    in_n = x.shape[axis]
    c = np.clip(coords(out_n, in_n, mode), 0, in_n - 1)
    lo = np.floor(c).astype(int)
    hi = np.minimum(lo + 1, in_n - 1)
    f = c - lo
    a, b = np.take(x, lo, axis), np.take(x, hi, axis)
    shape = [1] * x.ndim
    shape[axis] = out_n
    f = f.reshape(shape)
    return a * (1 - f) + b * f


def cubic_1d(x, axis, out_n, a=-0.75):
    in_n = x.shape[axis]
    c = coords(out_n, in_n, "half_pixel")
    base = np.floor(c).astype(int)
    t = c - base
    out = 0
    shape = [1] * x.ndim
    shape[axis] = out_n
    for k in range(-1, 3):
        d = np.abs(k - t)
        w = np.where(d <= 1, ((a + 2) * d - (a + 3)) * d * d + 1,
                     np.where(d < 2, ((a * d - 5 * a) * d + 8 * a) * d - 4 * a, 0))
        idx = np.clip(base + k, 0, in_n - 1)
        out = out + np.take(x, idx, axis) * w.reshape(shape)
    return out


def nearest_1d(x, axis, out_n, mode, rounding):
    c = coords(out_n, x.shape[axis], mode)
    idx = np.floor(c).astype(int) if rounding == "floor" else np.ceil(c - 0.5).astype(int)
    return np.take(x, np.clip(idx, 0, x.shape[axis] - 1), axis)


def convt_ref(x, w, b, k, group):
    n, c, h, wd = x.shape
    cg, mg = c // group, w.shape[1]
    y = np.zeros((n, mg * group, h * k, wd * k))
    for g in range(group):
        for i in range(k):
            for j in range(k):
                y[:, g * mg:(g + 1) * mg, i::k, j::k] = np.einsum(
                    "nchw,cm->nmhw", x[:, g * cg:(g + 1) * cg].astype(np.float64), w[g * cg:(g + 1) * cg, :, i, j])
    return y + b.reshape(1, -1, 1, 1)


def test(ingot, work):
    r = rng(5)
    nodes, inits, ins, outs, xs, ys = [], [], [], [], [], []

    def branch(x, y):
        xs.append(x)
        ys.append(y.astype(np.float32))
        ins.append(vi("x%d" % (len(xs) - 1), F, list(x.shape)))
        outs.append(vi("y%d" % (len(ys) - 1), F, list(y.shape)))
        return "x%d" % (len(xs) - 1), "y%d" % (len(ys) - 1)

    # ---- Resize by rows ----
    x = randf(r, 1, 3, 7, 9)
    for mode, ctm, extra, sizes, want in (
            ("linear", "half_pixel", {}, (14, 20),
             lambda a: linear_1d(linear_1d(a, 2, 14, "half_pixel"), 3, 20, "half_pixel")),
            ("linear", "align_corners", {}, (5, 16),
             lambda a: linear_1d(linear_1d(a, 2, 5, "align_corners"), 3, 16, "align_corners")),
            ("nearest", "asymmetric", {"nearest_mode": "floor"}, (14, 27),
             lambda a: nearest_1d(nearest_1d(a, 2, 14, "asymmetric", "floor"), 3, 27, "asymmetric", "floor")),
            ("nearest", "half_pixel", {"nearest_mode": "round_prefer_ceil"}, (10, 5),
             lambda a: nearest_1d(nearest_1d(a, 2, 10, "half_pixel", "ceil"), 3, 5, "half_pixel", "ceil")),
            ("cubic", "half_pixel", {}, (11, 13), lambda a: cubic_1d(cubic_1d(a, 2, 11), 3, 13))):
        i = len(xs)
        xi, yi = branch(x, want(x.astype(np.float64)))
        inits.append(init("sz%d" % i, np.array([1, 3, sizes[0], sizes[1]], np.int64)))
        nodes.append(N("Resize", [xi, "", "", "sz%d" % i], [yi], name="resize%d" % i, mode=mode,
                       coordinate_transformation_mode=ctm, **extra))

    # ---- ConvTranspose, kernel = stride, + BatchNormalization + Relu ----
    for k, c, m, group, h, wd in ((2, 8, 6, 1, 5, 70), (3, 4, 4, 2, 3, 5)):
        i = len(xs)
        x = randf(r, 1, c, h, wd)
        w, b = randf(r, c, m // group, k, k), randf(r, m)
        sc, bb, mu, var = randf(r, m), randf(r, m), randf(r, m), np.abs(randf(r, m)) + 0.5
        y = convt_ref(x, w, b, k, group)
        y = (y - mu.reshape(1, -1, 1, 1)) / np.sqrt(var.reshape(1, -1, 1, 1) + 1e-5) * sc.reshape(1, -1, 1, 1) \
            + bb.reshape(1, -1, 1, 1)
        xi, yi = branch(x, np.maximum(y, 0))
        inits += [init("w%d" % i, w), init("b%d" % i, b), init("s%d" % i, sc), init("bb%d" % i, bb),
                  init("mu%d" % i, mu), init("v%d" % i, var)]
        nodes += [N("ConvTranspose", [xi, "w%d" % i, "b%d" % i], ["ct%d" % i], name="convt%d" % i,
                    kernel_shape=[k, k], strides=[k, k], group=group),
                  N("BatchNormalization", ["ct%d" % i, "s%d" % i, "bb%d" % i, "mu%d" % i, "v%d" % i],
                    ["bn%d" % i], name="bn%d" % i),
                  N("Relu", ["bn%d" % i], [yi], name="relu%d" % i)]

    d = write_test_dir(work, "upsample_ops", model(nodes, ins, outs, inits), xs, ys)
    for target in ("c", "host"):
        check_all_pass(ingot, [d], "--target", target, "--rtol", "1e-4", "--atol", "1e-5")


if __name__ == "__main__":
    main(test)
