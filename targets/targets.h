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

/* --cpu tunings: X(target name, cpu, extra cflags, vector_bits, fma_ports, fma_bits,
 * fma_latency, l1d_kib, l2_kib, l3_kib). The flags follow the target's cflags, so an
 * ARMv8.2 CPU names its architecture with -march (a later -march replaces the
 * target's -march=armv8-a; -mcpu would conflict with it) and tunes with -mtune. The
 * ones with +dotprod get the `sdot` int8 kernels (neon/qgemm.c reads
 * __ARM_FEATURE_DOTPROD); the others `smull` + `sadalp`.
 * The rest describes the core, as the generator's register and cache blocking reads
 * it (codegen/common/ukgen.c): vector_bits the register width the target's kernels
 * use; fma_ports the vector FMA pipes and fma_bits the width each executes per cycle
 * (Zen 4 runs a 512-bit FMA as two 256-bit halves); fma_latency in cycles; caches
 * per core in KiB (l3_kib: the core's share of a shared L3). From the vendors'
 * optimization manuals and public microbenchmarks, rounded; `--target host` reads
 * the caches of the machine itself (codegen/cpu.c). Zen 5 (znver5) runs 512-bit FMAs
 * whole and has a 48 KiB L1d; gcc 12 has no -march=znver5, so it takes znver4's ISA
 * plus AVX-VNNI (the VEX form Zen 5 adds). */
#define INGOT_CPUS(X) \
	X("neon", "cortex-a53", "-mcpu=cortex-a53", 128, 1, 64, 4, 32, 512, 0) \
	X("neon", "cortex-a55", "-march=armv8.2-a+dotprod -mtune=cortex-a55", 128, 1, 128, 4, 32, 256, 512) \
	X("neon", "cortex-a72", "-mcpu=cortex-a72", 128, 2, 128, 7, 32, 1024, 0) \
	X("neon", "cortex-a76", "-march=armv8.2-a+dotprod -mtune=cortex-a76", 128, 2, 128, 4, 64, 512, 1024) \
	X("neon", "cortex-a78", "-march=armv8.2-a+dotprod -mtune=cortex-a78", 128, 2, 128, 4, 64, 512, 1024) \
	X("neon", "neoverse-n1", "-march=armv8.2-a+dotprod -mtune=neoverse-n1", 128, 2, 128, 4, 64, 1024, 1024) \
	X("neon32", "cortex-a7", "-mcpu=cortex-a7", 128, 1, 64, 8, 32, 512, 0) \
	X("neon32", "cortex-a53", "-mcpu=cortex-a53", 128, 1, 64, 4, 32, 512, 0) \
	X("x86-avx2", "haswell", "-march=haswell", 256, 2, 256, 5, 32, 256, 2560) \
	X("x86-avx2", "znver3", "-march=znver3", 256, 2, 256, 4, 32, 512, 4096) \
	X("x86-avx512", "skylake-avx512", "-march=skylake-avx512", 512, 2, 512, 4, 32, 1024, 1408) \
	X("x86-avx512", "icelake-server", "-march=icelake-server", 512, 2, 512, 4, 48, 1280, 1536) \
	X("x86-avx512", "sapphirerapids", "-march=sapphirerapids", 512, 2, 512, 4, 48, 2048, 1920) \
	X("x86-avx512", "znver4", "-march=znver4", 512, 2, 256, 4, 32, 1024, 4096) \
	X("x86-avx512", "znver5", "-march=znver4 -mavxvnni", 512, 2, 512, 4, 48, 1024, 4096)

/* `--target host`: which --cpu row a detected x86 core is, X(vendor, family, first
 * model, last model, cpu). Models outside every range keep the target's defaults
 * with the caches the machine reports. */
#define INGOT_CPU_MODELS(X) \
	X("GenuineIntel", 6, 0x3c, 0x3c, "haswell") X("GenuineIntel", 6, 0x3f, 0x3f, "haswell") \
	X("GenuineIntel", 6, 0x45, 0x46, "haswell") \
	X("GenuineIntel", 6, 0x55, 0x55, "skylake-avx512") \
	X("GenuineIntel", 6, 0x6a, 0x6a, "icelake-server") X("GenuineIntel", 6, 0x6c, 0x6c, "icelake-server") \
	X("GenuineIntel", 6, 0x8f, 0x8f, "sapphirerapids") \
	X("GenuineIntel", 6, 0xcf, 0xcf, "sapphirerapids")   /* Emerald Rapids: the same core */ \
	X("AuthenticAMD", 0x19, 0x00, 0x0f, "znver3") X("AuthenticAMD", 0x19, 0x20, 0x5f, "znver3") \
	X("AuthenticAMD", 0x19, 0x10, 0x1f, "znver4") X("AuthenticAMD", 0x19, 0x60, 0x7f, "znver4") \
	X("AuthenticAMD", 0x19, 0xa0, 0xaf, "znver4") \
	X("AuthenticAMD", 0x1a, 0x00, 0x7f, "znver5")   /* Turin, Strix, Granite Ridge, Krackan */

/* ARM cores by MIDR implementer and part (/proc/cpuinfo "CPU implementer", "CPU part"):
 * X(implementer, part, cpu) */
#define INGOT_ARM_PARTS(X) \
	X(0x41, 0xd03, "cortex-a53") X(0x41, 0xd05, "cortex-a55") X(0x41, 0xd08, "cortex-a72") \
	X(0x41, 0xd0b, "cortex-a76") X(0x41, 0xd41, "cortex-a78") X(0x41, 0xd0c, "neoverse-n1")

#endif /* INGOT_TARGETS_H */
