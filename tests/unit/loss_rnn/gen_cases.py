#!/usr/bin/python3
"""Writes cases.h: numpy reference cases for the loss/optimizer/RNN unit test.

usage: /usr/bin/python3 tests/unit/loss_rnn/gen_cases.py > tests/unit/loss_rnn/cases.h
Losses and optimizers use the reference functions of ONNX's own backend tests. The
RNN reference below follows the ONNX spec for every attribute; before writing any
case it is checked against ONNX's single-direction helpers and against PyTorch's
bidirectional RNN/GRU/LSTM, so the C test compares with two independent sources.
float16/bfloat16 references are computed in float64 from the rounded inputs.
"""
import sys
import warnings

import numpy as np
from onnx.backend.test.case.node.adagrad import apply_adagrad
from onnx.backend.test.case.node.adam import apply_adam
from onnx.backend.test.case.node.gru import GRU_Helper
from onnx.backend.test.case.node.lstm import LSTM_Helper
from onnx.backend.test.case.node.momentum import apply_momentum, apply_nesterov
from onnx.backend.test.case.node.negativeloglikelihoodloss import \
    compute_negative_log_likelihood_loss
from onnx.backend.test.case.node.rnn import RNN_Helper
from onnx.backend.test.case.node.softmaxcrossentropy import softmaxcrossentropy

DT = {np.float32: 1, np.int32: 6, np.int64: 7, np.float16: 10, np.float64: 11}
F32, I32, I64, F16, F64, BF16 = 1, 6, 7, 10, 11, 16
rng = np.random.default_rng(11)
warnings.simplefilter("ignore", RuntimeWarning)
cases = []


def bf16_round(a):
    a = np.asarray(a, np.float32)
    u = a.reshape(-1).view(np.uint32).astype(np.uint64)
    s16, one = np.uint64(16), np.uint64(1)
    u = (u + np.uint64(0x7fff) + ((u >> s16) & one)) >> s16
    return u.astype(np.uint16).reshape(a.shape)


def bf16_to_f32(bits):
    return (bits.reshape(-1).astype(np.uint32) << np.uint32(16)).view(np.float32).reshape(
        bits.shape)


class T:
    """A tensor of a case (dt 0: an omitted input or output)."""
    def __init__(self, arr=None, dt=None):
        if arr is None:
            self.dt, self.shape, self.raw = 0, (), b""
            return
        arr = np.asarray(arr)
        self.dt = dt if dt is not None else DT[arr.dtype.type]
        self.shape = arr.shape
        self.raw = arr.tobytes()


NONE = T()


def fl(a, dt):
    """(tensor, the float64 values it holds) for a float dtype code."""
    a = np.asarray(a, np.float64)
    if dt == BF16:
        b = bf16_round(a.astype(np.float32))
        return T(b, BF16), bf16_to_f32(b).astype(np.float64)
    if dt == F16:
        h = a.astype(np.float16)
        return T(h), h.astype(np.float64)
    v = a.astype(np.float64 if dt == F64 else np.float32)
    return T(v), v.astype(np.float64)


def out(v, dt):
    return fl(v, dt)[0]


def tol(dt):
    return (2e-2, 1e-2) if dt in (F16, BF16) else (1e-6, 1e-9) if dt == F64 else (1e-5, 1e-6)


def add(name, op, opset, attrs, ins, outs, dt=F32):
    cases.append((name, op, opset, attrs, ins, outs, tol(dt)))


# ---- NegativeLogLikelihoodLoss / SoftmaxCrossEntropyLoss ----

