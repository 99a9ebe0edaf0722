#!/usr/bin/env python3
"""opencl_placement: --target opencl on the first OpenCL device (PoCL's CPU device in CI),
the C target as the oracle. Exits 77 (skipped) only when no OpenCL platform exists.

1. A partitioned graph: Conv+Relu, then Sin (no OpenCL kernel) in the middle, then a
   device chain again (depthwise Conv, a fused elementwise chain, 3x3 and 1x1 Conv, pools, Gemm,
   Softmax). Under --placement auto the dumped IR has Sin on the CPU with a CopyToHost
   right before it and a CopyToDevice right after, every other node on the device, and
   the outputs equal the C target's within check's tolerance.
2. The same graph made tiny: the cost model keeps both islands on the CPU (no node
   on(device), no copies), --placement device still offloads them (and agrees with the
   C target), --place NODE=cpu moves one node back, and --place on a node without an
   OpenCL kernel is a usage error naming the reason.
3. `inspect --json` reports the partitions (2, Sin between them on the CPU, with its
   reason), the copies and their bytes as the dumped IR has them, and islands whose
   verdicts follow the cost model's numbers (device when the saving beats the
   transfers); on the tiny graph both islands are kept on the CPU and the plan's
   estimate is the all-CPU one. `--dot` fills device nodes, CPU nodes and copies with
   the three placement colours, with their legend.
4. Gather on the device with int64 indices: in range, the C target's rows; one index
   out of range, the run fails with INGOT_ERANGE (the device kernel's status word).
    test_placement.py INGOT WORKDIR
"""
import ctypes
import ctypes.util
import os
import re
import sys

import numpy as np
from onnx import TensorProto as T, helper, numpy_helper, save

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "driver"))
from common import check, main, run, run_ok  # noqa: E402


def opencl_platforms():
    """How many OpenCL platforms the ICD loader finds (0 without a loader)."""
    name = ctypes.util.find_library("OpenCL")
    if not name:
        return 0
    try:
        lib = ctypes.CDLL(name)
    except OSError:
        return 0
    n = ctypes.c_uint(0)
    return n.value if lib.clGetPlatformIDs(0, None, ctypes.byref(n)) == 0 else 0


