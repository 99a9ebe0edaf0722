#!/usr/bin/python3
"""Writes cases.h: numpy reference cases for the arith/einsum unit test.

usage: /usr/bin/python3 tests/unit/arith/gen_cases.py > tests/unit/arith/cases.h
Each case is one node (op, opset, attributes, inputs, expected outputs); tensors are
raw little-endian bytes. float16/bfloat16 references are computed in float32 from the
rounded inputs, then rounded, as ingot's kernels do.
"""
import math
import warnings

import numpy as np

DT = {np.float32: 1, np.uint8: 2, np.int8: 3, np.uint16: 4, np.int16: 5, np.int32: 6,
      np.int64: 7, np.bool_: 9, np.float16: 10, np.float64: 11, np.uint32: 12, np.uint64: 13}
BF16 = 16
rng = np.random.default_rng(11)
warnings.simplefilter("ignore", RuntimeWarning)
cases = []


def bf16_round(a):
    u = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    nan = np.isnan(np.asarray(a, np.float32))
    u = (u + 0x7fff + ((u >> 16) & 1)) >> 16
    u = np.where(nan, 0x7fc0, u)
    return u.astype(np.uint16)


def bf16_to_f32(bits):
    return (np.asarray(bits).astype(np.uint32) << 16).view(np.float32)


class T:
    """A tensor of a case: dtype code, shape, raw bytes, and whether it is constant."""
    def __init__(self, arr, dt=None, const=False):
        arr = np.asarray(arr)
        self.dt = dt if dt is not None else DT[arr.dtype.type]
        self.shape = arr.shape
        self.raw = arr.tobytes()
        self.const = const


def fl(a, dt):
    """(tensor, the float32/64 values it holds) for a float dtype code."""
    a = np.asarray(a)
    if dt == BF16:
        b = bf16_round(a)
        return T(b, BF16), bf16_to_f32(b)
    if dt == 10:
        h = a.astype(np.float16)
        return T(h), h.astype(np.float32)
    v = a.astype(np.float64 if dt == 11 else np.float32)
    return T(v), v


def tol_for(dt):
    return {1: (1e-5, 1e-6), 11: (1e-12, 1e-12), 10: (2e-3, 1e-3), BF16: (1e-2, 1e-2)}.get(dt, (0, 0))


def add(name, op, opset, attrs, ins, outs, tol=(0, 0)):
    cases.append((name, op, opset, attrs, ins, outs, tol))


# ---- unary math ----
GELU = np.vectorize(lambda v: 0.5 * v * (1 + math.erf(v / math.sqrt(2))))
UNARY = {
    "SIN": (np.sin, 3), "COS": (np.cos, 3), "TAN": (np.tan, 1.2), "ASIN": (np.arcsin, 0.99),
    "ACOS": (np.arccos, 0.99), "ATAN": (np.arctan, 5), "SINH": (np.sinh, 3),
    "COSH": (np.cosh, 3), "ASINH": (np.arcsinh, 5), "ATANH": (np.arctanh, 0.99),
    "MISH": (lambda x: x * np.tanh(np.log1p(np.exp(x))), 6), "GELU": (GELU, 4),
}
for op, (fn, scale) in UNARY.items():
    x = rng.uniform(-scale, scale, (3, 7))
    for dt in ((1, 11, 10, BF16) if op in ("SIN", "GELU", "ATANH") else (1,)):
        tx, xv = fl(x, dt)
        ref = fn(xv.astype(np.float64))
        add("%s_%d" % (op.lower(), dt), "OP_" + op, 22 if op != "GELU" else 20, [], [tx],
            [fl(ref, dt)[0]], tol_for(dt))
x = rng.uniform(1, 6, (11,))
add("acosh", "OP_ACOSH", 9, [], [fl(x, 1)[0]], [fl(np.arccosh(fl(x, 1)[1]), 1)[0]], tol_for(1))
x = rng.uniform(-6, 6, (2, 9)).astype(np.float32)
xd = x.astype(np.float64)
g = 0.5 * xd * (1 + np.tanh(np.sqrt(2 / np.pi) * (xd + 0.044715 * xd ** 3)))
add("gelu_tanh", "OP_GELU", 20, [("approximate", "s", "tanh")], [T(x)], [T(g.astype(np.float32))],
    tol_for(1))

