#!/usr/bin/python3
"""The newest-opsets section of docs/conformance.md: `ingot check` over tests/ort's
cases (opsets 17-26, expected outputs from ONNX Runtime), per op and opset, and the
status of each op and type that ONNX added after opset 23 (supported when the op table,
compiler/ir/ops.h, or the element types, compiler/ir/ir.h, have it).

usage: report.py CHECK_OUTPUT CASES_DIR ROOT   (prints the section; tests/conformance/run.sh
       calls it and appends it to the report)
"""
import collections
import os
import re
import sys

import onnx

# ops and types ONNX defined after opset 23 (ONNX's operator index and its changelog),
# and the reason ingot lacks the ones it lacks; "" = no reason recorded
NEWEST_OPS = ["Swish", "TensorScatter", "CumProd", "BitCast", "SwiGLU", "LinearAttention",
              "CausalConvWithState", "FlexAttention",
              # ai.onnx.ml, the ops sklearn-onnx exports for trees and encoders
              "TreeEnsembleClassifier", "TreeEnsembleRegressor", "TreeEnsemble", "LabelEncoder",
              "Binarizer", "ArrayFeatureExtractor"]
NEWEST_TYPES = {"FLOAT8E8M0": "DT_F8E8M0", "INT2": "DT_I2", "UINT2": "DT_U2"}   # ONNX: ir.h
WHY_MISSING = {}


def parse(path):
    res = {}
    for line in open(path):
        m = re.match(r"^(PASS|FAIL|UNSUPPORTED|ERROR) (\S+?)(?:: (.*))?$", line.rstrip("\n"))
        if m:
            res[os.path.basename(m.group(2).rstrip("/"))] = m.group(1)
    return res


def main():
    results = parse(sys.argv[1])
    cases, root = sys.argv[2], sys.argv[3]
    ops_h = open(os.path.join(root, "compiler", "ir", "ops.h")).read()
    have_ops = set(re.findall(r"^\s*X\(\w+, (\w+), \w+,", ops_h, re.M))
    ir_h = open(os.path.join(root, "compiler", "ir", "ir.h")).read()
    per = collections.defaultdict(collections.Counter)   # (op, opset) -> kind counts
    total = collections.Counter()
    for name in sorted(os.listdir(cases)):
        path = os.path.join(cases, name, "model.onnx")
        if not os.path.exists(path):
            continue
        model = onnx.load(path)
        opsets = {("" if o.domain == "ai.onnx" else o.domain): o.version for o in model.opset_import}
        kind = results.get(name, "NOT RUN")
        total[kind] += 1
        for op, domain in sorted({(n.op_type, n.domain) for n in model.graph.node}):
            per[(op + (" (%s)" % domain if domain not in ("", "ai.onnx") else ""),
                 opsets.get("" if domain == "ai.onnx" else domain, 0))][kind] += 1
    out = ["## Opsets 17-26 and ai.onnx.ml against ONNX Runtime (`tests/ort`)", "",
           "Debian's python3-onnx (1.12) has no node tests past opset 17: `tests/ort/make_tests.py` "
           "writes %d small cases and ONNX Runtime (onnxruntime-node) computes their expected "
           "outputs; `ingot check` runs them (suite unit, test `ort_reference`). A case counts for "
           "every op its model uses, at its domain's opset. Passed: %d of %d." % (sum(total.values()), total["PASS"],
                                                           sum(total.values())), "",
           "| op | opset | cases | pass | not passed |", "|---|---|---|---|---|"]
    for (op, opset), c in sorted(per.items()):
        n = sum(c.values())
        out.append("| %s | %d | %d | %d | %d |" % (op, opset, n, c["PASS"], n - c["PASS"]))
    out += ["", "## Ops and types after opset 23, and ai.onnx.ml", "",
            "Status read from the op table (`compiler/ir/ops.h`) and the element types "
            "(`compiler/ir/ir.h`) of this commit.", "",
            "| op or type | ingot |", "|---|---|"]
    for op in NEWEST_OPS:
        out.append("| %s | %s |" % (op, "supported" if op in have_ops else
                                    "not supported" + (": " + WHY_MISSING[op] if op in WHY_MISSING else "")))
    for t, dt in NEWEST_TYPES.items():
        have = re.search(r"\b%s\b" % dt, ir_h) is not None
        out.append("| type %s | %s |" % (t, "supported" if have else "not supported"))
    print("\n".join(out))


if __name__ == "__main__":
    main()
