#!/usr/bin/env python3
"""opencl_kernels: the device kernels the ONNX 1.12 node tests cannot reach, under
--target opencl --placement device on the first OpenCL device (PoCL's CPU device in
CI), the C target as the oracle. Exits 77 (skipped) only when no OpenCL platform exists.

1. One model (opset 18) with Resize in the forms the node tests lack: antialiased
   linear and cubic downscales, a 5-D trilinear resize, nearest with floor/asymmetric
   from sizes; and Concats of more inputs than one kernel takes (12 along axis 1, 9
   along axis 0: launched in parts). Every Resize and Concat is on(device) in the
   dumped IR, and `ingot check --target opencl --placement device` passes against the
   C target's outputs.
2. The emitted OpenCL program, preprocessed by clang's OpenCL front end with
   cl_khr_fp64 switched off (a device without doubles, as many mobile GPUs), still
   defines every kernel the model's calls name, and parses: Resize's taps come from a
   table the compiler computed, so no kernel needs double precision.
    test_kernels.py INGOT WORKDIR
"""
import os
import re
import shutil
import subprocess
import sys

import numpy as np
from onnx import TensorProto as T, helper, numpy_helper, save

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "driver"))
from common import check, main, run, run_ok  # noqa: E402
from test_placement import on_device, opencl_platforms  # noqa: E402

CAT1 = [(2, k % 3 + 1, 5) for k in range(12)]   # Concat axis 1 of 12
CAT2 = [(1, 4)] * 9                              # Concat axis 0 of 9 (one row)