sx = np.array([-3.5, -0.0, 0.0, 2.0, np.nan, -np.inf, 1e-30, 7.0])
for dt in (1, 11, 10):
    tx, xv = fl(sx, dt)
    add("sign_%d" % dt, "OP_SIGN", 13, [], [tx], [fl(np.sign(xv), dt)[0]], tol_for(dt))
for t in (np.int8, np.int32, np.int64, np.uint8, np.uint64):
    info = np.iinfo(t)
    xi = np.array([info.min, -1 if info.min < 0 else 0, 0, 1, 5, info.max], t)
    add("sign_%s" % t.__name__, "OP_SIGN", 13, [], [T(xi)], [T(np.sign(xi).astype(t))])

rx = np.array([-2.5, -1.5, -0.5, -0.4, 0.5, 1.5, 2.5, 3.5, 0.49999997, 2.6, -2.6, 1e20,
               np.nan, np.inf, 4503599627370497.0])
for dt in (1, 11, 10):
    tx, xv = fl(rx, dt)
    add("round_%d" % dt, "OP_ROUND", 11, [], [tx], [fl(np.round(xv), dt)[0]], tol_for(dt))

nx = np.array([1.0, np.nan, np.inf, -np.inf, -0.0, 3e38])
for dt in (1, 11, 10, BF16):
    tx, xv = fl(nx, dt)
    add("isnan_%d" % dt, "OP_IS_NAN", 13, [], [tx], [T(np.isnan(xv))])
    add("isinf_%d" % dt, "OP_IS_INF", 10, [], [tx], [T(np.isinf(xv))])
tx = T(nx.astype(np.float32))
add("isinf_pos", "OP_IS_INF", 10, [("detect_negative", "i", 0)], [tx],
    [T(np.isposinf(nx))])
add("isinf_neg", "OP_IS_INF", 10, [("detect_positive", "i", 0)], [tx],
    [T(np.isneginf(nx))])

x = rng.uniform(-4, 4, (3, 5)).astype(np.float32)
a = 2.0
celu = np.maximum(0, x) + np.minimum(0, a * (np.exp(x / a) - 1))
add("celu", "OP_CELU", 12, [("alpha", "f", a)], [T(x)], [T(celu.astype(np.float32))], tol_for(1))
add("celu_default", "OP_CELU", 12, [], [T(x)],
    [T((np.maximum(0, x) + np.minimum(0, np.exp(x) - 1)).astype(np.float32))], tol_for(1))
add("thresholded_relu", "OP_THRESHOLDED_RELU", 10, [("alpha", "f", 0.5)], [T(x)],
    [T(np.where(x > 0.5, x, 0).astype(np.float32))])
add("thresholded_relu_default", "OP_THRESHOLDED_RELU", 22, [], [T(x)],
    [T(np.where(x > 1.0, x, 0).astype(np.float32))])
add("shrink", "OP_SHRINK", 9, [("bias", "f", 1.5), ("lambd", "f", 1.0)], [T(x)],
    [T(np.where(x < -1, x + 1.5, np.where(x > 1, x - 1.5, 0)).astype(np.float32))])
add("shrink_default", "OP_SHRINK", 9, [], [T(x)],
    [T(np.where(x < -0.5, x, np.where(x > 0.5, x, 0)).astype(np.float32))])
xi = np.arange(-6, 7, dtype=np.int32)
add("shrink_i32", "OP_SHRINK", 9, [("bias", "f", 1.5), ("lambd", "f", 2.0)], [T(xi)],
    [T(np.where(xi < -2, xi + 1.5, np.where(xi > 2, xi - 1.5, 0)).astype(np.int32))])

# ---- Mod, BitShift ----
def np_mod(a, b, fmod):
    with np.errstate(all="ignore"):
        return np.fmod(a, b) if fmod else np.mod(a, b)


