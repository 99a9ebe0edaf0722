#!/usr/bin/env python3
"""threads: NAME_run_par on pools of 1, 2, 3 and 4 threads (and with no pool) gives
outputs identical, byte for byte, to NAME_run, on generated models (a CNN with
grouped/depthwise convolutions, pooling, Gemm and Softmax; an MLP of MatMul+Add;
one-row products split by column blocks; 3x3 convolutions for x86's Winograd
kernel; data movement with a Resize whose tables
live in per-task scratch; a normalization/reduction model) plus any model directories given (conformance
tests, exported models). Every node that can split is split (-DINGOT_PAR_GRAIN=1).
Built plainly and under ThreadSanitizer (two callers share one pool), and under
ASan+UBSan in the sanitizer build (that build only, common.SANITIZED), and again with
--target x86-avx2 on a host that runs it (the x86
kernels split tiles their own way); a -DINGOT_NO_THREADS build compiles with -ffreestanding, has no pool and
still runs. The runner's --threads and --bench --threads give the same outputs.

    test_threads.py INGOT WORKDIR [MODEL.onnx | TESTDIR ...]
"""
import glob
import os
import re
import sys

import numpy as np
from onnx import TensorProto, helper

from common import (SANITIZED, check, ingot_compile, init, main, model, randf, rng, run, run_ok, save,
                    tool, vi, write)

