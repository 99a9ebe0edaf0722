/* fused.h — the reference kernel of FusedElementwise, the node the fuse_elementwise
 * pass makes of a chain of f32 elementwise ops: a small program run over the output
 * in blocks of INGOT_FE_BLOCK elements, each op through the very kernel it would run
 * alone (ingot_unary, ingot_binary, ingot_clip of elementwise.c), so a fused chain
 * computes the same bits as the separate nodes (-O0 and -O2 agree). Constant folding
 * runs it; generated code calls a function emitted for each node instead
 * (codegen/c/emit_fused.c), built on the same per-element math (ewmath.h).
 */
#ifndef INGOT_KERNELS_FUSED_H
#define INGOT_KERNELS_FUSED_H

#include "ingot_rt.h"

#define INGOT_FE_MAX_IN 4      /* inputs of one fused node */
#define INGOT_FE_MAX_OPS 8     /* ops of one fused node */
#define INGOT_FE_BLOCK 64      /* elements per block */

/* Op codes of a program step: an ingot_unary code (INGOT_EW_ABS...), INGOT_FE_BINARY
 * plus an ingot_binary code (INGOT_EW_ADD...), or INGOT_FE_CLIP. */
#define INGOT_FE_BINARY 32
#define INGOT_FE_CLIP 64

/* Registers: 0..n_in-1 are the inputs, n_in + k the result of step k; the last step's
 * is the output. Step k is ops[k] = code | a << 8 | b << 16 (b = 255: none) with
 * float parameters pa<k>, pb<k>, pg<k>: a unary op's alpha, beta, gamma; Clip's lo,
 * hi and has_lo | has_hi << 1. Input j is read at stride s<j>[d] along output dim d
 * (0 where it is broadcast); dims are the output's (rank 1..INGOT_MAX_RANK). */
#define INGOT_FE_STEP(F, k) F(F32, pa##k) F(F32, pb##k) F(F32, pg##k)
#define INGOT_FUSED_FIELDS(F) F(I64, n) F(I64, rank) F(DIMS, dims) F(I64, n_in) \
	F(DIMS, s0) F(DIMS, s1) F(DIMS, s2) F(DIMS, s3) F(I64, n_ops) F(DIMS, ops) \
	INGOT_FE_STEP(F, 0) INGOT_FE_STEP(F, 1) INGOT_FE_STEP(F, 2) INGOT_FE_STEP(F, 3) \
	INGOT_FE_STEP(F, 4) INGOT_FE_STEP(F, 5) INGOT_FE_STEP(F, 6) INGOT_FE_STEP(F, 7)
INGOT_PARAMS(ingot_fused_params, INGOT_FUSED_FIELDS)

INGOT_KERNEL int ingot_fused_elementwise(const void *params, const void *const *in,
                                         void *const *out, void *scratch, int task, int n_tasks);

#endif
