/* neon/pooling.h — NEON kernel of f32 MaxPool / AveragePool with 1 or 2 spatial dims
 * (without MaxPool's Indices output) for the neon and neon32 targets, with the
 * reference kernel's parameters and slots (pool.h). The field list is repeated here
 * because a model directory holds only this family's files; codegen/neon/lower.c
 * checks at build time that it equals the reference one. */
#ifndef INGOT_KERNELS_NEON_POOLING_H
#define INGOT_KERNELS_NEON_POOLING_H

#include "ingot_rt.h"

/* = the pooling kinds of pool.h */
enum { INGOT_NEON_POOL_MAX, INGOT_NEON_POOL_AVG };

/* = INGOT_POOL_FIELDS: window d starts at o * stride - pads[d]; pads[nsp + d] is the
 * end pad, which only count_include_pad needs. */
#define INGOT_NEON_POOL_FIELDS(F) F(I64, dtype) F(I64, kind) F(I64, nsp) \
	F(I64, count_include_pad) F(I64, storage_order) F(I64, has_indices) \
	F(DIMS, x_dims) F(DIMS, y_dims) \
	F(DIMS, kernel) F(DIMS, strides) F(DIMS, dilations) F(PADS, pads)
INGOT_PARAMS(ingot_neon_pool_params, INGOT_NEON_POOL_FIELDS)

/* Tasks split the N * C planes. */
INGOT_KERNEL int ingot_neon_pool(const void *params, const void *const *in, void *const *out,
                                 void *scratch, int task, int n_tasks);

#endif /* INGOT_KERNELS_NEON_POOLING_H */
