#!/usr/bin/env python3
"""check_cache: INGOT_CHECK_CACHE=DIR keeps `ingot check`'s prebuilt kernel library
(docs/cli.md, check). A first run writes one DIR/kernels-KEY.a; a second run with the
same compiler and flags reuses that very file (it is not rewritten); other --cflags
make a second key; without the variable nothing is written there. Every run passes.
Two runs that start together on a key not yet built build it once. Every run adds -O0
to the flags, so the library's builds are quick."""
import glob
import os
import subprocess

import numpy as np
from onnx import TensorProto, helper

from common import check, main, model, run, vi, write, write_test_dir


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
        # -O0 (after the target's -O2): each run that builds the library builds it fast
        rc, out, err = run([ingot, "check", d, "--cflags", "-O0 " + " ".join(extra)], env=env)
        check(rc == 0 and ("PASS %s" % d) in out, "check %s failed:\n%s%s" %
              (" ".join(extra), out, err))
        return sorted(glob.glob(os.path.join(cache, "kernels-*.a")))

    first = check_run(True)
    check(len(first) == 1, "one cached library expected, found %s" % first)
    os.utime(first[0], (1000000000, 1000000000))   # a rebuild would give a new mtime
    again = check_run(True)
    check(again == first and os.stat(first[0]).st_mtime == 1000000000,
          "the second run did not reuse %s" % first[0])
    other = check_run(True, "-DINGOT_CACHE_TEST=1")
    check(len(other) == 2, "other --cflags must make a second key, found %s" % other)
    off = check_run(False, "-DINGOT_CACHE_TEST=2")
    check(off == other, "without INGOT_CHECK_CACHE the cache was written: %s" % off)
    # two runs starting together on a cold key build the library once: the second waits
    # for the first (a lock next to the library) and takes what it wrote
    log = os.path.join(work, "cc.log")
    wrapper = os.path.join(work, "cc-logged")
    write(wrapper, '#!/bin/sh\necho "$*" >> %s\nexec cc "$@"\n' % log)
    os.chmod(wrapper, 0o755)
    env = dict(os.environ, INGOT_CHECK_CACHE=cache)
    argv = [ingot, "check", d, "--cc", wrapper, "--cflags", "-O0 -DINGOT_CACHE_TEST=3"]
    procs = [subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
             for _ in range(2)]
    outs = [p.communicate(timeout=600)[0].decode() for p in procs]
    check(all(p.returncode == 0 for p in procs), "concurrent checks failed:\n%s" % "\n".join(outs))
    builds = sum(" kernels/elementwise.c " in line for line in open(log))
    check(builds == 1, "two concurrent runs built the library %d times, not once" % builds)
    print("check_cache: reused %s, 2 keys for 2 flag sets, one build for two concurrent runs" %
          os.path.basename(first[0]))


if __name__ == "__main__":
    main(test)