PROG = r"""
#define _POSIX_C_SOURCE 200112L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "m.h"

static uint64_t seed = 12345;
static void fill(const ingot_io *io, unsigned char *p)
{
	size_t es = ingot_dtype_size(io->dtype), n = es ? io->bytes / es : 0, i;
	for (i = 0; i < n; i++) {
		float f;
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		f = (float)((double)(seed >> 40) / 8388608.0 - 1.0);
		if (io->dtype == INGOT_DT_F32) memcpy(p + 4 * i, &f, 4);
		else if (io->dtype == INGOT_DT_F64) { double d = f; memcpy(p + 8 * i, &d, 8); }
		else { memset(p + es * i, 0, es); p[es * i] = (unsigned char)((seed >> 33) & 1u); }
	}
}

static void *wsalloc(size_t bytes)
{
	void *p = NULL;
	if (posix_memalign(&p, 64, bytes ? bytes : 64)) exit(3);
	memset(p, 0xa5, bytes);   /* stale data must not matter */
	return p;
}

static const void *in[M_NUM_INPUTS > 0 ? M_NUM_INPUTS : 1];
static void *ref[M_NUM_OUTPUTS];

static int same(void *const *out, const char *what, int threads)
{
	int i;
	for (i = 0; i < M_NUM_OUTPUTS; i++)
		if (memcmp(out[i], ref[i], m_outputs[i].bytes) != 0) {
			fprintf(stderr, "%s with %d threads: output %d '%s' differs from m_run_v's\n", what, threads,
			        i, m_outputs[i].name);
			return 0;
		}
	return 1;
}

static void **alloc_outputs(void)
{
	void **out = malloc(sizeof(void *) * M_NUM_OUTPUTS);
	int i;
	for (i = 0; i < M_NUM_OUTPUTS; i++) {
		out[i] = malloc(m_outputs[i].bytes ? m_outputs[i].bytes : 1);
		memset(out[i], 0x5a, m_outputs[i].bytes);
	}
	return out;
}

typedef struct caller { const ingot_par *par; int ok; } caller;

/* a second caller running the model on the same pool at the same time */
static void *call_loop(void *arg)
{
	caller *c = arg;
	void **out = alloc_outputs();
	void *ws = wsalloc(M_WORKSPACE_SIZE_PAR(c->par ? c->par->n_threads : 1));
	int k, i;
	c->ok = 1;
	for (k = 0; k < 5 && c->ok; k++)
		c->ok = m_run_par_v(in, out, ws, c->par) == 0 && same(out, "concurrent m_run_par_v", 0);
	for (i = 0; i < M_NUM_OUTPUTS; i++)
		free(out[i]);
	free(out);
	free(ws);
	return NULL;
}

int main(void)
{
	int i, t, rc, ok = 1, threads = 0;
	void *ws = wsalloc(M_WORKSPACE_SIZE);
	void **out = alloc_outputs();
	for (i = 0; i < M_NUM_INPUTS; i++) {
		unsigned char *p = malloc(m_inputs[i].bytes ? m_inputs[i].bytes : 1);
		fill(&m_inputs[i], p);
		in[i] = p;
	}
	for (i = 0; i < M_NUM_OUTPUTS; i++)
		ref[i] = malloc(m_outputs[i].bytes ? m_outputs[i].bytes : 1);
	if ((rc = m_run_v(in, ref, ws)) != 0) { fprintf(stderr, "m_run_v: %d\n", rc); return 1; }
	free(ws);
	ws = wsalloc(M_WORKSPACE_SIZE);
	if ((rc = m_run_par_v(in, out, ws, NULL)) != 0 || !same(out, "m_run_par_v(NULL)", 1)) return 1;
	free(ws);
	for (t = 1; t <= 4 && ok; t++) {
		ingot_par *par = m_par_create(t);
#ifdef INGOT_NO_THREADS
		if (par) { fprintf(stderr, "a pool without threads\n"); return 1; }
#else
		if (!par || par->n_threads != t) { fprintf(stderr, "m_par_create(%d) failed\n", t); return 1; }
#endif
		threads = par ? par->n_threads : 1;
		ws = wsalloc(M_WORKSPACE_SIZE_PAR(threads));
		for (i = 0; i < 3 && ok; i++) {   /* repeated runs reuse the pool */
			rc = m_run_par_v(in, out, ws, par);
			ok = rc == 0 && same(out, "m_run_par_v", threads);
		}
		if (ok && t == 3) {   /* two callers share one pool */
			pthread_t th;
			caller c;
			c.par = par;
			c.ok = 0;
			if (pthread_create(&th, NULL, call_loop, &c)) return 1;
			for (i = 0; i < 5 && ok; i++)
				ok = m_run_par_v(in, out, ws, par) == 0 && same(out, "m_run_par_v", threads);
			pthread_join(th, NULL);
			ok = ok && c.ok;
		}
		free(ws);
		m_par_destroy(par);
	}
	for (i = 0; i < M_NUM_INPUTS; i++)
		free((void *)in[i]);
	for (i = 0; i < M_NUM_OUTPUTS; i++) {
		free(out[i]);
		free(ref[i]);
	}
	free(out);
	if (!ok) return 1;
	printf("identical outputs: m_run_par_v on 1..4 threads, %d split calls\n", M_PAR_SPLIT_CALLS);
	return 0;
}
"""


def cnn(path):
    r = rng(1)
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], name="conv1"),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2], name="pool1"),
        helper.make_node("Conv", ["p1", "w2"], ["c2"], pads=[1, 1, 1, 1], group=8, name="dwconv"),
        helper.make_node("Conv", ["c2", "w3", "b3"], ["c3"], group=2, name="gconv"),
        helper.make_node("Sigmoid", ["c3"], ["s3"], name="sig"),
        helper.make_node("Mul", ["c3", "s3"], ["m3"], name="swish"),
        helper.make_node("AveragePool", ["m3"], ["a3"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], name="avg"),
        helper.make_node("GlobalAveragePool", ["a3"], ["g"], name="gap"),
        helper.make_node("Flatten", ["g"], ["f"], name="flat"),
        helper.make_node("Gemm", ["f", "wf", "bf"], ["l"], transB=1, name="fc"),
        helper.make_node("Softmax", ["l"], ["y"], axis=1, name="softmax"),
    ]
    inits = [init("w1", randf(r, 8, 3, 3, 3, scale=0.3)), init("b1", randf(r, 8)),
             init("w2", randf(r, 8, 1, 3, 3, scale=0.3)),
             init("w3", randf(r, 16, 4, 1, 1, scale=0.3)), init("b3", randf(r, 16)),
             init("wf", randf(r, 10, 16)), init("bf", randf(r, 10))]
    save(model(nodes, [vi("x", TensorProto.FLOAT, [2, 3, 20, 20])],
               [vi("y", TensorProto.FLOAT, [2, 10])], inits), path)


