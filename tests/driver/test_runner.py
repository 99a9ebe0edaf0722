#!/usr/bin/env python3
"""runner: the generated executable (--emit exe) reads TensorProto .pb (raw_data and
typed fields) and .npy inputs, writes its outputs in the same format (checked with
onnx and numpy), rejects a wrong-shaped or wrong-typed input with exit 1, and
`--bench 5` ends with `median_us=X p10_us=X p90_us=X runs=5`."""
import os
import re

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from common import (assert_close, check, ingot_compile, init, main, model, run, run_ok, save,
                    stderr_lines, vi)

BENCH_RE = re.compile(r"^median_us=([0-9.]+) p10_us=([0-9.]+) p90_us=([0-9.]+) runs=(\d+)$")


def test(ingot, work):
    N = helper.make_node
    m = model([N("Add", ["a", "b"], ["sum"], name="add0"),
               N("Mul", ["a", "four"], ["a4"], name="mul0"),
               N("Floor", ["a4"], ["fl"], name="floor0"),
               N("Cast", ["fl"], ["idx"], name="cast0", to=TensorProto.INT64)],
              [vi("a", TensorProto.FLOAT, [2, 3]), vi("b", TensorProto.FLOAT, [3])],
              [vi("sum", TensorProto.FLOAT, [2, 3]), vi("idx", TensorProto.INT64, [2, 3])],
              [init("four", np.array(4, np.float32))])
    mp = save(m, os.path.join(work, "io.onnx"))
    d = os.path.join(work, "io")
    ingot_compile(ingot, mp, d, "io", "--emit", "exe")
    exe = os.path.join(d, "io")
    check(os.access(exe, os.X_OK), "--emit exe did not build %s" % exe)

    r = np.random.default_rng(11)
    a = r.standard_normal((2, 3)).astype(np.float32)
    b = r.standard_normal(3).astype(np.float32)
    want = [a + b, np.floor(a * np.float32(4)).astype(np.int64)]

    # .pb in raw_data, .pb in typed float_data: outputs as .pb
    pa = os.path.join(work, "a.pb")
    pb = os.path.join(work, "b.pb")
    with open(pa, "wb") as f:
        f.write(numpy_helper.from_array(a, "a").SerializeToString())
    with open(pb, "wb") as f:
        f.write(helper.make_tensor("b", TensorProto.FLOAT, [3], b.tolist()).SerializeToString())
    od = os.path.join(work, "out_pb")
    os.makedirs(od)
    run_ok([exe, "--input", pa, "--input", pb, "--output-dir", od])
    for i, (name, w) in enumerate(zip(["sum", "idx"], want)):
        path = os.path.join(od, "output_%d.pb" % i)
        check(os.path.isfile(path), "runner did not write %s" % path)
        t = onnx.load_tensor(path)
        check(t.name == name, "output_%d.pb is named %r, expected %r" % (i, t.name, name))
        assert_close(numpy_helper.to_array(t), w, "output_%d.pb" % i)
    check(not any(f.endswith(".npy") for f in os.listdir(od)), ".pb inputs gave .npy outputs")

    # .npy in, .npy out (default output dir: the current directory)
    na, nb = os.path.join(work, "a.npy"), os.path.join(work, "b.npy")
    np.save(na, a)
    np.save(nb, b)
    od = os.path.join(work, "out_npy")
    os.makedirs(od)
    run_ok([exe, "--input", na, "--input", nb], cwd=od)
    for i, w in enumerate(want):
        path = os.path.join(od, "output_%d.npy" % i)
        check(os.path.isfile(path), "runner did not write %s" % path)
        assert_close(np.load(path), w, "output_%d.npy" % i)

    # wrong inputs: shape, dtype, rank; a missing file; a non-tensor file
    bad = {
        "shape.npy": np.zeros((3, 2), np.float32),
        "dtype.npy": a.astype(np.float64),
        "rank.npy": a.reshape(6),
    }
    for fname, arr in bad.items():
        path = os.path.join(work, fname)
        np.save(path, arr)
        rc, out, err = run([exe, "--input", path, "--input", nb, "--output-dir", work])
        check(rc == 1, "a %s input: expected exit 1, got %d (%s)" % (fname[:-4], rc, err))
        ls = stderr_lines(err)
        check(len(ls) == 1 and fname in ls[0], "a %s input: expected one line naming %s, got %r" %
              (fname[:-4], fname, err))
        # both types in full, dtype names and dims: "expected float32[2,3], got float64[2,3]"
        types = "expected float32[%s], got %s[%s]" % (",".join(map(str, a.shape)), arr.dtype.name,
                                                      ",".join(map(str, arr.shape)))
        check(types in err, "a %s input: the message lacks %r: %r" % (fname[:-4], types, err))
    junk = os.path.join(work, "junk.pb")
    with open(junk, "wb") as f:
        f.write(b"\xff\xff\xff\xff not a tensor")
    for path in (junk, os.path.join(work, "missing.npy")):
        rc, _, err = run([exe, "--input", path, "--input", nb, "--output-dir", work])
        check(rc == 1 and os.path.basename(path) in err,
              "input %s: expected exit 1 naming it, got %d: %r" % (path, rc, err))
    rc, _, err = run([exe, "--input", na])
    check(rc == 2, "one --input for a two-input model: expected exit 2, got %d: %r" % (rc, err))
    rc, _, err = run([exe, "--bogus"])
    check(rc == 2, "unknown runner flag: expected exit 2, got %d: %r" % (rc, err))

    # --bench: random inputs, then given inputs
    for args in (["--bench", "5"], ["--bench", "5", "--input", na, "--input", nb]):
        out, _ = run_ok([exe] + args, cwd=work)
        lines = out.strip().splitlines()
        check(lines, "--bench printed nothing")
        mt = BENCH_RE.match(lines[-1])
        check(mt is not None, "--bench last line %r does not match %s" % (lines[-1], BENCH_RE.pattern))
        med, p10, p90, runs = float(mt.group(1)), float(mt.group(2)), float(mt.group(3)), int(mt.group(4))
        check(runs == 5, "--bench 5 reported runs=%d" % runs)
        check(0 <= p10 <= med <= p90, "--bench percentiles out of order: %s" % lines[-1])
    rc, _, _ = run([exe, "--bench", "0"])
    check(rc == 2, "--bench 0: expected exit 2, got %d" % rc)


if __name__ == "__main__":
    main(test)
