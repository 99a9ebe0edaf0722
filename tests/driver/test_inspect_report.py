#!/usr/bin/env python3
"""inspect_report: `ingot inspect MODEL` (no --json) prints the report of
docs/cli.md, compared byte for byte with tests/driver/golden/inspect_report.txt (a
depthwise + pointwise conv with Relu, a Flatten view, Gemm, MatMul and Softmax at
-O2). Independently of the golden, the table agrees with `inspect --json`: one row
per node, its params and MACs summing to the JSON's totals, and the summary lines
carrying the JSON's numbers.

    test_inspect_report.py INGOT WORKDIR [--update]   (--update rewrites the golden)
"""
import json
import os
import re

from onnx import TensorProto, helper

from common import check, init, main, model, randf, rng, run_ok, save, vi

N = helper.make_node
F = TensorProto.FLOAT
GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden", "inspect_report.txt")
ROW = re.compile(r"^(\S+)\s+(\S+)\s+(\d+)\s+(\d+)\s+(\d+|output|-)\s+(\d+)  (\S+)$")


def test(ingot, work, *args):
    r = rng(7)
    m = model([N("Conv", ["x", "wd"], ["d"], name="dw", group=4, pads=[1, 1, 1, 1]),
               N("Conv", ["d", "wp", "bp"], ["pw"], name="pw"),
               N("Relu", ["pw"], ["pr"], name="relu"),
               N("Flatten", ["pr"], ["fl"], name="flat"),
               N("Gemm", ["fl", "wg", "bg"], ["g"], name="fc", transB=1),
               N("MatMul", ["g", "wm"], ["mm"], name="mm"),
               N("Softmax", ["mm"], ["y"], name="softmax", axis=1)],
              [vi("x", F, [1, 4, 6, 6])], [vi("y", F, [1, 3])],
              [init("wd", randf(r, 4, 1, 3, 3)), init("wp", randf(r, 6, 4, 1, 1)), init("bp", randf(r, 6)),
               init("wg", randf(r, 5, 216)), init("bg", randf(r, 5)), init("wm", randf(r, 5, 3))])
    save(m, os.path.join(work, "small.onnx"))
    out, _ = run_ok([ingot, "inspect", "small.onnx"], cwd=work)
    if "--update" in args:
        with open(GOLDEN, "w") as f:
            f.write(out)
        print("updated", GOLDEN)
    with open(GOLDEN) as f:
        want = f.read()
    check(out == want, "inspect output differs from %s:\n--- got\n%s--- want\n%s" % (GOLDEN, out, want))

    js = json.loads(run_ok([ingot, "inspect", "small.onnx", "--json"], cwd=work)[0])
    rows = [ROW.match(l) for l in out.splitlines()]
    rows = [x for x in rows if x and x.group(1) != "op"]
    check(len(rows) == js["nodes"], "%d table rows, --json has %d nodes" % (len(rows), js["nodes"]))
    check(sum(int(x.group(4)) for x in rows) == js["macs"], "the rows' MACs do not sum to --json's")
    check(sum(int(x.group(3)) for x in rows) == js["params"], "the rows' params do not sum to --json's")
    for key, field in (("params", "params"), ("macs", "macs"), ("peak live", "peak_live_bytes"),
                       ("workspace", "workspace_bytes")):
        check(re.search(r"^%s:\s+%d\b" % (key, js[field]), out, re.M), "summary line '%s' lacks %d" %
              (key, js[field]))
    for op, count in js["ops"].items():
        check(re.search(r"^  %s\s+%d  #+$" % (op, count), out, re.M), "histogram lacks %s %d" % (op, count))


if __name__ == "__main__":
    main(test)
