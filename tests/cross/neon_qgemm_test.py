#!/usr/bin/python3
"""The NEON int8 kernels (neon/qgemm.c): exact, and the instructions --cpu asks for
(suite cross).

usage: neon_qgemm_test.py INGOT WORKDIR SOURCE_ROOT ONNX_TESTS [PROBLEMS]
1. Runs tests/cross/neon_qgemm.c (QLinearConv / QLinearMatMul against the reference
   kernels of quant.c, byte for byte, on PROBLEMS random problems of each) built three
   ways: aarch64 ARMv8.0 (smull + sadalp), aarch64 ARMv8.2 + dotprod (sdot; run with
   qemu-aarch64 -cpu max) and armv7 + NEON (vmull.s8 + vpadal.s16).
2. Compiles a QDQ conv net of tests/quant/qdq_models.py (fold_qdq makes it
   QLinearConv / QLinearMatMul with constant weights) with --target neon --cpu
   cortex-a76, --cpu cortex-a53 and --target neon32, --emit lib: net.c must call the
   NEON int8 kernels with packed weights, and the code reachable from net_run must hold
   `sdot` for cortex-a76, and `smull` and `sadalp` but no `sdot` / `udot` for cortex-a53
   (neon32: `vmull.s8` and `vpadal.s16`).
3. Runs the ONNX quantization node tests (tests/cross/quant_list.txt: QLinearConv,
   QLinearMatMul, ConvInteger, MatMulInteger, QuantizeLinear, DequantizeLinear,
   DynamicQuantizeLinear; ONNX_TESTS is conformance/generate.py's folder) with
   `ingot check` (exact: the outputs are integers) on neon, neon --cpu cortex-a76 and
   neon32 under qemu. Their weights are graph inputs, so the kernels pack them at run
   time.
"""
import importlib.util
import os
import re
import shutil
import sys

from crosstest import fail, failures, functions, reachable, run

ingot, work, src, onnx_tests = sys.argv[1:5]
problems = sys.argv[5] if len(sys.argv) > 5 else "300"
A64 = dict(cc="aarch64-linux-gnu-gcc", objdump="aarch64-linux-gnu-objdump",
           call=re.compile(r"\bbl\s+[0-9a-f]+\s+<([^>+]+)"),
           qemu=["qemu-aarch64", "-cpu", "max", "-L", "/usr/aarch64-linux-gnu"])
A32 = dict(cc="arm-linux-gnueabihf-gcc", objdump="arm-linux-gnueabihf-objdump",
           call=re.compile(r"\bblx?\s+[0-9a-f]+\s+<([^>+]+)"),
           qemu=["qemu-arm", "-L", "/usr/arm-linux-gnueabihf"])
BUILDS = [
    ("aarch64", A64, ["-march=armv8-a"], "smull/sadalp"),
    ("aarch64+dotprod", A64, ["-march=armv8.2-a+dotprod"], "sdot"),
    ("armv7", A32, ["-march=armv7-a", "-mfpu=neon-vfpv4", "-mfloat-abi=hard"], "smull/sadalp"),
]
SDOT = re.compile(r"\b[su]dot\s+v\d+\.4s")
# (target, --cpu, reference, instructions that must be reachable, ones that must not)
DISASM = [
    ("neon", "cortex-a76", A64, [SDOT], []),
    ("neon", "cortex-a53", A64, [re.compile(r"\bsmull2?\s+v\d+\.8h"),
                                 re.compile(r"\bsadalp\s+v\d+\.4s")], [SDOT]),
    ("neon32", None, A32, [re.compile(r"\bvmull\.s8\s+q\d+"),
                           re.compile(r"\bvpadal\.s16\s+q\d+")], []),
]


def check_kernels():
    stubs = os.path.join(src, "runtime-stubs")
    for name, t, flags, kind in BUILDS:
        exe = os.path.join(work, "neon_qgemm_" + name.replace("+", "_"))
        if run([t["cc"], "-O2", "-std=c99", "-Wall", "-Wextra", "-Werror"] + flags +
               ["-I" + stubs, "-I" + os.path.join(stubs, "kernels"),
                os.path.join(src, "tests/cross/neon_qgemm.c"), "-o", exe, "-lm"]).returncode:
            continue
        r = run(t["qemu"] + [exe, problems])
        last = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else "?"
        print("%s: %s" % (name, last))
        if not last.startswith(kind + ":"):
            fail("%s: built the %s microkernel, not %s" % (name, last.split(":")[0], kind))


def qdq_model():
    spec = importlib.util.spec_from_file_location(
        "qdq_models", os.path.join(src, "tests/quant/qdq_models.py"))
    qm = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(qm)
    import numpy as np
    net, ins = qm.conv_net(np.uint8)
    return os.path.join(qm.write(work, "qdq_convnet", net, ins, (1, 10))["dir"], "model.onnx")


def check_disasm(model):
    for target, cpu, t, need, forbid in DISASM:
        tag = target + ("-" + cpu if cpu else "")
        out = os.path.join(work, tag)
        shutil.rmtree(out, ignore_errors=True)
        if run([ingot, "compile", model, "--name", "net", "-o", out, "--target", target,
                "--emit", "lib"] + (["--cpu", cpu] if cpu else [])).returncode:
            continue
        net_c = open(os.path.join(out, "net.c")).read()
        for k in ("ingot_neon_qconv", "ingot_neon_qmatmul"):
            if not re.search(r"\b%s[(,]" % k, net_c):
                fail("%s: net.c does not call %s" % (tag, k))
        if not re.search(r"ingot_neon_qconv_params \w+ = \{.*\.packed = 1 \};", net_c):
            fail("%s: no QLinearConv with weights packed at compile time" % tag)
        funcs = functions(run([t["objdump"], "-d", os.path.join(out, "libnet.a")]).stdout)
        root = next((f for f in funcs if f == "net_run" or f.startswith("net_run.")), "net_run")
        code = reachable(funcs, root, t["call"])
        for rx in need:
            n = sum(1 for ins in code if rx.search(ins))
            print("%s: %d x %s" % (tag, n, rx.pattern))
            if not n:
                fail("%s: no %s reachable from net_run" % (tag, rx.pattern))
        for rx in forbid:
            if any(rx.search(ins) for ins in code):
                fail("%s: %s reachable from net_run" % (tag, rx.pattern))


def check_node_tests():
    run(["/usr/bin/python3", os.path.join(src, "tests/conformance/generate.py"), onnx_tests])
    tests = [os.path.join(onnx_tests, "node", t.strip())
             for t in open(os.path.join(src, "tests/cross/quant_list.txt")) if t.strip()]
    for target, cpu in (("neon", None), ("neon", "cortex-a76"), ("neon32", None)):
        r = run([ingot, "check", "--target", target, "-j", "2", "--timeout", "300"] +
                (["--cpu", cpu] if cpu else []) + tests)
        last = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else "?"
        print("node tests %s%s: %s" % (target, " --cpu " + cpu if cpu else "", last))
        if not last.startswith("%d passed, 0 failed" % len(tests)):
            fail("node tests on %s %s: %s" % (target, cpu or "", last))


os.makedirs(work, exist_ok=True)
check_kernels()
check_disasm(qdq_model())
check_node_tests()
print("neon_qgemm_test: %d failures" % len(failures))
sys.exit(1 if failures else 0)
