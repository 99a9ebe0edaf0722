#!/usr/bin/python3
"""The NEON output really uses NEON (suite cross).

usage: neon_test.py INGOT WORKDIR SOURCE_ROOT
1. Compiles a small Add/Conv/MaxPool/Conv 1x1/Gemm/Softmax model with --target neon
   and neon32 --emit lib; the sources must call the NEON kernels, their kernel files
   must include arm_neon.h, and the libraries must hold vector FMAs (aarch64
   `fmla vN.4s`, armv7 `vfma.f32 qN`) reachable from NAME_run.
2. Compiles the emitted kernels/neon/gemm.c alone, as a prebuilt kernel library is
   built, and checks that ingot_neon_conv and ingot_neon_gemm each reach a vector FMA
   through their calls.
3. Runs tests/cross/neon_kernels.c (NEON kernels against the reference kernels on
   random shapes) under qemu-aarch64 and qemu-arm, built with the ukernel.h that
   compiling for the target generated (the GEMM microkernels, codegen/common/ukgen.c),
   and tests/cross/neon_vocab.c checks that header's vector vocabulary on known values.
"""
import os
import re
import shutil
import sys

from crosstest import fail, failures, functions, reachable, run

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ingot, work, src = sys.argv[1], sys.argv[2], sys.argv[3]

TARGETS = {
    "neon": dict(cc="aarch64-linux-gnu-gcc", objdump="aarch64-linux-gnu-objdump",
                 cflags=["-O2", "-std=c99", "-march=armv8-a"],
                 fma=re.compile(r"\bfmla\s+v\d+\.4s"),
                 call=re.compile(r"\bbl\s+[0-9a-f]+\s+<([^>+]+)"),
                 qemu=["qemu-aarch64", "-L", "/usr/aarch64-linux-gnu"]),
    "neon32": dict(cc="arm-linux-gnueabihf-gcc", objdump="arm-linux-gnueabihf-objdump",
                   cflags=["-O2", "-std=c99", "-march=armv7-a", "-mfpu=neon-vfpv4",
                           "-mfloat-abi=hard"],
                   fma=re.compile(r"\bvfma\.f32\s+q\d+"),
                   call=re.compile(r"\bblx?\s+[0-9a-f]+\s+<([^>+]+)"),
                   qemu=["qemu-arm", "-L", "/usr/arm-linux-gnueabihf"]),
}


