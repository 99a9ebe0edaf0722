#!/usr/bin/env python3
"""if_branch: an If with a run-time condition whose else branch cannot be shaped at the
model's static dims (a Reshape of its 6 elements into [5, 7], as a model checking its
sample rate has a branch valid only for the other rate) still compiles, with one
warning naming the node, the branch and the first error; the then branch computes what
numpy computes, and taking the else branch makes the runner fail with INGOT_EINVAL
(exit 1, "invalid argument"), never a crash or a silent wrong answer. An If whose two
branches both fail stays an error, and so does one whose failing branch uses an op
ingot does not support.

Shapes computed in a branch fold (the pattern of AffineGrid's expanded function body):
an If whose condition folds (Equal(Size(Shape(x)), 4)) and whose taken branch computes
a shape from x's static dims ([N, H * W, -1]) is inlined and its output folds, so a
Reshape and a Range downstream of it compile; the result is numpy's."""
import os

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from common import check, read_pb, init, main, model, run, run_ok, save, vi


def branch(nodes, out, inits=()):
    return helper.make_graph(nodes, "b", [], [vi(out, TensorProto.FLOAT, [2, 3])], list(inits))


def then_ok():
    return branch([helper.make_node("Mul", ["x", "two"], ["t_out"])], "t_out",
                  [init("two", np.float32(2))])


def else_bad(tag, op="Reshape"):
    n1 = helper.make_node(op, ["x", f"bad{tag}"], [f"r{tag}"])
    n2 = helper.make_node("Reshape", [f"r{tag}", f"back{tag}"], [f"e{tag}"])
    return branch([n1, n2], f"e{tag}", [init(f"bad{tag}", np.array([5, 7], np.int64)),
                                        init(f"back{tag}", np.array([2, 3], np.int64))])


def if_model(then_g, else_g):
    node = helper.make_node("If", ["c"], ["y"], name="rate_check", then_branch=then_g,
                            else_branch=else_g)
    return model([node], [vi("c", TensorProto.BOOL, []), vi("x", TensorProto.FLOAT, [2, 3])],
                 [vi("y", TensorProto.FLOAT, [2, 3])])


def pb(path, arr, name):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(arr, name).SerializeToString())
    return path


def shape_if_model():
    """cond = Equal(Size(Shape(x)), 4); then: [N, H * W, -1] from Shape(x); else: Shape(x).
    y = Reshape(x, that) + Range(0, that[1]) along dim 1."""
    def g(name, idx):
        return [helper.make_node("Gather", ["ts", name], ["g_" + name], axis=0)]
    then_g = helper.make_graph(
        [helper.make_node("Shape", ["x"], ["ts"])] + g("i0", 0) + g("i2", 2) + g("i3", 3) +
        [helper.make_node("Mul", ["g_i2", "g_i3"], ["hw"]),
         helper.make_node("Concat", ["g_i0", "hw", "m1"], ["t_shape"], axis=0)],
        "then", [], [vi("t_shape", TensorProto.INT64, [3])],
        [init("i0", np.array([0], np.int64)), init("i2", np.array([2], np.int64)),
         init("i3", np.array([3], np.int64)), init("m1", np.array([-1], np.int64))])
    else_g = helper.make_graph([helper.make_node("Shape", ["x"], ["e_shape"])], "else", [],
                               [vi("e_shape", TensorProto.INT64, [4])])
    nodes = [helper.make_node("Shape", ["x"], ["s"]),
             helper.make_node("Size", ["s"], ["rank"]),
             helper.make_node("Equal", ["rank", "four"], ["is4"]),
             helper.make_node("If", ["is4"], ["shape"], name="rank_switch", then_branch=then_g,
                              else_branch=else_g),
             helper.make_node("Reshape", ["x", "shape"], ["r"]),
             helper.make_node("Gather", ["shape", "one"], ["len"], axis=0),
             helper.make_node("Range", ["zero", "len", "step"], ["ar"]),
             helper.make_node("Cast", ["ar"], ["arf"], to=TensorProto.FLOAT),
             helper.make_node("Unsqueeze", ["arf", "ax1"], ["col"]),
             helper.make_node("Add", ["r", "col"], ["y"])]
    inits = [init("four", np.array(4, np.int64)), init("one", np.array(1, np.int64)),
             init("zero", np.array(0, np.int64)), init("step", np.array(1, np.int64)),
             init("ax1", np.array([1], np.int64))]
    return model(nodes, [vi("x", TensorProto.FLOAT, [2, 3, 4, 5])],
                 [vi("y", TensorProto.FLOAT, [2, 20, 3])], inits, opset=17)


