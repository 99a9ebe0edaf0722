#!/usr/bin/env python3
"""malformed: a corpus of damaged models, generated here at test time (nothing is
committed), one or more per damage class of issue 17: truncations, bit flips, bad
dtypes and dims (negative, 2^62, 10^12-element ConstantOfShape and Range), raw_data of
the wrong length, cycles, undefined values, If nested 100 deep, protobuf nesting
100,000 deep, external data escaping its folder (.., absolute paths, symlinks,
/dev/zero, a FIFO, a directory, past the end of the file), bad opsets, attributes of
the wrong type, a node 10^5 inputs wide and a graph 10^5 nodes wide, 10 MB names.

Each model goes through `ingot inspect` and `ingot compile --emit c`. Each run must
exit 0, or exit 1-3 with exactly one stderr line (warnings aside) that names the file
and is at most 1024 characters long (diag.c's cap: a 10 MB name is cut); never a signal, a sanitizer or assertion report,
more than TIME_LIMIT seconds or more than RSS_LIMIT of peak memory (GNU time's
figure; the address space is capped too, so a blow-up fails instead of swapping).
A few classes must fail (undefined values, cycles, escapes...): `want_error`.

usage: test_malformed.py INGOT WORKDIR
"""
import os
import random
import resource
import subprocess
import time

from onnx import TensorProto, helper

from common import SANITIZED, Fail, check, main, model, save, vi

T = TensorProto
TIME_LIMIT = 60 if SANITIZED else 20        # seconds a run; plain runs take < 3 s
RSS_LIMIT_MB = 3072 if SANITIZED else 1024  # peak RSS a run
VERBOSE = os.environ.get("MALFORMED_VERBOSE") == "1"   # a line per run


def varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(num, payload):
    """A length-delimited protobuf field."""
    return varint(num << 3 | 2) + varint(len(payload)) + payload


def nest(core, n, layers):
    """core wrapped n times in layers [(head, field number), ...], outermost first:
    each level is head0 + field(num0, head1 + field(num1, ... inner)). Built from the
    inside out with lengths only, so the cost is linear in the depth."""
    pieces, length = [], len(core)
    for _ in range(n):
        for head, num in reversed(layers):
            p = head + varint(num << 3 | 2) + varint(length)
            pieces.append(p)
            length += len(p)
    return b"".join(reversed(pieces)) + core


def relu_chain(n=3, shape=(2, 3)):
    nodes = [helper.make_node("Relu", ["x" if i == 0 else "h%d" % (i - 1)],
                              ["y" if i == n - 1 else "h%d" % i], name="r%d" % i) for i in range(n)]
    return model(nodes, [vi("x", T.FLOAT, list(shape))], [vi("y", T.FLOAT, list(shape))])


def base_model():
    """A valid model with an initializer, an attribute and an If: what damage hits."""
    import numpy as np
    from onnx import numpy_helper
    then_g = helper.make_graph([helper.make_node("Relu", ["m"], ["t"])], "then", [],
                               [vi("t", T.FLOAT, [2, 4])])
    else_g = helper.make_graph([helper.make_node("Neg", ["m"], ["e"])], "else", [],
                               [vi("e", T.FLOAT, [2, 4])])
    nodes = [helper.make_node("MatMul", ["x", "w"], ["m"], name="mm"),
             helper.make_node("If", ["c"], ["i"], then_branch=then_g, else_branch=else_g, name="if"),
             helper.make_node("Softmax", ["i"], ["y"], axis=-1, name="sm")]
    w = numpy_helper.from_array(np.arange(12, dtype=np.float32).reshape(3, 4), "w")
    return model(nodes, [vi("x", T.FLOAT, [2, 3]), vi("c", T.BOOL, [])],
                 [vi("y", T.FLOAT, [2, 4])], [w])


def const_node(name, out, arr):
    import numpy as np
    from onnx import numpy_helper
    return helper.make_node("Constant", [], [out], name=name,
                            value=numpy_helper.from_array(np.asarray(arr), out + "_v"))