def make_model(path):
    rng = np.random.default_rng(7)

    def const(name, shape):
        return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32) * 0.3, name)

    nodes = [
        helper.make_node("Add", ["x", "x2"], ["s"]),
        helper.make_node("Conv", ["s", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "w2", "b2"], ["c2"]),
        helper.make_node("Flatten", ["c2"], ["f"], axis=1),
        helper.make_node("Gemm", ["f", "wg", "bg"], ["g"], transB=1),
        helper.make_node("Softmax", ["g"], ["y"], axis=1),
    ]
    graph = helper.make_graph(
        nodes, "neon_test",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 12, 12]),
         helper.make_tensor_value_info("x2", TensorProto.FLOAT, [1, 3, 12, 12])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])],
        [const("w1", [16, 3, 3, 3]), const("b1", [16]), const("w2", [16, 16, 1, 1]),
         const("b2", [16]), const("wg", [10, 16 * 6 * 6]), const("bg", [10])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    onnx.save(model, path)


def reaches_fma(funcs, root, t):
    """Does root, or a function it calls (transitively, inside this object), hold a
    vector FMA? Inlining moves the microkernel around; calls keep it reachable."""
    return any(t["fma"].search(ins) for ins in reachable(funcs, root, t["call"]))


def find(funcs, name):
    """The symbol of a function, allowing gcc's clone suffixes (.constprop.0, .isra.0)."""
    return next((f for f in funcs if f == name or f.startswith(name + ".")), None)


def check_target(target, model):
    t = TARGETS[target]
    out = os.path.join(work, target)
    shutil.rmtree(out, ignore_errors=True)
    if run([ingot, "compile", model, "--name", "net", "-o", out, "--target", target,
            "--emit", "lib"]).returncode:
        return
    net_c = open(os.path.join(out, "net.c")).read()
    for kernel in ("ingot_neon_conv", "ingot_neon_gemm", "ingot_neon_pool", "ingot_neon_binary",
                   "ingot_neon_softmax"):
        # called directly, or through ingot_par_call (the nodes NAME_run_par may split)
        if not re.search(r"\b%s[(,]" % kernel, net_c):
            fail("%s: net.c does not call %s" % (target, kernel))
    for fam in ("gemm", "pooling", "eltwise"):
        if '#include "kernels/neon/%s.c"' % fam not in net_c:
            fail("%s: net.c does not include kernels/neon/%s.c" % (target, fam))
        path = os.path.join(out, "kernels", "neon", fam + ".c")
        if not os.path.exists(path) or "#include <arm_neon.h>" not in open(path).read():
            fail("%s: kernels/neon/%s.c is missing or does not include arm_neon.h" % (target, fam))
    lib = os.path.join(out, "libnet.a")
    if not os.path.exists(lib):
        fail("%s: no libnet.a" % target)
        return
    funcs = functions(run([t["objdump"], "-d", lib]).stdout)
    if not reaches_fma(funcs, find(funcs, "net_run") or "net_run", t):
        fail("%s: no vector FMA reachable from net_run in libnet.a" % target)
    # the kernel file alone, with external kernel symbols
    obj = os.path.join(out, "gemm.o")
    if run([t["cc"]] + t["cflags"] + ["-I" + out, "-c", os.path.join(out, "kernels/neon/gemm.c"),
                                      "-o", obj]).returncode:
        return
    funcs = functions(run([t["objdump"], "-d", obj]).stdout)
    for kernel in ("ingot_neon_conv", "ingot_neon_gemm", "ingot_neon_matmul"):
        sym = find(funcs, kernel)
        if not sym:
            fail("%s: %s not in kernels/neon/gemm.o" % (target, kernel))
        elif not reaches_fma(funcs, sym, t):
            fail("%s: %s reaches no vector FMA" % (target, kernel))
        else:
            print("%s: %s uses vector FMA" % (target, kernel))


def check_kernels(target):
    t = TARGETS[target]
    exe = os.path.join(work, "neon_kernels_" + target)
    stubs = os.path.join(src, "runtime-stubs")
    # the generated microkernels (ukernel.h) that check_target's compile wrote
    gen = os.path.join(work, target, "kernels", "neon")
    if run([t["cc"]] + t["cflags"] + ["-Wall", "-Wextra", "-Werror", "-I" + stubs,
                                      "-I" + os.path.join(stubs, "kernels"), "-I" + gen,
                                      os.path.join(src, "tests/cross/neon_kernels.c"),
                                      "-o", exe, "-lm"]).returncode:
        return
    r = run(t["qemu"] + [exe, "400"])
    print("%s kernels: %s" % (target, r.stdout.strip().splitlines()[-1] if r.stdout else "?"))
    # the generated vector vocabulary itself, on known values
    voc = os.path.join(work, "neon_vocab_" + target)
    if run([t["cc"]] + t["cflags"] + ["-Wall", "-Wextra", "-Werror", "-I" + gen,
                                      os.path.join(src, "tests/cross/neon_vocab.c"),
                                      "-o", voc]).returncode:
        return
    r = run(t["qemu"] + [voc])
    print("%s %s%s" % (target, r.stdout.strip(), r.stderr.strip()))


os.makedirs(work, exist_ok=True)
model_path = os.path.join(work, "net.onnx")
make_model(model_path)
for target in TARGETS:
    check_target(target, model_path)
    check_kernels(target)
print("neon_test: %d failures" % len(failures))
sys.exit(1 if failures else 0)
