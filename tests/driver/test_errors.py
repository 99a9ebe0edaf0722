#!/usr/bin/env python3
"""errors: `ingot compile` on bad input, one CASE per class of mistake. Each checks
the exit code of the CLI contract (1 bad input, 2 usage, 3 unsupported ops) and that
stderr is exactly one meaningful line naming the file (and the node where there is
one); a crash (exit >= 128) or a sanitizer report fails every case. The symbolic-dim
cases also check what compiles: --shape, --dim, --bind and the leading-dim default.

usage: test_errors.py INGOT WORKDIR CASE
"""
import os

import numpy as np
from onnx import TensorProto, helper

from common import (Fail, assert_close, check, check_all_pass, init, main, model, relu, run, run_ok,
                    save, stderr_lines, vi, write_test_dir)

T = TensorProto


def relu_model(shape, dt=T.FLOAT):
    return model([helper.make_node("Relu", ["x"], ["y"], name="relu0")],
                 [vi("x", dt, shape)], [vi("y", T.FLOAT, None)])


def expect(ingot, args, code, contains=(), lines=1, cwd=None):
    """Runs `ingot compile ARGS`; checks the exit code, the number of stderr lines
    and that the stderr text contains every string of `contains`."""
    rc, out, err = run([ingot, "compile"] + args, cwd=cwd)
    shown = "ingot compile %s -> exit %d, stderr:\n%s" % (" ".join(args), rc, err)
    check(rc == code, "expected exit %d: %s" % (code, shown))
    ls = stderr_lines(err)
    check(len(ls) == lines, "expected %d stderr line(s), got %d: %s" % (lines, len(ls), shown))
    for s in contains:
        check(s in err, "stderr should mention %r: %s" % (s, shown))
    if code != 0:
        check(out.strip() == "", "stdout should be empty on failure, got %r" % out)
    return ls


def run_relu(work, d, name, shape):
    """Runs the runner built in d on a random input of shape; checks relu(x)."""
    x = np.random.default_rng(5).standard_normal(shape).astype(np.float32)
    xin = os.path.join(work, "x_%s.npy" % name)
    np.save(xin, x)
    od = os.path.join(work, "out_" + name)
    os.makedirs(od, exist_ok=True)
    run_ok([os.path.join(d, name), "--input", xin, "--output-dir", od])
    assert_close(np.load(os.path.join(od, "output_0.npy")), relu(x), "%s output" % name)


def io_dims(d, name, which):
    """dims of the first entry of NAME_inputs/NAME_outputs in the generated .c."""
    text = open(os.path.join(d, name + ".c")).read()
    start = text.index("const ingot_io %s_%s[" % (name, which))
    row = text[text.index("{", text.index("{", start) + 1):]
    dims = row[row.index("{", 1) + 1:row.index("}")]
    return [int(v) for v in dims.split(",") if v.strip()]


