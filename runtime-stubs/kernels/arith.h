/* arith.h — reference kernels of the math and matrix odds and ends: unary math
 * (trigonometric, Sign, Round, IsNaN/IsInf, Celu, Mish, Gelu, ThresholdedRelu,
 * Shrink), broadcasting Mod/BitShift/PRelu and the Bitwise ops, Hardmax, CumSum,
 * Det, Einsum, Trilu, EyeLike and OneHot. One kernel per op family serves every dtype the ONNX spec
 * allows; the op and the dtypes are fields of the parameter struct.
 */
#ifndef INGOT_KERNELS_ARITH_H
#define INGOT_KERNELS_ARITH_H

#include "ingot_rt.h"

/* Op codes of ingot_math_unary (field `op`). ORDER MU_OPS */
enum {
	INGOT_MU_SIN, INGOT_MU_COS, INGOT_MU_TAN, INGOT_MU_ASIN, INGOT_MU_ACOS, INGOT_MU_ATAN,
	INGOT_MU_SINH, INGOT_MU_COSH, INGOT_MU_ASINH, INGOT_MU_ACOSH, INGOT_MU_ATANH,
	INGOT_MU_SIGN, INGOT_MU_ROUND, INGOT_MU_ISNAN, INGOT_MU_ISINF, INGOT_MU_CELU,
	INGOT_MU_MISH, INGOT_MU_GELU, INGOT_MU_GELU_TANH, INGOT_MU_THRESHOLDED_RELU,
	INGOT_MU_SHRINK
};

/* y = op(x) over n contiguous elements of `dtype` (float types; Sign and Shrink also
 * integers). alpha is Celu's and ThresholdedRelu's alpha and Shrink's lambd, beta
 * Shrink's bias; flags bit 0/1 are IsInf's detect_positive/detect_negative. IsNaN and
 * IsInf write bool. Round is half to even. */
#define INGOT_MATH_UNARY_FIELDS(F) F(I64, op) F(I64, dtype) F(I64, n) \
	F(F32, alpha) F(F32, beta) F(I64, flags)
INGOT_PARAMS(ingot_math_unary_params, INGOT_MATH_UNARY_FIELDS)

/* Op codes of ingot_arith_binary. MOD is numpy's remainder (sign of the divisor),
 * FMOD C's (sign of the dividend); integer division by zero gives 0. Shifts by the
 * width or more give 0. PRELU: y = a < 0 ? a * b : a. AND, OR, XOR and NOT work on
 * the two's-complement bits of any integer dtype; NOT is unary (reads in[0] only, sb
 * unused). */
enum { INGOT_AB_MOD, INGOT_AB_FMOD, INGOT_AB_SHL, INGOT_AB_SHR, INGOT_AB_PRELU, INGOT_AB_AND,
       INGOT_AB_OR, INGOT_AB_XOR, INGOT_AB_NOT };

/* y = op(a, b), one dtype, numpy broadcasting: n output elements of dims (rank <= 8,
 * row-major), sa/sb element strides of a and b per output dim, 0 where broadcast. */
#define INGOT_ARITH_BINARY_FIELDS(F) F(I64, op) F(I64, dtype) F(I64, n) F(I64, rank) \
	F(DIMS, dims) F(DIMS, sa) F(DIMS, sb)
INGOT_PARAMS(ingot_arith_binary_params, INGOT_ARITH_BINARY_FIELDS)

/* Hardmax: x viewed as [outer, len, inner]; y is 1 at the first maximum along len. */
#define INGOT_HARDMAX_FIELDS(F) F(I64, dtype) F(I64, outer) F(I64, len) F(I64, inner)
INGOT_PARAMS(ingot_hardmax_params, INGOT_HARDMAX_FIELDS)

/* CumSum (prod 0) or CumProd (prod 1, opset 26) along len of x viewed as [outer, len,
 * inner]; exclusive/reverse are 0 or 1 (an exclusive product starts at 1). Integers
 * wrap; float16/bfloat16 round after every step, as numpy does. */
