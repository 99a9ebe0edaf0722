#!/usr/bin/python3
"""The x86 RNN/GRU/LSTM kernel (runtime-stubs/kernels/x86/rnn.c) against numpy (suite unit).

usage: x86_rnn_test.py INGOT WORKDIR
1. Builds one-node RNN, GRU and LSTM models whose paths the kernel treats apart:
   hidden sizes that leave partial recurrent panels and masked row tails (5, 13,
   37) and ones with full panels (70, 130); forward, reverse and bidirectional;
   sequence_lens with a zero and a full length; clip; initial_h / initial_c;
   peepholes; input_forget; GRU with and without linear_before_reset; both layouts;
   non-default activations with alphas/betas; W and R as constants (packed at
   compile time) and as graph inputs (R packed by the kernel at run time). The
   expected Y, Y_h and Y_c come from the float64 numpy recurrences below, written
   from the ONNX operator definitions. `ingot check` must pass every case with
   --target c, x86-avx2 and x86-avx512 (an x86 target the CPU lacks is not run, and
   the test then exits 77, skipped; cpu.py).
2. The x86 targets call ingot_x86_rnn for the cases it supports (packed = 3 when W
   and R are constants, 0 when they are inputs), the blob holds R as the panels of
   R^T that kernels/x86/rnn.h defines and not R itself, and a node with an Elu
   activation keeps the reference kernel ingot_rnn.
"""
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from cpu import finish, runnable

# the sanitizers of a sanitizer build, for the generated code and kernels (meson.build)
SAN_CFLAGS = ["--cflags", os.environ["INGOT_CHECK_CFLAGS"]] if os.environ.get("INGOT_CHECK_CFLAGS") else []

ingot, work = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(11)
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL " + msg)


# ---- numpy references (float64), from the ONNX operator definitions ----

def act(name, x, alpha, beta):
    if name == "Sigmoid":
        return 1 / (1 + np.exp(-x))
    if name == "Tanh":
        return np.tanh(x)
    if name == "Relu":
        return np.maximum(x, 0)
    if name == "Affine":
        return alpha * x + beta
    if name == "LeakyRelu":
        return np.where(x < 0, alpha * x, x)
    if name == "ThresholdedRelu":
        return np.where(x > alpha, x, 0)
    if name == "ScaledTanh":
        return alpha * np.tanh(beta * x)
    if name == "HardSigmoid":
        return np.clip(alpha * x + beta, 0, 1)
    if name == "Softsign":
        return x / (1 + np.abs(x))
    if name == "Elu":
        return np.where(x < 0, alpha * (np.exp(x) - 1), x)
    raise ValueError(name)


DEFAULT_ALPHA = {"Affine": 1.0, "LeakyRelu": 0.01, "ThresholdedRelu": 1.0, "ScaledTanh": 1.0,
                 "HardSigmoid": 0.2, "Elu": 1.0}
DEFAULT_BETA = {"Affine": 0.0, "ScaledTanh": 1.0, "HardSigmoid": 0.5}


def funcs(names, alphas, betas):
    """(name, alpha, beta) per listed function; alphas/betas consumed in list order."""
    out, ia, ib = [], 0, 0
    for nm in names:
        a, b = DEFAULT_ALPHA.get(nm, 0.0), DEFAULT_BETA.get(nm, 0.0)
        if nm in DEFAULT_ALPHA and ia < len(alphas):
            a, ia = alphas[ia], ia + 1
        if nm in DEFAULT_BETA and ib < len(betas):
            b, ib = betas[ib], ib + 1
        out.append((nm, a, b))
    return out


