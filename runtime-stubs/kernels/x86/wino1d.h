/* x86/wino1d.h — x86 (AVX2, AVX-512) kernel of f32 1-D Conv by Winograd F(m, k) on
 * 8 points (0, 1, -1, 2, -2, 1/2, -1/2 and infinity): k = 3 gives F(6, 3), k = 5
 * F(4, 5), i.e. m = 9 - k outputs per tile for 8 multiplies instead of m * k. Stride
 * 1, no dilation, one group, at least 16 input and output channels, an epilogue
 * whose activation has a vector form. The compiler pre-transforms W (packed = 3):
 * U = G g per (output, input) channel pair, stored as 8 matrices (one per point)
 * of C rows x Mp columns, Mp = M rounded up to the target's lanes (zeros after M),
 * so that the products run with the output channels on the vector lanes. It takes
 * the parameters of ingot_x86_conv (sgemm.h), so this family comes with x86/sgemm,
 * and with x86/dconv, whose ingot_x86_dc_store_t writes its output (codegen/c/kernels.c). */
#ifndef INGOT_KERNELS_X86_WINO1D_H
#define INGOT_KERNELS_X86_WINO1D_H

#include "ingot_rt.h"
#include "sgemm.h"

#define INGOT_X86_W1_ALPHA 8          /* transform points */
#define INGOT_X86_W1_LANES 16         /* the widest vector: scratch rounds to it */
#define INGOT_X86_W1_MAX_SCRATCH (1 << 20)   /* longer rows stay on the direct kernel */

static inline int64_t ingot_x86_w1_up(int64_t n, int64_t q)
{
	return (n + q - 1) / q * q;
}

/* outputs per tile, and tiles per row */
static inline int64_t ingot_x86_w1_m(const ingot_x86_conv_params *p)
{
	return INGOT_X86_W1_ALPHA + 1 - p->w_dims[2];
}

static inline int64_t ingot_x86_w1_tiles(const ingot_x86_conv_params *p)
{
	return (p->y_dims[2] + ingot_x86_w1_m(p) - 1) / ingot_x86_w1_m(p);
}

/* Rows of the transposed, zero-padded input (one per position, channels along the
 * row): the begin pads, the input rounded up to whole vectors, and at least what
 * the last tile reads. */
static inline int64_t ingot_x86_w1_xrows(const ingot_x86_conv_params *p)
{
	const int64_t a = p->pads[0] + ingot_x86_w1_up(p->x_dims[2], INGOT_X86_W1_LANES);
	const int64_t b = (ingot_x86_w1_tiles(p) - 1) * ingot_x86_w1_m(p) + INGOT_X86_W1_ALPHA;
	return a > b ? a : b;
}

/* Scratch per task: that input, its transform V (8 x tiles x C), and the outputs
 * with the channels along the rows (tiles * m rows) before they are transposed. */
static inline int64_t ingot_x86_w1_scratch(const ingot_x86_conv_params *p)
{
	const int64_t c = ingot_x86_w1_up(p->x_dims[1], INGOT_X86_W1_LANES);
	const int64_t m = ingot_x86_w1_up(p->y_dims[1], INGOT_X86_W1_LANES);
	const int64_t t = ingot_x86_w1_tiles(p);
	return (ingot_x86_w1_xrows(p) * c + INGOT_X86_W1_ALPHA * t * c +
	        ingot_x86_w1_up(t * ingot_x86_w1_m(p), INGOT_X86_W1_LANES) * m) * (int64_t)sizeof(float);
}

/* The geometry, whatever `packed` says (the compiler asks before it packs). */
static inline int ingot_x86_w1_fits(const ingot_x86_conv_params *p)
{
	return p->dtype == INGOT_DT_F32 && !p->transposed && p->nsp == 1 && p->group == 1 &&
	       (p->w_dims[2] == 3 || p->w_dims[2] == 5) && p->strides[0] == 1 && p->dilations[0] == 1 &&
	       p->pads[0] >= 0 && p->pads[0] < p->w_dims[2] && p->x_dims[1] >= 16 && p->y_dims[1] >= 16 &&
	       p->y_dims[2] >= 1 && p->y_dims[2] <= p->x_dims[2] + p->w_dims[2] &&
	       ingot_x86_w1_scratch(p) <= INGOT_X86_W1_MAX_SCRATCH && ingot_x86_act_in_epilogue(p->act);
}

static inline int ingot_x86_w1_ok(const ingot_x86_conv_params *p)
{
	return p->packed == 3 && ingot_x86_w1_fits(p);
}

/* Tasks split the output channels by whole vectors. */
INGOT_KERNEL int ingot_x86_wconv1(const void *params, const void *const *in, void *const *out,
                                  void *scratch, int task, int n_tasks);

#endif /* INGOT_KERNELS_X86_WINO1D_H */
