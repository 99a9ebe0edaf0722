/* conv.c — reference kernels of Conv and ConvTranspose. Both gather: each output
 * row is built in chunks in a small local accumulator, looping over input
 * channels and kernel positions, with the valid range of the innermost loop
 * computed up front (no per-element bounds tests, contiguous output). f16
 * accumulates in float, so no scratch memory is needed.
 */
#include "conv.h"
#include "ewmath.h"

#include <math.h>
#include <string.h>

#define CONV_CHUNK 64
#define CONV_MAX_SP 6

/* floor(a / b) and ceil(a / b) for b > 0 and any sign of a */
static int64_t conv_floordiv(int64_t a, int64_t b)
{
	int64_t q = a / b;
	if (a % b != 0 && a < 0)
		q--;
	return q;
}

static int64_t conv_ceildiv(int64_t a, int64_t b)
{
	return -conv_floordiv(-a, b);
}

/* Steps a row-major multi-index over dims[0..n); wraps to zeros at the end. */
static void conv_next(int64_t *idx, const int64_t *dims, int n)
{
	int d;
	for (d = n - 1; d >= 0; d--) {
		if (++idx[d] < dims[d])
			return;
		idx[d] = 0;
	}
}

typedef struct conv_geo {
	int last;                    /* index of the innermost spatial dim */
	int64_t xs[CONV_MAX_SP], ys[CONV_MAX_SP], ks[CONV_MAX_SP];
	int64_t xstr[CONV_MAX_SP];   /* element strides of X's spatial dims */
	int64_t x_plane, y_plane, k_plane, y_rows, k_rows;
	int64_t C, M, Cg, Mg;
} conv_geo;

static INGOT_UNUSED float conv_ld_f16(uint16_t v) { return ingot_f16_to_f32(v); }
static INGOT_UNUSED uint16_t conv_st_f16(float v) { return ingot_f32_to_f16(v); }
#define CONV_ID(v) (v)

/* Stores len accumulated outputs through the epilogue: + residual, then the
 * activation, rounding to T after each step as the separate ops would. */
#define CONV_EPI_DEF(NAME, T, ACC, LD, ST, ACT) \
static INGOT_UNUSED void NAME(const ingot_conv_params *p, const ACC *acc, const T *res, T *y, \
                              int64_t len) \
{ \
	ACC al = (ACC)p->act_alpha, be = (ACC)p->act_beta, v; \
	int64_t j; \
	for (j = 0; j < len; j++) { \
		v = acc[j]; \
		if (res) \
			v = (ACC)LD(ST(v)) + (ACC)LD(res[j]); \
		if (p->act != INGOT_CONV_ACT_NONE) \
			v = ACT(p->act, (ACC)LD(ST(v)), al, be); \
		y[j] = ST(v); \
	} \
}
CONV_EPI_DEF(conv_epi_f32, float, float, CONV_ID, CONV_ID, ingot_ewf_act)
CONV_EPI_DEF(conv_epi_f64, double, double, CONV_ID, CONV_ID, ingot_ewd_act)
CONV_EPI_DEF(conv_epi_f16, uint16_t, float, conv_ld_f16, conv_st_f16, ingot_ewf_act)

