#!/usr/bin/env python3
"""docs_errors: docs/errors.md, the error catalogue, is backed by tests. Each section
(### heading) has an example message (a ```text block), and a line
`- Test: `NAME` in `FILE`, which checks `FRAG` [`FRAG`...]`. For each: every FRAG is
in the example message and in FILE (the test asserts it), at least one FRAG is in
ingot's sources (compiler/, codegen/, passes/, runtime-stubs/: the message is
ingot's), NAME is a test registered in a meson.build. Every DiagCode of
compiler/diag/diag.h but DC_GENERIC is named by some section.

    check_errors.py SOURCE_ROOT
"""
import os
import re
import sys


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def c_sources(root):
    text = []
    for top in ("compiler", "codegen", "passes", "runtime-stubs"):
        for r, _, files in os.walk(os.path.join(root, top)):
            text += [read(os.path.join(r, f)) for f in files if f.endswith((".c", ".h"))]
    return "\n".join(text)


def registered(root, name):
    builds = []
    for r, _, files in os.walk(os.path.join(root, "tests")):
        builds += [read(os.path.join(r, f)) for f in files if f == "meson.build"]
    text = "\n".join(builds)
    if "'%s'" % name in text:
        return True
    # the errors_CASE tests are registered from a list of cases
    m = re.match(r"errors_(\w+)$", name)
    return bool(m and "'errors_' + c" in text and "'%s'" % m.group(1) in text)


def main():
    root = sys.argv[1]
    doc = read(os.path.join(root, "docs", "errors.md"))
    src = c_sources(root)
    problems = []
    sections = re.split(r"^### ", doc, flags=re.M)[1:]
    for sec in sections:
        title = sec.splitlines()[0]
        msg = re.search(r"^```text\n(.*?)\n```", sec, re.M | re.S)
        test = re.search(r"^- Test: `([\w-]+)` in `([^`]+)`, which checks (.+)$", sec, re.M)
        if not msg or not test:
            problems.append("%s: no example message or no '- Test:' line" % title)
            continue
        message, name, path = msg.group(1), test.group(1), test.group(2)
        frags = re.findall(r"`([^`]+)`", test.group(3))
        if not frags:
            problems.append("%s: the Test line names no fragment" % title)
            continue
        tpath = os.path.join(root, path)
        tsrc = read(tpath) if os.path.isfile(tpath) else None
        if tsrc is None:
            problems.append("%s: no test file %s" % (title, path))
        for f in frags:
            if f not in message:
                problems.append("%s: '%s' is not in the example message" % (title, f))
            if tsrc is not None and f not in tsrc:
                problems.append("%s: %s does not check '%s'" % (title, path, f))
        if not any(f in src for f in frags):
            problems.append("%s: none of %s is in ingot's sources" % (title, frags))
        if not registered(root, name):
            problems.append("%s: no test '%s' in any tests/**/meson.build" % (title, name))
    codes = re.findall(r"^\s*(DC_[A-Z_]+)", read(os.path.join(root, "compiler", "diag", "diag.h")), re.M)
    for c in codes:
        if c != "DC_GENERIC" and "`%s`" % c not in doc:
            problems.append("no section for diagnostic code %s" % c)
    for p in problems:
        print("docs/errors.md: " + p)
    print("errors.md: %d sections, %d codes, %d problems" % (len(sections), len(codes), len(problems)))
    sys.exit(1 if problems or len(sections) < 10 else 0)


if __name__ == "__main__":
    main()
