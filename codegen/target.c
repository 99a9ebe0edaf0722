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

/* A target's generic core (no --cpu): two FMA pipes of the vector width, 4 cycles,
 * no L3 assumed (scalar C: one pipe) */
#define GENERIC_CORE(vbits) (vbits) ? 2 : 1, (vbits) ? (vbits) : 32, 4, 0

static const Target targets[] = {
#define X(id, name, isa, vbits, vregs, l1, l2, cc, cflags, emu, simd, backend) \
	{ name, isa, vbits, vregs, l1, l2, cc, cflags, emu, simd, \
	  BACKEND_LOWER_##backend, BACKEND_PREPARE_##backend, cg_c_emit, NULL, { 0, 0, 0, 0, 0, 0, 0 }, 0, NULL, \
	  NULL, GENERIC_CORE(vbits) },
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
	  INGOT_OPENCL_DEVICE(OCL_COST), INGOT_OPENCL_DEVICE(OCL_TILE), cg_ocl_supported, \
	  NULL, GENERIC_CORE(vbits) },
	INGOT_TARGETS(X)
#undef X
};

static const struct {
	const char *target, *cpu, *flags;
	int vbits, fma_ports, fma_bits, fma_latency, l1d_kib, l2_kib, l3_kib;
} cpus[] = {
#define X(target, cpu, flags, vbits, ports, fbits, lat, l1, l2, l3) \
	{ target, cpu, flags, vbits, ports, fbits, lat, l1, l2, l3 },
	INGOT_CPUS(X)
#undef X
};

const Target cg_target_c = { "c", "portable C99", 0, 0, 32, 1024, "cc", INGOT_TARGET_CFLAGS, "", "",
	                     cg_ref_lower, NULL, cg_c_emit, NULL, { 0, 0, 0, 0, 0, 0, 0 }, 0, NULL,
	                     NULL, GENERIC_CORE(0) };

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

int cg_target_tune(const Target *t, const char *cpu, const CpuInfo *host, Target *out)
{
	*out = *t;
	if (cpu) {
		int i = 0;
		while (i < COUNTOF(cpus) && (strcmp(cpus[i].target, t->name) || strcmp(cpus[i].cpu, cpu)))
			i++;
		if (i == COUNTOF(cpus))
			return -1;
		out->cpu = cpus[i].cpu;
		out->fma_ports = cpus[i].fma_ports;
		out->fma_bits = cpus[i].fma_bits;
		out->fma_latency = cpus[i].fma_latency;
		out->l1d_kib = cpus[i].l1d_kib;
		out->l2_kib = cpus[i].l2_kib;
		out->l3_kib = cpus[i].l3_kib;
	}
	if (host) {   /* what the machine reports wins over the table */
		if (host->l1d_kib > 0)
			out->l1d_kib = host->l1d_kib;
		if (host->l2_kib > 0)
			out->l2_kib = host->l2_kib;
		if (host->l3_kib > 0)
			out->l3_kib = host->l3_kib;
	}
	return 0;
}

const char *cg_target_names(void)
{
	return "c, x86-avx2, x86-avx512, neon, neon32, opencl, host";
}
