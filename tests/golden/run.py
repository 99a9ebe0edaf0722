#!/usr/bin/python3
"""Golden IR tests: each tests/golden/cases/*.golden file holds a pass list, an input
IR and the expected IR after those passes (`ingot opt`). Review the diffs.
A case whose pass list names plan_memory compares the memory plan too (@arena+N offsets,
the workspace line); the others print without it (`ingot opt --no-offsets`), so a planner
change touches only plan_memory's own cases.

usage: run.py INGOT [--update] [CASE...]

File format:
    # passes: fold_constants,dce
    # input
    <text IR>
    # expected
    <text IR as `ingot opt INPUT --passes ...` prints it>
"""
import glob
import os
import subprocess
import sys
import tempfile


def split(path):
    passes, section, parts = None, None, {"input": [], "expected": []}
    for line in open(path):
        if line.startswith("# passes:"):
            passes = line.split(":", 1)[1].strip()
        elif line.strip() in ("# input", "# expected"):
            section = line.strip()[2:]
        elif section:
            parts[section].append(line)
    if passes is None:   # (an empty list is a case: the IR printed back unchanged)
        raise SystemExit("%s: no '# passes:' line" % path)
    return passes, "".join(parts["input"]), "".join(parts["expected"])


def main():
    ingot = sys.argv[1]
    update = "--update" in sys.argv
    names = [a for a in sys.argv[2:] if a != "--update"]
    here = os.path.dirname(os.path.abspath(__file__))
    cases = names or sorted(glob.glob(os.path.join(here, "cases", "*.golden")))
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            passes, inp, expected = split(case)
            src = os.path.join(tmp, "in.ir")
            open(src, "w").write(inp)
            cmd = [ingot, "opt", src, "--passes", passes]
            if "plan_memory" not in [p.strip() for p in passes.split(",")]:
                cmd.append("--no-offsets")
            r = subprocess.run(cmd, capture_output=True, text=True)
            got = r.stdout if r.returncode == 0 else "ERROR (exit %d): %s" % (r.returncode, r.stderr)
            if update:
                with open(case, "w") as f:
                    f.write("# passes: %s\n# input\n%s# expected\n%s" % (passes, inp, got))
                print("updated", os.path.basename(case))
            elif got != expected:
                failed += 1
                print("FAIL %s" % os.path.basename(case))
                import difflib
                sys.stdout.writelines(difflib.unified_diff(expected.splitlines(True), got.splitlines(True),
                                                           "expected", "got"))
            else:
                print("PASS %s" % os.path.basename(case))
    print("golden: %d cases, %d failed" % (len(cases), failed))
    sys.exit(1 if failed or not cases else 0)


if __name__ == "__main__":
    main()