def mlp(path):
    r = rng(2)
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h"], name="mm1"),
        helper.make_node("Add", ["h", "b1"], ["hb"], name="add1"),
        helper.make_node("Tanh", ["hb"], ["t"], name="tanh"),
        helper.make_node("MatMul", ["t", "w2"], ["y"], name="mm2"),
    ]
    inits = [init("w1", randf(r, 64, 48)), init("b1", randf(r, 48)), init("w2", randf(r, 48, 24))]
    save(model(nodes, [vi("x", TensorProto.FLOAT, [3, 7, 64])],
               [vi("y", TensorProto.FLOAT, [3, 7, 24])], inits), path)


def gemv(path):
    """One-row products: split by column blocks (Gemm with B transposed, MatMul)."""
    r = rng(4)
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h"], name="gemv1"),
        helper.make_node("Relu", ["h"], ["hr"], name="relu"),
        helper.make_node("Gemm", ["hr", "w2", "b2"], ["y"], transB=1, name="gemv2"),
    ]
    inits = [init("w1", randf(r, 200, 300)), init("w2", randf(r, 130, 300)), init("b2", randf(r, 130))]
    save(model(nodes, [vi("x", TensorProto.FLOAT, [1, 200])], [vi("y", TensorProto.FLOAT, [1, 130])],
               inits), path)


def wino(path):
    """3x3 stride-1 convolutions wide enough for the x86 targets' Winograd kernel, whose
    tile rows go through per-task scratch, and a residual Add."""
    r = rng(6)
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], name="wconv1"),
        helper.make_node("Relu", ["c1"], ["r1"], name="wrelu"),
        helper.make_node("Conv", ["r1", "w2"], ["c2"], pads=[1, 1, 1, 1], name="wconv2"),
        helper.make_node("Add", ["c2", "x"], ["y"], name="wres"),
    ]
    inits = [init("w1", randf(r, 16, 16, 3, 3, scale=0.2)), init("b1", randf(r, 16)),
             init("w2", randf(r, 16, 16, 3, 3, scale=0.2))]
    save(model(nodes, [vi("x", TensorProto.FLOAT, [2, 16, 13, 11])],
               [vi("y", TensorProto.FLOAT, [2, 16, 13, 11])], inits), path)


def shapes(path):
    """Data movement: Resize (its tables in per-task scratch), Transpose, Pad, Split,
    Concat, Gather, Cast."""
    r = rng(5)
    nodes = [
        helper.make_node("Resize", ["x", "", "sc"], ["rs"], mode="linear", name="resize"),
        helper.make_node("Transpose", ["rs"], ["tr"], perm=[0, 2, 3, 1], name="transpose"),
        helper.make_node("Pad", ["tr", "pads"], ["pd"], mode="reflect", name="pad"),
        helper.make_node("Split", ["pd"], ["s1", "s2"], axis=3, name="split"),
        helper.make_node("Concat", ["s2", "s1", "s2"], ["cc"], axis=3, name="concat"),
        helper.make_node("Gather", ["cc", "idx"], ["ga"], axis=1, name="gather"),
        helper.make_node("Cast", ["ga"], ["y"], to=TensorProto.DOUBLE, name="cast"),
    ]
    inits = [init("sc", np.array([1, 1, 1.5, 2], np.float32)),
             init("pads", np.array([0, 1, 2, 0, 0, 2, 1, 0], np.int64)),
             init("idx", np.array([[0, 3, 5], [7, 2, 2]], np.int64))]
    save(model(nodes, [vi("x", TensorProto.FLOAT, [2, 6, 9, 11])],
               [vi("y", TensorProto.DOUBLE, [2, 2, 3, 25, 9])], inits), path)