def cases(work):
    """Yields (name, path, want_error)."""
    import numpy as np
    from onnx import numpy_helper
    d = os.path.join(work, "corpus")
    os.makedirs(d)
    rnd = random.Random(17)

    def put(name, m, want_error=False, sub=None):
        folder = os.path.join(d, sub) if sub else d
        os.makedirs(folder, exist_ok=True)
        p = os.path.join(folder, name + ".onnx")
        if isinstance(m, (bytes, bytearray)):
            with open(p, "wb") as f:
                f.write(m)
        else:
            save(m, p)
        return (name, p, want_error)

    base = base_model().SerializeToString()
    # truncations and bit flips of a valid model
    for k, cut in enumerate(sorted(rnd.sample(range(1, len(base)), 12))):
        yield put("truncated_%d" % k, base[:cut])
    yield put("empty", b"", True)
    for k in range(16):
        b = bytearray(base)
        for _ in range(1 + k % 4):
            b[rnd.randrange(len(b))] ^= 1 << rnd.randrange(8)
        yield put("bitflip_%d" % k, bytes(b))
    yield put("garbage", bytes(rnd.randrange(256) for _ in range(4096)), True)

    # bad dtypes and dims
    yield put("dtype_0", model([helper.make_node("Relu", ["x"], ["y"])], [vi("x", 0, [2])],
                               [vi("y", T.FLOAT, [2])]), True)
    yield put("dtype_99", model([helper.make_node("Relu", ["x"], ["y"])], [vi("x", 99, [2])],
                                [vi("y", T.FLOAT, [2])]), True)
    bad_init = numpy_helper.from_array(np.zeros(2, np.float32), "w")
    bad_init.data_type = 1000
    yield put("init_dtype_1000", model([helper.make_node("Add", ["x", "w"], ["y"])],
                                       [vi("x", T.FLOAT, [2])], [vi("y", T.FLOAT, [2])], [bad_init]), True)
    for tag, dims in (("negative", [-5, 3]), ("2p62", [1 << 62]), ("overflow", [1 << 31] * 3),
                      ("zero", [0, 3])):
        yield put("input_dims_" + tag, relu_chain(1, dims), tag != "zero")
    w = numpy_helper.from_array(np.zeros(4, np.float32), "w")
    del w.dims[:]
    w.dims.extend([-1, -4])
    yield put("init_dims_negative", model([helper.make_node("Add", ["x", "w"], ["y"])],
                                          [vi("x", T.FLOAT, [4])], [vi("y", T.FLOAT, [4])], [w]), True)
    w = numpy_helper.from_array(np.zeros(4, np.float32), "w")
    del w.dims[:]
    w.dims.extend([1 << 62, 4])
    yield put("init_dims_2p62", model([helper.make_node("Add", ["x", "w"], ["y"])],
                                      [vi("x", T.FLOAT, [4])], [vi("y", T.FLOAT, [4])], [w]), True)
    yield put("constantofshape_1e12", model(
        [const_node("s", "shape", np.array([1000000, 1000000], np.int64)),
         helper.make_node("ConstantOfShape", ["shape"], ["c"], name="cos"),
         helper.make_node("Add", ["x", "c"], ["y"], name="add")],
        [vi("x", T.FLOAT, [1])], [vi("y", T.FLOAT, None)]), True)
    yield put("range_1e12", model(
        [const_node("a", "start", np.array(0, np.int64)), const_node("b", "limit", np.array(10 ** 12, np.int64)),
         const_node("d", "delta", np.array(1, np.int64)),
         helper.make_node("Range", ["start", "limit", "delta"], ["r"], name="range"),
         helper.make_node("Cast", ["r"], ["y"], to=T.FLOAT, name="cast")],
        [], [vi("y", T.FLOAT, None)]), True)
    yield put("range_2p62_runtime", model(
        [const_node("b", "limit", np.array(1 << 62, np.int64)), const_node("d", "delta", np.array(1, np.int64)),
         helper.make_node("Range", ["x", "limit", "delta"], ["y"], name="range")],
        [vi("x", T.INT64, [])], [vi("y", T.INT64, None)]), True)

    # raw_data of the wrong length
    for tag, n in (("short", 12), ("long", 20), ("empty", 0)):
        w = numpy_helper.from_array(np.zeros(4, np.float32), "w")
        w.raw_data = b"\0" * n
        yield put("raw_data_" + tag, model([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
                                           [vi("x", T.FLOAT, [4])], [vi("y", T.FLOAT, [4])], [w]), True)

    # cycles and undefined values
    yield put("cycle", model([helper.make_node("Add", ["x", "b"], ["a"], name="n1"),
                              helper.make_node("Relu", ["a"], ["b"], name="n2"),
                              helper.make_node("Relu", ["a"], ["y"], name="n3")],
                             [vi("x", T.FLOAT, [2])], [vi("y", T.FLOAT, [2])]), True)
    yield put("self_loop", model([helper.make_node("Add", ["x", "y"], ["y"], name="n1")],
                                 [vi("x", T.FLOAT, [2])], [vi("y", T.FLOAT, [2])]), True)
    yield put("undefined_input", model([helper.make_node("Add", ["x", "nowhere"], ["y"], name="n1")],
                                       [vi("x", T.FLOAT, [2])], [vi("y", T.FLOAT, [2])]), True)
    yield put("undefined_output", model([helper.make_node("Relu", ["x"], ["h"], name="n1")],
                                        [vi("x", T.FLOAT, [2])], [vi("y", T.FLOAT, [2])]), True)
    yield put("duplicate_output", model([helper.make_node("Relu", ["x"], ["y"], name="n1"),
                                         helper.make_node("Neg", ["x"], ["y"], name="n2")],
                                        [vi("x", T.FLOAT, [2])], [vi("y", T.FLOAT, [2])]), True)

    # If nested 100 deep through the then branches (valid; each else branch is a Neg:
    # the same graph in both would double the file at every level)
    def leaf(lvl):
        return helper.make_graph([helper.make_node("Neg", ["x"], ["e%d" % lvl])], "e%d" % lvl, [],
                                 [vi("e%d" % lvl, T.FLOAT, [2])])
    inner = helper.make_graph([helper.make_node("Relu", ["x"], ["o100"])], "g100", [],
                              [vi("o100", T.FLOAT, [2])])
    for lvl in range(99, 0, -1):
        inner = helper.make_graph([helper.make_node("If", ["c"], ["o%d" % lvl], then_branch=inner,
                                                    else_branch=leaf(lvl), name="if%d" % lvl)],
                                  "g%d" % lvl, [], [vi("o%d" % lvl, T.FLOAT, [2])])
    yield put("if_nested_100", model([helper.make_node("If", ["c"], ["y"], then_branch=inner,
                                                       else_branch=leaf(0), name="if0")],
                                     [vi("x", T.FLOAT, [2]), vi("c", T.BOOL, [])],
                                     [vi("y", T.FLOAT, [2])]))
    # protobuf nesting 100,000 deep: If -> AttributeProto.g -> GraphProto.node -> ...,
    # and a TypeProto of sequences 100,000 deep (built from the inside out)
    node = nest(field(4, b"Relu") + field(1, b"x") + field(2, b"y"), 50000,
                [(field(1, b"c") + field(2, b"y") + field(4, b"If"), 5),
                 (field(1, b"then_branch") + varint(20 << 3) + varint(5), 6), (b"", 1)])
    graph = field(1, node) + field(11, field(1, b"c")) + field(12, field(1, b"y"))
    yield put("proto_nested_100000", varint(1 << 3) + varint(8) + field(8, field(1, b"") + varint(2 << 3) +
                                                                      varint(13)) + field(7, graph), True)
    tp = nest(field(1, varint(1 << 3) + varint(1)), 100000, [(b"", 4), (b"", 1)])
    graph = field(1, field(1, b"x") + field(2, b"y") + field(4, b"Identity")) + \
        field(11, field(1, b"x") + field(2, tp)) + field(12, field(1, b"y"))
    yield put("type_nested_100000", varint(1 << 3) + varint(8) + field(8, field(1, b"") + varint(2 << 3) +
                                                                     varint(13)) + field(7, graph), True)

    # external data: every location that leaves the model's folder or is no file
    ext = os.path.join(d, "ext")
    os.makedirs(os.path.join(ext, "sub"))
    with open(os.path.join(d, "outside.bin"), "wb") as f:
        f.write(b"\0" * 16)
    with open(os.path.join(ext, "w.bin"), "wb") as f:
        f.write(b"\0" * 16)
    os.symlink(os.path.join(ext, "w.bin"), os.path.join(ext, "link.bin"))
    os.symlink(os.path.join(d), os.path.join(ext, "linkdir"))
    os.symlink("/dev/zero", os.path.join(ext, "zero.bin"))
    os.mkfifo(os.path.join(ext, "fifo.bin"))

    def ext_model(location, offset=None, length=None):
        w = numpy_helper.from_array(np.zeros(4, np.float32), "w")
        w.ClearField("raw_data")
        w.data_location = T.EXTERNAL
        for k, v in (("location", location), ("offset", offset), ("length", length)):
            if v is not None:
                e = w.external_data.add()
                e.key, e.value = k, str(v)
        return model([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
                     [vi("x", T.FLOAT, [4])], [vi("y", T.FLOAT, [4])], [w])

    yield put("ext_ok", ext_model("w.bin"), False, "ext")
    for tag, loc in (("dotdot", "../outside.bin"), ("dotdot_deep", "sub/../../outside.bin"),
                     ("absolute", os.path.join(d, "outside.bin")), ("etc", "/etc/passwd"),
                     ("symlink", "link.bin"), ("symlink_dir", "linkdir/outside.bin"),
                     ("dev_zero_link", "zero.bin"), ("dev_zero", "/dev/zero"), ("fifo", "fifo.bin"),
                     ("directory", "sub"), ("missing", "nothere.bin"), ("empty_name", "")):
        yield put("ext_" + tag, ext_model(loc), True, "ext")
    yield put("ext_past_end", ext_model("w.bin", 8, 16), True, "ext")
    yield put("ext_offset_2p62", ext_model("w.bin", 1 << 62), True, "ext")
    yield put("ext_length_negative", ext_model("w.bin", 0, -16), True, "ext")

    # bad opsets
    for tag, ops in (("0", [helper.make_opsetid("", 0)]), ("10000", [helper.make_opsetid("", 10000)]),
                     ("negative", [helper.make_opsetid("", -3)]), ("none", []),
                     ("unknown_domain", [helper.make_opsetid("", 13), helper.make_opsetid("x.y", 1)])):
        g = relu_chain(1).graph
        m = helper.make_model(g, opset_imports=ops)
        yield put("opset_" + tag, m, tag not in ("unknown_domain", "none"))
    yield put("gelu_opset_9", model([helper.make_node("Gelu", ["x"], ["y"], name="g0")],
                                    [vi("x", T.FLOAT, [2])], [vi("y", T.FLOAT, [2])], opset=9), True)

    # attributes of the wrong type
    x4 = [vi("x", T.FLOAT, [1, 1, 4, 4])]
    y4 = [vi("y", T.FLOAT, None)]
    yield put("attr_float_for_ints", model([helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=2.5,
                                                             name="p")], x4, y4), True)
    yield put("attr_string_for_int", model([helper.make_node("Softmax", ["x"], ["y"], axis="one",
                                                             name="s")], x4, y4), True)
    yield put("attr_graph_for_ints", model([helper.make_node("Transpose", ["x"], ["y"],
                                                             perm=relu_chain(1).graph, name="t")], x4, y4), True)
    yield put("attr_axis_huge", model([helper.make_node("Softmax", ["x"], ["y"], axis=1 << 62,
                                                        name="s")], x4, y4), True)
    yield put("attr_unknown", model([helper.make_node("Relu", ["x"], ["y"], bogus=3, name="r")], x4, y4))

    # 10^5 wide: one node with 10^5 inputs, one graph with 10^5 parallel nodes
    n = 100000
    yield put("node_1e5_inputs", model([helper.make_node("Concat", ["x"] * n, ["y"], axis=0, name="cat")],
                                       [vi("x", T.FLOAT, [1])], [vi("y", T.FLOAT, [n])]))
    # (10^4 nodes here: at 10^5, `inspect` of this graph ran over 20 s; see docs/testing.md)
    wide = [helper.make_node("Relu", ["x"], ["h%d" % i], name="r%d" % i) for i in range(n // 10)]
    level = ["h%d" % i for i in range(n // 10)]
    while len(level) > 1:    # a tree of 32-input Sums (the most a Sum takes) down to y
        nxt = []
        for k in range(0, len(level), 32):
            out = "y" if len(level) <= 32 else "%s_s%d" % (level[0], k)
            wide.append(helper.make_node("Sum", level[k:k + 32], [out], name="sum_" + out))
            nxt.append(out)
        level = nxt
    yield put("graph_1e4_wide", model(wide, [vi("x", T.FLOAT, [2])], [vi("y", T.FLOAT, [2])]))
    yield put("sum_1e5_inputs", model([helper.make_node("Sum", ["x"] * n, ["y"], name="s")],
                                      [vi("x", T.FLOAT, [2])], [vi("y", T.FLOAT, [2])]))
    # 10 MB names: a node, a value, an op type
    big = "n" * (10 << 20)
    yield put("name_10mb_node", model([helper.make_node("Relu", ["x"], ["y"], name=big)],
                                      [vi("x", T.FLOAT, [2])], [vi("y", T.FLOAT, [2])]))
    yield put("name_10mb_value", model([helper.make_node("Relu", ["x"], [big], name="r"),
                                        helper.make_node("Neg", [big], ["y"], name="n")],
                                       [vi("x", T.FLOAT, [2])], [vi("y", T.FLOAT, [2])]))
    yield put("name_10mb_op", model([helper.make_node(big, ["x"], ["y"], name="r")],
                                    [vi("x", T.FLOAT, [2])], [vi("y", T.FLOAT, [2])]), True)


def limits():
    if not SANITIZED:   # ASan reserves terabytes of address space: RSS is checked instead
        cap = (RSS_LIMIT_MB * 4) << 20
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    resource.setrlimit(resource.RLIMIT_CPU, (TIME_LIMIT * 2, TIME_LIMIT * 2))


def run_one(argv):
    """(rc, stderr lines without GNU time's, peak RSS in MB, seconds)."""
    t0 = time.time()
    try:
        r = subprocess.run(["/usr/bin/time", "-f", "ingot-maxrss %M"] + argv, capture_output=True,
                           timeout=TIME_LIMIT, preexec_fn=limits)
    except subprocess.TimeoutExpired:
        raise Fail("over %d s: %s" % (TIME_LIMIT, " ".join(argv)))
    secs = time.time() - t0
    err = r.stderr.decode("utf-8", "replace").splitlines()
    rss = [l for l in err if l.startswith("ingot-maxrss ")]
    check(rss, "no GNU time figure from %s: %s" % (argv, err[-5:]))
    err = [l for l in err if l.strip() and not l.startswith("ingot-maxrss ") and
           not l.startswith("Command ")]      # GNU time's "Command terminated by signal"
    return r.returncode, err, int(rss[-1].split()[1]) // 1024, secs


def test(ingot, work):
    os.environ["ASAN_OPTIONS"] = os.environ.get("ASAN_OPTIONS", "") + ":hard_rss_limit_mb=%d" % RSS_LIMIT_MB
    out = os.path.join(work, "out")
    n_ok = n_err = 0
    worst = (0, "")
    slowest = (0.0, "")
    t0 = time.time()
    for name, path, want_error in cases(work):
        for argv in ([ingot, "inspect", path], [ingot, "compile", path, "--emit", "c", "-o", out, "--name", "m"]):
            rc, err, mb, secs = run_one(argv)
            if VERBOSE:
                print("%-24s %-8s exit %d, %4d MB, %5.2f s  %s" % (name, argv[1], rc, mb, secs,
                                                               err[0][40:260] if err else ""), flush=True)
            shown = "%s -> exit %d, stderr:\n%s" % (" ".join(argv[:3]), rc, "\n".join(l[:300] for l in err[:10]))
            check(0 <= rc <= 3, "crashed or killed: %s" % shown)
            for bad in ("Sanitizer", "runtime error:", "Assertion", "internal error"):
                check(not any(bad in l for l in err), "%s report: %s" % (bad, shown))
            check(mb <= RSS_LIMIT_MB, "peak RSS %d MB > %d MB: %s" % (mb, RSS_LIMIT_MB, shown))
            errors = [l for l in err if "warning" not in l]
            if rc != 0:
                check(len(errors) == 1, "%s: expected one error line, got %d: %s" % (name, len(errors), shown))
                check(len(errors[0]) <= 1024, "%s: an error line of %d chars: %s" % (name, len(errors[0]), shown))
                check(os.path.basename(path) in errors[0],
                      "%s: the error does not name the file: %s" % (name, shown))
                n_err += 1
            else:
                check(not errors, "%s: exit 0 with stderr: %s" % (name, shown))
                n_ok += 1
            if want_error and argv[1] == "compile":
                check(rc != 0, "%s: should be an error: %s" % (name, shown))
            worst = max(worst, (mb, name))
            slowest = max(slowest, (secs, name))
    print("malformed: %d runs exited 0, %d gave one error line; peak RSS %d MB (%s), slowest %.2f s (%s), "
          "%.1f s in all" % (n_ok, n_err, worst[0], worst[1], slowest[0], slowest[1], time.time() - t0))


if __name__ == "__main__":
    main(test)
