#!/usr/bin/env python3
"""guards_TARGET: the generated code's promises, checked on the objects of one target.

One model (`sink`, built below) uses every kernel family the target's output can
hold: each runtime-stubs/kernels/*.c but fused.c (which only constant folding runs;
generated code gets its fused loops from codegen/c/emit_fused.c) and each .c of the
target's SIMD folder (kernels/x86/, kernels/neon/). The test first asserts the output
directory holds all of them, so a family added later without a use here fails.

The model and weights are built with -DINGOT_NO_THREADS for the target, twice:
  - at -O2, as a user builds them;
  - at -O0 with -fkeep-static-functions and -ffreestanding, so every kernel function
    is in the object, called by this model or not (the freestanding check of all
    kernel folders; tests/cross/freestanding_libm.sh does the reference folder on a
    Cortex-M).
Then, with the target's objdump:
  - every defined global symbol is NAME_-prefixed text (T) or read-only data (R);
  - no object holds writable data, global or static (.data, .bss, common, TLS;
    .data.rel.ro is read-only once relocated): the code is reentrant and two models
    link into one program;
  - every undefined symbol is in docs/arm.md's libm list (mem* included), or a
    compiler-runtime helper of the target (the __aeabi_* of armv7, soft f16
    conversions), or a name the compiler makes (COMPILER_MADE).
    test_guards.py INGOT WORKDIR TARGET
"""
import os
import re

import numpy as np
from onnx import TensorProto as T, helper, numpy_helper, save

from common import check, main, run_ok, tool

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))

# cross compiler and binutils prefix per target ('' = the system's)
PREFIX = {"c": "", "x86-avx2": "", "x86-avx512": "", "neon": "aarch64-linux-gnu-",
          "neon32": "arm-linux-gnueabihf-"}
SIMD = {"x86-avx2": "x86", "x86-avx512": "x86", "neon": "neon", "neon32": "neon"}
# compiler-runtime helpers a target's gcc may call; nothing from a C library
RUNTIME_HELPER = re.compile(r"^__(aeabi_\w+|(extend|trunc)\w+[hs]f2|gnu_(f2h|h2f)_ieee|"
                            r"(mul|div)[sd]c3|popcount\w+|clz\w+|ctz\w+)$")
# names the compiler or linker brings in, not the kernels' source: gcc merges sin and
# cos of one argument into sincos/sincosf (GNU libm and newlib have both), and armv7's
# position-independent code refers to the GOT
COMPILER_MADE = {"sincos", "sincosf", "_GLOBAL_OFFSET_TABLE_"}


