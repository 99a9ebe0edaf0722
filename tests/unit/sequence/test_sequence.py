#!/usr/bin/python3
"""Sequences and optionals end to end (suite unit): models built with onnx + numpy,
compiled by `ingot compile --emit exe`, run through the generated runner and
compared with numpy references. A sequence input NAME of length n is the runner
inputs NAME.0 .. NAME.n-1 (fixed with --shape NAME.J=...), a sequence output the
outputs NAME.0 ..; an empty optional input is --shape NAME=none. Covers
SplitToSequence / ConcatFromSequence (both kinds of split, keepdims, new_axis),
SequenceErase/At/Length/Insert with negative positions, a Loop that builds a
sequence (unrolled), an If with a run-time condition choosing between sequences,
Optional presence, `ingot check` on SequenceProto / OptionalProto test data, and
the diagnostics (non-constant position, missing length, a sequence where a tensor
is expected, branches that disagree).
    test_sequence.py INGOT WORKDIR
"""
import os
import re
import shutil
import sys

import numpy as np
import onnx
from onnx import TensorProto as TP
from onnx import helper as oh
from onnx import numpy_helper as nh

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "control"))
import test_control as tc  # noqa: E402  (shared helpers: Case, run, model, vi, const)

Case, run, model, vi, const, fail = tc.Case, tc.run, tc.model, tc.vi, tc.const, tc.fail


def seq_vi(name, dt, shape=None):
    return oh.make_tensor_sequence_value_info(name, dt, shape)


def opt_vi(name, dt, shape):
    return oh.make_value_info(name, oh.make_optional_type_proto(oh.make_tensor_type_proto(dt, shape)))


def split_concat(ingot, work):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    nodes = [const("split", np.array([1, 3], np.int64)), const("one", np.array(1, np.int64)),
             const("two", np.array(2, np.int64)),
             oh.make_node("SplitToSequence", ["x", "split"], ["s"], axis=1),
             oh.make_node("SequenceAt", ["s", "one"], ["a"]),
             oh.make_node("SplitToSequence", ["x"], ["rows"], axis=0, keepdims=0),
             oh.make_node("ConcatFromSequence", ["rows"], ["stacked"], axis=1, new_axis=1),
             oh.make_node("ConcatFromSequence", ["s"], ["back"], axis=1),
             oh.make_node("SplitToSequence", ["x", "two"], ["chunks"], axis=0),
             oh.make_node("SequenceLength", ["chunks"], ["n"])]
    m = model(nodes, [vi("x", TP.FLOAT, [3, 4])],
              [vi("a", TP.FLOAT, [3, 3]), vi("stacked", TP.FLOAT, [4, 3]),
               vi("back", TP.FLOAT, [3, 4]), vi("n", TP.INT64, [])])
    c = Case(ingot, work, "split_concat", m)
    if c.ok():
        c.expect([x], [x[:, 1:], x.T, x, np.array(2, np.int64)])


def list_ops(ingot, work):
    """Erase at -2, At 1, Length, Insert at -1, graph sequence input and output."""
    nodes = [const("m2", np.array(-2, np.int64)),
             const("m1", np.array([-1], np.int32)),
             const("one", np.array(1, np.int64)),
             oh.make_node("SequenceErase", ["xs", "m2"], ["e"]),
             oh.make_node("SequenceAt", ["e", "one"], ["at"]),
             oh.make_node("SequenceLength", ["e"], ["len"]),
             oh.make_node("SequenceInsert", ["e", "t", "m1"], ["ys"])]
    m = model(nodes, [seq_vi("xs", TP.FLOAT), vi("t", TP.FLOAT, [5])],
              [vi("at", TP.FLOAT, None), vi("len", TP.INT64, []), seq_vi("ys", TP.FLOAT)])
    c = Case(ingot, work, "list_ops", m, ["--shape", "xs.0=2", "--shape", "xs.1=3",
                                          "--shape", "xs.2=4"])
    if not c.ok():
        return
    ir = c.ir()
    for name in ("input %xs.0", "input %xs.2", "output %ys.0", "output %ys.2"):
        if name not in ir:
            fail("list_ops: '%s' not in the IR:\n%s" % (name, ir))
    if re.search(r"= (Sequence|Optional|SplitTo|ConcatFrom)\w*\(", ir):
        fail("list_ops: a sequence op reached the final IR:\n%s" % ir)
    xs = [np.full(n, n, np.float32) for n in (2, 3, 4)]
    t = np.arange(5, dtype=np.float32)
    # erase xs[1] → [xs0, xs2]; insert t before the last → [xs0, t, xs2]
    c.expect(xs + [t], [xs[2], np.array(2, np.int64), xs[0], t, xs[2]])


