#!/usr/bin/python3
"""Checks that the must-pass list and known_failures.txt partition the node tests.

usage: known_failures.py NODE_DIR MUST_PASS_LIST KNOWN_FAILURES

Exits 1, naming the tests, when a generated test is on neither list, on both, or when a
known-failure line matches no test (a stale entry)."""
import fnmatch
import os
import sys


def load_known(path):
    """[(pattern, reason)] from known_failures.txt; a trailing * matches a prefix."""
    known = []
    for line in open(path):
        line = line.strip()
        if line and not line.startswith("#"):
            pat, _, why = line.partition(" ")
            known.append((pat, why.strip()))
    return known


def reason(known, test):
    for pat, why in known:
        if fnmatch.fnmatchcase(test, pat):
            return why
    return None


def main():
    node_dir, must_path, known_path = sys.argv[1:4]
    tests = sorted(t for t in os.listdir(node_dir) if t.startswith("test_"))
    must = set(open(must_path).read().split())
    known = load_known(known_path)
    bad = []
    for t in tests:
        listed = reason(known, t) is not None
        if t in must and listed:
            bad.append("%s: on must_pass.txt and in known_failures.txt" % t)
        elif t not in must and not listed:
            bad.append("%s: on neither must_pass.txt nor known_failures.txt" % t)
    bad += ["%s: must_pass.txt names a test that was not generated" % t for t in sorted(must - set(tests))]
    bad += ["%s: known_failures.txt entry matches no test" % p for p, _ in known
            if not any(fnmatch.fnmatchcase(t, p) for t in tests)]
    for b in bad:
        print("known_failures: " + b)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