def loss_case(name, sce, shape, dt, ldt, reduction, weight, ii, log_prob=False, labels=None,
              opset=13):
    n, c = shape[0], shape[1]
    xt, x = fl(rng.standard_normal(shape) * 2, dt)
    if labels is None:
        labels = rng.integers(0, c, size=(n,) + tuple(shape[2:]))
        if ii is not None:
            labels.reshape(-1)[::3] = ii
    labels = np.asarray(labels).astype(np.int32 if ldt == I32 else np.int64)
    ins = [xt, T(labels)]
    w = None
    if weight:
        wt, w = fl(rng.uniform(0.2, 1.5, size=c), dt)
        ins.append(wt)
    attrs = [("reduction", "s", reduction)]
    if ii is not None:
        attrs.append(("ignore_index", "i", ii))
    lab64 = labels.astype(np.int64)
    if sce:
        r = softmaxcrossentropy(x, lab64, weight=w, reduction=reduction, ignore_index=ii,
                                get_log_prob=log_prob)
        if log_prob:
            loss, lp = r
            outs = [out(loss, dt), out(lp, dt)]
        else:
            outs = [out(r, dt)]
    else:
        # the reference writes ignored positions through float32; NaN-free inputs only
        outs = [out(compute_negative_log_likelihood_loss(x, lab64, weight=w, reduction=reduction,
                                                         ignore_index=ii), dt)]
    add(name, "OP_SOFTMAX_CROSS_ENTROPY_LOSS" if sce else "OP_NEGATIVE_LOG_LIKELIHOOD_LOSS",
        opset, attrs, ins, outs, dt)


loss_case("nll_nc_mean", False, (4, 5), F32, I64, "mean", False, None)
loss_case("nll_ncd1d2_sum_w_ii_i32", False, (2, 4, 3, 2), F32, I32, "sum", True, 1, opset=12)
loss_case("nll_none_negative_ii_f64", False, (3, 3, 4), F64, I64, "none", False, -5)
loss_case("nll_mean_weight_high_ii_f16", False, (3, 4, 2), F16, I64, "mean", True, 10)
loss_case("sce_mean_4d_w_ii_logprob", True, (2, 3, 2, 3), F32, I64, "mean", True, 2, True)
loss_case("sce_sum_i32", True, (5, 6), F32, I32, "sum", False, None)
loss_case("sce_none_logprob_f64", True, (3, 4, 5), F64, I64, "none", True, None, True)
loss_case("sce_mean_bf16", True, (4, 3), BF16, I64, "mean", False, 0, opset=13)
loss_case("sce_mean_all_ignored", True, (2, 3), F32, I64, "mean", False, 1, labels=[1, 1])


# ---- Adagrad / Momentum / Adam ----

def optim_case(name, op, dt, t, attrs, per, step, shapes):
    r = np.array(0.1, np.float32)
    tt = np.array(t, np.int64)
    groups = [[fl(rng.standard_normal(s), dt) for s in shapes] for _ in range(per)]
    if op == "OP_ADAGRAD" or op == "OP_ADAM":     # accumulators of squares are >= 0
        groups[-1] = [fl(np.abs(v), dt) for _, v in groups[-1]]
    ins = [T(r), T(tt)] + [tv[0] for g in groups for tv in g]
    res = [step(r.astype(np.float64), t, *[g[i][1] for g in groups]) for i in range(len(shapes))]
    outs = [out(res[i][k], dt) for k in range(len(res[0])) for i in range(len(shapes))]
    add(name, op, 1, attrs, ins, outs, dt)


optim_case("adagrad_two", "OP_ADAGRAD", F32, 3,
           [("decay_factor", "f", 0.1), ("epsilon", "f", 1e-5), ("norm_coefficient", "f", 1e-3)],
           3, lambda r, t, x, g, h: apply_adagrad(r, t, x, g, h, np.float32(1e-3),
                                                   np.float32(1e-5), np.float32(0.1)),
           [(2, 3), (4,)])
optim_case("momentum_f64", "OP_MOMENTUM", F64, 2,
           [("alpha", "f", 0.9), ("beta", "f", 0.5), ("mode", "s", "standard"),
            ("norm_coefficient", "f", 0.01)], 3,
           lambda r, t, x, g, v: apply_momentum(r, t, x, g, v, np.float32(0.01),
                                                 np.float32(0.9), np.float32(0.5)), [(3,)])
