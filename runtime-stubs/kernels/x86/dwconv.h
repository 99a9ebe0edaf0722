/* x86/dwconv.h — x86 (AVX2, AVX-512) kernel of f32 depthwise Conv (one input and
 * one output channel per group) with 1 or 2 spatial dims, strides 1 or 2, no
 * dilation, windows up to INGOT_X86_DW_KMAX, and an epilogue whose activation has
 * a vector form. It takes the parameters of ingot_x86_conv (sgemm.h; `packed` is 0:
 * depthwise weights are read as they are), so this family comes with x86/sgemm
 * (codegen/c/kernels.c). Other depthwise Convs run in ingot_x86_conv. */
#ifndef INGOT_KERNELS_X86_DWCONV_H
#define INGOT_KERNELS_X86_DWCONV_H

#include "ingot_rt.h"
#include "sgemm.h"

#define INGOT_X86_DW_KMAX 7       /* largest window side */
#define INGOT_X86_DW_MAX_W 256    /* widest output row (row buffers live on the stack) */

static inline int ingot_x86_dw_ok(const ingot_x86_conv_params *p)
{
	const int two = p->nsp == 2;
	const int64_t C = p->x_dims[1];
	int64_t kh, kw, sh, sw;
	if (p->dtype != INGOT_DT_F32 || p->transposed || (p->nsp != 1 && p->nsp != 2) || p->packed ||
	    p->group != C || p->y_dims[1] != C || C < 1)
		return 0;
	kh = two ? p->w_dims[2] : 1;
	kw = p->w_dims[1 + p->nsp];
	sh = two ? p->strides[0] : 1;
	sw = p->strides[p->nsp - 1];
	if (kh < 1 || kw < 1 || kh > INGOT_X86_DW_KMAX || kw > INGOT_X86_DW_KMAX || sh < 1 || sh > 2 ||
	    sw < 1 || sw > 2 || p->dilations[0] != 1 || (two && p->dilations[1] != 1) ||
	    p->x_dims[1 + p->nsp] > 2 * INGOT_X86_DW_MAX_W || p->y_dims[1 + p->nsp] > INGOT_X86_DW_MAX_W)
		return 0;
	for (int d = 0; d < p->nsp; d++)
		if (p->pads[d] < 0 || p->pads[d] > INGOT_X86_DW_KMAX)
			return 0;
	return ingot_x86_act_in_epilogue(p->act);
}

/* Tasks split the N * C planes. */
INGOT_KERNEL int ingot_x86_dwconv(const void *params, const void *const *in, void *const *out,
                                  void *scratch, int task, int n_tasks);

#endif /* INGOT_KERNELS_X86_DWCONV_H */
