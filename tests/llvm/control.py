#!/usr/bin/python3
"""Suite llvm: If, Loop and Scan through --backend llvm (their bodies inline in the graph
function), checked by `ingot check` against numpy on models the passes cannot fold:
- If on a graph input, each branch reading an outer value (x) and a constant, run
  with the condition true and false;
- Loop with its trip count and condition from graph inputs, a carried value that
  adds an outer value times the iteration number, a body-made condition (stop once
  the sum passes a bound) and a scan output whose first dim is the trip count (a
  data-dependent size, read back through NAME_out_dims);
- Scan over an inner axis of its input, backwards, with its scan output along an
  inner axis (slices gathered into and scattered from the node's own buffers).

    control.py INGOT WORK
"""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ingot, work = sys.argv[1:]
F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def save_case(name, model, cases):
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(d, "model.onnx"))
    for k, (ins, outs) in enumerate(cases):
        s = os.path.join(d, "test_data_set_%d" % k)
        os.makedirs(s, exist_ok=True)
        for pre, arrs, vis in (("input", ins, model.graph.input), ("output", outs, model.graph.output)):
            for i, a in enumerate(arrs):
                with open(os.path.join(s, "%s_%d.pb" % (pre, i)), "wb") as f:
                    f.write(numpy_helper.from_array(a, vis[i].name).SerializeToString())
    return d


def loop_body(prefix):
    """(i, cond_in, s) -> (cond_out, s + x * i, s + x * i): stops once sum(s) > 20."""
    return helper.make_graph(
        [helper.make_node("Cast", ["i"], [prefix + "fi"], to=F),
         helper.make_node("Mul", ["x", prefix + "fi"], [prefix + "xi"]),
         helper.make_node("Add", ["s", prefix + "xi"], ["s_out"]),
         helper.make_node("ReduceSum", ["s_out"], [prefix + "tot"], keepdims=0),
         helper.make_node("Less", [prefix + "tot", "bound"], ["cond_out"]),
         helper.make_node("Identity", ["s_out"], ["scan"])],
        prefix + "body",
        [helper.make_tensor_value_info("i", I64, []), helper.make_tensor_value_info("cond_in", B, []),
         helper.make_tensor_value_info("s", F, [3])],
        [helper.make_tensor_value_info("cond_out", B, []), helper.make_tensor_value_info("s_out", F, [3]),
         helper.make_tensor_value_info("scan", F, [3])])


def loop_ref(m, cond, x, s0):
    s, rows, i = s0.astype(np.float32), [], 0
    while i < m and cond:
        s = (s + x * np.float32(i)).astype(np.float32)
        rows.append(s)
        cond = bool(s.sum() < 20)
        i += 1
    return s, np.array(rows, dtype=np.float32).reshape(len(rows), 3)


bound = numpy_helper.from_array(np.array(20, dtype=np.float32), "bound")
x = np.array([0.5, 1.0, -0.25], dtype=np.float32)
s0 = np.array([1, 2, 3], dtype=np.float32)

# If on a graph input
then_g = helper.make_graph([helper.make_node("Add", ["x", "one"], ["t"])], "then", [],
                           [helper.make_tensor_value_info("t", F, [3])],
                           [numpy_helper.from_array(np.ones(3, np.float32), "one")])
else_g = helper.make_graph([helper.make_node("Mul", ["x", "x"], ["e"])], "else", [],
                           [helper.make_tensor_value_info("e", F, [3])])
g = helper.make_graph([helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)], "if_in",
                      [helper.make_tensor_value_info("c", B, []), helper.make_tensor_value_info("x", F, [3])],
                      [helper.make_tensor_value_info("y", F, [3])])
dirs = [save_case("if_input", helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]),
                  [([np.array(c), x], [x + 1 if c else x * x]) for c in (True, False)])]

# Loop with run-time trip count and condition
g = helper.make_graph([helper.make_node("Loop", ["m", "c", "s0"], ["s_final", "rows"], body=loop_body("l_"))],
                      "loop_in",
                      [helper.make_tensor_value_info("m", I64, []), helper.make_tensor_value_info("c", B, []),
                       helper.make_tensor_value_info("x", F, [3]), helper.make_tensor_value_info("s0", F, [3])],
                      [helper.make_tensor_value_info("s_final", F, [3]),
                       helper.make_tensor_value_info("rows", F, ["n", 3])], [bound])
cases = []
for m, c in ((5, True), (2, True), (7, False), (0, True)):
    s, rows = loop_ref(m, c, x, s0)
    cases.append(([np.array(m, dtype=np.int64), np.array(c), x, s0], [s, rows]))
dirs.append(save_case("loop_in", helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), cases))

# Scan-9 over axis 1 of its input, backwards, its scan output along axis 1 (the slices
# gathered into and scattered from the node's buffers): a running sum of columns
body = helper.make_graph([helper.make_node("Add", ["acc", "col"], ["acc_out"]),
                          helper.make_node("Mul", ["acc_out", "two"], ["y"])], "scan_body",
                         [helper.make_tensor_value_info("acc", F, [2]), helper.make_tensor_value_info("col", F, [2])],
                         [helper.make_tensor_value_info("acc_out", F, [2]), helper.make_tensor_value_info("y", F, [2])],
                         [numpy_helper.from_array(np.array([2, 2], np.float32), "two")])
g = helper.make_graph([helper.make_node("Scan", ["a0", "xs"], ["a_final", "ys"], body=body, num_scan_inputs=1,
                                        scan_input_axes=[1], scan_input_directions=[1], scan_output_axes=[1])],
                      "scan_axes",
                      [helper.make_tensor_value_info("a0", F, [2]), helper.make_tensor_value_info("xs", F, [2, 5])],
                      [helper.make_tensor_value_info("a_final", F, [2]), helper.make_tensor_value_info("ys", F, [2, 5])])
xs = np.arange(10, dtype=np.float32).reshape(2, 5) * 0.5 - 1
a0 = np.array([1, -1], dtype=np.float32)
acc, ys = a0.copy(), np.zeros((2, 5), np.float32)
for step, col in enumerate(range(4, -1, -1)):
    acc = acc + xs[:, col]
    ys[:, step] = acc * 2
dirs.append(save_case("scan_axes", helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]),
                      [([a0, xs], [acc, ys])]))
r = subprocess.run([ingot, "check", "--backend", "llvm", "--target", "host", *dirs, "-j", "2"], capture_output=True,
                   text=True)
print(r.stdout + r.stderr)
passed = [line for line in r.stdout.splitlines() if line.startswith("PASS ")]
sys.exit(0 if r.returncode == 0 and len(passed) == len(dirs) else 1)
