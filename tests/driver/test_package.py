#!/usr/bin/env python3
"""package: a library from `ingot compile --emit lib` is found by other builds after
`make install PREFIX=DIR`: a C app builds with `pkg-config --cflags --libs NAME`
and, after the installed tree is moved elsewhere (the package files are
relocatable), with CMake's find_package(NAME) and the target NAME::NAME; both apps
compute what numpy computes.

    test_package.py INGOT WORKDIR
"""
import os
import shutil

import numpy as np
from onnx import TensorProto, helper

from common import check, init, main, model, run_ok, save, tool, vi

N = helper.make_node
F = TensorProto.FLOAT
X = np.array([[1.0, -2.0, 3.0, 0.5]], np.float32)

APP = r"""#include <stdio.h>
#include "pk.h"

static unsigned char ws[PK_WORKSPACE_SIZE + 1] __attribute__((aligned(64)));

int main(void)
{
	const float x[4] = { 1.0f, -2.0f, 3.0f, 0.5f };
	float y[3];
	int rc = pk_run(x, y, ws);
	printf("%d %.9g %.9g %.9g\n", rc, y[0], y[1], y[2]);
	return rc;
}
"""

CMAKE = """cmake_minimum_required(VERSION 3.13)
project(app C)
find_package(pk REQUIRED)
add_executable(app_cmake app.c)
target_link_libraries(app_cmake PRIVATE pk::pk)
"""


def check_app(exe, want, what):
    out, _ = run_ok([exe])
    vals = out.split()
    check(vals[0] == "0", "%s: pk_run returned %s" % (what, vals[0]))
    got = np.array([float(v) for v in vals[1:]], np.float32)
    check(np.allclose(got, want, rtol=1e-5, atol=1e-6), "%s: got %s, numpy %s" % (what, got, want))


def test(ingot, work):
    cc, pkgconf, cmake, make = tool("cc"), tool("pkg-config"), tool("cmake"), tool("make")
    w = np.array([[0.5, -1, 2], [1, 0.25, -0.5], [-1, 1, 1], [2, 0, 0.5]], np.float32)
    b = np.array([0.1, -0.2, 0.3], np.float32)
    m = model([N("MatMul", ["x", "w"], ["h"], name="mm"), N("Add", ["h", "b"], ["hb"], name="add"),
               N("Relu", ["hb"], ["y"], name="relu")],
              [vi("x", F, [1, 4])], [vi("y", F, [1, 3])], [init("w", w), init("b", b)])
    p = save(m, os.path.join(work, "pk.onnx"))
    want = np.maximum(X @ w + b, 0)[0]
    out = os.path.join(work, "out")
    run_ok([ingot, "compile", p, "--name", "pk", "--emit", "lib", "-o", out])
    prefix = os.path.join(work, "prefix")
    run_ok([make, "-s", "install", "PREFIX=" + prefix], cwd=out)
    for f in ("lib/libpk.a", "include/pk/pk.h", "include/pk/ingot_rt.h", "lib/pkgconfig/pk.pc",
              "lib/cmake/pk/pkConfig.cmake"):
        check(os.path.isfile(os.path.join(prefix, f)), "make install did not install %s" % f)
    app = os.path.join(work, "app")
    os.makedirs(app)
    with open(os.path.join(app, "app.c"), "w") as f:
        f.write(APP)
    with open(os.path.join(app, "CMakeLists.txt"), "w") as f:
        f.write(CMAKE)

    env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(prefix, "lib", "pkgconfig"))
    flags, _ = run_ok([pkgconf, "--cflags", "--libs", "pk"], env=env)
    exe = os.path.join(app, "app_pc")
    run_ok([cc, "app.c", "-o", exe] + flags.split(), cwd=app)
    check_app(exe, want, "pkg-config build")

    moved = os.path.join(work, "elsewhere")
    shutil.move(prefix, moved)
    bld = os.path.join(work, "app-build")
    run_ok([cmake, "-S", app, "-B", bld, "-DCMAKE_PREFIX_PATH=" + moved], timeout=300)
    run_ok([cmake, "--build", bld], timeout=300)
    check_app(os.path.join(bld, "app_cmake"), want, "CMake find_package build")


if __name__ == "__main__":
    main(test)
