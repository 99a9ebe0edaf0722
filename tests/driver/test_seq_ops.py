#!/usr/bin/env python3
"""seq_ops: the sequence-model ops of the newest opsets, their outputs from numpy
(float64, rounded to the input type) written from the spec's formulas:
- SwiGLU (28): Y = Swish_alpha(A) * B, same shapes (no broadcasting), alpha default 1;
- CausalConvWithState (27): Y = depthwise Conv1d(Concat(past_state or zeros, input)),
  + bias, SiLU when activation is silu or swish; present_state = the padded input's
  last k - 1 steps. A prefill then a one-step decode fed the prefill's present_state
  equals one pass over the whole sequence;
- LinearAttention (27): the four update rules (linear, gated, delta, gated_delta, the
  default) over packed (batch, seq, heads * size) inputs, with and without past_state,
  decay per head and per key dim, beta per head and shared, an erase gate, grouped-query
  and multi-query heads, an explicit scale; a prefill then a decode step fed the
  prefill's present_state equals one pass;
- FlexAttention (ai.onnx.preview 1): Softmax(Q K^T * scale) V with a score_mod subgraph
  (a softcap with its own constants; a bias read from a graph input) and a prob_mod one
  (a mask captured from the main graph; the identity), GQA, f16 computed in float.

    test_seq_ops.py INGOT WORKDIR

`ingot check` passes each at -O0 and -O2 on --target c, and at -O2 on the x86 targets
this CPU runs (the sanitizer build: c only), within rtol 1e-4 (f16 cases, one of each op:
4e-3, f16 outputs being rounded once). Bad inputs (a rule without its gate input,
a past_state of the wrong shape, a kernel of size 1) give one error line naming the node.
"""
import os

import numpy as np
from onnx import TensorProto, helper

from common import (SANITIZED, check, check_all_pass, cpu_runs, init, main, model, run, rng,
                    stderr_lines, vi, write_test_dir)

F, D, H = TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.FLOAT16
NP2ONNX = {np.float32: F, np.float64: D, np.float16: H}


def swiglu(a, b, alpha=1.0):
    a64 = a.astype(np.float64)
    return (a64 / (1.0 + np.exp(-alpha * a64)) * b).astype(a.dtype)


def causal_conv(x, w, bias=None, past=None, act="none"):
    """Y[b, c, t] = bias[c] + sum_j w[c, 0, j] * P[b, c, t + j], P = past ++ x."""
    bsz, ch, n = x.shape
    k = w.shape[2]
    if past is None:
        past = np.zeros((bsz, ch, k - 1), x.dtype)
    p = np.concatenate([past, x], axis=2).astype(np.float64)
    y = np.zeros((bsz, ch, n))
    for t in range(n):
        y[:, :, t] = np.einsum("bcj,cj->bc", p[:, :, t:t + k], w[:, 0, :].astype(np.float64))
    if bias is not None:
        y += bias.astype(np.float64)[None, :, None]
    if act in ("silu", "swish"):
        y = y / (1.0 + np.exp(-y))
    return y.astype(x.dtype), p[:, :, n:].astype(x.dtype)


def linear_attention(q, k, v, hq, hkv, rule="gated_delta", past=None, decay=None, beta=None,
                     erase=None, scale=0.0):
    """The recurrence of the spec, per batch entry and kv head, in float64."""
    bsz, n, _ = q.shape
    dk = q.shape[2] // hq
    dv = v.shape[2] // hkv
    rep = hq // hkv
    sc = scale if scale else 1.0 / np.sqrt(dk)
    q4 = q.astype(np.float64).reshape(bsz, n, hq, dk)
    k4 = k.astype(np.float64).reshape(bsz, n, hkv, dk)
    v4 = v.astype(np.float64).reshape(bsz, n, hkv, dv)
    y = np.zeros((bsz, n, hq, dv))
    state = np.zeros((bsz, hkv, dk, dv)) if past is None else past.astype(np.float64).copy()
    for b in range(bsz):
        for h in range(hkv):
            s = state[b, h]
            for t in range(n):
                if rule in ("gated", "gated_delta"):
                    g = decay[b, t].astype(np.float64)
                    g = g[h] if g.shape[0] == hkv else g[h * dk:(h + 1) * dk]
                    s = s * np.exp(g).reshape(-1, 1) if np.ndim(g) else s * np.exp(g)
                kt, vt = k4[b, t, h], v4[b, t, h]
                if rule in ("delta", "gated_delta"):
                    bt = beta[b, t, h if beta.shape[2] == hkv else 0]
                    ke = kt if erase is None else kt * erase[b, t, h * dk:(h + 1) * dk]
                    vt = bt * (vt - s.T @ ke)
                s = s + np.outer(kt, vt)
                for r in range(rep):
                    y[b, t, h * rep + r] = sc * (q4[b, t, h * rep + r] @ s)
            state[b, h] = s
    return y.reshape(bsz, n, hq * dv).astype(q.dtype), state.astype(q.dtype)