def norms(path):
    r = rng(3)
    nodes = [
        helper.make_node("LayerNormalization", ["x", "g", "b"], ["ln"], axis=-1, name="ln"),
        helper.make_node("ReduceMean", ["ln"], ["rm"], axes=[1], keepdims=1, name="rmean"),
        helper.make_node("Sub", ["ln", "rm"], ["d"], name="sub"),
        helper.make_node("ReduceSumSquare", ["d"], ["y1"], axes=[2], keepdims=0, name="rss"),
        helper.make_node("Clip", ["d", "lo", "hi"], ["cl"], name="clip"),
        helper.make_node("Softmax", ["cl"], ["y2"], axis=1, name="softmax"),
        helper.make_node("BatchNormalization", ["x4", "s", "bb", "mu", "var"], ["y3"], name="bn"),
    ]
    inits = [init("g", randf(r, 33)), init("b", randf(r, 33)),
             init("lo", np.array(-0.5, np.float32)), init("hi", np.array(0.7, np.float32)),
             init("s", randf(r, 5)), init("bb", randf(r, 5)), init("mu", randf(r, 5)),
             init("var", np.abs(randf(r, 5)) + 0.5)]
    save(model(nodes, [vi("x", TensorProto.FLOAT, [4, 9, 33]), vi("x4", TensorProto.FLOAT, [2, 5, 6, 7])],
               [vi("y1", TensorProto.FLOAT, [4, 9]), vi("y2", TensorProto.FLOAT, [4, 9, 33]),
                vi("y3", TensorProto.FLOAT, [2, 5, 6, 7])], inits, opset=17), path)


X86_FLAGS = ["-mavx2", "-mfma"]


def host_has_avx2():
    try:
        with open("/proc/cpuinfo") as f:
            flags = f.read()
    except OSError:
        return False
    return os.uname().machine == "x86_64" and " avx2" in flags and " fma" in flags


def build(cc, d, flags, exe, extra_src=()):
    run_ok([cc, "-std=c99", "-Wall", "-Wextra", "-Werror", "-I.", "-DINGOT_PAR_GRAIN=1",
            "-DM_PAR_SPLIT_CALLS=%d" % split_calls(d)] + flags +
           ["-o", exe, "par_check.c", "m.c"] + list(extra_src) + ["-lm", "-pthread"], cwd=d)


def split_calls(d):
    with open(os.path.join(d, "m.c")) as f:
        return f.read().count("ingot_par_call(par,")


