#!/usr/bin/python3
"""The newest-opsets section of docs/conformance.md: `ingot check` over tests/ort's
cases (opsets 17-26, expected outputs from ONNX Runtime), per op and opset, and the
status of each op and type that ONNX added after opset 23 (supported when the op table,
compiler/ir/ops.h, or the element types, compiler/ir/ir.h, have it).

usage: report.py CHECK_OUTPUT CASES_DIR ROOT   (prints the section; tests/conformance/run.sh
       calls it and appends it to the report)
       report.py --index ROOT   (prints only the per-opset table of opsets 24-28, the last
       part of the section, so it can be refreshed without a conformance run)
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
              "Binarizer", "ArrayFeatureExtractor", "Scaler", "Normalizer", "Imputer", "LinearRegressor"]
NEWEST_TYPES = {"FLOAT8E8M0": "DT_F8E8M0", "INT2": "DT_I2", "UINT2": "DT_U2"}   # ONNX: ir.h
WHY_MISSING = {}

# Every ai.onnx op whose version changed in opsets 24-28, and ai.onnx.preview: (opset, ops,
# what changed, where ingot checks it). Sources, read 2026-12-04: onnx/onnx
# onnx/defs/operator_sets.h at 9633c87772a7d7ee0ed1fe5887ce87797fe47696 (the newest copy
# the library holds) stops at opset 23, so the per-opset lists come from ONNX's release
# notes: v1.19.0 (opset 24: "Added Swish op", "Added TensorScatter op and updated Attention
# op", "Enabled FLOAT8E8M0 for QuantizeLinear, DequantizeLinear, Cast, CastLike, Constant,
# ConstantOfShape, Identity, Reshape, Shape, Size, If, Loop, Scan, Flatten, Pad, Squeeze,
# Unsqueeze, and Transpose", "Enabled BF16 for TopK and SplitToSequence") and v1.20.0
# (opset 25, "Add 2 bit support", updated op list: the same 18 ops), the sourceforge
# mirror of github.com/onnx/onnx/releases; opset 26 (ONNX 1.21): BitCast and CumProd, the
# new ops of onnx/onnx-mlir PR 3469 and microsoft/onnxruntime PR 27601; opset 27 (ONNX
# 1.22): LinearAttention and CausalConvWithState, onnx/onnx PR 7950; opset 28 (ONNX main):
# SwiGLU, onnx.ai/onnx/operators/onnx__SwiGLU (since_version 28); BitCast's types from
# onnx.ai/onnx/operators/onnx__BitCast.
TYPE_OPS = ("Cast, CastLike, Constant, ConstantOfShape, QuantizeLinear, DequantizeLinear, "
            "Identity, Reshape, Shape, Size, Flatten, Pad, Squeeze, Unsqueeze, Transpose, If, "
            "Loop, Scan")
OPSET_INDEX = [
    (24, "Swish", "new op (x * sigmoid(alpha x))", "supported: `tests/driver/test_swish.py`"),
    (24, "TensorScatter", "new op (KV-cache write, linear or circular)",
     "supported: `tests/ort` tensorscatter_24_*"),
    (24, "Attention", "7th input `nonpad_kv_seqlen`", "supported: `tests/ort` attention_24_*"),
    (24, TYPE_OPS, "type FLOAT8E8M0 (Cast/CastLike: attribute `round_mode`; Q/DQ: E8M0 scales)",
     "supported: `tests/ort` cast_24_*, `small_types_24` (Cast every round_mode, Q/DQ scales, "
     "Reshape, Identity, Constant, If, Loop, Scan, Shape, Size)"),
    (24, "TopK, SplitToSequence", "type BFLOAT16", "supported: `small_types_24` topk_splittoseq_bf16"),
    (25, TYPE_OPS, "types INT2, UINT2", "supported: `tests/ort` cast_25_*, qdq_25_*, "
     "`small_types_24` (Cast, Q/DQ zero points, movement ops, Constant, ConstantOfShape, If, "
     "Loop, Scan)"),
    (26, "BitCast", "new op (the bits as type `to` of equal bit width)",
     "supported: `tests/ort` bitcast_26_*, `small_types_24` (FLOAT8E8M0, 4- and 2-bit types); "
     "COMPLEX64/128 refused: ingot carries no complex tensors"),
    (26, "CumProd", "new op", "supported: `tests/ort` cumprod_26_*"),
    (27, "LinearAttention", "new op (linear, gated, delta, gated_delta)",
     "supported: `tests/driver/test_seq_ops.py` (numpy)"),
    (27, "CausalConvWithState", "new op", "supported: `tests/driver/test_seq_ops.py` (numpy)"),
    (28, "SwiGLU", "new op (in development at ONNX main)",
     "supported: `tests/driver/test_seq_ops.py` (numpy)"),
    ("preview 1", "FlexAttention", "new op (ai.onnx.preview)",
     "supported: `tests/driver/test_seq_ops.py` (numpy)"),
]


def index_table(root):
    """The per-opset table; an op missing from the op table shows as not supported
    (Constant, which the frontend turns into a constant value, has no row there)."""
    ops_h = open(os.path.join(root, "compiler", "ir", "ops.h")).read()
    have_ops = set(re.findall(r"^\s*X\(\w+, (\w+), \w+,", ops_h, re.M)) | {"Constant"}
    out = ["", "### Every op changed in opsets 24-28", "",
           "Each ai.onnx op whose version changed in opsets 24-28 (and ai.onnx.preview), what "
           "changed, and where ingot checks it (sources: `tests/ort/report.py`).", "",
           "| opset | ops | change | ingot |", "|---|---|---|---|"]
    for opset, ops, change, status in OPSET_INDEX:
        missing = [o for o in ops.split(", ") if o not in have_ops]
        out.append("| %s | %s | %s | %s |" % (opset, ops, change, status if not missing else
                                             "not supported: " + ", ".join(missing)))
    return out


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
    out += index_table(root)
    print("\n".join(out))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--index"]:
        print("\n".join(index_table(sys.argv[2])))
    else:
        main()
