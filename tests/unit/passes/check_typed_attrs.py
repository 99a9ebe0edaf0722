#!/usr/bin/python3
"""No pass looks an attribute up by name (STYLE.md: no pass sees attribute strings).

usage: check_typed_attrs.py PASSES_DIR
Passes read and write attributes through the typed structs of compiler/ops/op_attrs.h.
Fails on any file in PASSES_DIR that calls a by-name lookup or import helper, pairs a
string literal with an attribute kind, builds a raw (named) attribute list, or reads
an op's AttrField table; rewrite.{c,h} may (rw_attrs_equal, rw_node_reset).
"""
import glob
import os
import re
import sys

RULES = [
    (re.compile(r"\b(rw_attr|rw_attr_field|rw_enum_index|import_\w+|raw_attr_\w+|ctrl_attr_\w+)\s*\("),
     "by-name attribute lookup or import"),
    (re.compile(r'"[^"\n]*"\s*,\s*(AK|RA)_[A-Z]+'), "attribute named by a string"),
    (re.compile(r"(\.|->)(fields|enums)\b"), "an op's attribute table read"),
    (re.compile(r"\bRawAttr\b"), "raw (named) attribute list"),
]
# rw_attrs_equal compares whole attribute blocks field by field; rw_node_reset passes
# a raw list through to the op's import
ALLOWED = {("rewrite.c", 2), ("rewrite.c", 3), ("rewrite.h", 3)}

bad = 0
files = sorted(glob.glob(os.path.join(sys.argv[1], "*.[ch]")))
for path in files:
    base = os.path.basename(path)
    with open(path) as f:
        for no, line in enumerate(f, 1):
            for k, (rx, what) in enumerate(RULES):
                if (base, k) not in ALLOWED and rx.search(line):
                    bad += 1
                    print("%s:%d: %s: %s" % (base, no, what, line.strip()))
print("%d files, %d string attribute lookups" % (len(files), bad))
sys.exit(1 if bad or not files else 0)