optim_case("nesterov_first_step", "OP_MOMENTUM", F32, 0,
           [("alpha", "f", 0.95), ("beta", "f", 0.1), ("mode", "s", "nesterov"),
            ("norm_coefficient", "f", 0.001)], 3,
           lambda r, t, x, g, v: apply_nesterov(r, t, x, g, v, np.float32(0.001),
                                                 np.float32(0.95), np.float32(0.1)),
           [(2, 2), (1,)])
optim_case("adam_bias_correction", "OP_ADAM", F32, 4,
           [("alpha", "f", 0.8), ("beta", "f", 0.9), ("epsilon", "f", 1e-3),
            ("norm_coefficient", "f", 0.01), ("norm_coefficient_post", "f", 0.02)], 4,
           lambda r, t, x, g, v, h: apply_adam(r, t, x, g, v, h, np.float32(0.01),
                                               np.float32(0.02), np.float32(0.8),
                                               np.float32(0.9), np.float32(1e-3)),
           [(3,), (2, 2)])
optim_case("adam_defaults_f64", "OP_ADAM", F64, 0, [], 4,
           lambda r, t, x, g, v, h: apply_adam(r, t, x, g, v, h, 0.0, 0.0, np.float32(0.9),
                                               np.float32(0.999), np.float32(1e-6)),
           [(5,)])


# ---- RNN / GRU / LSTM ----

ACT_AB = {"affine": (1.0, 0.0, True, True), "leakyrelu": (0.01, 0, True, False),
          "thresholdedrelu": (1.0, 0, True, False), "elu": (1.0, 0, True, False),
          "scaledtanh": (1.0, 1.0, True, True), "hardsigmoid": (0.2, 0.5, True, True)}


def act(name, x, a, b):
    n = name.lower()
    if n == "relu": return np.maximum(x, 0)
    if n == "tanh": return np.tanh(x)
    if n == "sigmoid": return 1 / (1 + np.exp(-x))
    if n == "affine": return a * x + b
    if n == "leakyrelu": return np.where(x < 0, a * x, x)
    if n == "thresholdedrelu": return np.where(x > a, x, 0)
    if n == "scaledtanh": return a * np.tanh(b * x)
    if n == "hardsigmoid": return np.clip(a * x + b, 0, 1)
    if n == "elu": return np.where(x < 0, a * (np.exp(x) - 1), x)
    if n == "softsign": return x / (1 + np.abs(x))
    if n == "softplus": return np.log1p(np.exp(x))
    raise ValueError(name)


def resolve(acts, alphas, betas):
    """(name, alpha, beta) per function: the lists are consumed in order by the
    functions that take them; the rest get their operator's default."""
    alphas, betas, res = list(alphas or []), list(betas or []), []
    for n in acts:
        da, db, ua, ub = ACT_AB.get(n.lower(), (0, 0, False, False))
        a = alphas.pop(0) if ua and alphas else da
        b = betas.pop(0) if ub and betas else db
        res.append((n, a, b))
    return res


