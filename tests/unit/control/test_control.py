#!/usr/bin/python3
"""Control flow end to end (suite unit): If, Loop and Scan models built with onnx +
numpy, compiled by `ingot compile --emit exe`, run through the generated runner and
compared with numpy references. Covers outer-scope references, data-dependent If
conditions (both branches compiled and run), If outputs whose shape depends on the
branch, constant conditions (inlined), Loops with run-time trip counts and
conditions, scan outputs with a dynamic length, nested control flow, Scan-8 with a
batch and Scan-9+ with axes and directions, unrolled Loops, and the diagnostics for
what is not supported.
    test_control.py INGOT WORKDIR
"""
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto as TP
from onnx import helper as oh
from onnx import numpy_helper as nh

TIMEOUT = 240
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def run(argv, **kw):
    r = subprocess.run(argv, capture_output=True, timeout=TIMEOUT, **kw)
    out = r.stdout.decode("utf-8", "replace") + r.stderr.decode("utf-8", "replace")
    if r.returncode < 0:
        raise RuntimeError("crashed: %s\n%s" % (" ".join(argv), out))
    return r.returncode, out


def vi(name, dt, shape):
    return oh.make_tensor_value_info(name, dt, shape)


def const(name, arr):
    return oh.make_node("Constant", [], [name], value=nh.from_array(np.asarray(arr), name))


def model(nodes, inputs, outputs, inits=(), opset=16, name="g"):
    g = oh.make_graph(nodes, name, inputs, outputs, list(inits))
    m = oh.make_model(g, opset_imports=[oh.make_opsetid("", opset)])
    m.ir_version = 8
    return m


class Case:
    def __init__(self, ingot, work, name, m, extra=()):
        self.ingot, self.name = ingot, name
        self.dir = os.path.join(work, name)
        os.makedirs(self.dir)
        self.path = os.path.join(self.dir, "model.onnx")
        onnx.save(m, self.path)
        self.out = os.path.join(self.dir, "out")
        self.rc, self.log = run([ingot, "compile", self.path, "-o", self.out, "--name", "m",
                                 "--emit", "exe", "--dump-ir", os.path.join(self.dir, "ir.txt")]
                                + list(extra))
        if self.rc == 0:
            rc, log = run(["make", "-C", self.out])
            if rc != 0:
                self.rc, self.log = 99, log
        self.n_run = 0

    def ok(self):
        if self.rc != 0:
            fail("%s: compile/build failed (%d): %s" % (self.name, self.rc, self.log[-2000:]))
        return self.rc == 0

    def ir(self):
        with open(os.path.join(self.dir, "ir.txt")) as f:
            return f.read()

    def run(self, *inputs):
        d = os.path.join(self.dir, "run%d" % self.n_run)
        self.n_run += 1
        os.makedirs(d)
        argv = [os.path.join(self.out, "m")]
        for i, a in enumerate(inputs):
            p = os.path.join(d, "input_%d.pb" % i)
            with open(p, "wb") as f:
                f.write(nh.from_array(np.asarray(a)).SerializeToString())
            argv += ["--input", p]
        rc, log = run(argv + ["--output-dir", d])
        if rc != 0:
            fail("%s: run failed (%d): %s" % (self.name, rc, log[-2000:]))
            return None
        outs, i = [], 0
        while os.path.exists(os.path.join(d, "output_%d.pb" % i)):
            t = onnx.TensorProto()
            with open(os.path.join(d, "output_%d.pb" % i), "rb") as f:
                t.ParseFromString(f.read())
            outs.append(nh.to_array(t))
            i += 1
        return outs

    def expect(self, inputs, refs, what=""):
        got = self.run(*inputs)
        if got is None:
            return
        if len(got) != len(refs):
            fail("%s%s: %d outputs, expected %d" % (self.name, what, len(got), len(refs)))
            return
        for k, (a, b) in enumerate(zip(got, refs)):
            b = np.asarray(b)
            if a.dtype != b.dtype or a.shape != b.shape:
                fail("%s%s: output %d is %s%s, expected %s%s" % (self.name, what, k, a.dtype,
                     list(a.shape), b.dtype, list(b.shape)))
            elif not np.allclose(a, b, rtol=1e-5, atol=1e-6):
                fail("%s%s: output %d differs:\n%s\nexpected\n%s" % (self.name, what, k, a, b))


