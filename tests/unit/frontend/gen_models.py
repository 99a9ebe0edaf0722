#!/usr/bin/env python3
"""Generates the frontend test models (valid, malformed and hostile) into OUTDIR,
writes OUTDIR/manifest.txt (one line per model: EXPECT FILE [SUBSTRING]) and runs
the C test on OUTDIR. Nothing here is committed as a binary: the models are rebuilt
at test time.

EXPECT: ok | fail (exactly one error line, containing SUBSTRING) |
        unsupported:N (N DC_UNSUPPORTED errors) | any (no crash, leak or abort)

usage: gen_models.py OUTDIR TEST_EXE
"""
import os
import random
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = sys.argv[1]
manifest = []


def path(name):
    p = os.path.join(OUT, name)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    return p


def save(name, model_or_bytes, expect, sub=""):
    data = model_or_bytes if isinstance(model_or_bytes, bytes) else model_or_bytes.SerializeToString()
    with open(path(name), "wb") as f:
        f.write(data)
    manifest.append((expect, name, sub))
    return data


def model(nodes, inputs, outputs, inits=(), opset=13, ir_version=8, **kw):
    g = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)] if opset else [],
                          producer_name="gen", producer_version="1.0", **kw)
    m.ir_version = ir_version
    return m


def vi(name, dt, shape):
    return helper.make_tensor_value_info(name, dt, shape)


def raw_tensor(name, dt, dims, raw):
    t = TensorProto()
    t.name = name
    t.data_type = dt
    t.dims.extend(dims)
    t.raw_data = raw
    return t


# wire-format helpers for hand-made bytes
def varint(v):
    out = bytearray()
    v &= (1 << 64) - 1
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def fld(num, wt, payload):
    if wt == 2:
        return varint(num << 3 | 2) + varint(len(payload)) + payload
    return varint(num << 3 | wt) + payload


# ---------------------------------------------------------------- valid models

X = vi("x", TensorProto.FLOAT, ["N", 3])
Y = vi("y", TensorProto.FLOAT, None)

# basic: y = Relu(x + b), a symbolic leading dim, an unnamed node
b = numpy_helper.from_array(np.array([1, 2, 3], np.float32), "b")
basic = model([helper.make_node("Add", ["x", "b"], ["s"], name="add0"),
               helper.make_node("Relu", ["s"], ["y"])],
              [X], [vi("y", TensorProto.FLOAT, ["N", 3])], [b])
basic_bytes = save("basic.onnx", basic, "ok")

# every dtype in every storage form; element i of each is val(i) (see test_frontend.c)
DTS = {  # name: (onnx dtype, numpy dtype, typed field)
    "f32": (TensorProto.FLOAT, np.float32, "float_data"),
    "u8": (TensorProto.UINT8, np.uint8, "int32_data"),
    "i8": (TensorProto.INT8, np.int8, "int32_data"),
    "u16": (TensorProto.UINT16, np.uint16, "int32_data"),
    "i16": (TensorProto.INT16, np.int16, "int32_data"),
    "i32": (TensorProto.INT32, np.int32, "int32_data"),
    "i64": (TensorProto.INT64, np.int64, "int64_data"),
    "bool": (TensorProto.BOOL, np.bool_, "int32_data"),
    "f16": (TensorProto.FLOAT16, np.float16, "int32_data"),
    "f64": (TensorProto.DOUBLE, np.float64, "double_data"),
    "u32": (TensorProto.UINT32, np.uint32, "uint64_data"),
    "u64": (TensorProto.UINT64, np.uint64, "uint64_data"),
    "bf16": (TensorProto.BFLOAT16, None, "int32_data"),
}


def val(i, name):
    if name == "bool":
        return i % 2
    v = (i * 37) % 11
    signed = name in ("f32", "i8", "i16", "i32", "i64", "f16", "f64", "bf16")
    return v - 5 if signed else v


def bf16_bits(x):
    return int(np.array([x], np.float32).view(np.uint32)[0] >> 16)


