#!/usr/bin/env python3
"""edge_io: graph interfaces that stress the generator: ONNX names that are C
keywords or hold '/', '"', '\\' and '*/'; an input passed straight through to an
output and one value listed twice as an output; a model without inputs; bool,
float16 and int8 inputs. Each compiles warning-free under -Wpedantic -Werror with
clang and gcc, its typed NAME_run has the C types of docs/api.md, and its runner
writes what numpy computes (output names preserved in the .pb files)."""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from common import assert_close, check, ingot_compile, main, model, run_ok, save, tool, vi

T = TensorProto
N = helper.make_node
FLAGS = ["-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Werror"]


def cases():
    k = numpy_helper.from_array(np.array([1.5, -2.0], np.float32), "k")
    a = np.array([-1.0, 2.0], np.float32)
    x3 = np.array([-1.0, 2.0, -3.0], np.float32)
    b = np.array([True, False, True, False])
    h = np.array([1.5, -2.0, 65504.0], np.float16)
    i8 = np.array([-128, 0, 127], np.int8)
    return [
        ("names",
         model([N("Relu", ["int"], ["a/b"], name="n*/1"), N("Neg", ["a/b"], ["a_b"], name='n"2'),
                N("Identity", ["int"], ['out\\"x'], name="id */")],
               [vi("int", T.FLOAT, [2])],
               [vi("a/b", T.FLOAT, None), vi("a_b", T.FLOAT, None), vi('out\\"x', T.FLOAT, None)]),
         [a], [("a/b", np.maximum(a, 0)), ("a_b", -np.maximum(a, 0)), ('out\\"x', a)],
         "int names_run(const float *int_, float *a_b, float *a_b_2, float *out__x, void *workspace);"),
        ("passthru",
         model([N("Relu", ["x"], ["y"], name="r")], [vi("x", T.FLOAT, [3])],
               [vi("x", T.FLOAT, [3]), vi("y", T.FLOAT, [3]), vi("y", T.FLOAT, [3])]),
         [x3], [("x", x3), ("y", np.maximum(x3, 0)), ("y", np.maximum(x3, 0))], None),
        ("noinput",
         model([N("Constant", [], ["c"], name="k", value=k), N("Relu", ["c"], ["y"], name="r")], [],
               [vi("y", T.FLOAT, None)]),
         [], [("y", np.array([1.5, 0.0], np.float32))], "int noinput_run(float *y, void *workspace);"),
        ("dtypes",
         model([N("Not", ["b"], ["nb"], name="not"), N("Cast", ["h"], ["hf"], name="c1", to=T.FLOAT),
                N("Cast", ["i"], ["ii"], name="c2", to=T.INT32)],
               [vi("b", T.BOOL, [4]), vi("h", T.FLOAT16, [3]), vi("i", T.INT8, [3])],
               [vi("nb", T.BOOL, None), vi("hf", T.FLOAT, None), vi("ii", T.INT32, None)]),
         [b, h, i8], [("nb", ~b), ("hf", h.astype(np.float32)), ("ii", i8.astype(np.int32))],
         "int dtypes_run(const bool *b, const uint16_t *h, const int8_t *i, bool *nb, float *hf, "
         "int32_t *ii, void *workspace);"),
    ]


def test(ingot, work):
    compilers = [tool("clang"), tool("gcc")]
    for name, m, inputs, outputs, proto in cases():
        mp = save(m, os.path.join(work, name + ".onnx"))
        d = os.path.join(work, name)
        ingot_compile(ingot, mp, d, name, "--emit", "exe")
        hdr = open(os.path.join(d, name + ".h")).read()
        if proto:
            check(proto in hdr, "%s.h lacks the prototype\n  %s\ngot:\n%s" % (name, proto, hdr))
        for cc in compilers:
            for src in (name + ".c", name + "_main.c"):
                run_ok([cc] + FLAGS + ["-I", d, "-c", os.path.join(d, src), "-o", os.devnull])
        args = []
        for i, arr in enumerate(inputs):
            p = os.path.join(work, "%s_in%d.pb" % (name, i))
            with open(p, "wb") as f:
                f.write(numpy_helper.from_array(arr, m.graph.input[i].name).SerializeToString())
            args += ["--input", p]
        od = os.path.join(work, "out_" + name)
        os.makedirs(od)
        run_ok([os.path.join(d, name)] + args + ["--output-dir", od])
        for i, (oname, want) in enumerate(outputs):
            t = onnx.load_tensor(os.path.join(od, "output_%d.pb" % i))
            check(t.name == oname, "%s: output_%d.pb is named %r, expected %r" % (name, i, t.name, oname))
            assert_close(numpy_helper.to_array(t), want, "%s output %d" % (name, i))


if __name__ == "__main__":
    main(test)
