#!/usr/bin/python3
"""Suite llvm: two models built by --backend llvm linked into one C program, and the
LLVM backend's object files are deterministic with their weights read-only.

    link_two.py INGOT DATA_DIR WORK

- Two ONNX node tests (a convolution and a Gemm) are compiled with --backend llvm
  --emit lib under the names conv and gemm; one program links libconv.a and
  libgemm.a (their kernels are internal to each object, so nothing clashes), runs
  both through NAME_run_v on the tests' inputs and its outputs must match the tests'
  expected outputs within ingot check's default tolerance (rtol 1e-3, atol 1e-7).
- A model with an initializer (MatMul by a seeded random weight, then Relu) compiled
  twice into two folders gives the same .o bytes; its NAME_weights is read-only data
  (nm type R), or in the section --weights-section names; its output matches numpy;
  neither object has writable static data (.data/.bss bytes).
- A random op without a seed and a --triple of another architecture than the target's kernel
  bitcode (aarch64 for the host, x86_64 for neon) are refused with one error line
  naming the node or option (the last two before anything is written).
"""
import glob
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

ingot, data, work = sys.argv[1:]
os.makedirs(work, exist_ok=True)
subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "..", "conformance", "generate.py"),
                data], check=True, stdout=subprocess.DEVNULL)
failures = []


def compile_llvm(model, name, out, *extra):
    subprocess.run([ingot, "compile", model, "--backend", "llvm", "--target", "host", "--name", name,
                    "-o", out, "--emit", "lib", "-q", *extra], check=True)


def read_pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


MAIN = r"""
#include <stdio.h>
#include <stdlib.h>
#include "%(a)s.h"
#include "%(b)s.h"

/* runs model M on the raw inputs DIR/M_in<i>.bin, writes DIR/M_out<i>.bin */
#define RUN(M, UP) do { \
	const void *in[UP##_NUM_INPUTS > 0 ? UP##_NUM_INPUTS : 1]; \
	void *out[UP##_NUM_OUTPUTS]; \
	char path[4096]; \
	void *ws = aligned_alloc(64, (UP##_WORKSPACE_SIZE + 63) / 64 * 64 + 64); \
	for (int i = 0; i < UP##_NUM_INPUTS; i++) { \
		void *p = malloc(M##_inputs[i].bytes + 1); \
		snprintf(path, sizeof path, "%%s/" #M "_in%%d.bin", argv[1], i); \
		FILE *f = fopen(path, "rb"); \
		if (!f || fread(p, 1, M##_inputs[i].bytes, f) != M##_inputs[i].bytes) return 2; \
		fclose(f); \
		in[i] = p; \
	} \
	for (int i = 0; i < UP##_NUM_OUTPUTS; i++) out[i] = malloc(M##_outputs[i].bytes + 1); \
	if (M##_run_v(in, out, ws) != 0) return 3; \
	for (int i = 0; i < UP##_NUM_OUTPUTS; i++) { \
		snprintf(path, sizeof path, "%%s/" #M "_out%%d.bin", argv[1], i); \
		FILE *f = fopen(path, "wb"); \
		fwrite(out[i], 1, M##_outputs[i].bytes, f); \
		fclose(f); \
	} \
} while (0)

int main(int argc, char **argv)
{
	(void)argc;
	RUN(%(a)s, %(A)s);
	RUN(%(b)s, %(B)s);
	return 0;
}
"""

# -- two models in one program
tests = {"conv": "test_conv_with_strides_padding", "gemm": "test_gemm_all_attributes"}
expected = {}
for name, test in tests.items():
    d = os.path.join(data, "node", test)
    compile_llvm(os.path.join(d, "model.onnx"), name, os.path.join(work, name))
    m = onnx.load(os.path.join(d, "model.onnx"))
    inits = {t.name for t in m.graph.initializer}
    n_in = len([i for i in m.graph.input if i.name not in inits])
    for i in range(n_in):
        read_pb(os.path.join(d, "test_data_set_0", "input_%d.pb" % i)).tofile(
            os.path.join(work, "%s_in%d.bin" % (name, i)))
    expected[name] = [read_pb(p) for p in sorted(glob.glob(os.path.join(d, "test_data_set_0", "output_*.pb")))]
with open(os.path.join(work, "main.c"), "w") as f:
    f.write(MAIN % {"a": "conv", "A": "CONV", "b": "gemm", "B": "GEMM"})
subprocess.run(["cc", "-O2", "-std=c11", "-Wall", "-Wextra", "-Werror", "-I" + os.path.join(work, "conv"),
                "-I" + os.path.join(work, "gemm"), "-o", os.path.join(work, "two"), os.path.join(work, "main.c"),
                os.path.join(work, "conv", "libconv.a"), os.path.join(work, "gemm", "libgemm.a"), "-lm",
                "-pthread"], check=True)
subprocess.run([os.path.join(work, "two"), work], check=True)
for name, outs in expected.items():
    for i, want in enumerate(outs):
        got = np.fromfile(os.path.join(work, "%s_out%d.bin" % (name, i)), dtype=want.dtype).reshape(want.shape)
        if not np.allclose(got, want, rtol=1e-3, atol=1e-7):
            failures.append("%s output %d: max abs diff %g" % (name, i, float(np.max(np.abs(got - want)))))