# ---- If ----

def if_runtime(ingot, work):
    """cond = sum(x) > 0 computed at run time; the branches read x and an initializer
    of the main graph (outer scope)."""
    w = np.array([1.5, -2.0, 3.0], np.float32)
    then_g = oh.make_graph([oh.make_node("Mul", ["x", "w"], ["t"])], "then", [],
                           [vi("t", TP.FLOAT, [3])])
    else_g = oh.make_graph([oh.make_node("Sub", ["x", "w"], ["e0"]),
                            oh.make_node("Abs", ["e0"], ["e"])], "else", [],
                           [vi("e", TP.FLOAT, [3])])
    nodes = [oh.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
             const("zero", np.float32(0)),
             oh.make_node("Greater", ["s", "zero"], ["c"]),
             oh.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)]
    m = model(nodes, [vi("x", TP.FLOAT, [3])], [vi("y", TP.FLOAT, [3])],
              [nh.from_array(w, "w")], opset=13)
    c = Case(ingot, work, "if_runtime", m)
    if not c.ok():
        return
    if "region \"If_3.then_branch\"" not in c.ir() or "region \"If_3.else_branch\"" not in c.ir():
        fail("if_runtime: the IR dump does not show both branches as regions")
    for x in (np.array([1, 2, 3], np.float32), np.array([-1, -2, 0.5], np.float32)):
        ref = x * w if x.sum() > 0 else np.abs(x - w)
        c.expect([x], [ref], " (x=%s)" % x)


def if_dynamic(ingot, work):
    """The branches give [2,3] and [2,5]: the output is dynamic, bounded by [2,5]."""
    then_g = oh.make_graph([oh.make_node("Relu", ["a"], ["t"])], "then", [],
                           [vi("t", TP.FLOAT, [2, 3])])
    else_g = oh.make_graph([oh.make_node("Neg", ["b"], ["e"])], "else", [],
                           [vi("e", TP.FLOAT, [2, 5])])
    m = model([oh.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)],
              [vi("c", TP.BOOL, []), vi("a", TP.FLOAT, [2, 3]), vi("b", TP.FLOAT, [2, 5])],
              [vi("y", TP.FLOAT, None)])
    c = Case(ingot, work, "if_dynamic", m)
    if not c.ok():
        return
    a = np.arange(-3, 3, dtype=np.float32).reshape(2, 3)
    b = np.arange(10, dtype=np.float32).reshape(2, 5)
    c.expect([np.array(True), a, b], [np.maximum(a, 0)], " (then)")
    c.expect([np.array(False), a, b], [-b], " (else)")


def if_const(ingot, work):
    """A constant condition inlines the chosen branch; the If disappears."""
    then_g = oh.make_graph([oh.make_node("Add", ["x", "x"], ["t"])], "then", [],
                           [vi("t", TP.FLOAT, [4])])
    else_g = oh.make_graph([oh.make_node("Mul", ["x", "x"], ["e"])], "else", [],
                           [vi("e", TP.FLOAT, [4])])
    m = model([oh.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g),
               oh.make_node("Neg", ["y"], ["z"])],
              [vi("x", TP.FLOAT, [4])], [vi("z", TP.FLOAT, [4])],
              [nh.from_array(np.array(False), "c")])
    c = Case(ingot, work, "if_const", m)
    if not c.ok():
        return
    if " If(" in c.ir() or "region" in c.ir():
        fail("if_const: the If was not inlined:\n" + c.ir())
    x = np.array([1, -2, 3, 0.5], np.float32)
    c.expect([x], [-(x * x)])


# ---- Loop ----

