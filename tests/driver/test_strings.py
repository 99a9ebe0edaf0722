#!/usr/bin/env python3
"""strings: string tensors end to end. Models in the backend-test layout with
numpy's outputs must PASS `ingot check`: Cast from float32/float64/int64/bool to
STRING (numpy's astype(str) text: shortest digits, positional or scientific by
magnitude, nan/inf, True/False), Cast from STRING to float32/float64/int64 (NaN,
INF, -INF, +INF, blanks, exponents), CastLike, StringNormalizer (LOWER/UPPER/NONE,
case-(in)sensitive stopwords, all stopwords giving [""]), and string data moved by
Identity, Reshape, Transpose, Concat (with a string initializer and a Constant
value_strings) and Gather; the IR text of string constants parses back. The
generated header types string I/O as ingot_str and documents the slots, and builds
under -Wall -Wextra -Werror; the kernels run clean under ASan/UBSan; a string longer than a slot is a clear error in an
initializer (compile) and in an input file (runner)."""
import os

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from common import (check, check_all_pass, ingot_compile, main, model, run, run_ok, save,
                    stderr_lines, tool, vi, write_test_dir)

T = TensorProto
N = helper.make_node
FLAGS = ["-std=c99", "-Wall", "-Wextra", "-Werror"]


def strs(*v):
    return np.array(v, dtype=object)


def str_tensor(arr, name):
    """A STRING TensorProto (numpy_helper needs bytes for object arrays)."""
    a = np.asarray(arr, dtype=object)
    return helper.make_tensor(name, T.STRING, a.shape, [s.encode() for s in a.ravel()])


def cases():
    f32 = np.array([[0.5, 1e-5, 1.5e-5, 100.0], [1e16, 9.9e15, 123456789.0, -0.0],
                    [np.nan, np.inf, -np.inf, 3.4028235e38]], np.float32)
    f64 = np.array([0.1, 1.0 / 3.0, 2.5e-300, -1e22], np.float64)
    i64 = np.array([-3, 0, 9007199254740993], np.int64)
    bl = np.array([True, False])
    text = strs("NaN", "INF", "-INF", "+INF", " 1.5 ", "1e3", "-0.25", "inf")
    ints = strs("42", "-7", " 12 ")
    words = strs("Monday", "tuesday", "MONDAY", "Wed", "monday")
    two = strs("Monday", "monday")
    grid = strs("a", "bb", "ccc", "dd", "e", "f").reshape(2, 3)
    konst = str_tensor(strs("k1", "k2"), "konst")
    idx = np.array([2, 0], np.int64)
    return [
        ("cast_to_str",
         model([N("Cast", ["x"], ["y"], to=T.STRING), N("Cast", ["d"], ["yd"], to=T.STRING),
                N("Cast", ["i"], ["yi"], to=T.STRING), N("Cast", ["b"], ["yb"], to=T.STRING)],
               [vi("x", T.FLOAT, [3, 4]), vi("d", T.DOUBLE, [4]), vi("i", T.INT64, [3]),
                vi("b", T.BOOL, [2])],
               [vi("y", T.STRING, [3, 4]), vi("yd", T.STRING, [4]), vi("yi", T.STRING, [3]),
                vi("yb", T.STRING, [2])]),
         [f32, f64, i64, bl], [f32.astype(str), f64.astype(str), i64.astype(str), bl.astype(str)]),
        ("cast_from_str",
         model([N("Cast", ["s"], ["f"], to=T.FLOAT), N("Cast", ["s"], ["d"], to=T.DOUBLE),
                N("Cast", ["n"], ["i"], to=T.INT64),
                N("CastLike", ["s", "like"], ["g"])],
               [vi("s", T.STRING, [8]), vi("n", T.STRING, [3]), vi("like", T.FLOAT, [1])],
               [vi("f", T.FLOAT, [8]), vi("d", T.DOUBLE, [8]), vi("i", T.INT64, [3]),
                vi("g", T.FLOAT, [8])], opset=15),   # CastLike exists from opset 15
         [text, ints, np.array([1], np.float32)],
         [text.astype(np.float32), text.astype(np.float64),
          np.array([int(v) for v in ints], np.int64), text.astype(np.float32)]),
        ("normalizer",
         model([N("StringNormalizer", ["w"], ["lo"], case_change_action="LOWER",
                  stopwords=["monday"], is_case_sensitive=0),
                N("StringNormalizer", ["w"], ["up"], case_change_action="UPPER",
                  stopwords=["monday"], is_case_sensitive=1),
                N("StringNormalizer", ["w"], ["same"])],
               [vi("w", T.STRING, [5])],
               [vi("lo", T.STRING, None), vi("up", T.STRING, None), vi("same", T.STRING, None)],
               opset=10),
         [words], [strs("tuesday", "wed"), strs("MONDAY", "TUESDAY", "MONDAY", "WED"), words]),
        ("normalizer_empty_2d",
         model([N("StringNormalizer", ["w"], ["y"], stopwords=["monday"])],
               [vi("w", T.STRING, [1, 2])], [vi("y", T.STRING, None)], opset=10),
         [two.reshape(1, 2)], [strs("").reshape(1, 1)]),
        ("moves",
         model([N("Identity", ["g"], ["id"]),
                N("Transpose", ["g"], ["tr"], perm=[1, 0]),
                N("Reshape", ["g", "shape"], ["rs"]),
                N("Constant", [], ["cs"], value_strings=["q\"\\"]),
                N("Concat", ["k", "konst", "cs"], ["cat"], axis=0),
                N("Gather", ["rs", "idx"], ["ga"], axis=0)],
               [vi("g", T.STRING, [2, 3]), vi("k", T.STRING, [1])],
               [vi("id", T.STRING, None), vi("tr", T.STRING, None), vi("rs", T.STRING, None),
                vi("cat", T.STRING, None), vi("ga", T.STRING, None)],
               inits=[konst, numpy_helper.from_array(np.array([6], np.int64), "shape"),
                      numpy_helper.from_array(idx, "idx")]),
         [grid, strs("k0")],
         [grid, grid.T, grid.reshape(6), strs("k0", "k1", "k2", "q\"\\"), grid.reshape(6)[idx]]),
    ]


