#!/usr/bin/env python3
"""check_tolerance: `ingot check`'s comparison rule (docs/cli.md, check).
- f32 outputs: within the ONNX default (rtol 1e-3, atol 1e-7): 1e-5 off passes, 1e-2 off
  fails;
- f64 outputs are held to f64 precision by default (rtol 1e-12): 1e-9 off fails, 1e-14
  off passes; --rtol 1e-6, or a `tolerance` file saying `rtol = 1e-6`, makes 1e-9 pass,
  and the command line wins over the file;
- --rtol 0 --atol 0 is bit for bit: the exact output passes, one ulp off fails.
Each model is y = x + 1 (Add), so the runner's output is exact and every expected
tensor below is off by exactly what its case says."""
import os

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from common import check, main, model, run, vi, write_test_dir


def verdict(ingot, d, *extra):
    rc, out, err = run([ingot, "check", d] + list(extra))
    if ("PASS %s" % d) in out:
        check(rc == 0, "%s passed but check exited %d" % (d, rc))
        return "PASS"
    check(("FAIL %s" % d) in out and rc != 0, "%s neither passed nor failed:\n%s%s" % (d, out, err))
    return "FAIL"


def test(ingot, work):
    cases = []
    for dt, np_dt in ((TensorProto.FLOAT, np.float32), (TensorProto.DOUBLE, np.float64)):
        one = numpy_helper.from_array(np.array([1], dtype=np_dt), "one")
        m = model([helper.make_node("Add", ["x", "one"], ["y"])], [vi("x", dt, [64])], [vi("y", dt, [64])],
                  [one])
        x = np.linspace(0.5, 4.0, 64).astype(np_dt)
        y = x + np_dt(1)

        def case(name, want, m=m, x=x, np_dt=np_dt):   # this loop turn's model and input
            return write_test_dir(work, "%s_%s" % (np.dtype(np_dt).name, name), m, [x], [want])

        cases.append((dt, np_dt, y, case))
    (_, f32, y32, case32), (_, f64, y64, case64) = cases

    exact32, ulp32 = case32("exact", y32), case32("one_ulp", np.nextafter(y32, f32(np.inf)))
    off64 = case64("off_1e-9", y64 * (1 + 1e-9))
    want = [
        (exact32, [], "PASS"),
        (case32("off_1e-5", (y32 * (1 + 1e-5)).astype(f32)), [], "PASS"),
        (case32("off_1e-2", (y32 * (1 + 1e-2)).astype(f32)), [], "FAIL"),
        (exact32, ["--rtol", "0", "--atol", "0"], "PASS"),
        (ulp32, [], "PASS"),
        (ulp32, ["--rtol", "0", "--atol", "0"], "FAIL"),
        (case64("off_1e-14", y64 * (1 + 1e-14)), [], "PASS"),
        (off64, [], "FAIL"),
        (off64, ["--rtol", "1e-6"], "PASS"),
    ]
    filed = case64("off_1e-9_file", y64 * (1 + 1e-9))
    with open(os.path.join(filed, "tolerance"), "w") as f:
        f.write("rtol = 1e-6\n")
    want += [(filed, [], "PASS"), (filed, ["--rtol", "1e-12"], "FAIL")]
    for d, extra, expect in want:
        got = verdict(ingot, d, *extra)
        check(got == expect, "%s %s: %s, expected %s" % (os.path.basename(d), " ".join(extra), got, expect))
    print("check_tolerance: %d cases" % len(want))


if __name__ == "__main__":
    main(test)
