#!/usr/bin/env python3
"""inspect: `ingot inspect m.onnx --json` prints one valid JSON object with the keys
of the CLI contract; params and MACs match what we compute by formula for a
Conv+Gemm model, a grouped-conv/1x1/Gemm/MatMul model and a ConvTranspose model; the
memory numbers are consistent (workspace = arena + scratch = NAME_WORKSPACE_SIZE,
peak live <= arena, naive = sum of the intermediates at -O0); kernel scratch follows
the target's lowering (the NEON GEMM's packing buffers with --target neon/neon32)."""
import json
import os
import re

from onnx import TensorProto, helper

from common import (Fail, check, header_macro, ingot_compile, init, main, model, randf, rng, run,
                    run_ok, save, stderr_lines, vi)

KEYS = ["params", "weights_bytes", "macs", "arena_bytes", "scratch_bytes", "workspace_bytes",
        "naive_bytes", "peak_live_bytes"]
N = helper.make_node
F = TensorProto.FLOAT


def inspect_json(ingot, path, *extra):
    out, err = run_ok([ingot, "inspect", path, "--json"] + list(extra))
    try:
        obj = json.loads(out)
    except ValueError as e:
        raise Fail("not valid JSON (%s): %r" % (e, out))
    check(isinstance(obj, dict), "inspect --json printed %r, not an object" % type(obj))
    for k in KEYS:
        check(k in obj, "inspect --json lacks %r: %s" % (k, out))
        check(isinstance(obj[k], int) and obj[k] >= 0, "%s = %r is not a byte/count" % (k, obj[k]))
    check(obj["workspace_bytes"] == obj["arena_bytes"] + obj["scratch_bytes"],
          "workspace_bytes %d != arena %d + scratch %d" % (obj["workspace_bytes"], obj["arena_bytes"],
                                                           obj["scratch_bytes"]))
    check(obj["peak_live_bytes"] <= obj["arena_bytes"], "peak_live_bytes %d > arena_bytes %d" %
          (obj["peak_live_bytes"], obj["arena_bytes"]))
    check(obj["peak_live_bytes"] <= obj["naive_bytes"], "peak_live_bytes %d > naive_bytes %d" %
          (obj["peak_live_bytes"], obj["naive_bytes"]))
    return obj


def expect_counts(obj, what, params, macs, n_consts):
    check(obj["params"] == params, "%s: params %d, expected %d" % (what, obj["params"], params))
    check(obj["macs"] == macs, "%s: macs %d, expected %d" % (what, obj["macs"], macs))
    lo, hi = params * 4, params * 4 + 64 * n_consts   # f32, each constant 64-aligned
    check(lo <= obj["weights_bytes"] < hi, "%s: weights_bytes %d, expected %d..%d" %
          (what, obj["weights_bytes"], lo, hi - 1))


