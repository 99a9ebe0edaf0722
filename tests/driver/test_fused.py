#!/usr/bin/env python3
"""fused: per-node code of fused elementwise chains (codegen/c/emit_fused.c).

    test_fused.py INGOT WORKDIR golden|c|x86-avx2|x86-avx512|neon|neon32

golden: a small chain compiled for --target c gives exactly the function below
(commented with its ONNX nodes and formula), twice the same bytes, no call of the
interpreter ingot_fused_elementwise, and NAME.c compiles with gcc and clang under
-Wall -Wextra -Werror, for the x86 targets too; chains inside If branches work
(their functions precede the body functions, `ingot check` passes at -O2).

c: one model holds many chains (every fusable op, Clip with and without bounds,
binary ops with either input broadcast in different dims, ranks 1..6, odd sizes);
at -O2 each chain is one generated function, at -O0 none is. The -O2 build (plain,
and under ASan+UBSan) gives the -O0 build's bits, through NAME_run and through
NAME_run_par on 2 and 3 threads with every node split (-DINGOT_PAR_GRAIN=1).

x86-avx2, x86-avx512: the same model's -O2 build for that target, on 1, 2 and 3
threads with identical bits, gives the C target's bits for chains without exp,
sigmoid, tanh or erf, and agrees within ULPS ulp (NaN where it has NaN) for those
that have them; every chain has a vector loop. Exits 77 (skipped) when this CPU
lacks the target's instructions. neon, neon32: the same, built with the cross
compiler and run under qemu, against the C target built and run the same way
(neon32's vector Div, Reciprocal and Softsign are within tolerance, not exact).
"""
import glob
import os
import sys

import numpy as np
from onnx import TensorProto, helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "unit", "x86"))
from cpu import SKIPPED, runnable  # noqa: E402  (tests/unit/x86/cpu.py)
from common import (check, check_all_pass, ingot_compile, init, main, model, run_ok, save, tool, vi,
                    write_test_dir)

F = TensorProto.FLOAT

GOLDEN = r"""/* m_fused0_act: FusedElementwise of ONNX nodes 'scale', 'shift', 'act'
 *   y = Clip(((x * s) + b), min=0, max=6)
 * in[0] x f32[2,3,5]: streamed
 * in[1] s f32[3,1]: one value per row
 * in[2] b f32[]: one value
 * out[0] y f32[2,3,5]: 6 rows of 5 contiguous elements */
static int m_fused0_act(const void *params, const void *const *in, void *const *out,
	void *scratch, int task, int n_tasks)
{
	const float *in0 = (const float *)in[0];
	const float *in1 = (const float *)in[1];
	const float *in2 = (const float *)in[2];
	float *y = (float *)out[0];
	int64_t c0, c1, r;

	(void)params;
	(void)scratch;
	if (!in0 || !in1 || !in2 || !y)
		return INGOT_EINVAL;
	if (n_tasks < 1) {
		task = 0;
		n_tasks = 1;
	}
	/* tasks take whole chunks of 1 element of a row */
	c0 = 30LL * task / n_tasks;
	c1 = 30LL * (task + 1) / n_tasks;
	const float x2 = in2[0];
	for (r = c0 / 5; r * 5 < c1; r++) {
		const int64_t j0 = r * 5 < c0 ? (c0 - r * 5) : 0;
		const int64_t j1 = (r + 1) * 5 > c1 ? (c1 - r * 5) : 5;
		const float *row0 = in0 + r * 5;
		const float x1 = in1[r % 3];
		float *rowy = y + r * 5;
		int64_t j = j0;

		for (; j < j1; j++) {
			const float x0 = row0[j];
			const float s0 = ingot_ewf_mul(x0, x1);
			const float s1 = ingot_ewf_add(s0, x2);
			const float s2 = ingot_ewf_clip(s1, 1, 0.0f, 1, 6.0f);
			rowy[j] = s2;
		}
	}
	return INGOT_OK;
}
"""


def golden_model(path):
    nodes = [helper.make_node("Mul", ["x", "s"], ["t0"], name="scale"),
             helper.make_node("Add", ["t0", "b"], ["t1"], name="shift"),
             helper.make_node("Clip", ["t1", "lo", "hi"], ["y"], name="act")]
    inits = [init("b", np.float32(0.5)), init("lo", np.float32(0)), init("hi", np.float32(6))]
    return save(model(nodes, [vi("x", F, [2, 3, 5]), vi("s", F, [3, 1])], [vi("y", F, [2, 3, 5])],
                      inits), path)