def loop_builds(ingot, work):
    """A Loop whose body appends a growing Slice to a sequence: unrolled."""
    body = oh.make_graph(
        [oh.make_node("Identity", ["c_in"], ["c_out"]),
         const("one", np.array(1, np.int64)), const("zero", np.array([0], np.int64)),
         const("ax", np.array([0], np.int64)),
         oh.make_node("Add", ["i", "one"], ["end"]),
         oh.make_node("Unsqueeze", ["end", "ax"], ["ends"]),
         oh.make_node("Slice", ["x", "zero", "ends"], ["part"]),
         oh.make_node("SequenceInsert", ["s_in", "part"], ["s_out"])],
        "body", [vi("i", TP.INT64, []), vi("c_in", TP.BOOL, []), seq_vi("s_in", TP.FLOAT)],
        [vi("c_out", TP.BOOL, []), seq_vi("s_out", TP.FLOAT)])
    m = model([const("M", np.array(3, np.int64)), const("c", np.array(True)),
               oh.make_node("SequenceEmpty", [], ["s0"]),
               oh.make_node("Loop", ["M", "c", "s0"], ["s"], body=body)],
              [vi("x", TP.FLOAT, [4])], [seq_vi("s", TP.FLOAT)])
    c = Case(ingot, work, "loop_builds", m)
    if c.ok():
        x = np.array([1, 2, 3, 4], np.float32)
        c.expect([x], [x[:1], x[:2], x[:3]])


def if_runtime(ingot, work):
    """Both branches yield a sequence of two: one If output per element."""
    def branch(name, k):
        return oh.make_graph([oh.make_node("Mul", ["x", "k"], ["a"]),
                              oh.make_node("Neg", ["x"], ["b"]),
                              oh.make_node("SequenceConstruct", ["a", "b"], ["s"])],
                             name, [], [seq_vi("s", TP.FLOAT)],
                             [nh.from_array(np.array(k, np.float32), "k")])
    m = model([oh.make_node("If", ["c"], ["s"], then_branch=branch("then", 2.0),
                            else_branch=branch("else", 3.0)),
               oh.make_node("SequenceAt", ["s", "zero"], ["first"]),
               oh.make_node("OptionalHasElement", ["s"], ["has"])],
              [vi("c", TP.BOOL, []), vi("x", TP.FLOAT, [2])],
              [vi("first", TP.FLOAT, [2]), vi("has", TP.BOOL, [])],
              [nh.from_array(np.array(0, np.int64), "zero")], opset=18)
    c = Case(ingot, work, "if_seq_runtime", m)
    if c.ok():
        x = np.array([1, -2], np.float32)
        c.expect([np.array(True), x], [2 * x, np.array(True)], " (then)")
        c.expect([np.array(False), x], [3 * x, np.array(True)], " (else)")


