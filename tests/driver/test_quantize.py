#!/usr/bin/python3
"""quantize: `ingot compile --quantize int8 --calibrate DIR` (docs/cli.md). Small nets
generated here (a conv net with BatchNormalization and residual Add, a MatMul MLP, a
depthwise net) are calibrated on seeded random inputs; the IR after quantization must
have integer nodes, the int8 build's outputs must follow the fp32 build's (cosine >
0.99, computed here from both runners' outputs), the calibration methods must give
different, sensible scales (percentile and entropy clip an outlier that minmax keeps),
--keep-float must keep a node float, bad flags and bad calibration folders give one
clear error line, and inspect --json's report must be present and consistent."""
import json
import os
import re

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from common import Fail, check, init, main, model, run, run_ok, save, vi

F = TensorProto.FLOAT


def conv_net(r):
    """Conv-BN-Relu, MaxPool, a residual block, GlobalAveragePool, Flatten, Gemm."""
    def w(*shape):
        fan = int(np.prod(shape[1:]))
        return (r.randn(*shape) * np.sqrt(2.0 / fan)).astype(np.float32)
    c = 8
    inits = [init("w1", w(c, 3, 3, 3)), init("b1", np.zeros(c, np.float32)),
             init("bn_s", (1 + 0.1 * r.rand(c)).astype(np.float32)),
             init("bn_b", (0.1 * r.randn(c)).astype(np.float32)),
             init("bn_m", (0.1 * r.randn(c)).astype(np.float32)),
             init("bn_v", (1 + 0.1 * r.rand(c)).astype(np.float32)),
             init("w2", w(c, c, 3, 3)), init("b2", (0.1 * r.randn(c)).astype(np.float32)),
             init("w3", w(c, c, 3, 3)), init("b3", (0.1 * r.randn(c)).astype(np.float32)),
             init("fc_w", w(10, c)), init("fc_b", (0.1 * r.randn(10)).astype(np.float32)),
             init("shape", np.array([1, -1], np.int64))]
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
             helper.make_node("BatchNormalization", ["c1", "bn_s", "bn_b", "bn_m", "bn_v"], ["n1"], name="bn1"),
             helper.make_node("Relu", ["n1"], ["r1"], name="relu1"),
             helper.make_node("MaxPool", ["r1"], ["p1"], name="pool1", kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Conv", ["p1", "w2", "b2"], ["c2"], name="conv2", pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
             helper.make_node("Conv", ["r2", "w3", "b3"], ["c3"], name="conv3", pads=[1, 1, 1, 1]),
             helper.make_node("Add", ["c3", "p1"], ["a3"], name="add3"),
             helper.make_node("Relu", ["a3"], ["r3"], name="relu3"),
             helper.make_node("GlobalAveragePool", ["r3"], ["g"], name="gap"),
             helper.make_node("Reshape", ["g", "shape"], ["f"], name="flat"),
             helper.make_node("Gemm", ["f", "fc_w", "fc_b"], ["y"], name="fc", transB=1)]
    return model(nodes, [vi("x", F, [1, 3, 16, 16])], [vi("y", F, [1, 10])], inits)


def mlp(r):
    inits = [init("w1", (r.randn(32, 64) / np.sqrt(32)).astype(np.float32)),
             init("b1", (0.1 * r.randn(64)).astype(np.float32)),
             init("w2", (r.randn(64, 10) / np.sqrt(64)).astype(np.float32)),
             init("b2", (0.1 * r.randn(10)).astype(np.float32))]
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["m1"], name="mm1"),
             helper.make_node("Add", ["m1", "b1"], ["h1"], name="bias1"),
             helper.make_node("Relu", ["h1"], ["r1"], name="relu1"),
             helper.make_node("MatMul", ["r1", "w2"], ["m2"], name="mm2"),
             helper.make_node("Add", ["m2", "b2"], ["y"], name="bias2"),
             helper.make_node("Softmax", ["y"], ["p"], name="softmax", axis=1)]
    return model(nodes, [vi("x", F, [4, 32])], [vi("p", F, [4, 10])], inits)