def rnn_ref(kind, X, W, R, B=None, lens=None, h0=None, c0=None, P=None, direction="forward",
            layout=0, acts=None, alphas=None, betas=None, clip=None, lbr=0, input_forget=0):
    G = {"rnn": 1, "gru": 3, "lstm": 4}[kind]
    per = {"rnn": 1, "gru": 2, "lstm": 3}[kind]
    D = 2 if direction == "bidirectional" else 1
    if layout:
        X = X.swapaxes(0, 1)
        h0 = None if h0 is None else h0.swapaxes(0, 1)
        c0 = None if c0 is None else c0.swapaxes(0, 1)
    S, Bt, _ = X.shape
    H = R.shape[-1]
    if acts is None:
        acts = {"rnn": ["Tanh"], "gru": ["Sigmoid", "Tanh"],
                "lstm": ["Sigmoid", "Tanh", "Tanh"]}[kind] * D
    if clip is not None:         # attributes are float32
        clip = float(np.float32(clip))
    alphas = [float(np.float32(v)) for v in alphas or []]
    betas = [float(np.float32(v)) for v in betas or []]
    if D == 2 and len(acts) == per:   # one direction's list serves both, with its alphas
        acts, alphas, betas = acts * 2, (alphas or []) * 2, (betas or []) * 2
    fns = resolve(acts, alphas, betas)
    cl = (lambda v: np.clip(v, -clip, clip)) if clip is not None else (lambda v: v)
    Y = np.zeros((S, D, Bt, H))
    Yh = np.zeros((D, Bt, H))
    Yc = np.zeros((D, Bt, H))
    for d in range(D):
        rev = direction == "reverse" or d == 1
        f, g, h = [(lambda v, fn=fn: act(fn[0], v, fn[1], fn[2])) for fn in
                   (fns[d * per:(d + 1) * per] * 3)[:3]]
        Wd, Rd = W[d], R[d]
        Bd = B[d] if B is not None else np.zeros(2 * G * H)
        Wb, Rb = Bd[:G * H], Bd[G * H:]
        for b in range(Bt):
            L = S if lens is None else int(lens[b])
            hs = h0[d, b].copy() if h0 is not None else np.zeros(H)
            cs = c0[d, b].copy() if c0 is not None else np.zeros(H)
            for t in (range(L - 1, -1, -1) if rev else range(L)):
                x = X[t, b]
                if kind == "rnn":
                    hs = f(cl(Wd @ x + Rd @ hs + Wb + Rb))
                elif kind == "gru":
                    Wz, Wr, Wh = np.split(Wd, 3)
                    Rz, Rr, Rh = np.split(Rd, 3)
                    wbz, wbr, wbh = np.split(Wb, 3)
                    rbz, rbr, rbh = np.split(Rb, 3)
                    z = f(cl(Wz @ x + Rz @ hs + wbz + rbz))
                    r = f(cl(Wr @ x + Rr @ hs + wbr + rbr))
                    if lbr:
                        hh = g(cl(Wh @ x + r * (Rh @ hs + rbh) + wbh))
                    else:
                        hh = g(cl(Wh @ x + Rh @ (r * hs) + rbh + wbh))
                    hs = (1 - z) * hh + z * hs
                else:
                    gates = Wd @ x + Rd @ hs + Wb + Rb
                    gi, go, gf, gc = np.split(gates, 4)
                    pi, po, pf = np.split(P[d], 3) if P is not None else (0, 0, 0)
                    i = f(cl(gi + pi * cs))
                    fg = 1 - i if input_forget else f(cl(gf + pf * cs))
                    cc = g(cl(gc))
                    cs = fg * cs + i * cc
                    o = f(cl(go + po * cs))
                    hs = o * h(cs)
                Y[t, d, b] = hs
            Yh[d, b] = hs
            Yc[d, b] = cs
    if layout:
        return Y.transpose(2, 0, 1, 3), Yh.swapaxes(0, 1), Yc.swapaxes(0, 1)
    return Y, Yh, Yc


