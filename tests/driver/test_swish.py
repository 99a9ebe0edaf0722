#!/usr/bin/env python3
"""swish: Swish (opset 24, y = x * Sigmoid(alpha * x), alpha default 1), the proof that a
unary activation is one row of runtime-stubs/kernels/ewtable.h plus one of compiler/ir/ops.h.

    test_swish.py INGOT WORKDIR

Seven models, their outputs from numpy (float64, rounded to float32):
- Swish alone, with an alpha and with the default;
- a Mul, Add, Swish, Mul chain (at -O2 one FusedElementwise);
- Conv, Gemm and MatMul followed by Swish (at -O2 the Swish is the linear node's
  epilogue activation);
- Swish of a constant (folded away at compile time).
`ingot check` passes each at -O0 and -O2 for --target c and the x86 targets this CPU
runs, and at -O2 for neon and neon32 under qemu (the sanitizer build: --target c only,
common.SANITIZED) (rtol 1e-5: the vector sigmoid is within
a few ulp). Swish alone calls the x86 and NEON unary kernels (ingot_x86_unary,
ingot_neon_unary: its row's vector form), not the reference kernel, at -O0 and -O2. At -O2 only the two models of Swish alone keep a Swish node; the linear nodes
carry activation="swish", the chain is one FusedElementwise, and the constant is folded.
"""
import os
import re

import numpy as np
from onnx import TensorProto, helper

from common import (SANITIZED, check, check_all_pass, cpu_runs, init, main, model, run_ok, rng, vi,
                    write_test_dir)

F = TensorProto.FLOAT


def swish(v, alpha=1.0):
    v = v.astype(np.float64)
    return (v / (1.0 + np.exp(-alpha * v))).astype(np.float32)


def conv3x3(x, w, b):
    n, c, h, wd = x.shape
    y = np.zeros((n, w.shape[0], h - 2, wd - 2))
    for i in range(h - 2):
        for j in range(wd - 2):
            patch = x[:, :, i:i + 3, j:j + 3].astype(np.float64)
            y[:, :, i, j] = np.einsum("nckl,ockl->no", patch, w) + b
    return y.astype(np.float32)


def cases(work):
    r = rng(24)
    x = (r.standard_normal((3, 37)) * 4).astype(np.float32)
    b = r.standard_normal((1, 37)).astype(np.float32)
    out = {}

    def add(name, nodes, ins, outs, inits=()):
        m = model(nodes, [vi(k, F, v.shape) for k, v in ins], [vi(k, F, v.shape) for k, v in outs],
                  inits, opset=24)
        m.ir_version = 10
        out[name] = write_test_dir(work, name, m, [v for _, v in ins], [v for _, v in outs])

    add("swish", [helper.make_node("Swish", ["x"], ["y"], alpha=0.7)], [("x", x)],
        [("y", swish(x, 0.7))])
    add("swish_default", [helper.make_node("Swish", ["x"], ["y"])], [("x", x)], [("y", swish(x))])
    t = (x * b + np.float32(0.5)).astype(np.float32)
    add("swish_chain", [helper.make_node("Mul", ["x", "b"], ["t0"]),
                        helper.make_node("Add", ["t0", "h"], ["t1"]),
                        helper.make_node("Swish", ["t1"], ["t2"], alpha=1.3),
                        helper.make_node("Mul", ["t2", "x"], ["y"])],
        [("x", x), ("b", b)], [("y", swish(t, 1.3) * x)], [init("h", np.float32(0.5))])
    X = r.standard_normal((1, 3, 9, 9)).astype(np.float32)
    W = r.standard_normal((8, 3, 3, 3)).astype(np.float32)
    B = r.standard_normal(8).astype(np.float32)
    add("conv_swish", [helper.make_node("Conv", ["X", "W", "B"], ["c"]),
                       helper.make_node("Swish", ["c"], ["y"], alpha=0.9)],
        [("X", X)], [("y", swish(conv3x3(X, W, B), 0.9))], [init("W", W), init("B", B)])
    A = r.standard_normal((5, 16)).astype(np.float32)
    Bm = r.standard_normal((16, 11)).astype(np.float32)
    C = r.standard_normal(11).astype(np.float32)
    add("gemm_swish", [helper.make_node("Gemm", ["A", "Bm", "C"], ["g"]),
                       helper.make_node("Swish", ["g"], ["y"])],
        [("A", A)], [("y", swish((A.astype(np.float64) @ Bm + C).astype(np.float32)))],
        [init("Bm", Bm), init("C", C)])
    add("matmul_swish", [helper.make_node("MatMul", ["A", "Bm"], ["g"]),
                         helper.make_node("Swish", ["g"], ["y"], alpha=2.0)],
        [("A", A)], [("y", swish((A.astype(np.float64) @ Bm).astype(np.float32), 2.0))],
        [init("Bm", Bm)])
    k = np.full((3, 37), 1.5, np.float32)
    add("swish_fold", [helper.make_node("Swish", ["k"], ["s"], alpha=0.5),
                       helper.make_node("Add", ["x", "s"], ["y"])],
        [("x", x)], [("y", x + swish(k, 0.5))], [init("k", k)])
    return out


def optimized_ir(ingot, d):
    out, _ = run_ok([ingot, "inspect", os.path.join(d, "model.onnx"), "--dump-ir", "-"])
    return out


def run_swish(ingot, work):
    dirs = cases(work)
    for name, d in dirs.items():
        ir = optimized_ir(ingot, d)
        if name in ("swish", "swish_default"):
            continue
        check(not any(l.startswith("%") and "= Swish(" in l for l in ir.splitlines()), "%s: a Swish node is left at -O2:\n%s" % (name, ir))
        if name in ("conv_swish", "gemm_swish", "matmul_swish"):
            check('activation="swish"' in ir, "%s: Swish is not the epilogue:\n%s" % (name, ir))
        if name == "swish_chain":
            check(ir.count("FusedElementwise(") == 1, "swish_chain is not one fused loop:\n%s" % ir)
    # Swish alone runs the SIMD targets' unary kernels (its row's vector form), not the
    # reference ingot_unary
    for target, kernel in (("x86-avx2", "ingot_x86_unary"), ("x86-avx512", "ingot_x86_unary"),
                           ("neon", "ingot_neon_unary"), ("neon32", "ingot_neon_unary")):
        for opt in ("-O0", "-O2"):
            out = os.path.join(work, "gen_%s%s" % (target, opt))
            run_ok([ingot, "compile", os.path.join(dirs["swish"], "model.onnx"), "-o", out,
                    "--name", "m", "--target", target, opt])
            src = open(os.path.join(out, "m.c")).read()
            check(re.search(r"\b%s\b" % kernel, src) and not re.search(r"\bingot_unary\b", src),
                  "%s %s: Swish alone does not call %s:\n%s" % (target, opt, kernel, src))
    ran = 0
    for target in ("c",) if SANITIZED else ("c", "x86-avx2", "x86-avx512"):
        if not cpu_runs(target):
            print("swish: %s skipped (this CPU lacks its instructions)" % target)
            continue
        for opt in ("-O0", "-O2"):
            check_all_pass(ingot, list(dirs.values()), "--target", target, opt,
                           "--rtol", "1e-5", "--atol", "1e-6")
            ran += 1
    check(ran >= 2, "no target ran")
    # the NEON epilogues and fused loops: cross-compiled, run under qemu (check's default runner)
    for target in () if SANITIZED else ("neon", "neon32"):   # the sanitizer build: c only
        check_all_pass(ingot, list(dirs.values()), "--target", target, "-O2",
                       "--rtol", "1e-5", "--atol", "1e-6")


main(run_swish)