inits, outs = [], []
for name, (dt, npdt, field) in DTS.items():
    vals = [val(i, name) for i in range(6)]
    if name == "bf16":
        bits = np.array([bf16_bits(v) for v in vals], np.uint16)
        raw, typed = bits.tobytes(), [int(x) for x in bits]
    else:
        arr = np.array(vals).astype(npdt)
        raw = arr.astype(arr.dtype.newbyteorder("<")).tobytes()
        if name == "f16":
            typed = [int(x) for x in arr.view(np.uint16)]
        else:
            typed = [x.item() for x in arr]
            if name == "bool":
                typed = [int(x) for x in typed]
    inits.append(raw_tensor(name + "_raw", dt, [2, 3], raw))
    t = TensorProto()
    t.name, t.data_type = name + "_typed", dt
    t.dims.extend([2, 3])
    getattr(t, field).extend(typed)
    inits.append(t)
    outs += [vi(name + "_raw", dt, [2, 3]), vi(name + "_typed", dt, [2, 3])]
big = TensorProto()
big.name, big.data_type = "u64_big", TensorProto.UINT64
big.uint64_data.extend([2**63 + 5])
inits.append(big)
outs.append(vi("u64_big", TensorProto.UINT64, []))
empty = raw_tensor("empty", TensorProto.FLOAT, [0, 4], b"")
inits.append(empty)
outs.append(vi("empty", TensorProto.FLOAT, [0, 4]))
save("dtypes.onnx", model([], [], outs, inits), "ok")

# Constant nodes in every attribute form
ct = helper.make_tensor("v", TensorProto.INT32, [2, 2], [1, 2, 3, 4])
consts = model([
    helper.make_node("Constant", [], ["c_tensor"], value=ct),
    helper.make_node("Constant", [], ["c_float"], value_float=2.5),
    helper.make_node("Constant", [], ["c_floats"], value_floats=[1.0, 2.0, 3.0]),
    helper.make_node("Constant", [], ["c_int"], value_int=7),
    helper.make_node("Constant", [], ["c_ints"], value_ints=[4, 5]),
    helper.make_node("Identity", ["c_float"], ["y"], name="id0"),
], [], [Y, vi("c_tensor", TensorProto.INT32, [2, 2]), vi("c_ints", TensorProto.INT64, [2])])
save("constants.onnx", consts, "ok")

# inputs for --shape/--dim/--bind (driven by the C test)
inputs = model([helper.make_node("Identity", [n], [n + "_o"]) for n in "abcd"],
               [vi("a", TensorProto.FLOAT, ["batch", 3]), vi("b", TensorProto.INT64, ["batch", "seq"]),
                vi("c", TensorProto.FLOAT, []), vi("d", TensorProto.INT64, [2])],
               [vi(n + "_o", TensorProto.FLOAT, None) for n in "abcd"])
save("inputs.onnx", inputs, "fail", "dim 1 ('seq') is symbolic")
with open(path("bind_d.pb"), "wb") as f:
    f.write(numpy_helper.from_array(np.array([11, 12], np.int64), "d").SerializeToString())
np.save(path("bind_d.npy"), np.array([21, 22], np.int64))
np.save(path("bind_d_f32.npy"), np.array([1, 2], np.float32))

# a graph input with an initializer is a constant, not a model input
w = numpy_helper.from_array(np.array([5, 6], np.float32), "w")
save("init_input.onnx", model([helper.make_node("Add", ["x2", "w"], ["y"])],
                              [vi("x2", TensorProto.FLOAT, [2]), vi("w", TensorProto.FLOAT, [2])],
                              [Y], [w]), "ok")

# omitted optional inputs: a middle one and trailing ones
mn = numpy_helper.from_array(np.array(0, np.float32), "mn")
mx = numpy_helper.from_array(np.array(6, np.float32), "mx")
save("optional.onnx", model([helper.make_node("Clip", ["x", "", "mx"], ["y1"], name="clip_mid"),
                             helper.make_node("Clip", ["x", "mn", ""], ["y"], name="clip_trail")],
                            [X], [Y, vi("y1", TensorProto.FLOAT, None)], [mn, mx]), "ok")

