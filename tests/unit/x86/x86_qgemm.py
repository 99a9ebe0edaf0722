#!/usr/bin/python3
"""The x86 int8 kernels (runtime-stubs/kernels/x86/qgemm.c) against the reference
kernels of quant.c, byte for byte (suite unit).

usage: x86_qgemm.py SRCDIR WORKDIR INGOT
1. Builds qgemm_test.c with qgemm.c and quant.c at the flags of each x86 target this CPU
runs (cpu.py; a target it cannot run is skipped, exit 77) and runs it twice: with the
vpdpbusd path the CPU check picks, and with INGOT_NO_VNNI=1 (the exact vpmaddwd
emulation). Each run compares hundreds of random QLinearConv / ConvInteger /
QLinearMatMul / MatMulInteger problems, QLinearAdd / QLinearMul on every byte pair and
u8 / i8 MaxPools, each as 1, 3 and 7 tasks.
2. The ONNX node tests of those ops (tests/conformance/generate.py) with their weights
   bound (`ingot check --bind`, so the compiler packs them and calls the x86 kernels;
   the generated code is searched for the call) pass exactly (integers compare exactly)
   on each x86 target, with and without INGOT_NO_VNNI=1. test_qlinearmatmul_3D has a
   B per batch, so it keeps the reference kernel: that is checked too.
3. DequantizeLinear -> Add / Mul -> QuantizeLinear models (fold_qdq makes QLinearAdd /
   QLinearMul) against numpy's ONNX-reference arithmetic, exactly, on each x86 target:
   operands of one shape and a one-element operand take ingot_x86_qbinary, a
   per-channel operand (another broadcast) keeps the reference ingot_qbinary.
"""
import os
import re
import subprocess
import sys

from cpu import cpu_lacks, finish, runnable

src, work, ingot = sys.argv[1], sys.argv[2], sys.argv[3]
FLAGS = {"x86-avx2": ["-mavx2", "-mfma"],   # as targets/targets.h builds them
         "x86-avx512": ["-mavx512f", "-mavx512bw", "-mavx512dq", "-mavx512vl", "-mfma"]}
SAN = os.environ.get("INGOT_CHECK_CFLAGS", "").split()
failures = []
run, skipped = runnable(list(FLAGS))
os.makedirs(work, exist_ok=True)
stubs = os.path.join(src, "runtime-stubs")
# the paths, each its own build: default (vpdpbusd where the CPU has it), AMX tiles
# (AVX-512 only, -DINGOT_X86_AMX), the exact emulation (-DINGOT_NO_VNNI)
VARIANTS = {"x86-avx2": [("default", []), ("INGOT_NO_VNNI", ["-DINGOT_NO_VNNI"])],
            "x86-avx512": [("default", []), ("INGOT_X86_AMX", ["-DINGOT_X86_AMX"]),
                           ("INGOT_NO_VNNI", ["-DINGOT_NO_VNNI"])]}
# On a CPU without AMX the AMX build takes the same vpdpbusd path as the default build
# (qg_amx asks the CPU and the OS at run time), so it runs a few problems only, to show
# that fallback; 300 where the tiles run.
NO_AMX = cpu_lacks(("amx_tile", "amx_int8"))
if NO_AMX and "x86-avx512" in run:
    print("note: this CPU lacks %s: the AMX build runs 20 problems (its fallback)" % " ".join(NO_AMX))
