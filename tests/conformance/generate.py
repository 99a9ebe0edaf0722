#!/usr/bin/python3
"""Writes the ONNX backend node tests of the installed python3-onnx into DIR.

usage: generate.py DIR

DIR/node/test_*/ gets model.onnx + test_data_set_N/{input,output}_J.pb, exactly what
`backend-test-tools generate-data` writes. Debian 12 pairs onnx 1.12 with numpy 1.24,
which dropped the np.float/np.bool/... aliases some onnx 1.12 test cases still use, so
they are restored first. Deterministic (seeded); a stamp file makes reruns free.
"""
import os
import random
import shutil
import sys
import tempfile
import warnings


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = os.path.abspath(sys.argv[1])
    try:
        import numpy as np
        import onnx
    except ImportError:
        sys.exit("generate.py: needs python3-onnx and python3-numpy (apt-get install python3-onnx)")
    stamp = os.path.join(out, ".generated-by")
    version = "onnx %s numpy %s" % (onnx.__version__, np.__version__)
    if os.path.exists(stamp) and open(stamp).read().strip() == version:
        return
    warnings.simplefilter("ignore")
    for name, typ in (("float", float), ("int", int), ("bool", bool), ("object", object),
                      ("str", str), ("complex", complex)):
        if name not in np.__dict__:
            setattr(np, name, typ)
    np.random.seed(0)
    random.seed(0)
    from onnx.backend.test.cmd_tools import main as tools_main
    parent = os.path.dirname(out)
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".onnx-tests.", dir=parent)
    try:
        sys.argv = ["backend-test-tools", "generate-data", "-o", tmp]
        tools_main()
        with open(os.path.join(tmp, ".generated-by"), "w") as f:
            f.write(version + "\n")
        if os.path.exists(out):
            shutil.rmtree(out)
        os.rename(tmp, out)
    finally:
        if os.path.exists(tmp):
            shutil.rmtree(tmp)
    print("generate.py: %d node tests in %s (%s)" % (len(os.listdir(os.path.join(out, "node"))), out, version))


if __name__ == "__main__":
    main()