def check_model(ingot, work, tag, onnx_path, cc, target="c"):
    d = os.path.join(work, tag if target == "c" else tag + "_" + target)
    ingot_compile(ingot, onnx_path, d, "m", "--emit", "exe", "--target", target)
    write(os.path.join(d, "par_check.c"), PROG)
    w = [f for f in glob.glob(os.path.join(d, "m_weights.*")) if f.endswith((".c", ".S"))]
    n_split = split_calls(d)
    check(n_split > 0, "%s: no call is split over threads" % tag)
    if target != "c":   # the SIMD kernels: plain and TSan builds
        with open(os.path.join(d, "m.c")) as f:
            src = f.read()
        check("kernels/x86/" in src, "%s: --target %s uses no x86 kernel" % (tag, target))
        if tag == "wino":
            check(".packed = 2" in src, "wino: --target %s does not use the Winograd kernel" % target)
        for kind, flags in (("plain", ["-O2"]), ("tsan", ["-O1", "-g", "-fsanitize=thread"])):
            build(cc, d, flags + X86_FLAGS, "par_" + kind, [os.path.basename(f) for f in w])
            rc, out, err = run([os.path.join(d, "par_" + kind)], cwd=d)
            check(rc == 0 and "identical outputs" in out and "ThreadSanitizer" not in err,
                  "%s (%s, %s build): exit %d\n%s%s" % (tag, target, kind, rc, out, err[-3000:]))
        return d, n_split
    if tag == "shapes":
        with open(os.path.join(d, "m.h")) as f:
            check(re.search(r"#define M_PAR_SCRATCH [1-9]", f.read()), "shapes: no per-task scratch")
    # the plain build: plain and TSan; the sanitizer build (SANITIZED): ASan+UBSan only
    builds = ([("asan", ["-O1", "-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all"])]
              if SANITIZED else [("plain", ["-O2"]), ("tsan", ["-O1", "-g", "-fsanitize=thread"])])
    for kind, flags in builds:
        exe = "par_" + kind
        build(cc, d, flags, exe, [os.path.basename(f) for f in w])
        rc, out, err = run([os.path.join(d, exe)], cwd=d)
        check(rc == 0 and "identical outputs" in out and "ThreadSanitizer" not in err,
              "%s (%s build): exit %d\n%s%s" % (tag, kind, rc, out, err[-3000:]))
    # without threads: freestanding compile of the model, and a hosted run without a pool
    run_ok([cc, "-std=c99", "-Wall", "-Wextra", "-Werror", "-I.", "-ffreestanding", "-DINGOT_NO_THREADS",
            "-c", "m.c", "-o", "m_nothreads.o"], cwd=d)
    build(cc, d, ["-O1", "-DINGOT_NO_THREADS"], "par_nothreads", [os.path.basename(f) for f in w])
    run_ok([os.path.join(d, "par_nothreads")], cwd=d)
    return d, n_split


def check_runner(d, tag):
    """The generated runner: --threads 3 writes the same outputs as one thread."""
    exe = os.path.join(d, "m")
    run_ok([exe, "--bench", "2", "--output-dir", d], cwd=d)   # writes nothing, makes no input
    outs = {}
    for t in (1, 3):
        od = os.path.join(d, "out%d" % t)
        os.makedirs(od, exist_ok=True)
        ins = sorted(glob.glob(os.path.join(d, "..", tag + "_in", "input_*.pb")))
        if not ins:
            return
        run_ok([exe, "--threads", str(t), "--output-dir", od] + sum([["--input", i] for i in ins], []), cwd=d)
        outs[t] = [open(f, "rb").read() for f in sorted(glob.glob(os.path.join(od, "output_*.pb")))]
    check(outs[1] and outs[1] == outs[3], "%s: runner outputs differ between --threads 1 and 3" % tag)
    out, err = run_ok([exe, "--bench", "3", "--threads", "2"] +
                      sum([["--input", i] for i in sorted(glob.glob(os.path.join(d, "..", tag + "_in",
                                                                                 "input_*.pb")))], []), cwd=d)
    check(out.strip().splitlines()[-1].startswith("median_us="), "%s: --bench --threads: %s" % (tag, out))
    check("note:" not in err, "%s: --threads 2 did not get 2 threads: %s" % (tag, err))


GRAIN_PROG = r"""
#define _POSIX_C_SOURCE 200112L
#include <stdio.h>
#include <stdlib.h>
#include "m.h"

static int jobs;
/* a pool of 2 that runs its tasks one after the other and counts the jobs */
static int count_run(const ingot_par *par, const ingot_par_job *job)
{
	int t, rc = 0;
	(void)par;
	jobs++;
	for (t = 0; t < job->n_tasks && rc == 0; t++)
		rc = ingot_par_task(job, t);
	return rc;
}

int main(void)
{
	static float x[64 * 512], y[64 * 512];
	const void *in[1] = { x };
	void *out[1] = { y };
	ingot_par par = { 2, count_run, NULL };
	void *ws = NULL;
	int rc;
	if (posix_memalign(&ws, 64, M_WORKSPACE_SIZE_PAR(2) + 64))
		return 3;
	rc = m_run_par_v(in, out, ws, &par);
	printf("rc=%d jobs=%d\n", rc, jobs);
	free(ws);
	return rc;
}
"""


