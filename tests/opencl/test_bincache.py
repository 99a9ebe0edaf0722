#!/usr/bin/env python3
"""opencl_bincache: the program binary cache of --target opencl (ingot_cl_options.cache_dir,
the runner's --cl-cache) on the first OpenCL device (PoCL's CPU device in CI). Exit 77
(skipped) only when no OpenCL platform exists.

A Conv node test compiled with --placement device, run by its runner:
1. into an empty cache: the program is built from source and the binary saved, one file;
2. again: the program comes from the binary; init is faster (both init times printed;
   PoCL's own kernel cache is off for these two runs, so the first one really compiles);
3. the file damaged (a flipped byte, then cut short): the hash catches it, init builds
   from source and writes the file again, and the run after that loads it;
4. a file whose hash is right but whose binary the driver refuses: init falls back to
   the source;
5. no cache: "off", from source.
Every run's outputs equal the C target's within check's tolerance (rtol 1e-3, atol 1e-7
as `ingot check`), and every run writes the same bytes.
    test_bincache.py INGOT WORKDIR DATA_DIR
"""
import glob
import os
import re
import struct
import sys

import numpy as np
from onnx import load_tensor, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "driver"))
from common import check, main, run_ok  # noqa: E402
from test_placement import opencl_platforms  # noqa: E402

NODE = "test_conv_with_strides_padding"


def fnv(data):
    h = 14695981039346656037
    for b in data:
        h = ((h ^ b) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h


def t(ingot, work, data):
    if opencl_platforms() == 0:
        print("SKIP: no OpenCL platform (install pocl-opencl-icd)")
        sys.exit(77)
    here = os.path.dirname(os.path.abspath(__file__))
    run_ok(["/usr/bin/python3", os.path.join(here, "..", "conformance", "generate.py"), data])
    d = os.path.join(data, "node", NODE)
    ds = os.path.join(d, "test_data_set_0")
    inputs = sorted(glob.glob(os.path.join(ds, "input_*.pb")))
    exe = {}
    for target in ("c", "opencl"):
        out = os.path.join(work, target)
        run_ok([ingot, "compile", os.path.join(d, "model.onnx"), "--target", target, "--placement",
                "device", "--emit", "c,exe", "-o", out, "--name", "m"] if target == "opencl" else
               [ingot, "compile", os.path.join(d, "model.onnx"), "--target", target, "--emit", "c,exe",
                "-o", out, "--name", "m"])
        exe[target] = os.path.join(out, "m")
    argv_in = sum((["--input", p] for p in inputs), [])
    ref_dir = os.path.join(work, "ref")
    os.makedirs(ref_dir)
    run_ok([exe["c"]] + argv_in + ["--output-dir", ref_dir])
    ref = numpy_helper.to_array(load_tensor(os.path.join(ref_dir, "output_0.pb")))
    cache = os.path.join(work, "cache")
    os.makedirs(cache)
    first = []

    def go(tag, cached=True, pocl_cache=True):
        """One run of the OpenCL runner; returns (init_us, program, cache note)."""
        res = os.path.join(work, "res_" + tag)
        os.makedirs(res)
        env = dict(os.environ)
        if not pocl_cache:
            env["POCL_KERNEL_CACHE"] = "0"
        argv = [exe["opencl"]] + argv_in + ["--output-dir", res, "--cl-info"]
        _, err = run_ok(argv + (["--cl-cache", cache] if cached else []), env=env)
        m = re.search(r'cl_init_us=(\d+) program=(\w+) cache="([^"]*)"', err)
        check(m, "%s: no cl_init_us line in %s" % (tag, err))
        with open(os.path.join(res, "output_0.pb"), "rb") as f:
            raw = f.read()
        got = numpy_helper.to_array(load_tensor(os.path.join(res, "output_0.pb")))
        check(got.shape == ref.shape and got.dtype == ref.dtype, "%s: %s %s" % (tag, got.shape, got.dtype))
        bad = np.abs(got - ref) > 1e-7 + 1e-3 * np.abs(ref)
        check(not bad.any(), "%s: %d outputs differ from the C target's" % (tag, int(bad.sum())))
        if first:
            check(raw == first[0], "%s: outputs differ from the first run's bytes" % tag)
        else:
            first.append(raw)
        return int(m.group(1)), m.group(2), m.group(3)

    def files():
        return sorted(glob.glob(os.path.join(cache, "*")))

    # 1, 2: from source, saved; then from the binary, faster
    us_src, prog, note = go("source", pocl_cache=False)
    check(prog == "source" and note == "saved", "empty cache: program=%s cache=%s" % (prog, note))
    check(len(files()) == 1 and re.search(r"/ingot-cl-[0-9a-f]{16}\.bin$", files()[0]),
          "cache files: %s" % files())
    path = files()[0]
    us_bin, prog, note = go("binary", pocl_cache=False)
    check(prog == "binary" and note == "loaded", "second init: program=%s cache=%s" % (prog, note))
    print("init from source: %.1f ms, from the cached binary: %.1f ms" % (us_src / 1e3, us_bin / 1e3))
    check(us_bin < us_src, "the cached binary did not make init faster")
    # 3. damaged: a flipped byte, then a truncated file
    with open(path, "rb") as f:
        good = f.read()
    blob = bytearray(good)
    blob[len(blob) // 2] ^= 0x40
    with open(path, "wb") as f:
        f.write(blob)
    _, prog, note = go("flipped")
    check(prog == "source" and note == "saved; was damaged: its hash does not match",
          "flipped byte: program=%s cache=%s" % (prog, note))
    _, prog, note = go("rewritten")
    check(prog == "binary", "after the rewrite: program=%s cache=%s" % (prog, note))
    with open(path, "wb") as f:
        f.write(good[:len(good) // 3])
    _, prog, note = go("truncated")
    check(prog == "source" and "damaged: truncated" in note, "truncated: program=%s cache=%s" % (prog, note))
    # 4. a well-formed file the driver refuses
    body = b"not a program binary\n" * 64
    with open(path, "wb") as f:
        f.write(good[:16] + struct.pack("<QQ", len(body), fnv(body)) + body)
    _, prog, note = go("refused")
    check(prog == "source" and note.startswith("saved; was refused by the driver: CL_"),
          "refused binary: program=%s cache=%s" % (prog, note))
    with open(path, "rb") as f:
        check(f.read()[32:] != body, "the refused file was not replaced")
    # 5. no cache
    _, prog, note = go("off", cached=False)
    check(prog == "source" and note == "off", "no cache: program=%s cache=%s" % (prog, note))
    check(len(files()) == 1, "stray files in the cache: %s" % files())


if __name__ == "__main__":
    main(t)