#define INGOT_CUMSUM_FIELDS(F) F(I64, dtype) F(I64, outer) F(I64, len) F(I64, inner) \
	F(I64, exclusive) F(I64, reverse) F(I64, prod)
INGOT_PARAMS(ingot_cumsum_params, INGOT_CUMSUM_FIELDS)

/* Det of `batch` m x m matrices (LU with partial pivoting, in double). Scratch:
 * batch * m * m doubles, one matrix each, so tasks never share a slot. */
#define INGOT_DET_FIELDS(F) F(I64, dtype) F(I64, batch) F(I64, m)
INGOT_PARAMS(ingot_det_params, INGOT_DET_FIELDS)

/* Einsum as one contraction over an index space of n_idx indices (dims): the first
 * n_out_idx are the output's dims in order (contiguous output), the rest are summed.
 * Operand k (n_in <= 4) is read at sum over j of idx[j] * stK[j] (a repeated label
 * adds its strides: diagonals; 0 for an absent or broadcast index). Floats accumulate
 * in double, integers wrap in uint64. */
#define INGOT_EINSUM_MAX_IN 4
#define INGOT_EINSUM_MAX_IDX 16
#define INGOT_EINSUM_FIELDS(F) F(I64, dtype) F(I64, n_in) F(I64, n_idx) F(I64, n_out_idx) \
	F(PADS, dims) F(PADS, st0) F(PADS, st1) F(PADS, st2) F(PADS, st3)
INGOT_PARAMS(ingot_einsum_params, INGOT_EINSUM_FIELDS)

/* Trilu of `batch` rows x cols matrices of esize-byte elements: keeps j - i >= k
 * (upper) or j - i <= k (lower), zeroes the rest. */
#define INGOT_TRILU_FIELDS(F) F(I64, esize) F(I64, batch) F(I64, rows) F(I64, cols) \
	F(I64, upper) F(I64, k)
INGOT_PARAMS(ingot_trilu_params, INGOT_TRILU_FIELDS)

/* EyeLike: a rows x cols `dtype` matrix with ones where j - i == k. Reads no input. */
#define INGOT_EYE_LIKE_FIELDS(F) F(I64, dtype) F(I64, rows) F(I64, cols) F(I64, k)
INGOT_PARAMS(ingot_eye_like_params, INGOT_EYE_LIKE_FIELDS)

/* OneHot: indices in[0] (idx_dtype, viewed as [outer, inner]) give y [outer, depth,
 * inner] of esize-byte elements, values in[2] = [off, on]; in[1] (depth) is not read.
 * Float indices truncate; with wrap (opset 11+) -depth..-1 count from the end; any
 * other index outside [0, depth) gives a row of off values. */
#define INGOT_ONE_HOT_FIELDS(F) F(I64, idx_dtype) F(I64, esize) F(I64, outer) F(I64, depth) \
	F(I64, inner) F(I64, wrap)
INGOT_PARAMS(ingot_one_hot_params, INGOT_ONE_HOT_FIELDS)

INGOT_KERNEL int ingot_math_unary(const void *params, const void *const *in, void *const *out,
                                  void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_arith_binary(const void *params, const void *const *in,
                                    void *const *out, void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_hardmax(const void *params, const void *const *in, void *const *out,
                               void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_cumsum(const void *params, const void *const *in, void *const *out,
                              void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_det(const void *params, const void *const *in, void *const *out,
                           void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_einsum(const void *params, const void *const *in, void *const *out,
                              void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_trilu(const void *params, const void *const *in, void *const *out,
                             void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_eye_like(const void *params, const void *const *in, void *const *out,
                                void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_one_hot(const void *params, const void *const *in, void *const *out,
                               void *scratch, int task, int n_tasks);

#endif
