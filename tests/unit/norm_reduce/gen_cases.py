#!/usr/bin/python3
"""Writes cases.h: numpy reference cases for the norm/softmax/reduce unit test.

usage: /usr/bin/python3 tests/unit/norm_reduce/gen_cases.py > tests/unit/norm_reduce/cases.h
Each case is one node (op, opset, attributes, inputs, expected outputs); tensors are
raw little-endian bytes. float16/bfloat16 references are computed in float32 from the
rounded inputs, then rounded, as ingot's kernels do.
"""
import warnings

import numpy as np

DT = {np.float32: 1, np.uint8: 2, np.int8: 3, np.uint16: 4, np.int16: 5, np.int32: 6,
      np.int64: 7, np.float16: 10, np.float64: 11, np.uint32: 12, np.uint64: 13, np.bool_: 9}
BF16 = 16
rng = np.random.default_rng(7)
warnings.simplefilter("ignore", RuntimeWarning)   # the mean of an empty slice is NaN
cases = []


def bf16_round(a):
    """float32 -> bfloat16 bits (round to nearest even) as uint16."""
    u = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7fff + ((u >> 16) & 1)) >> 16
    return u.astype(np.uint16)


def bf16_to_f32(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


class T:
    """A tensor of a case: dtype code, shape, raw bytes, and whether it is constant."""
    def __init__(self, arr, dt=None, const=False):
        arr = np.asarray(arr)
        self.dt = dt if dt is not None else DT[arr.dtype.type]
        self.shape = arr.shape
        self.raw = arr.tobytes()
        self.const = const


def fl(a, dt):
    """Returns (tensor, the float32/64 values it holds) for a float dtype code."""
    a = np.asarray(a)
    if dt == BF16:
        b = bf16_round(a)
        return T(b, BF16), bf16_to_f32(b)
    if dt == 10:
        h = a.astype(np.float16)
        return T(h), h.astype(np.float32)
    v = a.astype(np.float64 if dt == 11 else np.float32)
    return T(v), v


def out_fl(v, dt):
    return fl(v, dt)[0]


def add(name, op, opset, attrs, ins, outs, tol=None):
    cases.append((name, op, opset, attrs, ins, outs, tol))


def tol_for(dt):
    return (1e-2, 1e-3) if dt in (10, BF16) else (1e-5, 1e-7) if dt == 11 else (1e-4, 1e-6)


# ---- Softmax / LogSoftmax ----
def softmax(x, axis, coerce, log):
    shp = x.shape
    if coerce:
        x = x.reshape(int(np.prod(shp[:axis])), -1)
        axis = 1
    m = x.max(axis=axis, keepdims=True)
    e = np.exp(x - m)
    s = e.sum(axis=axis, keepdims=True)
    r = (x - m - np.log(s)) if log else e / s
    return r.reshape(shp)


for dt in (1, 11, 10, BF16):
    for op, log in (("OP_SOFTMAX", False), ("OP_LOG_SOFTMAX", True)):
        for opset, axis, shape in ((13, None, (2, 3, 4)), (13, 1, (2, 3, 4)), (13, -3, (2, 3, 4)),
                                   (11, None, (2, 3, 4)), (11, 0, (2, 3, 4)), (1, -1, (3, 5))):
            if dt != 1 and (opset, axis) not in ((13, 1), (11, None)):
                continue
            x = rng.standard_normal(shape) * 3
            if dt == 1 and axis is None and opset == 13:
                x[0, 0, 0] = 1000.0           # large numbers: the max is subtracted
            tx, xv = fl(x, dt)
            rank = len(shape)
            ax = (1 if opset < 13 else -1) if axis is None else axis
            ax = ax + rank if ax < 0 else ax
            y = softmax(xv.astype(np.float64 if dt == 11 else np.float32), ax, opset < 13, log)
            attrs = [] if axis is None else [("axis", "i", axis)]
            add("%s_dt%d_opset%d_axis%s" % (op, dt, opset, axis), op, opset, attrs, [tx],
                [out_fl(y, dt)], tol_for(dt))


# ---- BatchNormalization ----
def bn_case(name, opset, dt, shape, attrs, training, n_out, pdt=None):
    c = shape[1]
    pdt = pdt or dt
    tx, x = fl(rng.standard_normal(shape) * 2 + 1, dt)
    ts, s = fl(rng.standard_normal(c), pdt)
    tb, b = fl(rng.standard_normal(c), pdt)
    tm, m = fl(rng.standard_normal(c), pdt)
    tv, v = fl(rng.random(c) + 0.5, pdt)
    eps = dict((a[0], a[2]) for a in attrs).get("epsilon", 1e-5)
    mom = dict((a[0], a[2]) for a in attrs).get("momentum", 0.9)
    bshape = (1, c) + (1,) * (len(shape) - 2)
    ax = tuple(i for i in range(len(shape)) if i != 1)
    x64 = x.astype(np.float64)
    cm, cv = (x64.mean(axis=ax), x64.var(axis=ax)) if training else (m, v)
    y = (x64 - np.reshape(cm, bshape)) / np.sqrt(np.reshape(cv, bshape) + eps) * \
        np.reshape(s, bshape) + np.reshape(b, bshape)
    outs = [out_fl(y, dt)]
    if n_out > 1:
        outs.append(out_fl(m * mom + cm * (1 - mom) if training else m, pdt))
        outs.append(out_fl(v * mom + cv * (1 - mom) if training else v, pdt))
    add(name, "OP_BATCH_NORMALIZATION", opset, attrs, [tx, ts, tb, tm, tv], outs,
        tol_for(dt if dt in (10, BF16) else pdt))


for dt in (1, 11, 10, BF16):
    bn_case("bn_infer_dt%d" % dt, 15, dt, (2, 3, 4, 5), [], False, 1)
bn_case("bn_eps_rank2", 9, 1, (4, 3), [("epsilon", "f", 1e-2)], False, 1)
bn_case("bn_rank5", 7, 1, (1, 2, 2, 3, 2), [("spatial", "i", 1)], False, 1)
bn_case("bn_old_is_test", 6, 1, (2, 3, 2, 2), [("is_test", "i", 1), ("epsilon", "f", 1e-3)],
        False, 1)
bn_case("bn_train", 15, 1, (2, 3, 4, 5), [("training_mode", "i", 1)], True, 3)
bn_case("bn_train_mom", 14, 11, (3, 2, 7), [("training_mode", "i", 1), ("momentum", "f", 0.7),
                                              ("epsilon", "f", 1e-2)], True, 3)
bn_case("bn_train_f16_params_f32", 15, 10, (2, 3, 4), [("training_mode", "i", 1)], True, 3, pdt=1)
bn_case("bn_infer_outputs_copied", 15, 1, (2, 3, 2), [], False, 3)
bn_case("bn_opset9_training_outputs", 9, 1, (2, 3, 2, 2), [], True, 3)


# ---- InstanceNormalization ----
for dt, shape, eps in ((1, (2, 3, 4, 5), None), (11, (1, 2, 3), 1e-2), (10, (2, 2, 6), None),
                       (BF16, (1, 3, 2, 2, 2), None)):
    c = shape[1]
    tx, x = fl(rng.standard_normal(shape) * 3 + 2, dt)
    ts, s = fl(rng.standard_normal(c), dt)
    tb, b = fl(rng.standard_normal(c), dt)
    e = 1e-5 if eps is None else eps
    ax = tuple(range(2, len(shape)))
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=ax, keepdims=True)
    var = x64.var(axis=ax, keepdims=True)
    bshape = (1, c) + (1,) * (len(shape) - 2)
    y = (x64 - mean) / np.sqrt(var + e) * s.reshape(bshape) + b.reshape(bshape)
    attrs = [] if eps is None else [("epsilon", "f", eps)]
    add("instancenorm_dt%d" % dt, "OP_INSTANCE_NORMALIZATION", 6, attrs, [tx, ts, tb],
        [out_fl(y, dt)], tol_for(dt))


