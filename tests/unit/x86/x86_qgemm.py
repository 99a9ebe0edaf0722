#!/usr/bin/python3
"""The x86 int8 kernels (runtime-stubs/kernels/x86/qgemm.c) against the reference
kernels of quant.c, byte for byte (suite unit).

usage: x86_qgemm.py SRCDIR WORKDIR
Builds qgemm_test.c with qgemm.c and quant.c at the flags of each x86 target this CPU
runs (cpu.py; a target it cannot run is skipped, exit 77) and runs it twice: with the
vpdpbusd path the CPU check picks, and with INGOT_NO_VNNI=1 (the exact vpmaddwd
emulation). Each run compares hundreds of random QLinearConv / ConvInteger /
QLinearMatMul / MatMulInteger problems, each as 1, 3 and 7 tasks.
"""
import os
import subprocess
import sys

from cpu import finish, runnable

src, work = sys.argv[1], sys.argv[2]
FLAGS = {"x86-avx2": ["-mavx2", "-mfma"],   # as targets/targets.h builds them
         "x86-avx512": ["-mavx512f", "-mavx512bw", "-mavx512dq", "-mavx512vl", "-mfma"]}
SAN = os.environ.get("INGOT_CHECK_CFLAGS", "").split()
failures = []
run, skipped = runnable(list(FLAGS))
os.makedirs(work, exist_ok=True)
stubs = os.path.join(src, "runtime-stubs")
for target in run:
    exe = os.path.join(work, "qgemm_test-" + target)
    cmd = (["cc", "-O2", "-std=c99", "-Wall", "-Wextra", "-Werror"] + FLAGS[target] + SAN +
           ["-I" + stubs, "-I" + os.path.join(stubs, "kernels"),
            os.path.join(src, "tests", "unit", "x86", "qgemm_test.c"),
            os.path.join(stubs, "kernels", "quant.c"), os.path.join(stubs, "kernels", "x86", "qgemm.c"),
            "-lm", "-o", exe])
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        failures.append("%s: build failed" % target)
        print("FAIL %s: %s\n%s" % (target, " ".join(cmd), r.stderr))
        continue
    for no_vnni in ("0", "1"):
        env = dict(os.environ, INGOT_NO_VNNI=no_vnni)
        r = subprocess.run([exe, "300"], capture_output=True, text=True, env=env)
        print("%s INGOT_NO_VNNI=%s: %s" % (target, no_vnni, r.stdout.strip().replace("\n", "; ")))
        if r.returncode:
            failures.append("%s INGOT_NO_VNNI=%s" % (target, no_vnni))
            print("FAIL %s INGOT_NO_VNNI=%s (exit %d)\n%s" % (target, no_vnni, r.returncode, r.stderr))
        elif no_vnni == "1" and "emulation" not in r.stdout:
            failures.append("%s: INGOT_NO_VNNI=1 did not take the emulation" % target)
finish(failures, skipped)