for target in run:
    for what, defs in VARIANTS[target]:
        exe = os.path.join(work, "qgemm_test-%s-%s" % (target, what))
        cmd = (["cc", "-O2", "-std=c99", "-Wall", "-Wextra", "-Werror"] + FLAGS[target] + SAN + defs +
               ["-I" + stubs, "-I" + os.path.join(stubs, "kernels"),
                os.path.join(src, "tests", "unit", "x86", "qgemm_test.c"),
                os.path.join(stubs, "kernels", "quant.c"), os.path.join(stubs, "kernels", "pool.c"),
                os.path.join(stubs, "kernels", "x86", "qgemm.c"),
                "-lm", "-o", exe])
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode:
            failures.append("%s %s: build failed" % (target, what))
            print("FAIL %s: %s\n%s" % (target, " ".join(cmd), r.stderr))
            continue
        count = "20" if what == "INGOT_X86_AMX" and NO_AMX else "300"
        r = subprocess.run([exe, count], capture_output=True, text=True)
        print("%s %s: %s" % (target, what, r.stdout.strip().replace("\n", "; ")))
        if r.returncode:
            failures.append("%s %s" % (target, what))
            print("FAIL %s %s (exit %d)\n%s" % (target, what, r.returncode, r.stderr))
        elif what == "INGOT_NO_VNNI" and "emulation" not in r.stdout:
            failures.append("%s: -DINGOT_NO_VNNI did not take the emulation" % target)
# 2. the node tests, weights bound: (test, weight input, its data file, kernel expected)
NODE = [("test_convinteger_with_padding", "w", 1, "ingot_x86_qconv"),
        ("test_convinteger_without_padding", "w", 1, "ingot_x86_qconv"),
        ("test_matmulinteger", "B", 1, "ingot_x86_qmatmul"),
        ("test_qlinearconv", "w", 3, "ingot_x86_qconv"),
        ("test_qlinearmatmul_2D", "b", 3, "ingot_x86_qmatmul"),
        ("test_qlinearmatmul_3D", "b", 3, "ingot_qmatmul")]
data = os.path.join(work, "onnx-tests")
if run:
    subprocess.run(["/usr/bin/python3", os.path.join(src, "tests", "conformance", "generate.py"), data],
                   check=True, stdout=subprocess.DEVNULL)
for target in run:
    for test, name, slot, kernel in NODE:
        d = os.path.join(data, "node", test)
        bind = ["--bind", "%s=%s" % (name, os.path.join(d, "test_data_set_0", "input_%d.pb" % slot))]
        out = os.path.join(work, "node-%s-%s" % (target, test))
        r = subprocess.run([ingot, "compile", os.path.join(d, "model.onnx"), "-o", out, "--target", target] + bind,
                           capture_output=True, text=True)
        code = "".join(open(os.path.join(out, f)).read() for f in sorted(os.listdir(out))
                       if f.endswith(".c")) if r.returncode == 0 else ""
        if not re.search(r"\b%s\(" % kernel, code):
            failures.append("%s %s: no call of %s" % (target, test, kernel))
            print("FAIL %s %s: the generated code does not call %s %s" % (target, test, kernel, r.stderr))
        for no_vnni in ([], ["-DINGOT_NO_VNNI"]):
            cflags = " ".join(SAN + no_vnni)
            r = subprocess.run([ingot, "check", d, "--target", target] + bind +
                               (["--cflags", cflags] if cflags else []),
                               capture_output=True, text=True)
            last = (r.stdout.strip().splitlines() or [""])[-1]
            print("%s %s %s: %s" % (target, test, " ".join(no_vnni) or "default", last))
            if r.returncode or not last.startswith("1 passed"):
                failures.append("%s %s %s" % (target, test, " ".join(no_vnni)))
                print("FAIL\n" + r.stdout + r.stderr)


