#!/usr/bin/python3
"""Graph inputs and outputs of the 8-bit floats, INT4, UINT4 and FLOAT4E2M1 (suite unit).

usage: small_types_test.py INGOT WORKDIR
onnxruntime-node can neither take nor return these types, so tests/ort keeps them
inside its models; here they cross the graph's edge, with expected values from numpy
written from the ONNX definitions: Cast to INT4/UINT4 keeps the low 4 bits,
QuantizeLinear to UINT4 rounds half to even and saturates to [0, 15], DequantizeLinear
of an INT4 input, zero points of shape [1] (INT4, FLOAT4E2M1, FLOAT8E4M3FN) with a
scalar scale, FLOAT4E2M1 rounding by the spec's table (ties to even, saturating at
6, NaN to -0 and -NaN to +0, from f32, f16 and f64 through Cast and CastLike), and 8-bit float and 4-bit bytes moved untouched (Reshape, Transpose,
Pad with a 4-bit value). The test data files pack
4-bit elements two per byte (low nibble first), as ONNX does. `ingot check` must pass
them with --target c; unsupported types must fail with one clear line.
"""
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

sys.dont_write_bytecode = True    # no __pycache__ in the source tree
import small_io  # noqa: E402
from small_io import small, tensor  # noqa: E402

ingot, work = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(7)
U4, I4, F4, F8E4M3FN, F8E5M2 = 21, 22, 23, 17, 19



def write(name, nodes, inputs, outputs, inits=(), opset=21):
    return small_io.write(work, name, nodes, inputs, outputs, inits, opset)


def f4_code(x):
    """FLOAT4E2M1 by the spec's table: ties to even, |x| > 5 (and inf) to 6; NaN to the
    zero of the other sign (ml_dtypes' float4_e2m1fn, the reference's type: its NaN is
    -0, negated for a negative NaN)."""
    s = 0x8 if np.signbit(x) else 0
    if np.isnan(x):
        return s ^ 0x8
    a = abs(float(x))
    for code, lo, hi, lo_in, hi_in in [(0, 0, 0.25, True, True), (1, 0.25, 0.75, False, False),
                                       (2, 0.75, 1.25, True, True), (3, 1.25, 1.75, False, False),
                                       (4, 1.75, 2.5, True, True), (5, 2.5, 3.5, False, False),
                                       (6, 3.5, 5.0, True, True)]:
        if (a > lo or (lo_in and a == lo)) and (a < hi or (hi_in and a == hi)):
            return s | code
    return s | 0x7


shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
dirs = []

# Cast int32 -> INT4 / UINT4 graph outputs: the low 4 bits
x = np.arange(-20, 21, dtype=np.int32)
for dt, lo4 in ((I4, ((x & 15) ^ 8) - 8), (U4, x & 15)):
    dirs.append(write("cast_i32_to_%d" % dt, [helper.make_node("Cast", ["x"], ["y"], to=dt)],
                      [("x", TensorProto.INT32, [41], x)],
                      [("y", dt, [41], small("y", dt, lo4, [41]))]))

# QuantizeLinear f32 -> UINT4, blocked along axis 1 (blocks of 2, the last one short)
x = (rng.standard_normal((3, 5)) * 6).astype(np.float32)
s = (np.abs(rng.standard_normal((3, 3))) + 0.3).astype(np.float32)
zp = rng.integers(0, 16, (3, 3))
sx, zx = np.repeat(s, 2, axis=1)[:, :5], np.repeat(zp, 2, axis=1)[:, :5]
q = np.clip(np.rint(x / sx) + zx, 0, 15)
dirs.append(write("quantize_u4_blocked",
                  [helper.make_node("QuantizeLinear", ["x", "s", "zp"], ["y"], axis=1, block_size=2)],
                  [("x", TensorProto.FLOAT, [3, 5], x)], [("y", U4, [3, 5], small("y", U4, q, [3, 5]))],
                  [tensor("s", s), small("zp", U4, zp, [3, 3])]))

