/* x86/pwconv.h — x86 (AVX2, AVX-512) kernel of f32 pointwise Conv (1x1 window,
 * stride 1, no padding, one group, 2 spatial dims) with output channels on the
 * vector lanes, for Convs whose input or output is in the blocked layout.
 *
 * Blocked layout (ingot_x86_conv_params.layout, bit 0: the input, bit 1: the output
 * and the residual): NCHW with the channels in blocks of UK_VF innermost,
 * element (n, c, p) at n * C * P + (c / UK_VF) * P * UK_VF + p * UK_VF + c % UK_VF
 * (P = H * W). C is a multiple of UK_VF, so a blocked tensor has the NCHW size.
 * The compiler (codegen/x86/layout.c) chooses it for the tensors between the x86
 * Convs that read and write it: this kernel, and ingot_x86_dwconv (dwconv.h),
 * whose blocked form reads and writes it. No other kernel sees such a tensor.
 *
 * Weights come pre-packed (`packed` = 3) as panels of INGOT_X86_PW_MC(UK_VF)
 * output channels, the last narrower: panel p holds w[k][i] for its channels i,
 * k over C. A tile is a panel's channels x up to INGOT_X86_PW_NB pixels, its sums
 * in registers over the whole of C. It takes the parameters of ingot_x86_conv
 * (sgemm.h). Tasks split the tiles; every output is computed alike either way. */
#ifndef INGOT_KERNELS_X86_PWCONV_H
#define INGOT_KERNELS_X86_PWCONV_H

#include "ingot_rt.h"
#include "sgemm.h"

/* vectors of output channels per tile (32 registers on AVX-512, 16 on AVX2) */
#define INGOT_X86_PW_NV(vf) ((vf) == 16 ? 3 : 2)
#define INGOT_X86_PW_MC(vf) (INGOT_X86_PW_NV(vf) * (vf))
#define INGOT_X86_PW_NBMAX 8

/* The Convs this kernel runs (with packed weights and a layout). */
static inline int ingot_x86_pw_ok(const ingot_x86_conv_params *p)
{
	return p->dtype == INGOT_DT_F32 && !p->transposed && p->nsp == 2 && p->group == 1 &&
	       p->w_dims[2] == 1 && p->w_dims[3] == 1 && p->strides[0] == 1 && p->strides[1] == 1 &&
	       p->pads[0] == 0 && p->pads[1] == 0 && p->pads[2] == 0 && p->pads[3] == 0 &&
	       p->x_dims[2] == p->y_dims[2] && p->x_dims[3] == p->y_dims[3] && p->x_dims[1] >= 1 &&
	       ingot_x86_act_in_epilogue(p->act);
}

INGOT_KERNEL int ingot_x86_pwconv(const void *params, const void *const *in, void *const *out,
                                  void *scratch, int task, int n_tasks);

#endif /* INGOT_KERNELS_X86_PWCONV_H */
