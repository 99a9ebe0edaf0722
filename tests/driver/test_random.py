#!/usr/bin/env python3
"""random: the random ops (RandomNormal, RandomUniform, their *Like forms, Bernoulli,
Multinomial) and training-mode Dropout, checked on statistics, not values (any
generator is valid; ingot's is Philox4x32-10, runtime-stubs/kernels/random.h):
  - means, variances and a chi-square test of a histogram for normal and uniform
    draws, ranges ([low, high)), Bernoulli frequencies per probability (0 and 1
    exact), a chi-square test of Multinomial's counts against softmax(logits);
  - training Dropout: y == x * mask / (1 - ratio), the kept fraction ~ 1 - ratio;
  - without `seed`: two runs on one workspace differ, two identical nodes differ
    (CSE must not merge them), a *Like of a constant differs between runs (folding
    must not evaluate it), NAME_seed(ws, s) makes a run repeatable, another seed
    changes it, NAME_run_par on 3 threads gives NAME_run's bytes, and the runner's
    --seed S gives the run after NAME_seed(ws, S) (without it, seed 0's first run);
  - with `seed`: every run and every fresh workspace gives the same bytes.
A C program links the model's library and writes each run's outputs to a file.
The generator itself must give Random123's known-answer vectors for Philox4x32-10."""
import os

import numpy as np
from onnx import TensorProto, helper

from common import check, ingot_compile, init, main, run_ok, save, tool, vi

T = TensorProto
N = helper.make_node

PROG = r"""
#define _POSIX_C_SOURCE 200112L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "m.h"
#ifdef ALL_SEEDED   /* m_seed exists only when some random node has no seed */
#define m_seed(ws, s) ((void)(ws), (void)(s))
#endif

static void *wsalloc(size_t bytes)
{
	void *p = NULL;
	if (posix_memalign(&p, 64, bytes ? bytes : 64)) exit(1);
	memset(p, 0xa5, bytes);   /* never seeded: the state starts from seed 0 */
	return p;
}

static void *load(const char *path, size_t bytes)
{
	void *p = malloc(bytes ? bytes : 1);
	FILE *f = fopen(path, "rb");
	if (!p || !f || fread(p, 1, bytes, f) != bytes) { fprintf(stderr, "cannot read %s\n", path); exit(1); }
	fclose(f);
	return p;
}

static void dump(const char *tag, void *const *out)
{
	char path[64];
	int i;
	snprintf(path, sizeof path, "%s.bin", tag);
	FILE *f = fopen(path, "wb");
	if (!f) exit(1);
	for (i = 0; i < M_NUM_OUTPUTS; i++)
		if (fwrite(out[i], 1, m_outputs[i].bytes, f) != m_outputs[i].bytes) exit(1);
	fclose(f);
}

int main(void)
{
	const void *in[M_NUM_INPUTS > 0 ? M_NUM_INPUTS : 1];
	void *out[M_NUM_OUTPUTS];
	char name[32];
	int i, rc;
	void *ws = wsalloc(M_WORKSPACE_SIZE);
	for (i = 0; i < M_NUM_INPUTS; i++) {
		snprintf(name, sizeof name, "in%d.bin", i);
		in[i] = load(name, m_inputs[i].bytes);
	}
	for (i = 0; i < M_NUM_OUTPUTS; i++)
		out[i] = malloc(m_outputs[i].bytes);
#define RUN(tag) do { if ((rc = m_run_v(in, out, ws)) != 0) { fprintf(stderr, "run: %d\n", rc); return 1; } \
	dump(tag, out); } while (0)
	RUN("run1");
	RUN("run2");
	m_seed(ws, 7);
	RUN("seed7a");
	RUN("seed7a_next");
	m_seed(ws, 7);
	RUN("seed7b");
	m_seed(ws, 8);
	RUN("seed8");
	free(ws);
	ws = wsalloc(M_WORKSPACE_SIZE);
	RUN("fresh");
	free(ws);
	{
		ingot_par *par = m_par_create(3);
		ws = wsalloc(M_WORKSPACE_SIZE_PAR(par ? par->n_threads : 1));
		m_seed(ws, 7);
		if ((rc = m_run_par_v(in, out, ws, par)) != 0) { fprintf(stderr, "run_par: %d\n", rc); return 1; }
		dump("par7", out);
		m_par_destroy(par);
		free(ws);
	}
	printf("ok\n");
	return 0;
}
"""