# attributes of every kind the ops here use: ints, int, float, string, tensor
attrs = model([
    helper.make_node("Transpose", ["x"], ["t"], perm=[1, 0]),
    helper.make_node("Gemm", ["t", "gw"], ["gm"], alpha=0.5, transB=1),
    helper.make_node("Pad", ["x", "pads"], ["p"], mode="reflect"),
    helper.make_node("ConstantOfShape", ["shp"], ["y"],
                     value=helper.make_tensor("val", TensorProto.FLOAT, [1], [3.0])),
], [X], [Y, vi("gm", TensorProto.FLOAT, None), vi("p", TensorProto.FLOAT, None)],
    [numpy_helper.from_array(np.ones((4, 1), np.float32), "gw"),
     numpy_helper.from_array(np.array([0, 1, 0, 1], np.int64), "pads"),
     numpy_helper.from_array(np.array([2, 2], np.int64), "shp")])
save("attrs.onnx", attrs, "ok")

# no opset_import for ai.onnx: opset 1; only another domain: still 1
save("no_opset.onnx", model([helper.make_node("Relu", ["x"], ["y"])], [X], [Y], opset=0), "ok")
m = model([helper.make_node("Relu", ["x"], ["y"])], [X], [Y], opset=0)
m.opset_import.extend([helper.make_opsetid("com.microsoft", 1)])
save("ms_opset_only.onnx", m, "ok")

# external data: inside the directory (offset/length; whole file), and escapes
os.makedirs(path("ext/x"), exist_ok=True)
with open(path("ext/weights.bin"), "wb") as f:
    f.write(b"\xAA" * 16 + np.array([1.5, 2.5, 3.5, 4.5], np.float32).tobytes() + b"\xBB" * 8)
with open(path("ext/w2.bin"), "wb") as f:
    f.write(np.array([7, 8], np.int64).tobytes())
with open(path("outside.bin"), "wb") as f:
    f.write(np.zeros(4, np.float32).tobytes())
with open(path("ext/x/w.bin"), "wb") as f:
    f.write(np.ones(4, np.float32).tobytes())


def ext_tensor(name, dt, dims, **kv):
    t = TensorProto()
    t.name, t.data_type = name, dt
    t.dims.extend(dims)
    t.data_location = TensorProto.EXTERNAL
    for k, v in kv.items():
        e = t.external_data.add()
        e.key, e.value = k, str(v)
    return t


def ext_model(name, tensors, expect, sub=""):
    outs = [vi(t.name, t.data_type, list(t.dims)) for t in tensors]
    save(name, model([], [], outs, tensors), expect, sub)


ext_model("ext/model.onnx", [ext_tensor("w", TensorProto.FLOAT, [4], location="weights.bin", offset=16, length=16),
                             ext_tensor("w2", TensorProto.INT64, [2], location="w2.bin")], "ok")
ext_model("ext/subdir_ok.onnx", [ext_tensor("w2", TensorProto.INT64, [2], location="x/../w2.bin")], "ok")
ext_model("ext/subdir_file.onnx", [ext_tensor("w", TensorProto.FLOAT, [4], location="./x//w.bin")], "ok")
ext_model("ext/escape.onnx", [ext_tensor("w", TensorProto.FLOAT, [4], location="../outside.bin")],
          "fail", "outside the model's directory")
ext_model("ext/absolute.onnx", [ext_tensor("w", TensorProto.FLOAT, [4], location=path("outside.bin"))],
          "fail", "cannot open external data")
if os.path.lexists(path("ext/link.bin")):
    os.remove(path("ext/link.bin"))
os.symlink("../outside.bin", path("ext/link.bin"))
ext_model("ext/symlink.onnx", [ext_tensor("w", TensorProto.FLOAT, [4], location="link.bin")],
          "fail", "a symbolic link on its path")
# a link to a directory inside, and a FIFO (opening it must not block the load)
if os.path.lexists(path("ext/xlink")):
    os.remove(path("ext/xlink"))
os.symlink("x", path("ext/xlink"))
ext_model("ext/symlink_dir.onnx", [ext_tensor("w", TensorProto.FLOAT, [4], location="xlink/w.bin")],
          "fail", "a symbolic link on its path")
