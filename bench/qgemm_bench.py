#!/usr/bin/python3
"""The int8 kernels' speed (a benchmark, not a test): GOP/s (2 x MACs / median time) of
one-node models compiled with `ingot compile --emit exe`, each run with `--bench N`
on one thread:
  - QLinearConv 1x1 256->256 at 56x56, QLinearConv 3x3 64->64 at 56x56 (pad 1),
    QLinearMatMul M=256 K=N=1024 and M=1 K=N=1024 (u8 activations, s8 weights,
    per-channel scales, i32 bias);
  - on target c (the reference kernels of quant.c), x86-avx2 and x86-avx512 (the
    kernels of x86/qgemm.c, with vpdpbusd and built with -DINGOT_NO_VNNI; on x86-avx512
    also built with -DINGOT_X86_AMX, AMX tiles for MatMuls of 32+ rows), and the f32 Conv /
    MatMul of the same shape on the x86 targets for comparison.
usage: bench/qgemm_bench.py [--runs N] [--work DIR] [--shapes TEXT]   (BUILD: default build/)
Prints a markdown table.
"""
import argparse
import os
import re
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
build = os.environ.get("BUILD", os.path.join(root, "build"))
ingot = os.path.join(build, "compiler", "driver", "ingot")
ap = argparse.ArgumentParser()
ap.add_argument("--runs", type=int, default=20)
ap.add_argument("--work", default=os.path.join(build, "qgemm-bench"))
ap.add_argument("--shapes", default="", help="only the shapes whose label holds this text")
args = ap.parse_args()
rng = np.random.default_rng(1)
os.makedirs(args.work, exist_ok=True)


def c(name, arr):
    return numpy_helper.from_array(np.asarray(arr), name)


def conv_model(path, quant, cin, cout, k, hw):
    pad = k // 2
    w = rng.integers(-127, 128, (cout, cin, k, k)).astype(np.int8)
    if quant:
        inits = [c("xs", np.float32(0.02)), c("xz", np.uint8(128)), c("w", w),
                 c("ws", rng.uniform(0.001, 0.01, cout).astype(np.float32)), c("wz", np.zeros(cout, np.int8)),
                 c("ys", np.float32(0.05)), c("yz", np.uint8(128)),
                 c("b", rng.integers(-1000, 1000, cout).astype(np.int32))]
        node = helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"], ["y"],
                                pads=[pad] * 4)
        xt, yt = TensorProto.UINT8, TensorProto.UINT8
    else:
        inits = [c("w", w.astype(np.float32) * 0.01), c("b", np.zeros(cout, np.float32))]
        node = helper.make_node("Conv", ["x", "w", "b"], ["y"], pads=[pad] * 4)
        xt, yt = TensorProto.FLOAT, TensorProto.FLOAT
    g = helper.make_graph([node], "b", [helper.make_tensor_value_info("x", xt, [1, cin, hw, hw])],
                          [helper.make_tensor_value_info("y", yt, [1, cout, hw, hw])], inits)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), path)
    return cout * cin * k * k * hw * hw


def matmul_model(path, quant, m, k, n):
    b = rng.integers(-127, 128, (k, n)).astype(np.int8)
    if quant:
        inits = [c("as", np.float32(0.02)), c("az", np.uint8(128)), c("b", b),
                 c("bs", rng.uniform(0.001, 0.01, n).astype(np.float32)), c("bz", np.zeros(n, np.int8)),
                 c("ys", np.float32(0.05)), c("yz", np.uint8(128))]
        node = helper.make_node("QLinearMatMul", ["a", "as", "az", "b", "bs", "bz", "ys", "yz"], ["y"])
        xt = TensorProto.UINT8
    else:
        inits = [c("b", b.astype(np.float32) * 0.01)]
        node = helper.make_node("MatMul", ["a", "b"], ["y"])
        xt = TensorProto.FLOAT
    g = helper.make_graph([node], "b", [helper.make_tensor_value_info("a", xt, [m, k])],
                          [helper.make_tensor_value_info("y", xt, [m, n])], inits)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), path)
    return m * k * n


def cpu_has(flag):
    try:
        return flag in open("/proc/cpuinfo").read().split()
    except OSError:
        return False


def bench(model, target, defs):
    name = os.path.splitext(os.path.basename(model))[0] + "-" + target + "".join(defs)
    exe_dir = os.path.join(args.work, name)
    cflags = ["--cflags", "-O2 " + " ".join(defs)] if defs else []
    subprocess.run([ingot, "compile", model, "-o", exe_dir, "--emit", "exe", "--target", target] +
                   cflags, check=True, stdout=subprocess.DEVNULL)
    exe = [os.path.join(exe_dir, f) for f in os.listdir(exe_dir)
           if os.access(os.path.join(exe_dir, f), os.X_OK) and not os.path.isdir(os.path.join(exe_dir, f))]
    out = subprocess.run([exe[0], "--bench", str(args.runs)], check=True, capture_output=True,
                         text=True).stdout
    return float(re.search(r"median_us=([0-9.]+)", out).group(1))


SHAPES = [("1x1 conv 256->256, 56x56", lambda p, q: conv_model(p, q, 256, 256, 1, 56)),
          ("3x3 conv 64->64, 56x56", lambda p, q: conv_model(p, q, 64, 64, 3, 56)),
          ("matmul 256x1024x1024", lambda p, q: matmul_model(p, q, 256, 1024, 1024)),
          ("matmul 1x1024x1024", lambda p, q: matmul_model(p, q, 1, 1024, 1024))]
COLS = [("int8 reference (c)", True, "c", []),
        ("int8 avx2 vpmaddwd", True, "x86-avx2", ["-DINGOT_NO_VNNI"]),
        ("int8 avx2 AVX-VNNI", True, "x86-avx2", []),
        ("int8 avx512 vpmaddwd", True, "x86-avx512", ["-DINGOT_NO_VNNI"]),
        ("int8 avx512 VNNI", True, "x86-avx512", []),
        ("int8 avx512 AMX", True, "x86-avx512", ["-DINGOT_X86_AMX"]),
        ("f32 avx2", False, "x86-avx2", []),
        ("f32 avx512", False, "x86-avx512", [])]
have = {"c": True, "x86-avx2": cpu_has("avx2"), "x86-avx512": cpu_has("avx512f")}
print("| shape | " + " | ".join(col[0] for col in COLS) + " |")
print("|---|" + "---:|" * len(COLS))
for label, make in SHAPES:
    if args.shapes not in label:
        continue
    cells = []
    for col, quant, target, defs in COLS:
        if not have[target]:
            cells.append("-")
            continue
        path = os.path.join(args.work, re.sub(r"[^a-z0-9]+", "_", label) + ("_q" if quant else "_f") + ".onnx")
        macs = make(path, quant)
        us = bench(path, target, defs)
        cells.append("%.1f" % (2 * macs / us / 1e3))
    print("| %s | %s |" % (label, " | ".join(cells)))
    sys.stdout.flush()
