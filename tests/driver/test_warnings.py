#!/usr/bin/env python3
"""clang_werror: a model using every kernel family (conv, pool, gemm/matmul, norm,
softmax, reduce, concat, transpose, gather, elementwise, clip, cast) compiles
warning-free as strict C99 with clang and gcc: NAME.c, NAME_weights.c and NAME_main.c
under -std=c99 -Wall -Wextra -Werror -Wpedantic. The runner built from those objects
must also compute what numpy computes."""
import os

import numpy as np
from onnx import TensorProto, helper

from common import (assert_close, check, conv2d, ingot_compile, init, main, model, pool2d,
                    randf, relu, rng, run_ok, save, sigmoid, softmax, tool, vi)

FLAGS = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-Wpedantic"]
FAMILIES = ["conv", "elementwise", "linalg", "norm", "pool", "reduce", "shape"]


def build_model(work):
    r = rng(7)
    w1, b1 = randf(r, 8, 3, 3, 3, scale=0.4), randf(r, 8)
    bn_s, bn_b, bn_m = randf(r, 8), randf(r, 8), randf(r, 8)
    bn_v = (np.abs(randf(r, 8)) + 0.5).astype(np.float32)
    w2, b2 = randf(r, 16, 10, scale=0.5), randf(r, 10)
    w3 = randf(r, 3, 4)
    idx = np.array([0, 2, 4], dtype=np.int64)
    N = helper.make_node
    nodes = [
        N("Conv", ["x", "w1", "b1"], ["c1"], name="conv", pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
        N("Relu", ["c1"], ["r1"], name="relu"),
        N("MaxPool", ["r1"], ["p1"], name="maxpool", kernel_shape=[2, 2], strides=[2, 2]),
        N("AveragePool", ["p1"], ["p2"], name="avgpool", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        N("Add", ["p1", "p2"], ["a1"], name="add"),
        N("BatchNormalization", ["a1", "bn_s", "bn_b", "bn_m", "bn_v"], ["bn"], name="bn",
          epsilon=1e-5),
        N("Sigmoid", ["bn"], ["s1"], name="sigmoid"),
        N("Mul", ["bn", "s1"], ["sw"], name="swish"),
        N("Transpose", ["sw"], ["t"], name="transpose", perm=[0, 2, 3, 1]),
        N("ReduceMean", ["t"], ["rm"], name="reducemean", axes=[1, 2], keepdims=0),
        N("GlobalMaxPool", ["sw"], ["g"], name="gmp"),
        N("Flatten", ["g"], ["gf"], name="flatten"),
        N("Concat", ["rm", "gf"], ["cc"], name="concat", axis=1),
        N("Gemm", ["cc", "w2", "b2"], ["y1"], name="gemm"),
        N("Softmax", ["y1"], ["y"], name="softmax", axis=-1),
        N("Mul", ["y1", "hundred"], ["y100"], name="scale"),
        N("Cast", ["y100"], ["yi"], name="cast", to=TensorProto.INT32),
        N("Gather", ["y1", "idx"], ["gt"], name="gather", axis=1),
        N("Tanh", ["gt"], ["th"], name="tanh"),
        N("MatMul", ["th", "w3"], ["mm"], name="matmul"),
        N("Clip", ["mm", "lo", "hi"], ["z"], name="clip"),
    ]
    inits = [init("w1", w1), init("b1", b1), init("bn_s", bn_s), init("bn_b", bn_b),
             init("bn_m", bn_m), init("bn_v", bn_v), init("w2", w2), init("b2", b2),
             init("w3", w3), init("idx", idx), init("hundred", np.array(100, np.float32)),
             init("lo", np.array(-0.5, np.float32)), init("hi", np.array(0.5, np.float32))]
    m = model(nodes, [vi("x", TensorProto.FLOAT, [1, 3, 12, 12])],
              [vi("y", TensorProto.FLOAT, [1, 10]), vi("yi", TensorProto.INT32, [1, 10]),
               vi("z", TensorProto.FLOAT, [1, 4])], inits)
    save(m, os.path.join(work, "fam.onnx"))

    x = randf(r, 1, 3, 12, 12)
    c1 = relu(conv2d(x, w1, b1, (1, 1), (1, 1, 1, 1)))
    p1 = pool2d(c1, (2, 2), (2, 2))
    p2 = pool2d(p1, (3, 3), (1, 1), (1, 1, 1, 1), mode="avg")
    a1 = (p1 + p2).astype(np.float64)
    sh = lambda v: v.reshape(1, -1, 1, 1).astype(np.float64)
    bn = ((a1 - sh(bn_m)) / np.sqrt(sh(bn_v) + 1e-5) * sh(bn_s) + sh(bn_b)).astype(np.float32)
    sw = bn * sigmoid(bn)
    rm = sw.transpose(0, 2, 3, 1).mean(axis=(1, 2))
    gf = sw.max(axis=(2, 3))
    y1 = (np.concatenate([rm, gf], axis=1).astype(np.float64) @ w2 + b2).astype(np.float32)
    yi = (y1 * np.float32(100)).astype(np.int32)
    z = np.clip(np.tanh(y1[:, idx]).astype(np.float64) @ w3, -0.5, 0.5).astype(np.float32)
    return x, [softmax(y1), yi, z]


def test(ingot, work):
    compilers = [tool("clang"), tool("gcc")]
    x, want = build_model(work)
    out = os.path.join(work, "fam")
    ingot_compile(ingot, os.path.join(work, "fam.onnx"), out, "fam", "--emit", "c,exe")
    missing = [f for f in FAMILIES if not os.path.isfile(os.path.join(out, "kernels", f + ".c"))]
    check(not missing, "the model should use every kernel family; missing: %s" % ", ".join(missing))
    srcs = ["fam.c", "fam_weights.c", "fam_main.c"]
    for s in srcs:
        check(os.path.isfile(os.path.join(out, s)), "%s was not generated" % s)
    np.save(os.path.join(work, "x.npy"), x)
    for cc in compilers:
        cname = os.path.basename(cc)
        objs = []
        for s in srcs:
            obj = os.path.join(work, "%s_%s.o" % (cname, s[:-2]))
            run_ok([cc] + FLAGS + ["-O2", "-I", out, "-c", os.path.join(out, s), "-o", obj], cwd=out)
            objs.append(obj)
        exe = os.path.join(work, "fam_" + cname)
        run_ok([cc, "-o", exe] + objs + ["-lm"])
        od = os.path.join(work, "out_" + cname)
        os.makedirs(od)
        run_ok([exe, "--input", os.path.join(work, "x.npy"), "--output-dir", od])
        got = [np.load(os.path.join(od, "output_%d.npy" % i)) for i in range(3)]
        assert_close(got[0], want[0], "%s: softmax output y" % cname)
        check(got[1].dtype == np.int32 and got[1].shape == want[1].shape,
              "%s: cast output yi is %s%s, expected int32%s" %
              (cname, got[1].dtype, got[1].shape, want[1].shape))
        # truncation of y1*100 may flip by one where float rounding differs from numpy
        check(np.abs(got[1].astype(np.int64) - want[1]).max() <= 1,
              "%s: cast output yi = %r, expected %r" % (cname, got[1], want[1]))
        assert_close(got[2], want[2], "%s: clip output z" % cname)


if __name__ == "__main__":
    main(test)