if os.path.lexists(path("ext/fifo")):
    os.remove(path("ext/fifo"))
os.mkfifo(path("ext/fifo"))
ext_model("ext/fifo.onnx", [ext_tensor("w", TensorProto.FLOAT, [4], location="fifo")],
          "fail", "not a regular file (a FIFO)")
ext_model("ext/past_end.onnx", [ext_tensor("w", TensorProto.FLOAT, [4], location="weights.bin",
                                           offset=32, length=16)], "fail", "past the end")
ext_model("ext/huge_off.onnx", [ext_tensor("w", TensorProto.FLOAT, [4], location="weights.bin",
                                           offset=2**63 - 8, length=16)], "fail", "past the end")
ext_model("ext/len_mismatch.onnx", [ext_tensor("w", TensorProto.FLOAT, [4], location="weights.bin",
                                               length=8)], "fail", "expected 16")
ext_model("ext/missing.onnx", [ext_tensor("w", TensorProto.FLOAT, [4], location="nope.bin")],
          "fail", "cannot open external data")
ext_model("ext/no_location.onnx", [ext_tensor("w", TensorProto.FLOAT, [4], offset=0)],
          "fail", "without a location")
ext_model("ext/bad_offset.onnx", [ext_tensor("w", TensorProto.FLOAT, [4], location="weights.bin",
                                             offset="-4")], "fail", "bad external data offset")
ext_model("ext/dir.onnx", [ext_tensor("w", TensorProto.FLOAT, [4], location="x")],
          "fail", "not a regular file (a directory)")
ext_model("ext/dot.onnx", [ext_tensor("w", TensorProto.FLOAT, [4], location="./x/..")],
          "fail", "not a regular file (a directory)")
ext_model("ext/escape_deep.onnx", [ext_tensor("w", TensorProto.FLOAT, [4], location="x/../../outside.bin")],
          "fail", "outside the model's directory")

# ---------------------------------------------------------------- opsets
# an op below the opset that introduced it (compiler/ir/op_since.c) is an error naming
# the op and both opsets; at its first opset it imports
Y2 = vi("y", TensorProto.FLOAT, ["N", 3])
save("opset_gelu9.onnx", model([helper.make_node("Gelu", ["x"], ["y"], name="g0")], [X], [Y2], opset=9),
     "fail", "Gelu exists from opset 20; the model imports ai.onnx opset 9")
save("opset_gelu20.onnx", model([helper.make_node("Gelu", ["x"], ["y"], name="g0")], [X], [Y2], opset=20),
     "ok")
save("opset_layernorm16.onnx", model([helper.make_node("LayerNormalization", ["x", "sc"], ["y"], name="ln")],
                                     [X], [Y2], [helper.make_tensor("sc", TensorProto.FLOAT, [3], [1, 1, 1])],
                                     opset=16),
     "fail", "LayerNormalization exists from opset 17; the model imports ai.onnx opset 16")

# ---------------------------------------------------------------- unsupported

save("unsupported.onnx", model([
    helper.make_node("FooOp", ["x"], ["f"], name="foo1"),
    helper.make_node("Gelu", ["f"], ["g"], domain="com.microsoft"),
    helper.make_node("Relu", ["g"], ["r"]),
    helper.make_node("BarOp", ["r"], ["y"], name="bar1"),
], [X], [Y]), "unsupported:3")
sub = helper.make_graph([helper.make_node("Identity", ["x"], ["z"])], "body", [], [vi("z", TensorProto.FLOAT, None)])
save("graph_attr.onnx", model([helper.make_node("Relu", ["x"], ["y"], body=sub)], [X], [Y]),
     "unsupported:1", "subgraph")
# control flow imports its branches as nested regions; an outer-scope name resolves
save("if.onnx", model([helper.make_node("If", ["c"], ["y"], then_branch=sub, else_branch=sub)],
                      [vi("c", TensorProto.BOOL, []), X], [Y]), "ok")
SY = vi("y", TensorProto.STRING, None)
save("const_string.onnx", model([helper.make_node("Constant", [], ["y"], value_string="hi")], [], [SY]), "ok")
save("const_strings.onnx", model([helper.make_node("Constant", [], ["y"], value_strings=["a", ""])], [], [SY]),
     "ok")