def depthwise(r):
    c = 8
    inits = [init("w1", (r.randn(c, 3, 1, 1) * 0.8).astype(np.float32)),
             init("dw", (r.randn(c, 1, 3, 3) * np.array([0.05, 0.2, 1, 3, 0.1, 0.5, 2, 0.02])
                         .reshape(c, 1, 1, 1) / 3).astype(np.float32)),
             init("w3", (r.randn(4, c, 1, 1) / np.sqrt(c)).astype(np.float32))]
    nodes = [helper.make_node("Conv", ["x", "w1"], ["c1"], name="pw1"),
             helper.make_node("Clip", ["c1", "lo", "hi"], ["r1"], name="relu6"),
             helper.make_node("Conv", ["r1", "dw"], ["c2"], name="dw2", group=c, pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
             helper.make_node("Conv", ["r2", "w3"], ["y"], name="pw3")]
    inits += [init("lo", np.array(0, np.float32)), init("hi", np.array(6, np.float32))]
    return model(nodes, [vi("x", F, [1, 3, 12, 12])], [vi("y", F, [1, 4, 12, 12])], inits)


def identity_net():
    """y = Relu(Conv1x1(x, identity)): exact in u8 for integer inputs in [0, 255]."""
    w = np.eye(3, dtype=np.float32).reshape(3, 3, 1, 1)
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], name="conv"),
             helper.make_node("Relu", ["c"], ["y"], name="relu")]
    return model(nodes, [vi("x", F, [1, 3, 8, 8])], [vi("y", F, [1, 3, 8, 8])], [init("w", w)])


def write_sets(d, arrays, layout="flat"):
    os.makedirs(d)
    for i, a in enumerate(arrays):
        if layout == "flat":
            np.save(os.path.join(d, "in%03d.npy" % i), a)
        else:
            s = os.path.join(d, "test_data_set_%d" % i)
            os.makedirs(s)
            with open(os.path.join(s, "input_0.pb"), "wb") as f:
                f.write(numpy_helper.from_array(a, "x").SerializeToString())


def ir_of(ingot, m, cal, *extra):
    out, err = run_ok([ingot, "inspect", m, "--quantize", "int8", "--calibrate", cal, "--dump-ir", "-"]
                      + list(extra))
    return out


def out_scale(ir):
    """The output scale of the (one) QLinearConv: its value's quantized type."""
    m = re.search(r"= QLinearConv\(.*\} : u8\[[^\]]*\]!q\(([^,]+),", ir)
    check(m, "no QLinearConv output scale in:\n%s" % ir)
    return float(m.group(1))


def run_exe(exe, inputs, work):
    outs = []
    for i, a in enumerate(inputs):
        p = os.path.join(work, "run_in%d.npy" % i)
        np.save(p, a)
        od = os.path.join(work, "run_out%d" % i)
        os.makedirs(od, exist_ok=True)
        run_ok([exe, "--input", p, "--output-dir", od])
        outs.append(np.load(os.path.join(od, "output_0.npy")))
    return np.concatenate([o.ravel() for o in outs])


def cosine(a, b):
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


