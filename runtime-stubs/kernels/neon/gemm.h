/* neon/gemm.h — NEON (aarch64 and armv7 + neon-vfpv4) kernels of f32 Conv, MatMul
 * and Gemm for the neon and neon32 targets: same parameters, slots and semantics as
 * the reference kernels of conv.h and linalg.h, including the fused epilogue.
 *
 * A generated model copies only this family's own .c/.h, so the parameter field
 * lists are repeated here under NEON names; codegen/neon/lower.c checks at build
 * time that each layout equals the reference struct's, field by field. */
#ifndef INGOT_KERNELS_NEON_GEMM_H
#define INGOT_KERNELS_NEON_GEMM_H

#include "ingot_rt.h"
#include "../ewtable.h"

/* Fused epilogue activations (field `act`): ewtable.h's epilogue codes. */
#define INGOT_EW_ACT_PFX(N) INGOT_NEON_ACT_##N
enum { INGOT_NEON_ACT_NONE, INGOT_EW_TABLE(INGOT_EW_ACT_ALIAS) };
#undef INGOT_EW_ACT_PFX

/* = INGOT_CONV_FIELDS (conv.h); the NEON kernel takes f32 Conv (not transposed)
 * with 1 or 2 spatial dims. */
#define INGOT_NEON_CONV_FIELDS(F) F(I64, dtype) F(I64, transposed) F(I64, nsp) F(I64, group) \
	F(I64, has_bias) F(DIMS, x_dims) F(DIMS, w_dims) F(DIMS, y_dims) F(DIMS, strides) \
	F(DIMS, dilations) F(DIMS, pads) F(I64, act) F(F32, act_alpha) F(F32, act_beta) \
	F(I64, has_residual)
INGOT_PARAMS(ingot_neon_conv_params, INGOT_NEON_CONV_FIELDS)

/* = INGOT_MATMUL_FIELDS (linalg.h), f32 */
#define INGOT_NEON_MATMUL_FIELDS(F) F(I64, dtype) F(I64, m) F(I64, n) F(I64, k) \
	F(I64, nb) F(DIMS, bdims) F(DIMS, a_bstr) F(DIMS, b_bstr) \
	F(I64, act) F(F32, act_alpha) F(F32, act_beta) F(I64, has_residual)
INGOT_PARAMS(ingot_neon_matmul_params, INGOT_NEON_MATMUL_FIELDS)

/* = INGOT_GEMM_FIELDS (linalg.h), f32 */
#define INGOT_NEON_GEMM_FIELDS(F) F(I64, dtype) F(I64, m) F(I64, n) F(I64, k) \
	F(I64, trans_a) F(I64, trans_b) F(F32, alpha) F(F32, beta) F(I64, has_c) \
	F(I64, c_rs) F(I64, c_cs) F(I64, act) F(F32, act_alpha) F(F32, act_beta) \
	F(I64, has_residual)
INGOT_PARAMS(ingot_neon_gemm_params, INGOT_NEON_GEMM_FIELDS)

/* Blocking of the GEMM core: k-blocks of KC, NC columns of B and MR rows of A packed
 * per block, MR x NR microkernel tiles. MR and NR are the generated microkernels'
 * (ukernel.h, from the target's register count: 8 x 12 on aarch64, 4 x 12 on armv7);
 * the scratch is sized for any blocking up to these bounds. */
#define INGOT_NEON_KC 256
#define INGOT_NEON_NC 48
#define INGOT_NEON_NR_MAX 16
#define INGOT_NEON_MR_MAX 16

/* Scratch bytes of a GEMM of depth k (Conv: Cin / group * kernel area; depthwise
 * Conv needs none): its packed panels of B and A and one output tile. */
static inline INGOT_UNUSED int64_t ingot_neon_gemm_scratch_bytes(int64_t k)
{
	const int64_t kc = k < INGOT_NEON_KC ? (k > 0 ? k : 0) : INGOT_NEON_KC;
	return (int64_t)sizeof(float) *
	       (kc * INGOT_NEON_NC + kc * INGOT_NEON_MR_MAX + INGOT_NEON_MR_MAX * INGOT_NEON_NR_MAX);
}

/* Tasks split as the reference kernels do: Conv the N * M output planes, MatMul
 * the batch * m rows, Gemm the m rows. Scratch: ingot_neon_gemm_scratch_bytes(k),
 * 4-byte aligned (the packing buffers; a task split needs one per task). */
INGOT_KERNEL int ingot_neon_conv(const void *params, const void *const *in, void *const *out,
                                 void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_neon_matmul(const void *params, const void *const *in,
                                   void *const *out, void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_neon_gemm(const void *params, const void *const *in, void *const *out,
                                 void *scratch, int task, int n_tasks);

#endif /* INGOT_KERNELS_NEON_GEMM_H */
