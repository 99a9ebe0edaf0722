#!/usr/bin/python3
"""Every benchmark model's SIMD output agrees with the scalar C target (suite simd).

usage: agree.py INGOT WORKDIR SOURCE_ROOT [TARGET]
Writes the benchmark set with bench/make_models.py (random weights, fixed seed; a
model whose stamp is fresh is kept), compiles each model for --target c and for
TARGET (default x86-avx512), runs both runners on the same seeded inputs and
requires |simd - c| <= atol + rtol * |c| (ingot check's defaults: rtol 1e-3,
atol 1e-7, with atol raised to 1e-4 of the output's largest magnitude, since sums in
another order cancel differently near zero). Exits 77 (skipped) when this CPU lacks
the target's instructions.
The torchvision CNNs of the set (COVERED) are skipped: tests/models exports the same
architectures with torch's outputs and models_x86_avx512 checks them on the SIMD
target, so comparing their random-weight twins here only repeated that (and their C
side, ResNet-18's 47 MB of weights through the scalar kernels, was most of this test's
time).
"""
import os
import subprocess
import sys

import numpy as np

ingot, work, src = sys.argv[1], sys.argv[2], sys.argv[3]
target = sys.argv[4] if len(sys.argv) > 4 else "x86-avx512"
need = {"x86-avx512": ["avx512f", "avx512bw", "avx512dq", "avx512vl", "fma"],
        "x86-avx2": ["avx2", "fma"]}[target]
cpu = open("/proc/cpuinfo").read().split()
if any(f not in cpu for f in need):
    print("agree: this CPU lacks %s; %s cannot run here (skipped)" % (need, target))
    sys.exit(77)

models = os.path.join(work, "models")
r = subprocess.run(["/usr/bin/python3", os.path.join(src, "bench", "make_models.py"), models])
if r.returncode:
    sys.exit("agree: make_models.py failed")
COVERED = {"resnet18", "mobilenet_v2", "mobilenet_v3_small", "squeezenet1_1"}
failures = 0
for name in sorted(os.listdir(models)):
    d = os.path.join(models, name)
    if not os.path.exists(os.path.join(d, "model.onnx")) or name in COVERED:
        continue
    inputs = sorted(f for f in os.listdir(d) if f.startswith("input_") and f.endswith(".npy"))
    outs = {}
    for t in ("c", target):
        o = os.path.join(work, "out", name, t)
        r = subprocess.run([ingot, "compile", os.path.join(d, "model.onnx"), "-o", o, "--name", "m",
                            "--target", t, "--emit", "exe"], capture_output=True, text=True)
        if r.returncode:
            print("FAIL %s %s: compile: %s" % (name, t, r.stderr.strip()))
            failures += 1
            break
        cmd = [os.path.join(o, "m")]
        for f in inputs:
            cmd += ["--input", os.path.join(d, f)]
        r = subprocess.run(cmd + ["--output-dir", o], capture_output=True, text=True)
        if r.returncode:
            print("FAIL %s %s: run: %s" % (name, t, r.stderr.strip()))
            failures += 1
            break
        outs[t] = [np.load(os.path.join(o, f)) for f in sorted(os.listdir(o))
                   if f.startswith("output_") and f.endswith(".npy")]
    if len(outs) != 2:
        continue
    ok = len(outs["c"]) == len(outs[target]) > 0
    worst = 0.0
    for a, b in zip(outs[target], outs["c"]):
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        atol = max(1e-7, 1e-4 * float(np.max(np.abs(b64))) if b64.size else 0.0)
        err = np.abs(a64 - b64) - (atol + 1e-3 * np.abs(b64))
        ok = ok and a.shape == b.shape and bool(np.all(err <= 0))
        rel = np.abs(a64 - b64) / (atol + np.abs(b64))
        worst = max(worst, float(np.max(rel)) if rel.size else 0.0)
    print("%s %s: %s vs c, max |diff| / (atol + |c|) = %.2e" % ("PASS" if ok else "FAIL", name, target,
                                                               worst))
    failures += not ok
print("%d failure(s)" % failures)
sys.exit(1 if failures else 0)