# ---- LayerNormalization ----
def ln_case(name, dt, shape, axis, sshape, bshape, n_out, eps=None, stash=None):
    tx, x = fl(rng.standard_normal(shape) * 2 + 1, dt)
    ts, s = fl(rng.standard_normal(sshape), dt)
    ins = [tx, ts]
    b = 0
    if bshape is not None:
        tb, b = fl(rng.standard_normal(bshape), dt)
        ins.append(tb)
    rank = len(shape)
    a = (-1 if axis is None else axis)
    a = a + rank if a < 0 else a
    ax = tuple(range(a, rank))
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=ax, keepdims=True)
    inv = 1 / np.sqrt(((x64 - mean) ** 2).mean(axis=ax, keepdims=True) + (eps or 1e-5))
    y = (x64 - mean) * inv * s + b
    sdt = stash or 1
    outs = [out_fl(y, dt), out_fl(mean, sdt), out_fl(inv, sdt)][:n_out]
    attrs = ([] if axis is None else [("axis", "i", axis)]) + \
        ([] if eps is None else [("epsilon", "f", eps)]) + \
        ([] if stash is None else [("stash_type", "i", stash)])
    add(name, "OP_LAYER_NORMALIZATION", 17, attrs, ins, outs, tol_for(dt))


ln_case("ln_default", 1, (2, 3, 4), None, (4,), (4,), 3)
ln_case("ln_axis1", 1, (2, 3, 4, 5), 1, (3, 4, 5), (3, 4, 5), 3)
ln_case("ln_axis0_nobias", 1, (3, 4), 0, (3, 4), None, 1)
ln_case("ln_neg2_bcast", 1, (2, 3, 4), -2, (1, 4), (3, 1), 2, eps=1e-2)
ln_case("ln_lead1_scale", 1, (2, 3, 4), -1, (1, 1, 4), (4,), 1)
ln_case("ln_f64_stash64", 11, (3, 5), -1, (5,), (5,), 3, stash=11)
ln_case("ln_f16", 10, (2, 8), 1, (8,), (8,), 3)
ln_case("ln_bf16", BF16, (2, 2, 3), 1, (2, 3), (2, 3), 1)


