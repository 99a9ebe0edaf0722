#!/usr/bin/env python3
"""install: `meson install` (into a DESTDIR) installs bin/ingot, which compiles a model
on its own (the runtime stubs are inside it), the runtime headers, the man page and
the bash completion. `man -l` of the installed page shows every option the parser
(compiler/driver/options.c, main.c) knows; the completion offers every one of them
too, completes `compile --sv` to --svg and --svg-before and `--target` to the targets.

    test_install.py INGOT WORKDIR BUILD_ROOT
"""
import os
import re
import subprocess

from onnx import TensorProto, helper

from common import Fail, check, main, model, run_ok, save, tool, vi

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "..", "..", "compiler", "driver")


def parser_options():
    """Every flag the parser compares an argument with, and main.c's."""
    opts = set()
    for f in ("options.c", "main.c"):
        text = open(os.path.join(SRC, f)).read()
        opts |= set(re.findall(r'strcmp\((?:a|argv\[1\]), "(-[-a-zA-Z0-9]+)"\) == 0', text))
    check(len(opts) > 30, "found only %d options in options.c/main.c: %s" % (len(opts), sorted(opts)))
    return opts


def find(root, rel):
    for r, _, files in os.walk(root):
        p = os.path.join(r, os.path.basename(rel))
        if os.path.basename(rel) in files and p.endswith(rel):
            return p
    raise Fail("meson install installed no %s under %s" % (rel, root))


def complete(script, words):
    cmd = 'source "%s"; COMP_WORDS=(%s); COMP_CWORD=%d; _ingot; echo "${COMPREPLY[*]}"' % (
        script, " ".join("'%s'" % w for w in words), len(words) - 1)
    return run_ok(["bash", "-c", cmd])[0].split()


def test(ingot, work, build_root):
    meson, man = tool("meson"), tool("man")
    dest = os.path.join(work, "dest")
    run_ok([meson, "install", "-C", build_root, "--destdir", dest, "--no-rebuild", "--quiet"], timeout=300)
    exe = find(dest, "bin/ingot")
    page = find(dest, "man1/ingot.1")
    comp = find(dest, "completions/ingot")
    find(dest, "include/ingot/ingot_rt.h")

    # the installed binary works alone
    out, _ = run_ok([exe, "--version"])
    check(out.startswith("ingot "), "--version printed %r" % out)
    m = model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
              [vi("x", TensorProto.FLOAT, [1, 4])], [vi("y", TensorProto.FLOAT, [1, 4])])
    p = save(m, os.path.join(work, "r.onnx"))
    run_ok([exe, "compile", p, "-o", os.path.join(work, "r"), "--emit", "lib"], cwd=work)
    check(os.path.isfile(os.path.join(work, "r", "libr.a")), "the installed ingot built no libr.a")

    # the man page lists every option
    env = dict(os.environ, MANWIDTH="200", MAN_KEEP_FORMATTING="", LC_ALL="C.UTF-8")
    r = subprocess.run([man, "-l", page], capture_output=True, env=env, timeout=60)
    text = re.sub(r".\x08", "", r.stdout.decode("utf-8", "replace")).replace("\u2212", "-").replace("\u2010", "-")
    check(r.returncode == 0 and "INGOT(1)" in text, "man -l %s failed: %r" % (page, r.stderr[-500:]))
    opts = parser_options()
    missing = [o for o in sorted(opts) if not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(o), text)]
    check(not missing, "the man page lacks %s" % missing)
    check("-O0..-O3" in text, "the man page lacks -O0..-O3")

    # the completion
    offered = set()
    for cmd in ("compile", "check", "inspect", "opt"):
        offered |= set(complete(comp, ["ingot", cmd, "-"]))
    lacking = sorted(o for o in opts - {"--help", "-h", "--version", "--man", "--bash-completion"}
                     if o not in offered)
    check(not lacking, "the completion does not offer %s" % lacking)
    got = complete(comp, ["ingot", "compile", "--sv"])
    check(sorted(got) == ["--svg", "--svg-before"], "compile --sv completes to %s" % got)
    got = complete(comp, ["ingot", "compile", "m.onnx", "--target", "x86"])
    check(sorted(got) == ["x86-avx2", "x86-avx512"], "--target x86 completes to %s" % got)
    got = complete(comp, ["ingot", "co"])
    check(got == ["compile"], "ingot co completes to %s" % got)


if __name__ == "__main__":
    main(test)