for t in (np.int8, np.int16, np.int32, np.int64):
    info = np.iinfo(t)
    a = np.array([-4, 7, -3, 3, 5, info.min, info.min, 9, -9, 0, 6], t)
    b = np.array([3, -3, 2, -2, 5, -1, 7, 0, 0, 4, -4], t)
    for fm in (0, 1):
        r = np_mod(a, b, fm)
        r = np.where(b == 0, 0, r).astype(t)
        add("mod_%s_%d" % (t.__name__, fm), "OP_MOD", 13, [("fmod", "i", fm)], [T(a), T(b)], [T(r)])
for t in (np.uint8, np.uint16, np.uint32, np.uint64):
    a = np.array([0, 7, 200, 255, 13, 9], t)
    b = np.array([3, 3, 7, 0, 13, 10], t)
    r = np.where(b == 0, 0, np_mod(a, np.where(b == 0, 1, b), 0)).astype(t)
    add("mod_%s" % t.__name__, "OP_MOD", 10, [], [T(a), T(b)], [T(r)])
fa = np.array([-4.5, 7.25, -3.0, 3.0, 5.5, 1.0, -0.0, 2.0])
fb = np.array([3.0, -3.0, 2.0, -2.0, 5.5, 0.0, 3.0, -0.5])
for dt in (1, 11, 10):
    ta, av = fl(fa, dt)
    tb, bv = fl(fb, dt)
    for fm in (0, 1):
        add("mod_f%d_%d" % (dt, fm), "OP_MOD", 13, [("fmod", "i", fm)], [ta, tb],
            [fl(np_mod(av, bv, fm), dt)[0]], tol_for(dt))
a = rng.integers(-50, 50, (3, 1, 5)).astype(np.int32)
b = rng.integers(1, 9, (4, 1)).astype(np.int32) * np.array([[1], [-1], [1], [-1]], np.int32)
add("mod_broadcast", "OP_MOD", 13, [], [T(a), T(b)], [T(np.mod(a, b).astype(np.int32))])

for t in (np.uint8, np.uint16, np.uint32, np.uint64):
    bits = np.dtype(t).itemsize * 8
    a = np.array([1, 3, 255, 200, 16, 7, 1], t)
    s = np.array([0, 1, 3, bits - 1, bits, bits + 3, 70], t)
    left = np.array([(int(x) << int(k)) % (1 << bits) if k < bits else 0 for x, k in zip(a, s)],
                    dtype=np.uint64).astype(t)
    right = np.array([int(x) >> int(k) if k < bits else 0 for x, k in zip(a, s)], t)
    add("shl_%s" % t.__name__, "OP_BIT_SHIFT", 11, [("direction", "s", "LEFT")], [T(a), T(s)], [T(left)])
    add("shr_%s" % t.__name__, "OP_BIT_SHIFT", 11, [("direction", "s", "RIGHT")], [T(a), T(s)], [T(right)])
a = np.array([[16, 32, 64]], np.uint32)
s = np.array([[1], [2]], np.uint32)
add("shr_broadcast", "OP_BIT_SHIFT", 11, [("direction", "s", "RIGHT")], [T(a), T(s)], [T(a >> s)])

# ---- PRelu ----
x = rng.standard_normal((2, 3, 4)).astype(np.float32)
for sshape in ((4,), (3, 1), (1,), (2, 3, 4)):
    s = rng.standard_normal(sshape).astype(np.float32)
    add("prelu_%s" % "x".join(map(str, sshape)), "OP_PRELU", 16, [], [T(x), T(s)],
        [T(np.where(x < 0, x * s, x).astype(np.float32))])
x4 = rng.standard_normal((2, 3, 2, 2)).astype(np.float32)
s = np.array([0.1, 0.2, 0.3], np.float32)
add("prelu_opset6_channel", "OP_PRELU", 6, [], [T(x4), T(s)],
    [T(np.where(x4 < 0, x4 * s.reshape(3, 1, 1), x4).astype(np.float32))])