def function_text(src, name):
    """The comment and body of generated function `name` in NAME.c."""
    start = src.find("/* %s: " % name)
    check(start >= 0, "no function %s in the generated code" % name)
    end = src.find("\n}\n", start)
    return src[start:end + 3]


def golden(ingot, work):
    path = golden_model(os.path.join(work, "g.onnx"))
    outs = []
    for k in range(2):
        d = os.path.join(work, "g%d" % k)
        ingot_compile(ingot, path, d, "m", "--target", "c", "-O2")
        outs.append(open(os.path.join(d, "m.c"), "rb").read())
    check(outs[0] == outs[1], "two compilations of the same model differ")
    src = outs[0].decode()
    got = function_text(src, "m_fused0_act")
    if got != GOLDEN:
        import difflib
        diff = "".join(difflib.unified_diff(GOLDEN.splitlines(True), got.splitlines(True),
                                            "expected", "generated"))
        check(False, "the generated function differs from the expected one:\n" + diff)
    check("ingot_fused_elementwise" not in src, "NAME.c still calls the interpreter")
    check("#include \"kernels/ewmath.h\"" in src, "NAME.c does not include kernels/ewmath.h")
    check(os.path.exists(os.path.join(work, "g0", "kernels", "ewmath.h")), "kernels/ewmath.h not copied")
    # warning-free with gcc and clang, for the C and the x86 targets
    for target, flags in (("c", []), ("x86-avx2", ["-mavx2", "-mfma"]),
                          ("x86-avx512", ["-mavx512f", "-mavx512bw", "-mavx512dq", "-mavx512vl", "-mfma"])):
        d = os.path.join(work, "w-" + target)
        ingot_compile(ingot, path, d, "m", "--target", target, "-O2")
        text = open(os.path.join(d, "m.c")).read()
        check("static int m_fused0_act(" in text, "%s: no generated function" % target)
        if target != "c":
            check("uk_store(rowy + j" in text, "%s: the row has no vector loop" % target)
        for cc in ("gcc", "clang"):
            run_ok([tool(cc), "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-I."] + flags +
                   ["-c", "-o", "/dev/null", "m.c"], cwd=d)
        run_ok([tool("gcc"), "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-I.",
                "-DINGOT_EXTERN_KERNELS"] + flags + ["-c", "-o", "/dev/null", "m.c"], cwd=d)
    branch_chains(ingot, work)


def branch_chains(ingot, work):
    """Chains inside If branches: their functions come before the body functions that
    call them, and `ingot check` passes both branches at -O2."""
    then_g = helper.make_graph([helper.make_node("Mul", ["x", "two"], ["a"], name="t_mul"),
                                helper.make_node("Add", ["a", "one"], ["b"], name="t_add"),
                                helper.make_node("Sigmoid", ["b"], ["yt"], name="t_sig")],
                               "then", [], [vi("yt", F, [4, 37])])
    else_g = helper.make_graph([helper.make_node("Neg", ["x"], ["c"], name="e_neg"),
                                helper.make_node("Abs", ["c"], ["d"], name="e_abs"),
                                helper.make_node("Tanh", ["d"], ["ye"], name="e_tanh")],
                               "else", [], [vi("ye", F, [4, 37])])
    m = model([helper.make_node("If", ["cond"], ["y"], then_branch=then_g, else_branch=else_g, name="iff")],
              [vi("cond", TensorProto.BOOL, []), vi("x", F, [4, 37])], [vi("y", F, [4, 37])],
              [init("two", np.float32(2)), init("one", np.float32(1))])
    x = np.random.default_rng(3).standard_normal((4, 37)).astype(np.float32)
    x64 = x.astype(np.float64)
    dirs = [write_test_dir(work, "if_then", m, [np.array(True), x],
                           [(1 / (1 + np.exp(-(x64 * 2 + 1)))).astype(np.float32)]),
            write_test_dir(work, "if_else", m, [np.array(False), x], [np.tanh(np.abs(x64)).astype(np.float32)])]
    d = os.path.join(work, "if-c")
    ingot_compile(ingot, os.path.join(dirs[0], "model.onnx"), d, "m", "--target", "c", "-O2")
    src = open(os.path.join(d, "m.c")).read()
    for fn, body in (("m_fused0_t_sig", "m_body_0"), ("m_fused1_e_tanh", "m_body_1")):
        check(0 <= src.find("static int %s(" % fn) < src.find("static int %s(" % body),
              "%s is not defined before %s" % (fn, body))
    for target in ["c"] + runnable(["x86-avx2"])[0]:
        check_all_pass(ingot, dirs, "--target", target, "-O2")


