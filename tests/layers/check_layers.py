#!/usr/bin/python3
"""The build enforces the layers (docs/design.md; docs/internals.md).

usage: check_layers.py CC SOURCE_ROOT BUILD_ROOT

LAYERS below is the rule: each layer's folders and the layers it may use. Each
is a meson static library whose include path names its own folders and those of
the layers below it, nothing else (implicit_include_directories off). Checks:
  1. the build agrees: every -I that compile_commands.json gives a layer's source
     is a folder the layer may use (or meson's private folder of the target);
  2. each library builds on its own: its sources compile with only its folders and
     those below on the include path;
  3. no include above a layer reaches a header that layer keeps private (EXPORTS);
  4. an upward or sideways include fails: a file holding only `#include "H"`, H the
     main header of a layer out of reach, does not compile with the real flags of
     any source of the layer.
"""
import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

# name: (folders, layers it uses directly, main header); bottom first
LAYERS = {
    "stubs": (["runtime-stubs", "runtime-stubs/kernels"], [], "ingot_rt.h"),
    "ir": (["compiler/diag", "compiler/ir"], ["stubs"], "ir.h"),
    "ops": (["compiler/ops"], ["ir"], "opimpl.h"),
    "frontend": (["compiler/frontend"], ["ops"], "frontend.h"),
    "passes": (["passes"], ["ops"], "passes.h"),
    "codegen/common": (["codegen/common"], ["passes"], "codegen.h"),
    "codegen/c": (["codegen/c"], ["codegen/common"], "c_target.h"),
    "codegen/x86": (["codegen/x86"], ["codegen/common"], "x86_target.h"),
    "codegen/neon": (["codegen/neon"], ["codegen/common"], "neon_target.h"),
    "codegen/opencl": (["codegen/opencl"], ["codegen/c"], "opencl_target.h"),
    "codegen/llvm": (["codegen/llvm"], ["codegen/c"], "llvm_target.h"),
    "codegen": (["codegen", "targets"], ["codegen/c", "codegen/x86", "codegen/neon", "codegen/opencl"],
                "targets.h"),
    "driver": (["compiler/driver"], ["frontend", "codegen", "codegen/llvm"], "driver.h"),
}
# Headers a layer shows the layers above it (absent: all of its headers).
EXPORTS = {
    "ops": ["opimpl.h", "op_attrs.h", "control_export.h", "graph_rewrite.h"],
    "frontend": ["frontend.h"],
    "codegen/c": ["c_target.h"],
}
# Build folders a layer's sources also see: generated headers of its own.
GENERATED = {"frontend": ["compiler/frontend"]}
# SIMD stubs build with a target's compiler and generated header (stubs_alone.sh).
SKIP_DIRS = ["runtime-stubs/kernels/x86", "runtime-stubs/kernels/neon"]
# Not translation units: files another file includes (the runner, after RUNNER_*)
# and the LLVM backend's kernels_bc.c (kernel sources that bitcode.py builds with clang on
# their own include path) and emit.c, which needs LLVM's headers (only a -Dllvm=enabled build has
# them; its include path is still checked there, by check 1)
NOT_UNITS = ["runtime-stubs/ingot_tensor_npy.c", "runtime-stubs/ingot_runner.c", "codegen/llvm/emit.c",
             "codegen/llvm/kernels_bc.c"]
CFLAGS = ["-std=c11", "-D_GNU_SOURCE", "-fsyntax-only"]


def reach(name, seen=None):
    """The layers `name` may use, itself included."""
    seen = set() if seen is None else seen
    if name not in seen:
        seen.add(name)
        for b in LAYERS[name][1]:
            reach(b, seen)
    return seen


def allowed_dirs(name, src, build):
    out = []
    for l in sorted(reach(name), key=list(LAYERS).index, reverse=True):
        out += [os.path.join(src, d) for d in LAYERS[l][0]]
        out += [os.path.join(build, d) for d in LAYERS[l][0]]
        out += [os.path.join(build, d) for d in GENERATED.get(l, [])]
    return out


def layer_of(path, src):
    rel = os.path.relpath(os.path.dirname(os.path.abspath(path)), src)
    for name, (dirs, _, _) in LAYERS.items():
        if rel in dirs:
            return name
    return None


def sources(name, src, ext):
    out = []
    for d in LAYERS[name][0]:
        full = os.path.join(src, d)
        if d in SKIP_DIRS or not os.path.isdir(full):
            continue
        out += sorted(os.path.join(full, f) for f in os.listdir(full)
                      if f.endswith(ext) and os.path.join(d, f) not in NOT_UNITS)
    return out