def cases(work):
    r = rng(27)
    out = {}

    def rnd(*shape, dt=np.float32, scale=1.0):
        return (r.standard_normal(shape) * scale).astype(dt)

    def add(name, nodes, ins, outs, opset, inits=()):
        m = model(nodes, [vi(n, NP2ONNX[v.dtype.type], v.shape) for n, v in ins],
                  [vi(n, NP2ONNX[v.dtype.type], v.shape) for n, v in outs], inits, opset=opset)
        m.ir_version = 11
        out[name] = write_test_dir(work, name, m, [v for _, v in ins], [v for _, v in outs])
        if ins[0][1].dtype == np.float16:     # f16: outputs rounded once, a few f16 steps off
            with open(os.path.join(out[name], "tolerance"), "w") as f:
                f.write("atol = 4e-3\nrtol = 4e-3\n")

    # --- SwiGLU ---
    a, b = rnd(3, 17, scale=3), rnd(3, 17)
    add("swiglu_default", [helper.make_node("SwiGLU", ["a", "b"], ["y"])], [("a", a), ("b", b)],
        [("y", swiglu(a, b))], 28)
    a, b = rnd(2, 3, 4, 5, scale=2), rnd(2, 3, 4, 5)
    add("swiglu_alpha_4d", [helper.make_node("SwiGLU", ["a", "b"], ["y"], alpha=1.7)],
        [("a", a), ("b", b)], [("y", swiglu(a, b, 1.7))], 28)
    a, b = rnd(4, 8, dt=np.float16, scale=2), rnd(4, 8, dt=np.float16)
    add("swiglu_f16", [helper.make_node("SwiGLU", ["a", "b"], ["y"])], [("a", a), ("b", b)],
        [("y", swiglu(a, b))], 28)
    a, b = rnd(6, 9, dt=np.float64, scale=2), rnd(6, 9, dt=np.float64)
    add("swiglu_f64", [helper.make_node("SwiGLU", ["a", "b"], ["y"], alpha=0.5)],
        [("a", a), ("b", b)], [("y", swiglu(a, b, 0.5))], 28)

    # --- CausalConvWithState ---
    x, w, bias = rnd(2, 3, 5), rnd(3, 1, 4), rnd(3)
    y, st = causal_conv(x, w, bias)
    add("ccws_bias_no_state", [helper.make_node("CausalConvWithState", ["x", "w", "bias"],
                                                ["y", "state"])],
        [("x", x), ("w", w), ("bias", bias)], [("y", y), ("state", st)], 27)
    x, w, past = rnd(1, 4, 6), rnd(4, 1, 3), rnd(1, 4, 2)
    y, st = causal_conv(x, w, past=past, act="silu")
    add("ccws_state_silu", [helper.make_node("CausalConvWithState", ["x", "w", "", "past"],
                                             ["y", "state"], activation="silu")],
        [("x", x), ("w", w), ("past", past)], [("y", y), ("state", st)], 27)
    x, w, bias, past = rnd(3, 2, 1), rnd(2, 1, 4), rnd(2), rnd(3, 2, 3)
    y, st = causal_conv(x, w, bias, past, act="swish")
    add("ccws_decode_swish", [helper.make_node("CausalConvWithState", ["x", "w", "bias", "past"],
                                               ["y", "state"], activation="swish")],
        [("x", x), ("w", w), ("bias", bias), ("past", past)], [("y", y), ("state", st)], 27)
    x, w = rnd(2, 5, 7, dt=np.float64), rnd(5, 1, 2, dt=np.float64)
    y, _ = causal_conv(x, w)
    add("ccws_only_y_f64", [helper.make_node("CausalConvWithState", ["x", "w"], ["y"])],
        [("x", x), ("w", w)], [("y", y)], 27)
    x, w, past = rnd(2, 3, 4, dt=np.float16), rnd(3, 1, 3, dt=np.float16), rnd(2, 3, 2, dt=np.float16)
    y, st = causal_conv(x, w, past=past, act="silu")
    add("ccws_f16", [helper.make_node("CausalConvWithState", ["x", "w", "", "past"], ["y", "state"],
                                      activation="silu")],
        [("x", x), ("w", w), ("past", past)], [("y", y), ("state", st)], 27)
    # prefill 4 steps, then decode the 5th from the prefill's state: one pass over 5
    x, w, bias = rnd(2, 3, 5), rnd(3, 1, 3), rnd(3)
    y_all, st_all = causal_conv(x, w, bias, act="silu")
    add("ccws_prefill_then_decode",
        [helper.make_node("CausalConvWithState", ["x0", "w", "bias"], ["y0", "s0"],
                          activation="silu", name="prefill"),
         helper.make_node("CausalConvWithState", ["x1", "w", "bias", "s0"], ["y1", "s1"],
                          activation="silu", name="decode")],
        [("x0", x[:, :, :4]), ("x1", x[:, :, 4:]), ("w", w), ("bias", bias)],
        [("y0", y_all[:, :, :4]), ("y1", y_all[:, :, 4:]), ("s1", st_all)], 27)

    # --- LinearAttention ---
    def qkv(bsz, n, hq, hkv, dk, dv, norm_k=False, dt=np.float32):
        q, k, v = rnd(bsz, n, hq * dk, dt=dt), rnd(bsz, n, hkv * dk, dt=dt), rnd(bsz, n, hkv * dv, dt=dt)
        if norm_k:          # unit keys per head, as the delta rules expect
            k4 = k.reshape(bsz, n, hkv, dk)
            k = (k4 / np.linalg.norm(k4, axis=-1, keepdims=True)).reshape(k.shape).astype(dt)
        return q, k, v

    def la(name, bsz, n, hq, hkv, dk, dv, rule=None, past=False, decay=None, beta=None,
           erase=False, scale=0.0, dt=np.float32):
        q, k, v = qkv(bsz, n, hq, hkv, dk, dv, norm_k=rule in (None, "delta", "gated_delta"), dt=dt)
        ins = [("q", q), ("k", k), ("v", v)]
        names = ["q", "k", "v", "", "", "", ""]
        p = rnd(bsz, hkv, dk, dv, dt=dt, scale=0.5) if past else None
        g = (-r.uniform(0.05, 1.0, (bsz, n, decay))).astype(dt) if decay else None
        bt = r.uniform(0.1, 1.0, (bsz, n, beta)).astype(dt) if beta else None
        e = r.uniform(0.0, 1.0, (bsz, n, hkv * dk)).astype(dt) if erase else None
        for slot, nm, val in ((3, "past", p), (4, "decay", g), (5, "beta", bt), (6, "erase", e)):
            if val is not None:
                names[slot] = nm
                ins.append((nm, val))
        while names[-1] == "":
            names.pop()
        attrs = dict(q_num_heads=hq, kv_num_heads=hkv)
        if rule:
            attrs["update_rule"] = rule
        if scale:
            attrs["scale"] = scale
        y, st = linear_attention(q, k, v, hq, hkv, rule or "gated_delta", p, g, bt, e, scale)
        add(name, [helper.make_node("LinearAttention", names, ["y", "state"], **attrs)], ins,
            [("y", y), ("state", st)], 27)

    la("la_linear", 2, 4, 2, 2, 3, 5, "linear")
    la("la_linear_past_f64", 1, 3, 3, 3, 4, 2, "linear", past=True, dt=np.float64)
    la("la_gated_per_head_gqa", 2, 5, 4, 2, 3, 4, "gated", past=True, decay=2)
    la("la_gated_per_key", 1, 4, 2, 2, 3, 3, "gated", decay=6)
    la("la_delta_past", 2, 4, 2, 2, 4, 3, "delta", past=True, beta=2)
    la("la_gated_delta_default_shared_beta", 2, 3, 2, 2, 4, 4, None, decay=2, beta=1, scale=0.3)
    la("la_gated_delta_erase_mqa", 1, 5, 3, 1, 4, 2, "gated_delta", past=True, decay=4, beta=1,
       erase=True)
    la("la_gated_delta_f16", 2, 3, 2, 2, 4, 3, "gated_delta", past=True, decay=2, beta=2,
       dt=np.float16)
    # prefill 3 steps, then decode the 4th from the prefill's state (multi-query)
    q, k, v = qkv(2, 4, 2, 1, 3, 4, norm_k=True)
    g = (-r.uniform(0.05, 1.0, (2, 4, 1))).astype(np.float32)
    bt = r.uniform(0.1, 1.0, (2, 4, 1)).astype(np.float32)
    y_all, st_all = linear_attention(q, k, v, 2, 1, "gated_delta", None, g, bt)
    attrs = dict(q_num_heads=2, kv_num_heads=1)
    add("la_prefill_then_decode",
        [helper.make_node("LinearAttention", ["q0", "k0", "v0", "", "g0", "b0"], ["y0", "s0"],
                          name="prefill", **attrs),
         helper.make_node("LinearAttention", ["q1", "k1", "v1", "s0", "g1", "b1"], ["y1", "s1"],
                          name="decode", **attrs)],
        [("q0", q[:, :3]), ("k0", k[:, :3]), ("v0", v[:, :3]), ("g0", g[:, :3]), ("b0", bt[:, :3]),
         ("q1", q[:, 3:]), ("k1", k[:, 3:]), ("v1", v[:, 3:]), ("g1", g[:, 3:]), ("b1", bt[:, 3:])],
        [("y0", y_all[:, :3]), ("y1", y_all[:, 3:]), ("s1", st_all)], 27)

    # --- FlexAttention (ai.onnx.preview 1): its score_mod / prob_mod subgraphs inlined ---
    def flex_ref(q, k, v, scale=0.0, smod=None, pmod=None):
        ct = np.float32 if q.dtype == np.float16 else q.dtype
        rep = q.shape[1] // k.shape[1]
        kk = np.repeat(k.astype(np.float64), rep, axis=1)
        vv = np.repeat(v.astype(np.float64), rep, axis=1)
        sc = q.astype(np.float64) @ kk.transpose(0, 1, 3, 2) * (scale or 1.0 / np.sqrt(q.shape[3]))
        sc = smod(sc) if smod else sc
        p = np.exp(sc - sc.max(-1, keepdims=True))
        p /= p.sum(-1, keepdims=True)
        p = pmod(p) if pmod else p
        return (p @ vv).astype(ct).astype(v.dtype)

    def flex(name, q, k, v, body_s=None, body_p=None, extra=(), ref_s=None, ref_p=None, inits=(),
             **attrs):
        t = NP2ONNX[np.float32 if q.dtype == np.float16 else q.dtype.type]
        for key, body in (("score_mod", body_s), ("prob_mod", body_p)):
            if body:
                attrs[key] = helper.make_graph(body[0], key, [vi(body[1], t, None)],
                                               [vi(body[2], t, None)], body[3] if len(body) > 3 else [])
        node = helper.make_node("FlexAttention", ["q", "k", "v"], ["y"], domain="ai.onnx.preview",
                                **attrs)
        y = flex_ref(q, k, v, attrs.get("scale", 0.0), ref_s, ref_p)
        ins = [("q", q), ("k", k), ("v", v)] + list(extra)
        m = model([node], [vi(n, NP2ONNX[a.dtype.type], a.shape) for n, a in ins],
                  [vi("y", NP2ONNX[y.dtype.type], y.shape)], inits, opset=27)
        m.opset_import.append(helper.make_opsetid("ai.onnx.preview", 1))
        m.ir_version = 11
        out[name] = write_test_dir(work, name, m, [a for _, a in ins], [y])
        if q.dtype == np.float16:
            with open(os.path.join(out[name], "tolerance"), "w") as f:
                f.write("atol = 4e-3\nrtol = 4e-3\n")

    flex("flex_plain", rnd(2, 2, 3, 4), rnd(2, 2, 5, 4), rnd(2, 2, 5, 3))
    # a softcap as score_mod (constants inside the subgraph), GQA, an explicit scale
    cap = np.float32(1.5)
    softcap = ([helper.make_node("Div", ["s", "cap"], ["d"]), helper.make_node("Tanh", ["d"], ["t"]),
                helper.make_node("Mul", ["t", "cap"], ["o"])], "s", "o", [init("cap", cap)])
    flex("flex_softcap_gqa", rnd(1, 4, 3, 8, scale=2), rnd(1, 2, 6, 8, scale=2), rnd(1, 2, 6, 5),
         softcap, ref_s=lambda x: np.tanh(x / 1.5) * 1.5, scale=0.6)
    # prob_mod multiplies by a keep mask of the main graph (a captured outer value)
    keep = (r.random((3, 5)) < 0.7).astype(np.float32)
    flex("flex_prob_mod_outer", rnd(2, 2, 3, 4), rnd(2, 1, 5, 4), rnd(2, 1, 5, 4),
         body_p=([helper.make_node("Mul", ["p", "keep"], ["o"])], "p", "o"),
         ref_p=lambda p: p * keep, inits=[init("keep", keep)])
    # f16 inputs (the work in float): score_mod adds a graph input's bias, prob_mod is the
    # identity (its output is its input)
    bias = rnd(1, 1, 2, 4)
    flex("flex_f16_bias_identity", rnd(1, 2, 2, 8, dt=np.float16), rnd(1, 2, 4, 8, dt=np.float16),
         rnd(1, 2, 4, 4, dt=np.float16), ([helper.make_node("Add", ["s", "bias"], ["o"])], "s", "o"),
         ([], "p", "p"), extra=[("bias", bias)], ref_s=lambda x: x + bias)
    return out


