/* image_norm.h — reference kernels of the windowed and normalizing image ops: LRN,
 * LpPool, LpNormalization, MeanVarianceNormalization, GroupNormalization, MaxUnpool
 * and Col2Im. Floats compute in double (f16/bf16 load and store through float).
 */
#ifndef INGOT_KERNELS_IMAGE_NORM_H
#define INGOT_KERNELS_IMAGE_NORM_H

#include "ingot_rt.h"

/* in[0] X [n, c, inner...], out[0] Y: y = x / (bias + alpha / size * sum of x^2 over
 * channels c - (size-1)/2 .. c + ceil((size-1)/2))^beta. Tasks split n * c planes. */
#define INGOT_LRN_FIELDS(F) F(I64, dtype) F(I64, n) F(I64, c) F(I64, inner) F(I64, size) \
	F(F32, alpha) F(F32, beta) F(F32, bias)
INGOT_PARAMS(ingot_lrn_params, INGOT_LRN_FIELDS)

/* in[0] X (N, C, spatial...), out[0] Y: (sum over the window of |x|^p)^(1/p); the
 * padding adds nothing. Window d starts at o * strides[d] - pads[d]. Dims are full
 * tensor dims (rank nsp + 2). Tasks split the N * C planes. */
#define INGOT_LP_POOL_FIELDS(F) F(I64, dtype) F(I64, nsp) F(F32, p) F(DIMS, x_dims) \
	F(DIMS, y_dims) F(DIMS, kernel) F(DIMS, strides) F(DIMS, dilations) F(PADS, pads)
INGOT_PARAMS(ingot_lp_pool_params, INGOT_LP_POOL_FIELDS)

/* in[0] X viewed as [outer, n, inner], out[0] Y = x / ||x||_p over n (p 1 or 2;
 * a zero norm gives 0). Tasks split the outer * inner rows. */
#define INGOT_LP_NORM_FIELDS(F) F(I64, dtype) F(I64, outer) F(I64, n) F(I64, inner) F(I64, p)
INGOT_PARAMS(ingot_lp_norm_params, INGOT_LP_NORM_FIELDS)

/* in[0] X (dims[0..rank)), out[0] Y = (x - mean) / (std + 1e-9), statistics over
 * the dims whose bit is set in rmask. Tasks split the groups (kept positions). */
#define INGOT_MVN_FIELDS(F) F(I64, dtype) F(I64, rank) F(I64, rmask) F(DIMS, dims)
INGOT_PARAMS(ingot_mvn_params, INGOT_MVN_FIELDS)

/* in[0] X [n, c, inner...], in[1] scale, in[2] bias (X's dtype; [groups], or [c] when
 * per_channel), out[0] Y = scale * (x - mean) / sqrt(var + epsilon) + bias with
 * statistics per (n, group of c / groups channels). Tasks split n * groups. */
#define INGOT_GROUP_NORM_FIELDS(F) F(I64, dtype) F(I64, n) F(I64, c) F(I64, inner) \
	F(I64, groups) F(I64, per_channel) F(F32, epsilon)
INGOT_PARAMS(ingot_group_norm_params, INGOT_GROUP_NORM_FIELDS)

/* in[0] X, in[1] I (i64, X's shape: flat indices into a tensor of dims `full`),
 * in[2] output_shape (read at compile time; NULL); out[0] Y (dims y_dims): zeros,
 * then Y[idx] = X[i] in order, where idx is I[i]'s position in `full` (positions
 * outside y_dims are dropped; an index outside `full` gives INGOT_ERANGE).
 * Any element size. Tasks split Y. */
#define INGOT_MAX_UNPOOL_FIELDS(F) F(I64, esize) F(I64, rank) F(I64, x_numel) \
	F(DIMS, full) F(DIMS, y_dims)
INGOT_PARAMS(ingot_max_unpool_params, INGOT_MAX_UNPOOL_FIELDS)

/* in[0] X [n, c * prod(block), prod(lpos)], in[1] image_shape and in[2] block_shape
 * (read at compile time; NULL); out[0] Y [n, c, image...]: the sum of the column
 * entries that land on each pixel (block position k of sliding position l lands on
 * l * strides - pads + k * dilations). Integers add modulo 2^bits. Tasks split Y. */
#define INGOT_COL2IM_FIELDS(F) F(I64, dtype) F(I64, nsp) F(I64, n) F(I64, c) \
	F(DIMS, image) F(DIMS, block) F(DIMS, lpos) F(DIMS, strides) F(DIMS, dilations) \
	F(PADS, pads)
INGOT_PARAMS(ingot_col2im_params, INGOT_COL2IM_FIELDS)

INGOT_KERNEL int ingot_lrn(const void *params, const void *const *in, void *const *out,
                           void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_lp_pool(const void *params, const void *const *in, void *const *out,
                               void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_lp_norm(const void *params, const void *const *in, void *const *out,
                               void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_mvn(const void *params, const void *const *in, void *const *out,
                           void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_group_norm(const void *params, const void *const *in,
                                  void *const *out, void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_max_unpool(const void *params, const void *const *in,
                                  void *const *out, void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_col2im(const void *params, const void *const *in, void *const *out,
                              void *scratch, int task, int n_tasks);

#endif /* INGOT_KERNELS_IMAGE_NORM_H */
