/* x86/dconv.h — x86 (AVX2, AVX-512) kernel of f32 Conv by direct convolution: stride 1
 * or 2 (the same in every dim), no dilation, one group, 1 or 2 spatial dims, weights pre-packed by the compiler
 * (packed = 1, the layout of sgemm.h), an epilogue whose activation has a vector
 * form. It reads its B operand (the im2col matrix of the GEMM form) straight from
 * the input, or from a zero-padded copy of it in scratch when the Conv pads (stride
 * 2: split into its 2^nsp phases of even and odd rows and columns), so that small
 * Convs (LeNet, 1-D keyword spotting, a first layer of 3 channels) pay no packing. It takes the
 * parameters of ingot_x86_conv (sgemm.h), so this family comes with x86/sgemm
 * (codegen/c/kernels.c). */
#ifndef INGOT_KERNELS_X86_DCONV_H
#define INGOT_KERNELS_X86_DCONV_H

#include "ingot_rt.h"
#include "sgemm.h"

#define INGOT_X86_DC_KMAX 512     /* largest C * KH * KW: beyond, packing B pays off (and the
                                   * table of offsets lives on the stack) */
#define INGOT_X86_DC_MAX_W 4096   /* widest stride-2 input row (a row buffer on the stack) */

static inline int64_t ingot_x86_dc_stride(const ingot_x86_conv_params *p)
{
	return p->strides[0];
}

/* The extent of spatial dim d that B reads: stride 1, the padded input (only the
 * begin pads are stored; the end pads follow from the output size); stride 2, one
 * phase of it. */
static inline int64_t ingot_x86_dc_padded(const ingot_x86_conv_params *p, int d)
{
	return ingot_x86_dc_stride(p) == 1 ? p->y_dims[2 + d] + p->w_dims[2 + d] - 1
	                                   : p->y_dims[2 + d] + (p->w_dims[2 + d] - 1) / 2;
}

/* The zero-padded input image (stride 2: its phases) when the Conv pads or
 * strides, else none. */
static inline int64_t ingot_x86_dc_pad_bytes(const ingot_x86_conv_params *p)
{
	int64_t n = p->x_dims[1];
	int pad = ingot_x86_dc_stride(p) != 1;
	for (int d = 0; d < p->nsp; d++) {
		n *= ingot_x86_dc_stride(p) * ingot_x86_dc_padded(p, d);
		pad |= p->pads[d] > 0 || ingot_x86_dc_padded(p, d) != p->x_dims[2 + d];
	}
	return pad ? n * (int64_t)sizeof(float) : 0;
}

/* packed = 4 (channels on the lanes): W^T, K rows of M output channels rounded up
 * to the target's lanes (zeros after M). A tile is then UK_MR output positions
 * (broadcast from the input, across output rows) x up to UK_NV vectors of output
 * channels, for Convs whose output rows fill vectors worse than their channels
 * do (LeNet's 16 channels of 10 x 10). The tiles write Z (positions x channels)
 * into scratch, after the padded input, and ingot_x86_dc_store_t transposes it
 * into Y. */
static inline int64_t ingot_x86_dc_z_bytes(const ingot_x86_conv_params *p)
{
	const int64_t P = (p->nsp == 2 ? p->y_dims[2] : 1) * p->y_dims[1 + p->nsp];
	return (P + 16) * ((p->y_dims[1] + 15) / 16 * 16) * (int64_t)sizeof(float);
}

#define INGOT_X86_DC_MAX_Z (64 << 10)   /* the compiler picks packed = 4 up to this Z */

/* Scratch per task. */
static inline int64_t ingot_x86_dc_scratch(const ingot_x86_conv_params *p)
{
	return ingot_x86_dc_pad_bytes(p) + (p->packed == 4 ? ingot_x86_dc_z_bytes(p) : 0);
}

static inline int ingot_x86_dc_ok(const ingot_x86_conv_params *p)
{
	const int two = p->nsp == 2;
	const int64_t kh = two ? p->w_dims[2] : 1, kw = p->w_dims[1 + p->nsp];
	if (p->dtype != INGOT_DT_F32 || p->transposed || (p->nsp != 1 && p->nsp != 2) ||
	    (p->packed != 1 && p->packed != 4) || p->group != 1 || kh * kw < 2 || p->x_dims[1] * kh * kw > INGOT_X86_DC_KMAX)
		return 0;
	for (int d = 0; d < p->nsp; d++)
		if ((p->strides[d] != 1 && p->strides[d] != 2) || p->strides[d] != p->strides[0] ||
		    p->dilations[d] != 1 || p->pads[d] < 0 || p->pads[d] >= p->w_dims[2 + d])
			return 0;
	if (ingot_x86_dc_stride(p) == 2 && (p->x_dims[1 + p->nsp] > INGOT_X86_DC_MAX_W ||
	                                    ingot_x86_dc_padded(p, p->nsp - 1) > INGOT_X86_DC_MAX_W))
		return 0;
	return ingot_x86_act_in_epilogue(p->act);
}

/* Y (M x P, one image) from Z (P rows ldz apart, the output channels along a row:
 * the conv's sums plus bias) for the output channels [o0, o1), o0 a whole vector
 * of the target: adds the residual (M x P) when res, runs p's activation. Shared
 * by the kernels that put output channels on the lanes (packed = 4 here, and
 * x86/wino1d.c). */
INGOT_KERNEL void ingot_x86_dc_store_t(const ingot_x86_conv_params *p, const float *z, int64_t ldz,
                                       int64_t P, int64_t o0, int64_t o1, const float *res, float *y);

/* Tasks split the output channels by panels of UK_MR (packed = 4: by vectors). */
INGOT_KERNEL int ingot_x86_dconv(const void *params, const void *const *in, void *const *out,
                                 void *scratch, int task, int n_tasks);

#endif /* INGOT_KERNELS_X86_DCONV_H */