def loop_runtime(ingot, work):
    """M and the initial condition are run-time inputs; the body stops when the sum
    reaches a limit (an outer value). Two carried values, no scan outputs."""
    body = oh.make_graph(
        [oh.make_node("Cast", ["i"], ["fi"], to=TP.FLOAT),
         oh.make_node("Add", ["acc_in", "fi"], ["acc_out"]),
         oh.make_node("Add", ["n_in", "one"], ["n_out"]),
         oh.make_node("Less", ["acc_out", "limit"], ["cond_out"])],
        "body", [vi("i", TP.INT64, []), vi("cond_in", TP.BOOL, []),
                 vi("acc_in", TP.FLOAT, [1]), vi("n_in", TP.INT64, [])],
        [vi("cond_out", TP.BOOL, []), vi("acc_out", TP.FLOAT, [1]), vi("n_out", TP.INT64, [])])
    m = model([const("one", np.int64(1)),
               oh.make_node("Loop", ["M", "c", "acc0", "n0"], ["acc", "n"], body=body)],
              [vi("M", TP.INT64, []), vi("c", TP.BOOL, []), vi("acc0", TP.FLOAT, [1]),
               vi("n0", TP.INT64, []), vi("limit", TP.FLOAT, [])],
              [vi("acc", TP.FLOAT, [1]), vi("n", TP.INT64, [])])
    c = Case(ingot, work, "loop_runtime", m)
    if not c.ok():
        return
    for M, cond, acc0, limit in ((10, True, 0.5, 1e9), (10, True, 0.0, 7.0), (3, False, 2.0, 1e9),
                                 (0, True, 1.0, 1e9), (-4, True, 1.0, 1e9)):
        acc, n, i, cnd = np.float32(acc0), 0, 0, cond
        while i < M and cnd:
            acc = np.float32(acc + i)
            n += 1
            cnd = acc < limit
            i += 1
        c.expect([np.array(M, np.int64), np.array(cond), np.array([acc0], np.float32),
                  np.array(0, np.int64), np.array(limit, np.float32)],
                 [np.array([acc], np.float32), np.array(n, np.int64)],
                 " (M=%d cond=%s limit=%g)" % (M, cond, limit))


def loop_scan(ingot, work, name, stop_early):
    """M is an initializer; scan outputs collect each iteration's carried value and a
    product with an outer value. With stop_early the body's condition can end the
    loop before M: the scan outputs are dynamic with M as the bound."""
    nodes = [oh.make_node("Add", ["y_in", "x"], ["y_out"]),
             oh.make_node("Mul", ["y_out", "w"], ["s1"]),
             oh.make_node("Identity", ["y_out"], ["s0"])]
    if stop_early:
        nodes += [oh.make_node("ReduceSum", ["y_out"], ["tot"], keepdims=0),
                  oh.make_node("Less", ["tot", "lim"], ["cond_out"])]
    else:
        nodes += [oh.make_node("Identity", ["cond_in"], ["cond_out"])]
    body = oh.make_graph(nodes, "body",
                         [vi("i", TP.INT64, []), vi("cond_in", TP.BOOL, []),
                          vi("y_in", TP.FLOAT, [2])],
                         [vi("cond_out", TP.BOOL, []), vi("y_out", TP.FLOAT, [2]),
                          vi("s0", TP.FLOAT, [2]), vi("s1", TP.FLOAT, [2])])
    w = np.array([2.0, -1.0], np.float32)
    m = model([oh.make_node("Loop", ["M", "", "y0"], ["y", "sc0", "sc1"], body=body)],
              [vi("y0", TP.FLOAT, [2]), vi("x", TP.FLOAT, [2]), vi("lim", TP.FLOAT, [])],
              [vi("y", TP.FLOAT, [2]), vi("sc0", TP.FLOAT, None), vi("sc1", TP.FLOAT, None)],
              [nh.from_array(np.array(6, np.int64), "M"), nh.from_array(w, "w")], opset=13)
    if stop_early:   # the condition input must be there for the body's to count
        m.graph.node[0].input[1] = "c"
        m.graph.initializer.append(nh.from_array(np.array(True), "c"))
    c = Case(ingot, work, name, m)
    if not c.ok():
        return
    for lim in (1e9, 9.0):
        y0 = np.array([1, 0.5], np.float32)
        x = np.array([0.5, 1], np.float32)
        ys, y = [], y0
        for i in range(6):
            y = y + x
            ys.append(y)
            if stop_early and not y.sum() < lim:
                break
        c.expect([y0, x, np.array(lim, np.float32)],
                 [y, np.array(ys), np.array(ys) * w], " (lim=%g)" % lim)


