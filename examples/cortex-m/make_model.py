#!/usr/bin/python3
"""Makes digits.onnx: a tiny convolutional classifier for 8x8 images (random weights,
fixed seed), the smallest model that shows the whole path on a microcontroller
(main.c here) and on a Linux board (examples/arm-board/app.c), and prints the reference
probabilities numpy computes for the sample image both programs use. For a trained
model doing real work, see examples/fashion.

usage: make_model.py OUT.onnx            write the model
       make_model.py --reference         print the 10 reference probabilities
"""
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

rng = np.random.default_rng(7)
W1 = (rng.standard_normal((4, 1, 3, 3)) * 0.5).astype(np.float32)
B1 = (rng.standard_normal(4) * 0.1).astype(np.float32)
W2 = (rng.standard_normal((10, 4 * 4 * 4)) * 0.3).astype(np.float32)
B2 = (rng.standard_normal(10) * 0.1).astype(np.float32)


def sample():
    """The image main.c and arm-board/app.c classify: a vertical stroke, like a '1'."""
    img = np.zeros((1, 1, 8, 8), np.float32)
    img[0, 0, 1:7, 4] = 1.0
    img[0, 0, 2, 3] = 0.5
    return img


def reference(x):
    n, c, h, w = x.shape
    pad = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    y = np.zeros((1, 4, 8, 8), np.float32)
    for o in range(4):
        for i in range(h):
            for j in range(w):
                y[0, o, i, j] = np.sum(pad[0, :, i:i + 3, j:j + 3] * W1[o]) + B1[o]
    y = np.maximum(y, 0)
    p = y.reshape(1, 4, 4, 2, 4, 2).max(axis=(3, 5))
    z = p.reshape(1, -1) @ W2.T + B2
    e = np.exp(z - z.max())
    return e / e.sum()


def model():
    nodes = [
        helper.make_node("Conv", ["image", "w1", "b1"], ["conv"], name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["conv"], ["relu"], name="relu1"),
        helper.make_node("MaxPool", ["relu"], ["pool"], name="pool1", kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["pool"], ["flat"], name="flatten"),
        helper.make_node("Gemm", ["flat", "w2", "b2"], ["logits"], name="fc", transB=1),
        helper.make_node("Softmax", ["logits"], ["probs"], name="softmax", axis=1),
    ]
    graph = helper.make_graph(
        nodes, "digits",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 1, 8, 8])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, [1, 10])],
        [numpy_helper.from_array(W1, "w1"), numpy_helper.from_array(B1, "b1"),
         numpy_helper.from_array(W2, "w2"), numpy_helper.from_array(B2, "b2")])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                          producer_name="ingot examples/cortex-m")
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1] == "--reference":
        print(" ".join("%.6f" % p for p in reference(sample())[0]))
    elif len(sys.argv) == 2:
        onnx.save(model(), sys.argv[1])
    else:
        sys.exit(__doc__)