def sink_model(path):
    """One graph whose nodes each reach a different kernel (family) on some target."""
    F, D = T.FLOAT, T.DOUBLE
    r = np.random.default_rng(0)
    nodes, ins, outs, inits = [], [], [], []

    def inp(name, dt, shape):
        ins.append(helper.make_tensor_value_info(name, dt, shape))
        return name

    def out(name, dt=F, shape=None):
        outs.append(helper.make_tensor_value_info(name, dt, shape))

    def w(name, arr):
        inits.append(numpy_helper.from_array(arr, name))
        return name

    def rw(name, *shape, dt=np.float32):
        return w(name, r.standard_normal(shape).astype(dt))

    def node(op, i, o, dt=F, shape=None, **kw):
        nodes.append(helper.make_node(op, i, [o], **kw))
        out(o, dt, shape)

    x = inp("x", F, [1, 8, 16, 16])
    node("Conv", [x, rw("w3", 8, 8, 3, 3)], "conv3", pads=[1, 1, 1, 1])      # x86 dconv
    node("Conv", [x, rw("wd", 8, 1, 3, 3)], "dw", group=8, pads=[1, 1, 1, 1])  # x86 dwconv
    p7 = inp("p7", F, [1, 64, 7, 7])
    node("Conv", [p7, rw("wp", 64, 64, 1, 1)], "pw")                       # x86 pwconv
    s = inp("s", F, [1, 16, 32])
    node("Conv", [s, rw("w1d", 16, 16, 3)], "c1d", pads=[1, 1])            # x86 wino1d
    node("MaxPool", [x], "mp", kernel_shape=[2, 2], strides=[2, 2])        # pooling
    node("Relu", [x], "relu")                                              # eltwise
    node("Softmax", [x], "sm", axis=1)
    nodes.append(helper.make_node("Mul", [x, x], ["f1"]))                  # a fused loop
    nodes.append(helper.make_node("Exp", ["f1"], ["f2"]))
    node("Sub", ["f2", x], "f3")
    a = inp("a", F, [16, 32])
    node("Gemm", [a, rw("gb", 32, 24)], "gemm")                           # sgemm / gemm
    nodes.append(helper.make_node("Transpose", [a], ["a_t"], perm=[1, 0]))
    node("MatMul", ["a_t", a], "mm")
    sq = inp("seq", F, [5, 1, 8])
    node("LSTM", [sq, rw("lw", 1, 64, 8), rw("lr", 1, 64, 16)], "ly", hidden_size=16)  # rnn
    node("GRU", [sq, rw("gw", 1, 48, 8), rw("gr", 1, 48, 16)], "gy", hidden_size=16)
    node("LayerNormalization", [a, w("lns", np.ones(32, np.float32)),
                                w("lnb", np.zeros(32, np.float32))], "ln")
    node("BatchNormalization", [x] + [w("b" + k, v(8, np.float32)) for k, v in
                                      (("s", np.ones), ("b", np.zeros), ("m", np.zeros),
                                       ("v", np.ones))], "bn")                # norm
    node("ReduceSum", [a, w("rax", np.array([1], np.int64))], "rs")          # reduce
    node("CumSum", [a, w("cax", np.array(1, np.int64))], "cs")               # arith
    node("ArgMax", [x], "am", dt=T.INT64, axis=1)                           # indexing
    node("Concat", [a, a], "cc", axis=0)                                    # shape
    node("Resize", [x, "", w("rsc", np.array([1, 1, 2, 2], np.float32))], "rz",
         mode="linear")                                                    # image
    off = inp("off", F, [1, 18, 14, 14])
    node("DeformConv", [x, rw("dcw", 4, 8, 3, 3), off], "dc")               # deform_conv
    node("QuantizeLinear", [a, w("qs", np.array(0.1, np.float32)),
                            w("qz", np.array(0, np.uint8))], "q", dt=T.UINT8)  # quant
    node("MaxRoiPool", [x, w("rois", np.array([[0, 0, 0, 7, 7]], np.float32))], "roi",
         pooled_shape=[2, 2])                                              # roi_pool
    node("DFT", [inp("sig", F, [1, 16, 1])], "dft")                         # spectral
    node("Binarizer", [a], "bin", domain="ai.onnx.ml", threshold=0.5)        # ml
    node("RandomNormalLike", [a], "rn", seed=1.0)                           # random
    node("SoftmaxCrossEntropyLoss", [inp("lg", F, [4, 5]), inp("lb", T.INT64, [4])],
         "loss")                                                           # loss
    node("Col2Im", [inp("col", F, [1, 4, 9]), w("isz", np.array([4, 4], np.int64)),
                    w("bsz", np.array([2, 2], np.int64))], "c2i")           # image_norm
    st = inp("str", T.STRING, [3])
    node("RegexFullMatch", [st], "rx", dt=T.BOOL, pattern="a.*")            # regex
    node("StringNormalizer", [st], "sn", dt=T.STRING, case_change_action="LOWER")  # text
    node("ImageDecoder", [inp("img", T.UINT8, [64])], "dec", dt=T.UINT8,
         shape=[8, 8, 3])                                                  # imgdec*
    qx = inp("qx", T.UINT8, [1, 8, 8, 8])
    node("QLinearConv", [qx, w("qxs", np.array(0.02, np.float32)), w("qxz", np.array(128, np.uint8)),
                         w("qw", r.integers(-127, 128, (8, 8, 3, 3)).astype(np.int8)),
                         w("qws", np.array(0.01, np.float32)), w("qwz", np.array(0, np.int8)),
                         w("qys", np.array(0.05, np.float32)), w("qyz", np.array(3, np.uint8))],
         "qc", dt=T.UINT8, pads=[1, 1, 1, 1])                              # neon qgemm
    # f64: the reference Conv, pool, MatMul and RNN kernels on every SIMD target too
    xd = inp("xd", D, [1, 2, 6, 6])
    node("Conv", [xd, rw("wdd", 2, 2, 3, 3, dt=np.float64)], "cd", dt=D)
    node("MaxPool", [xd], "mpd", dt=D, kernel_shape=[2, 2])
    ad = inp("ad", D, [4, 4])
    node("MatMul", [ad, ad], "mmd", dt=D)
    sd = inp("sd", D, [3, 1, 2])
    node("RNN", [sd, rw("rw", 1, 4, 2, dt=np.float64), rw("rr", 1, 4, 4, dt=np.float64)],
         "rny", dt=D, hidden_size=4)
    g = helper.make_graph(nodes, "sink", ins, outs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 22),
                                            helper.make_opsetid("ai.onnx.ml", 3)])
    m.ir_version = 8
    save(m, path)


def families(target):
    """The kernel .c files (relative to the output dir) the target's output can hold."""
    kdir = os.path.join(SRC, "runtime-stubs", "kernels")
    want = {"kernels/" + f for f in os.listdir(kdir) if f.endswith(".c") and f != "fused.c"}
    if target in SIMD:
        sub = SIMD[target]
        want |= {"kernels/%s/%s" % (sub, f) for f in os.listdir(os.path.join(kdir, sub))
                 if f.endswith(".c")}
    return want