def loop_unroll(ingot, work):
    """loop11-like: the body slices an outer constant with the iteration number (a
    compile-time input of Slice) and grows a carried tensor: unrolled."""
    table = np.arange(1, 9, dtype=np.float32)
    body = oh.make_graph(
        [const("one", np.int64(1)), const("ax", np.array([0], np.int64)),
         oh.make_node("Add", ["i", "one"], ["end"]),
         oh.make_node("Unsqueeze", ["i", "ax"], ["st"]),
         oh.make_node("Unsqueeze", ["end", "ax"], ["en"]),
         oh.make_node("Slice", ["table", "st", "en"], ["v"]),
         oh.make_node("Add", ["acc_in", "v"], ["acc_out"]),
         oh.make_node("Concat", ["grow_in", "acc_out"], ["grow_out"], axis=0),
         oh.make_node("Identity", ["cond_in"], ["cond_out"]),
         oh.make_node("Identity", ["acc_out"], ["scan"])],
        "body", [vi("i", TP.INT64, []), vi("cond_in", TP.BOOL, []),
                 vi("acc_in", TP.FLOAT, [1]), vi("grow_in", TP.FLOAT, None)],
        [vi("cond_out", TP.BOOL, []), vi("acc_out", TP.FLOAT, [1]),
         vi("grow_out", TP.FLOAT, None), vi("scan", TP.FLOAT, [1])])
    m = model([oh.make_node("Loop", ["M", "c", "acc0", "g0"], ["acc", "grow", "scan"], body=body)],
              [vi("M", TP.INT64, []), vi("c", TP.BOOL, []), vi("acc0", TP.FLOAT, [1]),
               vi("g0", TP.FLOAT, [1])],
              [vi("acc", TP.FLOAT, [1]), vi("grow", TP.FLOAT, None), vi("scan", TP.FLOAT, None)],
              [nh.from_array(table, "table")], opset=13)
    c = Case(ingot, work, "loop_unroll", m, ["--bind", "M=5", "--bind", "c=1"])
    if not c.ok():
        return
    if " Loop(" in c.ir():
        fail("loop_unroll: the Loop was not unrolled")
    acc, grow, scan = np.float32(-2), [np.float32(7)], []
    for i in range(5):
        acc = np.float32(acc + table[i])
        grow.append(acc)
        scan.append([acc])
    c.expect([np.array([-2], np.float32), np.array([7], np.float32)],
             [np.array([acc], np.float32), np.array(grow, np.float32), np.array(scan, np.float32)])


def nested(ingot, work):
    """A Loop whose body holds an If on the parity of the iteration number (data-
    dependent per iteration), inside the then branch of an outer If on an input."""
    even = oh.make_graph([oh.make_node("Add", ["a_in", "x"], ["r0"])], "even", [],
                         [vi("r0", TP.FLOAT, [3])])
    odd = oh.make_graph([oh.make_node("Mul", ["a_in", "x"], ["r1"])], "odd", [],
                        [vi("r1", TP.FLOAT, [3])])
    body = oh.make_graph(
        [const("two", np.int64(2)), const("z", np.int64(0)),
         oh.make_node("Mod", ["i", "two"], ["par"]),
         oh.make_node("Equal", ["par", "z"], ["is_even"]),
         oh.make_node("If", ["is_even"], ["a_out"], then_branch=even, else_branch=odd),
         oh.make_node("Identity", ["cond_in"], ["cond_out"])],
        "body", [vi("i", TP.INT64, []), vi("cond_in", TP.BOOL, []), vi("a_in", TP.FLOAT, [3])],
        [vi("cond_out", TP.BOOL, []), vi("a_out", TP.FLOAT, [3])])
    then_g = oh.make_graph([oh.make_node("Loop", ["n", "", "x"], ["t"], body=body)], "then", [],
                           [vi("t", TP.FLOAT, [3])])
    else_g = oh.make_graph([oh.make_node("Identity", ["x"], ["e"])], "else", [],
                           [vi("e", TP.FLOAT, [3])])
    m = model([oh.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)],
              [vi("c", TP.BOOL, []), vi("x", TP.FLOAT, [3]), vi("n", TP.INT64, [])],
              [vi("y", TP.FLOAT, [3])], opset=13)
    c = Case(ingot, work, "nested", m)
    if not c.ok():
        return
    x = np.array([1.5, -1, 2], np.float32)
    for cond, n in ((True, 5), (True, 0), (False, 3)):
        a = x.copy()
        if cond:
            for i in range(n):
                a = a + x if i % 2 == 0 else a * x
        c.expect([np.array(cond), x, np.array(n, np.int64)], [a], " (c=%s n=%d)" % (cond, n))


