#!/usr/bin/python3
"""Every header compiles on its own (STYLE.md: headers are self-contained).

usage: check_headers.py CC SOURCE_ROOT BUILD_ROOT
Compiles a translation unit holding only `#include "HEADER"` for each .h under
compiler/, passes/, codegen/ and runtime-stubs/ (-std=c11 -Wall -Wextra -Werror;
runtime-stubs headers also as -std=c99, since they ship with generated code).
"""
import glob
import os
import subprocess
import sys
import tempfile

cc, src, build = sys.argv[1], sys.argv[2], sys.argv[3]
headers = []
for top in ("compiler", "passes", "codegen", "runtime-stubs"):
    headers += glob.glob(os.path.join(src, top, "**", "*.h"), recursive=True)
dirs = sorted({os.path.dirname(h) for h in headers})
incs = ["-I" + d for d in dirs] + ["-I" + os.path.join(build, d) for d in ("compiler/frontend", "runtime-stubs")]
bad = 0
with tempfile.TemporaryDirectory() as tmp:
    tu = os.path.join(tmp, "tu.c")
    for h in sorted(headers):
        stds = ["-std=c11"]
        if "runtime-stubs" in h:
            stds.append("-std=c99")
        for std in stds:
            with open(tu, "w") as f:
                f.write('#include "%s"\n' % os.path.basename(h))
            cmd = [cc, std, "-Wall", "-Wextra", "-Werror", "-fsyntax-only", "-I" + os.path.dirname(h)] + incs + [tu]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode:
                bad += 1
                print("NOT SELF-CONTAINED (%s): %s\n%s" % (std, os.path.relpath(h, src), r.stderr.strip()))
print("%d headers, %d failures" % (len(headers), bad))
sys.exit(1 if bad or not headers else 0)