# ---- the chains ----

def chains():
    """(nodes, graph inputs {name: shape}, initializers, output name, output shape) per chain.
    Every fusable op appears; the broadcast operands sit in different dims and on either
    side of the binary ops; inner sizes are odd, vector multiples and tails."""
    out = []

    def chain(tag, inputs, steps, shape, inits=()):
        """steps: (op, [operands], attrs); '$' is the previous step's result."""
        nodes, prev = [], None
        for k, (op, args, attrs) in enumerate(steps):
            args = [prev if a == "$" else a for a in args]
            res = "%s_t%d" % (tag, k) if k < len(steps) - 1 else "%s_y" % tag
            nodes.append(helper.make_node(op, args, [res], name="%s_%s%d" % (tag, op.lower(), k), **attrs))
            prev = res
        out.append((nodes, inputs, list(inits), prev, shape))

    chain("r1", {"r1_x": [37]}, [("Abs", ["r1_x"], {}), ("Sqrt", ["$"], {}), ("Log", ["$"], {}),
                                  ("Neg", ["$"], {}), ("Exp", ["$"], {})], [37])
    chain("r2", {"r2_x": [5, 19], "r2_b": [5, 1], "r2_c": [19]},
          [("Mul", ["r2_x", "r2_b"], {}), ("Add", ["r2_c", "$"], {}), ("Sigmoid", ["$"], {}),
           ("Tanh", ["$"], {})], [5, 19])
    chain("r3", {"r3_x": [3, 4, 17], "r3_b": [4, 1]},
          [("Sub", ["r3_b", "r3_x"], {}), ("Elu", ["$"], {"alpha": 0.7}),
           ("Selu", ["$"], {"alpha": 1.5, "gamma": 1.1}), ("Softplus", ["$"], {})], [3, 4, 17])
    chain("r4", {"r4_x": [2, 3, 5, 7], "r4_b": [1, 3, 1, 1]},
          [("Mul", ["r4_x", "r4_k"], {}), ("Ceil", ["$"], {}), ("Div", ["$", "r4_b"], {}),
           ("Floor", ["$"], {}), ("Add", ["$", "r4_b"], {}), ("Reciprocal", ["$"], {}),
           ("Softsign", ["$"], {})], [2, 3, 5, 7], [init("r4_k", np.float32(3.0))])
    chain("r5", {"r5_x": [2, 1, 3, 4, 9], "r5_b": [3, 1, 1], "r5_c": [2, 1, 1, 4, 1]},
          [("HardSigmoid", ["r5_x"], {"alpha": 0.3, "beta": 0.4}), ("Mul", ["$", "r5_c"], {}),
           ("HardSwish", ["$"], {}), ("LeakyRelu", ["$"], {"alpha": 0.05}),
           ("Add", ["r5_b", "$"], {})], [2, 1, 3, 4, 9])
    chain("r6", {"r6_x": [2, 3, 1, 2, 3, 11], "r6_b": [1, 1, 4, 1, 1, 1]},
          [("Add", ["r6_x", "r6_b"], {}), ("Erf", ["$"], {}), ("Relu", ["$"], {}),
           ("Pow", ["$", "r6_two"], {}), ("Clip", ["$", "r6_lo", "r6_hi"], {})],
          [2, 3, 4, 2, 3, 11], [init("r6_two", np.float32(2.0)), init("r6_lo", np.float32(-0.5)),
                                init("r6_hi", np.float32(0.8))])
    # Clip with only a lower bound, only an upper one, none; Pow by a tensor
    chain("cl", {"cl_x": [3, 33]},
          [("Clip", ["cl_x", "cl_lo"], {}), ("Sigmoid", ["$"], {}), ("Clip", ["$", "", "cl_hi"], {}),
           ("Clip", ["$"], {}), ("Tanh", ["$"], {})], [3, 33],
          [init("cl_lo", np.float32(-1.25)), init("cl_hi", np.float32(0.75))])
    chain("pw", {"pw_x": [4, 17], "pw_e": [4, 1]},
          [("Abs", ["pw_x"], {}), ("Pow", ["$", "pw_h"], {}), ("Pow", ["$", "pw_e"], {}),
           ("Exp", ["$"], {})], [4, 17], [init("pw_h", np.float32(0.5))])
    # the main input broadcast along the row, a row vector streamed; a scalar input
    chain("bc", {"bc_x": [3, 1], "bc_r": [1, 40], "bc_s": []},
          [("Mul", ["bc_x", "bc_r"], {}), ("Add", ["$", "bc_s"], {}), ("Tanh", ["$"], {}),
           ("Sub", ["$", "bc_x"], {})], [3, 40])
    # fewer elements than a vector; a long row with a tail for both vector widths
    chain("c1", {"c1_x": [7, 1], "c1_b": [1, 1]},
          [("Add", ["c1_x", "c1_b"], {}), ("Sigmoid", ["$"], {}), ("Mul", ["$", "c1_x"], {})], [7, 1])
    chain("lg", {"lg_x": [1000], "lg_c": [1]},
          [("Mul", ["lg_x", "lg_c"], {}), ("Sigmoid", ["$"], {}), ("Mul", ["$", "lg_x"], {}),
           ("Exp", ["$"], {})], [1000])
    # Clip opset < 11 is an attribute: covered by the pass tests; all eight steps here
    chain("ln", {"ln_x": [2, 45]},
          [("Neg", ["ln_x"], {}), ("Relu", ["$"], {}), ("Add", ["$", "ln_x"], {}), ("Abs", ["$"], {}),
           ("Softsign", ["$"], {}), ("Sub", ["$", "ln_x"], {}), ("HardSigmoid", ["$"], {}),
           ("Sqrt", ["$"], {})], [2, 45])
    # an empty output: nothing to compute
    chain("em", {"em_x": [3, 0], "em_b": [1, 0]}, [("Add", ["em_x", "em_b"], {}), ("Relu", ["$"], {})],
          [3, 0])
    return out


