#!/usr/bin/env python3
"""text_ops: StringConcat, StringSplit and RegexFullMatch (opset 20) end to end,
beyond the ONNX Runtime reference cases (tests/ort): models checked against
Python's own str operations and re.fullmatch (ASCII classes, as RE2's) pass
`ingot check`, also with the generated code under ASan/UBSan; StringSplit's
data-dependent last dim is an M_<OUT>_MAX_DIMS bound with m_out_dims (its counts
alone work too), and a constant input makes it static so other nodes may read it; the generated code
builds under -Wall -Wextra -Werror with gcc and clang; a concatenation longer than
a string slot is a runner error (a compile error for constants); an invalid
pattern, a pattern ingot does not support, a missing pattern and an over-long
delimiter are one-line errors naming the file and node (exit 1, or 3 for
unsupported)."""
import os
import re

import numpy as np
from onnx import TensorProto, helper

from common import (check, check_all_pass, ingot_compile, main, model, run,
                    run_ok, save, stderr_lines, tool, vi, write_test_dir)

T = TensorProto
N = helper.make_node
FLAGS = ["-std=c99", "-Wall", "-Wextra", "-Werror"]
SANITIZE = "-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all"


def strs(*v, shape=None):
    a = np.array(v, dtype=object)
    return a.reshape(shape) if shape is not None else a


def tensor_for(arr, name):
    a = np.asarray(arr)
    if a.dtype == object:
        return helper.make_tensor(name, T.STRING, a.shape, [s.encode() for s in a.ravel()])
    return helper.make_tensor(name, {np.dtype(bool): T.BOOL, np.dtype(np.int64): T.INT64}[a.dtype],
                              a.shape, a.ravel().tolist())


def split_rows(words, sep):
    """Python's str.split(sep) padded with '' (ORT agrees for non-empty strings)."""
    parts = [w.split(sep) for w in words.ravel()]
    width = max(len(p) for p in parts)
    y = strs(*[x for p in parts for x in p + [""] * (width - len(p))], shape=words.shape + (width,))
    return y, np.array([len(p) for p in parts], np.int64).reshape(words.shape)


def cases():
    a = strs("x", "héllo", "", "日本", shape=(4, 1))
    b = strs("", "!", " wörld", shape=(3,))
    csv = strs("a,b", "ü,,ß,", ",", "no comma", "1,2,3,4,5,6,7", shape=(5,))
    subjects = strs("", "abc", "ab12", "__x9", "a b", "日本語", "aaa", "xy", shape=(8,))
    pats = [r"[a-z]+\d*", r"(ab|cd)*\d{2}", r"\w+", r".{3}", r"a*|x.+", r"(?:[^\s]){2,3}"]
    y_split, z_split = split_rows(csv, ",")
    consts = strs("p q", "r", shape=(2,))
    return [
        ("concat_split_regex",
         model([N("StringConcat", ["a", "b"], ["cat"]),
                N("StringSplit", ["csv"], ["parts", "counts"], delimiter=","),
                N("StringSplit", ["csv"], ["", "counts_only"], delimiter="2,")] +
               [N("RegexFullMatch", ["s"], ["m%d" % i], pattern=p) for i, p in enumerate(pats)],
               [vi("a", T.STRING, [4, 1]), vi("b", T.STRING, [3]), vi("csv", T.STRING, [5]),
                vi("s", T.STRING, [8])],
               [vi("cat", T.STRING, None), vi("parts", T.STRING, None), vi("counts", T.INT64, None),
                vi("counts_only", T.INT64, None)] +
               [vi("m%d" % i, T.BOOL, None) for i in range(len(pats))], opset=20),
         [a, b, csv, subjects],
         [(a + b).astype(object), y_split, z_split, split_rows(csv, "2,")[1]] +
         [np.array([re.fullmatch(p, s, re.ASCII) is not None for s in subjects]) for p in pats]),
        # a constant input: StringSplit is evaluated at compile time, so its static
        # output can feed another node (a run-time split could not)
        ("const_split_feeds",
         model([N("Constant", [], ["c"], value=tensor_for(consts, "c")),
                N("StringSplit", ["c"], ["w", "n"]),
                N("StringConcat", ["w", "suffix"], ["y"])],
               [vi("suffix", T.STRING, [1])], [vi("y", T.STRING, None), vi("n", T.INT64, None)],
               opset=20),
         [strs("!")], [strs("p!", "q!", "r!", "!", shape=(2, 2)), np.array([2, 1], np.int64)]),
    ]


