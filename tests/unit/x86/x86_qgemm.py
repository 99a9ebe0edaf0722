#!/usr/bin/python3
"""The x86 int8 kernels (runtime-stubs/kernels/x86/qgemm.c) against the reference
kernels of quant.c, byte for byte (suite unit).

usage: x86_qgemm.py SRCDIR WORKDIR INGOT
1. Builds qgemm_test.c with qgemm.c and quant.c at the flags of each x86 target this CPU
runs (cpu.py; a target it cannot run is skipped, exit 77) and runs it twice: with the
vpdpbusd path the CPU check picks, and with INGOT_NO_VNNI=1 (the exact vpmaddwd
emulation). Each run compares hundreds of random QLinearConv / ConvInteger /
QLinearMatMul / MatMulInteger problems, each as 1, 3 and 7 tasks.
2. The ONNX node tests of those ops (tests/conformance/generate.py) with their weights
   bound (`ingot check --bind`, so the compiler packs them and calls the x86 kernels;
   the generated code is searched for the call) pass exactly (integers compare exactly)
   on each x86 target, with and without INGOT_NO_VNNI=1. test_qlinearmatmul_3D has a
   B per batch, so it keeps the reference kernel: that is checked too.
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
                os.path.join(stubs, "kernels", "quant.c"), os.path.join(stubs, "kernels", "x86", "qgemm.c"),
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
finish(failures, skipped)