def tensor_for(arr, name):
    a = np.asarray(arr)
    return str_tensor(a, name) if a.dtype == object or a.dtype.kind == "U" else \
        numpy_helper.from_array(a, name)


def test(ingot, work):
    dirs = [write_test_dir(work, *c, to_tensor=tensor_for) for c in cases()]
    check_all_pass(ingot, dirs)
    # the string kernels stay inside their buffers (StringNormalizer with and without
    # stopwords, every cast) when the generated code runs under ASan and UBSan
    check_all_pass(ingot, dirs[:4], "--cflags",
                   "-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all")

    # string constants in the text IR: print -> parse -> print is the identity
    ir1 = os.path.join(work, "moves.ir")
    run_ok([ingot, "compile", os.path.join(dirs[-1], "model.onnx"), "-o", os.path.join(work, "o_mv"),
            "-O0", "--dump-ir", ir1])
    text = open(ir1).read()
    check('"q\\"\\\\"' in text, "the IR lacks the escaped string constant:\n%s" % text)
    out2, _ = run_ok([ingot, "opt", ir1, "--passes", "dce"])
    check(out2.strip() == text.strip(), "print -> parse -> print changed the IR:\n%s\n---\n%s" % (text, out2))

    # the API: ingot_str slots, documented, warning-free with both compilers
    od = os.path.join(work, "api")
    ingot_compile(ingot, os.path.join(dirs[2], "model.onnx"), od, "sn", "--emit", "exe")
    hdr = open(os.path.join(od, "sn.h")).read()
    proto = "int sn_run(const ingot_str *w, ingot_str *lo, ingot_str *up, ingot_str *same, void *workspace);"
    check(proto in hdr, "sn.h lacks\n  %s\ngot:\n%s" % (proto, hdr))
    check("INGOT_STRING_CAP" in hdr, "sn.h does not document the string slots")
    for cc in (tool("gcc"), tool("clang")):
        for src in ("sn.c", "sn_main.c"):
            run_ok([cc] + FLAGS + ["-I", od, "-c", os.path.join(od, src), "-o", os.devnull])

    # a string longer than a slot (63 bytes): an initializer, and a runner input
    long_s = "x" * 64
    bad = model([N("Concat", ["k", "konst"], ["cat"], axis=0)], [vi("k", T.STRING, [1])],
                [vi("cat", T.STRING, None)], inits=[str_tensor(strs(long_s), "konst")])
    p = save(bad, os.path.join(work, "long_init.onnx"))
    rc, out, err = run([ingot, "compile", p, "-o", os.path.join(work, "o_long")])
    errs = stderr_lines(err)
    check(rc == 1 and errs and errs[0].startswith(p) and "konst" in errs[0] and "64 bytes" in errs[0],
          "long initializer: exit %d, expected 1 with a located error:\n%s" % (rc, err))
    inp = os.path.join(work, "long_in.pb")
    open(inp, "wb").write(str_tensor(strs(*([long_s] * 5)), "w").SerializeToString())
    rc, out, err = run([os.path.join(od, "sn"), "--input", inp, "--output-dir", work])
    check(rc != 0 and "64 bytes" in err, "long runner input: exit %d\n%s%s" % (rc, out, err))


if __name__ == "__main__":
    main(test)