xi = np.array([[-5, 3, -2, 0]], np.int32)
si = np.array([3, 3, -4, 2], np.int32)
add("prelu_i32", "OP_PRELU", 9, [], [T(xi), T(si)], [T(np.where(xi < 0, xi * si, xi).astype(np.int32))])
for dt in (11, 10):
    tx, xv = fl(x, dt)
    ts, sv = fl(np.array([0.25, -0.5, 2.0, 0.0]), dt)
    add("prelu_%d" % dt, "OP_PRELU", 16, [], [tx, ts], [fl(np.where(xv < 0, xv * sv, xv), dt)[0]],
        tol_for(dt))

# ---- Hardmax ----
def hardmax(x, axis):
    am = np.argmax(x, axis=axis)
    y = np.zeros_like(x)
    np.put_along_axis(y, np.expand_dims(am, axis), 1, axis)
    return y


x = rng.integers(0, 4, (2, 3, 4)).astype(np.float32)   # ties: the first wins
for ax in (0, 1, 2, -1):
    add("hardmax13_ax%d" % ax, "OP_HARDMAX", 13, [("axis", "i", ax)], [T(x)], [T(hardmax(x, ax))])
add("hardmax13_default", "OP_HARDMAX", 13, [], [T(x)], [T(hardmax(x, -1))])
add("hardmax11_default", "OP_HARDMAX", 11, [], [T(x)],
    [T(hardmax(x.reshape(2, 12), 1).reshape(2, 3, 4))])
add("hardmax1_ax2", "OP_HARDMAX", 1, [("axis", "i", 2)], [T(x)],
    [T(hardmax(x.reshape(6, 4), 1).reshape(2, 3, 4))])
add("hardmax11_ax0", "OP_HARDMAX", 11, [("axis", "i", 0)], [T(x)],
    [T(hardmax(x.reshape(1, 24), 1).reshape(2, 3, 4))])
tx, xv = fl(rng.standard_normal((3, 5)), 10)
add("hardmax_f16", "OP_HARDMAX", 13, [], [tx], [fl(hardmax(xv, -1), 10)[0]])

# ---- CumSum ----
def cumsum(x, axis, excl, rev):
    y = np.flip(x, axis) if rev else x
    c = np.cumsum(y, axis=axis, dtype=x.dtype)
    if excl:
        c = c - y
    return np.flip(c, axis) if rev else c


x = rng.integers(-9, 10, (2, 3, 4))
for ax in (0, 1, -1):
    for excl in (0, 1):
        for rev in (0, 1):
            attrs = [("exclusive", "i", excl), ("reverse", "i", rev)]
            xf = x.astype(np.float32)
            add("cumsum_f32_ax%d_e%d_r%d" % (ax, excl, rev), "OP_CUM_SUM", 14, attrs,
                [T(xf), T(np.array(ax, np.int64), const=True)], [T(cumsum(xf, ax, excl, rev))])
for t in (np.int32, np.int64, np.uint8, np.uint64, np.float64, np.int8):
    xt = (x if np.issubdtype(t, np.signedinteger) or t == np.float64 else np.abs(x) * 40).astype(t)
    add("cumsum_%s" % t.__name__, "OP_CUM_SUM", 11, [("reverse", "i", 1)],
        [T(xt), T(np.array([1], np.int32), const=True)], [T(cumsum(xt, 1, 0, 1))])
tx, xv = fl(rng.standard_normal((4, 6)), 10)
ref = np.cumsum(np.asarray(xv, np.float16), axis=1, dtype=np.float16)
add("cumsum_f16", "OP_CUM_SUM", 14, [], [tx, T(np.array(1, np.int64), const=True)], [T(ref)],
    tol_for(10))

# ---- Det ----
m = rng.standard_normal((2, 3, 3))
m[1] = [[1, 2, 3], [2, 4, 6], [0, 1, 1]]      # singular
for dt in (1, 11):
    tx, xv = fl(m, dt)
    add("det_%d" % dt, "OP_DET", 11, [], [tx], [fl(np.linalg.det(xv.astype(np.float64)), dt)[0]],
        (1e-5, 1e-5) if dt == 1 else (1e-12, 1e-12))