def qbinary_model(out, op, adt, bdt, ydt, bshape, sa, za, sb, zb, sy, zy, seed):
    import numpy as np
    import onnx
    from onnx import helper as h, numpy_helper as nh, TensorProto as T
    rng = np.random.default_rng(seed)
    shape = (1, 3, 21, 23)
    tt = {np.uint8: T.UINT8, np.int8: T.INT8}
    inits = [nh.from_array(np.array(v, dtype=d), n) for v, d, n in
             [(sa, np.float32, "sa"), (za, adt, "za"), (sb, np.float32, "sb"), (zb, bdt, "zb"),
              (sy, np.float32, "sy"), (zy, ydt, "zy")]]
    nodes = [h.make_node("DequantizeLinear", ["a", "sa", "za"], ["af"]),
             h.make_node("DequantizeLinear", ["b", "sb", "zb"], ["bf"]),
             h.make_node(op, ["af", "bf"], ["yf"]),
             h.make_node("QuantizeLinear", ["yf", "sy", "zy"], ["y"])]
    g = h.make_graph(nodes, "qb", [h.make_tensor_value_info("a", tt[adt], shape),
                                   h.make_tensor_value_info("b", tt[bdt], bshape)],
                     [h.make_tensor_value_info("y", tt[ydt], shape)], inits)
    os.makedirs(os.path.join(out, "test_data_set_0"), exist_ok=True)
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), os.path.join(out, "model.onnx"))
    a = rng.integers(np.iinfo(adt).min, np.iinfo(adt).max + 1, shape).astype(adt)
    b = rng.integers(np.iinfo(bdt).min, np.iinfo(bdt).max + 1, bshape).astype(bdt)
    # the ONNX reference: DequantizeLinear in float32 (an exact product rounded), the op
    # in float32, QuantizeLinear (float32 quotient, half to even, saturated)
    af = ((a.astype(np.int32) - int(za)) * np.float64(np.float32(sa))).astype(np.float32)
    bf = ((b.astype(np.int32) - int(zb)) * np.float64(np.float32(sb))).astype(np.float32)
    yf = af + bf if op == "Add" else af * bf
    q = np.rint(yf / np.float32(sy)).astype(np.float64) + int(zy)
    y = np.clip(q, np.iinfo(ydt).min, np.iinfo(ydt).max).astype(ydt)
    for i, (n, v) in enumerate([("a", a), ("b", b)]):
        with open(os.path.join(out, "test_data_set_0", "input_%d.pb" % i), "wb") as f:
            f.write(nh.from_array(v, n).SerializeToString())
    with open(os.path.join(out, "test_data_set_0", "output_0.pb"), "wb") as f:
        f.write(nh.from_array(y, "y").SerializeToString())


# 3. QLinearAdd / QLinearMul: (name, op, dtypes of a, b, y, b's shape, scales and zero
# points, the kernel expected)
if run:
    import numpy as np
    QB = [("add", "Add", np.uint8, np.uint8, np.uint8, (1, 3, 21, 23), 0.02, 128, 0.03, 120, 0.04, 125,
           "ingot_x86_qbinary"),
          ("add_i8_scalar", "Add", np.int8, np.int8, np.int8, (1,), 0.5, -3, 0.25, 7, 0.5, 1,
           "ingot_x86_qbinary"),
          ("mul_scalar", "Mul", np.int8, np.uint8, np.int8, (1,), 0.02, 3, 0.05, 100, 0.01, -5,
           "ingot_x86_qbinary"),
          ("mul_channel", "Mul", np.uint8, np.uint8, np.uint8, (1, 3, 1, 1), 0.02, 3, 0.05, 100, 0.01, 7,
           "ingot_qbinary")]
    for i, (name, op, adt, bdt, ydt, bshape, sa, za, sb, zb, sy, zy, kernel) in enumerate(QB):
        d = os.path.join(work, "qbinary-" + name)
        qbinary_model(d, op, adt, bdt, ydt, bshape, sa, za, sb, zb, sy, zy, i)
        for target in run:
            out = os.path.join(work, "qbinary-%s-%s" % (target, name))
            r = subprocess.run([ingot, "compile", os.path.join(d, "model.onnx"), "-o", out, "--target", target],
                               capture_output=True, text=True)
            code = open(os.path.join(out, "model.c")).read() if r.returncode == 0 else ""
            if not re.search(r"\b%s\b" % kernel, code):
                failures.append("%s qbinary %s: no call of %s" % (target, name, kernel))
                print("FAIL %s qbinary %s: the generated code does not call %s %s" % (target, name, kernel, r.stderr))
            r = subprocess.run([ingot, "check", d, "--target", target] +
                               (["--cflags", " ".join(SAN)] if SAN else []), capture_output=True, text=True)
            last = (r.stdout.strip().splitlines() or [""])[-1]
            print("%s qbinary %s: %s" % (target, name, last))
            if r.returncode or not last.startswith("1 passed"):
                failures.append("%s qbinary %s" % (target, name))
                print("FAIL\n" + r.stdout + r.stderr)
finish(failures, skipped)