def build(path):
    """The model and its inputs (name, array) in graph order."""
    r = np.random.default_rng(5)
    ins = [("x4", r.standard_normal((1, 3, 17, 19)).astype(np.float32)),
           ("x5", r.standard_normal((1, 2, 4, 5, 6)).astype(np.float32))]
    ins += [("c%d" % k, r.standard_normal(s).astype(np.float32)) for k, s in enumerate(CAT1)]
    ins += [("d%d" % k, r.standard_normal(s).astype(np.float32)) for k, s in enumerate(CAT2)]

    def const(name, v, dt):
        return numpy_helper.from_array(np.array(v, dtype=dt), name)

    inits = [const("s_aa_lin", [1, 1, 0.4, 0.55], np.float32), const("s_aa_cub", [1, 1, 0.5, 0.3], np.float32),
             const("s_5d", [1, 1, 1.5, 2, 0.5], np.float32), const("sz_near", [1, 3, 40, 7], np.int64)]
    nodes = [
        helper.make_node("Resize", ["x4", "", "s_aa_lin"], ["aa_linear"], mode="linear", antialias=1,
                         name="aa_linear"),
        helper.make_node("Resize", ["x4", "", "s_aa_cub"], ["aa_cubic"], mode="cubic", antialias=1,
                         name="aa_cubic"),
        helper.make_node("Resize", ["x5", "", "s_5d"], ["trilinear"], mode="linear", name="trilinear"),
        helper.make_node("Resize", ["x4", "", "", "sz_near"], ["nearest"], mode="nearest",
                         nearest_mode="floor", coordinate_transformation_mode="asymmetric", name="nearest"),
        helper.make_node("Concat", ["c%d" % k for k in range(len(CAT1))], ["cat12"], axis=1, name="cat12"),
        helper.make_node("Concat", ["d%d" % k for k in range(len(CAT2))], ["cat9"], axis=0, name="cat9"),
    ]
    outs = [helper.make_tensor_value_info(n, T.FLOAT, None)
            for n in ("aa_linear", "aa_cubic", "trilinear", "nearest", "cat12", "cat9")]
    g = helper.make_graph(nodes, "kernels", [helper.make_tensor_value_info(n, T.FLOAT, a.shape) for n, a in ins],
                          outs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 8
    save(m, path)
    return ins


def t(ingot, work):
    if opencl_platforms() == 0:
        print("SKIP: no OpenCL platform (install pocl-opencl-icd)")
        sys.exit(77)
    d = os.path.join(work, "kernels")
    ds = os.path.join(d, "test_data_set_0")
    os.makedirs(ds)
    ins = build(os.path.join(d, "model.onnx"))
    argv = []
    for k, (name, a) in enumerate(ins):
        p = os.path.join(ds, "input_%d.pb" % k)
        with open(p, "wb") as f:
            f.write(numpy_helper.from_array(a, name).SerializeToString())
        argv += ["--input", p]
    ref = os.path.join(work, "ref")
    run_ok([ingot, "compile", os.path.join(d, "model.onnx"), "--target", "c", "--emit", "c,exe", "-o", ref,
            "--name", "k"])
    run_ok([os.path.join(ref, "k")] + argv + ["--output-dir", ds])
    check(len([f for f in os.listdir(ds) if f.startswith("output_")]) == 6, "the C runner wrote %s" % os.listdir(ds))
    # the concat sizes are numpy's
    cat12 = numpy_helper.to_array(__import__("onnx").load_tensor(os.path.join(ds, "output_4.pb")))
    check(np.array_equal(cat12, np.concatenate([a for n, a in ins if n.startswith("c")], axis=1)),
          "the C target's 12-input Concat is not numpy's")

    out = os.path.join(work, "dev")
    text, _ = run_ok([ingot, "compile", os.path.join(d, "model.onnx"), "--target", "opencl", "--placement",
                      "device", "-o", out, "--dump-ir", "-"])
    lines = [ln for ln in text.splitlines() if " = " in ln and not ln.startswith("const")]
    dev = on_device(lines)
    for want in ("aa_linear", "aa_cubic", "trilinear", "nearest", "cat12", "cat9"):
        check(want in dev, "%s not on the device: %s" % (want, sorted(dev)))
    res, _ = run_ok([ingot, "check", d, "--target", "opencl", "--placement", "device"])
    print(res.strip().splitlines()[-1])
    check("1 passed" in res, "check --target opencl --placement device: %s" % res)

    # 2. the program without cl_khr_fp64
    clang = shutil.which("clang")
    check(clang is not None, "clang (the OpenCL C front end of part 2) is not installed")
    src = open(os.path.join(out, "model.c")).read()
    body = re.search(r"_cl_source\[\] = \{\n(.*?)\n\};", src, re.S)
    check(body is not None, "no NAME_cl_source[] in model.c")
    unesc = {"n": "\n", "t": "\t"}
    program = "".join(re.sub(r"\\([0-7]{3}|.)", lambda g: chr(int(g.group(1), 8)) if len(g.group(1)) == 3
                             else unesc.get(g.group(1), g.group(1)), lit)
                      for lit in re.findall(r'^\t"((?:[^"\\]|\\.)*)"$', body.group(1), re.M))
    cl = os.path.join(work, "program.cl")
    with open(cl, "w") as f:
        f.write(program)
    base = [clang, "-x", "cl", "-cl-std=CL1.2", "-DINGOT_CL_TILE=16", "-Xclang", "-cl-ext=-cl_khr_fp64"]
    pre, err = run_ok(base + ["-E", cl])
    defined = set(re.findall(r"__kernel\s+void\s+(\w+)", pre))
    called = set(re.findall(r'\{ "(ingot_cl_\w+)", &p', src))
    check({"ingot_cl_resize", "ingot_cl_concat"} <= called, "the calls name %s" % sorted(called))
    check(called <= defined, "without cl_khr_fp64 the program lacks %s" % sorted(called - defined))
    rc, _, err = run(base + ["-fsyntax-only", cl])
    check(rc == 0, "the program does not parse without cl_khr_fp64:\n%s" % err)
    print("without cl_khr_fp64: %d kernels called, all defined" % len(called))


if __name__ == "__main__":
    main(t)
