/* linalg.h — reference kernels of MatMul and Gemm. Both run one row-blocked
 * matrix product over a strided A (m x k) and B (k x n) into a contiguous Y
 * (m x n); transposes and broadcast batch dims are strides, never copies.
 * Integers wrap modulo 2^bits (as numpy does); f16/bf16 accumulate in float.
 */
#ifndef INGOT_KERNELS_LINALG_H
#define INGOT_KERNELS_LINALG_H

#include "ingot_rt.h"
#include "ewtable.h"

/* Fused epilogue activations (field `act`), applied after C and the residual:
 * ewtable.h's epilogue codes. */
#define INGOT_EW_ACT_PFX(N) INGOT_LINALG_ACT_##N
enum { INGOT_LINALG_ACT_NONE, INGOT_EW_TABLE(INGOT_EW_ACT_ALIAS) };
#undef INGOT_EW_ACT_PFX

/* Both kernels take an optional epilogue (fusion, float dtypes only): Y = act(Y +
 * residual), the residual shaped like Y in the slot after the last regular input
 * (MatMul in[2], Gemm in[3]) when has_residual; act_alpha/act_beta are the
 * activation's parameters (Clip: min, max; LeakyRelu: alpha; HardSigmoid and
 * HardSwish: alpha, beta). Every step rounds to the dtype, as the separate Add and
 * activation kernels do, so the fused node computes the same values. */

/* Y[b] = A[b] @ B[b] over nb batch dims `bdims` (the broadcast output batch
 * shape); a_bstr/b_bstr are element strides per batch dim, 0 where broadcast.
 * A 1-D operand arrives as m = 1 (A) or n = 1 (B). Tasks split batch * m rows. */
#define INGOT_MATMUL_FIELDS(F) F(I64, dtype) F(I64, m) F(I64, n) F(I64, k) \
	F(I64, nb) F(DIMS, bdims) F(DIMS, a_bstr) F(DIMS, b_bstr) \
	F(I64, act) F(F32, act_alpha) F(F32, act_beta) F(I64, has_residual)
INGOT_PARAMS(ingot_matmul_params, INGOT_MATMUL_FIELDS)

/* Y = alpha * op(A) @ op(B) + beta * C, op = transpose when trans_a/trans_b;
 * C (in[2], only when has_c: the in[] array may end before slot 2 otherwise) is
 * read at i * c_rs + j * c_cs (0 strides broadcast).
 * Tasks split the m rows. */
#define INGOT_GEMM_FIELDS(F) F(I64, dtype) F(I64, m) F(I64, n) F(I64, k) \
	F(I64, trans_a) F(I64, trans_b) F(F32, alpha) F(F32, beta) F(I64, has_c) \
	F(I64, c_rs) F(I64, c_cs) F(I64, act) F(F32, act_alpha) F(F32, act_beta) \
	F(I64, has_residual)
INGOT_PARAMS(ingot_gemm_params, INGOT_GEMM_FIELDS)

INGOT_KERNEL int ingot_matmul(const void *params, const void *const *in, void *const *out,
                              void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_gemm(const void *params, const void *const *in, void *const *out,
                            void *scratch, int task, int n_tasks);

#endif /* INGOT_KERNELS_LINALG_H */
