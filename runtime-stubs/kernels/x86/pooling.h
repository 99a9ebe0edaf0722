/* x86/pooling.h — x86 (AVX2, AVX-512) kernel of f32 MaxPool / AveragePool with 1 or
 * 2 spatial dims (without MaxPool's Indices output) for the x86 targets, with the
 * reference kernel's parameters and slots (pool.h). The field list is repeated here
 * because a model directory holds only this family's files; codegen/x86/lower.c
 * checks at build time that it equals the reference one. */
#ifndef INGOT_KERNELS_X86_POOLING_H
#define INGOT_KERNELS_X86_POOLING_H

#include "ingot_rt.h"

/* = the pooling kinds of pool.h */
enum { INGOT_X86_POOL_MAX, INGOT_X86_POOL_AVG };

/* Input rows longer than this go to the reference kernel (a row buffer lives on
 * the stack). */
#define INGOT_X86_POOL_MAX_W 8192

/* = INGOT_POOL_FIELDS: window d starts at o * stride - pads[d]; pads[nsp + d] is the
 * end pad, which only count_include_pad needs. */
#define INGOT_X86_POOL_FIELDS(F) F(I64, dtype) F(I64, kind) F(I64, nsp) \
	F(I64, count_include_pad) F(I64, storage_order) F(I64, has_indices) \
	F(DIMS, x_dims) F(DIMS, y_dims) \
	F(DIMS, kernel) F(DIMS, strides) F(DIMS, dilations) F(PADS, pads)
INGOT_PARAMS(ingot_x86_pool_params, INGOT_X86_POOL_FIELDS)

/* = INGOT_GLOBAL_POOL_FIELDS: GlobalAveragePool over `planes` planes of `size` */
#define INGOT_X86_GLOBAL_POOL_FIELDS(F) F(I64, dtype) F(I64, kind) F(I64, planes) F(I64, size)
INGOT_PARAMS(ingot_x86_global_pool_params, INGOT_X86_GLOBAL_POOL_FIELDS)

/* Tasks split the N * C planes. */
INGOT_KERNEL int ingot_x86_pool(const void *params, const void *const *in, void *const *out,
                                void *scratch, int task, int n_tasks);

/* f32 GlobalAveragePool: each plane summed in vector lanes (not in double, as the
 * reference does). Tasks split the planes. */
INGOT_KERNEL int ingot_x86_global_pool(const void *params, const void *const *in, void *const *out,
                                       void *scratch, int task, int n_tasks);

#endif /* INGOT_KERNELS_X86_POOLING_H */
