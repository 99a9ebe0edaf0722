/* x86/eltwise.h — x86 (AVX2, AVX-512) kernels of f32 unary and binary elementwise
 * ops, Softmax and LayerNormalization for the x86 targets, with the reference kernel's parameters and slots (elementwise.h).
 * The field lists and the Gelu codes are repeated here because a model directory
 * holds only this family's files (and ewtable.h, the unary codes); codegen/x86/lower.c
 * checks at build time that they equal the reference ones. */
#ifndef INGOT_KERNELS_X86_ELTWISE_H
#define INGOT_KERNELS_X86_ELTWISE_H

#include "ingot_rt.h"
#include "../ewtable.h"

/* The unary op codes (field `op`): ewtable.h's, elementwise.h's INGOT_EW_* */
#define INGOT_EW_UNARY_PFX(N) INGOT_X86_EW_##N
enum { INGOT_EW_TABLE(INGOT_EW_UNARY_ALIAS) };
#undef INGOT_EW_UNARY_PFX

/* = INGOT_UNARY_FIELDS: y = op(x) over n contiguous f32 */
#define INGOT_X86_UNARY_FIELDS(F) F(I64, op) F(I64, dtype) F(I64, n) \
	F(F32, alpha) F(F32, beta) F(F32, gamma)
INGOT_PARAMS(ingot_x86_unary_params, INGOT_X86_UNARY_FIELDS)

/* The unary op codes of ewtable.h (elementwise.h's INGOT_EW_*) whose row has a
 * vector form (ingot_ew_unary_has_vec), in that form: VM rows (exp, sigmoid...) are
 * vector approximations (maximum errors stated in simd/vmath.h, measured by
 * tests/unit/x86/x86_math_test.py), the others compute exactly what the reference
 * kernel does. Tasks split the elements. */
INGOT_KERNEL int ingot_x86_unary(const void *params, const void *const *in, void *const *out,
                                 void *scratch, int task, int n_tasks);

/* = the ops of arith.h's ingot_math_unary this kernel runs */
enum { INGOT_X86_MU_GELU = 17, INGOT_X86_MU_GELU_TANH = 18 };

/* = INGOT_MATH_UNARY_FIELDS: y = op(x) over n contiguous f32 */
#define INGOT_X86_MATH_UNARY_FIELDS(F) F(I64, op) F(I64, dtype) F(I64, n) \
	F(F32, alpha) F(F32, beta) F(I64, flags)
INGOT_PARAMS(ingot_x86_math_unary_params, INGOT_X86_MATH_UNARY_FIELDS)

/* Gelu, both forms, as the vector approximations of simd/vmath.h; tasks split the
 * elements. */
INGOT_KERNEL int ingot_x86_math_unary(const void *params, const void *const *in, void *const *out,
                                      void *scratch, int task, int n_tasks);

/* = INGOT_BINARY_FIELDS: c = op(a, b), all f32; sa/sb element strides per output dim */
#define INGOT_X86_BINARY_FIELDS(F) F(I64, op) F(I64, dtype_a) F(I64, dtype_b) \
	F(I64, dtype_out) F(I64, n) F(I64, rank) F(DIMS, dims) F(DIMS, sa) F(DIMS, sb)
INGOT_PARAMS(ingot_x86_binary_params, INGOT_X86_BINARY_FIELDS)

/* Add, Sub, Mul and Div (simd/vbinary.h's codes) with broadcasting, as
 * simd/vbinary.h: exactly the reference's results; tasks split the output elements. */
INGOT_KERNEL int ingot_x86_binary(const void *params, const void *const *in, void *const *out,
                                  void *scratch, int task, int n_tasks);

/* = INGOT_SOFTMAX_FIELDS: Softmax (log 0) or LogSoftmax (log 1) over n values
 * inner apart, for outer x inner rows */
#define INGOT_X86_SOFTMAX_FIELDS(F) F(I64, dtype) F(I64, outer) F(I64, n) F(I64, inner) \
	F(I64, log)
INGOT_PARAMS(ingot_x86_softmax_params, INGOT_X86_SOFTMAX_FIELDS)

/* f32 rows of contiguous values (inner 1) only; tasks split the rows. e^x is the
 * vector exp above (2 ulp), the sum is taken in vector lanes (another order than
 * the reference's), then y = e / sum, or x - max - log(sum) as the reference. */
INGOT_KERNEL int ingot_x86_softmax(const void *params, const void *const *in, void *const *out,
                                   void *scratch, int task, int n_tasks);

/* = INGOT_LAYERNORM_FIELDS: rows of `inner` values normalized, scale and bias
 * (has_bias) broadcast over the normalized dims by the strides s_str / b_str */
#define INGOT_X86_LAYERNORM_FIELDS(F) F(I64, dtype) F(I64, stash) F(I64, outer) F(I64, inner) \
	F(I64, nrank) F(DIMS, ndims) F(DIMS, s_str) F(DIMS, b_str) F(I64, has_bias) F(I64, has_mean) \
	F(I64, has_inv) F(F32, epsilon)
INGOT_PARAMS(ingot_x86_layernorm_params, INGOT_X86_LAYERNORM_FIELDS)

/* f32 with scale and bias holding one value per normalized element in order (the
 * lowering checks the strides) and without the Mean / InvStdDev outputs; tasks split
 * the rows. Mean and variance are summed in float vector lanes (the reference sums
 * in double), then y = (x - mean) * inv * scale + bias as the reference. */
INGOT_KERNEL int ingot_x86_layernorm(const void *params, const void *const *in, void *const *out,
                                     void *scratch, int task, int n_tasks);

#endif /* INGOT_KERNELS_X86_ELTWISE_H */