/* One dtype: output planes u0..u1 (u = n * M + oc). */
#define CONV_DEF(NAME, T, ACC, LD, ST, EPI) \
static void NAME(const ingot_conv_params *p, const conv_geo *g, const T *x, const T *w, \
                 const T *bias, const T *res, T *y, int64_t u0, int64_t u1) \
{ \
	const int epi = res != NULL || p->act != INGOT_CONV_ACT_NONE; \
	ACC acc[CONV_CHUNK]; \
	int64_t yo[CONV_MAX_SP], ko[CONV_MAX_SP]; \
	const int L = g->last; \
	const int64_t s = p->strides[L], dl = p->dilations[L], pd = p->pads[L]; \
	const int64_t W = g->xs[L], OW = g->ys[L], KW = g->ks[L]; \
	/* W's element stride from one input channel of the group to the next */ \
	const int64_t w_icstr = p->transposed ? g->Mg * g->k_plane : g->k_plane; \
	int64_t u, yrow, krow, icg, j, ox0, kx; \
	for (u = u0; u < u1; u++) { \
		int64_t n = u / g->M, oc = u % g->M, grp = oc / g->Mg; \
		ACC b0 = bias ? (ACC)LD(bias[oc]) : (ACC)0; \
		const T *x0 = x + (n * g->C + grp * g->Cg) * g->x_plane; \
		const T *w0 = w + g->k_plane * (p->transposed \
			? grp * g->Cg * g->Mg + (oc - grp * g->Mg) : oc * g->Cg); \
		memset(yo, 0, sizeof yo); \
		for (yrow = 0; yrow < g->y_rows; yrow++, conv_next(yo, g->ys, L)) { \
			T *yr = y + u * g->y_plane + yrow * OW; \
			for (ox0 = 0; ox0 < OW; ox0 += CONV_CHUNK) { \
				int64_t len = OW - ox0 < CONV_CHUNK ? OW - ox0 : CONV_CHUNK; \
				for (j = 0; j < len; j++) \
					acc[j] = b0; \
				memset(ko, 0, sizeof ko); \
				for (krow = 0; krow < g->k_rows; krow++, conv_next(ko, g->ks, L)) { \
					int64_t xoff = 0; \
					int d, ok = 1; \
					for (d = 0; d < L && ok; d++) {   /* outer dims: the input row */ \
						int64_t id, sd = p->strides[d]; \
						if (!p->transposed) { \
							id = yo[d] * sd + ko[d] * p->dilations[d] - p->pads[d]; \
						} else { \
							int64_t t = yo[d] + p->pads[d] - ko[d] * p->dilations[d]; \
							id = t >= 0 && t % sd == 0 ? t / sd : -1; \
						} \
						ok = id >= 0 && id < g->xs[d]; \
						xoff += id * g->xstr[d]; \
					} \
					if (!ok) \
						continue; \
					for (kx = 0; kx < KW; kx++) { \
						/* the valid range [lo, hi] of the inner loop index: outputs \
						 * (conv) or inputs (transposed) that this kernel column touches */ \
						int64_t off = kx * dl - pd, lo, hi; \
						const T *wk = w0 + krow * KW + kx; \
						if (!p->transposed) { \
							lo = conv_ceildiv(-off, s); \
							hi = conv_floordiv(W - 1 - off, s); \
							lo = lo > ox0 ? lo : ox0; \
							hi = hi < ox0 + len - 1 ? hi : ox0 + len - 1; \
						} else { \
							lo = conv_ceildiv(ox0 - off, s); \
							hi = conv_floordiv(ox0 + len - 1 - off, s); \
							lo = lo > 0 ? lo : 0; \
							hi = hi < W - 1 ? hi : W - 1; \
						} \
						if (lo > hi) \
							continue; \
						for (icg = 0; icg < g->Cg; icg++) { \
							const T *xr = x0 + icg * g->x_plane + xoff; \
							ACC wv = (ACC)LD(wk[icg * w_icstr]); \
							if (p->transposed) { \
								for (j = lo; j <= hi; j++) \
									acc[j * s + off - ox0] += wv * (ACC)LD(xr[j]); \
							} else if (s == 1) {         /* contiguous */ \
								ACC *ap = acc + (lo - ox0); \
								const T *xq = xr + lo + off; \
								for (j = 0; j <= hi - lo; j++) \
									ap[j] += wv * (ACC)LD(xq[j]); \
							} else { \
								for (j = lo; j <= hi; j++) \
									acc[j - ox0] += wv * (ACC)LD(xr[j * s + off]); \
							} \
						} \
					} \
				} \
				if (epi) \
					EPI(p, acc, res ? res + (yr - y) + ox0 : NULL, yr + ox0, len); \
				else \
					for (j = 0; j < len; j++) \
						yr[ox0 + j] = ST(acc[j]); \
			} \
		} \
	} \
}

CONV_DEF(conv_f32, float, float, CONV_ID, CONV_ID, conv_epi_f32)
CONV_DEF(conv_f64, double, double, CONV_ID, CONV_ID, conv_epi_f64)
CONV_DEF(conv_f16, uint16_t, float, conv_ld_f16, conv_st_f16, conv_epi_f16)

/* f32 2-D ConvTranspose whose kernel equals its stride, without padding or dilation
 * (a U-Net's 2x2/2 "up-convolution"): each output pixel takes exactly one kernel tap,
 * kernel row oh % s and column ow % s, so an output row is s interleaved rows of
 * products, each a contiguous axpy over input channels (vectorizable). The sum of
 * each output runs from the bias over the input channels in order, as in conv_f32,
 * so the results are the same bits. Planes u0..u1. */
#define CONV_TR_KMAX 4
static int conv_tr_direct(const ingot_conv_params *p, const conv_geo *g)
{
	if (!p->transposed || p->nsp != 2 || p->dtype != INGOT_DT_F32)
		return 0;
	for (int d = 0; d < 2; d++)
		if (g->ks[d] != p->strides[d] || g->ks[d] > CONV_TR_KMAX || p->dilations[d] != 1 || p->pads[d] != 0 ||
		    g->ys[d] != g->xs[d] * g->ks[d])
			return 0;
	return 1;
}

