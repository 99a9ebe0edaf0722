/* ukgen.h — the microkernel generator of the SIMD targets. One generator, fed a
 * target's vector primitives (width, register count, how to load, store, mask,
 * broadcast and fuse a multiply-add), writes readable intrinsics C: the GEMM
 * microkernels with register blocking sized from the register count, and the
 * small vector vocabulary the SIMD kernel drivers (runtime-stubs/kernels/x86/)
 * are written in. Sections: ukgen.c. */
#ifndef INGOT_UKGEN_H
#define INGOT_UKGEN_H

#include "codegen.h"

/* A target's vector primitives, as C expression templates: %1$s, %2$s and %3$s are
 * the operands in the order the comment gives. */
typedef struct SimdIsa {
	const char *target;          /* targets.h name: "x86-avx512" */
	const char *header;          /* the intrinsics header */
	int lanes;                   /* floats per vector */
	int regs;                    /* vector registers */
	const char *vec, *mask;      /* C types of a vector and of a lane mask */
	const char *zero;            /* () */
	const char *load, *store;    /* (p), (p, v) unaligned */
	const char *loadm, *storem;  /* (p, m), (p, m, v): masked, masked-off lanes not touched */
	const char *bcast;           /* (x) */
	const char *fma;             /* (a, b, c): a * b + c */
	const char *add, *mul, *max, *min;   /* (a, b); max/min return b when a is NaN */
	const char *select_lt;       /* (v, t, u): lanes where v < t take u, others v */
	const char *mask_n;          /* (n): the first n lanes, 0 <= n <= lanes */
	const char *hsum;            /* (v): the sum of the lanes */
	const char *load_s2;         /* (p): p[0], p[2], ..., p[2 * (lanes - 1)] (reads 2 * lanes) */
	const char *store_il2;       /* (p, a, b): p[2i] = a[i], p[2i + 1] = b[i] (a statement) */
	const char *div;             /* (a, b) */
	const char *floor;           /* (v): round toward -inf */
	const char *pow2i;           /* (n): 2^n for whole n in [-126, 127] */
	const char *sel_lt;          /* (a, b, x, y): lanes where a < b take y, others x */
	const char *nan_sel;         /* (x, y): lanes where x is NaN take x, others y */
	const char *abs;             /* (v) */
	const char *copysign;        /* (m, s): |m| with the sign of s */
	const char *store_t8;        /* the prelude's function behind uk_store_t8 */
	const char *sub;             /* (a, b): a - b */
	const char *transpose;       /* (r): transposes the lanes x lanes block in r[0..lanes) (a
	                              * statement) */
} SimdIsa;

/* The ISA of a target, or NULL when it has no generated microkernels. */
const SimdIsa *ukgen_isa(const Target *t);

/* Register blocking from the register count and t's FMA pipes and latency: MR rows x
 * NR = nv vectors. */
void ukgen_blocking(const Target *t, const SimdIsa *isa, int *mr, int *nv);

/* The k-block: a B panel of kc x NR floats fills half of the target's L1. */
int ukgen_kc(const Target *t, const SimdIsa *isa);

/* The rows of A a GEMM packs per k-block, from the target's L2. */
int ukgen_mc(const Target *t, const SimdIsa *isa);

/* Writes the generated header (ukernel.h) for target t into e. */
void ukgen_emit(const Target *t, const SimdIsa *isa, Emitter *e);

/* Writes DIR/kernels/<simd>/ukernel.h when target t has generated microkernels. */
int ukgen_write(const Target *t, const char *out_dir, DiagSink *d);

#endif /* INGOT_UKGEN_H */