def test(ingot, work):
    r = rng(5)
    # ---- Conv (3->8, 3x3, stride 2, pad 1) + Relu + Flatten + Gemm (512->10, transB) ----
    m = model([N("Conv", ["x", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1], strides=[2, 2]),
               N("Relu", ["c"], ["cr"], name="relu"),
               N("Flatten", ["cr"], ["fl"], name="flat"),
               N("Gemm", ["fl", "w2", "b2"], ["y"], name="fc", transB=1)],
              [vi("x", F, [1, 3, 16, 16])], [vi("y", F, [1, 10])],
              [init("w", randf(r, 8, 3, 3, 3)), init("b", randf(r, 8)),
               init("w2", randf(r, 10, 512)), init("b2", randf(r, 10))])
    p = save(m, os.path.join(work, "cg.onnx"))
    params = 8 * 3 * 3 * 3 + 8 + 10 * 512 + 10
    macs = (8 * 8 * 8) * (3 * 3 * 3) + 10 * 512
    act = 8 * 8 * 8 * 4                       # every intermediate is f32[1,8,8,8] / [1,512]
    for level in ("-O0", "-O2"):
        obj = inspect_json(ingot, p, level)
        expect_counts(obj, "conv+gemm " + level, params, macs, 4)
        check(obj["peak_live_bytes"] >= act, "%s: peak_live_bytes %d < one activation (%d)" %
              (level, obj["peak_live_bytes"], act))
        check(obj["arena_bytes"] <= obj["naive_bytes"] + 3 * 64,
              "%s: arena_bytes %d > naive_bytes %d + alignment" % (level, obj["arena_bytes"],
                                                                  obj["naive_bytes"]))
    obj0 = inspect_json(ingot, p, "-O0")
    check(obj0["naive_bytes"] == 3 * act, "-O0: naive_bytes %d, expected 3 intermediates = %d" %
          (obj0["naive_bytes"], 3 * act))
    check(obj0["peak_live_bytes"] in (act, 2 * act),
          "-O0: peak_live_bytes %d, expected %d (two adjacent f32[1,8,8,8] live; %d if Flatten aliases)"
          % (obj0["peak_live_bytes"], 2 * act, act))
    # the header agrees with inspect (same default options)
    obj = inspect_json(ingot, p)
    d = os.path.join(work, "cg")
    ingot_compile(ingot, p, d, "cg")
    check(header_macro(d, "cg", "WORKSPACE_SIZE") == obj["workspace_bytes"],
          "CG_WORKSPACE_SIZE %d != inspect workspace_bytes %d" %
          (header_macro(d, "cg", "WORKSPACE_SIZE"), obj["workspace_bytes"]))
    check(header_macro(d, "cg", "WEIGHTS_SIZE") == obj["weights_bytes"],
          "CG_WEIGHTS_SIZE %d != inspect weights_bytes %d" %
          (header_macro(d, "cg", "WEIGHTS_SIZE"), obj["weights_bytes"]))
    # the text form reports the same numbers
    out, _ = run_ok([ingot, "inspect", p])
    check(re.search(r"^params:\s+%d " % params, out, re.M) and re.search(r"^macs:\s+%d$" % macs, out, re.M),
          "inspect text output lacks 'params: %d' / 'macs: %d':\n%s" % (params, macs, out))

    # ---- depthwise conv, 1x1 conv, Gemm, MatMul (batch 2) ----
    m = model([N("Conv", ["x", "wd"], ["d"], name="dw", group=4),
               N("Conv", ["d", "wp", "bp"], ["pw"], name="pw"),
               N("Flatten", ["pw"], ["fl"], name="flat"),
               N("Gemm", ["fl", "wg", "bg"], ["g"], name="fc"),
               N("MatMul", ["g", "wm"], ["y"], name="mm")],
              [vi("x", F, [2, 4, 10, 10])], [vi("y", F, [2, 3])],
              [init("wd", randf(r, 4, 1, 3, 3)), init("wp", randf(r, 6, 4, 1, 1)), init("bp", randf(r, 6)),
               init("wg", randf(r, 384, 5)), init("bg", randf(r, 5)), init("wm", randf(r, 5, 3))])
    p = save(m, os.path.join(work, "mix.onnx"))
    params = 4 * 9 + (6 * 4 + 6) + (384 * 5 + 5) + 5 * 3
    macs = (2 * 4 * 8 * 8) * 9 + (2 * 6 * 8 * 8) * 4 + 2 * 5 * 384 + 2 * 3 * 5
    expect_counts(inspect_json(ingot, p), "dw+pw+gemm+matmul", params, macs, 6)

    # ---- kernel scratch is planned from the target's own lowering: the reference
    # kernels of these ops need none, the NEON GEMM core packs B (KC x NC floats), A
    # (KC x MR) and one MR x NR tile per call, sized for any generated blocking
    # (neon/gemm.h: KC 256, NC 48, MR_MAX 16, NR_MAX 16) and the deepest product, here
    # the Gemm's k = 384 > KC ----
    neon_scratch = 4 * (256 * 48 + 256 * 16 + 16 * 16)
    obj = inspect_json(ingot, p, "--target", "c")
    check(obj["scratch_bytes"] == 0, "--target c: scratch_bytes %d, expected 0" % obj["scratch_bytes"])
    for t in ("neon32", "neon"):
        obj = inspect_json(ingot, p, "--target", t)
        check(obj["scratch_bytes"] == neon_scratch,
              "--target %s: scratch_bytes %d, expected the NEON packing buffers, %d" %
              (t, obj["scratch_bytes"], neon_scratch))
    d = os.path.join(work, "mix_neon")
    ingot_compile(ingot, p, d, "mix", "--target", "neon")
    check(header_macro(d, "mix", "WORKSPACE_SIZE") == obj["workspace_bytes"],
          "--target neon: MIX_WORKSPACE_SIZE %d != inspect workspace_bytes %d" %
          (header_macro(d, "mix", "WORKSPACE_SIZE"), obj["workspace_bytes"]))
    # a depthwise Conv runs without packing; a 1x1 Conv of depth 4 packs 4-deep panels
    m = model([N("Conv", ["x", "wd"], ["y"], name="dw", group=4)],
              [vi("x", F, [1, 4, 10, 10])], [vi("y", F, [1, 4, 8, 8])],
              [init("wd", randf(r, 4, 1, 3, 3))])
    obj = inspect_json(ingot, save(m, os.path.join(work, "dw.onnx")), "--target", "neon")
    check(obj["scratch_bytes"] == 0, "depthwise Conv, --target neon: scratch_bytes %d, expected 0" %
          obj["scratch_bytes"])
    m = model([N("Conv", ["x", "wp"], ["y"], name="pw")],
              [vi("x", F, [1, 4, 10, 10])], [vi("y", F, [1, 6, 10, 10])],
              [init("wp", randf(r, 6, 4, 1, 1))])
    obj = inspect_json(ingot, save(m, os.path.join(work, "pw.onnx")), "--target", "neon")
    pw_scratch = 4 * (4 * 48 + 4 * 16 + 16 * 16)
    check(obj["scratch_bytes"] == (pw_scratch + 63) // 64 * 64,
          "1x1 Conv of depth 4, --target neon: scratch_bytes %d, expected %d rounded up to 64" %
          (obj["scratch_bytes"], pw_scratch))

    # ---- ConvTranspose: each input element scatters Cout/group * kh * kw ----
    m = model([N("ConvTranspose", ["x", "w", "b"], ["y"], name="deconv", strides=[2, 2])],
              [vi("x", F, [1, 2, 4, 4])], [vi("y", F, [1, 3, 9, 9])],
              [init("w", randf(r, 2, 3, 3, 3)), init("b", randf(r, 3))])
    p = save(m, os.path.join(work, "deconv.onnx"))
    expect_counts(inspect_json(ingot, p), "convtranspose", 2 * 3 * 9 + 3, (2 * 4 * 4) * (3 * 9), 2)

    # ---- LSTM: every step multiplies X by W and H by R, for all gates and directions ----
    seq, batch, inp, hid = 7, 2, 5, 6
    m = model([N("LSTM", ["x", "w", "r"], ["", "h"], name="lstm", hidden_size=hid,
                 direction="bidirectional")],
              [vi("x", F, [seq, batch, inp])], [vi("h", F, [2, batch, hid])],
              [init("w", randf(r, 2, 4 * hid, inp)), init("r", randf(r, 2, 4 * hid, hid))])
    p = save(m, os.path.join(work, "lstm.onnx"))
    expect_counts(inspect_json(ingot, p), "lstm", 2 * 4 * hid * (inp + hid),
                  seq * batch * 2 * 4 * hid * (inp + hid), 2)

    # ---- a bad model: exit 1, one line, nothing on stdout ----
    bad = os.path.join(work, "bad.onnx")
    with open(bad, "wb") as f:
        f.write(b"\x0a\xff\xff\xff")
    rc, out, err = run([ingot, "inspect", bad, "--json"])
    check(rc == 1 and out == "" and len(stderr_lines(err)) == 1 and "bad.onnx" in err,
          "inspect of a malformed model: exit %d, stdout %r, stderr %r" % (rc, out, err))


if __name__ == "__main__":
    main(test)
