#!/usr/bin/env python3
"""weights_int8: `--quantize weights-int8` (weight-only int8) on an MLP of two MatMuls
and a Gemm (transB): the IR has a MatMulW8 for each and no float MatMul/Gemm; the
weights blob is at most 26% of the fp32 one (int8 plus a scale per column); the outputs
stay within 2% (relative L2) of fp32's, and differ from them (the weights were
rounded); at -O0 (no fold: DequantizeLinear at run time, float MatMul) they stay as
close. A bad --quantize value is one usage line."""
import os

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from common import check, read_pb, header_macro, init, main, model, rng, run, run_ok, save, vi


def test(ingot, work):
    r = rng(3)
    w1 = (r.standard_normal((128, 256)) * 0.08).astype(np.float32)
    b1 = (r.standard_normal(256) * 0.1).astype(np.float32)
    w2 = (r.standard_normal((256, 256)) * 0.06).astype(np.float32)
    w3 = (r.standard_normal((10, 256)) * 0.06).astype(np.float32)
    b3 = (r.standard_normal(10) * 0.1).astype(np.float32)
    N = helper.make_node
    m = model([N("MatMul", ["x", "w1"], ["h0"]), N("Add", ["h0", "b1"], ["h1"]),
               N("Relu", ["h1"], ["h"]), N("MatMul", ["h", "w2"], ["g"]),
               N("Gemm", ["g", "w3", "b3"], ["y"], transB=1)],
              [vi("x", TensorProto.FLOAT, [3, 128])], [vi("y", TensorProto.FLOAT, [3, 10])],
              [init("w1", w1), init("b1", b1), init("w2", w2), init("w3", w3), init("b3", b3)])
    path = save(m, os.path.join(work, "mlp.onnx"))
    x = r.standard_normal((3, 128)).astype(np.float32)
    xf = os.path.join(work, "x.pb")
    with open(xf, "wb") as f:
        f.write(numpy_helper.from_array(x, "x").SerializeToString())
    outs = {}
    for tag, extra in (("fp32", []), ("w8", ["--quantize", "weights-int8"]),
                       ("w8_O0", ["--quantize", "weights-int8", "-O0"])):
        d = os.path.join(work, tag)
        ir = os.path.join(work, tag + ".ir")
        run_ok([ingot, "compile", path, "-o", d, "--name", "mlp", "--emit", "exe",
                "--dump-ir", ir] + extra)
        od = os.path.join(d, "out")
        os.makedirs(od)
        run_ok([os.path.join(d, "mlp"), "--input", xf, "--output-dir", od])
        outs[tag] = read_pb(os.path.join(od, "output_0.pb"))
        text = open(ir).read()
        if tag == "w8":
            check(text.count("= MatMulW8(") == 3, "expected 3 MatMulW8 nodes:\n" + text)
            check("= MatMul(" not in text and "= Gemm(" not in text,
                  "a float MatMul/Gemm is left:\n" + text)
            check("i8[128,256]!q(axis=1,n=256)" in text, "the int8 weight type is missing")
    size = {t: header_macro(os.path.join(work, t), "mlp", "WEIGHTS_SIZE") for t in outs}
    check(size["w8"] <= 0.26 * size["fp32"], "weights %d bytes, fp32 %d" % (size["w8"], size["fp32"]))
    ref = outs["fp32"]
    for tag in ("w8", "w8_O0"):
        err = float(np.linalg.norm(outs[tag] - ref) / np.linalg.norm(ref))
        check(err < 0.02, "%s: relative L2 error %.4f against fp32" % (tag, err))
        check(err > 0, "%s: identical to fp32: nothing was quantized" % tag)
    rc, _, e = run([ingot, "compile", path, "-o", os.path.join(work, "bad"), "--quantize",
                    "int4"])
    check(rc == 2 and len(e.strip().splitlines()) == 1 and "weights-int8" in e,
          "bad --quantize: exit %d, %r" % (rc, e))


if __name__ == "__main__":
    main(test)