def model(path, c, hw):
    """x[1,c,hw,hw] -> conv1+relu -> sin (CPU only) -> dw conv -> add/mul/tanh ->
    conv2 -> pw conv -> maxpool -> avgpool -> global avg pool -> flatten -> gemm -> softmax."""
    r = np.random.default_rng(1)

    def w(name, *shape):
        return numpy_helper.from_array((r.standard_normal(shape) * 0.3).astype(np.float32), name)

    inits = [w("w1", c, c, 3, 3), w("b1", c), w("w2", c, c, 3, 3), w("wd", c, 1, 3, 3), w("wp", 2 * c, c, 1, 1),
             w("k", 1, c, 1, 1), w("m", 1, c, 1, 1), w("wg", 2 * c, 5), w("bg", 5)]
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], name="conv1"),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("Sin", ["r1"], ["s"], name="sin"),
        helper.make_node("Conv", ["s", "wd"], ["dw"], pads=[1, 1, 1, 1], group=c, name="dw"),
        helper.make_node("Add", ["dw", "k"], ["a"], name="add"),
        helper.make_node("Mul", ["a", "m"], ["am"], name="mul"),
        helper.make_node("Tanh", ["am"], ["t"], name="tanh"),
        helper.make_node("Conv", ["t", "w2"], ["c2"], pads=[1, 1, 1, 1], name="conv2"),
        helper.make_node("Conv", ["c2", "wp"], ["pw"], name="pw"),
        helper.make_node("MaxPool", ["pw"], ["mp"], kernel_shape=[2, 2], strides=[2, 2], name="mp"),
        helper.make_node("AveragePool", ["mp"], ["ap"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                         name="ap"),
        helper.make_node("GlobalAveragePool", ["ap"], ["gp"], name="gap"),
        helper.make_node("Flatten", ["gp"], ["fl"], name="flat"),
        helper.make_node("Gemm", ["fl", "wg", "bg"], ["g"], name="gemm"),
        helper.make_node("Softmax", ["g"], ["y"], axis=1, name="softmax"),
    ]
    g = helper.make_graph(nodes, "part", [helper.make_tensor_value_info("x", T.FLOAT, [1, c, hw, hw])],
                          [helper.make_tensor_value_info("y", T.FLOAT, [1, 5]),
                           helper.make_tensor_value_info("r1", T.FLOAT, [1, c, hw, hw])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    save(m, path)


def test_dir(ingot, work, name, c, hw):
    """The model in the backend-test layout, its expected outputs from the C target."""
    d = os.path.join(work, name)
    ds = os.path.join(d, "test_data_set_0")
    os.makedirs(ds)
    model(os.path.join(d, "model.onnx"), c, hw)
    x = np.random.default_rng(2).standard_normal((1, c, hw, hw)).astype(np.float32)
    with open(os.path.join(ds, "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, "x").SerializeToString())
    ref = os.path.join(work, name + "_c")
    run_ok([ingot, "compile", os.path.join(d, "model.onnx"), "--target", "c", "--emit", "c,exe",
            "-o", ref, "--name", "part"])
    run_ok([os.path.join(ref, "part"), "--input", os.path.join(ds, "input_0.pb"), "--output-dir", ds])
    check(sorted(os.listdir(ds)) == ["input_0.pb", "output_0.pb", "output_1.pb"],
          "the C runner wrote %s" % os.listdir(ds))
    return d


def dump(ingot, d, *flags):
    out, _ = run_ok([ingot, "compile", os.path.join(d, "model.onnx"), "--target", "opencl", "-o",
                     os.path.join(d, "out"), "--dump-ir", "-"] + list(flags))
    return [ln for ln in out.splitlines() if " = " in ln and not ln.startswith("const")]


def op_of(line):
    return re.search(r" = (\w+)\(", line).group(1)


def on_device(lines):
    return {re.search(r'loc\("([^"]+)"', ln).group(1) for ln in lines if ln.endswith(" on(device)")
            or " on(device) " in ln}


def copies(lines):
    return [op_of(ln) for ln in lines if op_of(ln).startswith("Copy")]


def agree(ingot, d, *flags):
    out, _ = run_ok([ingot, "check", d, "--target", "opencl"] + list(flags))
    check("1 passed" in out, "check --target opencl %s: %s" % (" ".join(flags), out))


def t(ingot, work):
    if opencl_platforms() == 0:
        print("SKIP: no OpenCL platform (install pocl-opencl-icd)")
        sys.exit(77)
    # 1. big enough to offload: Sin alone stays on the CPU, between two copies
    big = test_dir(ingot, work, "big", 16, 32)
    lines = dump(ingot, big)
    dev = on_device(lines)
    check("sin" not in dev, "Sin placed on the device: %s" % dev)
    for want in ("conv1", "dw", "conv2", "pw", "mp", "ap", "gap", "gemm", "softmax"):
        check(any(want in x for x in dev), "%s not on the device: %s" % (want, sorted(dev)))
    ops = [op_of(ln) for ln in lines]
    i = ops.index("Sin")
    check(ops[i - 1] == "CopyToHost" and ops[i + 1] == "CopyToDevice",
          "no copies around Sin: %s" % ops[max(0, i - 2):i + 3])
    # x in; r1 out once (Sin and the graph output r1 read the one host copy); y out
    check(ops[0] == "CopyToDevice" and copies(lines) == ["CopyToDevice", "CopyToHost", "CopyToDevice",
                                                          "CopyToHost"], "copies: %s" % copies(lines))
    agree(ingot, big)
    # 2. tiny: the transfers cost more than the islands save, all on the CPU
    tiny = test_dir(ingot, work, "tiny", 2, 4)
    lines = dump(ingot, tiny)
    check(not on_device(lines) and not copies(lines),
          "tiny graph offloaded under auto: %s, copies %s" % (on_device(lines), copies(lines)))
    agree(ingot, tiny)
    lines = dump(ingot, tiny, "--placement", "device")
    check("sin" not in on_device(lines) and len(on_device(lines)) >= 8 and copies(lines),
          "--placement device: %s, copies %s" % (sorted(on_device(lines)), copies(lines)))
    agree(ingot, tiny, "--placement", "device")
    lines = dump(ingot, tiny, "--placement", "device", "--place", "gemm=cpu")
    check(not any("gemm" in x for x in on_device(lines)), "--place gemm=cpu ignored")
    lines = dump(ingot, big, "--placement", "cpu")
    check(not on_device(lines) and not copies(lines), "--placement cpu offloaded something")
    rc, _, err = run([ingot, "compile", os.path.join(tiny, "model.onnx"), "--target", "opencl", "-o",
                      os.path.join(work, "bad"), "--place", "sin=device"])
    check(rc == 2 and "sin" in err and "no OpenCL kernel" in err,
          "--place sin=device: exit %d, %s" % (rc, err))
    inspect_placement(ingot, work, big, tiny)
    gather_range(ingot, work)


def inspect_placement(ingot, work, big, tiny):
    import json
    lines = dump(ingot, big)
    out, _ = run_ok([ingot, "inspect", os.path.join(big, "model.onnx"), "--target", "opencl", "--json"])
    p = json.loads(out)["placement"]
    check(p["partitions"] == 2 and p["copies"] == 4, "inspect: %s" % p)
    check([c["node"] for c in p["cpu"]] == ["sin"] and "no OpenCL kernel" in p["cpu"][0]["why"],
          "inspect cpu nodes: %s" % p["cpu"])
    check(p["device_nodes"] == len(on_device(lines)), "inspect device nodes %d, dump %d" %
          (p["device_nodes"], len(on_device(lines))))
    elems = 0
    for ln in lines:
        if op_of(ln).startswith("Copy"):
            dims = re.search(r": f32\[([0-9,]+)\]", ln).group(1).split(",")
            elems += int(np.prod([int(x) for x in dims]))
    check(p["bytes_moved"] == 4 * elems, "inspect bytes_moved %d, the copies move %d" % (p["bytes_moved"], 4 * elems))
    for isl in p["islands"]:
        check(isl["device"] == (isl["save_us"] > isl["xfer_us"]), "island verdict: %s" % isl)
    check(p["est_placed_us"] < p["est_cpu_us"], "big: placed estimate not below all-CPU: %s" % p)
    big_dev = p["device_nodes"]
    out, _ = run_ok([ingot, "inspect", os.path.join(tiny, "model.onnx"), "--target", "opencl", "--json"])
    p = json.loads(out)["placement"]
    check(p["partitions"] == 0 and len(p["islands"]) == 2 and not any(i["device"] for i in p["islands"]) and
          all(i["xfer_us"] >= i["save_us"] for i in p["islands"]) and p["est_placed_us"] == p["est_cpu_us"] and
          all("cost model" in c["why"] for c in p["cpu"] if c["node"] != "sin"), "tiny inspect: %s" % p)
    dot = os.path.join(work, "big.dot")
    run_ok([ingot, "compile", os.path.join(big, "model.onnx"), "--target", "opencl", "-o",
            os.path.join(work, "dotout"), "--dot", dot])
    with open(dot) as f:
        text = f.read()
    def colour(c):
        return text.count('fillcolor="%s"' % c) - 1   # less the legend's swatch
    check(colour("#f4a582") == big_dev and colour("#92c5de") == 1 and colour("#ffffbf") == 4,
          "--dot fills: device %d (want %d), CPU %d, copies %d" % (colour("#f4a582"), big_dev,
                                                                  colour("#92c5de"), colour("#ffffbf")))
    check(re.search(r'label="Sin\\nsin", fillcolor="#92c5de"', text), "Sin not in the CPU colour")
    check('label="placement"' in text, "no placement legend")


def gather_range(ingot, work):
    """Gather on the device: right rows in range, INGOT_ERANGE (code 2) out of range."""
    d = os.path.join(work, "gather")
    os.makedirs(d)
    g = helper.make_graph([helper.make_node("Gather", ["x", "i"], ["y"], axis=0, name="g")], "g",
                          [helper.make_tensor_value_info("x", T.FLOAT, [4, 3]),
                           helper.make_tensor_value_info("i", T.INT64, [2])],
                          [helper.make_tensor_value_info("y", T.FLOAT, [2, 3])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    save(m, os.path.join(d, "g.onnx"))
    x = np.random.default_rng(3).standard_normal((4, 3)).astype(np.float32)
    files = {}
    for tag, idx in (("x", x), ("ok", np.array([3, -4], np.int64)), ("bad", np.array([1, 4], np.int64))):
        files[tag] = os.path.join(d, tag + ".pb")
        with open(files[tag], "wb") as f:
            f.write(numpy_helper.from_array(idx, "x" if tag == "x" else "i").SerializeToString())
    out, _ = run_ok([ingot, "compile", os.path.join(d, "g.onnx"), "--target", "opencl", "--placement", "device",
                     "--emit", "c,exe", "-o", os.path.join(d, "m"), "--name", "g", "--dump-ir", "-"])
    check(any("Gather(" in ln and "on(device)" in ln for ln in out.splitlines()), "Gather not on the device")
    res = os.path.join(d, "res")
    os.makedirs(res)
    run_ok([os.path.join(d, "m", "g"), "--input", files["x"], "--input", files["ok"], "--output-dir", res])
    with open(os.path.join(res, "output_0.pb"), "rb") as f:
        from onnx import TensorProto
        t = TensorProto()
        t.ParseFromString(f.read())
    check(np.array_equal(numpy_helper.to_array(t), x[[3, 0]]), "Gather on the device: wrong rows")
    rc, _, err = run([os.path.join(d, "m", "g"), "--input", files["x"], "--input", files["bad"], "--output-dir", res])
    check(rc == 1 and "run failed with code 2" in err, "index out of range: exit %d, %s" % (rc, err))


if __name__ == "__main__":
    main(t)