def check_against_onnx_helpers():
    X = rng.standard_normal((4, 3, 2))
    W, R, B = (rng.standard_normal(s) * 0.5 for s in ((1, 5, 2), (1, 5, 5), (1, 10)))
    y, yh = RNN_Helper(X=X, W=W, R=R, B=B).step()
    Y, Yh, _ = rnn_ref("rnn", X, W, R, B)
    assert np.allclose(Y, y) and np.allclose(Yh, yh)
    for lbr in (0, 1):
        W, R, B = (rng.standard_normal(s) * 0.5 for s in ((1, 9, 2), (1, 9, 3), (1, 18)))
        h0 = rng.standard_normal((1, 3, 3))
        y, yh = GRU_Helper(X=X, W=W, R=R, B=B, initial_h=h0, linear_before_reset=lbr).step()
        Y, Yh, _ = rnn_ref("gru", X, W, R, B, h0=h0, lbr=lbr)
        assert np.allclose(Y, y) and np.allclose(Yh, yh)
    W, R, B = (rng.standard_normal(s) * 0.5 for s in ((1, 12, 2), (1, 12, 3), (1, 24)))
    P, h0, c0 = (rng.standard_normal(s) for s in ((1, 9), (1, 3, 3), (1, 3, 3)))
    y, yh = LSTM_Helper(X=X, W=W, R=R, B=B, P=P, initial_h=h0, initial_c=c0).step()
    Y, Yh, _ = rnn_ref("lstm", X, W, R, B, P=P, h0=h0, c0=c0)
    assert np.allclose(Y, y) and np.allclose(Yh, yh)


def check_against_torch():
    """Bidirectional, batch-first: torch's GRU is ONNX's linear_before_reset=1 with gates
    (r, z, n) instead of (z, r, h); its LSTM orders gates (i, f, g, o), ONNX (i, o, f, c)."""
    try:
        import torch
    except ImportError:
        print("gen_cases.py: torch not found, cross-check skipped", file=sys.stderr)
        return
    S, Bt, I, H = 5, 3, 4, 3
    X = rng.standard_normal((Bt, S, I))
    for kind, G, perm in (("rnn", 1, [0]), ("gru", 3, [1, 0, 2]), ("lstm", 4, [0, 3, 1, 2])):
        mod = {"rnn": torch.nn.RNN, "gru": torch.nn.GRU, "lstm": torch.nn.LSTM}[kind](
            I, H, bidirectional=True, batch_first=True).double()
        W = np.zeros((2, G * H, I))
        R = np.zeros((2, G * H, H))
        B = np.zeros((2, 2 * G * H))
        for d, suf in enumerate(("", "_reverse")):
            # perm[k]: torch index of ONNX gate k
            def reorder(a):
                parts = np.split(a, G)
                return np.concatenate([parts[p] for p in perm])
            W[d] = reorder(getattr(mod, "weight_ih_l0" + suf).detach().numpy())
            R[d] = reorder(getattr(mod, "weight_hh_l0" + suf).detach().numpy())
            B[d, :G * H] = reorder(getattr(mod, "bias_ih_l0" + suf).detach().numpy())
            B[d, G * H:] = reorder(getattr(mod, "bias_hh_l0" + suf).detach().numpy())
        with torch.no_grad():
            r = mod(torch.from_numpy(X))
        y = r[0].numpy().reshape(Bt, S, 2, H)
        hn = (r[1][0] if kind == "lstm" else r[1]).numpy().swapaxes(0, 1)
        Y, Yh, Yc = rnn_ref(kind, X, W, R, B, direction="bidirectional", layout=1,
                            lbr=1 if kind == "gru" else 0)
        assert np.allclose(Y, y), kind
        assert np.allclose(Yh, hn), kind
        if kind == "lstm":
            assert np.allclose(Yc, r[1][1].numpy().swapaxes(0, 1))


