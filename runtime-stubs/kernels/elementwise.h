/* elementwise.h — reference kernels of the elementwise ops: unary math and
 * activations, binary ops with numpy broadcasting, variadic Max/Min/Sum/Mean, Cast,
 * Clip, Identity/Dropout and Where. One kernel per op group serves every dtype the
 * ONNX spec allows; the op and the dtypes are fields of the parameter struct.
 *
 * Broadcasting kernels get the output dims (already coalesced by the compiler) and a
 * stride per input and dim, 0 where that input is broadcast; the inner dim is the
 * contiguous loop. Elements are counted in the output, split over tasks.
 */
#ifndef INGOT_KERNELS_ELEMENTWISE_H
#define INGOT_KERNELS_ELEMENTWISE_H

#include "ingot_rt.h"
#include "ewtable.h"

/* Op codes of ingot_unary (field `op`): the U codes of ewtable.h's rows. */
#define INGOT_EW_UNARY_CODE(N, On, fn, R, U, A, PAR, S, V) INGOT_EW_IF_UNARY_##R(INGOT_EW_##N = U,)
enum { INGOT_EW_TABLE(INGOT_EW_UNARY_CODE) };
#undef INGOT_EW_UNARY_CODE

/* Op codes of ingot_binary and ingot_variadic (MAX, MIN, ADD, MEAN there). */
enum {
	INGOT_EW_ADD, INGOT_EW_AND, INGOT_EW_DIV, INGOT_EW_EQUAL, INGOT_EW_GREATER,
	INGOT_EW_GREATER_OR_EQUAL, INGOT_EW_LESS, INGOT_EW_LESS_OR_EQUAL, INGOT_EW_MUL,
	INGOT_EW_OR, INGOT_EW_POW, INGOT_EW_SUB, INGOT_EW_XOR, INGOT_EW_MAX, INGOT_EW_MIN,
	INGOT_EW_MEAN
};

/* y = op(x) over n contiguous elements of `dtype`; alpha/beta/gamma as the op's
 * ONNX attributes (HardSwish uses alpha = 1/6, beta = 0.5). */
#define INGOT_UNARY_FIELDS(F) F(I64, op) F(I64, dtype) F(I64, n) \
	F(F32, alpha) F(F32, beta) F(F32, gamma)
INGOT_PARAMS(ingot_unary_params, INGOT_UNARY_FIELDS)

/* c = op(a, b): a and b have their own dtypes (they differ only for Pow), the output
 * has dtype_out (bool for comparisons); sa/sb are element strides per output dim. */
#define INGOT_BINARY_FIELDS(F) F(I64, op) F(I64, dtype_a) F(I64, dtype_b) \
	F(I64, dtype_out) F(I64, n) F(I64, rank) F(DIMS, dims) F(DIMS, sa) F(DIMS, sb)
INGOT_PARAMS(ingot_binary_params, INGOT_BINARY_FIELDS)

/* y = op(x0, x1, ...) for MAX, MIN, ADD (Sum) and MEAN, n_in inputs of one dtype.
 * Strides follow from the output dims: bit d of input k's byte in bcast[k / 8]
 * (byte k % 8) is set when input k is broadcast along dim d; at most 32 inputs. */
#define INGOT_VARIADIC_FIELDS(F) F(I64, op) F(I64, dtype) F(I64, n_in) F(I64, n) \
	F(I64, rank) F(DIMS, dims) F(I64, bcast0) F(I64, bcast1) F(I64, bcast2) F(I64, bcast3)
INGOT_PARAMS(ingot_variadic_params, INGOT_VARIADIC_FIELDS)
#define INGOT_VARIADIC_MAX_IN 32

/* y = (to)x over n elements: float->int truncates toward zero (out of range
 * saturates, NaN gives 0), anything->bool is x != 0; round_mode (INGOT_E8M0_*) only
 * concerns FLOAT8E8M0 results. */
#define INGOT_CAST_FIELDS(F) F(I64, from) F(I64, to) F(I64, n) F(I64, saturate) F(I64, round_mode)
INGOT_PARAMS(ingot_cast_params, INGOT_CAST_FIELDS)

/* y = min(max(x, lo), hi). The bounds come from in[1] / in[2] when present (opset
 * 11+, 1-element tensors of `dtype`; n_in is the length of in[]), else from lo/hi when has_lo/has_hi (opset < 11
 * attributes), else unbounded. */
#define INGOT_CLIP_FIELDS(F) F(I64, dtype) F(I64, n) F(I64, n_in) F(I64, has_lo) F(I64, has_hi) \
	F(F64, lo) F(F64, hi)
INGOT_PARAMS(ingot_clip_params, INGOT_CLIP_FIELDS)

/* Identity and inference Dropout: y = copy of x (n elements of esize bytes); the
 * optional out[1] mask (n_out = 2) is all ones of mask_dtype. For Dropout with n_in = 3, a true
 * training_mode in[2] with ratio (in[1] of ratio_dtype, else `ratio`) > 0 would need
 * random numbers: the kernel returns INGOT_EINVAL (a Dropout that may train is lowered
 * to ingot_dropout, kernels/random.c, instead). bits (BitCast between the 4- or 2-bit
 * types, one element per byte) keeps each copied byte's low `bits` bits, sign-extended
 * when sext (INT4, INT2 results); 0 copies the bytes as they are. */
#define INGOT_IDENTITY_FIELDS(F) F(I64, n) F(I64, esize) F(I64, n_in) F(I64, n_out) \
	F(I64, mask_dtype) \
	F(I64, ratio_dtype) F(F32, ratio) F(I64, bits) F(I64, sext)
INGOT_PARAMS(ingot_identity_params, INGOT_IDENTITY_FIELDS)

/* y = cond ? x : y with broadcasting; elements of esize bytes, cond is bool. */
#define INGOT_WHERE_FIELDS(F) F(I64, esize) F(I64, n) F(I64, rank) F(DIMS, dims) \
	F(DIMS, sc) F(DIMS, sx) F(DIMS, sy)
INGOT_PARAMS(ingot_where_params, INGOT_WHERE_FIELDS)

INGOT_KERNEL int ingot_unary(const void *params, const void *const *in, void *const *out,
                             void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_binary(const void *params, const void *const *in, void *const *out,
                              void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_variadic(const void *params, const void *const *in, void *const *out,
                                void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_cast(const void *params, const void *const *in, void *const *out,
                            void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_clip(const void *params, const void *const *in, void *const *out,
                            void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_identity(const void *params, const void *const *in, void *const *out,
                                void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_where(const void *params, const void *const *in, void *const *out,
                             void *scratch, int task, int n_tasks);

#endif
