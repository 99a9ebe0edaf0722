#!/usr/bin/python3
"""Top-1 on the 10,000 Fashion-MNIST test images of the two nets examples/fashion/train.py
trains (the small CNN and the MobileNet-style one), through ingot compiled for the host,
against torch's on the same images (issue 14's accuracy figures).

usage: fashion_top1.py INGOT WORK CACHE

Each net is trained once into CACHE (with the 500-image calibration set,
CACHE/calib/test_data_set_N/input_0.pb), compiled with `--target host --emit lib` plus a
row's extra flags, linked with examples/fashion/app.c and run on every test image. The
fp32 row must give torch's predictions (at most 2 of 10,000 may differ) and more than 80%.

The int8 rows hook in through ROWS: a label and the extra compile flags, e.g.
    ("int8", ["--quantize", "int8", "--calibrate", "{calib}"])
({calib} becomes CACHE/calib), and a bound on the drop against fp32 (issue 14: 0.5 points).
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "examples", "fashion"))
import train  # noqa: E402

NETS = ["cnn", "mobilenet"]
# label, extra compile flags, the most top-1 may drop against fp32 in points (None: fp32,
# which must match torch instead)
ROWS = [("fp32", [], None),
        ("int8", ["--quantize", "int8", "--calibrate", "{calib}"], 0.5)]


def top1(ingot, work, cache, net, label, flags):
    """Compiles CACHE/NET.onnx with the extra compile FLAGS into WORK/NET-LABEL, classifies
    the test set; returns the predictions (a string of digits, one per test image)."""
    out = os.path.join(work, net + "-" + label)
    flags = [f.replace("{calib}", os.path.join(cache, "calib")) for f in flags]
    subprocess.run([ingot, "compile", os.path.join(cache, net + ".onnx"), "--name", "fashion",
                    "-o", out, "--target", "host", "--emit", "lib"] + flags, check=True)
    app = os.path.join(out, "app")
    subprocess.run(["cc", "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-I" + out,
                    os.path.join(ROOT, "examples", "fashion", "app.c"),
                    os.path.join(out, "libfashion.a"), "-lm", "-o", app], check=True)
    pred = os.path.join(out, "pred.txt")
    subprocess.run([app, os.path.join(cache, "t10k-images-idx3-ubyte"),
                    os.path.join(cache, "t10k-labels-idx1-ubyte"), pred], check=True,
                   stdout=subprocess.DEVNULL)
    with open(pred) as f:
        return f.read().strip()


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    ingot, work, cache = sys.argv[1:]
    os.makedirs(work, exist_ok=True)
    metas = train.ensure(cache, NETS, calib=True)
    labels = "".join(str(b) for b in train.load_idx(
        os.path.join(cache, "t10k-labels-idx1-ubyte")))
    failed = []
    print("%-10s %-6s %8s %8s %8s" % ("net", "row", "top-1", "torch", "differ"))
    for net in NETS:
        ref = metas[net]["torch_predictions"]
        fp32 = None
        for label, flags, max_drop in ROWS:
            pred = top1(ingot, work, cache, net, label, flags)
            acc = 100.0 * sum(a == b for a, b in zip(pred, labels)) / len(labels)
            differ = sum(a != b for a, b in zip(pred, ref))
            print("%-10s %-6s %7.2f%% %7.2f%% %8d" % (
                net, label, acc, 100.0 * metas[net]["torch_correct"] / len(labels), differ))
            if len(pred) != len(labels):
                failed.append("%s %s: %d predictions for %d images" % (
                    net, label, len(pred), len(labels)))
            elif max_drop is None:
                fp32 = acc
                if differ > 2 or acc <= 80.0:
                    failed.append("%s %s: %d predictions differ from torch's, top-1 %.2f%%"
                                  % (net, label, differ, acc))
            elif fp32 is not None and fp32 - acc > max_drop:
                failed.append("%s %s: top-1 %.2f%% is %.2f points under fp32" % (
                    net, label, acc, fp32 - acc))
    if failed:
        sys.exit("fashion_top1: " + "; ".join(failed))


if __name__ == "__main__":
    main()
