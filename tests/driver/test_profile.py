#!/usr/bin/env python3
"""profile: a model compiled with --profile times every node. `./m --bench N` prints,
before its last line, one row per node of the final graph (NAME_PROF_NODES of them),
slowest first: time, share, GFLOP/s, op, output shape and the ONNX node names (the
members of a fused node joined by '+'); every ONNX node of the model is named in
exactly one row, the shares sum to 100%, GFLOP/s is given exactly for the nodes with
MACs, and the table's MACs add up to `inspect --json`'s. A single run prints the same
table on stderr and still writes its outputs; a model compiled without --profile has
no table and no NAME_run_prof_v.

    test_profile.py INGOT WORKDIR
"""
import json
import os
import re

from common import check, ingot_compile, main, run_ok
from test_threads import cnn, wino

ROW = re.compile(r"^\s*([0-9.]+)\s+([0-9.]+)\s+([0-9.]+|-)\s+(\S+)\s+(\S+)\s+(\S+)$")


def table(text, what):
    lines = text.splitlines()
    starts = [i for i, l in enumerate(lines) if l.startswith("profile: ")]
    check(len(starts) == 1, "%s: expected one profile table, got:\n%s" % (what, text))
    rows = []
    for l in lines[starts[0] + 2:]:
        m = ROW.match(l)
        if not m:
            break
        rows.append((float(m.group(1)), float(m.group(2)), m.group(3), m.group(4), m.group(5), m.group(6)))
    return lines[starts[0]], rows


def check_rows(rows, n_nodes, onnx_names, macs_ops, what):
    check(len(rows) == n_nodes, "%s: %d rows for %d nodes" % (what, len(rows), n_nodes))
    times = [r[0] for r in rows]
    check(times == sorted(times, reverse=True), "%s: rows not sorted by time" % what)
    check(all(t >= 0 for t in times) and sum(times) > 0, "%s: bad times %s" % (what, times))
    share = sum(r[1] for r in rows)
    check(abs(share - 100.0) < 0.5, "%s: shares sum to %.2f%%" % (what, share))
    named = []
    for r in rows:
        named += r[5].split("+")
        check((r[2] != "-") == (r[3] in macs_ops and r[0] > 0),
              "%s: GFLOP/s '%s' for a %s node" % (what, r[2], r[3]))
        check(re.match(r"^[a-z0-9]+\[[0-9,]*\]$", r[4]), "%s: bad shape '%s'" % (what, r[4]))
    check(sorted(named) == sorted(onnx_names), "%s: rows name %s, the model has %s" %
          (what, sorted(named), sorted(onnx_names)))


