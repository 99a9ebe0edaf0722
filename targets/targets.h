/* targets.h — every target ingot generates code for, described once: ISA, vector
 * width and registers (what the SIMD kernel generator sizes its register blocking
 * from), cache sizes, the default C compiler and flags of the emitted build files,
 * and the emulator that runs its programs on an x86 host (`ingot check` uses it as
 * the default --runner). Cross toolchains: Debian's gcc-aarch64-linux-gnu,
 * gcc-arm-linux-gnueabihf; emulators: qemu-user.
 *
 * X(ID, name, isa, vector_bits, vector_regs, l1d_kib, l2_kib, cc, cflags, emulator, simd, backend)
 * simd: the folder of runtime-stubs/kernels/ with the target's SIMD kernels ("" = none).
 * backend: the code generator that lowers its nodes, codegen/<backend>/ (c, x86, neon;
 * codegen/target.c maps it to the backend's functions). `opencl` is not a row: it is
 * one of these (--host-target) plus the device (INGOT_OPENCL_DEVICE below). */
#ifndef INGOT_TARGETS_H
#define INGOT_TARGETS_H

#define INGOT_TARGET_CFLAGS "-O2 -std=c99 -Wall -Wextra -I."

#define INGOT_TARGETS(X) \
	X(C, "c", "portable C99", 0, 0, 32, 1024, "cc", INGOT_TARGET_CFLAGS, "", "", c) \
	X(X86_AVX2, "x86-avx2", "x86-64 with AVX2 and FMA", 256, 16, 32, 1024, "cc", \
	  INGOT_TARGET_CFLAGS " -mavx2 -mfma", "", "x86", x86) \
	X(X86_AVX512, "x86-avx512", "x86-64 with AVX-512 F/BW/DQ/VL and FMA", 512, 32, 32, 1024, "cc", \
	  INGOT_TARGET_CFLAGS " -mavx512f -mavx512bw -mavx512dq -mavx512vl -mfma", "", "x86", x86) \
	X(NEON, "neon", "aarch64 (ARMv8-A, Advanced SIMD)", 128, 32, 32, 512, "aarch64-linux-gnu-gcc", \
	  INGOT_TARGET_CFLAGS " -march=armv8-a", "qemu-aarch64 -L /usr/aarch64-linux-gnu", "neon", neon) \
	X(NEON32, "neon32", "armv7-a hard-float with NEON (vfpv4); NEON flushes denormals to zero", \
	  128, 16, 32, 512, "arm-linux-gnueabihf-gcc", \
	  INGOT_TARGET_CFLAGS " -march=armv7-a -mfpu=neon-vfpv4 -mfloat-abi=hard", \
	  "qemu-arm -L /usr/arm-linux-gnueabihf", "neon", neon)

/* --target opencl's device, as the placement pass's cost model (passes/place.c) and
 * the kernels see it: X(device GFLOP/s, device GB/s, launch us, host<->device GB/s,
 * per-copy latency us, host GFLOP/s, host GB/s, work-group tile of the GEMM-shaped
 * kernels). The default is a mid-range discrete GPU on PCIe beside a desktop CPU's
 * scalar C: offloading pays for large products and convolutions, not for a few
 * small elementwise nodes between CPU-only ones. */
#define INGOT_OPENCL_DEVICE(X) X(1000.0, 200.0, 10.0, 10.0, 20.0, 20.0, 10.0, 16)

/* --cpu tunings: X(target name, cpu, extra cflags). They follow the target's cflags,
 * so an ARMv8.2 CPU names its architecture with -march (a later -march replaces the
 * target's -march=armv8-a; -mcpu would conflict with it) and tunes with -mtune. The
 * ones with +dotprod get the `sdot` int8 kernels (neon/qgemm.c reads
 * __ARM_FEATURE_DOTPROD); the others `smull` + `sadalp`. */
#define INGOT_CPUS(X) \
	X("neon", "cortex-a53", "-mcpu=cortex-a53") \
	X("neon", "cortex-a55", "-march=armv8.2-a+dotprod -mtune=cortex-a55") \
	X("neon", "cortex-a72", "-mcpu=cortex-a72") \
	X("neon", "cortex-a76", "-march=armv8.2-a+dotprod -mtune=cortex-a76") \
	X("neon", "cortex-a78", "-march=armv8.2-a+dotprod -mtune=cortex-a78") \
	X("neon", "neoverse-n1", "-march=armv8.2-a+dotprod -mtune=neoverse-n1") \
	X("neon32", "cortex-a7", "-mcpu=cortex-a7") \
	X("neon32", "cortex-a53", "-mcpu=cortex-a53") \
	X("x86-avx2", "haswell", "-march=haswell") \
	X("x86-avx512", "skylake-avx512", "-march=skylake-avx512") \
	X("x86-avx512", "znver4", "-march=znver4")

#endif /* INGOT_TARGETS_H */