def omitted(ingot, work):
    """Omitted outputs: a Loop's final carried value and one of its scan outputs, an
    If's first output; the bodies still compute them (into the node's buffers).
    Also compiled at -O0, which must agree."""
    body = oh.make_graph(
        [oh.make_node("Identity", ["cond_in"], ["cond_out"]),
         oh.make_node("Add", ["y_in", "x"], ["y_out"]),
         oh.make_node("Mul", ["y_out", "y_out"], ["sq"]),
         oh.make_node("Neg", ["y_out"], ["ng"])],
        "body", [vi("i", TP.INT64, []), vi("cond_in", TP.BOOL, []), vi("y_in", TP.FLOAT, [2])],
        [vi("cond_out", TP.BOOL, []), vi("y_out", TP.FLOAT, [2]), vi("sq", TP.FLOAT, [2]),
         vi("ng", TP.FLOAT, [2])])
    then_g = oh.make_graph([oh.make_node("Abs", ["x"], ["t0"]), oh.make_node("Neg", ["x"], ["t1"])],
                           "then", [], [vi("t0", TP.FLOAT, [2]), vi("t1", TP.FLOAT, [2])])
    else_g = oh.make_graph([oh.make_node("Relu", ["x"], ["e0"]), oh.make_node("Sqrt", ["x"], ["e1"])],
                           "else", [], [vi("e0", TP.FLOAT, [2]), vi("e1", TP.FLOAT, [2])])
    m = model([oh.make_node("Loop", ["M", "", "y0"], ["", "", "ng_all"], body=body),
               oh.make_node("If", ["c"], ["", "z"], then_branch=then_g, else_branch=else_g)],
              [vi("y0", TP.FLOAT, [2]), vi("x", TP.FLOAT, [2]), vi("c", TP.BOOL, [])],
              [vi("ng_all", TP.FLOAT, [3, 2]), vi("z", TP.FLOAT, [2])],
              [nh.from_array(np.array(3, np.int64), "M")], opset=13)
    x = np.array([4, 0.25], np.float32)
    y0 = np.array([1, 2], np.float32)
    ys = [y0 + x * (k + 1) for k in range(3)]
    for opt in ("-O2", "-O0"):
        c = Case(ingot, work, "omitted" + opt, m, [opt])
        if not c.ok():
            return
        for cond in (True, False):
            c.expect([y0, x, np.array(cond)], [-np.array(ys), -x if cond else np.sqrt(x)],
                     " (%s c=%s)" % (opt, cond))


# ---- Scan ----