m5 = rng.standard_normal((5, 5))
add("det_5x5", "OP_DET", 11, [], [T(m5)], [T(np.array(np.linalg.det(m5)))], (1e-12, 1e-12))
add("det_empty", "OP_DET", 11, [], [T(np.zeros((2, 0, 0), np.float32))], [T(np.ones(2, np.float32))])
pm = np.array([[0, 1.0], [1, 0]])                 # needs a pivot swap
add("det_pivot", "OP_DET", 11, [], [T(pm)], [T(np.array(-1.0))])
tx, xv = fl(rng.standard_normal((2, 2, 2, 2)), 10)
add("det_f16", "OP_DET", 22, [], [tx], [fl(np.linalg.det(xv.astype(np.float64)), 10)[0]], (5e-3, 5e-3))

# ---- Einsum ----
def ein(name, eq, arrays, dt=11):
    if dt in (1, 11, 10):
        ts = [fl(a, dt) for a in arrays]
        ref = np.einsum(eq, *[v.astype(np.float64) for _, v in ts])
        add("einsum_" + name, "OP_EINSUM", 12, [("equation", "s", eq)], [t for t, _ in ts],
            [fl(ref, dt)[0]], tol_for(dt) if dt != 1 else (1e-5, 1e-5))
    else:
        arrs = [np.asarray(a).astype(dt) for a in arrays]
        add("einsum_" + name, "OP_EINSUM", 12, [("equation", "s", eq)], [T(a) for a in arrs],
            [T(np.einsum(eq, *arrs).astype(dt))])


R = rng.standard_normal
ein("matmul", "ij,jk->ik", [R((3, 4)), R((4, 5))], 1)
ein("matmul_implicit", "ij,jk", [R((3, 4)), R((4, 5))])
ein("batch_matmul", "bij, bjk -> bik", [R((2, 3, 4)), R((2, 4, 2))])
ein("trace", "ii", [R((4, 4))])
ein("diag", "ii->i", [R((4, 4))])
ein("batch_diag", "...ii ->...i", [R((3, 5, 5))])
ein("inner", "i,i", [R(5), R(5)])
ein("outer", "i,j->ij", [R(3), R(4)], 10)
ein("transpose", "ij->ji", [R((3, 4))])
ein("sum_all", "ij->", [R((3, 4))])
ein("sum_rows", "ij->i", [R((3, 4))])
ein("three", "ij,jk,kl->il", [R((2, 3)), R((3, 4)), R((4, 2))])
ein("ellipsis_bcast", "...ij,...jk->...ik", [R((2, 1, 3, 4)), R((5, 4, 2))])
ein("ellipsis_mid", "a...c,c->...a", [R((2, 3, 4, 5)), R(5)])
ein("implicit_order", "ba,ca", [R((2, 3)), R((4, 3))])
ein("upper", "Ab,bC->AC", [R((2, 3)), R((3, 2))])
ein("int_matmul", "ij,jk->ik", [rng.integers(-9, 9, (3, 4)), rng.integers(-9, 9, (4, 2))], np.int32)
ein("int64_trace", "ii->", [rng.integers(-9, 9, (3, 3))], np.int64)
ein("empty_sum", "ij->i", [np.zeros((3, 0))])
ein("four_u8", "a,ab,b,b->a", [rng.integers(0, 9, 3), rng.integers(0, 9, (3, 2)), rng.integers(0, 9, 2),
                               rng.integers(0, 9, 2)], np.uint8)
ein("scalar_operand", ",ij->ji", [np.array(2.5), R((2, 3))])

# ---- Trilu ----
x = rng.integers(1, 10, (2, 3, 4)).astype(np.int64)
for upper in (1, 0):
    for k in (None, 0, 1, -1, 3, -2, -7, 9):
        ins = [T(x)] + ([] if k is None else [T(np.array(k, np.int64), const=True)])
        ref = np.triu(x, 0 if k is None else k) if upper else np.tril(x, 0 if k is None else k)
        add("trilu_u%d_k%s" % (upper, k), "OP_TRILU", 14, [("upper", "i", upper)], ins, [T(ref)])
