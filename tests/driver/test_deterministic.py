#!/usr/bin/env python3
"""deterministic: every test of tests/cross/list.txt (one conformance test per op type)
compiled twice for every target (c, x86-avx2, x86-avx512, neon, neon32), into other
directories from another working directory under another locale, time zone and malloc
fill byte, gives byte-identical files (under the sanitizers, each test for one target
in turn); the same model compiled twice into two directories gives
byte-identical files, and at -O3 the same files but for the header's flags line; a model with > 1 MB of weights defaults to the .incbin form
(NAME_weights.S + NAME_weights.bin, no megabytes of C text) and builds and runs right
with the generated Makefile and CMakeLists.txt; `--weights c` and `--weights extern`
(the program provides NAME_weights, read from the .bin at startup) run right too."""
import filecmp
import os
import shutil
import subprocess

import numpy as np
from onnx import TensorProto, helper

from common import (SANITIZED, assert_close, check, header_macro, ingot_compile, init, main, model,
                    randf, relu, rng, run_ok, save, tool, vi, write)

# --weights extern: the user's program defines big_weights (here: filled from the
# .bin at startup) in its own translation unit, then runs the model.
EXTERN_PROG = r"""
#define _POSIX_C_SOURCE 200112L
#include <stdio.h>
#include <stdlib.h>
#include "big.h"

/* big_weights is defined writable in ext_storage.c, which fills it from a file */
unsigned char *big_weights_buffer(void);

int main(int argc, char **argv)
{
	FILE *f = fopen(argv[1], "rb");
	float *x = malloc(big_inputs[0].bytes), *y = malloc(big_outputs[0].bytes);
	void *ws = NULL;
	int rc;
	if (argc != 4 || !f || fread(big_weights_buffer(), 1, BIG_WEIGHTS_SIZE, f) != BIG_WEIGHTS_SIZE ||
	    fgetc(f) != EOF) { fprintf(stderr, "bad weights file\n"); return 1; }
	fclose(f);
	if (!(f = fopen(argv[2], "rb")) || fread(x, 1, big_inputs[0].bytes, f) != big_inputs[0].bytes) return 1;
	fclose(f);
	if (posix_memalign(&ws, 64, BIG_WORKSPACE_SIZE ? BIG_WORKSPACE_SIZE : 64)) return 1;
	if ((rc = big_run(x, y, ws)) != 0) { fprintf(stderr, "big_run: %d\n", rc); return 1; }
	if (!(f = fopen(argv[3], "wb")) || fwrite(y, 1, big_outputs[0].bytes, f) != big_outputs[0].bytes) return 1;
	fclose(f);
	return 0;
}
"""

# the provider: it does not include big.h (which declares the blob const), so the
# blob can be writable storage filled at startup
EXTERN_STORAGE = r"""
#include "big_size.h"
unsigned char *big_weights_buffer(void);
__attribute__((aligned(64))) unsigned char big_weights[BIG_WEIGHTS_SIZE];
unsigned char *big_weights_buffer(void) { return big_weights; }
"""


def same_tree(a, b):
    cmp = filecmp.dircmp(a, b)
    diff = []

    def walk(c, rel):
        diff.extend(os.path.join(rel, f) for f in c.left_only + c.right_only + c.funny_files)
        _, mismatch, errors = filecmp.cmpfiles(c.left, c.right, c.common_files, shallow=False)
        diff.extend(os.path.join(rel, f) for f in mismatch + errors)
        for name, sub in c.subdirs.items():
            walk(sub, os.path.join(rel, name))

    walk(cmp, "")
    return diff


def files_of(d):
    return sorted(os.path.relpath(os.path.join(r, f), d) for r, _, fs in os.walk(d) for f in fs)


TARGETS = ("c", "x86-avx2", "x86-avx512", "neon", "neon32")