def recurrence(kind, x, w, r, b, lens, h0, c0, p, fs, clip, lbr, input_forget, rev):
    """One direction over one batch entry: x (seq, input) -> Y rows, h, c."""
    H = r.shape[1]
    cl = (lambda v: np.clip(v, -clip, clip)) if clip else (lambda v: v)
    f = lambda v, i=0: act(fs[i][0], v, fs[i][1], fs[i][2])
    G = {"RNN": 1, "GRU": 3, "LSTM": 4}[kind]
    wb, rb = (b[:G * H], b[G * H:]) if b is not None else (np.zeros(G * H), np.zeros(G * H))
    h, c = h0.copy(), c0.copy()
    y = np.zeros((x.shape[0], H))
    steps = range(lens - 1, -1, -1) if rev else range(lens)
    for t in steps:
        if kind == "RNN":
            h = f(cl(w @ x[t] + r @ h + wb + rb))
        elif kind == "GRU":
            z = f(cl(w[:H] @ x[t] + r[:H] @ h + wb[:H] + rb[:H]))
            rr = f(cl(w[H:2 * H] @ x[t] + r[H:2 * H] @ h + wb[H:2 * H] + rb[H:2 * H]))
            if lbr:
                hh = w[2 * H:] @ x[t] + wb[2 * H:] + rr * (r[2 * H:] @ h + rb[2 * H:])
            else:
                hh = w[2 * H:] @ x[t] + wb[2 * H:] + r[2 * H:] @ (rr * h) + rb[2 * H:]
            hh = f(cl(hh), 1)
            h = (1 - z) * hh + z * h
        else:
            g = w @ x[t] + r @ h + wb + rb
            pi, po, pf = (p[:H], p[H:2 * H], p[2 * H:]) if p is not None else (0, 0, 0)
            i = f(cl(g[:H] + pi * c))
            fg = 1 - i if input_forget else f(cl(g[2 * H:3 * H] + pf * c))
            c = fg * c + i * f(cl(g[3 * H:]), 1)
            o = f(cl(g[H:2 * H] + po * c))
            h = o * f(c, 2)
        y[t] = h
    return y, h, c


def reference(kind, X, W, R, B, lens, h0, c0, P, acts, alphas, betas, clip, lbr, input_forget,
              direction, layout):
    dirs = 2 if direction == "bidirectional" else 1
    x = X.astype(np.float64)
    if layout:
        x = x.transpose(1, 0, 2)                      # (seq, batch, input)
    S, Bn, _ = x.shape
    H = R.shape[2]
    per = {"RNN": 1, "GRU": 2, "LSTM": 3}[kind]
    names = acts or ({"RNN": ["Tanh"], "GRU": ["Sigmoid", "Tanh"],
                      "LSTM": ["Sigmoid", "Tanh", "Tanh"]}[kind] * dirs)
    if len(names) == per and dirs == 2:
        names, alphas, betas = names * 2, list(alphas) * 2, list(betas) * 2
    fs = funcs(names, alphas, betas)
    st = lambda a: (a.transpose(1, 0, 2) if layout else a).astype(np.float64) if a is not None else None
    h0s, c0s = st(h0), st(c0)
    Y = np.zeros((S, dirs, Bn, H))
    YH, YC = np.zeros((dirs, Bn, H)), np.zeros((dirs, Bn, H))
    for d in range(dirs):
        rev = d == 1 or direction == "reverse"
        for bi in range(Bn):
            n = S if lens is None else int(lens[bi])
            y, h, c = recurrence(kind, x[:, bi], W[d].astype(np.float64), R[d].astype(np.float64),
                                 None if B is None else B[d].astype(np.float64), n,
                                 np.zeros(H) if h0s is None else h0s[d, bi],
                                 np.zeros(H) if c0s is None else c0s[d, bi],
                                 None if P is None else P[d].astype(np.float64),
                                 fs[d * per:(d + 1) * per], clip, lbr, input_forget, rev)
            Y[:, d, bi], YH[d, bi], YC[d, bi] = y, h, c
    if layout:
        return Y.transpose(2, 0, 1, 3), YH.transpose(1, 0, 2), YC.transpose(1, 0, 2)
    return Y, YH, YC


# ---- cases ----

