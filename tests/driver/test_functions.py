#!/usr/bin/env python3
"""functions: models with model-local functions (ModelProto.functions), as newer
PyTorch exporters write them, are inlined by the frontend. Each case is written in
the backend-test layout with numpy's outputs and must PASS `ingot check`: a function
called twice, attribute references (given by the caller, taken from the function's
default in attribute_proto, or left to the op's default), nested calls, a function
under an older ai.onnx opset than the model's, a function output that is its input,
an omitted optional input, and a call inside an If branch. Calls that cannot be
inlined (an unknown domain, recursion, a wrong attribute) fail with one line naming
the file and the node."""
import os

import numpy as np
from onnx import AttributeProto, TensorProto, helper

from common import check, check_all_pass, main, run, save, stderr_lines, vi, write_test_dir

T = TensorProto
N = helper.make_node
DOM = "local.fn"


def ref(name, target, kind):
    """An attribute of a function body node that takes the caller's `target`."""
    a = AttributeProto()
    a.name = name
    a.ref_attr_name = target
    a.type = kind
    return a


def node_with(op, ins, outs, attrs, **kw):
    n = N(op, ins, outs, **kw)
    n.attribute.extend(attrs)
    return n


def with_defaults(fn, defaults):
    """FunctionProto.attribute_proto (field 11) is newer than python3-onnx 1.12: the
    entries are appended as raw fields, which protobuf keeps as unknown fields."""
    raw = fn.SerializeToString()
    for a in defaults:
        body = a.SerializeToString()
        n, var = len(body), b""
        while True:
            b = n & 0x7f
            n >>= 7
            var += bytes([b | (0x80 if n else 0)])
            if not n:
                break
        raw += bytes([(11 << 3) | 2]) + var + body
    out = type(fn)()
    out.ParseFromString(raw)
    return out


def fn(name, ins, outs, nodes, attrs=(), opset=13, defaults=()):
    f = helper.make_function(DOM, name, ins, outs, nodes,
                             [helper.make_opsetid("", opset), helper.make_opsetid(DOM, 1)],
                             list(attrs))
    return with_defaults(f, defaults) if defaults else f


def fmodel(nodes, inputs, outputs, functions, opset=13):
    g = helper.make_graph(nodes, "g", inputs, outputs)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset),
                                            helper.make_opsetid(DOM, 1)],
                          producer_name="tests/driver", functions=functions)
    m.ir_version = 8
    return m


def leaky(x, a):
    return np.where(x >= 0, x, x * np.float32(a)).astype(np.float32)


# f(a, b) = (a + b) * a
ADDMUL = fn("AddMul", ["a", "b"], ["y"],
            [N("Add", ["a", "b"], ["t"], name="add"), N("Mul", ["t", "a"], ["y"], name="mul")])
# g(x) = LeakyRelu(x, alpha=@alpha), default 0.25 in attribute_proto
SCALE = fn("Scale", ["x"], ["y"],
           [node_with("LeakyRelu", ["x"], ["y"], [ref("alpha", "alpha", AttributeProto.FLOAT)],
                      name="lrelu")],
           defaults=[helper.make_attribute("alpha", 0.25)])
# h(x): alpha referenced, no default: LeakyRelu's own 0.01
NODEF = fn("NoDefault", ["x"], ["y"],
           [node_with("LeakyRelu", ["x"], ["y"], [ref("alpha", "alpha", AttributeProto.FLOAT)])],
           attrs=["alpha"])
# outer(a, b) = Scale(AddMul(a, b), alpha=@k) - AddMul(b, a), a nested call chain
OUTER = fn("Outer", ["a", "b"], ["y"],
           [N("AddMul", ["a", "b"], ["p"], domain=DOM, name="first"),
            node_with("Scale", ["p"], ["q"], [ref("alpha", "k", AttributeProto.FLOAT)],
                      domain=DOM, name="scaled"),
            N("AddMul", ["b", "a"], ["r"], domain=DOM, name="second"),
            N("Sub", ["q", "r"], ["y"], name="sub")], attrs=["k"])
# opset 11: ReduceSum takes axes as an attribute (the model itself is opset 13)
RSUM11 = fn("RowSum", ["x"], ["y"],
            [N("ReduceSum", ["x"], ["y"], axes=[1], keepdims=0, name="rs")], opset=11)
# returns its input unchanged as a second output
PASS2 = fn("PassBoth", ["x"], ["y", "x"], [N("Neg", ["x"], ["y"])])
# Clip with an omitted optional input (min) forwarded from the call
CLIPFN = fn("ClipFn", ["x", "lo", "hi"], ["y"], [N("Clip", ["x", "lo", "hi"], ["y"])])


