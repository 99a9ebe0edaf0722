/* conv.h — reference kernels of Conv and ConvTranspose (1 to 6 spatial dims,
 * groups, strides, dilations, pads). The compiler resolves auto_pad, output_shape
 * and output_padding into explicit begin pads and output dims, so the kernel only
 * sees the geometry.
 */
#ifndef INGOT_KERNELS_CONV_H
#define INGOT_KERNELS_CONV_H

#include "ingot_rt.h"
#include "ewtable.h"

/* Fused epilogue activations (field `act`), applied after bias and residual:
 * ewtable.h's epilogue codes. */
#define INGOT_EW_ACT_PFX(N) INGOT_CONV_ACT_##N
enum { INGOT_CONV_ACT_NONE, INGOT_EW_TABLE(INGOT_EW_ACT_ALIAS) };
#undef INGOT_EW_ACT_PFX

/* in[0] X (N, C, spatial...), in[1] W, in[2] bias (M) when has_bias (the in[] array
 * may end before slot 2 otherwise), in[3] the residual (shaped like Y) when
 * has_residual, out[0] Y (N, M, o...).
 * Conv:          W is (M, C/group, k...), x_pos = y_pos * stride + k * dilation - pad.
 * ConvTranspose: W is (C, M/group, k...), y_pos = x_pos * stride + k * dilation - pad.
 * Dims are full tensor dims (rank nsp + 2); pads are the begin pads per spatial
 * dim (end pads only shape the output). Tasks split the N * M output planes.
 * Epilogue (fusion): y = act(conv + bias + residual) with act_alpha/act_beta the
 * activation's parameters (Clip: min, max; LeakyRelu: alpha; HardSigmoid and
 * HardSwish: alpha, beta). Every step rounds to the tensor's dtype, as the separate
 * Add and activation kernels do, so the fused node computes the same values. */
#define INGOT_CONV_FIELDS(F) F(I64, dtype) F(I64, transposed) F(I64, nsp) F(I64, group) \
	F(I64, has_bias) F(DIMS, x_dims) F(DIMS, w_dims) F(DIMS, y_dims) F(DIMS, strides) \
	F(DIMS, dilations) F(DIMS, pads) F(I64, act) F(F32, act_alpha) F(F32, act_beta) \
	F(I64, has_residual)
INGOT_PARAMS(ingot_conv_params, INGOT_CONV_FIELDS)

INGOT_KERNEL int ingot_conv(const void *params, const void *const *in, void *const *out,
                            void *scratch, int task, int n_tasks);

#endif /* INGOT_KERNELS_CONV_H */