def optionals(ingot, work):
    """An optional input, present (a tensor input) or absent (--shape NAME=none)."""
    m = model([oh.make_node("OptionalHasElement", ["o"], ["has"]),
               oh.make_node("Optional", ["x"], ["ox"]),
               oh.make_node("OptionalGetElement", ["ox"], ["y"])],
              [opt_vi("o", TP.FLOAT, [3]), vi("x", TP.FLOAT, [2])],
              [vi("has", TP.BOOL, []), vi("y", TP.FLOAT, [2])], opset=16)
    x = np.array([5, 6], np.float32)
    c = Case(ingot, work, "optional_present", m)
    if c.ok():
        c.expect([np.zeros(3, np.float32), x], [np.array(True), x])
    c = Case(ingot, work, "optional_absent", m, ["--shape", "o=none"])
    if c.ok():
        c.expect([x], [np.array(False), x])


def presence_model():
    """An If whose then branch yields an empty optional and else one holding a sequence."""
    seq_t = oh.make_sequence_type_proto(oh.make_tensor_type_proto(TP.FLOAT, [2]))
    opt_vi_ = oh.make_value_info("o", oh.make_optional_type_proto(seq_t))
    none = oh.make_graph([oh.make_node("Optional", [], ["o"], type=seq_t)], "then", [], [opt_vi_])
    some = oh.make_graph([oh.make_node("SequenceConstruct", ["x"], ["s"]),
                          oh.make_node("Optional", ["s"], ["o"])], "else", [], [opt_vi_])
    return model([oh.make_node("If", ["c"], ["o"], then_branch=none, else_branch=some),
                  oh.make_node("OptionalHasElement", ["o"], ["y"])],
                 [vi("c", TP.BOOL, []), vi("x", TP.FLOAT, [2])], [vi("y", TP.BOOL, [])])


def errors(ingot, work):
    def expect_error(name, m, code, texts, extra=()):
        d = os.path.join(work, name)
        os.makedirs(d)
        p = os.path.join(d, "model.onnx")
        onnx.save(m, p)
        rc, log = run([ingot, "compile", p, "-o", os.path.join(d, "out")] + list(extra))
        if rc != code or not all(t in log for t in texts) or "\n" in log.strip():
            fail("%s: expected exit %d with %s on one line, got %d: %s" % (name, code, texts, rc,
                                                                          log[-1500:]))

    at = model([oh.make_node("SequenceAt", ["xs", "pos"], ["y"], name="at_pos")],
               [seq_vi("xs", TP.FLOAT), vi("pos", TP.INT64, [])], [vi("y", TP.FLOAT, None)])
    shapes = ["--shape", "xs.0=2", "--shape", "xs.1=2"]
    expect_error("err_position", at, 1, ["'at_pos' (SequenceAt)", "'pos'", "--bind"], shapes)
    expect_error("err_position_range", at, 1, ["position 5 is out of range for a sequence of 2"],
                 shapes + ["--bind", "pos=5"])
    expect_error("err_no_length", at, 1, ["input 'xs'", "--shape xs.0="], ["--bind", "pos=0"])
    expect_error("err_none_not_optional", at, 2, ["--shape xs=none", "not an optional"],
                 ["--shape", "xs=none"])
    add = model([oh.make_node("Add", ["xs", "xs"], ["y"], name="add_seq")],
                [seq_vi("xs", TP.FLOAT)], [vi("y", TP.FLOAT, None)])
    expect_error("err_seq_as_tensor", add, 1, ["'add_seq' (Add)", "expected a tensor, got a "
                 "sequence of 2"], shapes)
    m = presence_model()
    expect_error("err_if_presence", m, 1, ["output 0 is an empty optional in the then branch and "
                 "a sequence of 1 in the else branch", "--bind"])
    # with the condition bound, the branch is chosen at compile time
    c = Case(ingot, work, "if_presence_bound", m, ["--bind", "c=0"])
    if c.ok():
        c.expect([np.zeros(2, np.float32)], [np.array(True)])