xb = rng.integers(0, 2, (3, 5)).astype(bool)
add("trilu_bool", "OP_TRILU", 14, [("upper", "i", 0)], [T(xb), T(np.array(1, np.int64), const=True)],
    [T(np.tril(xb, 1))])
xf = rng.standard_normal((5, 2)).astype(np.float32)
add("trilu_f32_tall", "OP_TRILU", 14, [], [T(xf), T(np.array(-1, np.int64), const=True)],
    [T(np.triu(xf, -1))])
add("trilu_empty", "OP_TRILU", 14, [], [T(np.zeros((3, 0, 5), np.int64)), T(np.array(6, np.int64), const=True)],
    [T(np.zeros((3, 0, 5), np.int64))])

# ---- EyeLike ----
xe = np.zeros((3, 4), np.int32)
add("eyelike_same", "OP_EYE_LIKE", 9, [], [T(xe)], [T(np.eye(3, 4, dtype=np.int32))])
add("eyelike_k1_f64", "OP_EYE_LIKE", 9, [("dtype", "i", 11), ("k", "i", 1)], [T(xe)],
    [T(np.eye(3, 4, 1, dtype=np.float64))])
add("eyelike_kneg_bool", "OP_EYE_LIKE", 9, [("dtype", "i", 9), ("k", "i", -2)],
    [T(np.zeros((4, 3), np.float32))], [T(np.eye(4, 3, -2, dtype=bool))])
add("eyelike_far", "OP_EYE_LIKE", 22, [("k", "i", 10)], [T(np.zeros((2, 2), np.float32))],
    [T(np.zeros((2, 2), np.float32))])
add("eyelike_f16", "OP_EYE_LIKE", 22, [("dtype", "i", 10)], [T(np.zeros((2, 3), np.uint8))],
    [T(np.eye(2, 3, dtype=np.float16))])

# ---- OneHot ----
def onehot(ind, depth, axis, off, on, wrap):
    ind = np.trunc(np.asarray(ind, np.float64)).astype(np.int64)
    if wrap:
        ind = np.where((ind < 0) & (ind >= -depth), ind + depth, ind)
    r = ind.ndim
    if axis < 0:
        axis += r + 1
    hot = np.expand_dims(ind, axis) == np.arange(depth).reshape([-1 if i == axis else 1
                                                                for i in range(r + 1)])
    return hot


ind = np.array([[0, 3, -1], [5, -4, 2]], np.int64)
vals = np.array([-1.0, 2.5], np.float32)
for ax in (-1, 0, 1, 2):
    for opset in (9, 11):
        hot = onehot(ind, 4, ax, -1.0, 2.5, opset >= 11)
        add("onehot_ax%d_%d" % (ax, opset), "OP_ONE_HOT", opset, [("axis", "i", ax)],
            [T(ind), T(np.array(4, np.int64), const=True), T(vals)],
            [T(np.where(hot, vals[1], vals[0]).astype(np.float32))])
hot = onehot(np.array(-2, np.int32), 5, -1, 0, 1, True)
add("onehot_scalar", "OP_ONE_HOT", 11, [], [T(np.array(-2, np.int32)), T(np.array(5, np.int64), const=True),
    T(np.array([0.0, 1.0]))], [T(hot.astype(np.float64))])
indf = np.array([1.0, 9.9, -2.5, 3.0], np.float32)
vi = np.array([0, 7], np.int32)
hot = onehot(indf, 10, -1, 0, 7, True)
add("onehot_float_idx", "OP_ONE_HOT", 11, [], [T(indf), T(np.array([10.0], np.float32), const=True), T(vi)],
    [T(np.where(hot, 7, 0).astype(np.int32))])
indu = np.array([0, 2, 255], np.uint8)
hot = onehot(indu, 3, 0, 0, 1, True)
add("onehot_u8_bool", "OP_ONE_HOT", 11, [("axis", "i", 0)],
    [T(indu), T(np.array(3, np.int32), const=True), T(np.array([False, True]))], [T(hot)])