RATIO = 0.3
N_NORM, N_UNI, N_LIKE = 200000, 100000, 50000
B_PROBS = np.array([0.0, 0.1, 0.5, 0.9, 1.0], np.float32)
B_COLS = 20000
M_PROBS = np.array([[0.1, 0.2, 0.3, 0.4, 0.0], [0.5, 0.25, 0.125, 0.0625, 0.0625]])
M_SAMPLES = 20000


def seeded(seed, **kw):
    if seed is not None:
        kw["seed"] = float(seed)
    return kw


def build(seed):
    """One model with every random op; `seed` None: no seed attributes."""
    s = lambda k: seeded(None if seed is None else seed + k)
    nodes = [
        N("RandomNormal", [], ["n1"], shape=[N_NORM], mean=2.0, scale=3.0, **s(0)),
        N("RandomNormal", [], ["n2"], shape=[N_NORM], mean=2.0, scale=3.0, **s(0)),
        N("RandomUniform", [], ["u"], shape=[4, N_UNI // 4], low=-1.0, high=3.0, **s(1)),
        N("Concat", ["n1", "n2"], ["nn"], axis=0),   # not graph outputs: CSE may look at them
        N("RandomUniformLike", ["c64"], ["ul0"], dtype=T.DOUBLE, **s(2)),
        N("Concat", ["ul0"], ["ul"], axis=0),        # ul0 is no graph output: folding may look
        N("RandomNormalLike", ["c16"], ["nl"], **s(3)),
        N("Bernoulli", ["p"], ["b"], **s(4)),
        N("Bernoulli", ["p"], ["bb"], dtype=T.BOOL, **s(5)),
        N("Multinomial", ["logits"], ["mn"], sample_size=M_SAMPLES, dtype=T.INT64, **s(6)),
        N("Dropout", ["x", "ratio", "train"], ["y", "mask"], **s(7)),
    ]
    inits = [init("c64", np.zeros(N_LIKE, np.float64)), init("c16", np.zeros(N_LIKE, np.float16)),
             init("ratio", np.array(RATIO, np.float32)), init("train", np.array(True))]
    outs = [vi("nn", T.FLOAT, [2 * N_NORM]),
            vi("u", T.FLOAT, [4, N_UNI // 4]), vi("ul", T.DOUBLE, [N_LIKE]),
            vi("nl", T.FLOAT16, [N_LIKE]), vi("b", T.FLOAT, [len(B_PROBS), B_COLS]),
            vi("bb", T.BOOL, [len(B_PROBS), B_COLS]), vi("mn", T.INT64, [2, M_SAMPLES]),
            vi("y", T.FLOAT, [N_UNI]), vi("mask", T.BOOL, [N_UNI])]
    g = helper.make_graph(nodes, "g", [vi("p", T.FLOAT, [len(B_PROBS), B_COLS]),
                                       vi("logits", T.FLOAT, [2, 5]), vi("x", T.FLOAT, [N_UNI])],
                          outs, initializer=inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 15)], producer_name="tests/driver")
    m.ir_version = 8
    return m, outs


DT = {T.FLOAT: np.float32, T.DOUBLE: np.float64, T.FLOAT16: np.float16, T.BOOL: np.bool_,
      T.INT64: np.int64}


def read_run(path, outs):
    raw, res, off = open(path, "rb").read(), {}, 0
    for o in outs:
        t = o.type.tensor_type
        shape = [d.dim_value for d in t.shape.dim]
        dt = np.dtype(DT[t.elem_type])
        n = int(np.prod(shape)) * dt.itemsize
        res[o.name] = np.frombuffer(raw[off:off + n], dt).reshape(shape)
        off += n
    res["n1"], res["n2"] = res["nn"][:N_NORM], res["nn"][N_NORM:]
    return res


def chi2_uniform(v, lo, hi, bins=20):
    counts, _ = np.histogram(v, bins=bins, range=(lo, hi))
    e = len(v) / bins
    return float(((counts - e) ** 2 / e).sum())


def check_stats(r, x, tag):
    # chi-square critical values at p = 0.001: df 19 -> 43.82, df 3 -> 16.27
    n1 = r["n1"].astype(np.float64)
    se = 3.0 / np.sqrt(N_NORM)
    check(abs(n1.mean() - 2.0) < 5 * se, "%s: RandomNormal mean %g, expected 2" % (tag, n1.mean()))
    check(abs(n1.std() - 3.0) < 0.03, "%s: RandomNormal std %g, expected 3" % (tag, n1.std()))
    within = np.mean(np.abs(n1 - 2.0) < 3.0)
    check(abs(within - 0.6827) < 0.006, "%s: RandomNormal P(|z|<1) = %g" % (tag, within))
    u = r["u"].astype(np.float64).ravel()
    check(u.min() >= -1.0 and u.max() < 3.0, "%s: RandomUniform outside [-1, 3)" % tag)
    check(abs(u.mean() - 1.0) < 5 * (4 / np.sqrt(12)) / np.sqrt(N_UNI), "%s: RandomUniform mean %g" % (tag, u.mean()))
    check(abs(u.var() - 16 / 12) < 0.03, "%s: RandomUniform variance %g, expected 4/3" % (tag, u.var()))
    c = chi2_uniform(u, -1.0, 3.0)
    check(c < 43.82, "%s: RandomUniform histogram chi-square %g (df 19)" % (tag, c))
    ul = r["ul"]
    check(ul.min() >= 0.0 and ul.max() < 1.0 and abs(ul.mean() - 0.5) < 0.007,
          "%s: RandomUniformLike f64 range/mean (%g..%g, %g)" % (tag, ul.min(), ul.max(), ul.mean()))
    c = chi2_uniform(ul, 0.0, 1.0)
    check(c < 43.82, "%s: RandomUniformLike histogram chi-square %g (df 19)" % (tag, c))
    nl = r["nl"].astype(np.float64)
    check(abs(nl.mean()) < 0.025 and abs(nl.std() - 1.0) < 0.02,
          "%s: RandomNormalLike f16 mean %g std %g" % (tag, nl.mean(), nl.std()))
    for name in ("b", "bb"):
        b = r[name].astype(np.float64)
        check(set(np.unique(b)) <= {0.0, 1.0}, "%s: Bernoulli %s gives values other than 0/1" % (tag, name))
        for i, p in enumerate(B_PROBS.astype(np.float64)):
            f = b[i].mean()
            tol = 5 * np.sqrt(p * (1 - p) / B_COLS)
            check(abs(f - p) <= tol, "%s: Bernoulli %s frequency %g for p=%g" % (tag, name, f, p))
    mn = r["mn"]
    check(mn.min() >= 0 and mn.max() < 5, "%s: Multinomial class out of range" % tag)
    for row in range(2):
        counts = np.bincount(mn[row], minlength=5)
        probs = M_PROBS[row]
        check(counts[probs == 0].sum() == 0, "%s: Multinomial drew a class of probability 0" % tag)
        e = probs[probs > 0] * M_SAMPLES
        c = float(((counts[probs > 0] - e) ** 2 / e).sum())
        df = int((probs > 0).sum()) - 1
        crit = {3: 16.27, 4: 18.47}[df]
        check(c < crit, "%s: Multinomial row %d chi-square %g (df %d), counts %s" % (tag, row, c, df, counts))
    y, mask = r["y"], r["mask"]
    want = np.where(mask, x * np.float32(1 / (1 - RATIO)), 0).astype(np.float32)
    check(np.allclose(y, want, rtol=1e-6, atol=0), "%s: Dropout y != x * mask / (1 - ratio)" % tag)
    kept = mask.mean()
    check(abs(kept - (1 - RATIO)) < 5 * np.sqrt(RATIO * (1 - RATIO) / N_UNI),
          "%s: Dropout kept %g of the elements, expected %g" % (tag, kept, 1 - RATIO))


def same(a, b):
    return all(np.array_equal(a[k], b[k]) for k in a)


def differ_all(a, b):
    """Every output differs, except Bernoulli's and Multinomial's degenerate rows."""
    return [k for k in a if np.array_equal(a[k], b[k])]


KAT = r"""
#include <stdio.h>
#include "kernels/random.c"
int main(void)
{
	static const uint32_t v[3][10] = {   /* ctr[4], key[2], expected[4] */
		{ 0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8 },
		{ 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff,
		  0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd },
		{ 0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0,
		  0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1 } };
	int i, k, bad = 0;
	for (i = 0; i < 3; i++) {
		uint32_t o[4];
		ingot_philox4x32(v[i], v[i] + 4, o);
		for (k = 0; k < 4; k++)
			bad |= o[k] != v[i][6 + k];
	}
	printf(bad ? "mismatch\n" : "ok\n");
	return bad;
}
"""


def test(ingot, work):
    cc = tool("cc")
    r = np.random.default_rng(5)
    with np.errstate(divide="ignore"):   # log(0) = -inf: a class never drawn
        logits = np.log(M_PROBS).astype(np.float32)
    inputs = [np.repeat(B_PROBS[:, None], B_COLS, axis=1), logits,
              r.standard_normal(N_UNI).astype(np.float32)]
    for seed in (None, 11):
        d = os.path.join(work, "seed%s" % seed)
        os.makedirs(d)
        m, outs = build(seed)
        save(m, os.path.join(d, "m.onnx"))
        ingot_compile(ingot, os.path.join(d, "m.onnx"), d, "m", "--emit", "lib")
        has_seed_fn = "m_seed(" in open(os.path.join(d, "m.h")).read()
        check(has_seed_fn == (seed is None), "m_seed declared: %s, with seed attributes: %s" % (has_seed_fn, seed))
        with open(os.path.join(d, "main.c"), "w") as f:
            f.write(PROG)
        for i, a in enumerate(inputs):
            a.tofile(os.path.join(d, "in%d.bin" % i))
        run_ok([cc, "-std=c99", "-Wall", "-Wextra", "-Werror", "-O2", "-I.", "main.c", "libm.a",
                "-lm", "-pthread", "-o", "prog"] + (["-DALL_SEEDED"] if seed is not None else []), cwd=d)
        run_ok(["./prog"], cwd=d)
        if seed is None:   # the generator's known answers, from the copied kernel
            with open(os.path.join(d, "kat.c"), "w") as f:
                f.write(KAT)
            run_ok([cc, "-std=c99", "-Wall", "-Wextra", "-Werror", "-I.", "kat.c", "-lm", "-o", "kat"], cwd=d)
            run_ok(["./kat"], cwd=d)
        runs = {t: read_run(os.path.join(d, t + ".bin"), outs)
                for t in ("run1", "run2", "seed7a", "seed7a_next", "seed7b", "seed8", "fresh", "par7")}
        for t in ("run1", "run2", "seed7a", "seed8"):
            check_stats(runs[t], inputs[2], "seed=%s %s" % (seed, t))
        check(same(runs["seed7a"], runs["par7"]), "seed=%s: m_run_par on 3 threads differs from m_run" % seed)
        if seed is None:   # the runner's --seed S equals m_seed(ws, S) before a run
            ingot_compile(ingot, os.path.join(d, "m.onnx"), os.path.join(d, "exe"), "m", "--emit", "exe")
            args = []
            for i, a in enumerate(inputs):
                np.save(os.path.join(d, "in%d.npy" % i), a)
                args += ["--input", os.path.join(d, "in%d.npy" % i)]
            for tag, extra in (("seed7a", ["--seed", "7"]), ("run1", [])):
                od = os.path.join(d, "out_" + tag)
                os.makedirs(od)
                run_ok([os.path.join(d, "exe", "m")] + args + ["--output-dir", od] + extra)
                for i, o in enumerate(outs):
                    got = np.load(os.path.join(od, "output_%d.npy" % i))
                    want = runs[tag][o.name]
                    check(np.array_equal(got.view(np.uint8), np.ascontiguousarray(want).view(np.uint8)),
                          "runner %s: output %s differs from the library's run" % (extra, o.name))
            for a, b, what in (("run1", "run2", "two runs on one workspace"),
                               ("seed7a", "seed7a_next", "the two runs after m_seed(7)"),
                               ("seed7a", "seed8", "m_seed(7) and m_seed(8)")):
                eq = differ_all(runs[a], runs[b])
                check(not eq, "no seed: %s give the same %s" % (what, eq))
            check(same(runs["seed7a"], runs["seed7b"]), "no seed: m_seed(7) does not repeat the run")
            check(same(runs["run1"], runs["fresh"]), "no seed: a fresh workspace's first run is not seed 0's")
            check(not np.array_equal(runs["run1"]["n1"], runs["run1"]["n2"]),
                  "no seed: two identical RandomNormal nodes gave the same numbers (merged by CSE?)")
        else:
            for t in runs:
                check(same(runs["run1"], runs[t]), "seed: run '%s' differs from the first" % t)
            check(np.array_equal(runs["run1"]["n1"], runs["run1"]["n2"]),
                  "seed: two RandomNormal nodes with the same seed differ")
    # a constant *Like input must not be folded into a constant: the IR keeps the node
    m, _ = build(None)
    p = save(m, os.path.join(work, "fold.onnx"))
    out, _ = run_ok([ingot, "compile", p, "-o", os.path.join(work, "fold"), "--name", "f",
                     "--dump-ir", "-"])
    for op in ("RandomUniformLike", "RandomNormalLike", "Dropout"):
        check(op in out, "%s was folded or removed:\n%s" % (op, out[-2000:]))
    check(out.count("RandomNormal(") == 2, "the two RandomNormal nodes were merged:\n%s" % out[-2000:])


if __name__ == "__main__":
    main(test)
