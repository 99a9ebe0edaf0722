#!/usr/bin/python3
"""Trains the Fashion-MNIST nets of examples/fashion (and of tests/quant's accuracy
figures) with python3-torch, exports them to ONNX and writes the data they are judged on.

usage: train.py CACHE [--calib] [NET ...]      NET: cnn (default), mobilenet

Everything lands in CACHE (the example uses build/fashion-cache):
  NET.onnx           the trained net: input "image" f32[1,1,28,28] (pixels / 255), output
                     "logits" f32[1,10]
  NET.json           the cache key, the training time and torch's accuracy and predictions on
                     the 10,000 test images
  t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte
                     the test set, gunzipped (the idx files the C app reads)
  calib/test_data_set_N/input_0.pb  (N < 500; with --calib)
                     500 training images as ONNX TensorProtos, in ingot check's layout
                     (the calibration set of `--quantize int8 --calibrate CACHE/calib`)

Training is deterministic: a fixed seed, two threads, deterministic algorithms. A net is
trained again only when its cache key changes (this file, the data set or the torch
version); a second run only prints the cached figures. Several runs at once take turns
(a lock on CACHE/.lock), so parallel tests train once.
"""
import fcntl
import gzip
import hashlib
import json
import os
import sys
import time

import numpy as np
import onnx
from onnx import numpy_helper
import torch
from torch import nn

DATA = os.environ.get("FASHION_MNIST_DIR", "/usr/share/datasets/fashion-mnist")
SEED = 19
THREADS = 2
CALIB_IMAGES = 500
# per net: the epochs and how many of the 60,000 training images one epoch sees (sized so
# that both nets train in under 2 minutes on 2 cores, the small CNN in under 60 s)
PLAN = {"cnn": (1, 60000), "mobilenet": (1, 30000)}
BATCH = 128
LR = 2e-3


def load_idx(path):
    """An idx file (gzipped or not) as a numpy array: magic 0x0000 type ndim, dims (u32 BE)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        raw = f.read()
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] != 0x08:
        sys.exit("train.py: %s: not an idx file of unsigned bytes" % path)
    ndim = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    data = np.frombuffer(raw, np.uint8, offset=4 + 4 * ndim)
    if data.size != int(np.prod(dims)):
        sys.exit("train.py: %s: %d bytes of data for dims %s" % (path, data.size, dims))
    return data.reshape(dims)


def data_file(name):
    path = os.path.join(DATA, name + ".gz")
    if not os.path.exists(path):
        sys.exit("train.py: %s missing: install Debian's dataset-fashion-mnist "
                 "(tools/install-deps.sh)" % path)
    return path


class SmallCNN(nn.Module):
    """Two 3x3 convolutions with ReLU and 2x2 max pooling, then one linear layer:
    28x28x1 -> 14x14x16 -> 7x7x32 -> 10 (about 1 M multiply-adds)."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.fc = nn.Linear(32 * 7 * 7, 10)

    def forward(self, x):
        return self.fc(torch.flatten(self.features(x), 1))


def separable(cin, cout, stride):
    """MobileNet's block: a 3x3 depthwise convolution, then a 1x1 one, each with BatchNorm
    and ReLU6."""
    return [nn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False), nn.BatchNorm2d(cin),
            nn.ReLU6(),
            nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU6()]