def many_models(ingot, work, data, listing):
    """Every test of LIST (one per op type) for every target, compiled twice: into
    different directories from different working directories, under another locale,
    time zone and malloc fill byte. The generated files must be the same bytes."""
    here = os.path.dirname(os.path.abspath(__file__))
    rc = subprocess.run(["/usr/bin/python3", os.path.join(here, "..", "conformance", "generate.py"), data]).returncode
    check(rc == 0, "cannot generate the conformance tests into %s" % data)
    names = [t for t in open(listing).read().split() if t]
    check(len(names) >= 150, "%s names only %d tests" % (listing, len(names)))
    envs = [dict(os.environ, LC_ALL="C", TZ="UTC", MALLOC_PERTURB_="0"),
            dict(os.environ, LC_ALL="C.UTF-8", TZ="Asia/Kolkata", MALLOC_PERTURB_="165")]
    compared = 0
    os.makedirs(os.path.join(work, "many1"))
    # under the sanitizers (SANITIZED) each model is compiled for one target, in turn,
    # so every target's emitter still runs there on a fifth of the list
    jobs = [(target, t) for i, t in enumerate(names) for j, target in enumerate(TARGETS)
            if not SANITIZED or i % len(TARGETS) == j]
    for target, t in jobs:
        model_path = os.path.join(data, "node", t, "model.onnx")
        outs = []
        for k, env in enumerate(envs):
            out = os.path.join(work, "many%d" % k, "x" * (k * 40), target, t)
            r = subprocess.run([ingot, "compile", model_path, "-o", out, "--name", "m", "--target", target],
                               cwd=os.path.join(work, "many%d" % k) if k else work, env=env,
                               capture_output=True, text=True)
            outs.append((r.returncode, r.stderr.replace(out, "OUT"), out))
        (rc0, err0, d0), (rc1, err1, d1) = outs
        check(rc0 == rc1 and err0 == err1, "%s %s: the two compiles answered differently:\n%s\n%s" %
              (target, t, err0, err1))
        if rc0 == 0:
            diff = same_tree(d0, d1)
            check(not diff, "%s %s: two compiles differ in: %s" % (target, t, ", ".join(diff)))
            compared += 1
        shutil.rmtree(d0, ignore_errors=True)
        shutil.rmtree(d1, ignore_errors=True)
    # a test that needs its inputs bound (check binds them) does not compile alone
    check(compared >= 0.8 * len(jobs), "only %d of %d compiles to compare" % (compared, len(jobs)))
    print("deterministic: %d models x targets compiled twice, byte-identical" % compared)


