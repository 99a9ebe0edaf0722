#!/usr/bin/env python3
"""two_models: two models built with --emit lib (an MLP, Gemm+Relu, and a Conv+Add
net; both use the elementwise kernels) link into one C program, which runs both on
known inputs; outputs must match numpy. Also every global symbol each libNAME.a
defines must start with NAME_ (kernels static, weights and tables prefixed)."""
import os

import numpy as np
from onnx import TensorProto, helper

from common import (assert_close, check, conv2d, ingot_compile, init, main, model, randf,
                    relu, rng, run_ok, save, tool, vi, write)

PROG = r"""
#define _POSIX_C_SOURCE 200112L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mlp_a.h"
#include "cnv_b.h"

static void *load(const char *path, size_t bytes)
{
	void *p = malloc(bytes);
	FILE *f = fopen(path, "rb");
	if (!p || !f || fread(p, 1, bytes, f) != bytes) { fprintf(stderr, "cannot read %s\n", path); exit(1); }
	fclose(f);
	return p;
}

static void store(const char *path, const void *p, size_t bytes)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(p, 1, bytes, f) != bytes) { fprintf(stderr, "cannot write %s\n", path); exit(1); }
	fclose(f);
}

static void *workspace(size_t bytes)
{
	void *p = NULL;
	if (posix_memalign(&p, 64, bytes ? bytes : 64)) exit(1);
	return p;
}

int main(void)
{
	float *xa = load("xa.bin", mlp_a_inputs[0].bytes), *xb = load("xb.bin", cnv_b_inputs[0].bytes);
	float *ya = malloc(mlp_a_outputs[0].bytes), *yb = malloc(cnv_b_outputs[0].bytes);
	void *wa = workspace(MLP_A_WORKSPACE_SIZE), *wb = workspace(CNV_B_WORKSPACE_SIZE);
	int rc;
	if ((rc = mlp_a_run(xa, ya, wa)) != 0) { fprintf(stderr, "mlp_a_run: %d\n", rc); return 1; }
	if ((rc = cnv_b_run(xb, yb, wb)) != 0) { fprintf(stderr, "cnv_b_run: %d\n", rc); return 1; }
	/* the second model must not have disturbed the first: run it again */
	memset(ya, 0, mlp_a_outputs[0].bytes);
	if ((rc = mlp_a_run(xa, ya, wa)) != 0) { fprintf(stderr, "mlp_a_run: %d\n", rc); return 1; }
	store("ya.bin", ya, mlp_a_outputs[0].bytes);
	store("yb.bin", yb, cnv_b_outputs[0].bytes);
	printf("ok %s %s\n", mlp_a_inputs[0].name, cnv_b_inputs[0].name);
	return 0;
}
"""


def defined_globals(nm, lib):
    out, _ = run_ok([nm, "-g", "--defined-only", lib])
    syms = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3:
            syms.append((parts[2], parts[1]))
    return syms


def test(ingot, work):
    cc, nm = tool("cc"), tool("nm")
    r = rng(1)
    # model A: x[4,16] -> Gemm(16->32) -> Relu -> Gemm(transB, 32->8) -> y[4,8]
    w1, b1 = randf(r, 16, 32, scale=0.3), randf(r, 32)
    w2, b2 = randf(r, 8, 32, scale=0.3), randf(r, 8)
    ma = model([helper.make_node("Gemm", ["x", "w1", "b1"], ["h"], name="fc1"),
                helper.make_node("Relu", ["h"], ["hr"], name="act1"),
                helper.make_node("Gemm", ["hr", "w2", "b2"], ["y"], name="fc2", transB=1)],
               [vi("x", TensorProto.FLOAT, [4, 16])], [vi("y", TensorProto.FLOAT, [4, 8])],
               [init("w1", w1), init("b1", b1), init("w2", w2), init("b2", b2)])
    # model B: x[1,2,7,7] -> Conv(4, 3x3, stride 2, pad 1) -> Add(bias [4,1,1]) -> y[1,4,4,4]
    wc, bc, addc = randf(r, 4, 2, 3, 3), randf(r, 4), randf(r, 4, 1, 1)
    mb = model([helper.make_node("Conv", ["x", "wc", "bc"], ["c"], name="conv1",
                                 strides=[2, 2], pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
                helper.make_node("Add", ["c", "addc"], ["y"], name="add1")],
               [vi("x", TensorProto.FLOAT, [1, 2, 7, 7])], [vi("y", TensorProto.FLOAT, [1, 4, 4, 4])],
               [init("wc", wc), init("bc", bc), init("addc", addc)])
    save(ma, os.path.join(work, "mlp.onnx"))
    save(mb, os.path.join(work, "cnv.onnx"))
    xa, xb = randf(r, 4, 16), randf(r, 1, 2, 7, 7)
    want_a = (relu(xa.astype(np.float64) @ w1 + b1) @ w2.T.astype(np.float64) + b2).astype(np.float32)
    want_b = conv2d(xb, wc, bc, (2, 2), (1, 1, 1, 1)) + addc
    xa.tofile(os.path.join(work, "xa.bin"))
    xb.tofile(os.path.join(work, "xb.bin"))

    da, db = os.path.join(work, "a"), os.path.join(work, "b")
    ingot_compile(ingot, os.path.join(work, "mlp.onnx"), da, "mlp_a", "--emit", "lib")
    ingot_compile(ingot, os.path.join(work, "cnv.onnx"), db, "cnv_b", "--emit", "lib")
    for d, name in ((da, "mlp_a"), (db, "cnv_b")):
        lib = os.path.join(d, "lib%s.a" % name)
        check(os.path.isfile(lib), "--emit lib did not build %s" % lib)
        syms = defined_globals(nm, lib)
        check(any(s == name + "_run" for s, _ in syms), "%s does not define %s_run" % (lib, name))
        bad = [s for s, _ in syms if not s.startswith(name + "_")]
        check(not bad, "lib%s.a exports symbols without the '%s_' prefix: %s" %
              (name, name, ", ".join(sorted(bad))))

    write(os.path.join(work, "main.c"), PROG)
    exe = os.path.join(work, "both")
    run_ok([cc, "-std=c99", "-Wall", "-Wextra", "-Werror", "-I", da, "-I", db, "-o", exe,
            os.path.join(work, "main.c"), os.path.join(da, "libmlp_a.a"),
            os.path.join(db, "libcnv_b.a"), "-lm"], cwd=work)
    out, _ = run_ok([exe], cwd=work)
    check(out.strip() == "ok x x", "unexpected program output %r" % out)
    ya = np.fromfile(os.path.join(work, "ya.bin"), dtype=np.float32).reshape(4, 8)
    yb = np.fromfile(os.path.join(work, "yb.bin"), dtype=np.float32).reshape(1, 4, 4, 4)
    assert_close(ya, want_a, "mlp_a output")
    assert_close(yb, want_b, "cnv_b output")


if __name__ == "__main__":
    main(test)