save("const_string_long.onnx", model([helper.make_node("Constant", [], ["y"], value_strings=["a", "b" * 64])],
                                     [], [SY]), "fail", "string element 1 has 64 bytes, at most 63")
sp = helper.make_sparse_tensor(helper.make_tensor("v", TensorProto.FLOAT, [1], [1.0]),
                               helper.make_tensor("i", TensorProto.INT64, [1], [0]), [3])
save("const_sparse.onnx", model([helper.make_node("Constant", [], ["y"], sparse_value=sp)], [], [Y]),
     "fail", "sparse constants")
save("string_init.onnx", model([], [], [vi("s", TensorProto.STRING, [1])],
                               [helper.make_tensor("s", TensorProto.STRING, [1], [b"x"])]), "ok")
short_s = helper.make_tensor("s", TensorProto.STRING, [1], [b"x"])
short_s.dims[0] = 2
save("string_init_count.onnx", model([], [], [vi("s", TensorProto.STRING, [2])], [short_s]),
     "fail", "string_data has 1 elements, expected 2")
bad_s = helper.make_tensor("s", TensorProto.FLOAT, [1], [1.0])
bad_s.string_data.append(b"x")
save("string_data_float.onnx", model([], [], [Y], [bad_s]), "fail", "string_data given for a FLOAT tensor")
save("complex_init.onnx", model([], [], [Y], [helper.make_tensor("y", TensorProto.COMPLEX64, [1], [1 + 2j])]),
     "fail", "COMPLEX64")
save("float8_init.onnx", model([], [], [vi("y", 17, [2])], [raw_tensor("y", 17, [2], b"\x38\xb8")], ir_version=9),
     "ok")
save("int4_init.onnx", model([], [], [vi("y", 22, [3])], [raw_tensor("y", 22, [3], b"\x8f\x07")], ir_version=10),
     "ok")
save("int4_init_short.onnx", model([], [], [vi("y", 22, [3])], [raw_tensor("y", 22, [3], b"\x8f")],
                                   ir_version=10), "fail", "raw_data has 1 bytes, expected 2")
save("e8m0_init.onnx", model([], [], [vi("y", 24, [2])], [raw_tensor("y", 24, [2], b"\x00\xff")], ir_version=11),
     "ok")
save("int2_init.onnx", model([], [], [vi("y", 26, [5])], [raw_tensor("y", 26, [5], b"\x1b\x02")], ir_version=11),
     "ok")
save("int2_init_short.onnx", model([], [], [vi("y", 25, [5])], [raw_tensor("y", 25, [5], b"\x1b")],
                                   ir_version=11), "fail", "raw_data has 1 bytes, expected 2")
save("input_string.onnx", model([], [vi("y", TensorProto.STRING, [1])], [SY]), "ok")
seq = helper.make_tensor_sequence_value_info("y", TensorProto.FLOAT, [1])
save("input_seq.onnx", model([], [seq], [Y]), "fail", "sequence input: give its length")
segt = raw_tensor("y", TensorProto.FLOAT, [1], b"\0\0\0\0")
segt.segment.begin, segt.segment.end = 0, 1
save("segment.onnx", model([], [], [Y], [segt]), "fail", "segmented")
tens_attr = helper.make_attribute("ts", [helper.make_tensor("a", TensorProto.FLOAT, [1], [1.0])])
n = helper.make_node("Relu", ["x"], ["y"])
n.attribute.append(tens_attr)
save("tensors_attr.onnx", model([n], [X], [Y]), "fail", "TENSORS attributes")

# ---------------------------------------------------------------- malformed graphs


def bad_init(name, t, sub):
    save(name, model([], [], [vi(t.name or "y", t.data_type or 1, None)], [t]), "fail", sub)