def cases(r):
    a = r.standard_normal((2, 3)).astype(np.float32)
    b = r.standard_normal((2, 3)).astype(np.float32)
    hi = np.array(0.5, np.float32)
    addmul = lambda u, v: ((u + v) * u).astype(np.float32)
    return [
        ("twice",
         fmodel([N("AddMul", ["a", "b"], ["p"], domain=DOM, name="c1"),
                 N("AddMul", ["p", "b"], ["y"], domain=DOM, name="c2")],
                [vi("a", T.FLOAT, [2, 3]), vi("b", T.FLOAT, [2, 3])],
                [vi("y", T.FLOAT, [2, 3])], [ADDMUL]),
         [a, b], [addmul(addmul(a, b), b)]),
        ("attr_ref",
         fmodel([N("Scale", ["a"], ["y1"], domain=DOM, alpha=0.5, name="given"),
                 N("Scale", ["a"], ["y2"], domain=DOM, name="defaulted"),
                 N("NoDefault", ["a"], ["y3"], domain=DOM, name="opdefault")],
                [vi("a", T.FLOAT, [2, 3])],
                [vi("y1", T.FLOAT, [2, 3]), vi("y2", T.FLOAT, [2, 3]), vi("y3", T.FLOAT, [2, 3])],
                [SCALE, NODEF]),
         [a], [leaky(a, 0.5), leaky(a, 0.25), leaky(a, 0.01)]),
        ("nested",
         fmodel([N("Outer", ["a", "b"], ["y"], domain=DOM, k=0.125, name="outer")],
                [vi("a", T.FLOAT, [2, 3]), vi("b", T.FLOAT, [2, 3])],
                [vi("y", T.FLOAT, [2, 3])], [OUTER, SCALE, ADDMUL]),
         [a, b], [(leaky(addmul(a, b), 0.125) - addmul(b, a)).astype(np.float32)]),
        ("old_opset",
         fmodel([N("RowSum", ["a"], ["y"], domain=DOM, name="rows"),
                 N("ReduceSum", ["a", "ax"], ["z"], keepdims=0, name="cols")],
                [vi("a", T.FLOAT, [2, 3]), vi("ax", T.INT64, [1])],
                [vi("y", T.FLOAT, [2]), vi("z", T.FLOAT, [3])], [RSUM11]),
         [a, np.array([0], np.int64)], [a.sum(axis=1), a.sum(axis=0)]),
        ("passthru",
         fmodel([N("PassBoth", ["a"], ["y", "x2"], domain=DOM, name="pb"),
                 N("Relu", ["x2"], ["z"], name="relu")],
                [vi("a", T.FLOAT, [2, 3])], [vi("y", T.FLOAT, [2, 3]), vi("z", T.FLOAT, [2, 3])],
                [PASS2]),
         [a], [-a, np.maximum(a, 0)]),
        ("omitted",
         fmodel([N("ClipFn", ["a", "", "hi"], ["y"], domain=DOM, name="clip")],
                [vi("a", T.FLOAT, [2, 3]), vi("hi", T.FLOAT, [])], [vi("y", T.FLOAT, [2, 3])],
                [CLIPFN]),
         [a, hi], [np.minimum(a, hi)]),
        ("in_branch",
         fmodel([N("If", ["c"], ["y"], name="if",
                   then_branch=helper.make_graph(
                       [N("AddMul", ["a", "b"], ["t"], domain=DOM, name="inthen")], "then", [],
                       [vi("t", T.FLOAT, [2, 3])]),
                   else_branch=helper.make_graph(
                       [N("Sub", ["a", "b"], ["e"], name="inelse")], "else", [],
                       [vi("e", T.FLOAT, [2, 3])]))],
                [vi("c", T.BOOL, []), vi("a", T.FLOAT, [2, 3]), vi("b", T.FLOAT, [2, 3])],
                [vi("y", T.FLOAT, [2, 3])], [ADDMUL]),
         [np.array(True), a, b], [addmul(a, b)]),
    ]


def bad_cases():
    x = [vi("a", T.FLOAT, [2])]
    y = [vi("y", T.FLOAT, [2])]
    loop = fn("Loop1", ["x"], ["y"], [N("Loop2", ["x"], ["y"], domain=DOM, name="l")])
    loop2 = fn("Loop2", ["x"], ["y"], [N("Loop1", ["x"], ["y"], domain=DOM, name="l")])
    return [
        ("unknown_domain", fmodel([N("AddMul", ["a", "a"], ["y"], domain="other.dom", name="call7")],
                                  x, y, [ADDMUL]),
         ["call7", "AddMul", "other.dom"]),
        ("unknown_op", fmodel([N("Nope", ["a"], ["y"], domain=DOM, name="call8")], x, y, [ADDMUL]),
         ["call8", "Nope"]),
        ("recursive", fmodel([N("Loop1", ["a"], ["y"], domain=DOM, name="rec")], x, y, [loop, loop2]),
         ["rec", "recursive"]),
        ("bad_attr", fmodel([N("AddMul", ["a", "a"], ["y"], domain=DOM, beta=1.0, name="c9")],
                            x, y, [ADDMUL]),
         ["c9", "attribute 'beta'", "no attribute 'beta'"]),
        ("unsupported_inside", fmodel([N("Weird", ["a"], ["y"], domain=DOM, name="w")], x, y,
                                      [fn("Weird", ["x"], ["y"], [N("NoSuchOpInAnyOpset", ["x"], ["y"])])]),
         ["w/NoSuchOpInAnyOpset_0", "NoSuchOpInAnyOpset"]),
    ]


def test(ingot, work):
    r = np.random.default_rng(7)
    check_all_pass(ingot, [write_test_dir(work, *c) for c in cases(r)])
    for name, m, needles in bad_cases():
        p = save(m, os.path.join(work, name + ".onnx"))
        rc, out, err = run([ingot, "compile", p, "-o", os.path.join(work, "o_" + name)])
        check(rc in (1, 3), "%s: exit %d, expected 1 or 3\n%s" % (name, rc, err))
        errs = stderr_lines(err)
        check(len(errs) >= 1, "%s: no error line:\n%s" % (name, err))
        line = errs[0]
        check(line.startswith(p), "%s: error does not name the file: %s" % (name, line))
        for needle in needles:
            check(needle in line, "%s: %r not in the error: %s" % (name, needle, line))


if __name__ == "__main__":
    main(test)