def rnn_case(name, kind, dt, S, Bt, I, H, opset=14, direction="forward", layout=0,
             use_b=True, lens=None, h0=False, c0=False, P=False, acts=None, alphas=None,
             betas=None, clip=None, lbr=None, input_forget=None, hidden_attr=True,
             outs_wanted=(True, True, True), scale=0.6):
    G = {"rnn": 1, "gru": 3, "lstm": 4}[kind]
    D = 2 if direction == "bidirectional" else 1
    xs = (Bt, S, I) if layout else (S, Bt, I)
    ss = (Bt, D, H) if layout else (D, Bt, H)
    Xt, X = fl(rng.standard_normal(xs), dt)
    Wt, W = fl(rng.standard_normal((D, G * H, I)) * scale, dt)
    Rt, R = fl(rng.standard_normal((D, G * H, H)) * scale, dt)
    ins = [Xt, Wt, Rt]
    kw = {}
    Bt_, B = fl(rng.standard_normal((D, 2 * G * H)) * scale, dt) if use_b else (NONE, None)
    ins.append(Bt_)
    ins.append(T(np.array(lens, np.int32)) if lens is not None else NONE)
    h0t, h0v = fl(rng.standard_normal(ss), dt) if h0 else (NONE, None)
    ins.append(h0t)
    if kind == "lstm":
        c0t, c0v = fl(rng.standard_normal(ss), dt) if c0 else (NONE, None)
        Pt, Pv = fl(rng.standard_normal((D, 3 * H)), dt) if P else (NONE, None)
        ins += [c0t, Pt]
        kw = dict(c0=c0v, P=Pv)
    while ins and ins[-1].dt == 0:
        ins.pop()
    attrs = [("direction", "s", direction)]
    if hidden_attr:
        attrs.append(("hidden_size", "i", H))
    if layout:
        attrs.append(("layout", "i", layout))
    if acts:
        attrs.append(("activations", "strings", acts))
    if alphas:
        attrs.append(("activation_alpha", "floats", alphas))
    if betas:
        attrs.append(("activation_beta", "floats", betas))
    if clip is not None:
        attrs.append(("clip", "f", clip))
    if lbr is not None:
        attrs.append(("linear_before_reset", "i", lbr))
    if input_forget is not None:
        attrs.append(("input_forget", "i", input_forget))
    Y, Yh, Yc = rnn_ref(kind, X, W, R, B, lens=lens, h0=h0v, direction=direction, layout=layout,
                        acts=acts, alphas=alphas,
                        betas=betas, clip=clip, lbr=lbr or 0, input_forget=input_forget or 0, **kw)
    res = [Y, Yh, Yc][:3 if kind == "lstm" else 2]
    outs = [out(v, dt) if want else NONE for v, want in zip(res, outs_wanted)]
    while outs and outs[-1].dt == 0:
        outs.pop()
    add(name, {"rnn": "OP_RNN", "gru": "OP_GRU", "lstm": "OP_LSTM"}[kind], opset, attrs, ins,
        outs, dt)


check_against_onnx_helpers()
check_against_torch()

rnn_case("rnn_forward_bias_h0", "rnn", F32, 4, 3, 2, 5, h0=True)
rnn_case("rnn_bidi_layout1_relu_leaky", "rnn", F32, 3, 2, 4, 3, direction="bidirectional",
         layout=1, acts=["Relu", "LeakyRelu"], alphas=[0.1])
rnn_case("rnn_reverse_lens_clip_f64", "rnn", F64, 5, 4, 3, 4, direction="reverse",
         lens=[5, 0, 2, 3], clip=0.7, h0=True, opset=7, scale=1.5)
rnn_case("rnn_no_hidden_attr_y_only", "rnn", F32, 2, 2, 3, 2, hidden_attr=False,
         outs_wanted=(True, False))
rnn_case("gru_lens_h0", "gru", F32, 4, 3, 3, 4, lens=[4, 1, 3], h0=True)
rnn_case("gru_bidi_lbr_layout1_yh_only", "gru", F32, 3, 2, 2, 5, direction="bidirectional",
         layout=1, lbr=1, outs_wanted=(False, True), h0=True)
rnn_case("gru_hardsigmoid_softsign_f16", "gru", F16, 3, 2, 3, 3,
         acts=["HardSigmoid", "Softsign"], alphas=[0.3], betas=[0.4], opset=3)
rnn_case("gru_reverse_clip_bf16", "gru", BF16, 3, 2, 2, 3, direction="reverse", clip=0.5,
         lbr=1, scale=1.5, opset=22)