# DequantizeLinear of an INT4 graph input, per axis 0 (7 elements per row: odd rows)
w = rng.integers(-8, 8, (3, 7))
s = np.array([0.5, 2.0, 0.125], np.float32)
dirs.append(write("dequantize_i4_input",
                  [helper.make_node("DequantizeLinear", ["w", "s"], ["y"], axis=0)],
                  [("w", I4, [3, 7], small("w", I4, w, [3, 7]))],
                  [("y", TensorProto.FLOAT, [3, 7], (w * s[:, None]).astype(np.float32))],
                  [tensor("s", s)]))

# Cast f32 -> FLOAT4E2M1 graph output, opset 23
x = np.array([0, 0.25, 0.26, 0.75, 1.25, 1.3, 1.75, 2.5, 2.6, 3.5, 5, 5.1, 6, 100, -0.0,
              -0.74, -3, np.inf, -np.inf, np.nan], np.float32)
dirs.append(write("cast_f32_to_f4e2m1", [helper.make_node("Cast", ["x"], ["y"], to=F4)],
                  [("x", TensorProto.FLOAT, [20], x)],
                  [("y", F4, [20], small("y", F4, [f4_code(v) for v in x], [20]))], opset=23))

# NaN of either sign, the ONNX node test's values (-8, 9, 1e6, +-inf, -0) and negative
# values near each code's edges, from f32, f16 and f64, through Cast and through
# CastLike (to a FLOAT4E2M1 initializer's type)
neg_nan = np.array([0xffc00000], np.uint32).view(np.float32)[0]
x = np.array([np.nan, neg_nan, 0.48, 0.25, 1.05, -3.5, -8, 9, 1e6, 1e-7, np.inf, -np.inf, -4,
              0.01, -0.0, -0.2, -0.26, -1.25, -2.5, -2.6, -5, -5.01], np.float32)
for nm, dt, npdt in (("f32", TensorProto.FLOAT, np.float32),
                     ("f16", TensorProto.FLOAT16, np.float16),
                     ("f64", TensorProto.DOUBLE, np.float64)):
    xv = x.astype(npdt)
    want = small("y", F4, [f4_code(v) for v in xv], [len(x)])
    dirs.append(write("cast_%s_to_f4e2m1_nan" % nm, [helper.make_node("Cast", ["x"], ["y"], to=F4)],
                      [("x", dt, [len(x)], xv)], [("y", F4, [len(x)], want)], opset=23))
    dirs.append(write("castlike_%s_to_f4e2m1_nan" % nm,
                      [helper.make_node("CastLike", ["x", "like"], ["y"])],
                      [("x", dt, [len(x)], xv)], [("y", F4, [len(x)], want)],
                      [small("like", F4, [0], [1])], opset=23))

# zero points of shape [1] with a scalar scale (opset 21): QuantizeLinear to INT4 and to
# FLOAT4E2M1 (zero point 0: x / scale rounded by the table), DequantizeLinear of FLOAT8E4M3FN
x = np.array([0, 1.3, -2.7, 9.6, -30, 2.5, -3.5, 0.74, -0.26], np.float32)
dirs.append(write("quantize_i4_zp1", [helper.make_node("QuantizeLinear", ["x", "s", "zp"], ["y"])],
                  [("x", TensorProto.FLOAT, [9], x)],
                  [("y", I4, [9], small("y", I4, np.clip(np.rint(x / np.float32(0.5)) - 2, -8, 7), [9]))],
                  [tensor("s", np.array(0.5, np.float32)), small("zp", I4, [-2], [1])]))
dirs.append(write("quantize_f4_zp1", [helper.make_node("QuantizeLinear", ["x", "s", "zp"], ["y"])],
                  [("x", TensorProto.FLOAT, [9], x)],
                  [("y", F4, [9], small("y", F4, [f4_code(v) for v in x / np.float32(0.5)], [9]))],
                  [tensor("s", np.array(0.5, np.float32)), small("zp", F4, [0], [1])]))