# ---- CastLike ----
x = np.array([1.7, -2.2, 0.5, 300.0, -7.9, 65504.0], np.float32)
add("castlike_f32_i32", "OP_CAST_LIKE", 15, [], [T(x), T(np.zeros(1, np.int32))],
    [T(np.clip(np.trunc(x), -2**31, 2**31 - 1).astype(np.int32))])
add("castlike_f32_f16", "OP_CAST_LIKE", 15, [], [T(x), T(np.zeros(1, np.float16))],
    [T(x.astype(np.float16))])
add("castlike_f32_f64", "OP_CAST_LIKE", 19, [], [T(x), T(np.zeros((2, 2), np.float64))],
    [T(x.astype(np.float64))])
add("castlike_f32_bf16", "OP_CAST_LIKE", 15, [], [T(x), T(np.zeros(1, np.uint16), BF16)],
    [T(bf16_round(x), BF16)])
xi = np.array([0, 3, -1, 0], np.int64)
add("castlike_i64_bool", "OP_CAST_LIKE", 15, [], [T(xi), T(np.zeros(1, bool))], [T(xi != 0)])

# ---- BitwiseAnd/Or/Xor/Not (opset 18): every integer type, broadcasting ----
brng = np.random.default_rng(18)     # its own stream
BITWISE = {"AND": np.bitwise_and, "OR": np.bitwise_or, "XOR": np.bitwise_xor}
for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64):
    info = np.iinfo(t)
    a = brng.integers(info.min, info.max, (2, 1, 4), dtype=t, endpoint=True)
    b = brng.integers(info.min, info.max, (3, 1), dtype=t, endpoint=True)
    a[0, 0, :2] = [info.min, info.max]
    for op, fn in BITWISE.items():
        add("bitwise_%s_%s" % (op.lower(), t.__name__), "OP_BITWISE_" + op, 18, [], [T(a), T(b)],
            [T(fn(a, b))])
    add("bitwise_not_%s" % t.__name__, "OP_BITWISE_NOT", 18, [], [T(a)], [T(np.invert(a))])


def c_bytes(raw):
    return ", ".join(str(b) for b in raw) if raw else "0"


def c_tensor(t, var):
    dims = ", ".join(str(d) for d in t.shape) or "0"
    return "{ %d, %d, { %s }, %s, %d, %d }" % (t.dt, len(t.shape), dims, var, len(t.raw),
                                             1 if t.const else 0)


print("/* generated by gen_cases.py: numpy reference cases for test_arith.c */")
print("/* clang-format off */")
for ci, (name, op, opset, attrs, ins, outs, tol) in enumerate(cases):
    for k, t in enumerate(ins + outs):
        print("static const uint8_t c%d_t%d[] = { %s };" % (ci, k, c_bytes(t.raw)))
print("static const TCase cases[] = {")
for ci, (name, op, opset, attrs, ins, outs, tol) in enumerate(cases):
    tins = ", ".join(c_tensor(t, "c%d_t%d" % (ci, k)) for k, t in enumerate(ins))
    touts = ", ".join(c_tensor(t, "c%d_t%d" % (ci, len(ins) + k)) for k, t in enumerate(outs))
    tattrs = []
    for k, a in enumerate(attrs):
        if a[1] == "i":
            tattrs.append('{ "%s", RA_INT, %d, 0.0f, NULL }' % (a[0], a[2]))
        elif a[1] == "f":
            tattrs.append('{ "%s", RA_FLOAT, 0, %sf, NULL }' % (a[0], repr(float(np.float32(a[2])))))
        else:
            tattrs.append('{ "%s", RA_STRING, 0, 0.0f, "%s" }' % (a[0], a[2]))
    print('\t{ "%s", %s, %d, %d, { %s }, %d, { %s }, %d, { %s }, %g, %g },' % (
        name, op, opset, len(ins), tins, len(outs), touts, len(attrs),
        ", ".join(tattrs) or "{ 0 }", tol[0], tol[1]))
print("};")
