"""Helpers of the small_types tests: tensors of the 8-, 4- and 2-bit ONNX types from
their bit codes, and backend-test directories (model.onnx, test_data_set_0/*.pb)."""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def small(name, dt, codes, dims):
    """A TensorProto of a 1-byte, 4-bit or 2-bit type from one code per element, in
    raw_data (4-bit: two per byte, 2-bit: four per byte, the first lowest)."""
    c = [int(v) & 0xff for v in np.asarray(codes).ravel()]
    per = 4 if dt in (25, 26) else 2 if dt in (21, 22, 23) else 1
    bits = 8 // per
    packed = []
    for i in range(0, len(c), per):
        b = 0
        for j, v in enumerate(c[i:i + per]):
            b |= (v & ((1 << bits) - 1)) << (bits * j)
        packed.append(b)
    t = TensorProto()
    t.name, t.data_type, t.raw_data = name, dt, bytes(packed)
    t.dims.extend(dims)
    return t


def tensor(name, v):
    return v if isinstance(v, TensorProto) else numpy_helper.from_array(v, name)


def write(work, name, nodes, inputs, outputs, inits=(), opset=21):
    """inputs / outputs: (name, elem_type, dims, value); a backend-test directory under
    work (IR version 11 from opset 24, else 10)."""
    d = os.path.join(work, name)
    os.makedirs(os.path.join(d, "test_data_set_0"))
    g = helper.make_graph(nodes, name,
                          [helper.make_tensor_value_info(n, t, dims) for n, t, dims, _ in inputs],
                          [helper.make_tensor_value_info(n, t, dims) for n, t, dims, _ in outputs],
                          list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 11 if opset >= 24 else 10
    onnx.save(m, os.path.join(d, "model.onnx"))
    for kind, vals in (("input", inputs), ("output", outputs)):
        for i, (n, _, _, v) in enumerate(vals):
            with open(os.path.join(d, "test_data_set_0", "%s_%d.pb" % (kind, i)), "wb") as f:
                f.write(tensor(n, v).SerializeToString())
    return d