def check_grain(ingot, work, cc):
    """INGOT_PAR_GRAIN by default: a MatMul of 64x512x512 MACs splits, a 64x512-element
    Add and two 64x512x4 MatMuls run whole; with a grain of 1 all three split."""
    r = rng(7)
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h"], name="big_mm"),
        helper.make_node("Add", ["h", "x"], ["a"], name="small_add"),
        helper.make_node("MatMul", ["a", "w2"], ["s"], name="small_mm"),
        helper.make_node("MatMul", ["s", "w3"], ["y"], name="tiny_mm"),
    ]
    inits = [init("w1", randf(r, 512, 512)), init("w2", randf(r, 512, 4)), init("w3", randf(r, 4, 512))]
    p = os.path.join(work, "grain.onnx")
    save(model(nodes, [vi("x", TensorProto.FLOAT, [64, 512])], [vi("y", TensorProto.FLOAT, [64, 512])],
               inits), p)
    d = os.path.join(work, "grain")
    ingot_compile(ingot, p, d, "m", "-O0")
    write(os.path.join(d, "grain.c"), GRAIN_PROG)
    w = [os.path.basename(f) for f in glob.glob(os.path.join(d, "m_weights.*")) if f.endswith((".c", ".S"))]
    for grain, want in ((None, 1), (1, 4)):
        flags = ["-DINGOT_PAR_GRAIN=%d" % grain] if grain else []
        run_ok([cc, "-std=c99", "-Wall", "-Wextra", "-Werror", "-I.", "-O1"] + flags +
               ["-o", "grain", "grain.c", "m.c"] + w + ["-lm", "-pthread"], cwd=d)
        out, _ = run_ok([os.path.join(d, "grain")], cwd=d)
        check(out.strip() == "rc=0 jobs=%d" % want,
              "grain %s: %s, want %d jobs" % (grain or "default", out.strip(), want))
    print("grain: by default only the 16M-MAC MatMul splits; with a grain of 1 every node does")


def run_all(ingot, work, *extra):
    cc = tool("cc")
    models = []
    for name, fn in (("cnn", cnn), ("mlp", mlp), ("gemv", gemv), ("wino", wino), ("shapes", shapes),
                     ("norms", norms)):
        p = os.path.join(work, name + ".onnx")
        fn(p)
        models.append((name, p))
    for i, e in enumerate(extra):
        if os.path.isdir(e):   # a conformance test directory: its model and first data set
            models.append(("dir%d_%s" % (i, os.path.basename(e.rstrip("/"))), os.path.join(e, "model.onnx")))
            ds = sorted(glob.glob(os.path.join(e, "test_data_set_*")))
            if ds:
                os.symlink(ds[0], os.path.join(work, models[-1][0] + "_in"))
        else:
            check(os.path.exists(e), "no model at %s" % e)
            models.append(("model%d_%s" % (i, os.path.basename(e).replace(".onnx", "")), e))
    check_grain(ingot, work, cc)
    for tag, p in models:
        d, n = check_model(ingot, work, tag, p, cc)
        check_runner(d, tag)
        print("%s: %d split calls, identical on 1..4 threads (%s)" % (tag, n, "ASan+UBSan" if SANITIZED else
                                                                      "plain, TSan"))
    # the x86 kernels (Conv, MatMul, Gemm, pooling) split their own way: same check
    if SANITIZED:
        print("the sanitizer build: the x86-avx2 runs are the plain build's (common.SANITIZED)")
    elif host_has_avx2():
        for tag, p in models[:4]:
            d, n = check_model(ingot, work, tag, p, cc, "x86-avx2")
            print("%s --target x86-avx2: %d split calls, identical on 1..4 threads (plain, TSan)" % (tag, n))
    else:
        print("not an x86-64 host with AVX2 and FMA: the x86-avx2 kernels are not checked here")


if __name__ == "__main__":
    main(run_all)