# ---- Reduce ----
def red_ref(op, x, axes, keep, noop):
    if axes is not None and len(axes) == 0:
        axes = None if not noop else ()
    if axes == ():
        return x.copy()
    ax = None if axes is None else tuple(axes)
    if op == "OP_REDUCE_SUM":
        return np.sum(x, axis=ax, keepdims=keep, dtype=x.dtype)
    if op == "OP_REDUCE_PROD":
        return np.prod(x, axis=ax, keepdims=keep, dtype=x.dtype)
    lo, hi = (-np.inf, np.inf) if x.dtype.kind == "f" else (False, True) \
        if x.dtype == np.bool_ else (np.iinfo(x.dtype).min, np.iinfo(x.dtype).max)
    if op == "OP_REDUCE_MAX":         # the empty max is the lowest value (opset 18)
        return np.max(x, axis=ax, keepdims=keep, initial=lo)
    if op == "OP_REDUCE_MIN":
        return np.min(x, axis=ax, keepdims=keep, initial=hi)
    if np.issubdtype(x.dtype, np.integer):
        with np.errstate(all="ignore"):
            s = np.sum(x, axis=ax, keepdims=keep, dtype=x.dtype)
            n = x.size // max(np.asarray(s).size, 1)
            return np.trunc(s.astype(np.float64) / n).astype(x.dtype) if x.size else s
    return np.mean(x, axis=ax, keepdims=keep, dtype=np.float64)


def red_case(name, op, opset, x, dt, axes, keep=None, noop=None, as_input=False):
    if dt in (1, 11, 10, BF16):
        tx, xv = fl(x, dt)
        xv = xv.astype(np.float64 if dt == 11 else np.float32)
    else:
        xv = np.asarray(x).astype({v: k for k, v in DT.items()}[dt])
        tx = T(xv)
    attrs = []
    ins = [tx]
    if axes is not None:
        if as_input:
            ins.append(T(np.array(axes, np.int64), const=True))
        else:
            attrs.append(("axes", "is", list(axes)))
    if keep is not None:
        attrs.append(("keepdims", "i", keep))
    if noop is not None:
        attrs.append(("noop_with_empty_axes", "i", noop))
    with np.errstate(all="ignore"):
        y = red_ref(op, xv, axes, 1 if keep is None else keep, noop)
    if dt in (1, 11, 10, BF16):
        ty = out_fl(y, dt)
    else:
        ty = T(np.asarray(y).astype(xv.dtype))
    add(name, op, opset, attrs, ins, [ty], tol_for(dt))