print("two models in one program: %s" % ("ok" if not failures else "FAILED"))

# -- determinism and read-only weights
rng = np.random.default_rng(20)
w = rng.standard_normal((64, 32)).astype(np.float32)
g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y0"], name="mm"),
                       helper.make_node("Relu", ["y0"], ["y"], name="relu")], "dense",
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 64])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 32])],
                      [numpy_helper.from_array(w, "w")])
model = os.path.join(work, "dense.onnx")
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), model)
objs = []
for k in range(2):
    out = os.path.join(work, "dense%d" % k)
    compile_llvm(model, "dense", out)
    with open(os.path.join(out, "dense.o"), "rb") as f:
        objs.append(f.read())
if objs[0] != objs[1]:
    failures.append("the same model gave different dense.o bytes")
nm = subprocess.run(["nm", os.path.join(work, "dense0", "dense.o")], check=True, capture_output=True,
                    text=True).stdout
kind = [line.split()[1] for line in nm.splitlines() if line.endswith(" dense_weights")]
if kind != ["R"]:
    failures.append("dense_weights is not read-only data: nm says %s" % kind)
# no writable static state (the guards_* rule of the C path): no .data or .bss bytes in
# either model's object (const tables with pointers sit in .data.rel.ro)
for obj in [os.path.join(work, "dense0", "dense.o"), os.path.join(work, "conv", "conv.o")]:
    heads = subprocess.run(["objdump", "-h", obj], check=True, capture_output=True, text=True).stdout
    for line in heads.splitlines():
        f = line.split()
        if len(f) > 2 and f[0].isdigit() and (f[1] in (".data", ".bss") or f[1].startswith((".data.", ".bss."))) \
                and not f[1].startswith(".data.rel.ro") and int(f[2], 16) > 0:
            failures.append("%s has writable section %s (%d bytes)" % (os.path.basename(obj), f[1], int(f[2], 16)))
compile_llvm(model, "dense", os.path.join(work, "dense_sec"), "--weights-section", ".rodata.dense")
sec = subprocess.run(["objdump", "-t", os.path.join(work, "dense_sec", "dense.o")], check=True,
                     capture_output=True, text=True).stdout
if not any(line.endswith(" dense_weights") and ".rodata.dense" in line for line in sec.splitlines()):
    failures.append("--weights-section .rodata.dense: dense_weights is not in that section")
# its output: x @ w, relu, through a program of its own
x = rng.standard_normal((4, 64)).astype(np.float32)
x.tofile(os.path.join(work, "dense_in0.bin"))
with open(os.path.join(work, "one.c"), "w") as f:
    f.write(MAIN.replace('#include "%(b)s.h"\n', "").replace("\tRUN(%(b)s, %(B)s);\n", "")
            % {"a": "dense", "A": "DENSE"})
subprocess.run(["cc", "-O2", "-std=c11", "-I" + os.path.join(work, "dense0"), "-o", os.path.join(work, "one"),
                os.path.join(work, "one.c"), os.path.join(work, "dense0", "libdense.a"), "-lm", "-pthread"],
               check=True)
subprocess.run([os.path.join(work, "one"), work], check=True)
got = np.fromfile(os.path.join(work, "dense_out0.bin"), dtype=np.float32).reshape(4, 32)
want = np.maximum(x.astype(np.float64) @ w.astype(np.float64), 0)
if not np.allclose(got, want, rtol=1e-3, atol=1e-6):
    failures.append("dense: max abs diff %g from numpy" % float(np.max(np.abs(got - want))))
print("deterministic .o, read-only weights: %s" % ("ok" if not failures else "FAILED"))
# -- what the backend does not do yet: one error line naming the node or option, no output
rnd = os.path.join(work, "rnd.onnx")   # a random op without a seed: its state is not built yet
onnx.save(helper.make_model(helper.make_graph(
    [helper.make_node("RandomUniform", [], ["r"], name="rnd", shape=[4], dtype=TensorProto.FLOAT)], "rnd", [],
    [helper.make_tensor_value_info("r", TensorProto.FLOAT, [4])]), opset_imports=[helper.make_opsetid("", 17)]), rnd)
for model_, extra, want in [(rnd, [], "node 'rnd' (RandomUniform)"),
                            (model, ["--triple", "aarch64-linux-gnu"], "--triple aarch64-linux-gnu"),
                            (model, ["--target", "neon", "--triple", "x86_64-pc-linux-gnu"],
                             "--triple x86_64-pc-linux-gnu")]:
    out = os.path.join(work, "refused")
    subprocess.run(["rm", "-rf", out], check=True)
    r = subprocess.run([ingot, "compile", model_, "--backend", "llvm", "-o", out, *extra], capture_output=True,
                       text=True)
    lines = r.stderr.strip().splitlines()
    if r.returncode == 0 or len(lines) != 1 or want not in lines[0] or os.path.exists(out) and extra:
        failures.append("%s %s: want one error line naming %s, got rc %d: %s" % (
            os.path.basename(model_), " ".join(extra), want, r.returncode, r.stderr.strip()))
print("refusals: %s" % ("ok" if not failures else "FAILED"))
for f_ in failures:
    print("FAIL " + f_)
sys.exit(1 if failures else 0)