def check_suite(ingot, work):
    """`ingot check` with SequenceProto and OptionalProto test data."""
    def make(name, out_seq):
        d = os.path.join(work, name)
        os.makedirs(os.path.join(d, "test_data_set_0"))
        m = model([oh.make_node("SequenceMap", ["xs", "t"], ["ys"], body=oh.make_graph(
                      [oh.make_node("Add", ["a", "b"], ["c"])], "body",
                      [vi("a", TP.FLOAT, None), vi("b", TP.FLOAT, [2])], [vi("c", TP.FLOAT, None)])),
                   oh.make_node("OptionalHasElement", ["o"], ["has"])],
                  [seq_vi("xs", TP.FLOAT), vi("t", TP.FLOAT, [2]), opt_vi("o", TP.FLOAT, [1])],
                  [seq_vi("ys", TP.FLOAT), vi("has", TP.BOOL, [])], opset=17)
        onnx.save(m, os.path.join(d, "model.onnx"))
        xs = [np.array([1, 2], np.float32), np.array([[3, 4]], np.float32)]
        t = np.array([10, 20], np.float32)
        ds = os.path.join(d, "test_data_set_0")
        for i, proto in enumerate((nh.from_list(xs, "xs"), nh.from_array(t, "t"),
                                   nh.from_optional(None, "o", onnx.OptionalProto.UNDEFINED))):
            with open(os.path.join(ds, "input_%d.pb" % i), "wb") as f:
                f.write(proto.SerializeToString())
        for i, proto in enumerate((nh.from_list(out_seq, "ys"),
                                   nh.from_array(np.array(False), "has"))):
            with open(os.path.join(ds, "output_%d.pb" % i), "wb") as f:
                f.write(proto.SerializeToString())
        return d

    good = make("check_seq", [np.array([11, 22], np.float32), np.array([[13, 24]], np.float32)])
    rc, log = run([ingot, "check", good])
    if rc != 0 or "PASS" not in log:
        fail("check_seq: %s" % log[-1500:])
    bad = make("check_seq_bad", [np.array([11, 22], np.float32), np.array([[13, 25]], np.float32)])
    rc, log = run([ingot, "check", bad])
    if rc == 0 or "FAIL" not in log or "output 0 'ys' element 1: element 1: got 24" not in log:
        fail("check_seq_bad: expected a FAIL naming element 1: %s" % log[-1500:])
    short = make("check_seq_short", [np.array([11, 22], np.float32)])
    rc, log = run([ingot, "check", short])
    if rc == 0 or "the model gave 3 output tensors, the test data has 2" not in log:
        fail("check_seq_short: expected a FAIL for the extra element: %s" % log[-1500:])


def check_if_bind(ingot, work):
    """`ingot check` binds an If condition that decides an optional's presence (the
    compile error names the If: check binds what reaches it and retries)."""
    d = os.path.join(work, "check_if_bind")
    ds = os.path.join(d, "test_data_set_0")
    os.makedirs(ds)
    onnx.save(presence_model(), os.path.join(d, "model.onnx"))
    onnx.save_tensor(nh.from_array(np.array(False), "c"), os.path.join(ds, "input_0.pb"))
    onnx.save_tensor(nh.from_array(np.zeros(2, np.float32), "x"), os.path.join(ds, "input_1.pb"))
    onnx.save_tensor(nh.from_array(np.array(True), "y"), os.path.join(ds, "output_0.pb"))
    rc, log = run([ingot, "check", d])
    if rc != 0 or "PASS" not in log:
        fail("check_if_bind: %s" % log[-1500:])


def main():
    if len(sys.argv) != 3:
        print("usage: test_sequence.py INGOT WORKDIR", file=sys.stderr)
        sys.exit(2)
    ingot, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if os.path.exists(work):
        shutil.rmtree(work)
    os.makedirs(work)
    for case in (split_concat, list_ops, loop_builds, if_runtime, optionals, errors, check_suite,
                 check_if_bind):
        try:
            case(ingot, work)
        except Exception as e:   # a crash or a timeout is a failure of that case
            fail("%s: %s" % (case.__name__, e))
    if tc.failures:
        print("%d failures" % len(tc.failures))
        sys.exit(1)
    print("PASS")


if __name__ == "__main__":
    main()