def e4m3_value(c):
    """FLOAT8E4M3FN code -> value: bias 7, subnormals at exponent 0, 0x7f/0xff NaN."""
    e, m = (c >> 3) & 15, c & 7
    v = np.nan if c & 0x7f == 0x7f else (m / 8 * 2.0 ** -6 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7))
    return -v if c & 0x80 else v


codes = [int(v) for v in rng.integers(0, 256, 10) if v & 0x7f != 0x7f]
dirs.append(write("dequantize_f8_zp1", [helper.make_node("DequantizeLinear", ["x", "s", "zp"], ["y"])],
                  [("x", F8E4M3FN, [len(codes)], small("x", F8E4M3FN, codes, [len(codes)]))],
                  [("y", TensorProto.FLOAT, [len(codes)],
                    np.array([e4m3_value(c) * 0.25 for c in codes], np.float32))],
                  [tensor("s", np.array(0.25, np.float32)), small("zp", F8E4M3FN, [0], [1])]))

# FLOAT8 bytes in and out: Identity, and a Reshape of a FLOAT8E5M2 input
codes = rng.integers(0, 256, 12)
for dt in (F8E4M3FN, F8E5M2):
    dirs.append(write("identity_f8_%d" % dt, [helper.make_node("Reshape", ["x", "shape"], ["y"])],
                      [("x", dt, [12], small("x", dt, codes, [12]))],
                      [("y", dt, [3, 4], small("y", dt, codes, [3, 4]))],
                      [tensor("shape", np.array([3, 4], np.int64))], opset=21))

# data movement keeps the bytes: Pad of an INT4 input with an INT4 value, Transpose of
# a FLOAT8E4M3FNUZ input
w = rng.integers(-8, 8, (2, 3))
dirs.append(write("pad_i4", [helper.make_node("Pad", ["w", "pads", "v"], ["y"])],
                  [("w", I4, [2, 3], small("w", I4, w, [2, 3]))],
                  [("y", I4, [3, 5], small("y", I4, np.pad(w, ((1, 0), (0, 2)), constant_values=-3),
                                          [3, 5]))],
                  [tensor("pads", np.array([1, 0, 0, 2], np.int64)), small("v", I4, -3, [])]))
codes = rng.integers(0, 128, (2, 3))
dirs.append(write("transpose_f8", [helper.make_node("Transpose", ["x"], ["y"], perm=[1, 0])],
                  [("x", 18, [2, 3], small("x", 18, codes, [2, 3]))],
                  [("y", 18, [3, 2], small("y", 18, codes.T, [3, 2]))]))

failures = []
for target in ("c",):
    r = subprocess.run([ingot, "check", "--target", target, "-j", "2"] + dirs,
                       capture_output=True, text=True)
    print(r.stdout, end="")
    if r.returncode or "%d passed, 0 failed" % len(dirs) not in r.stdout:
        failures.append("ingot check --target %s: %s" % (target, r.stderr.strip()))

# arithmetic on a FLOAT8 or FLOAT8E8M0 input fails with one line
bad = os.path.join(work, "bad")
os.makedirs(bad)
for name, nodes, inputs, want in [
        ("add_e8m0", [helper.make_node("Add", ["x", "x"], ["y"])],
         [helper.make_tensor_value_info("x", 24, [2])], "f8e8m0"),
        ("add_f8", [helper.make_node("Add", ["x", "x"], ["y"])],
         [helper.make_tensor_value_info("x", F8E4M3FN, [2])], "f8e4m3fn")]:
    g = helper.make_graph(nodes, name, inputs, [helper.make_tensor_value_info("y", 1, None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 21)])
    m.ir_version = 10
    p = os.path.join(bad, name + ".onnx")
    onnx.save(m, p)
    r = subprocess.run([ingot, "compile", p, "-o", os.path.join(bad, name)],
                       capture_output=True, text=True)
    lines = r.stderr.strip().splitlines()
    if r.returncode == 0 or len(lines) != 1 or want not in lines[0] or p not in lines[0]:
        failures.append("%s: expected one error line naming %s, got rc %d: %r" %
                        (name, want, r.returncode, r.stderr))

for f in failures:
    print("FAIL " + f)
print("small_types: %d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