def compile_ok(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    return r.returncode == 0, r.stderr


def meson_flags(build):
    """source path -> (cwd, argv) from compile_commands.json"""
    with open(os.path.join(build, "compile_commands.json")) as f:
        entries = json.load(f)
    out = {}
    for e in entries:
        path = os.path.normpath(os.path.join(e["directory"], e["file"]))
        out[path] = (e["directory"], shlex.split(e["command"]))
    return out


def include_args(cwd, argv):
    dirs = []
    for i, a in enumerate(argv):
        if a == "-I" or a == "-isystem":
            d = argv[i + 1]
        elif a.startswith("-I"):
            d = a[2:]
        else:
            continue
        dirs.append(os.path.normpath(os.path.join(cwd, d)))
    return dirs


def main():
    cc, src, build = sys.argv[1], os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
    errors = []
    flags = meson_flags(build)

    # 1. the build's include paths are the rule's
    n_checked = 0
    for path, (cwd, argv) in sorted(flags.items()):
        name = layer_of(path, src)
        if name is None or not path.startswith(src + "/"):
            continue
        ok = set(os.path.normpath(d) for d in allowed_dirs(name, src, build))
        for d in include_args(cwd, argv):
            if d not in ok and not d.endswith(".p") and not d.startswith("/usr/"):
                errors.append("%s: meson gives layer %s the include folder %s" %
                              (os.path.relpath(path, src), name, d))
        n_checked += 1

    # 2. each library builds on its own
    jobs = []
    for name in LAYERS:
        incs = ["-I" + d for d in allowed_dirs(name, src, build)]
        for f in sources(name, src, ".c"):
            jobs.append((name, f, [cc] + CFLAGS + incs + [f]))
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for (name, f, _), (ok, err) in zip(jobs, pool.map(lambda j: compile_ok(j[2]), jobs)):
            if not ok:
                errors.append("%s (layer %s) does not build on its own:\n%s" %
                              (os.path.relpath(f, src), name, err.strip()))

    # 3. private headers stay private
    inc_re = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
    for name in LAYERS:
        search = allowed_dirs(name, src, build)
        for f in sources(name, src, ".c") + sources(name, src, ".h"):
            with open(f, errors="replace") as fh:
                text = fh.read()
            for h in inc_re.findall(text):
                for d in [os.path.dirname(f)] + search:
                    p = os.path.join(d, h)
                    if os.path.isfile(p):
                        owner = layer_of(p, src)
                        ex = EXPORTS.get(owner)
                        if owner and owner != name and ex is not None and os.path.basename(p) not in ex:
                            errors.append('%s (layer %s) includes "%s", private to layer %s' %
                                          (os.path.relpath(f, src), name, h, owner))
                        break

    # 4. an include of a layer out of reach fails with the real flags
    shown = False
    n_neg = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in LAYERS:
            mine = [p for p in flags if layer_of(p, src) == name and p.startswith(src + "/")]
            if not mine:
                continue
            cwd, argv = flags[sorted(mine)[0]]
            base = [a for i, a in enumerate(argv) if a.startswith(("-I", "-D", "-std"))]
            base = [a if not a.startswith("-I") or os.path.isabs(a[2:]) else
                    "-I" + os.path.normpath(os.path.join(cwd, a[2:])) for a in base]
            for other in LAYERS:
                if other in reach(name):
                    continue
                tu = os.path.join(tmp, "up.c")
                with open(tu, "w") as fh:
                    fh.write('#include "%s"\n' % LAYERS[other][2])
                ok, err = compile_ok([argv[0], "-fsyntax-only"] + base + [tu])
                n_neg += 1
                if ok:
                    errors.append('layer %s reaches "%s" of layer %s' % (name, LAYERS[other][2], other))
                elif not shown:
                    print('layer %s including "%s" (layer %s) fails as it should:\n  %s' %
                          (name, LAYERS[other][2], other, err.strip().splitlines()[0]))
                    shown = True

    for e in errors:
        print("LAYERING: " + e)
    print("%d layers; %d sources' include paths checked; %d sources built alone; "
          "%d upward includes refused; %d errors" % (len(LAYERS), n_checked, len(jobs), n_neg, len(errors)))
    sys.exit(1 if errors or not jobs or not n_checked else 0)


main()