t = TensorProto(); t.name, t.data_type = "y", 1; t.dims.extend([2**40, 2**40, 2**40])
bad_init("huge_dims_init.onnx", t, "overflows")
bad_init("huge_dims_raw.onnx", raw_tensor("y", 1, [2**40], b"\0" * 4), "raw_data has 4 bytes")
bad_init("neg_dim_init.onnx", raw_tensor("y", 1, [-1], b""), "negative dim -1")
bad_init("rank9.onnx", raw_tensor("y", 1, [1] * 9, b"\0" * 4), "rank 9 exceeds")
bad_init("wrong_len_raw.onnx", raw_tensor("y", 1, [2, 2], b"\0" * 12), "raw_data has 12 bytes, expected 16")
t = TensorProto(); t.name, t.data_type = "y", TensorProto.INT64; t.dims.extend([2, 2]); t.int64_data.extend([1, 2, 3])
bad_init("wrong_len_typed.onnx", t, "int64_data has 3 elements, expected 4")
t = TensorProto(); t.name, t.data_type = "y", TensorProto.INT32; t.dims.extend([1]); t.float_data.extend([1])
bad_init("wrong_field.onnx", t, "float_data cannot hold INT32")
t = raw_tensor("y", 1, [1], b"\0" * 4); t.float_data.extend([1])
bad_init("both_fields.onnx", t, "both raw_data and float_data")
bad_init("no_data.onnx", raw_tensor("y", 1, [2], b""), "has no data")
bad_init("undef_dtype.onnx", raw_tensor("y", 0, [1], b"\0"), "UNDEFINED")
bad_init("dtype_99.onnx", raw_tensor("y", 99, [1], b"\0"), "unknown element type 99")
t = raw_tensor("y", 1, [1], b"\0" * 4); t.ClearField("data_type")
bad_init("no_dtype.onnx", t, "no data_type")
bad_init("no_name_init.onnx", raw_tensor("", 1, [1], b"\0" * 4), "initializer has no name")
save("dup_init.onnx", model([], [], [Y], [raw_tensor("y", 1, [1], b"\0" * 4)] * 2), "fail", "defined twice")
save("huge_dims_input.onnx", model([helper.make_node("Relu", ["x"], ["y"])],
                                   [vi("x", TensorProto.FLOAT, [2**62, 16])], [Y]), "fail", "overflows")
save("neg_dim_input.onnx", model([helper.make_node("Relu", ["x"], ["y"])],
                                 [vi("x", TensorProto.FLOAT, [-3])], [Y]), "fail", "negative dim -3")
save("input_no_name.onnx", model([], [vi("", TensorProto.FLOAT, [1])], [Y]), "fail", "graph input has no name")
save("dup_input.onnx", model([helper.make_node("Relu", ["x"], ["y"])], [X, X], [Y]), "fail", "listed twice")
noty = onnx.ValueInfoProto(); noty.name = "x"
save("input_no_type.onnx", model([helper.make_node("Relu", ["x"], ["y"])], [noty], [Y]), "fail", "has no type")
noshape = vi("x", TensorProto.FLOAT, None)
save("input_no_shape.onnx", model([helper.make_node("Relu", ["x"], ["y"])], [noshape], [Y]), "fail", "has no shape")
save("input_bad_dtype.onnx", model([helper.make_node("Relu", ["x"], ["y"])], [vi("x", 99, [1])], [Y]),
     "fail", "unknown element type 99")
save("input_inner_sym.onnx", model([helper.make_node("Relu", ["x"], ["y"])],
                                   [vi("x", TensorProto.FLOAT, [1, "H"])], [Y]), "fail", "dim 1 ('H') is symbolic")
save("output_no_name.onnx", model([helper.make_node("Relu", ["x"], ["y"])], [X], [vi("", 1, None)]),
     "fail", "graph output has no name")
save("output_missing.onnx", model([helper.make_node("Relu", ["x"], ["y"])], [X], [vi("zzz", 1, None)]),
     "fail", "not produced by any node")
save("no_outputs.onnx", model([helper.make_node("Relu", ["x"], ["y"])], [X], []), "fail", "no outputs")
save("no_op_type.onnx", model([helper.make_node("", ["x"], ["y"])], [X], [Y]), "fail", "no op_type")
save("undef_input.onnx", model([helper.make_node("Relu", ["nope"], ["y"], name="r")], [X], [Y]),
     "fail", "input 0 'nope': not defined")
