#!/usr/bin/python3
# Exports real PyTorch models (random weights, fixed seed, eval mode) to ONNX at opsets 13
# and 17, in the ONNX backend-test layout that `ingot check` reads:
#   DIR/<model>_op<N>/model.onnx, DIR/<model>_op<N>/test_data_set_0/{input,output}_J.pb
# with seeded random inputs and torch's own outputs. Usage: export.py DIR [MODEL...]
#
# Weights come from each module's default initializer under torch.manual_seed; BatchNorm
# statistics and affine parameters are then drawn at random too, because the defaults
# (mean 0, var 1, gamma 1, beta 0) make BN an identity and would hide a wrong BN fold.
# Export is skipped when DIR/<model>_op<N>/stamp matches this script and torch's version.
import hashlib
import os
import sys
import warnings

try:
    import numpy as np
    import onnx
    from onnx import numpy_helper
    import torch
    import torch.nn as nn
    import torchvision
except ImportError as e:
    sys.exit("tests/models: %s; install python3-torch, python3-torchvision, python3-onnx "
             "and python3-numpy (tools/install-deps.sh)" % e)

OPSETS = (13, 17)
SEED = 20240601


class SeqHead(nn.Module):
    """A recurrent layer over a (batch, time, features) sequence, then a per-step Linear."""

    def __init__(self, rnn, hidden, n_out):
        super().__init__()
        self.rnn = rnn
        self.head = nn.Linear(hidden, n_out)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.head(y)


class Encoder(nn.Module):
    """A 2-layer TransformerEncoder taking its masks as graph inputs."""

    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128,
                                           dropout=0.0, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)

    def forward(self, src, src_mask, src_key_padding_mask):
        return self.enc(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask)


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


def image(n, size):
    return lambda g: {"input": torch.randn(n, 3, size, size, generator=g)}


def encoder_inputs(g):
    # Causal attention mask (True = may not attend) and per-sample key padding; every
    # query keeps at least key 0, so no softmax row is fully masked (no NaN).
    causal = torch.triu(torch.ones(16, 16, dtype=torch.bool), diagonal=1)
    pad = torch.zeros(2, 16, dtype=torch.bool)
    pad[0, 13:] = True
    pad[1, 9:] = True
    return {"src": torch.randn(2, 16, 64, generator=g), "src_mask": causal,
            "src_key_padding_mask": pad}


tv = torchvision.models
# name -> (constructor, inputs from a seeded generator, tolerance lines or None).
# Tolerances: the ONNX default (rtol 1e-3, atol 1e-7) unless a comment says why not.
MODELS = {
    # ResNet-18's logits reach ~12 after 512-term dot products through 18 layers: torch's
    # own float32 result is up to 9e-6 away from float64 (ingot's up to 1e-5, about the
    # same), and the smallest logit, 7.6e-4, is a cancellation whose relative error is
    # ~1e-3 in both, so the absolute error must be bounded at the logits' scale.
    "resnet18": (lambda: tv.resnet18(weights=None), image(1, 224), "rtol=1e-3\natol=3e-5\n"),
    "mobilenet_v2": (lambda: tv.mobilenet_v2(weights=None), image(1, 112), None),
    "mobilenet_v3_small": (lambda: tv.mobilenet_v3_small(weights=None), image(1, 112), None),
    "squeezenet1_1": (lambda: tv.squeezenet1_1(weights=None), image(1, 112), None),
    "shufflenet_v2_x0_5": (lambda: tv.shufflenet_v2_x0_5(weights=None), image(1, 112), None),
    "efficientnet_b0": (lambda: tv.efficientnet_b0(weights=None), image(1, 112), None),
    "transformer_encoder": (Encoder, encoder_inputs, None),
    "lstm": (lambda: SeqHead(nn.LSTM(40, 64, num_layers=2, batch_first=True), 64, 12),
             lambda g: {"input": torch.randn(1, 20, 40, generator=g)}, None),
    "gru": (lambda: SeqHead(nn.GRU(40, 48, num_layers=2, batch_first=True,
                                   bidirectional=True), 96, 12),
            lambda g: {"input": torch.randn(1, 20, 40, generator=g)}, None),
    "kws_cnn": (Kws, lambda g: {"input": torch.randn(1, 40, 98, generator=g)}, None),
}
# Exported with TrainingMode.PRESERVE (the model is in eval mode) so that BatchNormalization
# stays a node instead of being folded into Conv by the exporter, as it is everywhere else.
KEEP_BN = {"kws_cnn"}