def run_all(ingot, work):
    p = os.path.join(work, "cnn.onnx")
    cnn(p)
    # "flat" (Flatten of an intermediate) is a view of its input at -O2: no code, no row
    onnx_names = ["conv1", "relu1", "pool1", "dwconv", "gconv", "sig", "swish", "avg", "gap",
                  "fc", "softmax"]
    d = os.path.join(work, "prof")
    ingot_compile(ingot, p, d, "m", "--emit", "exe", "--profile")
    with open(os.path.join(d, "m.h")) as f:
        n_nodes = int(re.search(r"#define M_PROF_NODES (\d+)", f.read()).group(1))
    check(0 < n_nodes < len(onnx_names), "M_PROF_NODES = %d: fusion should have merged nodes" % n_nodes)
    exe = os.path.join(d, "m")
    for threads in ("1", "2"):
        out, _ = run_ok([exe, "--bench", "7", "--threads", threads], cwd=d)
        check(out.splitlines()[-1].startswith("median_us="), "last line of --bench: %s" % out)
        head, rows = table(out, "--bench 7 --threads " + threads)
        check("median of 7 runs" in head, "header: %s" % head)
        check_rows(rows, n_nodes, onnx_names, ("Conv", "Gemm", "MatMul"), "--bench --threads " + threads)
    # MACs per node: the table's sum equals inspect's, also where an x86 target packed
    # the weights into its kernels' layout (the MACs come from their ONNX shape)
    # (Winograd's, for the 3x3 convolutions of wino())
    pw = os.path.join(work, "wino.onnx")
    wino(pw)
    cases = [(d, p)]
    for target in ("x86-avx2", "x86-avx512"):
        for tag, src in (("cnn", p), ("wino", pw)):
            dx = os.path.join(work, "prof_%s_%s" % (tag, target))
            ingot_compile(ingot, src, dx, "m", "--emit", "c", "--profile", "--target", target)
            cases.append((dx, src))
    for dd, src_model in cases:
        out, _ = run_ok([ingot, "inspect", src_model, "--json"])
        want = json.loads(out)["macs"]
        with open(os.path.join(dd, "m.c")) as f:
            src = f.read()
        tab = src[src.index("m_prof_nodes["):]
        tab = tab[:tab.index("};")]
        macs = sum(int(x) for x in re.findall(r", (\d+) \}", tab))
        check(macs == want and macs > 0, "%s: profile MACs %d, inspect --json says %d" % (dd, macs, want))
    macs = sum(int(x) for x in re.findall(r", (\d+) \}", open(os.path.join(d, "m.c")).read()
                                          .split("m_prof_nodes[")[1].split("};")[0]))
    # quantized (--quantize int8): the integer convs and matmuls have MACs and GFLOP/s
    # (8-bit operations) too, and the table's MACs still add up to inspect's of the model
    import numpy as np
    cal = os.path.join(work, "calib", "test_data_set_0")
    os.makedirs(cal, exist_ok=True)
    np.save(os.path.join(cal, "input_0.npy"),
            np.random.default_rng(1).standard_normal((2, 3, 20, 20)).astype(np.float32))
    dq = os.path.join(work, "prof_int8")
    ingot_compile(ingot, p, dq, "m", "--emit", "exe", "--profile", "--quantize", "int8",
                  "--calibrate", os.path.dirname(cal))
    out, _ = run_ok([os.path.join(dq, "m"), "--bench", "3"], cwd=dq)
    _, rows = table(out, "int8")
    int_ops = ("QLinearConv", "QLinearMatMul", "ConvInteger", "MatMulInteger")
    check(sum(r[3] in int_ops for r in rows) >= 2, "int8: no integer conv/matmul rows: %s" % rows)
    for r in rows:
        check((r[2] != "-") == (r[3] in int_ops + ("Conv", "Gemm", "MatMul") and r[0] > 0),
              "int8: GFLOP/s '%s' for a %s node" % (r[2], r[3]))
    qsrc = open(os.path.join(dq, "m.c")).read()
    qmacs = sum(int(x) for x in re.findall(r", (\d+) \}", qsrc.split("m_prof_nodes[")[1].split("};")[0]))
    check(qmacs == macs, "int8: profile MACs %d, the float model's %d" % (qmacs, macs))
    # a single run: the table on stderr, the output still written
    run_ok([exe, "--bench", "1", "--output-dir", d], cwd=d)
    from onnx import numpy_helper
    x = numpy_helper.from_array(np.random.default_rng(0).standard_normal((2, 3, 20, 20)).astype(np.float32), "x")
    with open(os.path.join(d, "x.pb"), "wb") as f:
        f.write(x.SerializeToString())
    out, err = run_ok([exe, "--input", "x.pb", "--output-dir", d], cwd=d)
    check(os.path.exists(os.path.join(d, "output_0.pb")), "single run wrote no output")
    check("profile:" not in out, "the table of a single run belongs on stderr: %s" % out)
    _, rows = table(err, "single run")
    check_rows(rows, n_nodes, onnx_names, ("Conv", "Gemm", "MatMul"), "single run")
    # without --profile: no table, no profiling entry point
    d2 = os.path.join(work, "plain")
    ingot_compile(ingot, p, d2, "m", "--emit", "exe")
    out, err = run_ok([os.path.join(d2, "m"), "--bench", "3"], cwd=d2)
    check("profile:" not in out + err, "a model without --profile printed a table")
    with open(os.path.join(d2, "m.h")) as f:
        check("run_prof_v" not in f.read(), "m.h without --profile declares m_run_prof_v")
    print("%d nodes profiled, MACs %d" % (n_nodes, macs))


if __name__ == "__main__":
    main(run_all)