def test_shape_if(ingot, work):
    m = save(shape_if_model(), os.path.join(work, "shape_if.onnx"))
    out = os.path.join(work, "shape_if")
    run_ok([ingot, "compile", m, "-o", out, "--name", "sif", "--emit", "exe"])
    x = np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5) / 7
    xf = pb(os.path.join(work, "sx.pb"), x, "x")
    od = os.path.join(work, "so")
    os.makedirs(od)
    run_ok([os.path.join(out, "sif"), "--input", xf, "--output-dir", od])
    got = read_pb(os.path.join(od, "output_0.pb"))
    want = x.reshape(2, 20, 3) + np.arange(20, dtype=np.float32)[:, None]
    check(got.shape == want.shape and np.array_equal(got, want),
          "shape-computing If: got %r, want %r" % (got, want))


def test(ingot, work):
    test_shape_if(ingot, work)
    m = save(if_model(then_ok(), else_bad("")), os.path.join(work, "if.onnx"))
    out = os.path.join(work, "out")
    _, err = run_ok([ingot, "compile", m, "-o", out, "--name", "ifm", "--emit", "exe"])
    warn = [l for l in err.splitlines() if "warning" in l]
    check(len(warn) == 1, "expected one warning, got: %r" % err)
    for part in ("rate_check", "else_branch", "cannot reshape", "INGOT_EINVAL"):
        check(part in warn[0], "the warning does not name %r: %s" % (part, warn[0]))
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    xf = pb(os.path.join(work, "x.pb"), x, "x")
    for cond in (True, False):
        cf = pb(os.path.join(work, "c%d.pb" % cond), np.array(cond), "c")
        od = os.path.join(work, "o%d" % cond)
        os.makedirs(od)
        rc, _, e = run([os.path.join(out, "ifm"), "--input", cf, "--input", xf,
                        "--output-dir", od])
        if cond:
            check(rc == 0, "the then branch failed: %s" % e)
            got = read_pb(os.path.join(od, "output_0.pb"))
            check(np.array_equal(got, x * 2), "then branch: got %r" % got)
        else:
            check(rc == 1 and "invalid argument" in e,
                  "taking the else branch: exit %d, %r (want 1, invalid argument)" % (rc, e))
            check(not os.path.exists(os.path.join(od, "output_0.pb")),
                  "the failed run still wrote an output")
    # both branches bad: an error, naming the shape problem
    m2 = save(if_model(else_bad("a"), else_bad("b")), os.path.join(work, "both.onnx"))
    rc, _, e = run([ingot, "compile", m2, "-o", os.path.join(work, "o2")])
    check(rc == 1 and "cannot reshape" in e, "both branches bad: exit %d, %r" % (rc, e))
    # a failing branch with an unsupported op is not silenced
    m3 = save(if_model(then_ok(), else_bad("u", op="NoSuchOp")), os.path.join(work, "u.onnx"))
    rc, _, e = run([ingot, "compile", m3, "-o", os.path.join(work, "o3")])
    check(rc != 0 and "NoSuchOp" in e, "unsupported op in a branch: exit %d, %r" % (rc, e))


if __name__ == "__main__":
    main(test)