OPS = ["OP_REDUCE_SUM", "OP_REDUCE_MEAN", "OP_REDUCE_MAX", "OP_REDUCE_MIN", "OP_REDUCE_PROD"]
for op in OPS:
    x = rng.standard_normal((3, 4, 5)) + 0.5
    for dt in (1, 11, 10, BF16):
        red_case("%s_dt%d_ax1" % (op, dt), op, 13, x, dt, [1], 1)
    red_case("%s_all" % op, op, 13, x, 1, None)
    red_case("%s_02_nokeep" % op, op, 11, x, 1, [0, 2], 0)
    red_case("%s_neg_input" % op, op, 18, x, 1, [-1], 0, as_input=True)
    red_case("%s_empty_input_all" % op, op, 18, x, 1, [], 1, as_input=True)
    red_case("%s_empty_input_noop" % op, op, 18, x, 1, [], 1, noop=1, as_input=True)
    red_case("%s_rank4_13" % op, op, 13, rng.standard_normal((2, 1, 3, 2)), 1, [1, 3], 1)
    red_case("%s_zero_dim" % op, op, 13, np.zeros((2, 0, 3)), 1, [1], 0)
    xi = rng.integers(-50, 50, (2, 3, 4))
    for dt in (6, 7, 12, 13, 5, 4):
        xx = np.abs(xi) if dt in (12, 13, 4) else xi
        red_case("%s_int_dt%d" % (op, dt), op, 13, xx, dt, [2], 1)
    red_case("%s_int_all" % op, op, 13, xi, 6, None, 0)

# bool ReduceMax / ReduceMin (opset 20): any / all, the empty max false and min true
for op in ("OP_REDUCE_MAX", "OP_REDUCE_MIN"):
    xb = rng.integers(0, 4, (3, 4, 2)) > 0
    red_case("%s_bool_ax1" % op, op, 20, xb, 9, [1], 1)
    red_case("%s_bool_all" % op, op, 20, xb, 9, None, 0)
    red_case("%s_bool_zero_dim" % op, op, 20, np.zeros((2, 0, 3), bool), 9, [1], 0)
for op in ("OP_REDUCE_MAX", "OP_REDUCE_MIN", "OP_REDUCE_SUM"):
    for dt in (3, 2):
        xx = rng.integers(0 if dt == 2 else -128, 128, (3, 7))
        red_case("%s_8bit_dt%d" % (op, dt), op, 12, xx, dt, [1], 0)
# integer wrap-around and truncating integer mean
big = np.array([[2**31 - 1, 2**31 - 1, 5], [-7, 2, 0]])
for op in OPS:
    red_case("%s_wrap_i32" % op, op, 13, big, 6, [1], 0)
red_case("mean_i64_trunc", "OP_REDUCE_MEAN", 13, np.array([[-7, 2, 0], [7, 1, 1]]), 7, [1], 0)
red_case("prod_u64_wrap", "OP_REDUCE_PROD", 13, np.array([[2**40, 2**30, 3]], np.uint64), 13,
         [1], 0)
red_case("max_nan", "OP_REDUCE_MAX", 13, np.array([[1.0, np.nan, 3.0], [1.0, 2.0, 0.5]]), 1,
         [1], 0)
red_case("sum_scalar", "OP_REDUCE_SUM", 13, np.array(4.5), 1, None, 1)

# Kernel-only modes (ops not in the op table yet): (mode, dtype, x, reduced-dims mask).
kcases = []


def kcase(mode, dt, x, mask):
    ax = tuple(d for d in range(x.ndim) if (mask >> d) & 1)
    if dt in (1, 11, 10, BF16):
        tx, xv = fl(x, dt)
        xv = xv.astype(np.float64 if dt == 11 else np.float32)
    else:
        xv = np.asarray(x).astype({v: k for k, v in DT.items()}[dt])
        tx = T(xv)
    with np.errstate(all="ignore"):
        if mode == "SUM_SQUARE":
            y = np.sum(xv * xv, axis=ax, dtype=xv.dtype)
        elif mode == "L1":
            y = np.sum(np.abs(xv), axis=ax, dtype=xv.dtype)
        elif mode == "L2":
            y = np.sqrt(np.sum(xv * xv, axis=ax, dtype=xv.dtype))
        elif mode == "LOG_SUM":
            y = np.log(np.sum(xv, axis=ax, dtype=xv.dtype))
        else:
            y = np.log(np.sum(np.exp(xv.astype(np.float64)), axis=ax))
    if dt in (1, 11, 10, BF16):
        ty = out_fl(y, dt)
    else:
        ty = T(np.trunc(np.asarray(y, np.float64)).astype(xv.dtype))
    kcases.append((mode, dt, mask, tx, ty, tol_for(dt)))