def chains_model(path):
    nodes, inputs, inits, outputs = [], [], [], []
    for n, ins, it, y, shape in chains():
        nodes += n
        inputs += [vi(k, F, v) for k, v in ins.items()]
        inits += it
        outputs.append(vi(y, F, shape))
    save(model(nodes, inputs, outputs, inits, opset=14), path)
    return len(outputs)


def write_inputs(work, path):
    import onnx
    m = onnx.load(path)
    r = np.random.default_rng(11)
    files = []
    for i, v in enumerate(m.graph.input):
        shape = [d.dim_value for d in v.type.tensor_type.shape.dim]
        x = (r.standard_normal(shape) * 2).astype(np.float32)
        if x.size > 4:   # exact zeros, integers and halves too
            x.reshape(-1)[:3] = [0.0, 1.0, -2.5]
        f = os.path.join(work, "in%d.npy" % i)
        np.save(f, x)
        files.append(f)
    return files


# chains combine up to two approximated steps (2-3 ulp each, asserted alone by
# tests/unit/x86/x86_math_test.py) with exact ones; 2 ulp measured
ULPS = 8

CFLAGS = "-O2 -std=c99 -Wall -Wextra -Werror -I. -DINGOT_PAR_GRAIN=1"
TARGET_FLAGS = {"c": "", "x86-avx2": " -mavx2 -mfma",
                "x86-avx512": " -mavx512f -mavx512bw -mavx512dq -mavx512vl -mfma",
                "neon": " -march=armv8-a", "neon32": " -march=armv7-a -mfpu=neon-vfpv4 -mfloat-abi=hard"}
# the NEON targets: cross compiler and emulator (targets/targets.h)
CROSS = {"neon": ("aarch64-linux-gnu-gcc", ["qemu-aarch64", "-L", "/usr/aarch64-linux-gnu"]),
         "neon32": ("arm-linux-gnueabihf-gcc", ["qemu-arm", "-L", "/usr/arm-linux-gnueabihf"])}


def build_run(ingot, work, path, inputs, tag, target, opt, extra="", arch=None):
    """Compiles, builds the runner (for arch, a NEON target, with its cross compiler,
    run under its emulator) and runs it on 1, 2 and 3 threads; returns the outputs,
    checked identical across thread counts, and NAME.c."""
    d = os.path.join(work, tag)
    ingot_compile(ingot, path, d, "m", "--target", target, opt, "--emit", "exe")
    cc, emu = (tool(CROSS[arch][0]), [tool(CROSS[arch][1][0])] + CROSS[arch][1][1:]) if arch else (None, [])
    run_ok(["make", "-s", "-B", "CFLAGS=" + CFLAGS + TARGET_FLAGS[arch or target] + extra] +
           (["CC=" + cc] if cc else []), cwd=d)
    res = None
    for t in (1, 2, 3):
        od = os.path.join(d, "out%d" % t)
        os.makedirs(od)
        argv = emu + [os.path.join(d, "m")] + sum((["--input", f] for f in inputs), []) + ["--output-dir", od]
        run_ok(argv + (["--threads", str(t)] if t > 1 else []))
        outs = [np.load(f) for f in sorted(glob.glob(os.path.join(od, "output_*.npy")),
                                           key=lambda f: int(f.split("_")[-1].split(".")[0]))]
        if res is None:
            res = outs
        for k, (a, b) in enumerate(zip(res, outs)):
            check(a.tobytes() == b.tobytes(), "%s: output %d on %d threads differs from 1 thread" % (tag, k, t))
    return res, open(os.path.join(d, "m.c")).read()