def bad_cases(ingot, work):
    """Each bad node gives one error line naming the model and the node, exit 1."""
    r = rng(28)
    q, k, v = [r.standard_normal((1, 2, 4)).astype(np.float32) for _ in range(3)]
    x, w1 = r.standard_normal((1, 2, 3)).astype(np.float32), r.standard_normal((2, 1, 1)).astype(np.float32)
    bad = [
        ("la_no_decay", helper.make_node("LinearAttention", ["q", "k", "v"], ["y"], name="bad_node",
                                         q_num_heads=2, kv_num_heads=2, update_rule="gated"),
         [("q", q), ("k", k), ("v", v)], "requires the decay input"),
        ("la_bad_past", helper.make_node("LinearAttention", ["q", "k", "v", "p"], ["y"], name="bad_node",
                                         q_num_heads=2, kv_num_heads=2, update_rule="linear"),
         [("q", q), ("k", k), ("v", v), ("p", np.zeros((1, 2, 3, 2), np.float32))],
         "expected shape (1, 2, 2, 2)"),
        ("ccws_k1", helper.make_node("CausalConvWithState", ["x", "w"], ["y"], name="bad_node"),
         [("x", x), ("w", w1)], "kernel of size 1"),
        ("swiglu_bcast", helper.make_node("SwiGLU", ["x", "w"], ["y"], name="bad_node"),
         [("x", x), ("w", np.zeros((1, 2, 1), np.float32))], "does not broadcast"),
        ("flex_two_inputs", helper.make_node(
            "FlexAttention", ["q", "k", "v"], ["y"], name="bad_node", domain="ai.onnx.preview",
            score_mod=helper.make_graph([helper.make_node("Add", ["s", "t"], ["o"])], "m",
                                        [vi("s", F, None), vi("t", F, None)], [vi("o", F, None)])),
         [(n, np.zeros((1, 1, 2, 4), np.float32)) for n in "qkv"], "one input and one output"),
        ("flex_reduces", helper.make_node(
            "FlexAttention", ["q", "k", "v"], ["y"], name="bad_node", domain="ai.onnx.preview",
            prob_mod=helper.make_graph([helper.make_node("ReduceSum", ["p"], ["o"], keepdims=0)],
                                       "m", [vi("p", F, None)], [vi("o", F, None)])),
         [(n, np.zeros((1, 1, 2, 4), np.float32)) for n in "qkv"], "must return the (1, 1, 2, 2) f32 tensor"),
    ]
    for name, node, ins, want in bad:
        m = model([node], [vi(n, F, a.shape) for n, a in ins], [vi("y", F, None)], opset=28)
        m.opset_import.append(helper.make_opsetid("ai.onnx.preview", 1))
        m.ir_version = 11
        path = os.path.join(work, name + ".onnx")
        with open(path, "wb") as f:
            f.write(m.SerializeToString())
        rc, out, err = run([ingot, "compile", path, "-o", os.path.join(work, name + "_out"),
                            "--name", "m"])
        lines = stderr_lines(err)
        check(rc in (1, 3) and len(lines) == 1 and "bad_node" in lines[0] and want in lines[0]
              and name + ".onnx" in lines[0],
              "%s: expected one error line with '%s', got rc %d:\n%s" % (name, want, rc, err))


def run_seq_ops(ingot, work):
    all_dirs = list(cases(work).values())
    # the f16 cases carry their own tolerance file (check's flags would override it)
    half = [d for d in all_dirs if os.path.exists(os.path.join(d, "tolerance"))]
    dirs = [d for d in all_dirs if d not in half]
    check(len(half) == 4, "expected 4 f16 cases, got %d" % len(half))

    def check_both(*flags):
        check_all_pass(ingot, dirs, *flags, "--rtol", "1e-4", "--atol", "1e-5")
        check_all_pass(ingot, half, *flags)

    for opt in ("-O0", "-O2"):
        check_both("--target", "c", opt)
    for target in () if SANITIZED else ("x86-avx2", "x86-avx512"):
        if not cpu_runs(target):
            print("seq_ops: %s skipped (this CPU lacks its instructions)" % target)
            continue
        check_both("--target", target, "-O2")
    bad_cases(ingot, work)


main(run_seq_ops)
