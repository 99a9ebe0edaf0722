#!/usr/bin/python3
# Writes the benchmark set: each model, with random weights from a fixed seed, as
# OUT/<name>/model.onnx (opset 13, static shapes) plus its seeded random inputs
# OUT/<name>/input_<j>.npy, which both runtimes read, so they compute on the same data.
# Usage: make_models.py OUT [NAME...]   (skips a model whose stamp matches this script)
import hashlib
import os
import sys
import warnings

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    import torch
    import torch.nn as nn
    import torchvision
except ImportError as e:
    sys.exit("bench: %s; install python3-torch, python3-torchvision, python3-onnx and "
             "python3-numpy (tools/install-deps.sh)" % e)

OPSET = 13
SEED = 20240717


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512),
                                 nn.ReLU(), nn.Linear(512, 10))

    def forward(self, x):
        return self.net(x)


class LeNet5(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 6, 5), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2))
        self.classifier = nn.Sequential(nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84),
                                        nn.ReLU(), nn.Linear(84, 10))

    def forward(self, x):
        return self.classifier(torch.flatten(self.features(x), 1))


class Kws(nn.Module):
    """A small keyword-spotting CNN over 40 MFCC coefficients x 98 frames."""

    def __init__(self, n_classes=12):
        super().__init__()

        def block(ci, co, k):
            return [nn.Conv1d(ci, co, k, padding=k // 2, bias=False), nn.BatchNorm1d(co),
                    nn.ReLU()]

        self.features = nn.Sequential(*block(40, 64, 5), nn.MaxPool1d(2),
                                      *block(64, 64, 3), nn.MaxPool1d(2),
                                      *block(64, 96, 3), nn.AdaptiveAvgPool1d(1))
        self.fc = nn.Linear(96, n_classes)

    def forward(self, x):
        return self.fc(torch.flatten(self.features(x), 1))


class Encoder(nn.Module):
    """One TransformerEncoder layer; feed-forward width 4*d, the usual ratio."""

    def __init__(self):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(d_model=256, nhead=4, dim_feedforward=1024,
                                                dropout=0.0, batch_first=True)

    def forward(self, x):
        return self.layer(x)


class Lstm(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(40, 128, batch_first=True)

    def forward(self, x):
        return self.rnn(x)[0]


def cbr(ci, co, stride=1, groups=1):
    return [nn.Conv2d(ci, co, 3, stride, 1, groups=groups, bias=False), nn.BatchNorm2d(co), nn.ReLU()]


class UNetSeg(nn.Module):
    """A small U-Net/FPN segmenter: a stride-2 encoder, a decoder that upsamples
    (bilinear Upsample and ConvTranspose + BatchNorm + ReLU), skip concatenations and
    a per-pixel class head: the Resize, ConvTranspose and Concat of real segmenters."""

    def __init__(self, n_classes=4):
        super().__init__()
        self.e1 = nn.Sequential(*cbr(3, 16), *cbr(16, 16))
        self.e2 = nn.Sequential(*cbr(16, 32, 2), *cbr(32, 32))
        self.e3 = nn.Sequential(*cbr(32, 64, 2), *cbr(64, 64))
        self.e4 = nn.Sequential(*cbr(64, 96, 2), *cbr(96, 96))
        self.up3 = nn.Sequential(nn.ConvTranspose2d(96, 64, 2, 2, bias=False), nn.BatchNorm2d(64), nn.ReLU())
        self.d3 = nn.Sequential(*cbr(128, 64))
        self.d2 = nn.Sequential(*cbr(96, 32))
        self.d1 = nn.Sequential(*cbr(48, 16))
        self.head = nn.Conv2d(16, n_classes, 1)

    def forward(self, x):
        up = nn.functional.interpolate
        e1 = self.e1(x)
        e2 = self.e2(e1)
        e3 = self.e3(e2)
        e4 = self.e4(e3)
        d3 = self.d3(torch.cat([self.up3(e4), e3], 1))
        d2 = self.d2(torch.cat([up(d3, scale_factor=2.0, mode="bilinear", align_corners=False), e2], 1))
        d1 = self.d1(torch.cat([up(d2, scale_factor=2.0, mode="nearest"), e1], 1))
        return self.head(d1)


class SsdHead(nn.Module):
    """An SSD-style detector: a MobileNet-like backbone that pads explicitly before its
    stride-2 depthwise convs (as TensorFlow exports), an FPN top-down path (nearest
    upsampling), and per-level box and class heads, reshaped and concatenated into
    one [1, anchors, 4 + classes] output with sigmoid scores."""

    def __init__(self, n_classes=8, n_anchors=3):
        super().__init__()

        def down(ci, co):
            return nn.Sequential(nn.ZeroPad2d((0, 1, 0, 1)), nn.Conv2d(ci, ci, 3, 2, 0, groups=ci, bias=False),
                                 nn.BatchNorm2d(ci), nn.ReLU6(), nn.Conv2d(ci, co, 1, bias=False),
                                 nn.BatchNorm2d(co), nn.ReLU6())
        self.stem = nn.Sequential(nn.ZeroPad2d((0, 1, 0, 1)), nn.Conv2d(3, 16, 3, 2, 0, bias=False),
                                  nn.BatchNorm2d(16), nn.ReLU6())
        self.s1 = down(16, 32)
        self.s2 = down(32, 64)
        self.s3 = down(64, 128)
        self.s4 = down(128, 128)
        self.lat = nn.ModuleList([nn.Conv2d(c, 64, 1) for c in (64, 128, 128)])
        self.k = n_anchors
        self.nc = n_classes
        self.box = nn.ModuleList([nn.Conv2d(64, n_anchors * 4, 3, 1, 1) for _ in range(3)])
        self.cls = nn.ModuleList([nn.Conv2d(64, n_anchors * n_classes, 3, 1, 1) for _ in range(3)])

    def forward(self, x):
        c2 = self.s2(self.s1(self.stem(x)))
        c3 = self.s3(c2)
        c4 = self.s4(c3)
        p4 = self.lat[2](c4)
        p3 = self.lat[1](c3) + nn.functional.interpolate(p4, scale_factor=2.0, mode="nearest")
        p2 = self.lat[0](c2) + nn.functional.interpolate(p3, scale_factor=2.0, mode="nearest")
        outs = []
        for i, p in enumerate((p2, p3, p4)):
            b = self.box[i](p).permute(0, 2, 3, 1).reshape(1, -1, 4)
            c = torch.sigmoid(self.cls[i](p)).permute(0, 2, 3, 1).reshape(1, -1, self.nc)
            outs.append(torch.cat([b, c], 2))
        return torch.cat(outs, 1)


tv = torchvision.models
# name -> (constructor, input shape); all inputs are float32 named "input"
TORCH_MODELS = {
    "resnet18": (lambda: tv.resnet18(weights=None), (1, 3, 224, 224)),
    "mobilenet_v2": (lambda: tv.mobilenet_v2(weights=None), (1, 3, 224, 224)),
    "mobilenet_v3_small": (lambda: tv.mobilenet_v3_small(weights=None), (1, 3, 224, 224)),
    "squeezenet1_1": (lambda: tv.squeezenet1_1(weights=None), (1, 3, 224, 224)),
    "mlp": (Mlp, (1, 784)),
    "lenet5": (LeNet5, (1, 1, 32, 32)),
    "kws_cnn": (Kws, (1, 40, 98)),
    "transformer_layer": (Encoder, (1, 128, 256)),
    "lstm": (Lstm, (1, 50, 40)),
    "unet_seg": (UNetSeg, (1, 3, 256, 256)),
    "ssd_head": (SsdHead, (1, 3, 320, 320)),
}


def gemm(m, k, n):
    def build(rng):
        b = (rng.standard_normal((k, n)) / np.sqrt(k)).astype(np.float32)
        node = helper.make_node("Gemm", ["input", "B"], ["output"])
        g = helper.make_graph([node], "gemm_%dx%dx%d" % (m, k, n),
                              [helper.make_tensor_value_info("input", TensorProto.FLOAT, [m, k])],
                              [helper.make_tensor_value_info("output", TensorProto.FLOAT, [m, n])],
                              [numpy_helper.from_array(b, "B")])
        return g, (m, k)
    return build


def conv(c_in, c_out, size, group):
    def build(rng):
        fan_in = (c_in // group) * 9
        w = (rng.standard_normal((c_out, c_in // group, 3, 3)) / np.sqrt(fan_in)).astype(np.float32)
        b = (0.1 * rng.standard_normal(c_out)).astype(np.float32)
        node = helper.make_node("Conv", ["input", "W", "B"], ["output"], kernel_shape=[3, 3],
                                pads=[1, 1, 1, 1], group=group)
        g = helper.make_graph(
            [node], "conv3x3",
            [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, c_in, size, size])],
            [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, c_out, size, size])],
            [numpy_helper.from_array(w, "W"), numpy_helper.from_array(b, "B")])
        return g, (1, c_in, size, size)
    return build


# name -> builder(rng) returning (graph, input shape)
OP_MODELS = {
    "gemm_1024": gemm(1024, 1024, 1024),
    "gemv_1024": gemm(1, 1024, 1024),
    "conv3x3_64_56": conv(64, 64, 56, 1),
    "dwconv3x3_32_112": conv(32, 32, 112, 32),
}

ALL = list(TORCH_MODELS) + list(OP_MODELS)


def randomize_bn(model, g):
    # default BN statistics make it an identity; random ones keep the fold honest
    for m in model.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            n = m.num_features
            with torch.no_grad():
                m.running_mean.copy_(0.1 * torch.randn(n, generator=g))
                m.running_var.copy_(0.5 + torch.rand(n, generator=g))
                m.weight.copy_(0.75 + 0.5 * torch.rand(n, generator=g))
                m.bias.copy_(0.1 * torch.randn(n, generator=g))


def stamp_text(name):
    with open(os.path.abspath(__file__), "rb") as f:
        h = hashlib.sha256(f.read()).hexdigest()
    return "%s opset %d torch %s torchvision %s onnx %s script %s\n" % (
        name, OPSET, torch.__version__, torchvision.__version__, onnx.__version__, h)


def write(name, out_root):
    d = os.path.join(out_root, name)
    stamp = stamp_text(name)
    try:
        with open(os.path.join(d, "stamp")) as f:
            if f.read() == stamp:
                return False
    except OSError:
        pass
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "model.onnx")
    rng = np.random.default_rng(SEED)
    if name in TORCH_MODELS:
        ctor, shape = TORCH_MODELS[name]
        torch.manual_seed(SEED)
        g = torch.Generator().manual_seed(SEED)
        model = ctor()
        randomize_bn(model, g)
        model.eval()
        x = torch.randn(*shape, generator=g)
        # exported with autograd on: under no_grad an eval TransformerEncoderLayer takes
        # its fused fast path, which has no ONNX export (torch 1.13)
        torch.onnx.export(model, (x,), path, opset_version=OPSET, input_names=["input"],
                          output_names=["output"], do_constant_folding=True)
        inputs = [x.numpy()]
    else:
        graph, shape = OP_MODELS[name](rng)
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="ingot-bench")
        m.ir_version = 7  # opset 13's IR version; readable by every runtime since 2020
        onnx.save(m, path)
        inputs = [rng.standard_normal(shape).astype(np.float32)]
    onnx.checker.check_model(onnx.load(path))
    for j, a in enumerate(inputs):
        np.save(os.path.join(d, "input_%d.npy" % j), np.ascontiguousarray(a, dtype=np.float32))
    with open(os.path.join(d, "stamp"), "w") as f:
        f.write(stamp)
    return True


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: make_models.py OUT [NAME...]\nmodels: " + " ".join(ALL))
    out_root = sys.argv[1]
    todo = sys.argv[2:] or ALL
    bad = [n for n in todo if n not in ALL]
    if bad:
        sys.exit("unknown model(s): %s\nmodels: %s" % (" ".join(bad), " ".join(ALL)))
    warnings.filterwarnings("ignore")  # exporter advice about other uses
    torch.set_num_threads(1)
    os.makedirs(out_root, exist_ok=True)
    for name in todo:
        if write(name, out_root):
            print("bench: wrote %s" % name, flush=True)


if __name__ == "__main__":
    main()
