#!/usr/bin/env python3
"""api: a C program against the generated API of docs/api.md. It checks the
NAME_inputs[] / NAME_outputs[] descriptors (name, dtype, rank, dims, bytes) and
NAME_WORKSPACE_SIZE (= `inspect` workspace_bytes), runs the typed NAME_run and
NAME_run_v, gets INGOT_EINVAL for a misaligned or NULL workspace, and gets identical
outputs from a workspace pre-filled with 0xAA and a zeroed one, with read-only
inputs. It is built twice: -O2 -Werror, and under -fsanitize=address,undefined with
every buffer malloc'd at exactly its size (workspace 64-aligned by posix_memalign).
The outputs must match numpy."""
import json
import os

import numpy as np
from onnx import TensorProto, helper

from common import (assert_close, c_array, check, conv2d, header_macro, ingot_compile, init, main,
                    model, pool2d, randf, relu, rng, run_ok, save, tool, vi, write)

# the C program's CHECK and failure count: the shared harness of the C tests
HARNESS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "unit")

PROG = r"""
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "api.h"
#include "expect.h"
#include "harness.h"

static void check_io(const ingot_io *io, const char *what, const char *name, int dtype, int rank,
                     const int64_t *dims, size_t bytes)
{
	int k;
	CHECK(strcmp(io->name, name) == 0, "%s name '%s', expected '%s'", what, io->name, name);
	CHECK(io->dtype == dtype, "%s dtype %d, expected %d", what, io->dtype, dtype);
	CHECK(io->rank == rank, "%s rank %d, expected %d", what, io->rank, rank);
	for (k = 0; k < INGOT_MAX_RANK; k++)
		CHECK(io->dims[k] == (k < rank ? dims[k] : 0), "%s dims[%d] = %lld, expected %lld", what, k,
		      (long long)io->dims[k], (long long)(k < rank ? dims[k] : 0));
	CHECK(io->bytes == bytes, "%s bytes %lu, expected %lu", what, (unsigned long)io->bytes,
	      (unsigned long)bytes);
}

/* an input buffer of exactly `bytes`, read-only once filled (kernels must not write it) */
static void *ro_input(const void *data, size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) { perror("mmap"); exit(1); }
	memcpy(p, data, bytes);
	if (mprotect(p, bytes, PROT_READ)) { perror("mprotect"); exit(1); }
	return p;
}

static void *ws_alloc(unsigned char fill)
{
	void *p = NULL;
	if (posix_memalign(&p, 64, API_WORKSPACE_SIZE ? API_WORKSPACE_SIZE : 1)) exit(1);
	memset(p, fill, API_WORKSPACE_SIZE ? API_WORKSPACE_SIZE : 1);
	return p;
}

static void store(const char *path, const void *p, size_t bytes)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(p, 1, bytes, f) != bytes) { fprintf(stderr, "cannot write %s\n", path); exit(1); }
	fclose(f);
}

int main(void)
{
	const float *x, *t;
	float *y[4];
	int32_t *yi[4];
	void *ws_zero = ws_alloc(0), *ws_junk = ws_alloc(0xAA), *big = NULL;
	int rc, i;

	CHECK(API_NUM_INPUTS == 2 && API_NUM_OUTPUTS == 2, "NUM_INPUTS %d NUM_OUTPUTS %d", API_NUM_INPUTS,
	      API_NUM_OUTPUTS);
	CHECK(API_WORKSPACE_SIZE == EXPECT_WORKSPACE, "API_WORKSPACE_SIZE %lld, inspect says %lld",
	      (long long)API_WORKSPACE_SIZE, (long long)EXPECT_WORKSPACE);
	CHECK(API_WORKSPACE_SIZE > 0, "the model needs a workspace");
	check_io(&api_inputs[0], "inputs[0]", "x", 1, 4, x_dims, sizeof x_data);
	check_io(&api_inputs[1], "inputs[1]", "t", 1, 3, t_dims, sizeof t_data);
	check_io(&api_outputs[0], "outputs[0]", "y", 1, 4, y_dims, Y_BYTES);
	check_io(&api_outputs[1], "outputs[1]", "yi", 6, 4, yi_dims, YI_BYTES);
	if (failures)
		return harness_done("api");

	x = ro_input(x_data, sizeof x_data);
	t = ro_input(t_data, sizeof t_data);
	for (i = 0; i < 4; i++) {
		y[i] = malloc(api_outputs[0].bytes);
		yi[i] = malloc(api_outputs[1].bytes);
		memset(y[i], 0x55, api_outputs[0].bytes);
		memset(yi[i], 0x55, api_outputs[1].bytes);
	}

	/* 0: typed, zeroed workspace; 1: typed, 0xAA workspace; 2: run_v, 0xAA again
	 * (after a run: stale activations); 3: run_v on a fresh 0xAA workspace */
	rc = api_run(x, t, y[0], yi[0], ws_zero);
	CHECK(rc == 0, "api_run (zeroed workspace) returned %d", rc);
	rc = api_run(x, t, y[1], yi[1], ws_junk);
	CHECK(rc == 0, "api_run (0xAA workspace) returned %d", rc);
	{
		const void *const in[2] = { x, t };
		void *const out[2] = { y[2], yi[2] };
		void *const out3[2] = { y[3], yi[3] };
		void *ws3 = ws_alloc(0xAA);
		rc = api_run_v(in, out, ws_junk);
		CHECK(rc == 0, "api_run_v returned %d", rc);
		rc = api_run_v(in, out3, ws3);
		CHECK(rc == 0, "api_run_v (fresh 0xAA workspace) returned %d", rc);
		free(ws3);
	}
	for (i = 1; i < 4; i++) {
		CHECK(memcmp(y[0], y[i], api_outputs[0].bytes) == 0, "output y of run %d differs from run 0", i);
		CHECK(memcmp(yi[0], yi[i], api_outputs[1].bytes) == 0, "output yi of run %d differs from run 0", i);
	}

	/* misaligned and missing workspaces: INGOT_EINVAL, outputs untouched */
	if (posix_memalign(&big, 64, API_WORKSPACE_SIZE + 64)) return 1;
	memset(y[3], 0x55, api_outputs[0].bytes);
	rc = api_run(x, t, y[3], yi[3], (unsigned char *)big + 1);
	CHECK(rc == INGOT_EINVAL, "workspace + 1: returned %d, expected INGOT_EINVAL", rc);
	rc = api_run(x, t, y[3], yi[3], (unsigned char *)big + 32);
	CHECK(rc == INGOT_EINVAL, "workspace + 32: returned %d, expected INGOT_EINVAL", rc);
	rc = api_run(x, t, y[3], yi[3], NULL);
	CHECK(rc == INGOT_EINVAL, "NULL workspace: returned %d, expected INGOT_EINVAL", rc);
	rc = api_run_v(NULL, NULL, big);
	CHECK(rc == INGOT_EINVAL, "NULL inputs: returned %d, expected INGOT_EINVAL", rc);
	CHECK(((unsigned char *)y[3])[0] == 0x55, "a rejected run wrote its output");
	rc = api_run(x, t, y[3], yi[3], (unsigned char *)big + 64);
	CHECK(rc == 0, "workspace + 64 (aligned): returned %d", rc);
	CHECK(memcmp(y[0], y[3], api_outputs[0].bytes) == 0, "output y with workspace + 64 differs");

	store("y.bin", y[0], api_outputs[0].bytes);
	store("yi.bin", yi[0], api_outputs[1].bytes);
	for (i = 0; i < 4; i++) { free(y[i]); free(yi[i]); }
	free(ws_zero);
	free(ws_junk);
	free(big);
	return harness_done("api");
}
"""


