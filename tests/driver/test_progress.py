#!/usr/bin/env python3
"""progress: -q, -v and the progress line of `ingot compile`.
- -q: a compile that warns (a leading symbolic dim made 1) prints nothing; an error
  still prints its line (exit 1).
- -v: one timing line per pass, in the order --print-ir-after-all runs them, between
  the import and codegen lines, and a total last.
- the progress line: with stderr a terminal (a pty) and INGOT_PROGRESS_AFTER=0, the
  line `\\r\\033[Kingot: pass NAME (i/n), N nodes, T s` is drawn for every pass and
  cleared at the end; with the default delay (2 s) a compile this fast draws nothing;
  with stderr a pipe, or -q, nothing either.

    test_progress.py INGOT WORKDIR
"""
import os
import pty
import re
import select
import subprocess
import time

from onnx import TensorProto, helper

from common import check, init, main, model, randf, rng, run, run_ok, save, vi

N = helper.make_node
F = TensorProto.FLOAT


def on_pty(argv, env):
    """Runs argv with stderr on a pseudo-terminal; returns (exit code, what it wrote there)."""
    master, slave = pty.openpty()
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave, env=env)
    os.close(slave)
    data = b""
    while True:
        r, _, _ = select.select([master], [], [], 60)
        if not r:
            p.kill()
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:       # EIO: the child closed the terminal
            break
        if not chunk:
            break
        data += chunk
    os.close(master)
    return p.wait(timeout=60), data.decode("utf-8", "replace")


def test(ingot, work):
    r = rng(4)
    m = model([N("Conv", ["x", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1]),
               N("Relu", ["c"], ["y"], name="relu")],
              [vi("x", F, ["N", 3, 8, 8])], [vi("y", F, ["N", 4, 8, 8])],
              [init("w", randf(r, 4, 3, 3, 3)), init("b", randf(r, 4))])
    p = save(m, os.path.join(work, "m.onnx"))
    out_dir = os.path.join(work, "out")
    base = [ingot, "compile", p, "-o", out_dir]

    # -q
    _, err = run_ok(base)
    check("warning" in err, "the symbolic-dim model should warn without -q: %r" % err)
    out, err = run_ok(base + ["-q"])
    check(err == "" and out == "", "-q printed %r %r" % (out, err))
    rc, _, err = run([ingot, "compile", os.path.join(work, "none.onnx"), "-q", "-o", out_dir])
    check(rc == 1 and len(err.strip().splitlines()) == 1 and "none.onnx" in err,
          "-q on a missing model: exit %d, %r (expected 1 and its error line)" % (rc, err))

    # -v
    _, dumps = run_ok(base + ["-q", "--print-ir-after-all"])
    want = re.findall(r"^// IR after (\S+):", dumps, re.M)
    _, err = run_ok(base + ["-v"])
    lines = [l for l in err.splitlines() if l.startswith("ingot: ")]
    timed = [re.match(r"^ingot: (.+?)\s+(\d+\.\d{3}) s(  (\d+) nodes)?$", l) for l in lines]
    check(all(timed), "-v: lines without a time: %s" % [l for l, t in zip(lines, timed) if not t])
    stages = [t.group(1) for t in timed]
    passes = [re.match(r"^pass (\S+) \((\d+)/(\d+)\)$", s) for s in stages]
    got = [x.group(1) for x in passes if x]
    check(got == want, "-v passes %s, --print-ir-after-all ran %s" % (got, want))
    check(all(int(x.group(2)) == i + 1 and int(x.group(3)) == len(want) for i, x in enumerate(y for y in passes if y)),
          "-v: pass numbering %s" % stages)
    check(stages[0] == "import" and "codegen" in stages and stages[-1] == "total",
          "-v stages %s: expected import first, codegen, total last" % stages)
    check(stages.index("codegen") > max(i for i, x in enumerate(passes) if x), "-v: codegen before a pass")

    # the progress line on a terminal
    env0 = dict(os.environ, INGOT_PROGRESS_AFTER="0")
    rc, tty = on_pty(base + ["--disable-pass", "cse"], env0)
    check(rc == 0, "compile on a pty: exit %d: %r" % (rc, tty))
    drawn = re.findall(r"\r\x1b\[Kingot: pass (\S+) \((\d+)/(\d+)\), (\d+) nodes, [0-9.]+ s", tty)
    # the ticker may redraw a pass's line (every 100 ms): one entry per run of equal lines
    drawn = [d for i, d in enumerate(drawn) if i == 0 or d[:3] != drawn[i - 1][:3]]
    check([d[0] for d in drawn] == [w for w in want if w != "cse"],
          "progress lines for passes %s, expected %s: %r" % ([d[0] for d in drawn], want, tty))
    check(all(int(d[3]) > 0 for d in drawn), "progress lines with no nodes: %r" % tty)
    check(tty.endswith("\r\x1b[K"), "the progress line is not cleared at the end: %r" % tty[-80:])
    check("warning" in tty, "the warning is missing on the terminal: %r" % tty)
    # (only a compile that really ended within 1.5 s may be held to it: on a loaded
    # machine this one can pass the 2 s, and then it must draw)
    t0 = time.monotonic()
    rc, tty = on_pty(base, dict(os.environ))
    took = time.monotonic() - t0
    check(rc == 0, "compile on a pty: exit %d: %r" % (rc, tty))
    if took < 1.5:
        check("\x1b[K" not in tty, "a compile of %.2f s drew a progress line: %r" % (took, tty))
    else:
        print("the default-delay compile took %.2f s: not held to drawing nothing" % took)
    rc, tty = on_pty(base + ["-q"], env0)
    check(rc == 0 and tty == "", "-q on a terminal printed %r" % tty)
    _, err = run_ok(base, env=env0)
    check("\x1b[K" not in err and "\r" not in err, "progress drawn into a pipe: %r" % err)


if __name__ == "__main__":
    main(test)