def fused_count(src):
    return src.count("FusedElementwise of ONNX nodes")


def c_target(ingot, work):
    path = os.path.join(work, "chains.onnx")
    n = chains_model(path)
    inputs = write_inputs(work, path)
    ref, src0 = build_run(ingot, work, path, inputs, "c-O0", "c", "-O0")
    check(fused_count(src0) == 0, "-O0 fused something")
    check(len(ref) == n, "expected %d outputs, got %d" % (n, len(ref)))
    for tag, extra in (("c-O2", ""), ("c-O2-asan", " -fsanitize=address,undefined -fno-sanitize-recover=all")):
        got, src = build_run(ingot, work, path, inputs, tag, "c", "-O2", extra)
        check(fused_count(src) == n, "%s: %d chains fused, expected %d" % (tag, fused_count(src), n))
        check("ingot_fused_elementwise" not in src, "%s: NAME.c calls the interpreter" % tag)
        for k, (a, b) in enumerate(zip(ref, got)):
            if a.tobytes() != b.tobytes():
                bad = np.argwhere(a.view(np.uint32) != b.view(np.uint32))[0]
                check(False, "%s: output %d differs from -O0 at %s: %r vs %r" %
                      (tag, k, tuple(bad), b[tuple(bad)], a[tuple(bad)]))
    print("c: %d chains, -O2 == -O0 bit for bit on 1, 2, 3 threads" % n)


def simd_target(ingot, work, target):
    arch = target if target in CROSS else None
    if not arch:
        if runnable([target])[1]:
            raise SystemExit(SKIPPED)
    path = os.path.join(work, "chains.onnx")
    n = chains_model(path)
    inputs = write_inputs(work, path)
    # the oracle: the C target on the same machine (its libm)
    ref, _ = build_run(ingot, work, path, inputs, "c", "c", "-O2", arch=arch)
    got, src = build_run(ingot, work, path, inputs, target, target, "-O2", arch=arch)
    check(fused_count(src) == n, "%s: %d chains fused, expected %d" % (target, fused_count(src), n))
    nonempty = sum(1 for c in chains() if 0 not in c[4])
    check(src.count("uk_store(rowy + j") == nonempty, "%s: not every chain has a vector loop" % target)
    # exp, sigmoid, tanh and erf are vector approximations (kernels/simd/vmath.h: 2-3 ulp
    # each); every other step has an exact vector form or runs lane by lane
    # (neon32: vector division is a refined reciprocal and vector denormals flush)
    approx_ops = ("Exp", "Sigmoid", "Tanh", "Erf") + (("Div", "Reciprocal", "Softsign")
                                                      if target == "neon32" else ())
    approx = [any(n.op_type in approx_ops for n in c[0]) for c in chains()]
    for k, (want, y) in enumerate(zip(ref, got)):
        if not approx[k]:
            check(want.tobytes() == y.tobytes(), "%s: output %d (no approximated step) differs from "
                  "the C target" % (target, k))
            continue
        w, g = want.astype(np.float64), y.astype(np.float64)
        nan = np.isnan(w)
        check(np.array_equal(nan, np.isnan(g)), "%s: output %d: NaN where the C target has none" % (target, k))
        ulp = np.spacing(np.abs(want)).astype(np.float64)
        with np.errstate(invalid="ignore"):   # inf - inf
            bad = ~nan & (g != w) & ~(np.abs(g - w) <= np.maximum(ULPS * ulp, 2.0 ** -126))
        if bad.any():
            i = tuple(np.argwhere(bad)[0])
            check(False, "%s: output %d differs from the C target by more than %d ulp at %s: %r vs %r" %
                  (target, k, ULPS, i, y[i], want[i]))
    print("%s: %d chains within tolerance of the C target" % (target, n))


def run(ingot, work, case):
    if case == "golden":
        golden(ingot, work)
    elif case == "c":
        c_target(ingot, work)
    else:
        simd_target(ingot, work, case)


if __name__ == "__main__":
    main(run)
