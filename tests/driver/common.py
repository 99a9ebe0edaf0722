"""Shared helpers of the driver/codegen tests (suite driver): model builders, numpy
references, running ingot and C compilers, and assertions. Every test script is
`test_X.py INGOT WORKDIR [CASE]`; it wipes WORKDIR, generates its models there (no
binaries are committed) and exits non-zero with a FAIL line on any failed check, a
missing tool included: a prerequisite that cannot run is a failure, never a pass.
"""
import os
import re
import shutil
import subprocess
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

TIMEOUT = 240


class Fail(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Fail(msg)


def main(fn):
    """Runs fn(ingot, workdir, *rest) and maps the outcome to an exit code."""
    if len(sys.argv) < 3:
        print("usage: %s INGOT WORKDIR [CASE]" % sys.argv[0], file=sys.stderr)
        sys.exit(2)
    ingot, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if os.path.exists(work):
        shutil.rmtree(work)
    os.makedirs(work)
    try:
        check(os.access(ingot, os.X_OK), "ingot not found at %s" % ingot)
        fn(ingot, work, *sys.argv[3:])
    except Fail as e:
        print("FAIL: %s" % e)
        sys.exit(1)
    print("PASS")


# The sanitizer build (meson's test setup sets INGOT_TEST_SANITIZED=1): ingot itself runs
# under ASan+UBSan there. The generated code, built by the system cc, is the same bytes
# as in the plain build, which builds and runs every variant of it, so the heavy tests
# build it in one variant there (SANITIZED).
SANITIZED = os.environ.get("INGOT_TEST_SANITIZED") == "1"


# ---- tools ----

def tool(name):
    p = shutil.which(name)
    check(p is not None, "required tool '%s' is not installed" % name)
    return p


def run(argv, cwd=None, timeout=TIMEOUT, env=None):
    """Runs argv; returns (rc, stdout, stderr) as text. A crash is a failure."""
    try:
        r = subprocess.run(argv, cwd=cwd, capture_output=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        raise Fail("timed out after %ds: %s" % (timeout, " ".join(argv)))
    out = r.stdout.decode("utf-8", "replace")
    err = r.stderr.decode("utf-8", "replace")
    if r.returncode < 0 or r.returncode >= 128:
        raise Fail("crashed (exit %d): %s\n%s" % (r.returncode, " ".join(argv), err[-3000:]))
    for bad in ("AddressSanitizer", "LeakSanitizer", "runtime error:", "Assertion", "internal error"):
        if bad in err:
            raise Fail("sanitizer/assert report from %s:\n%s" % (" ".join(argv), err[-3000:]))
    return r.returncode, out, err


def run_ok(argv, cwd=None, timeout=TIMEOUT, env=None):
    rc, out, err = run(argv, cwd, timeout, env)
    check(rc == 0, "exit %d: %s\n%s%s" % (rc, " ".join(argv), out[-3000:], err[-3000:]))
    return out, err


def ingot_compile(ingot, model, out_dir, name, *extra):
    run_ok([ingot, "compile", model, "-o", out_dir, "--name", name] + list(extra))


def stderr_lines(err):
    return [l for l in err.splitlines() if l.strip()]


# ---- models ----

def vi(name, dt, shape):
    return helper.make_tensor_value_info(name, dt, shape)


def init(name, arr):
    return numpy_helper.from_array(np.asarray(arr), name)


def model(nodes, inputs, outputs, inits=(), opset=13):
    g = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="tests/driver")
    m.ir_version = 8
    return m


def save(m, path):
    with open(path, "wb") as f:
        f.write(m.SerializeToString())
    return path


def write_test_dir(work, name, m, inputs, outputs, to_tensor=None):
    """A test in the ONNX backend-test layout (model.onnx, test_data_set_0/input_*.pb and
    output_*.pb, named after the graph's inputs and outputs) for `ingot check`."""
    to_tensor = to_tensor or (lambda arr, nm: numpy_helper.from_array(arr, nm))
    d = os.path.join(work, name)
    ds = os.path.join(d, "test_data_set_0")
    os.makedirs(ds)
    save(m, os.path.join(d, "model.onnx"))
    for kind, arrs, vis in (("input", inputs, m.graph.input), ("output", outputs, m.graph.output)):
        for i, arr in enumerate(arrs):
            with open(os.path.join(ds, "%s_%d.pb" % (kind, i)), "wb") as f:
                f.write(to_tensor(arr, vis[i].name).SerializeToString())
    return d


def one_error(ingot, work, name, m, *words):
    """Compiling model m (saved as WORK/NAME.onnx) fails with one error line holding
    every one of words."""
    path = save(m, "%s/%s.onnx" % (work, name))
    rc, out, err = run([ingot, "compile", path, "-o", "%s/%s_out" % (work, name)])
    lines = stderr_lines(err)
    check(rc != 0 and len(lines) == 1 and all(w in lines[0] for w in words),
          "%s: expected one error line with %s, got rc %d:\n%s" % (name, words, rc, err))


def check_all_pass(ingot, dirs, *extra):
    """`ingot check DIRS... EXTRA` passes every directory and exits 0."""
    rc, out, err = run([ingot, "check"] + list(dirs) + list(extra))
    lines = stderr_lines(out)
    for d in dirs:
        check(("PASS %s" % d) in lines, "%s did not pass %s:\n%s%s" %
              (os.path.basename(d), " ".join(extra), out, err))
    check(rc == 0, "ingot check exited %d:\n%s%s" % (rc, out, err))


def cpu_runs(target):
    """Whether this CPU has the instructions of `target` (c, x86-avx2, x86-avx512)."""
    need = {"c": [], "x86-avx2": ["avx2", "fma"],
            "x86-avx512": ["avx512f", "avx512bw", "avx512dq", "avx512vl", "fma"]}[target]
    flags = open("/proc/cpuinfo").read().split()
    return all(f in flags for f in need)


def rng(seed=0):
    return np.random.default_rng(seed)


def randf(r, *shape, scale=1.0):
    return (r.standard_normal(shape) * scale).astype(np.float32)


# ---- numpy references ----

def relu(x):
    return np.maximum(x, 0).astype(x.dtype)


def sigmoid(x):
    return (1.0 / (1.0 + np.exp(-x.astype(np.float64)))).astype(np.float32)


def softmax(x, axis=-1, dtype=np.float32):
    """computed in float64, returned as dtype"""
    e = np.exp(x.astype(np.float64) - x.max(axis=axis, keepdims=True))
    return (e / e.sum(axis=axis, keepdims=True)).astype(dtype)


def pad2d(x, pads, value=0.0):
    """pads = [top, left, bottom, right] (ONNX order for 2-D)."""
    t, l, b, r = pads
    return np.pad(x, ((0, 0), (0, 0), (t, b), (l, r)), constant_values=value)


def conv2d(x, w, b=None, strides=(1, 1), pads=(0, 0, 0, 0)):
    x = pad2d(x.astype(np.float64), pads)
    n, c, h, wd = x.shape
    m, cw, kh, kw = w.shape
    check(cw == c, "conv2d reference: groups are not supported")
    oh = (h - kh) // strides[0] + 1
    ow = (wd - kw) // strides[1] + 1
    y = np.zeros((n, m, oh, ow))
    for i in range(kh):
        for j in range(kw):
            patch = x[:, :, i:i + strides[0] * oh:strides[0], j:j + strides[1] * ow:strides[1]]
            y += np.einsum("nchw,mc->nmhw", patch, w[:, :, i, j].astype(np.float64))
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y.astype(np.float32)


def pool2d(x, k, strides, pads=(0, 0, 0, 0), mode="max"):
    """MaxPool / AveragePool (count_include_pad=0)."""
    fill = -np.inf if mode == "max" else 0.0
    xp = pad2d(x.astype(np.float64), pads, fill)
    ones = pad2d(np.ones_like(x, dtype=np.float64), pads, 0.0)
    n, c, h, w = xp.shape
    oh = (h - k[0]) // strides[0] + 1
    ow = (w - k[1]) // strides[1] + 1
    acc = np.full((n, c, oh, ow), fill)
    cnt = np.zeros((n, c, oh, ow))
    for i in range(k[0]):
        for j in range(k[1]):
            sl = (slice(None), slice(None), slice(i, i + strides[0] * oh, strides[0]),
                  slice(j, j + strides[1] * ow, strides[1]))
            if mode == "max":
                acc = np.maximum(acc, xp[sl])
            else:
                acc += xp[sl]
                cnt += ones[sl]
    return (acc if mode == "max" else acc / cnt).astype(np.float32)


def assert_close(got, want, what, rtol=1e-4, atol=1e-5):
    got, want = np.asarray(got), np.asarray(want)
    check(got.shape == want.shape, "%s: shape %s, expected %s" % (what, got.shape, want.shape))
    check(got.dtype == want.dtype, "%s: dtype %s, expected %s" % (what, got.dtype, want.dtype))
    if np.issubdtype(want.dtype, np.floating):
        bad = ~(np.abs(got.astype(np.float64) - want) <= atol + rtol * np.abs(want))
        if bad.any():
            i = np.argwhere(bad)[0]
            raise Fail("%s: %d of %d elements differ, first at %s: got %r, expected %r" %
                       (what, int(bad.sum()), want.size, tuple(i), got[tuple(i)], want[tuple(i)]))
    else:
        check(np.array_equal(got, want), "%s: got %r, expected %r" % (what, got, want))


# ---- generated code ----

def read_pb(path):
    """The array in a TensorProto .pb file (what a runner writes)."""
    t = TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def header_macro(out_dir, name, macro):
    """The integer value of NAME_<MACRO> in the generated header."""
    text = open(os.path.join(out_dir, name + ".h")).read()
    m = re.search(r"#define %s_%s (\d+)" % (name.upper(), macro), text)
    check(m is not None, "%s.h has no %s_%s" % (name, name.upper(), macro))
    return int(m.group(1))


def c_array(name, arr, ctype):
    """A C array definition of arr's values, for expected data in test programs."""
    flat = np.asarray(arr).reshape(-1)
    if ctype == "float":
        vals = ", ".join("%.9gf" % v for v in flat.astype(np.float64))
    else:
        vals = ", ".join("%d" % v for v in flat)
    return "static const %s %s[%d] = { %s };\n" % (ctype, name, max(flat.size, 1), vals or "0")


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path