def case_truncated(ingot, work):
    data = relu_model([2, 3]).SerializeToString()
    p = os.path.join(work, "truncated.onnx")
    with open(p, "wb") as f:
        f.write(data[:len(data) // 2])
    expect(ingot, [p, "-o", os.path.join(work, "o")], 1, ["truncated.onnx", "malformed model at byte offset"])


def case_garbage(ingot, work):
    for seed in range(4):
        p = os.path.join(work, "garbage%d.onnx" % seed)
        with open(p, "wb") as f:
            f.write(np.random.default_rng(seed).integers(0, 256, 4096, dtype=np.uint8).tobytes())
        expect(ingot, [p, "-o", os.path.join(work, "o")], 1, ["garbage%d.onnx" % seed])
    p = os.path.join(work, "empty.onnx")
    open(p, "wb").close()
    expect(ingot, [p, "-o", os.path.join(work, "o")], 1, ["empty.onnx", "model has no graph"])


def case_unknown_dtype(ingot, work):
    p = save(relu_model([2, 3], dt=99), os.path.join(work, "dtype_input.onnx"))
    expect(ingot, [p, "-o", os.path.join(work, "o")], 1, ["dtype_input.onnx", "'x'", "unknown element type 99"])
    w = init("w", np.zeros(3, np.float32))
    w.data_type = 99
    m = model([helper.make_node("Add", ["x", "w"], ["y"], name="add0")],
              [vi("x", T.FLOAT, [3])], [vi("y", T.FLOAT, [3])], [w])
    p = save(m, os.path.join(work, "dtype_init.onnx"))
    expect(ingot, [p, "-o", os.path.join(work, "o")], 1, ["dtype_init.onnx", "'w'", "99"])


def case_shape_mismatch(ingot, work):
    m = model([helper.make_node("Relu", ["a"], ["r"], name="relu0"),
               helper.make_node("Add", ["r", "b"], ["y"], name="bad_add")],
              [vi("a", T.FLOAT, [2, 3]), vi("b", T.FLOAT, [4, 5])], [vi("y", T.FLOAT, None)])
    p = save(m, os.path.join(work, "mismatch.onnx"))
    expect(ingot, [p, "-o", os.path.join(work, "o")], 1, ["mismatch.onnx", "'bad_add'", "Add",
                                                          "is not broadcastable with"])


def case_unsupported(ingot, work):
    m = model([helper.make_node("Relu", ["x"], ["h"], name="relu0"),
               helper.make_node("FooBar", ["h"], ["h2"], name="foo_node"),
               # an op no opset defines (LinearAttention and TensorScatter, used here
               # before as ai.onnx ops ingot lacked, are ingot's ops now)
               helper.make_node("NoSuchOpInAnyOpset", ["h2"], ["h3"], name="nosuch_node"),
               # ingot's own op (the IR's fused loops) is no ONNX op either
               helper.make_node("FusedElementwise", ["h3"], ["y"], name="fused_node")],
              [vi("x", T.FLOAT, [2, 3])], [vi("y", T.FLOAT, None)])
    p = save(m, os.path.join(work, "unsup.onnx"))
    ls = expect(ingot, [p, "-o", os.path.join(work, "o")], 3, lines=3)
    for node, op in (("foo_node", "FooBar"), ("nosuch_node", "NoSuchOpInAnyOpset"),
                     ("fused_node", "FusedElementwise")):
        check(any("unsup.onnx" in l and "'%s'" % node in l and "unsupported op '%s'" % op in l for l in ls),
              "no line names node '%s' (%s) with the file: %s" % (node, op, ls))


def case_usage(ingot, work):
    p = save(relu_model([2, 3]), os.path.join(work, "ok.onnx"))
    o = os.path.join(work, "o")
    bad = [
        ([p, "--frobnicate"], "--frobnicate"),
        ([p, "--shape", "x=2y3"], "x=2y3"),
        ([p, "--shape", "x"], "--shape"),
        ([p, "--shape", "x=-1x3"], "x=-1x3"),
        ([p, "--emit", "bogus"], "bogus"),
        ([p, "--emit", "c,bogus"], "bogus"),
        ([p, "--name", "my-model"], "my-model"),
        ([p, "--name", "3d"], "3d"),
        ([p, "--name", "int"], "int"),
        # names of files ingot writes next to NAME.c (stubs, kernels/, Makefile)
        ([p, "--name", "ingot_rt"], "ingot_rt"),
        ([p, "--name", "Ingot_Runner"], "Ingot_Runner"),
        ([p, "--name", "kernels"], "kernels"),
        ([p, "--name", "Makefile"], "Makefile"),
        ([p, "--weights", "zip"], "zip"),
        ([p, "--max-workspace", "lots"], "lots"),
        ([p, "-o"], "-o"),
        ([p, p], "unexpected"),
        (["-o", o], "model"),
        ([], "model"),
    ]
    for args, mention in bad:
        ls = expect(ingot, args, 2, [mention])
        check(ls[0].startswith("ingot: "), "usage errors start with 'ingot: ': %r" % ls[0])
    expect(ingot, [p, "--frobnicate"], 2, ["unknown option '--frobnicate'"])
    # naming something that is not a graph input is a usage error too
    expect(ingot, [p, "-o", o, "--shape", "nope=1x2"], 2, ["ok.onnx", "nope", "which is not a graph input"])
    expect(ingot, [p, "-o", o, "--bind", "nope=1"], 2, ["ok.onnx", "nope"])
    check(not os.path.exists(o), "a usage error still wrote %s" % o)


def case_nonexistent(ingot, work):
    p = os.path.join(work, "no_such_model.onnx")
    expect(ingot, [p, "-o", os.path.join(work, "o")], 1, ["no_such_model.onnx", "cannot open"])
    expect(ingot, [work, "-o", os.path.join(work, "o")], 1, [os.path.basename(work)])


def case_symbolic(ingot, work):
    p = save(relu_model([2, "W"]), os.path.join(work, "sym.onnx"))
    expect(ingot, [p, "-o", os.path.join(work, "o")], 1, ["sym.onnx", "'x'", "W", "is symbolic; fix it with --dim"])


def case_leading_symbolic(ingot, work):
    p = save(relu_model(["N", 3]), os.path.join(work, "lead.onnx"))
    d = os.path.join(work, "lead")
    ls = expect(ingot, [p, "-o", d, "--name", "lead", "--emit", "exe"], 0, ["lead.onnx", "'x'", "N", "set to 1"])
    check("warning" in ls[0], "the leading symbolic dim should give a warning: %r" % ls[0])
    check(io_dims(d, "lead", "inputs") == [1, 3], "leading dim not set to 1: %s" % io_dims(d, "lead", "inputs"))
    run_relu(work, d, "lead", (1, 3))


def case_shape_override(ingot, work):
    p = save(relu_model(["N", "W"]), os.path.join(work, "sym2.onnx"))
    d = os.path.join(work, "fixed")
    expect(ingot, [p, "-o", d, "--name", "fixed", "--emit", "exe", "--shape", "x=4x5"], 0, lines=0)
    check(io_dims(d, "fixed", "outputs") == [4, 5], "--shape x=4x5 gave output dims %s" %
          io_dims(d, "fixed", "outputs"))
    run_relu(work, d, "fixed", (4, 5))
    d = os.path.join(work, "dimmed")
    expect(ingot, [p, "-o", d, "--name", "dimmed", "--emit", "exe", "--dim", "N=2", "--dim", "W=7"], 0,
           lines=0)
    check(io_dims(d, "dimmed", "outputs") == [2, 7], "--dim N=2 --dim W=7 gave output dims %s" %
          io_dims(d, "dimmed", "outputs"))
    run_relu(work, d, "dimmed", (2, 7))
    # a fixed dim cannot be changed
    p = save(relu_model([2, 3]), os.path.join(work, "static.onnx"))
    expect(ingot, [p, "-o", os.path.join(work, "o"), "--shape", "x=3x3"], 1, ["static.onnx", "'x'"])


def case_bind(ingot, work):
    m = model([helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape0")],
              [vi("x", T.FLOAT, [2, 6]), vi("shape", T.INT64, [2])], [vi("y", T.FLOAT, None)])
    p = save(m, os.path.join(work, "bind.onnx"))
    expect(ingot, [p, "-o", os.path.join(work, "o")], 1,
           ["bind.onnx", "'reshape0'", "'shape'", "must be known at compile time; fix it with --bind"])
    d = os.path.join(work, "bound")
    expect(ingot, [p, "-o", d, "--name", "bound", "--emit", "exe", "--bind", "shape=3,4"], 0, lines=0)
    check(io_dims(d, "bound", "outputs") == [3, 4], "--bind shape=3,4 gave output dims %s" %
          io_dims(d, "bound", "outputs"))
    text = open(os.path.join(d, "bound.h")).read()
    check("bound_run(const float *x, float *y, void *workspace)" in text,
          "a bound input must leave the API:\n%s" % text)
    x = np.arange(12, dtype=np.float32).reshape(2, 6)
    np.save(os.path.join(work, "x.npy"), x)
    run_ok([os.path.join(d, "bound"), "--input", os.path.join(work, "x.npy"), "--output-dir", work])
    assert_close(np.load(os.path.join(work, "output_0.npy")), x.reshape(3, 4), "bound output")
    # from a file, and a wrong element count
    np.save(os.path.join(work, "shape.npy"), np.array([4, 3], np.int64))
    d = os.path.join(work, "bound_file")
    expect(ingot, [p, "-o", d, "--name", "bf", "--bind", "shape=" + os.path.join(work, "shape.npy")], 0,
           lines=0)
    check(io_dims(d, "bf", "outputs") == [4, 3], "--bind shape=FILE gave output dims %s" %
          io_dims(d, "bf", "outputs"))
    expect(ingot, [p, "-o", os.path.join(work, "o"), "--bind", "shape=1,2,3"], 1, ["bind.onnx", "'shape'"])
    # `ingot check --bind` of an input no node needs at compile time (a scalar added to
    # x): it leaves the runner's inputs, so its data set file is not fed, and the
    # command line's value wins over the data set's
    m2 = model([helper.make_node("Add", ["x", "s"], ["y"], name="add0")],
               [vi("x", T.FLOAT, [2, 6]), vi("s", T.FLOAT, [])], [vi("y", T.FLOAT, [2, 6])])
    t = write_test_dir(work, "bind_check", m2, [x, np.array(2, np.float32)], [x + 2])
    check_all_pass(ingot, [t])
    check_all_pass(ingot, [t], "--bind", "s=2")
    rc, out, err = run([ingot, "check", t, "--bind", "s=3"])
    check(rc == 1 and ("FAIL %s" % t) in out, "check --bind s=3 must fail on x + 2: exit %d\n%s%s" %
          (rc, out, err))


def case_max_workspace(ingot, work):
    # (a Softmax between the Relus: an elementwise chain would fuse into one loop
    # without intermediates)
    m = model([helper.make_node("Relu", ["x"], ["h"], name="relu0"),
               helper.make_node("Softmax", ["h"], ["h2"], name="softmax0"),
               helper.make_node("Relu", ["h2"], ["y"], name="relu1")],
              [vi("x", T.FLOAT, [16, 16])], [vi("y", T.FLOAT, None)])
    p = save(m, os.path.join(work, "ws.onnx"))
    expect(ingot, [p, "-o", os.path.join(work, "o"), "--max-workspace", "16"], 1,
           ["ws.onnx", "exceeds --max-workspace"])
    d = os.path.join(work, "fits")
    expect(ingot, [p, "-o", d, "--name", "fits", "--max-workspace", "1000000"], 0, lines=0)


def case_op_inputs(ingot, work):
    """Ops of opsets 18-23 on bad input: a clear line naming the node, exit 1."""
    o = os.path.join(work, "o")
    m = model([helper.make_node("BitwiseAnd", ["a", "b"], ["y"], name="band0")],
              [vi("a", T.FLOAT, [2, 3]), vi("b", T.FLOAT, [2, 3])], [vi("y", T.FLOAT, None)],
              opset=18)
    p = save(m, os.path.join(work, "band.onnx"))
    expect(ingot, [p, "-o", o], 1, ["band.onnx", "'band0'", "BitwiseAnd", "f32", "is not supported by this op"])
    m = model([helper.make_node("BitwiseNot", ["a"], ["y"], name="bnot0")],
              [vi("a", T.BOOL, [4])], [vi("y", T.BOOL, None)], opset=18)
    p = save(m, os.path.join(work, "bnot.onnx"))
    expect(ingot, [p, "-o", o], 1, ["bnot.onnx", "'bnot0'", "BitwiseNot", "bool"])
    # CenterCropPad's shape must be known when compiling
    ccp = helper.make_node("CenterCropPad", ["x", "shape"], ["y"], name="ccp0", axes=[1])
    m = model([ccp], [vi("x", T.FLOAT, [2, 6]), vi("shape", T.INT64, [1])],
              [vi("y", T.FLOAT, None)], opset=18)
    p = save(m, os.path.join(work, "ccp_rt.onnx"))
    expect(ingot, [p, "-o", o], 1, ["ccp_rt.onnx", "'ccp0'", "CenterCropPad", "'shape'", "--bind"])
    expect(ingot, [p, "-o", os.path.join(work, "ccp_bound"), "--bind", "shape=3"], 0, lines=0)
    m = model([ccp], [vi("x", T.FLOAT, [2, 6])], [vi("y", T.FLOAT, None)],
              [init("shape", np.array([3, 3], np.int64))], opset=18)
    p = save(m, os.path.join(work, "ccp_n.onnx"))
    expect(ingot, [p, "-o", o], 1, ["ccp_n.onnx", "'ccp0'", "expected 1 sizes", "got 2"])
    m = model([helper.make_node("AffineGrid", ["theta", "size"], ["y"], name="ag0")],
              [vi("theta", T.FLOAT, [1, 2, 3]), vi("size", T.INT64, [4])],
              [vi("y", T.FLOAT, None)], opset=20)
    p = save(m, os.path.join(work, "ag_rt.onnx"))
    expect(ingot, [p, "-o", o], 1, ["ag_rt.onnx", "'ag0'", "AffineGrid", "'size'", "--bind"])
    # RMSNormalization: scale of another element type, a scale wider than the normalized dims
    for tag, st, sshape, words in (("type", T.DOUBLE, [6], ["X's element type"]),
                                   ("rank", T.FLOAT, [2, 6], ["rank 2", "normalized dims"])):
        m = model([helper.make_node("RMSNormalization", ["x", "s"], ["y"], name="rms0")],
                  [vi("x", T.FLOAT, [2, 6]), vi("s", st, sshape)], [vi("y", T.FLOAT, None)], opset=23)
        p = save(m, os.path.join(work, "rms_%s.onnx" % tag))
        expect(ingot, [p, "-o", o], 1, ["rms_%s.onnx" % tag, "'rms0'", "RMSNormalization"] + words)


def case_llm_ops(ingot, work):
    """Attention (opsets 23, 24) and RotaryEmbedding (23) on shapes and attributes that do not fit:
    one line naming the node and what is wrong, exit 1."""
    o = os.path.join(work, "o")

    def attn(tag, shapes, words, dts=None, **attrs):
        names = ["q", "k", "v", "mask", "past_key", "past_value", "nonpad"][:len(shapes)]
        ins = [vi(n, (dts or {}).get(n, T.INT64 if n == "nonpad" else T.FLOAT), sh)
               for n, sh in zip(names, shapes) if sh]
        node = helper.make_node("Attention", [n if sh else "" for n, sh in zip(names, shapes)],
                                ["y"], name="attn0", **attrs)
        m = model([node], ins, [vi("y", T.FLOAT, None)], opset=23 if len(shapes) < 7 else 24)
        if len(shapes) == 7:
            m.ir_version = 11
        p = save(m, os.path.join(work, "attn_%s.onnx" % tag))
        expect(ingot, [p, "-o", o], 1, ["attn_%s.onnx" % tag, "'attn0'", "Attention"] + words)

    qkv3 = [[1, 2, 8], [1, 3, 8], [1, 3, 8]]
    attn("no_heads", qkv3, ["'q_num_heads'", "3-D"])
    attn("hidden", qkv3, ["hidden size 8", "multiple of q_num_heads 3"], q_num_heads=3,
         kv_num_heads=2)
    attn("gqa", [[1, 3, 2, 4], [1, 2, 3, 4], [1, 2, 3, 4]], ["2 kv heads", "3 query heads"])
    attn("head", [[1, 2, 2, 4], [1, 2, 3, 5], [1, 2, 3, 4]], ["input 1 'k'", "head size 5"])
    attn("v_type", [[1, 2, 2, 4], [1, 2, 3, 4], [1, 2, 3, 4]], ["input 2 'v'", "f16"],
         dts={"v": T.FLOAT16})
    # a mask shorter than the keys (ORT rejects it too) and one of a third type
    attn("mask_len", [[1, 2, 2, 4], [1, 2, 3, 4], [1, 2, 3, 4], [2, 2]],
         ["input 3 'mask'", "last dim is 2", "total sequence length 3"])
    attn("mask_type", [[1, 2, 2, 4], [1, 2, 3, 4], [1, 2, 3, 4], [2, 3]],
         ["input 3 'mask'", "i32", "neither bool"], dts={"mask": T.INT32})
    attn("mask_bcast", [[1, 2, 2, 4], [1, 2, 3, 4], [1, 2, 3, 4], [3, 2, 3]],
         ["input 3 'mask'", "dim 0 is 3", "expected 1 or 2"])
    attn("past_alone", [[1, 2, 2, 4], [1, 2, 3, 4], [1, 2, 3, 4], None, [1, 2, 5, 4]],
         ["input 5", "together"])
    attn("past_shape", [[1, 2, 2, 4], [1, 2, 3, 4], [1, 2, 3, 4], None, [1, 2, 5, 4], [1, 2, 4, 4]],
         ["input 5 'past_value'", "(1, 2, 5, 4)"])
    attn("mode", [[1, 2, 2, 4], [1, 2, 3, 4], [1, 2, 3, 4]], ["'qk_matmul_output_mode'", "got 4"],
         qk_matmul_output_mode=4)
    attn("precision", [[1, 2, 2, 4], [1, 2, 3, 4], [1, 2, 3, 4]], ["'softmax_precision'", "got 6"],
         softmax_precision=T.INT32)
    # nonpad_kv_seqlen (opset 24): int64 lengths, one per batch, never with a past
    attn("nonpad_past", [[1, 2, 2, 4], [1, 2, 3, 4], [1, 2, 3, 4], None, [1, 2, 5, 4], [1, 2, 5, 4],
                         [1]], ["input 6 'nonpad'", "past_key and past_value"])
    attn("nonpad_shape", [[2, 2, 2, 4], [2, 2, 3, 4], [2, 2, 3, 4], None, None, None, [1]],
         ["input 6 'nonpad'", "expected shape (2)"])
    attn("nonpad_type", [[1, 2, 2, 4], [1, 2, 3, 4], [1, 2, 3, 4], None, None, None, [1]],
         ["input 6 'nonpad'", "i32"], dts={"nonpad": T.INT32})

    def rope(tag, x, cache, pos, words, pos_dt=T.INT64, **attrs):
        ins = [vi("x", T.FLOAT, x), vi("cos", T.FLOAT, cache), vi("sin", T.FLOAT, cache)]
        if pos:
            ins.append(vi("pos", pos_dt, pos))
        node = helper.make_node("RotaryEmbedding", [i.name for i in ins], ["y"], name="rope0",
                                **attrs)
        p = save(model([node], ins, [vi("y", T.FLOAT, None)], opset=23),
                 os.path.join(work, "rope_%s.onnx" % tag))
        expect(ingot, [p, "-o", o], 1, ["rope_%s.onnx" % tag, "'rope0'", "RotaryEmbedding"] + words)

    rope("no_heads", [1, 3, 16], [8, 4], [1, 3], ["'num_heads'", "3-D"])
    rope("odd_dim", [1, 2, 3, 8], [8, 2], [1, 3], ["'rotary_embedding_dim'", "5 rotated dims"],
         rotary_embedding_dim=5)
    rope("wide_dim", [1, 2, 3, 8], [8, 5], [1, 3], ["'rotary_embedding_dim'", "10 rotated dims",
                                                    "head size 8"], rotary_embedding_dim=10)
    rope("cache", [1, 2, 3, 8], [8, 3], [1, 3], ["input 1 'cos'", "(max position + 1, 4)"])
    rope("cache_3d", [1, 2, 3, 8], [1, 2, 4], None, ["input 1 'cos'", "(1, 3, 4)"])
    rope("pos_type", [1, 2, 3, 8], [8, 4], [1, 3], ["input 3 'pos'", "i32"], pos_dt=T.INT32)
    rope("pos_shape", [2, 2, 3, 8], [8, 4], [1, 3], ["input 3 'pos'", "(2, 3)"])
def case_misc_ops(ingot, work):
    """DeformConv, MaxRoiPool and the random ops on bad input: one line naming the node."""
    o = os.path.join(work, "o")

    def one(tag, nodes, ins, inits, opset, code, words, outs=None):
        m = model(nodes, ins, outs or [vi("y", T.FLOAT, None)], inits, opset=opset)
        p = save(m, os.path.join(work, tag + ".onnx"))
        expect(ingot, [p, "-o", o], code, [tag + ".onnx"] + words)

    dc = lambda **kw: [helper.make_node("DeformConv", ["x", "w", "off"], ["y"], name="dc0", **kw)]
    x4, w4 = vi("x", T.FLOAT, [1, 2, 5, 5]), init("w", np.ones((3, 2, 3, 3), np.float32))
    one("dc_offset", dc(), [x4, vi("off", T.FLOAT, [1, 9, 3, 3])], [w4], 19, 1,
        ["'dc0'", "DeformConv", "input 2", "expected [1, 18, 3, 3]"])
    one("dc_group", dc(group=2), [x4, vi("off", T.FLOAT, [1, 18, 3, 3])], [w4], 19, 1,
        ["'dc0'", "channels / group"])
    one("dc_3d", dc(), [vi("x", T.FLOAT, [1, 2, 4, 4, 4]), vi("off", T.FLOAT, [1, 81, 2, 2, 2])],
        [init("w", np.ones((1, 2, 3, 3, 3), np.float32))], 19, 3, ["'dc0'", "2-D"])
    rp = lambda **kw: [helper.make_node("MaxRoiPool", ["x", "rois"], ["y"], name="rp0", **kw)]
    one("rp_noshape", rp(), [x4, vi("rois", T.FLOAT, [3, 5])], [], 1, 1,
        ["'rp0'", "MaxRoiPool", "pooled_shape", "the attribute is required"])
    one("rp_rois", rp(pooled_shape=[2, 2]), [x4, vi("rois", T.FLOAT, [3, 4])], [], 1, 1,
        ["'rp0'", "input 1", "[num_rois, 5]"])
    one("rn_noshape", [helper.make_node("RandomNormal", [], ["y"], name="rn0")], [], [], 15, 1,
        ["'rn0'", "RandomNormal", "shape", "required"])
    one("ru_int", [helper.make_node("RandomUniform", [], ["y"], name="ru0", shape=[2],
                                    dtype=T.INT32)], [], [], 15, 1, ["'ru0'", "float type", "i32"])
    one("mn_float", [helper.make_node("Multinomial", ["x"], ["y"], name="mn0", dtype=T.FLOAT)],
        [vi("x", T.FLOAT, [2, 3])], [], 15, 1, ["'mn0'", "Multinomial", "int32 or int64"])
    one("dropout_ratio", [helper.make_node("Dropout", ["x", "r", "t"], ["y"], name="do0")],
        [vi("x", T.FLOAT, [4])], [init("r", np.array(1.0, np.float32)), init("t", np.array(True))],
        15, 1, ["'do0'", "Dropout", "ratio 1 is outside [0, 1)"])


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}


def test(ingot, work, case=None):
    if case not in CASES:
        raise Fail("unknown case %r (known: %s)" % (case, ", ".join(sorted(CASES))))
    CASES[case](ingot, work)


if __name__ == "__main__":
    main(test)
