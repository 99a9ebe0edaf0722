#!/usr/bin/env python3
"""Build-time step of the LLVM backend: the kernel bitcode of one target.

    bitcode.py KGEN CLANG TARGET TRIPLE STUBS_DIR KERNELS_BC_C OUT.bc

KGEN writes the target's generated ukernel.h into a work folder and prints its C
flags (targets/targets.h); CLANG compiles kernels_bc.c (every kernel family and the
pool) with those flags to LLVM bitcode for TRIPLE (host: clang's default; the arm targets: clang finds the
headers of Debian's cross toolchains, /usr/aarch64-linux-gnu and
/usr/arm-linux-gnueabihf, for their triples). -ffp-contract=off: the C path's
`cc -std=c99` does not contract either, so both backends round alike."""
import os
import shutil
import subprocess
import sys

kgen, clang, target, triple, stubs, src, out = sys.argv[1:]
work = out + '.d'
os.makedirs(work, exist_ok=True)
flags = subprocess.run([kgen, target, work], check=True, capture_output=True, text=True).stdout.split()
flags = [f for f in flags if f not in ('-I.', '-Wall', '-Wextra')]
cmd = [clang] + (['--target=' + triple] if triple != 'host' else []) + flags
cmd += ['-emit-llvm', '-c', '-ffp-contract=off', '-D_POSIX_C_SOURCE=200809L',
        '-I' + stubs, '-I' + os.path.join(stubs, 'kernels')]
for simd in ('x86', 'neon'):
    if os.path.isdir(os.path.join(work, 'kernels', simd)):
        # ukernel.h includes "../ewtable.h", as beside a model
        shutil.copy(os.path.join(stubs, 'kernels', 'ewtable.h'), os.path.join(work, 'kernels', 'ewtable.h'))
        cmd += ['-DINGOT_BC_' + simd.upper(), '-I' + os.path.join(work, 'kernels', simd)]
cmd += [src, '-o', out]
subprocess.run(cmd, check=True)
