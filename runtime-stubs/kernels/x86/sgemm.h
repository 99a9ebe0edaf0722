/* x86/sgemm.h — x86 (AVX2, AVX-512) kernels of f32 Conv, MatMul and Gemm for the
 * x86-avx2 and x86-avx512 targets, built on the generated microkernels of
 * ukernel.h (codegen/common/ukgen.c writes it next to this file). Same slots and
 * semantics as the reference kernels of conv.h and linalg.h, including the fused
 * epilogue, plus one field: `packed`, set when the compiler pre-packed the
 * constant operand into the microkernels' panel layout (same size, permuted):
 *   Conv:        W per group as panels of UK_MR output channels; panel p of a
 *                group holds w[k][r] for its rows r, k over C/group * kh * kw;
 *   MatMul/Gemm: B (k x n, after trans_b) as panels of UK_NR columns; panel q
 *                holds b[k][c] for its columns c.
 * A panel with fewer rows (columns) than a full one is the last and is laid out
 * with its own width. Conv's `layout` says which of its tensors are in the
 * blocked layout of pwconv.h (0 for ingot_x86_conv and ingot_x86_dconv). The
 * field lists repeat the reference ones (a model directory
 * holds only the kernel families it uses); codegen/x86/lower.c checks at build
 * time that each layout begins with the reference struct's, field by field. */
#ifndef INGOT_KERNELS_X86_SGEMM_H
#define INGOT_KERNELS_X86_SGEMM_H

#include "ingot_rt.h"
#include "../ewtable.h"

/* Fused epilogue activations (field `act`): ewtable.h's epilogue codes. */
#define INGOT_EW_ACT_PFX(N) INGOT_X86_ACT_##N
enum { INGOT_X86_ACT_NONE, INGOT_EW_TABLE(INGOT_EW_ACT_ALIAS) };
#undef INGOT_EW_ACT_PFX

/* Whether the microkernels' epilogue (uk_epi_apply) runs activation act: those with
 * an exact vector form in ewtable.h. */
static inline int ingot_x86_act_in_epilogue(int64_t act)
{
	return ingot_ew_act_exact(act);
}

/* = INGOT_CONV_FIELDS (conv.h) + packed; f32 Conv (not transposed), 1 or 2
 * spatial dims. */
#define INGOT_X86_CONV_FIELDS(F) F(I64, dtype) F(I64, transposed) F(I64, nsp) F(I64, group) \
	F(I64, has_bias) F(DIMS, x_dims) F(DIMS, w_dims) F(DIMS, y_dims) F(DIMS, strides) \
	F(DIMS, dilations) F(DIMS, pads) F(I64, act) F(F32, act_alpha) F(F32, act_beta) \
	F(I64, has_residual) F(I64, packed) F(I64, layout)
INGOT_PARAMS(ingot_x86_conv_params, INGOT_X86_CONV_FIELDS)

/* = INGOT_MATMUL_FIELDS (linalg.h) + packed, f32 */
#define INGOT_X86_MATMUL_FIELDS(F) F(I64, dtype) F(I64, m) F(I64, n) F(I64, k) \
	F(I64, nb) F(DIMS, bdims) F(DIMS, a_bstr) F(DIMS, b_bstr) \
	F(I64, act) F(F32, act_alpha) F(F32, act_beta) F(I64, has_residual) F(I64, packed)
INGOT_PARAMS(ingot_x86_matmul_params, INGOT_X86_MATMUL_FIELDS)

/* = INGOT_GEMM_FIELDS (linalg.h) + packed, f32; C, when present, has unit column
 * stride (c_cs = 1: a row vector or a full matrix) */
#define INGOT_X86_GEMM_FIELDS(F) F(I64, dtype) F(I64, m) F(I64, n) F(I64, k) \
	F(I64, trans_a) F(I64, trans_b) F(F32, alpha) F(F32, beta) F(I64, has_c) \
	F(I64, c_rs) F(I64, c_cs) F(I64, act) F(F32, act_alpha) F(F32, act_beta) \
	F(I64, has_residual) F(I64, packed)
INGOT_PARAMS(ingot_x86_gemm_params, INGOT_X86_GEMM_FIELDS)

/* Winograd F(2x2, 3x3) (Conv with packed = 2): 3x3, stride 1, no dilation, one
 * group, at least 16 input and output channels. W is pre-transformed to U = G g G^T
 * and stored as 16 matrices (one per position of the 4x4 transform, M x C each) in
 * panels of UK_MR rows. The kernel takes a block of tile rows (2 output rows each)
 * at a time through scratch: the transformed input V (16 x C x tiles) and the 16
 * products (16 x M x tiles); tasks split the tile rows. */
#define INGOT_X86_WINO_BUDGET (2 << 20)   /* scratch bytes a block aims at */

static inline int ingot_x86_wino_ok(const ingot_x86_conv_params *p)
{
	return p->dtype == INGOT_DT_F32 && !p->transposed && p->nsp == 2 && p->group == 1 &&
	       p->w_dims[2] == 3 && p->w_dims[3] == 3 && p->strides[0] == 1 && p->strides[1] == 1 &&
	       p->dilations[0] == 1 && p->dilations[1] == 1 && p->x_dims[1] >= 16 && p->y_dims[1] >= 16 &&
	       p->pads[0] <= 1 && p->pads[1] <= 1 && p->y_dims[3] <= p->x_dims[3] + 2 &&
	       p->y_dims[2] <= p->x_dims[2] + 2 && p->x_dims[3] <= 4096 && p->y_dims[2] >= 2 &&
	       p->y_dims[3] >= 2;
}

/* Tile rows per block, and the scratch a block needs. */
static inline int64_t ingot_x86_wino_rows(const ingot_x86_conv_params *p)
{
	const int64_t tw = (p->y_dims[3] + 1) / 2, th = (p->y_dims[2] + 1) / 2;
	const int64_t per_row = 16 * (p->x_dims[1] + p->y_dims[1]) * tw * (int64_t)sizeof(float);
	int64_t r = INGOT_X86_WINO_BUDGET / per_row;
	return r < 1 ? 1 : r > th ? th : r;
}

static inline int64_t ingot_x86_wino_scratch(const ingot_x86_conv_params *p)
{
	const int64_t tw = (p->y_dims[3] + 1) / 2;
	return ingot_x86_wino_rows(p) * 16 * (p->x_dims[1] + p->y_dims[1]) * tw * (int64_t)sizeof(float);
}

INGOT_KERNEL int ingot_x86_conv(const void *params, const void *const *in, void *const *out,
                                void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_x86_matmul(const void *params, const void *const *in, void *const *out,
                                  void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_x86_gemm(const void *params, const void *const *in, void *const *out,
                                void *scratch, int task, int n_tasks);

/* Sets *e (ukernel.h) to the microkernels' epilogue of activation act with parameters
 * al, be: alpha 1, no bias, C or residual. Returns ingot_x86_act_in_epilogue(act); for
 * an activation the epilogue lacks e->act is 0 (none), and the caller runs it after
 * the microkernel. The x86 Conv families call it, with x86/sgemm in their set. */
struct uk_epi;
INGOT_KERNEL int ingot_x86_epi_init(struct uk_epi *e, int64_t act, float al, float be);

#endif /* INGOT_KERNELS_X86_SGEMM_H */