def dims_c(name, dims):
    return "static const int64_t %s_dims[%d] = { %s };\n" % (name, len(dims), ", ".join(map(str, dims)))


def test(ingot, work):
    cc = tool("cc")
    r = rng(21)
    N = helper.make_node
    w, b = randf(r, 3, 2, 3, 3, scale=0.5), randf(r, 3)
    m = model([N("Conv", ["x", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1]),
               N("Relu", ["c"], ["cr"], name="relu"),
               N("Add", ["cr", "t"], ["s"], name="add"),
               N("MaxPool", ["s"], ["y"], name="pool", kernel_shape=[2, 2], strides=[2, 2]),
               N("Mul", ["y", "ten"], ["y10"], name="scale"),
               N("Floor", ["y10"], ["fl"], name="floor"),
               N("Cast", ["fl"], ["yi"], name="cast", to=TensorProto.INT32)],
              [vi("x", TensorProto.FLOAT, [1, 2, 6, 6]), vi("t", TensorProto.FLOAT, [3, 1, 1])],
              [vi("y", TensorProto.FLOAT, [1, 3, 3, 3]), vi("yi", TensorProto.INT32, [1, 3, 3, 3])],
              [init("w", w), init("b", b), init("ten", np.array(10, np.float32))])
    mp = save(m, os.path.join(work, "api.onnx"))
    x, t = randf(r, 1, 2, 6, 6), randf(r, 3, 1, 1)
    y = pool2d(relu(conv2d(x, w, b, (1, 1), (1, 1, 1, 1))) + t, (2, 2), (2, 2))
    yi = np.floor(y * np.float32(10)).astype(np.int32)

    d = os.path.join(work, "api")
    ingot_compile(ingot, mp, d, "api", "--emit", "lib")
    out, _ = run_ok([ingot, "inspect", mp, "--json"])
    ws = json.loads(out)["workspace_bytes"]
    check(header_macro(d, "api", "WORKSPACE_SIZE") == ws,
          "API_WORKSPACE_SIZE %d != inspect workspace_bytes %d" % (header_macro(d, "api", "WORKSPACE_SIZE"), ws))
    write(os.path.join(work, "expect.h"),
          "#define EXPECT_WORKSPACE %d\n#define Y_BYTES %d\n#define YI_BYTES %d\n" % (ws, y.nbytes, yi.nbytes)
          + c_array("x_data", x, "float") + c_array("t_data", t, "float")
          + dims_c("x", x.shape) + dims_c("t", t.shape) + dims_c("y", y.shape) + dims_c("yi", yi.shape))
    write(os.path.join(work, "api_test.c"), PROG)
    srcs = [os.path.join(work, "api_test.c"), os.path.join(d, "api.c"), os.path.join(d, "api_weights.c")]
    builds = {
        "plain": ["-O2", "-Werror"],
        "asan": ["-O1", "-g", "-fno-omit-frame-pointer", "-fsanitize=address,undefined",
                 "-fno-sanitize-recover=all"],
    }
    for tag, flags in builds.items():
        exe = os.path.join(work, "api_" + tag)
        run_ok([cc, "-std=c99", "-Wall", "-Wextra", "-I", d, "-I", work, "-I", HARNESS_DIR] + flags
               + ["-o", exe] + srcs + ["-lm"])
        od = os.path.join(work, "out_" + tag)
        os.makedirs(od)
        env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0",
                   UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")
        out, _ = run_ok([exe], cwd=od, env=env)
        check(out.strip().endswith("api: all checks passed"), "%s: the API program said %r" % (tag, out))
        assert_close(np.fromfile(os.path.join(od, "y.bin"), np.float32).reshape(y.shape), y, tag + ": y")
        got = np.fromfile(os.path.join(od, "yi.bin"), np.int32).reshape(yi.shape)
        check(np.abs(got.astype(np.int64) - yi).max() <= 1, "%s: yi = %r, expected %r" % (tag, got, yi))


if __name__ == "__main__":
    main(test)