def errors(ingot, work):
    def compile_err(name, node, outputs, want_rc, *want):
        m = model([node], [vi("x", T.STRING, [2])], outputs, opset=20)
        p = save(m, os.path.join(work, name + ".onnx"))
        rc, out, err = run([ingot, "compile", p, "-o", os.path.join(work, "o_" + name)])
        errs = stderr_lines(err)
        check(rc == want_rc and errs and errs[0].startswith(p) and all(w in errs[0] for w in want),
              "%s: exit %d, expected %d with a located error naming %s:\n%s" % (name, rc, want_rc, want, err))

    rx_out = [vi("y", T.BOOL, None)]
    compile_err("bad_pattern", N("RegexFullMatch", ["x"], ["y"], name="rx", pattern="a**"), rx_out, 1,
                "'rx'", "RegexFullMatch", "pattern", "bad repetition operator: **")
    compile_err("backref", N("RegexFullMatch", ["x"], ["y"], name="rx", pattern=r"(a)\1"), rx_out, 1,
                "'rx'", "invalid escape sequence: \\1")
    compile_err("lookahead", N("RegexFullMatch", ["x"], ["y"], name="rx", pattern="(?=a)a"), rx_out, 1,
                "'rx'", "(?=")
    compile_err("unsupported", N("RegexFullMatch", ["x"], ["y"], name="rx", pattern=r"\pL+"), rx_out, 3,
                "'rx'", "Unicode class", "not supported")
    compile_err("no_pattern", N("RegexFullMatch", ["x"], ["y"], name="rx"), rx_out, 1,
                "'rx'", "pattern", "missing")
    compile_err("long_delim", N("StringSplit", ["x"], ["y", "z"], name="sp", delimiter="-" * 64),
                [vi("y", T.STRING, None), vi("z", T.INT64, None)], 1, "'sp'", "delimiter", "64 bytes")
    # an over-long concatenation of constants: a compile error naming the element
    m = model([N("Constant", [], ["k"], value=tensor_for(strs("a" * 40, "b"), "k")),
               N("StringConcat", ["k", "k"], ["y"], name="cat")],
              [], [vi("y", T.STRING, None)], opset=20)
    p = save(m, os.path.join(work, "long_const_concat.onnx"))
    rc, out, err = run([ingot, "compile", p, "-o", os.path.join(work, "o_long_const")])
    errs = stderr_lines(err)
    check(rc == 1 and errs and errs[0].startswith(p) and "'cat'" in errs[0] and "element 0" in errs[0]
          and "80 bytes" in errs[0], "constant over-long concatenation: exit %d\n%s" % (rc, err))
    # a run-time split feeding another node: its size is data-dependent (exit 3)
    m = model([N("StringSplit", ["x"], ["w", "n"], name="sp"), N("StringConcat", ["w", "w"], ["y"])],
              [vi("x", T.STRING, [2])], [vi("y", T.STRING, None), vi("n", T.INT64, None)], opset=20)
    p = save(m, os.path.join(work, "split_feeds.onnx"))
    rc, out, err = run([ingot, "compile", p, "-o", os.path.join(work, "o_split_feeds")])
    check(rc == 3 and "'sp'" in err and "depends on input values" in err,
          "a run-time split feeding a node: exit %d\n%s" % (rc, err))


def test(ingot, work):
    dirs = [write_test_dir(work, *c, to_tensor=tensor_for) for c in cases()]
    check_all_pass(ingot, dirs)
    check_all_pass(ingot, dirs, "--cflags", SANITIZE)

    # the API: a data-dependent bound for StringSplit's pieces, warning-free code
    od = os.path.join(work, "api")
    ingot_compile(ingot, os.path.join(dirs[0], "model.onnx"), od, "tx", "--emit", "exe")
    hdr = open(os.path.join(od, "tx.h")).read()
    # 5 strings of at most 63 bytes on a 1-byte delimiter: at most 64 pieces each
    mdims = re.search(r"#define TX_PARTS_MAX_DIMS \{([^}]*)\}", hdr)
    check(mdims and [int(v) for v in mdims.group(1).split(",")] == [5, 64] and "tx_out_dims" in hdr,
          "tx.h lacks the data-dependent size API of output 'parts' ({5, 64}):\n%s" % hdr)
    for cc in (tool("gcc"), tool("clang")):
        for src in ("tx.c", "tx_main.c"):
            run_ok([cc] + FLAGS + ["-I", od, "-c", os.path.join(od, src), "-o", os.devnull])
    kern = open(os.path.join(od, "kernels", "regex.c")).read()
    check("regex_compile" not in kern and "malloc" not in kern,
          "the generated regex kernel must only match, never parse or allocate")

    # a concatenation over 63 bytes: the run fails with INGOT_ERANGE, reported by the runner
    m = model([N("StringConcat", ["a", "b"], ["y"])], [vi("a", T.STRING, [1]), vi("b", T.STRING, [1])],
              [vi("y", T.STRING, None)], opset=20)
    d = write_test_dir(work, "long_concat", m, [strs("x" * 40), strs("y" * 30)], [strs("x" * 40 + "y" * 30)])
    rc, out, err = run([ingot, "check", d])
    check(rc != 0 and ("FAIL %s" % d in out or "ERROR %s" % d in out),
          "an over-long concatenation must fail its check, got exit %d:\n%s%s" % (rc, out, err))
    errors(ingot, work)


if __name__ == "__main__":
    main(test)