for mode in ("SUM_SQUARE", "L1", "L2", "LOG_SUM", "LOG_SUM_EXP"):
    xf = rng.standard_normal((3, 4, 5)) * 2
    if mode == "LOG_SUM":
        xf = np.abs(xf) + 0.1
    for dt in (1, 11, 10, BF16):
        kcase(mode, dt, xf, 0b010)
    kcase(mode, 1, xf, 0b101)
    kcase(mode, 1, xf, 0b111)
    xi = rng.integers(0 if mode == "LOG_SUM" else -9, 10, (4, 6)) + (1 if mode == "LOG_SUM" else 0)
    for dt in (6, 7, 2, 13):
        kcase(mode, dt, np.abs(xi) if dt in (2, 13) else xi, 0b10)
kcase("LOG_SUM_EXP", 1, np.array([[1e3, 1e3 - 1, -np.inf], [-np.inf, -np.inf, -np.inf]]), 0b10)


def c_bytes(raw):
    return ", ".join(str(b) for b in raw) if raw else "0"


def c_tensor(t, var):
    dims = ", ".join(str(d) for d in t.shape) or "0"
    return "{ %d, %d, { %s }, %s, %d, %d }" % (t.dt, len(t.shape), dims, var, len(t.raw),
                                             1 if t.const else 0)


print("/* generated by gen_cases.py: numpy reference cases for test_norm_reduce.c */")
print("/* clang-format off */")
for ci, (name, op, opset, attrs, ins, outs, tol) in enumerate(cases):
    for k, t in enumerate(ins + outs):
        print("static const uint8_t c%d_t%d[] = { %s };" % (ci, k, c_bytes(t.raw)))
    for k, a in enumerate(attrs):
        if a[1] == "is":
            print("static const int64_t c%d_a%d[] = { %s };" %
                  (ci, k, ", ".join(str(v) for v in a[2]) or "0"))
print("static const TCase cases[] = {")
for ci, (name, op, opset, attrs, ins, outs, tol) in enumerate(cases):
    tins = ", ".join(c_tensor(t, "c%d_t%d" % (ci, k)) for k, t in enumerate(ins))
    touts = ", ".join(c_tensor(t, "c%d_t%d" % (ci, len(ins) + k)) for k, t in enumerate(outs))
    tattrs = []
    for k, a in enumerate(attrs):
        if a[1] == "i":
            tattrs.append('{ "%s", RA_INT, %d, 0.0f, NULL, 0 }' % (a[0], a[2]))
        elif a[1] == "f":
            tattrs.append('{ "%s", RA_FLOAT, 0, %.9gf, NULL, 0 }' % (a[0], a[2]))
        else:
            tattrs.append('{ "%s", RA_INTS, 0, 0.0f, c%d_a%d, %d }' % (a[0], ci, k, len(a[2])))
    print('\t{ "%s", %s, %d, %d, { %s }, %d, { %s }, %d, { %s }, %g, %g },' % (
        name, op, opset, len(ins), tins, len(outs), touts, len(attrs),
        ", ".join(tattrs) or "{ 0 }", tol[0], tol[1]))
print("};")
for ci, (mode, dt, mask, tx, ty, tol) in enumerate(kcases):
    print("static const uint8_t k%d_x[] = { %s };" % (ci, c_bytes(tx.raw)))
    print("static const uint8_t k%d_y[] = { %s };" % (ci, c_bytes(ty.raw)))
print("static const TKernelCase kcases[] = {")
for ci, (mode, dt, mask, tx, ty, tol) in enumerate(kcases):
    print("\t{ INGOT_REDUCE_%s, %d, %s, %s, %g, %g }," % (
        mode, mask, c_tensor(tx, "k%d_x" % ci), c_tensor(ty, "k%d_y" % ci), tol[0], tol[1]))
print("};")