def documented_libs():
    doc = open(os.path.join(SRC, "docs", "arm.md")).read()
    block = re.search(r"<!-- libm:begin -->(.*?)<!-- libm:end -->", doc, re.S)
    check(block is not None, "docs/arm.md has no libm:begin/libm:end list")
    return set(re.findall(r"\b[a-z][a-z0-9_]*\b", block.group(1)))


# objdump -t: VALUE FLAGS SECTION SIZE NAME (FLAGS is 7 columns, some blank)
SYMLINE = re.compile(r"^[0-9a-f]+ (.{7}) (\S+)\s+[0-9a-f]+\s+(\S+)$")


def symbols(objdump, obj):
    """(global?, section, name) of every named symbol of obj but file and section names."""
    out, _ = run_ok([objdump, "-t", obj])
    syms = []
    for line in out.splitlines():
        m = SYMLINE.match(line)
        if m and "f" not in m.group(1) and "d" not in m.group(1)[5:6]:
            syms.append(("g" in m.group(1)[:2], m.group(2), m.group(3)))
    return syms


def writable(section):
    """Data sections a program can write after loading (.data.rel.ro is relocated,
    then read-only)."""
    if section.startswith(".data.rel.ro"):
        return False
    return section == "*COM*" or any(section == s or section.startswith(s + ".") for s in
                                     (".data", ".bss", ".sdata", ".sbss", ".tdata", ".tbss"))


def readonly(section):
    return any(section == s or section.startswith(s + ".") for s in (".text", ".rodata")) or \
        section.startswith(".data.rel.ro")


def test(ingot, work, target):
    check(target in PREFIX, "unknown target %s" % target)
    cc, objdump = tool(PREFIX[target] + "gcc"), tool(PREFIX[target] + "objdump")
    model, out = os.path.join(work, "sink.onnx"), os.path.join(work, "out")
    sink_model(model)
    run_ok([ingot, "compile", model, "--name", "sink", "-o", out, "--target", target,
            "--emit", "c", "-O2"])

    have = set()
    for root, _, files in os.walk(os.path.join(out, "kernels")):
        have |= {os.path.relpath(os.path.join(root, f), out) for f in files if f.endswith(".c")}
    missing = families(target) - have
    check(not missing, "the sink model does not use the kernel families %s on %s" %
          (" ".join(sorted(missing)), target))

    mk = open(os.path.join(out, "Makefile")).read()
    flags = re.search(r"^CFLAGS \?= (.*)$", mk, re.M).group(1).split()
    flags = [f for f in flags if not f.startswith("-O")] + ["-DINGOT_NO_THREADS", "-Werror"]
    builds = {"O2": ["-O2"],
              "O0-all": ["-O0", "-fkeep-static-functions", "-ffreestanding"]}
    objs = []
    for tag, extra in builds.items():
        for src in ("sink.c", "sink_weights.c"):
            obj = os.path.join(work, "%s.%s.o" % (src[:-2], tag))
            run_ok([cc] + flags + extra + ["-c", src, "-o", obj], cwd=out, timeout=600)
            objs.append(obj)

    allowed = documented_libs()
    bad = []
    for tag in builds:
        pair = [o for o in objs if ".%s." % tag in o]
        syms = {o: symbols(objdump, o) for o in pair}
        defined = {n for o in pair for g, sec, n in syms[o] if g and sec != "*UND*"}
        for obj in pair:
            name = os.path.basename(obj)
            for glob, sec, sym in syms[obj]:
                if sec == "*UND*":
                    if sym not in defined and sym not in allowed and not sym.startswith("mem") \
                            and not RUNTIME_HELPER.match(sym) and sym not in COMPILER_MADE:
                        bad.append("%s: calls '%s', not in docs/arm.md's list" % (name, sym))
                elif writable(sec):
                    bad.append("%s: writable data '%s' (%s)" % (name, sym, sec))
                elif glob and not sym.startswith("sink_"):
                    bad.append("%s: global '%s' (%s) lacks the prefix sink_" % (name, sym, sec))
                elif glob and not readonly(sec):
                    bad.append("%s: global '%s' is in %s, not text or read-only data" %
                               (name, sym, sec))
    check(not bad, "%s output breaks its guarantees:\n  %s" % (target, "\n  ".join(bad[:40])))
    print("%s: %d kernel families, %d objects: prefixed text and read-only data only, "
          "no writable data, undefined symbols within docs/arm.md" %
          (target, len(have), len(objs)))


if __name__ == "__main__":
    main(test)
