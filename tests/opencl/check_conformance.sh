#!/usr/bin/env bash
# opencl_conformance: one passing ONNX node test per op (tests/cross/list.txt, the list
# the cross targets run) with `ingot check --target opencl --placement device` on the
# first OpenCL device (PoCL's CPU device in CI): each node that has a device kernel runs
# there, every other one on the host target, and every test must PASS. Then `inspect
# --json` of each: every CPU node carries the reason the placement pass gives, and at
# least MIN_DEVICE tests run nodes on the device (a floor, so losing device kernels fails).
# The program binary is shared through $INGOT_CHECK_CACHE/opencl, so it is built once.
# Exit 77 (skipped) only when no OpenCL platform exists.
#   tests/opencl/check_conformance.sh INGOT DATA_DIR LIST
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ingot=$1 data=$2 list=$3
MIN_DEVICE=45
/usr/bin/python3 "$here/has_platform.py" || { echo "SKIP: no OpenCL platform (install pocl-opencl-icd)"; exit 77; }
/usr/bin/python3 "$here/../conformance/generate.py" "$data" > /dev/null
dirs=()
while read -r t; do [ -n "$t" ] && dirs+=("$data/node/$t"); done < "$list"
out=$("$ingot" check "${dirs[@]}" --target opencl --placement device -j 2 --timeout 300) || true
echo "$out" | grep -v '^PASS ' || true
echo "$out" | grep -qx "${#dirs[@]} passed, 0 failed, 0 unsupported, 0 errors"
/usr/bin/python3 - "$ingot" "$MIN_DEVICE" "${dirs[@]}" <<'PY'
import json, os, subprocess, sys
import onnx
ingot, floor, dirs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
on_dev = 0
for d in dirs:
    # a model with an input that must be known at compile time (a shape, a Loop's trip
    # count) is inspected with every input bound to its test data, as `ingot check`
    # binds those it must
    argv = [ingot, "inspect", os.path.join(d, "model.onnx"), "--target", "opencl", "--placement", "device",
            "--json"]
    r = subprocess.run(argv, capture_output=True, text=True)
    if r.returncode and "must be known at compile time" in r.stderr:
        g = onnx.load(os.path.join(d, "model.onnx"), load_external_data=False).graph
        inits = {t.name for t in g.initializer}
        names = [i.name for i in g.input if i.name not in inits]
        for k, n in enumerate(names):
            argv += ["--bind", "%s=%s" % (n, os.path.join(d, "test_data_set_0", "input_%d.pb" % k))]
        r = subprocess.run(argv, capture_output=True, text=True)
    if r.returncode:
        sys.exit("FAIL %s: inspect exit %d: %s" % (d, r.returncode, r.stderr))
    p = json.loads(r.stdout)["placement"]
    on_dev += p["device_nodes"] > 0
    for c in p["cpu"]:
        if not c.get("why"):
            sys.exit("FAIL %s: CPU node %s without a reason" % (os.path.basename(d), c))
print("%d of %d tests run nodes on the device; every CPU node has its reason" % (on_dev, len(dirs)))
if on_dev < floor:
    sys.exit("FAIL: fewer than %d tests run on the device" % floor)
PY
