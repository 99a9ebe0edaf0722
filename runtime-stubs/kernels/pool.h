/* pool.h — reference kernels of MaxPool / AveragePool (1 to 6 spatial dims) and of
 * GlobalMaxPool / GlobalAveragePool. The compiler resolves auto_pad and ceil_mode
 * into explicit pads and output dims.
 */
#ifndef INGOT_KERNELS_POOL_H
#define INGOT_KERNELS_POOL_H

#include "ingot_rt.h"

/* Pooling kinds (field `kind`). INGOT_POOL_QAVG averages 8-bit X (u8 or i8, the
 * dtype of Y too): in[1] x_scale (f32), in[2] x_zp, in[3] y_scale, in[4] y_zp
 * (scalars); Y is bit for bit what DequantizeLinear, the float average pool and
 * QuantizeLinear give (QLinearAveragePool and QLinearGlobalAveragePool, made by
 * passes/fold_qdq.c). */
enum { INGOT_POOL_MAX, INGOT_POOL_AVG, INGOT_POOL_QAVG };

/* in[0] X (N, C, spatial...), out[0] Y (N, C, o...), MaxPool's out[1] Indices (i64)
 * when has_indices (the out[] array may end before slot 1 otherwise): the flat
 * index of the maximum in X, spatial part row-major, or column-major when
 * storage_order = 1. Window d starts at o * stride - pads[d];
 * pads[nsp + d] is the end pad, which only count_include_pad needs. Dims are full
 * tensor dims (rank nsp + 2). Tasks split the N * C planes. */
#define INGOT_POOL_FIELDS(F) F(I64, dtype) F(I64, kind) F(I64, nsp) \
	F(I64, count_include_pad) F(I64, storage_order) F(I64, has_indices) \
	F(DIMS, x_dims) F(DIMS, y_dims) \
	F(DIMS, kernel) F(DIMS, strides) F(DIMS, dilations) F(PADS, pads)
INGOT_PARAMS(ingot_pool_params, INGOT_POOL_FIELDS)

/* Y[i] = max or mean of X[i * size .. (i + 1) * size) for i < planes (N * C). */
#define INGOT_GLOBAL_POOL_FIELDS(F) F(I64, dtype) F(I64, kind) F(I64, planes) F(I64, size)
INGOT_PARAMS(ingot_global_pool_params, INGOT_GLOBAL_POOL_FIELDS)

INGOT_KERNEL int ingot_pool(const void *params, const void *const *in, void *const *out,
                            void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_global_pool(const void *params, const void *const *in,
                                   void *const *out, void *scratch, int task, int n_tasks);

#endif /* INGOT_KERNELS_POOL_H */