class MobileNetish(nn.Module):
    """A MobileNet-style net: a strided 3x3 stem, three depthwise-separable blocks,
    global average pooling and a linear classifier (28x28 -> 14x14 -> 7x7)."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU6(),
            *separable(16, 32, 1), *separable(32, 64, 2), *separable(64, 64, 1),
            nn.AdaptiveAvgPool2d(1))
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        return self.fc(torch.flatten(self.features(x), 1))


NETS = {"cnn": SmallCNN, "mobilenet": MobileNetish}


def cache_key(net):
    h = hashlib.sha256()
    with open(os.path.abspath(__file__), "rb") as f:
        h.update(f.read())
    for name in ("train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                 "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"):
        st = os.stat(data_file(name))
        h.update(("%s %d\n" % (name, st.st_size)).encode())
    h.update(("%s %s %s\n" % (net, torch.__version__, PLAN[net])).encode())
    return h.hexdigest()


def as_input(images):
    """uint8 [N,28,28] -> f32 [N,1,28,28] in [0, 1], the nets' input (the C app divides
    by 255.0f the same way)."""
    return torch.from_numpy(images.astype(np.float32) / np.float32(255)).unsqueeze(1)


def predict(model, images):
    model.eval()
    out = []
    with torch.no_grad():
        for i in range(0, len(images), 1000):
            out.append(model(as_input(images[i:i + 1000])).argmax(1))
    return torch.cat(out).numpy()


def train(net, cache, train_x, train_y, test_x, test_y):
    torch.manual_seed(SEED)
    torch.use_deterministic_algorithms(True)
    model = NETS[net]()
    epochs, per_epoch = PLAN[net]
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    gen = torch.Generator().manual_seed(SEED)
    start, cpu = time.time(), time.process_time()
    for _ in range(epochs):
        model.train()
        order = torch.randperm(len(train_x), generator=gen)[:per_epoch].numpy()
        for i in range(0, per_epoch, BATCH):
            idx = order[i:i + BATCH]
            x, y = as_input(train_x[idx]), torch.from_numpy(train_y[idx].astype(np.int64))
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
    seconds, cpu = time.time() - start, time.process_time() - cpu
    pred = predict(model, test_x)
    model.eval()
    onnx_path = os.path.join(cache, net + ".onnx")
    torch.onnx.export(model, torch.zeros(1, 1, 28, 28), onnx_path, input_names=["image"],
                      output_names=["logits"], opset_version=13)
    onnx.checker.check_model(onnx.load(onnx_path))
    return {"key": cache_key(net), "train_seconds": round(seconds, 1),
            "train_cpu_seconds": round(cpu, 1),
            "torch_correct": int((pred == test_y).sum()), "images": len(test_y),
            "torch_predictions": "".join(str(int(p)) for p in pred)}


def write_data(cache, train_x, calib):
    """The gunzipped test set and (when CALIB) the calibration folder, each written once."""
    for name in ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"):
        out = os.path.join(cache, name)
        if not os.path.exists(out):
            with gzip.open(data_file(name), "rb") as f, open(out + ".tmp", "wb") as g:
                g.write(f.read())
            os.replace(out + ".tmp", out)
    if not calib:
        return
    calib = os.path.join(cache, "calib")
    done = os.path.join(calib, ".done")
    if os.path.exists(done):
        return
    # the first CALIB_IMAGES of a seeded permutation of the training set
    pick = np.random.default_rng(SEED).permutation(len(train_x))[:CALIB_IMAGES]
    for n, i in enumerate(pick):
        d = os.path.join(calib, "test_data_set_%d" % n)
        os.makedirs(d, exist_ok=True)
        t = numpy_helper.from_array(as_input(train_x[i:i + 1]).numpy(), "image")
        with open(os.path.join(d, "input_0.pb"), "wb") as f:
            f.write(t.SerializeToString())
    open(done, "w").close()


def ensure(cache, nets, calib=False):
    """Trains (or finds in the cache) each net, writes the test set (and the calibration
    set when CALIB); returns {net: its NET.json}."""
    os.makedirs(cache, exist_ok=True)
    torch.set_num_threads(THREADS)
    with open(os.path.join(cache, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        train_x = train_y = test_x = test_y = None
        results = {}
        for net in nets:
            meta_path = os.path.join(cache, net + ".json")
            meta = None
            if os.path.exists(meta_path) and os.path.exists(os.path.join(cache, net + ".onnx")):
                with open(meta_path) as f:
                    meta = json.load(f)
                if meta.get("key") != cache_key(net):
                    meta = None
            if meta is None:
                if train_x is None:
                    train_x = load_idx(data_file("train-images-idx3-ubyte"))
                    train_y = load_idx(data_file("train-labels-idx1-ubyte"))
                    test_x = load_idx(data_file("t10k-images-idx3-ubyte"))
                    test_y = load_idx(data_file("t10k-labels-idx1-ubyte"))
                meta = train(net, cache, train_x, train_y, test_x, test_y)
                with open(meta_path + ".tmp", "w") as f:
                    json.dump(meta, f)
                os.replace(meta_path + ".tmp", meta_path)
                print("%s: trained in %.1f s, torch %d/%d correct" % (
                    net, meta["train_seconds"], meta["torch_correct"], meta["images"]))
            else:
                print("%s: cached (trained in %.1f s), torch %d/%d correct" % (
                    net, meta["train_seconds"], meta["torch_correct"], meta["images"]))
            results[net] = meta
        if (calib and not os.path.exists(os.path.join(cache, "calib", ".done"))) or \
                not os.path.exists(os.path.join(cache, "t10k-labels-idx1-ubyte")):
            if calib and train_x is None:
                train_x = load_idx(data_file("train-images-idx3-ubyte"))
            write_data(cache, train_x, calib)
    return results


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
        sys.exit(__doc__)
    calib = "--calib" in sys.argv[2:]
    nets = [a for a in sys.argv[2:] if a != "--calib"] or ["cnn"]
    for n in nets:
        if n not in NETS:
            sys.exit("train.py: unknown net %r (cnn, mobilenet)" % n)
    ensure(sys.argv[1], nets, calib)