def case(name, kind, S, Bn, I, H, direction="forward", layout=0, lens=None, h0=False, c0=False,
         peep=False, bias=True, clip=None, lbr=0, input_forget=0, acts=None, alphas=(), betas=(),
         const=True):
    dirs = 2 if direction == "bidirectional" else 1
    G = {"RNN": 1, "GRU": 3, "LSTM": 4}[kind]
    f = lambda *s: (rng.standard_normal(s) * 0.5).astype(np.float32)
    X = f(Bn, S, I) if layout else f(S, Bn, I)
    W, R = f(dirs, G * H, I), (f(dirs, G * H, H) / np.sqrt(H) * 2).astype(np.float32)
    B = f(dirs, 2 * G * H) if bias else None
    sd = (Bn, dirs, H) if layout else (dirs, Bn, H)
    H0 = f(*sd) if h0 else None
    C0 = f(*sd) if c0 else None
    P = f(dirs, 3 * H) if peep else None
    L = np.array(lens, np.int32) if lens is not None else None
    Y, YH, YC = reference(kind, X, W, R, B, L, H0, C0, P, acts, alphas, betas, clip, lbr,
                          input_forget, direction, layout)
    feeds, inits, ins = [("X", X)], [], ["X"]
    for nm, arr in (("W", W), ("R", R), ("B", B), ("sequence_lens", L), ("initial_h", H0),
                    ("initial_c", C0), ("P", P)):
        if arr is None:
            ins.append("")
        elif const and nm in ("W", "R", "B", "P"):
            inits.append(numpy_helper.from_array(arr, nm))
            ins.append(nm)
        else:
            feeds.append((nm, arr))
            ins.append(nm)
    while ins[-1] == "":
        ins.pop()
    attrs = dict(hidden_size=H, direction=direction)
    if layout:
        attrs["layout"] = 1
    if clip:
        attrs["clip"] = clip
    if kind == "GRU":
        attrs["linear_before_reset"] = lbr
    if kind == "LSTM" and input_forget:
        attrs["input_forget"] = 1
    if acts:
        attrs["activations"] = acts
    if alphas:
        attrs["activation_alpha"] = list(alphas)
    if betas:
        attrs["activation_beta"] = list(betas)
    outs = [("Y", Y), ("Y_h", YH)] + ([("Y_c", YC)] if kind == "LSTM" else [])
    node = helper.make_node(kind, ins, [o[0] for o in outs], **attrs)
    vi = lambda nm, a: helper.make_tensor_value_info(nm, TensorProto.INT32 if a.dtype == np.int32
                                                      else TensorProto.FLOAT, list(a.shape))
    g = helper.make_graph([node], name, [vi(n, a) for n, a in feeds], [vi(n, a) for n, a in outs],
                          inits)
    d = os.path.join(work, "data", name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)]),
              os.path.join(d, "model.onnx"))
    for i, (nm, a) in enumerate(feeds):
        with open(os.path.join(d, "test_data_set_0", "input_%d.pb" % i), "wb") as fh:
            fh.write(numpy_helper.from_array(a, nm).SerializeToString())
    for i, (nm, a) in enumerate(outs):
        with open(os.path.join(d, "test_data_set_0", "output_%d.pb" % i), "wb") as fh:
            fh.write(numpy_helper.from_array(a.astype(np.float32), nm).SerializeToString())
    return d, R


def make_cases():
    shutil.rmtree(os.path.join(work, "data"), ignore_errors=True)
    return {
        # odd hidden size (partial panel, masked tails), both directions, lengths with 0,
        # clip, initial states, peepholes; W and R constants (packed at compile time)
        "lstm_bidir_peep": case("lstm_bidir_peep", "LSTM", 6, 3, 7, 13, "bidirectional",
                                lens=[6, 2, 0], h0=True, c0=True, peep=True, clip=1.5),
        # full recurrent panels plus an edge, batch 2, layout 1, reverse, inputs at run time
        "lstm_rev_layout1": case("lstm_rev_layout1", "LSTM", 5, 2, 9, 130, "reverse", layout=1,
                                 h0=True, const=False),
        # input_forget, non-default activations with alphas/betas, one direction's list
        # for both directions, layout 1 with lengths, no bias
        "lstm_acts_forget": case("lstm_acts_forget", "LSTM", 4, 2, 3, 5, "bidirectional",
                                 layout=1, lens=[3, 4], input_forget=1, bias=False,
                                 acts=["HardSigmoid", "ScaledTanh", "Softsign"],
                                 alphas=[0.3, 0.8], betas=[0.4, 1.2], c0=True),
        "gru_bidir_lens": case("gru_bidir_lens", "GRU", 7, 3, 6, 37, "bidirectional",
                               lens=[7, 0, 4], h0=True, clip=2.0, layout=1),
        "gru_lbr_full": case("gru_lbr_full", "GRU", 5, 2, 11, 70, lbr=1, h0=True),
        "gru_lbr_reverse_inputs": case("gru_lbr_reverse_inputs", "GRU", 4, 1, 4, 13, "reverse",
                                       lbr=1, const=False, acts=["Relu", "LeakyRelu"],
                                       alphas=[0.2]),
        "rnn_bidir_relu": case("rnn_bidir_relu", "RNN", 6, 2, 5, 33, "bidirectional",
                               lens=[2, 6], h0=True, acts=["Relu", "Tanh"]),
        "rnn_thr_clip": case("rnn_thr_clip", "RNN", 5, 3, 4, 17, layout=1, clip=0.7,
                               acts=["ThresholdedRelu"], alphas=[0.1], const=False),
        "rnn_affine": case("rnn_affine", "RNN", 3, 1, 2, 3, acts=["Affine"], alphas=[0.5],
                           betas=[0.25]),
        # Elu: the x86 targets keep the reference kernel
        "gru_elu_ref": case("gru_elu_ref", "GRU", 3, 2, 4, 6, acts=["Elu", "Tanh"], alphas=[0.7]),
    }