def scan9(ingot, work):
    """Two scan inputs along axis 1 (one reversed), a state, an outer value, scan
    outputs along axis 1 (one reversed) and axis 0."""
    body = oh.make_graph(
        [oh.make_node("Add", ["s_in", "a"], ["t0"]),
         oh.make_node("Mul", ["t0", "b"], ["t1"]),
         oh.make_node("Add", ["t1", "k"], ["s_out"]),
         oh.make_node("Identity", ["s_out"], ["o0"]),
         oh.make_node("Sub", ["a", "b"], ["o1"])],
        "body", [vi("s_in", TP.FLOAT, [2]), vi("a", TP.FLOAT, [2]), vi("b", TP.FLOAT, [2])],
        [vi("s_out", TP.FLOAT, [2]), vi("o0", TP.FLOAT, [2]), vi("o1", TP.FLOAT, [2])])
    k = np.array([0.25, -0.5], np.float32)
    m = model([oh.make_node("Scan", ["s0", "A", "B"], ["s", "O0", "O1"], body=body,
                            num_scan_inputs=2, scan_input_axes=[1, -1],
                            scan_input_directions=[0, 1], scan_output_axes=[1, 0],
                            scan_output_directions=[1, 0])],
              [vi("s0", TP.FLOAT, [2]), vi("A", TP.FLOAT, [2, 4]), vi("B", TP.FLOAT, [2, 4])],
              [vi("s", TP.FLOAT, [2]), vi("O0", TP.FLOAT, [2, 4]), vi("O1", TP.FLOAT, [4, 2])],
              [nh.from_array(k, "k")], opset=16)
    c = Case(ingot, work, "scan9", m)
    if not c.ok():
        return
    rng = np.random.RandomState(3)
    s0 = rng.randn(2).astype(np.float32)
    A = rng.randn(2, 4).astype(np.float32)
    B = rng.randn(2, 4).astype(np.float32)
    s, O0, O1 = s0, np.zeros((2, 4), np.float32), np.zeros((4, 2), np.float32)
    for t in range(4):
        a, b = A[:, t], B[:, 3 - t]
        s = (s + a) * b + k
        O0[:, 3 - t] = s
        O1[t] = a - b
    c.expect([s0, A, B], [s, O0, O1])


def scan8(ingot, work):
    """Scan-8: a batch of 2, sequence_lens omitted, one reversed scan input."""
    body = oh.make_graph([oh.make_node("Add", ["s_in", "x"], ["s_out"]),
                          oh.make_node("Mul", ["s_out", "x"], ["o"])],
                         "body", [vi("s_in", TP.FLOAT, [3]), vi("x", TP.FLOAT, [3])],
                         [vi("s_out", TP.FLOAT, [3]), vi("o", TP.FLOAT, [3])])
    m = model([oh.make_node("Scan", ["", "s0", "X"], ["s", "O"], body=body, num_scan_inputs=1,
                            directions=[1])],
              [vi("s0", TP.FLOAT, [2, 3]), vi("X", TP.FLOAT, [2, 4, 3])],
              [vi("s", TP.FLOAT, [2, 3]), vi("O", TP.FLOAT, [2, 4, 3])], opset=8)
    m.ir_version = 3
    c = Case(ingot, work, "scan8", m)
    if not c.ok():
        return
    rng = np.random.RandomState(5)
    s0 = rng.randn(2, 3).astype(np.float32)
    X = rng.randn(2, 4, 3).astype(np.float32)
    s, O = s0.copy(), np.zeros((2, 4, 3), np.float32)
    for b in range(2):
        for t in range(4):
            x = X[b, 3 - t]
            s[b] = s[b] + x
            O[b, t] = s[b] * x
    c.expect([s0, X], [s, O])


# ---- diagnostics ----