def randomize_bn(model, g):
    for m in model.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            n = m.num_features
            with torch.no_grad():
                m.running_mean.copy_(0.1 * torch.randn(n, generator=g))
                m.running_var.copy_(0.5 + torch.rand(n, generator=g))
                m.weight.copy_(0.75 + 0.5 * torch.rand(n, generator=g))
                m.bias.copy_(0.1 * torch.randn(n, generator=g))


def stamp_text(name, opset):
    with open(os.path.abspath(__file__), "rb") as f:
        h = hashlib.sha256(f.read()).hexdigest()
    return "%s opset %d torch %s torchvision %s script %s\n" % (
        name, opset, torch.__version__, torchvision.__version__, h)


def export(name, opset, out_root):
    ctor, make_inputs, tolerance = MODELS[name]
    d = os.path.join(out_root, "%s_op%d" % (name, opset))
    stamp = stamp_text(name, opset)
    try:
        with open(os.path.join(d, "stamp")) as f:
            if f.read() == stamp:
                return False
    except OSError:
        pass
    torch.manual_seed(SEED)
    g = torch.Generator().manual_seed(SEED)
    model = ctor()
    randomize_bn(model, g)
    model.eval()
    inputs = make_inputs(g)
    names = list(inputs)
    args = tuple(inputs[k] for k in names)
    with torch.no_grad():
        outs = model(*args)
    outs = outs if isinstance(outs, (tuple, list)) else (outs,)
    ds = os.path.join(d, "test_data_set_0")
    os.makedirs(ds, exist_ok=True)
    for f in os.listdir(ds):
        os.remove(os.path.join(ds, f))
    path = os.path.join(d, "model.onnx")
    with torch.no_grad():
        torch.onnx.export(model, args, path, opset_version=opset, input_names=names,
                          output_names=["output%d" % i if i else "output"
                                        for i in range(len(outs))],
                          do_constant_folding=True,
                          training=(torch.onnx.TrainingMode.PRESERVE if name in KEEP_BN
                                    else torch.onnx.TrainingMode.EVAL))
    m = onnx.load(path)
    onnx.checker.check_model(m)
    # The exporter may drop an input the traced graph does not use; write exactly the
    # graph's inputs (by name) and outputs (by position).
    inits = {t.name for t in m.graph.initializer}
    graph_inputs = [i.name for i in m.graph.input if i.name not in inits]
    for j, n in enumerate(graph_inputs):
        t = numpy_helper.from_array(inputs[n].numpy(), n)
        with open(os.path.join(ds, "input_%d.pb" % j), "wb") as f:
            f.write(t.SerializeToString())
    if len(m.graph.output) != len(outs):
        sys.exit("%s: graph has %d outputs, torch returned %d" % (
            name, len(m.graph.output), len(outs)))
    for j, (o, v) in enumerate(zip(m.graph.output, outs)):
        t = numpy_helper.from_array(v.detach().numpy(), o.name)
        with open(os.path.join(ds, "output_%d.pb" % j), "wb") as f:
            f.write(t.SerializeToString())
    tol = os.path.join(d, "tolerance")
    if tolerance:
        with open(tol, "w") as f:
            f.write(tolerance)
    elif os.path.exists(tol):
        os.remove(tol)
    with open(os.path.join(d, "stamp"), "w") as f:
        f.write(stamp)
    return True


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: export.py DIR [MODEL...]\nmodels: " + " ".join(MODELS))
    out_root = sys.argv[1]
    todo = sys.argv[2:] or list(MODELS)
    bad = [n for n in todo if n not in MODELS]
    if bad:
        sys.exit("unknown model(s): %s\nmodels: %s" % (" ".join(bad), " ".join(MODELS)))
    # the exporter's advice about batch sizes and shape inference is about other uses
    warnings.filterwarnings("ignore", category=UserWarning)
    torch.set_num_threads(1)  # reproducible reductions, and CI machines are small
    os.makedirs(out_root, exist_ok=True)
    for name in todo:
        for opset in OPSETS:
            if export(name, opset, out_root):
                print("exported %s_op%d" % (name, opset), flush=True)


if __name__ == "__main__":
    main()
