/* norm.h — reference kernels of BatchNormalization, InstanceNormalization,
 * LayerNormalization and Softmax/LogSoftmax, over f32, f64, f16 and bf16.
 * Statistics (mean, variance) accumulate in double; f16/bf16 compute through float. */
#ifndef INGOT_KERNELS_NORM_H
#define INGOT_KERNELS_NORM_H

#include "ingot_rt.h"

/* in: x [n, c, inner...], scale, bias, mean, var (each [c], own dtypes: opset 15 lets
 * them differ from x); out: y, and running_mean / running_var (m_dtype, v_dtype) when
 * has_rmean / has_rvar (out[] may be shorter otherwise). training: normalize with the batch statistics (population variance) and
 * output running = input * momentum + batch * (1 - momentum); otherwise use the
 * given mean/var (and copy them to the optional outputs). Work splits over channels. */
#define INGOT_BATCHNORM_FIELDS(F) F(I64, dtype) F(I64, s_dtype) F(I64, b_dtype) \
	F(I64, m_dtype) F(I64, v_dtype) F(I64, n) F(I64, c) F(I64, inner) F(I64, training) \
	F(I64, has_rmean) F(I64, has_rvar) F(F32, epsilon) F(F32, momentum)
INGOT_PARAMS(ingot_batchnorm_params, INGOT_BATCHNORM_FIELDS)

/* in: x [n, c, inner...], scale [c], bias [c] (all dtype); out: y. Statistics per
 * (n, c) plane; work splits over planes. */
#define INGOT_INSTANCENORM_FIELDS(F) F(I64, dtype) F(I64, n) F(I64, c) F(I64, inner) \
	F(F32, epsilon)
INGOT_PARAMS(ingot_instancenorm_params, INGOT_INSTANCENORM_FIELDS)

/* in: x [outer, inner] (inner = the normalized dims ndims[0..nrank)), scale, bias
 * (when has_bias) broadcast over the normalized dims with element strides s_str /
 * b_str (0 where broadcast); out: y, then mean and inv_std_dev [outer] in `stash`
 * dtype when has_mean / has_inv. Work splits over rows. */
#define INGOT_LAYERNORM_FIELDS(F) F(I64, dtype) F(I64, stash) F(I64, outer) F(I64, inner) \
	F(I64, nrank) F(DIMS, ndims) F(DIMS, s_str) F(DIMS, b_str) F(I64, has_bias) F(I64, has_mean) \
	F(I64, has_inv) F(F32, epsilon)
INGOT_PARAMS(ingot_layernorm_params, INGOT_LAYERNORM_FIELDS)

/* in: x viewed as [outer, n, inner], normalized over n; out: y (same dtype).
 * log: LogSoftmax. Work splits over the outer * inner rows. */
#define INGOT_SOFTMAX_FIELDS(F) F(I64, dtype) F(I64, outer) F(I64, n) F(I64, inner) \
	F(I64, log)
INGOT_PARAMS(ingot_softmax_params, INGOT_SOFTMAX_FIELDS)

INGOT_KERNEL int ingot_batchnorm(const void *params, const void *const *in, void *const *out,
                                 void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_instancenorm(const void *params, const void *const *in,
                                    void *const *out, void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_layernorm(const void *params, const void *const *in, void *const *out,
                                 void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_softmax(const void *params, const void *const *in, void *const *out,
                               void *scratch, int task, int n_tasks);

#endif