def accuracy(ingot, work, name, m, shape, r, want_ops, *extra):
    """Quantizes m, checks its IR and its outputs against the fp32 build."""
    path = save(m, os.path.join(work, name + ".onnx"))
    cal = os.path.join(work, name + "_cal")
    write_sets(cal, [r.randn(*shape).astype(np.float32) for _ in range(64)], "check" if name == "mlp" else "flat")
    ir = ir_of(ingot, path, cal, *extra)
    for op in want_ops:
        check(" = %s(" % op in ir, "%s: no %s after quantization:\n%s" % (name, op, ir))
    q, f = os.path.join(work, name + "_q"), os.path.join(work, name + "_f")
    _, err = run_ok([ingot, "compile", path, "-o", q, "--name", "m", "--emit", "exe", "--quantize", "int8",
                     "--calibrate", cal] + list(extra))
    check("ingot: int8 (" in err and "output '" in err, "%s: no report after the compile:\n%s" % (name, err))
    run_ok([ingot, "compile", path, "-o", f, "--name", "m", "--emit", "exe"])
    test = [r.randn(*shape).astype(np.float32) for _ in range(4)]
    yq, yf = run_exe(os.path.join(q, "m"), test, q), run_exe(os.path.join(f, "m"), test, f)
    cs = cosine(yq, yf)
    check(cs > 0.99, "%s: int8 outputs have cosine %.5f with fp32" % (name, cs))
    check(np.abs(yq - yf).max() > 0, "%s: int8 outputs equal fp32 exactly (not quantized?)" % name)
    # the report: every quantized node measured, worst first, outputs consistent
    out, _ = run_ok([ingot, "inspect", path, "--json", "--quantize", "int8", "--calibrate", cal] + list(extra))
    rep = json.loads(out)["quantization"]
    sq = [n["sqnr_db"] for n in rep["nodes"]]
    check(sq and all(s is not None for s in sq), "%s: unmeasured nodes in %s" % (name, rep["nodes"]))
    check(sq == sorted(sq), "%s: nodes not worst first: %s" % (name, sq))
    check(all(s > 10 for s in sq), "%s: a node's SQNR is below 10 dB: %s" % (name, rep["nodes"]))
    check(rep["sets"] == 64 and rep["report_sets"] == 10 and rep["calibration"] == "minmax", "%s: report header %s" % (name, rep))
    o = rep["outputs"][0]
    check(0.99 < o["cosine"] <= 1.0 + 1e-9 and o["max_abs_err"] > 0, "%s: output report %s" % (name, o))
    print("%s: cosine %.5f (report %.5f), SQNR %s dB" % (name, cs, o["cosine"], ["%.1f" % s for s in sq]))
    return rep, ir


