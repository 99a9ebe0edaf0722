#!/usr/bin/python3
"""Writes cases.h: numpy reference cases for the indexing unit test.

usage: /usr/bin/python3 tests/unit/indexing/gen_cases.py > tests/unit/indexing/cases.h
Each case is one node (op, opset, attributes, inputs, expected outputs); tensors are
raw little-endian bytes. `dyn` cases have data-dependent output sizes computed at
run time: the expected outputs carry the actual shapes the kernel must report.
"""
import numpy as np

DT = {np.float32: 1, np.uint8: 2, np.int8: 3, np.uint16: 4, np.int16: 5, np.int32: 6,
      np.int64: 7, np.bool_: 9, np.float16: 10, np.float64: 11, np.uint32: 12, np.uint64: 13}
BF16 = 16
rng = np.random.default_rng(11)
cases = []


def bf16_bits(a):
    u = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7fff + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_val(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


class T:
    """A tensor of a case: dtype code, shape, raw bytes, and whether it is constant."""
    def __init__(self, arr, dt=None, const=False):
        arr = np.asarray(arr)
        self.dt = dt if dt is not None else DT[arr.dtype.type]
        self.shape = arr.shape
        self.raw = arr.tobytes()
        self.const = const


def typed(a, dt):
    """(values as numpy with exact semantics, tensor maker) for dtype code dt."""
    if dt == BF16:
        bits = bf16_bits(a)
        return bf16_val(bits), lambda v, const=False: T(bf16_bits(v), BF16, const)
    npt = {v: k for k, v in DT.items()}[dt]
    v = np.asarray(a).astype(npt)
    return v, lambda w, const=False: T(np.asarray(w).astype(npt), dt, const)


def add(name, op, opset, attrs, ins, outs, dyn=False):
    cases.append((name, op, opset, attrs, ins, outs, dyn))


# ---- GatherElements ----
def gather_elements_ref(x, idx, axis):
    out = np.empty(idx.shape, x.dtype)
    for pos in np.ndindex(*idx.shape):
        src = list(pos)
        src[axis] = idx[pos] + (x.shape[axis] if idx[pos] < 0 else 0)
        out[pos] = x[tuple(src)]
    return out


for dt in (1, 10, 7, 2, 9):
    xv, mk = typed(rng.integers(-50, 50, (3, 4, 5)) if dt != 9 else rng.integers(0, 2, (3, 4, 5)), dt)
    idx = rng.integers(-4, 4, (3, 2, 5)).astype(np.int64)
    add("gather_elements_dt%d" % dt, "OP_GATHER_ELEMENTS", 13, [("axis", "i", 1)],
        [mk(xv), T(idx)], [mk(gather_elements_ref(xv, idx, 1))])
xv = rng.standard_normal((4, 3)).astype(np.float32)
idx = rng.integers(-4, 4, (2, 3)).astype(np.int32)
add("gather_elements_axis0_i32", "OP_GATHER_ELEMENTS", 11, [], [T(xv), T(idx)],
    [T(gather_elements_ref(xv, idx, 0))])
idx2 = rng.integers(-3, 3, (2, 2)).astype(np.int64)
add("gather_elements_neg_axis", "OP_GATHER_ELEMENTS", 13, [("axis", "i", -1)], [T(xv), T(idx2)],
    [T(gather_elements_ref(xv, idx2, 1))])


# ---- GatherND ----
def gather_nd_ref(data, idx, b):
    bshape = data.shape[:b]
    nb = int(np.prod(bshape)) if b else 1
    d = data.reshape((nb,) + data.shape[b:])
    ii = idx.reshape((nb, -1, idx.shape[-1]))
    out = []
    for i in range(nb):
        for t in ii[i]:
            out.append(d[i][tuple(int(v) for v in t)])
    return np.array(out).reshape(idx.shape[:-1] + data.shape[b + idx.shape[-1]:])


for dt in (1, 6, 9):
    xv, mk = typed(rng.integers(0, 2, (2, 3, 4)), dt)
    idx = np.array([[[0, 1], [1, -1]], [[1, 2], [-2, 0]]], np.int64)
    add("gather_nd_dt%d" % dt, "OP_GATHER_ND", 11, [], [mk(xv), T(idx)],
        [mk(gather_nd_ref(xv, idx, 0))])
xv = rng.standard_normal((2, 3, 4)).astype(np.float32)
idx = np.array([[[1], [0]], [[2], [1]]], np.int32)
add("gather_nd_batch1", "OP_GATHER_ND", 12, [("batch_dims", "i", 1)], [T(xv), T(idx)],
    [T(gather_nd_ref(xv, idx.astype(np.int64), 1))])
idx3 = np.array([[1, 2, 3], [0, -1, 0]], np.int64)
add("gather_nd_full", "OP_GATHER_ND", 13, [], [T(xv), T(idx3)],
    [T(gather_nd_ref(xv, idx3, 0))])


# ---- ScatterElements / Scatter ----
def scatter_elements_ref(data, idx, upd, axis, red):
    out = data.copy()
    idx = np.where(idx < 0, idx + data.shape[axis], idx)
    for pos in np.ndindex(*idx.shape):
        tgt = list(pos)
        tgt[axis] = idx[pos]
        tgt = tuple(tgt)
        u = upd[pos]
        if red == "none":
            out[tgt] = u
        elif red == "add":
            out[tgt] = out[tgt] + u
        elif red == "mul":
            out[tgt] = out[tgt] * u
        elif red == "max":
            out[tgt] = np.maximum(out[tgt], u)
        else:
            out[tgt] = np.minimum(out[tgt], u)
    return out


def red_dt(dt, red, a, b):
    """float16/bfloat16 reductions round after each step, as the kernel does."""
    return a


for red, opset in (("none", 13), ("add", 16), ("mul", 16), ("max", 18), ("min", 18)):
    for dt in (1, 11, 3, 7, 12):
        xv, mk = typed(rng.integers(-5, 6, (3, 4)) if dt not in (12,) else rng.integers(0, 9, (3, 4)), dt)
        idx = np.array([[1, 0, 2, 0], [0, -1, 1, 2]], np.int64)   # duplicate targets
        uv, _ = typed(rng.integers(-3, 4, (2, 4)) if dt != 12 else rng.integers(0, 4, (2, 4)), dt)
        with np.errstate(all="ignore"):
            ref = scatter_elements_ref(xv, idx, uv, 0, red)
        attrs = [("axis", "i", 0)] + ([("reduction", "s", red)] if red != "none" else [])
        add("scatter_elements_%s_dt%d" % (red, dt), "OP_SCATTER_ELEMENTS", opset, attrs,
            [mk(xv), T(idx), mk(uv)], [mk(ref)])
# int8 wraps, u8 mul wraps
xv = np.array([[120, -128, 100]], np.int8)
uv = np.array([[10, -1, 100]], np.int8)
idx = np.array([[0, 1, 2]], np.int64)
with np.errstate(all="ignore"):
    add("scatter_elements_add_wrap", "OP_SCATTER_ELEMENTS", 16,
        [("axis", "i", 1), ("reduction", "s", "add")], [T(xv), T(idx), T(uv)],
        [T(scatter_elements_ref(xv, idx, uv, 1, "add"))])
    add("scatter_elements_mul_wrap", "OP_SCATTER_ELEMENTS", 16,
        [("axis", "i", 1), ("reduction", "s", "mul")], [T(xv), T(idx), T(uv)],
        [T(scatter_elements_ref(xv, idx, uv, 1, "mul"))])
for dt in (10, BF16):
    xv, mk = typed([[1.5, 2.0, -3.0, 4.25]], dt)
    uv, _ = typed([[0.5, 8.0, 1.0, 2.0]], dt)
    idx = np.array([[3, 0, 3, 1]], np.int32)
    add("scatter_elements_addh_dt%d" % dt, "OP_SCATTER_ELEMENTS", 16,
        [("axis", "i", 1), ("reduction", "s", "add")], [mk(xv), T(idx), mk(uv)],
        [mk(scatter_elements_ref(xv, idx, uv, 1, "add"))])
xb = np.array([[True, False, False]])
ub = np.array([[True, True, False]])
idx = np.array([[2, 1, 0]], np.int64)
add("scatter_bool_opset9", "OP_SCATTER", 9, [("axis", "i", 1)], [T(xb), T(idx), T(ub)],
    [T(scatter_elements_ref(xb, idx, ub, 1, "none"))])
xf = np.array([[1.0, np.nan, 3.0]], np.float32)
uf = np.array([[np.nan, 0.0, 5.0]], np.float32)
idx = np.array([[0, 1, 2]], np.int64)
add("scatter_elements_max_nan", "OP_SCATTER_ELEMENTS", 18,
    [("axis", "i", 1), ("reduction", "s", "max")], [T(xf), T(idx), T(uf)],
    [T(scatter_elements_ref(xf, idx, uf, 1, "max"))])


# ---- ScatterND ----
def scatter_nd_ref(data, idx, upd, red):
    out = data.copy()
    for pos in np.ndindex(*idx.shape[:-1]):
        t = tuple(int(v) for v in idx[pos])
        if red == "none":
            out[t] = upd[pos]
        elif red == "add":
            out[t] = out[t] + upd[pos]
        elif red == "mul":
            out[t] = out[t] * upd[pos]
        elif red == "max":
            out[t] = np.maximum(out[t], upd[pos])
        else:
            out[t] = np.minimum(out[t], upd[pos])
    return out


for red, opset in (("none", 11), ("add", 16), ("mul", 16), ("max", 18), ("min", 18)):
    for dt in (1, 7, 2):
        xv, mk = typed(rng.integers(0, 9, (4, 3, 2)), dt)
        idx = np.array([[1, 0], [-1, 2], [1, 0]], np.int64) if red != "none" else \
            np.array([[1, 0], [-1, 2], [0, 0]], np.int64)
        uv, _ = typed(rng.integers(0, 5, (3, 2)), dt)
        with np.errstate(all="ignore"):
            ref = scatter_nd_ref(xv, idx, uv, red)
        attrs = [("reduction", "s", red)] if red != "none" else []
        add("scatter_nd_%s_dt%d" % (red, dt), "OP_SCATTER_ND", opset, attrs,
            [mk(xv), T(idx), mk(uv)], [mk(ref)])
xv = rng.standard_normal((3, 4)).astype(np.float32)
idx = np.array([[2], [0]], np.int32)
uv = rng.standard_normal((2, 4)).astype(np.float32)
add("scatter_nd_rows_i32", "OP_SCATTER_ND", 13, [], [T(xv), T(idx), T(uv)],
    [T(scatter_nd_ref(xv, idx, uv, "none"))])


# ---- Compress ----
xv = np.arange(24).reshape(2, 3, 4).astype(np.float32)
cond = np.array([True, False, True])
add("compress_axis1_const", "OP_COMPRESS", 11, [("axis", "i", 1)],
    [T(xv), T(cond, const=True)], [T(np.compress(cond, xv, axis=1))])
add("compress_axis1_dyn", "OP_COMPRESS", 11, [("axis", "i", 1)],
    [T(xv), T(cond)], [T(np.compress(cond, xv, axis=1))], dyn=True)
cond2 = np.array([False, True])
add("compress_short_cond_dyn", "OP_COMPRESS", 9, [("axis", "i", -1)],
    [T(xv), T(cond2)], [T(np.compress(cond2, xv, axis=-1))], dyn=True)
cond3 = np.array([0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1], bool)
xi = np.arange(24).reshape(4, 6).astype(np.int8)
add("compress_flat_dyn", "OP_COMPRESS", 11, [], [T(xi), T(cond3)],
    [T(np.compress(cond3, xi))], dyn=True)
add("compress_none_dyn", "OP_COMPRESS", 11, [("axis", "i", 0)],
    [T(xi), T(np.zeros(4, bool))], [T(np.compress(np.zeros(4, bool), xi, axis=0))], dyn=True)


# ---- NonZero ----
for dt in (1, 10, BF16, 7, 9, 4):
    src = rng.integers(0, 3, (3, 4)) * (1 if dt != 9 else 1)
    xv, mk = typed(np.minimum(src, 1) if dt == 9 else src, dt)
    add("nonzero_dyn_dt%d" % dt, "OP_NON_ZERO", 13, [], [mk(xv)],
        [T(np.array(np.nonzero(xv), np.int64))], dyn=True)
xf = np.array([[0.0, -0.0, np.nan], [1.0, 0.0, 0.0]], np.float32)
add("nonzero_negzero_nan", "OP_NON_ZERO", 9, [], [T(xf)],
    [T(np.array(np.nonzero(xf), np.int64))], dyn=True)
add("nonzero_const", "OP_NON_ZERO", 13, [], [T(xf, const=True)],
    [T(np.array(np.nonzero(xf), np.int64))])
add("nonzero_scalar", "OP_NON_ZERO", 13, [], [T(np.array(5, np.int32))],
    [T(np.zeros((1, 1), np.int64))], dyn=True)
add("nonzero_none", "OP_NON_ZERO", 13, [], [T(np.zeros((2, 2, 2), np.uint8))],
    [T(np.zeros((3, 0), np.int64))], dyn=True)


# ---- Unique ----
def unique_ref(x, sorted_, axis):
    y, idx, inv, cnt = np.unique(x, return_index=True, return_inverse=True, return_counts=True,
                                 axis=axis)
    inv = inv.reshape(-1)
    if not sorted_:
        order = np.argsort(idx, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        y = np.take(y, order, axis=0 if axis is None else axis)
        idx, cnt, inv = idx[order], cnt[order], rank[inv]
    return y, idx.astype(np.int64), inv.astype(np.int64), cnt.astype(np.int64)


def add_unique(name, x, mk, sorted_, axis, const=False, opset=11):
    y, idx, inv, cnt = unique_ref(x, sorted_, axis)
    attrs = [("sorted", "i", sorted_)] + ([("axis", "i", axis)] if axis is not None else [])
    add(name, "OP_UNIQUE", opset, attrs, [mk(x, const)], [mk(y), T(idx), T(inv), T(cnt)],
        dyn=not const)


xv, mk = typed([2, 1, 1, 3, 4, 3], 1)
add_unique("unique_sorted_f32", xv, mk, 1, None)
add_unique("unique_unsorted_f32", xv, mk, 0, None)
add_unique("unique_const", xv, mk, 0, None, const=True)
for dt in (7, 3, 13, 10, BF16, 9):
    src = rng.integers(0, 4, (4, 3)) if dt != 9 else rng.integers(0, 2, (4, 3))
    xv, mk = typed(src, dt)
    add_unique("unique_flat_dt%d" % dt, xv, mk, 1, None)
    add_unique("unique_flat_unsorted_dt%d" % dt, xv, mk, 0, None)
xv, mk = typed([[1, 0, 0], [1, 0, 0], [2, 3, 4]], 1)
add_unique("unique_axis0", xv, mk, 1, 0)
add_unique("unique_axis0_unsorted", xv, mk, 0, 0)
xv, mk = typed(np.array([[[1, 1], [0, 1], [2, 1], [0, 1]], [[1, 1], [0, 1], [2, 1], [0, 1]]]), 6)
add_unique("unique_axis1_3d", xv, mk, 1, 1)
add_unique("unique_axis_neg", xv, mk, 1, -1)
xv, mk = typed([[3, 1], [3, 0], [-1, 7]], 7)
add_unique("unique_axis1_unsorted", xv, mk, 0, 1)
xv, mk = typed([5, 5, -2, 7, -2], 6)
y = unique_ref(xv, 1, None)[0]
add("unique_y_only", "OP_UNIQUE", 11, [], [mk(xv)], [mk(y)], dyn=True)
add("unique_y_only_const", "OP_UNIQUE", 11, [], [mk(xv, True)], [mk(y)])
add_unique("unique_empty", np.zeros((0,), np.float32), typed([], 1)[1], 1, None)


# ---- ReverseSequence ----
def revseq_ref(x, lens, bax, tax):
    out = x.copy()
    for b, n in enumerate(lens):
        sl = [slice(None)] * x.ndim
        sl[bax] = b
        sl[tax] = slice(0, n)
        src = [slice(None)] * x.ndim
        src[bax] = b
        src[tax] = slice(n - 1, None, -1) if n > 0 else slice(0, 0)
        out[tuple(sl)] = x[tuple(src)]
    return out


xv = np.arange(16).reshape(4, 4).astype(np.float32)
lens = np.array([4, 3, 2, 1], np.int64)
add("revseq_time0", "OP_REVERSE_SEQUENCE", 10, [("batch_axis", "i", 1), ("time_axis", "i", 0)],
    [T(xv), T(lens)], [T(revseq_ref(xv, lens, 1, 0))])
lens = np.array([1, 2, 3, 0], np.int64)
add("revseq_batch0", "OP_REVERSE_SEQUENCE", 10, [("batch_axis", "i", 0), ("time_axis", "i", 1)],
    [T(xv), T(lens)], [T(revseq_ref(xv, lens, 0, 1))])
xi = np.arange(2 * 3 * 2).reshape(3, 2, 2).astype(np.int16)
lens = np.array([3, 2], np.int32)
add("revseq_inner_i16", "OP_REVERSE_SEQUENCE", 10, [], [T(xi), T(lens)],
    [T(revseq_ref(xi, lens, 1, 0))])


# ---- ArgMax / ArgMin ----
def arg_ref(x, op, axis, keep, last):
    f = np.argmax if op == "max" else np.argmin
    if last:
        r = x.shape[axis] - 1 - f(np.flip(x, axis), axis=axis)
    else:
        r = f(x, axis=axis)
    if keep:
        r = np.expand_dims(r, axis)
    return r.astype(np.int64)


for op in ("max", "min"):
    OP = "OP_ARG_MAX" if op == "max" else "OP_ARG_MIN"
    for dt in (1, 11, 10, BF16, 3, 5, 6, 7, 2, 4, 12, 13):
        src = rng.integers(0, 4, (3, 4, 2)) if dt in (2, 4, 12, 13) else rng.integers(-3, 3, (3, 4, 2))
        xv, mk = typed(src, dt)
        add("arg%s_dt%d" % (op, dt), OP, 13, [("axis", "i", 1)], [mk(xv)],
            [T(arg_ref(xv, op, 1, True, False))])
        add("arg%s_last_dt%d" % (op, dt), OP, 12,
            [("axis", "i", -1), ("keepdims", "i", 0), ("select_last_index", "i", 1)], [mk(xv)],
            [T(arg_ref(xv, op, 2, False, True))])
    xf = np.array([[1.0, np.nan, 3.0, np.nan], [2.0, 2.0, 0.5, 7.0]], np.float32)
    add("arg%s_nan" % op, OP, 11, [("axis", "i", 1)], [T(xf)], [T(arg_ref(xf, op, 1, True, False))])
    add("arg%s_nan_last" % op, OP, 12, [("axis", "i", 1), ("select_last_index", "i", 1)], [T(xf)],
        [T(arg_ref(xf, op, 1, True, True))])
    xl = np.array([[2**62 + 1, 2**62, 2**62 + 1]], np.int64)
    add("arg%s_i64_big" % op, OP, 1, [("axis", "i", 1), ("keepdims", "i", 0)], [T(xl)],
        [T(arg_ref(xl, op, 1, False, False))])
    xl = np.array([[2**63 + 5, 2**63 + 4, 3]], np.uint64)
    add("arg%s_u64_big" % op, OP, 13, [("axis", "i", 1), ("keepdims", "i", 0)], [T(xl)],
        [T(arg_ref(xl, op, 1, False, False))])
    add("arg%s_axis0_default" % op, OP, 13, [], [T(xf)], [T(arg_ref(xf, op, 0, True, False))])


# ---- TopK ----
def topk_ref(x, k, axis, largest):
    xs = np.moveaxis(x, axis, -1)
    vals = np.empty(xs.shape[:-1] + (k,), x.dtype)
    inds = np.empty(xs.shape[:-1] + (k,), np.int64)
    for pos in np.ndindex(*xs.shape[:-1]):
        row = [(float(v) if x.dtype.kind == "f" else int(v), i) for i, v in enumerate(xs[pos])]

        def key(t):
            v, i = t
            nan = v != v
            if largest:
                return (0 if nan else 1, 0 if nan else -v, i)
            return (1 if nan else 0, 0 if nan else v, i)
        row.sort(key=key)
        inds[pos] = [i for _, i in row[:k]]
        vals[pos] = xs[pos][inds[pos]]
    return np.moveaxis(vals, -1, axis), np.moveaxis(inds, -1, axis)


for dt in (1, 11, 10, BF16, 3, 6, 7, 2, 13):
    src = rng.integers(0, 5, (3, 6)) if dt in (2, 13) else rng.integers(-4, 5, (3, 6))
    xv, mk = typed(src, dt)
    for largest in (1, 0):
        v, i = topk_ref(xv, 3, 1, largest)
        add("topk_l%d_dt%d" % (largest, dt), "OP_TOP_K", 11,
            [("axis", "i", 1), ("largest", "i", largest)],
            [mk(xv), T(np.array([3], np.int64), const=True)], [mk(v), T(i)])
xv = rng.standard_normal((4, 5, 3)).astype(np.float32)
v, i = topk_ref(xv, 2, 0, 1)
add("topk_axis0_opset10", "OP_TOP_K", 10, [("axis", "i", 0)],
    [T(xv), T(np.array([2], np.int64), const=True)], [T(v), T(i)])
v, i = topk_ref(xv, 5, 1, 1)
add("topk_opset1_attr_k", "OP_TOP_K", 1, [("k", "i", 5), ("axis", "i", -2)], [T(xv)], [T(v), T(i)])
xn = np.array([[3.0, np.nan, 1.0, 3.0, -1.0, np.nan]], np.float32)
for largest in (1, 0):
    v, i = topk_ref(xn, 4, 1, largest)
    add("topk_nan_ties_l%d" % largest, "OP_TOP_K", 11, [("largest", "i", largest)],
        [T(xn), T(np.array([4], np.int32), const=True)], [T(v), T(i)])
v, i = topk_ref(xn, 0, 1, 1)
add("topk_k0", "OP_TOP_K", 11, [], [T(xn), T(np.array([0], np.int64), const=True)], [T(v), T(i)])


# ---- DepthToSpace / SpaceToDepth ----
def d2s(x, b, mode):
    n, c, h, w = x.shape
    if mode == "DCR":
        t = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    else:
        t = x.reshape(n, c // (b * b), b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
    return t.reshape(n, c // (b * b), h * b, w * b)


def s2d(x, b):
    n, c, h, w = x.shape
    t = x.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4)
    return t.reshape(n, c * b * b, h // b, w // b)


xv = np.arange(2 * 8 * 2 * 3).reshape(2, 8, 2, 3).astype(np.float32)
add("d2s_dcr", "OP_DEPTH_TO_SPACE", 13, [("blocksize", "i", 2)], [T(xv)], [T(d2s(xv, 2, "DCR"))])
add("d2s_crd", "OP_DEPTH_TO_SPACE", 11, [("blocksize", "i", 2), ("mode", "s", "CRD")], [T(xv)],
    [T(d2s(xv, 2, "CRD"))])
xi = np.arange(1 * 9 * 2 * 2).reshape(1, 9, 2, 2).astype(np.uint8)
add("d2s_b3_u8", "OP_DEPTH_TO_SPACE", 1, [("blocksize", "i", 3)], [T(xi)], [T(d2s(xi, 3, "DCR"))])
xv = np.arange(2 * 3 * 4 * 6).reshape(2, 3, 4, 6).astype(np.int64)
add("s2d_b2", "OP_SPACE_TO_DEPTH", 13, [("blocksize", "i", 2)], [T(xv)], [T(s2d(xv, 2))])
add("s2d_roundtrip", "OP_DEPTH_TO_SPACE", 13, [("blocksize", "i", 2)], [T(s2d(xv, 2))], [T(xv)])


# ---- TfIdfVectorizer ----
def tfidf_ref(x, mn, mx, skip, mode, counts, indexes, pool, weights):
    out_size = max(indexes) + 1
    grams = {}
    gid = 0
    for i, start in enumerate(counts):
        size = i + 1
        end = counts[i + 1] if i + 1 < len(counts) else len(pool)
        for s in range(start, end, size):
            if mn <= size <= mx:
                grams[tuple(pool[s:s + size])] = gid
            gid += 1
    rows = x.reshape(-1, x.shape[-1]) if x.ndim else x.reshape(1, 1)
    out = np.zeros((rows.shape[0], out_size), np.float32)
    for r, row in enumerate(rows):
        seen = set()
        for d in range(1, skip + 2):
            for s in range(len(row)):
                for n in range(mn, mx + 1):
                    pos = [s + j * d for j in range(n)]
                    if pos[-1] >= len(row) or (n == 1 and d > 1):
                        continue
                    g = tuple(int(row[p]) for p in pos)
                    if g in grams:
                        out[r, indexes[grams[g]]] += 1
    w = np.array(weights if weights else [1.0] * out_size, np.float32)
    if mode == "IDF":
        out = np.where(out > 0, w[:out_size], 0).astype(np.float32)
    elif mode == "TFIDF":
        out = (out * w[:out_size]).astype(np.float32)
    return out.reshape((out_size,) if x.ndim < 2 else (x.shape[0], out_size))


counts = [0, 4]
indexes = [0, 1, 2, 3, 4, 5, 6]
pool = [2, 3, 5, 4, 5, 6, 7, 8, 6, 7]
X = np.array([[1, 1, 3, 3, 3, 7], [8, 6, 7, 5, 6, 8]], np.int32)
for (mn, mx, skip, mode, w) in ((2, 2, 0, "TF", None), (1, 2, 5, "TF", None),
                                (1, 2, 3, "IDF", [0.5, 1, 2, 3, 4, 5, 6.5]),
                                (1, 2, 1, "TFIDF", [0.5, 1, 2, 3, 4, 5, 6.5]),
                                (1, 1, 0, "TFIDF", None)):
    attrs = [("min_gram_length", "i", mn), ("max_gram_length", "i", mx), ("max_skip_count", "i", skip),
             ("mode", "s", mode), ("ngram_counts", "is", counts), ("ngram_indexes", "is", indexes),
             ("pool_int64s", "is", pool)] + ([("weights", "fs", w)] if w else [])
    add("tfidf_%d%d_s%d_%s" % (mn, mx, skip, mode), "OP_TF_IDF_VECTORIZER", 9, attrs, [T(X)],
        [T(tfidf_ref(X, mn, mx, skip, mode, counts, indexes, pool, w))])
X1 = np.array([1, 1, 3, 3, 3, 7, 8, 6, 7, 5, 6, 8], np.int64)
attrs = [("min_gram_length", "i", 2), ("max_gram_length", "i", 2), ("max_skip_count", "i", 5),
         ("mode", "s", "TF"), ("ngram_counts", "is", counts), ("ngram_indexes", "is", indexes),
         ("pool_int64s", "is", pool)]
add("tfidf_1d_i64", "OP_TF_IDF_VECTORIZER", 9, attrs, [T(X1)],
    [T(tfidf_ref(X1, 2, 2, 5, "TF", counts, indexes, pool, None))])
perm = [6, 5, 4, 3, 2, 1, 0]
attrs = [("min_gram_length", "i", 1), ("max_gram_length", "i", 2), ("max_skip_count", "i", 0),
         ("mode", "s", "TF"), ("ngram_counts", "is", counts), ("ngram_indexes", "is", perm),
         ("pool_int64s", "is", pool)]
add("tfidf_permuted_indexes", "OP_TF_IDF_VECTORIZER", 9, attrs, [T(X)],
    [T(tfidf_ref(X, 1, 2, 0, "TF", counts, perm, pool, None))])


# ---- output ----
def c_bytes(raw):
    return ", ".join(str(b) for b in raw) if raw else "0"


def c_tensor(t, var):
    dims = ", ".join(str(d) for d in t.shape) or "0"
    return "{ %d, %d, { %s }, %s, %d, %d }" % (t.dt, len(t.shape), dims, var, len(t.raw),
                                             1 if t.const else 0)


print("/* generated by gen_cases.py: numpy reference cases for test_indexing.c */")
print("/* clang-format off */")
for ci, (name, op, opset, attrs, ins, outs, dyn) in enumerate(cases):
    for k, t in enumerate(ins + outs):
        print("static const uint8_t c%d_t%d[] = { %s };" % (ci, k, c_bytes(t.raw)))
    for k, a in enumerate(attrs):
        if a[1] == "is":
            print("static const int64_t c%d_a%d[] = { %s };" % (ci, k, ", ".join(str(v) for v in a[2])))
        elif a[1] == "fs":
            print("static const float c%d_a%d[] = { %s };" %
                  (ci, k, ", ".join("%.9ef" % v for v in a[2])))
print("static const TCase cases[] = {")
for ci, (name, op, opset, attrs, ins, outs, dyn) in enumerate(cases):
    tins = ", ".join(c_tensor(t, "c%d_t%d" % (ci, k)) for k, t in enumerate(ins))
    touts = ", ".join(c_tensor(t, "c%d_t%d" % (ci, len(ins) + k)) for k, t in enumerate(outs))
    tattrs = []
    for k, a in enumerate(attrs):
        if a[1] == "i":
            tattrs.append('{ "%s", RA_INT, %d, NULL, NULL, NULL, 0 }' % (a[0], a[2]))
        elif a[1] == "s":
            tattrs.append('{ "%s", RA_STRING, 0, "%s", NULL, NULL, 0 }' % (a[0], a[2]))
        elif a[1] == "is":
            tattrs.append('{ "%s", RA_INTS, 0, NULL, c%d_a%d, NULL, %d }' % (a[0], ci, k, len(a[2])))
        else:
            tattrs.append('{ "%s", RA_FLOATS, 0, NULL, NULL, c%d_a%d, %d }' % (a[0], ci, k, len(a[2])))
    print('\t{ "%s", %s, %d, %d, %d, { %s }, %d, { %s }, %d, { %s } },' % (
        name, op, opset, 1 if dyn else 0, len(ins), tins, len(outs), touts, len(attrs),
        ", ".join(tattrs) or "{ 0 }"))
print("};")