def errors(ingot, work):
    def expect_error(name, m, code, text, extra=()):
        d = os.path.join(work, name)
        os.makedirs(d)
        p = os.path.join(d, "model.onnx")
        onnx.save(m, p)
        rc, log = run([ingot, "compile", p, "-o", os.path.join(d, "out")] + list(extra))
        if rc != code or text not in log:
            fail("%s: expected exit %d with '%s', got %d: %s" % (name, code, text, rc, log[-1500:]))

    body = oh.make_graph([oh.make_node("Identity", ["c_in"], ["c_out"]),
                          oh.make_node("Identity", ["y_in"], ["y_out"]),
                          oh.make_node("Identity", ["y_in"], ["sc"])],
                         "body", [vi("i", TP.INT64, []), vi("c_in", TP.BOOL, []),
                                  vi("y_in", TP.FLOAT, [2])],
                         [vi("c_out", TP.BOOL, []), vi("y_out", TP.FLOAT, [2]),
                          vi("sc", TP.FLOAT, [2])])
    m = model([oh.make_node("Loop", ["M", "", "y0"], ["y", "s"], body=body)],
              [vi("M", TP.INT64, []), vi("y0", TP.FLOAT, [2])],
              [vi("y", TP.FLOAT, [2]), vi("s", TP.FLOAT, None)])
    expect_error("err_loop_runtime_m", m, 1, "--bind M=")

    grow = oh.make_graph([oh.make_node("Identity", ["c_in"], ["c_out"]),
                          oh.make_node("Concat", ["y_in", "y_in"], ["y_out"], axis=0)],
                         "body", [vi("i", TP.INT64, []), vi("c_in", TP.BOOL, []),
                                  vi("y_in", TP.FLOAT, None)],
                         [vi("c_out", TP.BOOL, []), vi("y_out", TP.FLOAT, None)])
    m = model([oh.make_node("Loop", ["M", "", "y0"], ["y"], body=grow)],
              [vi("M", TP.INT64, []), vi("y0", TP.FLOAT, [2])], [vi("y", TP.FLOAT, None)])
    expect_error("err_loop_grow", m, 3, "changes shape across iterations")

    then_g = oh.make_graph([const("t", np.zeros((2, 2), np.float32))], "then", [],
                           [vi("t", TP.FLOAT, [2, 2])])
    else_g = oh.make_graph([const("e", np.zeros(3, np.float32))], "else", [],
                           [vi("e", TP.FLOAT, [3])])
    m = model([oh.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)],
              [vi("c", TP.BOOL, [])], [vi("y", TP.FLOAT, None)])
    expect_error("err_if_ranks", m, 3, "different ranks")

    then_g = oh.make_graph([const("t", np.zeros(2, np.float32))], "then", [],
                           [vi("t", TP.FLOAT, [2])])
    else_g = oh.make_graph([const("e", np.zeros(2, np.int32))], "else", [],
                           [vi("e", TP.INT32, [2])])
    m = model([oh.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)],
              [vi("c", TP.BOOL, [])], [vi("y", TP.FLOAT, None)])
    expect_error("err_if_dtypes", m, 1, "in the else branch")

    bad = oh.make_graph([oh.make_node("Identity", ["x"], ["t"])], "then", [],
                        [vi("t", TP.FLOAT, [2])])
    bad2 = oh.make_graph([oh.make_node("Identity", ["undefined_name"], ["e"])], "else", [],
                         [vi("e", TP.FLOAT, [2])])
    m = model([oh.make_node("If", ["c"], ["y"], then_branch=bad, else_branch=bad2)],
              [vi("c", TP.BOOL, []), vi("x", TP.FLOAT, [2])], [vi("y", TP.FLOAT, [2])])
    expect_error("err_undefined_in_body", m, 1, "undefined_name")

    lb = oh.make_graph([oh.make_node("Identity", ["c_in"], ["c_out"]),
                        const("extra", np.zeros(2, np.float32))], "body",
                       [vi("i", TP.INT64, []), vi("c_in", TP.BOOL, [])],
                       [vi("c_out", TP.BOOL, []), vi("extra", TP.FLOAT, [2])])
    m = model([oh.make_node("Loop", ["M", "", "y0"], ["y"], body=lb)],
              [vi("M", TP.INT64, []), vi("y0", TP.FLOAT, [2])], [vi("y", TP.FLOAT, [2])])
    expect_error("err_loop_body_arity", m, 1, "the body has 2 inputs, expected 3")

    sb = oh.make_graph([oh.make_node("Identity", ["a"], ["b"])], "body",
                       [vi("a", TP.FLOAT, [2])], [vi("b", TP.FLOAT, [2])])
    m = model([oh.make_node("Scan", ["x"], ["y"], body=sb, num_scan_inputs=3)],
              [vi("x", TP.FLOAT, [3, 2])], [vi("y", TP.FLOAT, [3, 2])])
    expect_error("err_scan_num_inputs", m, 1, "num_scan_inputs is 3")
    m = model([oh.make_node("Scan", ["x"], ["y"], body=sb, num_scan_inputs=1,
                            scan_input_axes=[2])],
              [vi("x", TP.FLOAT, [3, 2])], [vi("y", TP.FLOAT, [3, 2])])
    expect_error("err_scan_axis", m, 1, "axis 2 out of range")

    ib = oh.make_graph([oh.make_node("Identity", ["a"], ["b"])], "then", [vi("a", TP.FLOAT, [2])],
                       [vi("b", TP.FLOAT, [2])])
    m = model([oh.make_node("If", ["c"], ["y"], then_branch=ib, else_branch=ib)],
              [vi("c", TP.BOOL, [])], [vi("y", TP.FLOAT, [2])])
    expect_error("err_if_branch_inputs", m, 1, "a branch takes no inputs")
    m = model([oh.make_node("If", ["c"], ["y"], then_branch=bad)],
              [vi("c", TP.BOOL, []), vi("x", TP.FLOAT, [2])], [vi("y", TP.FLOAT, [2])])
    expect_error("err_if_no_else", m, 1, "else_branch")

    # an op no opset defines, so it stays unsupported (TensorScatter, used here before,
    # became an op of ingot's at opset 24)
    rnd = oh.make_graph([oh.make_node("NoSuchOpInAnyOpset", ["x"], ["t"])], "then", [],
                        [vi("t", TP.FLOAT, [2])])
    m = model([oh.make_node("If", ["c"], ["y"], then_branch=rnd, else_branch=bad)],
              [vi("c", TP.BOOL, []), vi("x", TP.FLOAT, [2])], [vi("y", TP.FLOAT, [2])])
    expect_error("err_unsupported_in_body", m, 3, "If_0.then_branch")