def check_code(target, name, d, R, lanes, want_packed):
    """The emitted call and, for packed R, the blob's layout of it."""
    out = os.path.join(work, "out-" + target)
    shutil.rmtree(out, ignore_errors=True)
    r = subprocess.run([ingot, "compile", os.path.join(d, "model.onnx"), "-o", out, "--name", "m",
                        "--target", target, "--weights", "incbin"],   # sources: the call and the blob
                       capture_output=True, text=True)
    if r.returncode:
        fail("%s %s: compile failed: %s" % (target, name, r.stderr))
        return
    code = open(os.path.join(out, "m.c")).read()
    if want_packed is None:
        if "ingot_x86_rnn(" in code or not re.search(r"\bingot_rnn\(", code):
            fail("%s %s: expected the reference kernel ingot_rnn" % (target, name))
        return
    if not re.search(r"\bingot_x86_rnn\(", code) or (".packed = %d," % want_packed) not in code:
        fail("%s %s: m.c does not call ingot_x86_rnn with packed = %d" % (target, name, want_packed))
    if want_packed != 3:
        return
    nb, H = 8 * lanes, R.shape[2]                   # INGOT_X86_RNN_NV vectors per panel
    split = {1: H, 3: 2 * H, 4: 4 * H}[R.shape[1] // H]
    panels = []
    for rd in R:
        j0 = 0
        while j0 < rd.shape[0]:
            end = split if j0 < split else rd.shape[0]
            w = min(nb, end - j0)
            panels.append(rd[j0:j0 + w].T.ravel())
            j0 += w
    packed = np.concatenate(panels).astype(np.float32).tobytes()
    blob = open(os.path.join(out, "m_weights.bin"), "rb").read()
    if blob.find(packed) < 0 or blob.find(R.tobytes()) >= 0:
        fail("%s %s: R is not packed as %d-row panels of R^T" % (target, name, nb))


def main():
    os.makedirs(work, exist_ok=True)
    cases = make_cases()
    dirs = [d for d, _ in cases.values()]
    run_on, skipped = runnable(["x86-avx2", "x86-avx512"])
    targets = [("c", 0)] + [(t, {"x86-avx2": 8, "x86-avx512": 16}[t]) for t in run_on]
    for target, lanes in targets:
        r = subprocess.run([ingot, "check"] + dirs + ["--target", target, "-j", "2"] + SAN_CFLAGS,
                           capture_output=True, text=True)
        print(r.stdout.strip())
        if r.returncode or len(re.findall(r"^PASS ", r.stdout, re.M)) != len(dirs):
            fail("%s: ingot check failed:\n%s%s" % (target, r.stdout, r.stderr))
        if not lanes:
            continue
        for name, (d, R) in cases.items():
            want = None if name.endswith("_ref") else (0 if "inputs" in name or name in (
                "lstm_rev_layout1", "rnn_thr_clip") else 3)
            check_code(target, name, d, R, lanes, want)
    finish(failures, skipped)


main()