save("unsorted.onnx", model([helper.make_node("Relu", ["h"], ["y"]), helper.make_node("Relu", ["x"], ["h"])],
                            [X], [Y]), "fail", "topologically")
save("dup_output.onnx", model([helper.make_node("Relu", ["x"], ["y"]), helper.make_node("Relu", ["x"], ["y"])],
                              [X], [Y]), "fail", "already defined")
save("output_shadows_input.onnx", model([helper.make_node("Relu", ["x"], ["x"])], [X], [X]),
     "fail", "already defined")
save("arity.onnx", model([helper.make_node("Relu", ["x", "x"], ["y"])], [X], [Y]), "fail", "has 2 inputs, expected 1")
save("arity_out.onnx", model([helper.make_node("Relu", ["x"], ["y", "z"])], [X], [Y]), "fail", "has 2 outputs")
save("const_two_outs.onnx", model([helper.make_node("Constant", [], ["y", "z"], value_int=1)], [], [Y]),
     "fail", "exactly one named output")
save("const_no_attr.onnx", model([helper.make_node("Constant", [], ["y"])], [], [Y]), "fail", "exactly one value")
save("const_bad_attr.onnx", model([helper.make_node("Constant", [], ["y"], value_int=1.5)], [], [Y]),
     "fail", "not a valid Constant value attribute")
n = helper.make_node("Relu", ["x"], ["y"]); n.attribute.add().type = onnx.AttributeProto.INT
save("attr_no_name.onnx", model([n], [X], [Y]), "fail", "attribute has no name")
n = helper.make_node("LeakyRelu", ["x"], ["y"], alpha=0.1); n.attribute.extend([helper.make_attribute("alpha", 0.2)])
save("attr_twice.onnx", model([n], [X], [Y]), "fail", "attribute given twice")
n = helper.make_node("Relu", ["x"], ["y"]); a = n.attribute.add(); a.name = "alpha"; a.ref_attr_name = "p"
a.type = onnx.AttributeProto.FLOAT
save("attr_ref.onnx", model([n], [X], [Y]), "fail", "ref_attr_name")
n = helper.make_node("Relu", ["x"], ["y"]); a = n.attribute.add(); a.name = "alpha"
save("attr_empty.onnx", model([n], [X], [Y]), "fail", "attribute has no value")
n = helper.make_node("LeakyRelu", ["x"], ["y"]); a = n.attribute.add(); a.name = "alpha"; a.f = 0.5
save("attr_untyped.onnx", model([n], [X], [Y]), "ok")   # IR v1 style: no type field
save("opset_absurd.onnx", model([helper.make_node("Relu", ["x"], ["y"])], [X], [Y], opset=99999),
     "fail", "invalid opset version 99999")
save("opset_neg.onnx", model([helper.make_node("Relu", ["x"], ["y"])], [X], [Y], opset=-1),
     "fail", "invalid opset version -1")
m = model([helper.make_node("Relu", ["x"], ["y"])], [X], [Y])
m.opset_import.extend([helper.make_opsetid("ai.onnx", 12)])
save("opset_dup.onnx", m, "fail", "more than one opset_import")
save("ir_version_neg.onnx", model([helper.make_node("Relu", ["x"], ["y"])], [X], [Y], ir_version=-5),
     "fail", "invalid ir_version -5")
m = onnx.ModelProto(); m.ir_version = 8
save("no_graph.onnx", m, "fail", "model has no graph")
save("empty.onnx", b"", "fail", "model has no graph")

# fields newer than onnx.proto 1.12, appended as raw wire bytes
relu_model = model([helper.make_node("Relu", ["x"], ["y"])], [X], [Y])
save("new_model_field.onnx", relu_model.SerializeToString() + fld(26, 2, b""), "fail",
     "ModelProto field 'configuration'")
save("unknown_model_field.onnx", relu_model.SerializeToString() + fld(99, 0, varint(1)), "fail",
     "unknown ModelProto field 99")


