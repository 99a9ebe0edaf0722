#!/usr/bin/env python3
"""check_cache: INGOT_CHECK_CACHE=DIR keeps `ingot check`'s prebuilt kernel library
(docs/cli.md, check). A first run writes one DIR/kernels-KEY.a; a second run with the
same compiler and flags reuses that very file (it is not rewritten); other --cflags
make a second key; without the variable nothing is written there. Every run passes."""
import glob
import os

import numpy as np
from onnx import TensorProto, helper

from common import check, main, model, run, vi, write_test_dir


def test(ingot, work):
    x = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)
    m = model([helper.make_node("Relu", ["x"], ["y"])], [vi("x", TensorProto.FLOAT, [3, 4])],
              [vi("y", TensorProto.FLOAT, [3, 4])])
    d = write_test_dir(work, "relu", m, [x], [np.maximum(x, 0)])
    cache = os.path.join(work, "cache")

    def check_run(cached, *extra):
        env = dict(os.environ)
        env.pop("INGOT_CHECK_CACHE", None)
        if cached:
            env["INGOT_CHECK_CACHE"] = cache
        rc, out, err = run([ingot, "check", d] + list(extra), env=env)
        check(rc == 0 and ("PASS %s" % d) in out, "check %s failed:\n%s%s" %
              (" ".join(extra), out, err))
        return sorted(glob.glob(os.path.join(cache, "kernels-*.a")))

    first = check_run(True)
    check(len(first) == 1, "one cached library expected, found %s" % first)
    os.utime(first[0], (1000000000, 1000000000))   # a rebuild would give a new mtime
    again = check_run(True)
    check(again == first and os.stat(first[0]).st_mtime == 1000000000,
          "the second run did not reuse %s" % first[0])
    other = check_run(True, "--cflags", "-DINGOT_CACHE_TEST=1")
    check(len(other) == 2, "other --cflags must make a second key, found %s" % other)
    off = check_run(False, "--cflags", "-DINGOT_CACHE_TEST=2")
    check(off == other, "without INGOT_CHECK_CACHE the cache was written: %s" % off)
    print("check_cache: reused %s, 2 keys for 2 flag sets" % os.path.basename(first[0]))


if __name__ == "__main__":
    main(test)