def check_suite(ingot, work):
    """`ingot check` on a generated backend-test directory (binds M and cond)."""
    d = os.path.join(work, "check_loop")
    os.makedirs(os.path.join(d, "test_data_set_0"))
    body = oh.make_graph([oh.make_node("Identity", ["c_in"], ["c_out"]),
                          oh.make_node("Cast", ["i"], ["i_f"], to=TP.FLOAT),
                          oh.make_node("Add", ["y_in", "i_f"], ["y_out"])],
                         "body", [vi("i", TP.INT64, []), vi("c_in", TP.BOOL, []),
                                  vi("y_in", TP.FLOAT, [])],
                         [vi("c_out", TP.BOOL, []), vi("y_out", TP.FLOAT, [])])
    m = model([oh.make_node("Loop", ["M", "c", "y0"], ["y"], body=body)],
              [vi("M", TP.INT64, []), vi("c", TP.BOOL, []), vi("y0", TP.FLOAT, [])],
              [vi("y", TP.FLOAT, [])])
    onnx.save(m, os.path.join(d, "model.onnx"))
    for i, (n, a) in enumerate((("M", np.array(4, np.int64)), ("c", np.array(True)),
                                ("y0", np.array(1.0, np.float32)))):
        onnx.save_tensor(nh.from_array(a, n), os.path.join(d, "test_data_set_0", "input_%d.pb" % i))
    onnx.save_tensor(nh.from_array(np.array(7.0, np.float32), "y"),
                     os.path.join(d, "test_data_set_0", "output_0.pb"))
    rc, log = run([ingot, "check", d])
    if rc != 0 or "PASS" not in log:
        fail("check_loop: %s" % log[-1500:])


def main():
    if len(sys.argv) != 3:
        print("usage: test_control.py INGOT WORKDIR", file=sys.stderr)
        sys.exit(2)
    ingot, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if os.path.exists(work):
        shutil.rmtree(work)
    os.makedirs(work)
    cases = [if_runtime, if_dynamic, if_const, loop_runtime,
             lambda i, w: loop_scan(i, w, "loop_scan", False),
             lambda i, w: loop_scan(i, w, "loop_dynamic", True),
             loop_unroll, nested, omitted, scan9, scan8, errors, check_suite]
    for case in cases:
        try:
            case(ingot, work)
        except Exception as e:   # a crash or a timeout is a failure of that case
            fail("%s: %s" % (getattr(case, "__name__", "case"), e))
    if failures:
        print("%d failures" % len(failures))
        sys.exit(1)
    print("PASS")


if __name__ == "__main__":
    main()
