#!/usr/bin/python3
"""The x86 targets' vector math (suite unit): the maximum errors eltwise.c states.

usage: x86_math_test.py INGOT WORKDIR
One model applies Exp, Sigmoid, Tanh, HardSigmoid, HardSwish, Relu, LeakyRelu, Abs and
Neg to a dense sweep of floats (every 2^-12 step over [-100, 100], plus NaN, +-inf,
+-0, denormals and the ends of exp's range), compiled at -O0 for x86-avx2 and, where
the CPU has it, x86-avx512. The generated code must call the x86 unary kernel, and
against float64 numpy:
  exp <= 2 ulp, sigmoid <= 3 ulp, tanh <= 2 ulp (measured here: 1.23, 2.39, 1.49);
  results below FLT_MIN (2^-126) may flush to 0;
  HardSigmoid, HardSwish, Relu, LeakyRelu, Abs, Neg bit-identical to the rounded
  float32 formula the reference kernel evaluates;
  NaN stays NaN, exp(+inf) = inf, exp(-inf) = 0, sigmoid/tanh of +-inf are +-1 / 0, 1.
Prints the measured maxima.
"""
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

ingot, work = sys.argv[1], sys.argv[2]
failures = []

OPS = [("Exp", {}), ("Sigmoid", {}), ("Tanh", {}), ("HardSigmoid", {"alpha": 0.2, "beta": 0.5}),
       ("HardSwish", {}), ("Relu", {}), ("LeakyRelu", {"alpha": 0.1}), ("Abs", {}), ("Neg", {})]


def fail(msg):
    failures.append(msg)
    print("FAIL " + msg)


def sweep():
    x = np.arange(-100.0, 100.0, 2.0 ** -12).astype(np.float32)
    special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 1e-40, 88.72283, 88.7229,
                        -87.33654, -87.3366, -103.9, 89.0, 0.625, -0.625, 0.6249999, 1e-8, -1e-8],
                       np.float32)
    return np.concatenate([x, special])


def ulp_err(got, want):
    """|got - want| in units of the float32 spacing at want."""
    want32 = want.astype(np.float32)
    spacing = np.spacing(np.abs(want32)).astype(np.float64)
    return np.abs(got.astype(np.float64) - want) / spacing


def main():
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    x = sweep()
    nodes = [helper.make_node(op, ["x"], ["y%d" % i], **attrs) for i, (op, attrs) in enumerate(OPS)]
    outs = [helper.make_tensor_value_info("y%d" % i, TensorProto.FLOAT, [x.size]) for i in range(len(OPS))]
    g = helper.make_graph(nodes, "math", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [x.size])],
                          outs)
    model = os.path.join(work, "math.onnx")
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)]), model)
    np.save(os.path.join(work, "x.npy"), x)
    cpu = open("/proc/cpuinfo").read().split()
    targets = ["x86-avx2"] + (["x86-avx512"] if "avx512f" in cpu else [])
    xd = x.astype(np.float64)
    with np.errstate(all="ignore"):
        want = {
            "Exp": np.exp(xd),
            "Sigmoid": 1 / (1 + np.exp(-xd)),
            "Tanh": np.tanh(xd),
        }
        x32 = x
        hs = np.maximum(np.float32(0), np.minimum(np.float32(1), np.float32(0.2) * x32 + np.float32(0.5)))
        hs = np.where(np.isnan(x32), np.float32(1), hs).astype(np.float32)
        hw = np.maximum(np.float32(0), np.minimum(np.float32(1), np.float32(1 / 6) * x32 + np.float32(0.5)))
        hw = (x32 * np.where(np.isnan(x32), np.float32(1), hw)).astype(np.float32)
        exact = {
            "HardSigmoid": hs,
            "HardSwish": hw,
            "Relu": np.where(x32 < 0, np.float32(0), x32),
            "LeakyRelu": np.where(x32 < 0, np.float32(0.1) * x32, x32).astype(np.float32),
            "Abs": np.abs(x32),
            "Neg": -x32,
        }
    for target in targets:
        out = os.path.join(work, target)
        r = subprocess.run([ingot, "compile", model, "-o", out, "--name", "m", "--target", target,
                            "-O0", "--emit", "exe"], capture_output=True, text=True)
        if r.returncode:
            fail("%s: compile failed: %s" % (target, r.stderr))
            continue
        # called directly or handed to the thread pool's ingot_par_call
        if len(re.findall(r"\bingot_x86_unary\b(?!_)", open(os.path.join(out, "m.c")).read())) != len(OPS):
            fail("%s: not every op calls the x86 unary kernel" % target)
        r = subprocess.run([os.path.join(out, "m"), "--input", os.path.join(work, "x.npy"),
                            "--output-dir", out], capture_output=True, text=True)
        if r.returncode:
            fail("%s: run failed: %s" % (target, r.stderr))
            continue
        finite = np.isfinite(x)
        for i, (op, _) in enumerate(OPS):
            got = np.load(os.path.join(out, "output_%d.npy" % i))
            if op in exact:
                same = (got == exact[op]) | (np.isnan(got) & np.isnan(exact[op]))
                if not same.all():
                    k = np.argmax(~same)
                    fail("%s %s: x=%r gives %r, expected %r" % (target, op, x[k], got[k], exact[op][k]))
                continue
            w = want[op]
            if not np.array_equal(np.isnan(got), np.isnan(w)):
                fail("%s %s: NaN where the reference has none, or none where it has" % (target, op))
            with np.errstate(all="ignore"):
                err = ulp_err(got[finite], w[finite])
            # results below FLT_MIN (exp of x < ln(FLT_MIN)) flush to 0: an absolute bound
            tiny = np.abs(w[finite]) < np.finfo(np.float32).tiny
            err = np.where(tiny & (np.abs(got[finite] - w[finite]) < 1.2e-38), 0, err)
            # beyond FLT_MAX the float result is inf
            big = np.abs(w[finite]) > np.finfo(np.float32).max
            err = np.where(big, np.where(np.isinf(got[finite]) & (got[finite] * w[finite] > 0), 0, np.inf),
                           err)
            err = np.where(np.isnan(err), np.inf, err)
            bound = {"Exp": 2, "Sigmoid": 3, "Tanh": 2}[op]
            mx = float(np.max(err))
            print("%s %s: max error %.2f ulp over %d finite inputs" % (target, op, mx, int(finite.sum())))
            if mx > bound:
                k = int(np.argmax(err))
                fail("%s %s: %.2f ulp > %d at x=%r" % (target, op, mx, bound, x[finite][k]))
            ends = {"Exp": (np.inf, 0.0), "Sigmoid": (1.0, 0.0), "Tanh": (1.0, -1.0)}[op]
            if got[x.size - 19 + 1] != ends[0] or got[x.size - 19 + 2] != ends[1]:
                fail("%s %s: at +-inf gives %r, %r" % (target, op, got[x.size - 18], got[x.size - 17]))
    print("%d failure(s)" % len(failures))
    sys.exit(1 if failures else 0)


main()
