/* codegen.h — code generation shared by every target: the text emitter, C naming,
 * weight layout and files, build files, and the Target descriptor. A target lowers
 * each node to a kernel call and emits a model directory (docs/design.md, Codegen).
 *
 * Sections: emitter.c, naming.c, weights.c, buildfiles.c; codegen/c/: target.c,
 * lower.c, kernels.c, emit.c.
 */
#ifndef INGOT_CODEGEN_H
#define INGOT_CODEGEN_H

#include <stdarg.h>
#include <stdio.h>

#include "embedded.h"
#include "opimpl.h"
#include "passes.h"

#define INGOT_VERSION "0.1.0"

/* ---- emitter.c: indented text into a growable buffer, or streamed to a file ---- */

typedef struct Emitter {
	char *buf;
	size_t len, cap;
	int indent;                  /* tab stops */
	FILE *f;                     /* em_open's file: buf is a fixed buffer flushed to it */
	int err;                     /* the first write error's errno (a streamed emitter) */
	char *path;                  /* the streamed file's path, for em_close's message */
} Emitter;

void em_init(Emitter *e);
void em_free(Emitter *e);
/* A streamed emitter: its text goes to dir/name as it is made (a big model's source
 * file is tens of MB: no buffer of it all, no copy); reports DC_IO if it can't open. */
int em_open(Emitter *e, const char *dir, const char *name, DiagSink *d);
/* Flushes and closes an em_open'ed file (reports DC_IO on any write error) and frees
 * the emitter; em_free alone closes it without a report. */
