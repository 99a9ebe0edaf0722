/* neon/eltwise.h — NEON kernels of f32 elementwise ops and Softmax for the neon and
 * neon32 targets: binary Add/Sub/Mul/Div with broadcasting, unary activations, and
 * Softmax/LogSoftmax, with the reference kernels' parameters and slots
 * (elementwise.h, norm.h). The field lists are repeated here because a model
 * directory holds only this family's files (and ewtable.h, the unary codes);
 * codegen/neon/lower.c checks at build time that they equal the reference ones. */
#ifndef INGOT_KERNELS_NEON_ELTWISE_H
#define INGOT_KERNELS_NEON_ELTWISE_H

#include "ingot_rt.h"
#include "../ewtable.h"

/* = INGOT_UNARY_FIELDS: y = op(x) over n contiguous f32 */
#define INGOT_NEON_UNARY_FIELDS(F) F(I64, op) F(I64, dtype) F(I64, n) \
	F(F32, alpha) F(F32, beta) F(F32, gamma)
INGOT_PARAMS(ingot_neon_unary_params, INGOT_NEON_UNARY_FIELDS)

/* = INGOT_BINARY_FIELDS: c = op(a, b), all f32; sa/sb element strides per output dim */
#define INGOT_NEON_BINARY_FIELDS(F) F(I64, op) F(I64, dtype_a) F(I64, dtype_b) \
	F(I64, dtype_out) F(I64, n) F(I64, rank) F(DIMS, dims) F(DIMS, sa) F(DIMS, sb)
INGOT_PARAMS(ingot_neon_binary_params, INGOT_NEON_BINARY_FIELDS)

/* = INGOT_SOFTMAX_FIELDS: x as [outer, n, inner], normalized over n */
#define INGOT_NEON_SOFTMAX_FIELDS(F) F(I64, dtype) F(I64, outer) F(I64, n) F(I64, inner) \
	F(I64, log)
INGOT_PARAMS(ingot_neon_softmax_params, INGOT_NEON_SOFTMAX_FIELDS)

/* ingot_neon_unary runs the unary codes of ewtable.h whose row has a vector form
 * (ingot_ew_unary_has_vec), in that form. Tasks split the output elements (binary,
 * unary) or the outer * inner rows. */
INGOT_KERNEL int ingot_neon_unary(const void *params, const void *const *in, void *const *out,
                                  void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_neon_binary(const void *params, const void *const *in,
                                   void *const *out, void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_neon_softmax(const void *params, const void *const *in,
                                    void *const *out, void *scratch, int task, int n_tasks);

#endif /* INGOT_KERNELS_NEON_ELTWISE_H */