def with_graph(gbytes, opset=13):
    m = onnx.ModelProto(); m.ir_version = 8
    m.opset_import.extend([helper.make_opsetid("", opset)])
    return m.SerializeToString() + fld(7, 2, gbytes)


gb = relu_model.graph.SerializeToString()
save("graph_metadata.onnx", with_graph(gb + fld(16, 2, fld(1, 2, b"k") + fld(2, 2, b"v"))), "ok")
g2 = onnx.GraphProto(); g2.CopyFrom(relu_model.graph); del g2.node[:]
nb = relu_model.graph.node[0].SerializeToString() + fld(8, 2, b"ov")
save("node_overload.onnx", with_graph(g2.SerializeToString() + fld(1, 2, nb)), "fail",
     "NodeProto field 'overload'")
nb = relu_model.graph.node[0].SerializeToString() + fld(9, 2, fld(1, 2, b"k"))
save("node_metadata.onnx", with_graph(g2.SerializeToString() + fld(1, 2, nb)), "ok")

# ---------------------------------------------------------------- hostile bytes

save("garbage_text.onnx", b"this is not a model\n", "fail", "")
rng = random.Random(1234)
for k in range(8):
    save("garbage_%d.onnx" % k, bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 400))), "any")
save("bad_varint.onnx", b"\x08" + b"\xff" * 11, "fail", "varint")
save("varint_trunc.onnx", b"\x08\xff\xff", "fail", "truncated varint")
save("wrong_wire.onnx", b"\x38\x01", "fail", "field 'graph' has the varint wire type")
save("group_wire.onnx", b"\x3b", "fail", "start-group wire type")
save("field_zero.onnx", b"\x02\x00", "fail", "invalid field number 0")
save("len_past_eof.onnx", b"\x3a\x64abc", "fail", "truncated: field 'graph' needs 100 bytes, 3 left")
save("len_past_msg.onnx", b"\x3a\x04\x0a\x0aab" + b"\x00" * 16, "fail", "length past the end of its message")
save("fixed_trunc.onnx", fld(7, 2, fld(5, 2, b"\x25\x00")), "fail", "truncated: field 'float_data'")
save("packed_bad.onnx", fld(7, 2, fld(5, 2, fld(4, 2, b"\x00" * 5))), "fail", "not a multiple of 4")

# truncated copies of a model with raw weights: every length (no crash), one mid-weights
wmodel = model([helper.make_node("Add", ["x", "b"], ["y"])], [X], [Y],
               [numpy_helper.from_array(np.arange(64, dtype=np.float32), "b")])
wbytes = wmodel.SerializeToString()
for cut in range(0, len(wbytes)):
    save("trunc/%04d.onnx" % cut, wbytes[:cut], "any")
cut = wbytes.index(np.arange(64, dtype=np.float32).tobytes()) + 100
save("trunc_mid.onnx", wbytes[:cut], "fail", "truncated")
# random byte mutations of valid models
for k in range(300):
    src = bytearray(basic_bytes if k % 2 else wbytes)
    for _ in range(rng.randint(1, 4)):
        src[rng.randrange(len(src))] = rng.getrandbits(8)
    save("mut/%03d.onnx" % k, bytes(src), "any")

# nesting: each graph attribute adds 3 message levels; the deepest path is a graph
# input's Dimension, 3 * depth + 6 levels down (limit 64)
def nest(depth):
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [X], [Y])
    for _ in range(depth):
        g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], body=g)], "g", [X], [Y])
    return g.SerializeToString()


save("deep.onnx", with_graph(nest(20)), "fail", "nested deeper than 64")
save("deep_ok.onnx", with_graph(nest(19)), "unsupported:1", "subgraph")
# hostile amplification: 1.5M empty nodes (2 bytes each) would decode to ~200 MB
save("amplify.onnx", fld(7, 2, b"\x0a\x00" * 1500000), "fail", "decoding needs more than")

with open(os.path.join(OUT, "manifest.txt"), "w") as f:
    for e, name, s in manifest:
        f.write("%s %s %s\n" % (e, name, s))

if len(sys.argv) > 2:
    sys.exit(subprocess.call([sys.argv[2], OUT]))
