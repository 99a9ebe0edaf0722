#!/usr/bin/env python3
"""deform: DeformConv and MaxRoiPool in the element types ONNX Runtime cannot check
(tests/ort covers f32 and f64 DeformConv and f32 MaxRoiPool): PyTorch's
torchvision.ops.deform_conv2d and roi_pool, which implement the same operators
(offsets as (dy, dx) per tap, bilinear samples that are 0 outside the image; Caffe's
RoI max pooling), computed in float64 on the inputs as rounded to the tested type,
are the reference for f16 and bf16 DeformConv (with groups, offset groups, mask,
bias, stride, dilation, pads; opsets 19 and 22) and f64/f16 MaxRoiPool. A region
whose batch index is out of range makes the run fail with INGOT_ERANGE."""
import os

import numpy as np
import torch
from onnx import TensorProto, helper, numpy_helper
from torchvision.ops import deform_conv2d, roi_pool

from common import check, check_all_pass, main, run, vi, write_test_dir

T = TensorProto


def bf16_round(a):
    """float32 -> the nearest bfloat16 (ties to even), still stored as float32."""
    u = np.ascontiguousarray(a, np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7fff + ((u >> 16) & 1)) >> 16
    return (u.astype(np.uint32) << 16).view(np.float32)


def to_tensor_bf16(arr, name):
    if arr.dtype == np.float32:   # bf16 values held in float32
        bits = (np.ascontiguousarray(arr).view(np.uint32) >> 16).astype(np.uint16)
        return helper.make_tensor(name, T.BFLOAT16, arr.shape, bits.tobytes(), raw=True)
    return numpy_helper.from_array(arr, name)


def deform_case(work, name, dt, opset, x, w, k, og, b, use_mask, rng, **attrs):
    s, d, p = attrs.get("strides", [1, 1]), attrs.get("dilations", [1, 1]), attrs.get("pads", [0] * 4)
    oh = (x.shape[2] + p[0] + p[2] - ((k[0] - 1) * d[0] + 1)) // s[0] + 1
    ow = (x.shape[3] + p[1] + p[3] - ((k[1] - 1) * d[1] + 1)) // s[1] + 1
    off = rng.standard_normal((x.shape[0], og * k[0] * k[1] * 2, oh, ow)).astype(np.float32) * 2
    mask = rng.random((x.shape[0], og * k[0] * k[1], oh, ow)).astype(np.float32)
    rnd = (lambda a: a.astype(np.float16)) if dt == T.FLOAT16 else bf16_round
    x, w, off, b, mask = (rnd(a) for a in (x, w, off, b, mask))
    pt = lambda a: torch.from_numpy(np.asarray(a, np.float64))
    # torchvision pads symmetrically: pad X by hand for the asymmetric pads
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (p[0], p[2]), (p[1], p[3])))
    ref = deform_conv2d(pt(xp), pt(off), pt(w), pt(b), stride=tuple(s), dilation=tuple(d),
                        mask=pt(mask) if use_mask else None).numpy()
    ins = [("x", x), ("w", w), ("off", off), ("b", b)] + ([("mask", mask)] if use_mask else [])
    node = helper.make_node("DeformConv", [n for n, _ in ins], ["y"], name=name, offset_group=og, **attrs)
    g = helper.make_graph([node], "g", [vi(n, dt, list(a.shape)) for n, a in ins],
                          [vi("y", dt, list(ref.shape))])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name="tests/driver")
    m.ir_version = 8
    out = ref.astype(np.float16) if dt == T.FLOAT16 else bf16_round(ref.astype(np.float32))
    arrs = [a for _, a in ins]
    return write_test_dir(work, name, m, arrs, [out],
                          to_tensor_bf16 if dt == T.BFLOAT16 else None)


def roi_case(work, name, dt, x, rois, pooled, scale):
    np_dt = {T.DOUBLE: np.float64, T.FLOAT16: np.float16}[dt]
    x, rois = x.astype(np_dt), rois.astype(np_dt)
    # torchvision computes in the input's type: f16 inputs go in as the same values in f32
    tdt = torch.float64 if dt == T.DOUBLE else torch.float32
    ref = roi_pool(torch.from_numpy(x).to(tdt), torch.from_numpy(rois).to(tdt), tuple(pooled),
                   scale).numpy().astype(np_dt)
    node = helper.make_node("MaxRoiPool", ["x", "rois"], ["y"], name=name, pooled_shape=pooled,
                            spatial_scale=scale)
    g = helper.make_graph([node], "g", [vi("x", dt, list(x.shape)), vi("rois", dt, list(rois.shape))],
                          [vi("y", dt, list(ref.shape))])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 22)], producer_name="tests/driver")
    m.ir_version = 8
    return write_test_dir(work, name, m, [x, rois], [ref])


def test(ingot, work):
    rng = np.random.default_rng(19)
    f = lambda *s: rng.standard_normal(s).astype(np.float32)
    half, bf = [], []
    for dt, lst, tag in ((T.FLOAT16, half, "f16"), (T.BFLOAT16, bf, "bf16")):
        lst.append(deform_case(work, "dc_%s_basic" % tag, dt, 19 if dt == T.FLOAT16 else 22,
                               f(1, 2, 5, 5), f(3, 2, 3, 3), (3, 3), 1, f(3), False, rng))
        lst.append(deform_case(work, "dc_%s_groups_mask" % tag, dt, 22, f(2, 4, 7, 6), f(6, 2, 2, 3),
                               (2, 3), 2, f(6), True, rng, group=2, strides=[2, 1], dilations=[1, 2],
                               pads=[1, 2, 0, 1]))
    # the expected outputs are the float64 results rounded once to f16 / bf16, ingot's
    # are float32 sums rounded once: within one ulp of the output type, i.e. 2^-10
    # relative for f16 (check's default rtol 1e-3) and 2^-7 for bf16
    check_all_pass(ingot, half)
    check_all_pass(ingot, bf, "--rtol", "%g" % 2 ** -7, "--atol", "0")
    rois = np.array([[0, 1, 1, 6, 5], [1, 0, 0, 9, 7], [0, 2.5, 3.5, 7.5, 7.5], [1, 5, 5, 5, 5],
                     [1, -3, -2, 14, 20]], np.float32)
    rp = [roi_case(work, "rp_f64", T.DOUBLE, f(2, 3, 8, 10), rois, [2, 3], 1.0),
          roi_case(work, "rp_f64_scale", T.DOUBLE, f(2, 2, 6, 7), rois * 1.5, [3, 3], 0.5),
          roi_case(work, "rp_f16", T.FLOAT16, f(2, 2, 5, 5), rois, [4, 6], 0.75)]
    check_all_pass(ingot, rp, "--rtol", "0", "--atol", "0")   # a max: exact
    bad = rois.copy()
    bad[2, 0] = 2                                        # batch index 2 of 2 images
    d = roi_case(work, "rp_bad_batch", T.DOUBLE, f(2, 1, 4, 4), rois, [1, 1], 1.0)
    numpy_helper_bad = numpy_helper.from_array(bad.astype(np.float64), "rois")
    with open(os.path.join(d, "test_data_set_0", "input_1.pb"), "wb") as fh:
        fh.write(numpy_helper_bad.SerializeToString())
    rc, out, err = run([ingot, "check", d])
    check(rc != 0 and "ERROR" in out and "out of range" in (out + err).lower(),
          "a batch index out of range should fail the run with INGOT_ERANGE:\n%s%s" % (out, err))


if __name__ == "__main__":
    main(test)