def test(ingot, work, data, listing):
    many_models(ingot, work, data, listing)

    make, cmake, cc, clang = tool("make"), tool("cmake"), tool("cc"), tool("clang")
    r = rng(3)
    # ---- 1. byte-identical output: a small model with several kernel families ----
    wc, bc, wg = randf(r, 4, 3, 3, 3), randf(r, 4), randf(r, 64, 5)
    small = model([helper.make_node("Conv", ["x", "wc", "bc"], ["c"], name="conv", pads=[1, 1, 1, 1]),
                   helper.make_node("Relu", ["c"], ["r"], name="relu"),
                   helper.make_node("MaxPool", ["r"], ["p"], name="pool", kernel_shape=[2, 2],
                                    strides=[2, 2]),
                   helper.make_node("Flatten", ["p"], ["f"], name="flat"),
                   helper.make_node("Gemm", ["f", "wg"], ["g"], name="fc"),
                   helper.make_node("Softmax", ["g"], ["y"], name="sm")],
                  [vi("x", TensorProto.FLOAT, [1, 3, 8, 8])], [vi("y", TensorProto.FLOAT, [1, 5])],
                  [init("wc", wc), init("bc", bc), init("wg", wg)])
    mpath = save(small, os.path.join(work, "small.onnx"))
    d1, d2 = os.path.join(work, "det1"), os.path.join(work, "sub", "det2")
    ingot_compile(ingot, mpath, d1, "small", "--emit", "c,exe")
    ingot_compile(ingot, mpath, d2, "small", "--emit", "c,exe")
    for d in (d1, d2):   # the built objects embed nothing variable either, but skip them
        for f in files_of(d):
            if f.endswith((".o", ".a")) or f == "small":
                os.remove(os.path.join(d, f))
    check(len(files_of(d1)) >= 6, "too few generated files in %s: %s" % (d1, files_of(d1)))
    diff = same_tree(d1, d2)
    check(not diff, "two compiles of the same model differ in: %s" % ", ".join(diff))
    # -O3 is -O2 (docs/cli.md): the same files but for the flags the header stamps
    d3 = os.path.join(work, "det3")
    ingot_compile(ingot, mpath, d3, "small", "--emit", "c,exe", "-O3")
    for f in files_of(d3):
        if f.endswith((".o", ".a")) or f == "small":
            os.remove(os.path.join(d3, f))
    diff = same_tree(d1, d3)
    h1, h3 = (open(os.path.join(d, "small.h")).read() for d in (d1, d3))
    check(diff == ["small.h"] and h3.replace(" -O3", "", 1) == h1,
          "-O3 and -O2 differ beyond the header's flags, in: %s" % ", ".join(diff))

    # ---- 2. > 1 MB of weights: incbin by default ----
    K, H, O = 512, 640, 16                     # 512*640*4 = 1.25 MiB
    w1, b1, w2 = randf(r, K, H, scale=0.05), randf(r, H), randf(r, H, O, scale=0.05)
    big = model([helper.make_node("Gemm", ["x", "w1", "b1"], ["h"], name="fc1"),
                 helper.make_node("Relu", ["h"], ["hr"], name="relu"),
                 helper.make_node("MatMul", ["hr", "w2"], ["y"], name="fc2")],
                [vi("x", TensorProto.FLOAT, [2, K])], [vi("y", TensorProto.FLOAT, [2, O])],
                [init("w1", w1), init("b1", b1), init("w2", w2)])
    bpath = save(big, os.path.join(work, "big.onnx"))
    x = randf(r, 2, K)
    want = (relu(x.astype(np.float64) @ w1 + b1) @ w2).astype(np.float32)
    np.save(os.path.join(work, "x.npy"), x)
    x.tofile(os.path.join(work, "x.bin"))
    wbytes = (K * H + H + H * O) * 4

    def check_run(exe, tag):
        od = os.path.join(work, "out_" + tag)
        os.makedirs(od, exist_ok=True)
        run_ok([exe, "--input", os.path.join(work, "x.npy"), "--output-dir", od])
        assert_close(np.load(os.path.join(od, "output_0.npy")), want, "%s: output" % tag)

    dinc = os.path.join(work, "big_incbin")
    ingot_compile(ingot, bpath, dinc, "big", "--emit", "c,exe")
    files = files_of(dinc)
    for f in ("big_weights.S", "big_weights.bin", "big.c", "big.h", "big_main.c", "Makefile",
              "CMakeLists.txt"):
        check(f in files, "default weights for a %d-byte model: %s missing (got %s)" %
              (wbytes, f, ", ".join(files)))
    check("big_weights.c" not in files, "a > 1 MB model got big_weights.c (should be .incbin)")
    for f in files:
        size = os.path.getsize(os.path.join(dinc, f))
        check(f.endswith(".bin") or not f.endswith((".c", ".h", ".S")) or size < 200000,
              "%s is %d bytes: megabytes of text" % (f, size))
    blob = os.path.join(dinc, "big_weights.bin")
    wsize = header_macro(dinc, "big", "WEIGHTS_SIZE")
    check(wsize == os.path.getsize(blob), "BIG_WEIGHTS_SIZE %d != size of big_weights.bin %d" %
          (wsize, os.path.getsize(blob)))
    check(wbytes <= wsize < wbytes + 64 * 8, "BIG_WEIGHTS_SIZE %d for %d bytes of weights" %
          (wsize, wbytes))
    run_ok([make, "-C", dinc])
    check_run(os.path.join(dinc, "big"), "incbin_make")
    # a second make is a no-op; touching the blob relinks it (it is a dependency)
    out, _ = run_ok([make, "-C", dinc])
    check("Nothing to be done" in out or "is up to date" in out, "second make rebuilt: %s" % out)
    os.utime(blob, None)
    out, _ = run_ok([make, "-C", dinc])
    check("big_weights" in out, "make did not rebuild after big_weights.bin changed:\n%s" % out)

    # clang's integrated assembler must find the .bin too
    run_ok([make, "-C", dinc, "clean"])
    run_ok([make, "-C", dinc, "CC=" + clang])
    check_run(os.path.join(dinc, "big"), "incbin_make_clang")

    for c in (cc, clang):   # out-of-tree builds: .incbin must find the blob from elsewhere
        bdir = os.path.join(work, "cmake_build_" + os.path.basename(c))
        run_ok([cmake, "-S", dinc, "-B", bdir, "-DCMAKE_BUILD_TYPE=Release", "-DCMAKE_C_COMPILER=" + c])
        run_ok([make, "-C", bdir])
        exes = [f for f in os.listdir(bdir) if f.startswith("big") and
                os.access(os.path.join(bdir, f), os.X_OK) and os.path.isfile(os.path.join(bdir, f))]
        check(exes, "the CMake build made no runner in %s (%s)" % (bdir, os.listdir(bdir)))
        check_run(os.path.join(bdir, exes[0]), "incbin_cmake_" + os.path.basename(c))

    # ---- 3. --weights c ----
    dc = os.path.join(work, "big_c")
    ingot_compile(ingot, bpath, dc, "big", "--emit", "c,exe", "--weights", "c")
    files = files_of(dc)
    check("big_weights.c" in files and "big_weights.S" not in files and "big_weights.bin" not in files,
          "--weights c gave %s" % ", ".join(files))
    check(header_macro(dc, "big", "WEIGHTS_SIZE") == wsize, "--weights c changed BIG_WEIGHTS_SIZE")
    run_ok([make, "-C", dc])
    check_run(os.path.join(dc, "big"), "weights_c")

    # ---- 4. --weights extern: the program provides big_weights ----
    de = os.path.join(work, "big_extern")
    ingot_compile(ingot, bpath, de, "big", "--emit", "lib", "--weights", "extern")
    files = files_of(de)
    check(not any(f.startswith("big_weights") for f in files),
          "--weights extern still emitted weights: %s" % ", ".join(files))
    check(header_macro(de, "big", "WEIGHTS_SIZE") == wsize, "--weights extern changed BIG_WEIGHTS_SIZE")
    hdr = open(os.path.join(de, "big.h")).read()
    check("extern const unsigned char big_weights[BIG_WEIGHTS_SIZE];" in hdr,
          "big.h does not declare big_weights for --weights extern")
    write(os.path.join(work, "big_size.h"), "#define BIG_WEIGHTS_SIZE %d\n" % wsize)
    write(os.path.join(work, "ext_main.c"), EXTERN_PROG)
    write(os.path.join(work, "ext_storage.c"), EXTERN_STORAGE)
    exe = os.path.join(work, "ext")
    run_ok([cc, "-std=c99", "-Wall", "-Wextra", "-O2", "-I", de, "-I", work, "-o", exe,
            os.path.join(work, "ext_main.c"), os.path.join(work, "ext_storage.c"),
            os.path.join(de, "libbig.a"), "-lm"])
    y = os.path.join(work, "y_extern.bin")
    run_ok([exe, blob, os.path.join(work, "x.bin"), y])
    assert_close(np.fromfile(y, dtype=np.float32).reshape(2, O), want, "weights extern: output")


if __name__ == "__main__":
    main(test)
