"""Helpers the cross test scripts share (tests/cross/neon_test.py, neon_qgemm_test.py):
the failure list, running a command as a check, and objdump's functions."""
import re
import subprocess

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL " + msg)


def run(cmd, **kw):
    """Runs cmd, a failure when it exits non-zero; returns the CompletedProcess."""
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode:
        fail("%s exited %d: %s" % (" ".join(cmd), r.returncode, (r.stdout + r.stderr)[-2000:]))
    return r


def functions(disasm):
    """name -> list of instruction lines, from objdump -d output."""
    funcs, cur = {}, None
    for line in disasm.splitlines():
        m = re.match(r"^[0-9a-f]+ <([^>]+)>:$", line)
        if m:
            cur = funcs.setdefault(m.group(1), [])
        elif cur is not None and line.startswith(" "):
            cur.append(line)
    return funcs


def reachable(funcs, root, call):
    """The instructions of function root and of every function it calls (call: the
    regex of a call instruction, group 1 the callee), transitively."""
    seen, todo, out = set(), [root], []
    while todo:
        f = todo.pop()
        if f in seen or f not in funcs:
            continue
        seen.add(f)
        for ins in funcs[f]:
            out.append(ins)
            m = call.search(ins)
            if m:
                todo.append(m.group(1))
    return out