int em_close(Emitter *e, DiagSink *d);
void em_raw(Emitter *e, const char *s, size_t n);
/* One line at the current indent (fmt without trailing newline). */
void em_line(Emitter *e, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
void em_blank(Emitter *e);                        /* an empty line */
void em_printf(Emitter *e, const char *fmt, ...)  /* no indent, no newline */
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
/* Writes the buffer to dir/name; reports DC_IO on failure. */
int em_write_file(const Emitter *e, const char *dir, const char *name, DiagSink *d);
int cg_write_bytes(const char *dir, const char *name, const void *data, size_t n, DiagSink *d);
int cg_mkdir_p(const char *path, DiagSink *d);

/* ---- naming.c ---- */

/* A C identifier from an ONNX name: [A-Za-z0-9_], no leading digit, not a keyword. */
void cg_ident(const char *name, char *buf, size_t cap);
/* Text safe inside a C comment (no "*" "/" pairs, no control chars). */
void cg_comment_text(const char *s, char *buf, size_t cap);
/* Is `name` a valid model name (C identifier)? */
bool cg_valid_model_name(const char *name);
void cg_upper(const char *s, char *buf, size_t cap);

/* ---- options shared by every target ---- */

typedef enum WeightsMode { WEIGHTS_AUTO, WEIGHTS_C, WEIGHTS_INCBIN, WEIGHTS_EXTERN } WeightsMode;

enum { EMIT_C = 1, EMIT_LIB = 2, EMIT_EXE = 4 };

typedef struct CodegenOptions {
	const char *name;            /* model name: prefix of every external symbol */
	const char *out_dir;
	unsigned emit;               /* EMIT_* bits */
	WeightsMode weights;
	const char *weights_section; /* linker section for the weights, or NULL */
	const char *flags_text;      /* the compile flags, stamped in the header */
	const char *source_name;     /* the model file's base name, stamped in the header */
	bool profile;                /* per-node timers (later) */
	const char *cpu_flags;       /* --cpu tuning flags added to the build files' CFLAGS */
} CodegenOptions;

/* ---- weights.c: which constants the code reads, and where in the blob ---- */

typedef struct WeightsLayout {
	int64_t *off;                /* per ValueId: offset in the emitted blob, -1 if absent */
	int64_t size;                /* bytes */
	const Graph *g;              /* whose blob holds the bytes (never copied: a 1 GB
	                                model's weights are written from it, in order) */
	ValueId *order;              /* the placed values, in offset order */
	int n_order;
} WeightsLayout;

void cg_weights_layout(const Graph *g, WeightsLayout *w);
void cg_weights_free(WeightsLayout *w);
/* The blob as one malloc'd buffer of w->size bytes (the caller frees it), for a
 * backend that needs it whole (LLVM's constant); the C backends write it in pieces. */
uint8_t *cg_weights_pack(const WeightsLayout *w);
/* Writes NAME_weights as a C array, an .incbin blob, or nothing (extern). */
int cg_weights_emit(const WeightsLayout *w, const CodegenOptions *o, WeightsMode mode,
                    DiagSink *d);
WeightsMode cg_weights_mode(const WeightsLayout *w, const CodegenOptions *o);

/* ---- buildfiles.c: Makefile and CMakeLists.txt for the output directory ---- */

typedef struct BuildFiles {
	const char **sources;        /* library sources (.c, .S) */
	int n_sources;
	const char *weights_bin;     /* .incbin payload (a dependency), or NULL */
	bool exe;                    /* also a runner */
	const char *default_cc;      /* the target's default compiler */
	const char *default_cflags;
	const char *ldlibs;          /* extra libraries to link (-lOpenCL), or NULL */
} BuildFiles;

int cg_emit_buildfiles(const CodegenOptions *o, const BuildFiles *b, DiagSink *d);

/* ---- stubs: copying runtime-stubs files next to the model ---- */

const IngotStub *cg_stub_find(const char *path);
int cg_copy_stub(const char *out_dir, const char *path, DiagSink *d);

/* ---- targets ---- */

typedef struct Target {
	const char *name;            /* "c", "neon", ... (targets/targets.h) */
	const char *isa;             /* human-readable ISA */
	int vector_bits;             /* SIMD register width, 0 for scalar C */
	int vector_regs;             /* architectural SIMD registers */
	int l1d_kib, l2_kib;         /* cache sizes the kernels block for */
	const char *cc;              /* default C compiler */
	const char *cflags;          /* default flags for the emitted build files */
	const char *emulator;        /* runs its programs on an x86 host ("" = native) */
	const char *simd;            /* runtime-stubs/kernels/<simd>/: its SIMD kernels, "" = none */
	/* lowers one node; every target falls back to the reference kernels. The memory
	 * planner calls it too (kc->scratch_bytes), so it must leave the graph as it is */
	int (*lower)(const struct Target *t, Graph *g, NodeId n, KernelCall *kc);
	/* rewrites the final graph for the target before the weights are laid out
	 * (pre-packed weights), or NULL */
	int (*prepare)(const struct Target *t, Graph *g);
	/* writes the model directory */
	int (*emit)(const struct Target *t, Graph *g, const CodegenOptions *o, DiagSink *d);
	/* --target opencl: the CPU target of the nodes left on the host (--host-target),
	 * the device the placement's cost model assumes, and the GEMM kernels' work-group
	 * tile (targets/targets.h INGOT_OPENCL_DEVICE); NULL / zeros for CPU targets */
	const struct Target *host;
	PlaceCost cost;
	int cl_tile;
	/* whether the device runs node n (PlaceConfig.supported), or NULL */
	bool (*device_supported)(const void *target, Graph *g, NodeId n, const char **why);
	/* the core the blocking is sized for (targets.h INGOT_CPUS): its --cpu name (NULL:
	 * the target's generic core), vector FMA pipes, the bits each runs per cycle, the
	 * FMA latency in cycles, and the core's share of L3 in KiB (0 = none) */
	const char *cpu;
	int fma_ports, fma_bits, fma_latency, l3_kib;
} Target;

/* ---- cpu.c: what the machine ingot runs on is (--target host) ---- */

enum {   /* CpuInfo.ext: ISA extensions, the names /proc/cpuinfo and hwcaps give them */
	CPU_AVX2 = 1 << 0, CPU_FMA = 1 << 1, CPU_AVX512F = 1 << 2, CPU_AVX512BW = 1 << 3,
	CPU_AVX512DQ = 1 << 4, CPU_AVX512VL = 1 << 5, CPU_AVX512VNNI = 1 << 6, CPU_AVXVNNI = 1 << 7,
	CPU_AVX512BF16 = 1 << 8, CPU_AVX512FP16 = 1 << 9, CPU_AMXTILE = 1 << 10, CPU_AMXINT8 = 1 << 11,
	CPU_AMXBF16 = 1 << 12, CPU_ASIMD = 1 << 13, CPU_ASIMDDP = 1 << 14, CPU_FPHP = 1 << 15,
	CPU_I8MM = 1 << 16,
};

typedef struct CpuInfo {
	char vendor[16];             /* "GenuineIntel", "AuthenticAMD", "ARM" */
	char brand[64];              /* the model name the OS reports */
	int family, model;           /* x86 family and model; ARM: MIDR implementer and part */
	unsigned ext;                /* CPU_* */
	int l1d_kib, l2_kib, l3_kib; /* per core (l3: the core's share); 0 = unknown */
	int cores;                   /* online logical CPUs */
	const char *cpu;             /* the --cpu tuning it matches (targets.h), or NULL */
} CpuInfo;

/* Reads /proc/cpuinfo-format text (x86 or ARM) into c: vendor, family/model (ARM:
 * implementer/part), extensions, processor count; c->cpu from the model tables. */
void cg_cpu_parse_cpuinfo(const char *text, CpuInfo *c);
/* Reads the caches of one CPU from a sysfs folder in the layout of
 * /sys/devices/system/cpu/cpu0/cache (indexN/{level,type,size,shared_cpu_list}). */
void cg_cpu_parse_sysfs_cache(const char *dir, CpuInfo *c);
void cg_cpu_amd_legacy_caches(unsigned ecx_80000005, unsigned ecx_80000006, CpuInfo *c);
/* The machine ingot runs on: /proc/cpuinfo and sysfs where present, cpuid otherwise. */
void cg_cpu_detect(CpuInfo *c);
/* The extensions of c by name, space-separated, into buf. */
const char *cg_cpu_ext_names(unsigned ext, char *buf, size_t cap);

/* lower.c: a node to its reference-kernel call (the C target's lower; every other
 * target's fallback) */
int cg_ref_lower(const Target *t, Graph *g, NodeId n, KernelCall *kc);

/* target.c (codegen/, on top of the backends): the table of targets/targets.h */
const Target *cg_target_lookup(const char *name);   /* NULL if unknown */
/* --target opencl with host the CPU target of its host nodes. */
const Target *cg_target_opencl(const Target *host);
/* The best target for the machine ingot runs on ("host"). */
const Target *cg_target_host(void);
/* t described for core cpu (an INGOT_CPUS name of t's; NULL: the generic core) with the
 * caches of host where it gives them (NULL: the table's); 0, or -1 when t has no such cpu */
int cg_target_tune(const Target *t, const char *cpu, const CpuInfo *host, Target *out);
/* Extra compiler flags of --cpu CPU for target t, or NULL if t has no such CPU. */
const char *cg_target_cpu_flags(const Target *t, const char *cpu);
/* Comma-separated target names, for messages. */
const char *cg_target_names(void);

#endif /* INGOT_CODEGEN_H */
