"""The CPU's instruction-set flags, for the tests that run x86 SIMD code natively
(tests/unit/x86/*.py, tests/driver/test_fused.py). A test whose target's flags are
missing runs what it can and exits 77 (meson: skipped), never 0.

INGOT_TEST_HIDE_CPU_FLAGS="avx512f,avx2" hides flags from /proc/cpuinfo, so a machine
that has them can take the path of one that lacks them.

INGOT_TEST_X86_WIDEST=1 (the sanitizer build of CI, to stay within its time) runs only
the widest of the x86 targets this CPU runs; the plain build runs them all, and
tests/full.sh runs them all under the sanitizers.
"""
import os
import sys

SKIPPED = 77
AVX2 = ("avx2", "fma")
AVX512 = ("avx512f", "avx512bw", "avx512dq", "avx512vl", "fma")   # what x86-avx512 builds with


def cpu_flags():
    try:
        flags = set(open("/proc/cpuinfo").read().split())
    except OSError:
        flags = set()
    hidden = os.environ.get("INGOT_TEST_HIDE_CPU_FLAGS", "").replace(",", " ").split()
    return flags - set(hidden)


def cpu_lacks(flags):
    """the flags of `flags` this CPU lacks, in order"""
    have = cpu_flags()
    return [f for f in flags if f not in have]


NEEDS = {"x86-avx2": AVX2, "x86-avx512": AVX512}


def runnable(targets):
    """(the x86 targets of `targets` this CPU can run, those it cannot), with a note each"""
    run, skipped = [], []
    for t in targets:
        missing = cpu_lacks(NEEDS[t])
        if missing:
            print("note: this CPU lacks %s; %s is not run" % (" ".join(missing), t))
        (skipped if missing else run).append(t)
    if os.environ.get("INGOT_TEST_X86_WIDEST") == "1" and len(run) > 1:
        print("note: INGOT_TEST_X86_WIDEST=1: only %s runs (not %s)" % (run[-1], ", ".join(run[:-1])))
        run = run[-1:]
    return run, skipped


def finish(failures, skipped):
    """exits 1 on failures, else 77 where a target was skipped, else 0"""
    print("%d failure(s)" % len(failures))
    if failures:
        sys.exit(1)
    if skipped:
        print("skipped: %s (the CPU lacks its instructions)" % ", ".join(skipped))
        sys.exit(SKIPPED)
    sys.exit(0)


if __name__ == "__main__":
    # `cpu.py TARGET`: exit 0 when this CPU runs TARGET's code (any non-x86 target: 0),
    # 1 with a note when it lacks flags (tests/models/run.sh, tests/quant/run.sh)
    lacking = cpu_lacks(NEEDS.get(sys.argv[1], ()))
    if lacking:
        print("note: this CPU lacks %s; %s is not run" % (" ".join(lacking), sys.argv[1]))
    sys.exit(1 if lacking else 0)