rnn_case("lstm_full_inputs", "lstm", F32, 4, 3, 3, 3, lens=[4, 2, 0], h0=True, c0=True, P=True)
rnn_case("lstm_bidi_forget_clip_layout1_f64", "lstm", F64, 3, 2, 3, 2,
         direction="bidirectional", layout=1, input_forget=1, clip=1.0, h0=True, c0=True, P=True,
         acts=["Sigmoid", "Tanh", "Tanh", "HardSigmoid", "Elu", "Softplus"],
         alphas=[0.25, 0.5], betas=[0.45], scale=1.5)
rnn_case("lstm_reverse_affine_scaledtanh", "lstm", F32, 3, 2, 2, 3, direction="reverse",
         acts=["Sigmoid", "ScaledTanh", "Affine"], alphas=[0.9, 0.5], betas=[1.2, 0.1],
         outs_wanted=(True, False, True), opset=7)
rnn_case("lstm_thresholded_one_dir_acts_bidi", "lstm", F32, 2, 2, 2, 2,
         direction="bidirectional", acts=["Sigmoid", "ThresholdedRelu", "Softsign"],
         alphas=[0.1])


# ---- writing ----

def cfloat(x):
    s = "%.9g" % x
    return s if any(ch in s for ch in ".en") else s + ".0"


def c_bytes(raw):
    return "{ " + (", ".join(str(b) for b in raw) if raw else "0") + " }"


def tensor_init(t, arr_name):
    dims = ", ".join(str(d) for d in t.shape) or "0"
    return "{ %d, %d, { %s }, %s, %d }" % (t.dt, len(t.shape), dims,
                                            arr_name if t.raw else "NULL", len(t.raw))


print("/* generated by gen_cases.py: numpy reference cases for test_loss_rnn.c */")
print("/* clang-format off */")
for ci, (name, op, opset, attrs, ins, outs, tl) in enumerate(cases):
    for k, t in enumerate(ins + outs):
        if t.raw:
            print("static const uint8_t c%d_t%d[] = %s;" % (ci, k, c_bytes(t.raw)))
    for k, (an, kind, v) in enumerate(attrs):
        if kind == "strings":
            print("static const char *const c%d_a%d[] = { %s };" %
                  (ci, k, ", ".join('"%s"' % s for s in v)))
        elif kind == "floats":
            print("static const float c%d_a%d[] = { %s };" %
                  (ci, k, ", ".join(cfloat(x) + "f" for x in v)))
print("static const TCase cases[] = {")
for ci, (name, op, opset, attrs, ins, outs, tl) in enumerate(cases):
    ti = ["c%d_t%d" % (ci, k) for k in range(len(ins) + len(outs))]
    ai = []
    for k, (an, kind, v) in enumerate(attrs):
        if kind == "i":
            ai.append('{ "%s", RA_INT, %d, 0, NULL, NULL, NULL, 0 }' % (an, v))
        elif kind == "f":
            ai.append('{ "%s", RA_FLOAT, 0, %sf, NULL, NULL, NULL, 0 }' % (an, cfloat(v)))
        elif kind == "s":
            ai.append('{ "%s", RA_STRING, 0, 0, "%s", NULL, NULL, 0 }' % (an, v))
        elif kind == "strings":
            ai.append('{ "%s", RA_STRINGS, 0, 0, NULL, NULL, c%d_a%d, %d }' % (an, ci, k, len(v)))
        else:
            ai.append('{ "%s", RA_FLOATS, 0, 0, NULL, c%d_a%d, NULL, %d }' % (an, ci, k, len(v)))
    print('\t{ "%s", %s, %d, %d, { %s }, %d, { %s }, %d, { %s }, %g, %g },' % (
        name, op, opset, len(ins), ", ".join(tensor_init(t, ti[k]) for k, t in enumerate(ins)),
        len(outs), ", ".join(tensor_init(t, ti[len(ins) + k]) for k, t in enumerate(outs)),
        len(attrs), ", ".join(ai) if ai else "{ NULL, RA_INT, 0, 0, NULL, NULL, NULL, 0 }",
        tl[0], tl[1]))
print("};")