static void conv_tr_f32(const ingot_conv_params *p, const conv_geo *g, const float *x, const float *w,
                        const float *bias, const float *res, float *y, int64_t u0, int64_t u1)
{
	const int64_t KH = g->ks[0], KW = g->ks[1], H = g->xs[0], W = g->xs[1], OW = g->ys[1];
	const int epi = res != NULL || p->act != INGOT_CONV_ACT_NONE;
	float acc[CONV_TR_KMAX][CONV_CHUNK], row[CONV_TR_KMAX * CONV_CHUNK];
	for (int64_t u = u0; u < u1; u++) {
		const int64_t n = u / g->M, oc = u % g->M, grp = oc / g->Mg;
		const float b0 = bias ? bias[oc] : 0.0f;
		const float *x0 = x + (n * g->C + grp * g->Cg) * g->x_plane;
		/* W (C, M/group, KH, KW): input channel icg of the group, output channel oc */
		const float *w0 = w + (grp * g->Cg * g->Mg + (oc - grp * g->Mg)) * g->k_plane;
		const int64_t w_icstr = g->Mg * g->k_plane;
		for (int64_t ih = 0; ih < H; ih++)
			for (int64_t kh = 0; kh < KH; kh++) {
				const int64_t oh = ih * KH + kh;
				float *yr = y + u * g->y_plane + oh * OW;
				for (int64_t j0 = 0; j0 < W; j0 += CONV_CHUNK) {
					const int64_t len = W - j0 < CONV_CHUNK ? W - j0 : CONV_CHUNK;
					for (int64_t kw = 0; kw < KW; kw++)
						for (int64_t j = 0; j < len; j++)
							acc[kw][j] = b0;
					for (int64_t icg = 0; icg < g->Cg; icg++) {
						const float *xr = x0 + icg * g->x_plane + ih * W + j0;
						const float *wk = w0 + icg * w_icstr + kh * KW;
						for (int64_t kw = 0; kw < KW; kw++) {
							const float wv = wk[kw];
							float *a = acc[kw];
							if (len == CONV_CHUNK)   /* a constant trip count vectorizes */
								for (int j = 0; j < CONV_CHUNK; j++)
									a[j] += wv * xr[j];
							else
								for (int64_t j = 0; j < len; j++)
									a[j] += wv * xr[j];
						}
					}
					for (int64_t j = 0; j < len; j++)
						for (int64_t kw = 0; kw < KW; kw++)
							row[j * KW + kw] = acc[kw][j];
					if (epi)
						conv_epi_f32(p, row, res ? res + (yr - y) + j0 * KW : NULL, yr + j0 * KW, len * KW);
					else
						memcpy(yr + j0 * KW, row, (size_t)(len * KW) * sizeof *row);
				}
			}
	}
}

INGOT_KERNEL int ingot_conv(const void *params, const void *const *in, void *const *out,
                            void *scratch, int task, int n_tasks)
{
	const ingot_conv_params *p = (const ingot_conv_params *)params;
	conv_geo g;
	int64_t units, u0, u1;
	int d, nsp = (int)p->nsp;
	const void *res = p->has_residual ? in[3] : NULL;
	(void)scratch;
	if (nsp < 1 || nsp > CONV_MAX_SP || p->group < 1 || !in[0] || !in[1] || !out[0] ||
	    (p->has_residual && !res))
		return INGOT_EINVAL;
	memset(&g, 0, sizeof g);
	g.last = nsp - 1;
	g.C = p->x_dims[1];
	g.M = p->y_dims[1];
	g.Cg = g.C / p->group;
	g.Mg = g.M / p->group;
	g.x_plane = g.y_plane = g.k_plane = 1;
	for (d = nsp - 1; d >= 0; d--) {
		if (p->strides[d] < 1 || p->dilations[d] < 1)
			return INGOT_EINVAL;
		g.xs[d] = p->x_dims[2 + d];
		g.ys[d] = p->y_dims[2 + d];
		g.ks[d] = p->w_dims[2 + d];
		g.xstr[d] = g.x_plane;
		g.x_plane *= g.xs[d];
		g.y_plane *= g.ys[d];
		g.k_plane *= g.ks[d];
	}
	units = p->y_dims[0] * g.M;
	if (units <= 0 || g.y_plane == 0 || g.Mg == 0)
		return INGOT_OK;
	g.y_rows = g.y_plane / g.ys[g.last];
	g.k_rows = g.ks[g.last] ? g.k_plane / g.ks[g.last] : 0;
	if (n_tasks < 1) {
		task = 0;
		n_tasks = 1;
	}
	u0 = units * task / n_tasks;
	u1 = units * (task + 1) / n_tasks;
	if (conv_tr_direct(p, &g)) {
		conv_tr_f32(p, &g, (const float *)in[0], (const float *)in[1], p->has_bias ? (const float *)in[2] : NULL,
		            (const float *)res, (float *)out[0], u0, u1);
		return INGOT_OK;
	}
	switch (p->dtype) {
	case INGOT_DT_F32:
		conv_f32(p, &g, (const float *)in[0], (const float *)in[1], p->has_bias ? (const float *)in[2] : NULL,
		         (const float *)res, (float *)out[0], u0, u1);
		return INGOT_OK;
	case INGOT_DT_F64:
		conv_f64(p, &g, (const double *)in[0], (const double *)in[1], p->has_bias ? (const double *)in[2] : NULL,
		         (const double *)res, (double *)out[0], u0, u1);
		return INGOT_OK;
	case INGOT_DT_F16:
		conv_f16(p, &g, (const uint16_t *)in[0], (const uint16_t *)in[1],
		         p->has_bias ? (const uint16_t *)in[2] : NULL, (const uint16_t *)res,
		         (uint16_t *)out[0], u0, u1);
		return INGOT_OK;
	default:
		return INGOT_EINVAL;
	}
}