def test(ingot, work, *_):
    r = np.random.RandomState(7)
    rep, ir = accuracy(ingot, work, "conv", conv_net(r), (1, 3, 16, 16), r, ["QLinearConv", "QLinearMatMul"])
    check("top1_agreement" in rep["outputs"][0], "conv: classifier output without top-1: %s" % rep["outputs"])
    check("BatchNormalization" not in ir, "conv: BatchNormalization not folded before quantization")
    rep, ir = accuracy(ingot, work, "mlp", mlp(r), (4, 32), r, ["QLinearMatMul"])
    check(any(f["op"] == "Softmax" for f in rep["float"]), "mlp: Softmax not reported float: %s" % rep["float"])
    check(" = Softmax(" in ir, "mlp: Softmax did not stay float")
    _, ir = accuracy(ingot, work, "depthwise", depthwise(r), (1, 3, 12, 12), r, ["QLinearConv"])
    check("group=8" in ir and re.search(r"QLinearConv\([^)]*\) \{[^}]*group=8", ir),
          "depthwise: the depthwise conv is not integer:\n%s" % ir)
    # s8 symmetric activations
    ir = ir_of(ingot, os.path.join(work, "conv.onnx"), os.path.join(work, "conv_cal"), "--activations", "s8")
    check(re.search(r"QLinearConv\(.*: i8\[", ir), "s8: no i8 activations:\n%s" % ir)

    # calibration methods on an outlier: one value of 64 sets is 1000, which minmax
    # keeps; percentile (its tail is under 0.01%) and entropy clip it. MSE keeps a lone far
    # outlier (clipping it costs more than the coarse steps), and clips a Gaussian's tail.
    ident = save(identity_net(), os.path.join(work, "ident.onnx"))
    arrs = [np.abs(r.randn(1, 3, 8, 8)).astype(np.float32) for _ in range(64)]
    gauss = os.path.join(work, "gauss_cal")
    write_sets(gauss, arrs)
    arrs = [a.copy() for a in arrs]
    arrs[3][0, 1, 2, 2] = 1000.0
    cal = os.path.join(work, "outlier_cal")
    write_sets(cal, arrs, "check")
    scales = {}
    for meth in ["minmax", "percentile", "percentile=99.9", "entropy", "mse"]:
        scales[meth] = out_scale(ir_of(ingot, ident, cal, "--calibration", meth))
    g_min = out_scale(ir_of(ingot, ident, gauss, "--calibration", "minmax"))
    g_mse = out_scale(ir_of(ingot, ident, gauss, "--calibration", "mse"))
    print("scales:", scales, "gaussian minmax %g mse %g" % (g_min, g_mse))
    check(abs(scales["minmax"] - 1000.0 / 255) < 1e-3, "minmax scale %g, want 1000/255" % scales["minmax"])
    for meth in ["percentile", "percentile=99.9", "entropy"]:
        check(0 < scales[meth] < scales["minmax"] / 5, "%s does not clip the outlier: %s" % (meth, scales))
        check(scales[meth] * 255 > 1.0, "%s clips the bulk of the data: %s" % (meth, scales))
    check(scales["mse"] <= scales["minmax"], "mse widens the range: %s" % scales)
    check(g_min / 3 < g_mse < g_min, "mse on a Gaussian: %g, minmax %g" % (g_mse, g_min))
    clipped = [scales[m] for m in ["percentile", "percentile=99.9", "entropy"]]
    check(len(set(clipped)) == 3, "methods gave equal scales: %s" % scales)
    check(scales["percentile=99.9"] < scales["percentile"], "percentile=99.9 clips less than 99.99: %s" % scales)

    # an exact-ish net: integer inputs in [0, 255] through an identity conv
    exact = os.path.join(work, "exact_cal")
    ints = [r.randint(0, 256, (1, 3, 8, 8)).astype(np.float32) for _ in range(4)]
    for a in ints:
        a[0, 0, 0, 0] = 255.0
    write_sets(exact, ints)
    out, _ = run_ok([ingot, "inspect", ident, "--json", "--quantize", "int8", "--calibrate", exact])
    rep = json.loads(out)["quantization"]
    check(rep["nodes"][0]["sqnr_db"] > 60, "exact net: SQNR %s" % rep["nodes"])
    check(rep["outputs"][0]["cosine"] > 0.99999, "exact net: %s" % rep["outputs"])

    # --keep-float by node name and by op type
    conv = os.path.join(work, "conv.onnx")
    ccal = os.path.join(work, "conv_cal")
    ir = ir_of(ingot, conv, ccal, "--keep-float", "conv2")
    check(ir.count(" = QLinearConv(") == 2 and re.search(r" = Conv\(.*loc\(\"conv2\"", ir),
          "--keep-float conv2: conv2 not float:\n%s" % ir)
    out, _ = run_ok([ingot, "inspect", conv, "--json", "--quantize", "int8", "--calibrate", ccal,
                     "--keep-float", "Gemm"])
    rep = json.loads(out)["quantization"]
    check({"node": "fc", "op": "Gemm", "why": "--keep-float"} in rep["float"], "keep Gemm: %s" % rep["float"])
    check(all(n["op"] != "Gemm" for n in rep["nodes"]), "keep Gemm: Gemm quantized: %s" % rep["nodes"])

    # bad flags and bad folders: one clear line, the usual exit codes
    empty = os.path.join(work, "empty")
    os.makedirs(empty)
    wrong = os.path.join(work, "wrong")
    write_sets(wrong, [np.zeros((1, 3, 9, 9), np.float32)])
    cases = [(["--calibrate", ccal], 2, "need --quantize int8"),
             (["--reduce-range"], 2, "--reduce-range need --quantize int8"),
             (["--quantize", "int8"], 2, "needs --calibrate DIR"),
             (["--quantize", "int4", "--calibrate", ccal], 2, "--quantize expects int8"),
             (["--quantize", "int8", "--calibrate", ccal, "--calibration", "kl"], 2,
              "--calibration expects minmax"),
             (["--quantize", "int8", "--calibrate", ccal, "--keep-float", "nosuch"], 2, "names no node"),
             (["--quantize", "int8", "--calibrate", os.path.join(work, "missing")], 1, "no such directory"),
             (["--quantize", "int8", "--calibrate", empty], 1, "no input sets"),
             (["--quantize", "int8", "--calibrate", wrong], 1, "takes f32[1,3,16,16], this file is f32[1,3,9,9]")]
    for args, want_rc, want in cases:
        rc, out, err = run([ingot, "compile", conv, "-o", os.path.join(work, "bad")] + args)
        lines = [l for l in err.splitlines() if l.strip()]
        check(rc == want_rc and len(lines) == 1 and want in lines[0],
              "%s: exit %d, want %d with one line containing '%s':\n%s" % (args, rc, want_rc, want, err))


if __name__ == "__main__":
    main(test)
