/* deform_conv.h — reference kernel of DeformConv (2-D): a convolution whose every
 * kernel tap samples X at its regular position plus a learned offset, bilinearly,
 * with zeros outside the image (the spec's GridSample with align_corners = 1 and
 * zero padding), each sample weighted by an optional mask. Floats compute in
 * double (f16/bf16 load and store through float).
 */
#ifndef INGOT_KERNELS_DEFORM_CONV_H
#define INGOT_KERNELS_DEFORM_CONV_H

#include "ingot_rt.h"

/* in[0] X [n, c, h, w], in[1] W [oc, c / group, kh, kw], in[2] offset
 * [n, offset_group * kh * kw * 2, oh, ow] (per tap (dy, dx)), in[3] B [oc] (absent:
 * NULL or n_in <= 3), in[4] mask [n, offset_group * kh * kw, oh, ow] (may be NULL: all 1);
 * out[0] Y [n, oc, oh, ow]. Tap (i, j) of output (y, x) reads X at
 * (y * sh - pad_t + i * dh + dy, x * sw - pad_l + j * dw + dx); input channel ic
 * uses offset group ic / (c / offset_group). Tasks split the n * oc output planes. */
#define INGOT_DEFORM_CONV_FIELDS(F) F(I64, dtype) F(I64, n) F(I64, c) F(I64, h) F(I64, w) \
	F(I64, oc) F(I64, oh) F(I64, ow) F(I64, kh) F(I64, kw) F(I64, group) \
	F(I64, offset_group) F(I64, sh) F(I64, sw) F(I64, dh) F(I64, dw) F(I64, pad_t) \
	F(I64, pad_l) F(I64, n_in)
INGOT_PARAMS(ingot_deform_conv_params, INGOT_DEFORM_CONV_FIELDS)

INGOT_KERNEL int ingot_deform_conv(const void *params, const void *const *in, void *const *out,
                                   void *scratch, int task, int n_tasks);

#endif
