/* target.c — the target table (targets/targets.h). Every target emits the portable
 * C of the reference kernels, compiled with its own compiler and ISA flags; the
 * SIMD targets add generated microkernels on top (see the performance work).
 * The one file that sees every backend (codegen/{c,x86,neon}): the library on top
 * of them, below the driver. */
#include "c_target.h"
#include "neon_target.h"
#include "opencl_target.h"
#include "x86_target.h"
#include "targets.h"

#include <string.h>

/* Each backend's lower and prepare, by the targets.h backend column; every target
 * emits through the C target (cg_c_emit). */
#define BACKEND_LOWER_c cg_ref_lower
#define BACKEND_PREPARE_c NULL
#define BACKEND_LOWER_x86 cg_x86_lower
#define BACKEND_PREPARE_x86 cg_x86_prepare
#define BACKEND_LOWER_neon cg_neon_lower
#define BACKEND_PREPARE_neon cg_neon_prepare

static const Target targets[] = {
#define X(id, name, isa, vbits, vregs, l1, l2, cc, cflags, emu, simd, backend) \
	{ name, isa, vbits, vregs, l1, l2, cc, cflags, emu, simd, \
	  BACKEND_LOWER_##backend, BACKEND_PREPARE_##backend, cg_c_emit, NULL, { 0, 0, 0, 0, 0, 0, 0 }, 0, NULL },
	INGOT_TARGETS(X)
#undef X
};

/* --target opencl, one per host target: the host's compiler, flags and emulator, the
 * OpenCL lowering and emission on top, the device of INGOT_OPENCL_DEVICE */
enum {   /* each target's index in targets[] */
#define X(id, name, isa, vbits, vregs, l1, l2, cc, cflags, emu, simd, backend) OCL_##id,
	INGOT_TARGETS(X)
#undef X
};
#define OCL_COST(dg, db, lu, kg, ku, hg, hb, tile) { hg, hb, dg, db, lu, kg, ku }
#define OCL_TILE(dg, db, lu, kg, ku, hg, hb, tile) tile
static const Target opencl_targets[] = {
#define X(id, name, isa, vbits, vregs, l1, l2, cc, cflags, emu, simd, backend) \
	{ "opencl", isa " + OpenCL", vbits, vregs, l1, l2, cc, cflags, emu, simd, \
	  cg_ocl_lower, cg_ocl_prepare, cg_ocl_emit, &targets[OCL_##id], \
	  INGOT_OPENCL_DEVICE(OCL_COST), INGOT_OPENCL_DEVICE(OCL_TILE), cg_ocl_supported },
	INGOT_TARGETS(X)
#undef X
};

static const struct { const char *target, *cpu, *flags; } cpus[] = {
#define X(target, cpu, flags) { target, cpu, flags },
	INGOT_CPUS(X)
#undef X
};

const Target cg_target_c = { "c", "portable C99", 0, 0, 32, 1024, "cc", INGOT_TARGET_CFLAGS, "", "",
	                     cg_ref_lower, NULL, cg_c_emit, NULL, { 0, 0, 0, 0, 0, 0, 0 }, 0, NULL };

const Target *cg_target_opencl(const Target *host)
{
	for (int i = 0; host && i < COUNTOF(opencl_targets); i++)
		if (opencl_targets[i].host == host)
			return &opencl_targets[i];
	return NULL;
}

const Target *cg_target_lookup(const char *name)
{
	if (strcmp(name, "host") == 0)
		return cg_target_host();
	if (strcmp(name, "opencl") == 0)   /* with the host target; --host-target picks another */
		return cg_target_opencl(cg_target_host());
	for (int i = 0; i < COUNTOF(targets); i++)
		if (strcmp(targets[i].name, name) == 0)
			return &targets[i];
	return NULL;
}

const Target *cg_target_host(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
	    __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
		return cg_target_lookup("x86-avx512");
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		return cg_target_lookup("x86-avx2");
	return cg_target_lookup("c");
#elif defined(__aarch64__)
	return cg_target_lookup("neon");
#else
	return cg_target_lookup("c");
#endif
}

const char *cg_target_cpu_flags(const Target *t, const char *cpu)
{
	for (int i = 0; i < COUNTOF(cpus); i++)
		if (strcmp(cpus[i].target, t->name) == 0 && strcmp(cpus[i].cpu, cpu) == 0)
			return cpus[i].flags;
	return NULL;
}

const char *cg_target_names(void)
{
	return "c, x86-avx2, x86-avx512, neon, neon32, opencl, host";
}
