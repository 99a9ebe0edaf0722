/* x86/dwconv.c — f32 depthwise Conv for the x86 targets, one plane at a time,
 * in passes of DW_R output rows:
 *   - the input rows a pass reads go into a ring of row slots on the stack, each
 *     row copied once per plane with its zero padding around it (stride 2: split
 *     into its even and odd columns, so that every tap is a plain vector load);
 *     rows above or below the input read one zero row;
 *   - per vector of output columns, every input row of the pass is loaded once per
 *     tap column and feeds the DW_R output rows whose windows hold it, with DW_R
 *     independent accumulators;
 *   - the epilogue (bias, residual, an activation with a vector form: uk_epi_apply)
 *     runs on the accumulators.
 * 3x3 and 5x5 windows with equal strides have unrolled variants. Sums are
 * reordered against the reference kernel, so results differ only by rounding. */
#include "dwconv.h"
#if !defined(__has_include) || __has_include("ukernel.h")   /* absent: stubs built alone */
#include "ukernel.h"

#include <string.h>

#if defined(__GNUC__)
#define DW_ALIGN __attribute__((aligned(64)))
#else
#define DW_ALIGN
#endif

#define DW_R 4                                          /* output rows per pass */
#define DW_NS (2 * (DW_R - 1) + INGOT_X86_DW_KMAX)      /* input rows of a pass, at most */
#define DW_RS (4 * (INGOT_X86_DW_MAX_W + 16) + 2 * 16)  /* floats per row slot, at most */

typedef struct dw_geo {
	int64_t H, W, OH, OW, KH, KW, sh, sw, ph, pw;
	int64_t ns;                  /* input rows of a pass: (DW_R - 1) * sh + KH */
	int64_t rs;                  /* floats per row slot */
	int64_t half;                /* stride 2: the odd columns' offset in a slot */
} dw_geo;

/* d[0..n) = s[0..n) */
static inline void dw_copy(float *d, const float *s, int64_t n)
{
	int64_t q = 0;
	for (; q + UK_VF <= n; q += UK_VF)
		uk_store(d + q, uk_load(s + q));
	if (q < n) {
		const uk_mask m = uk_mask_n(n - q);
		uk_storem(d + q, m, uk_loadm(s + q, m));
	}
}

/* Input row xr into slot s, in two steps so that every row of a pass is stored
 * before any is read back (a load that spans earlier stores waits for them to
 * retire; one such wait per pass, not per row). Stride 1, step 1 copies the padded
 * row (s[pw + i] = xr[i]; the zeros around it stay from the start). Stride 2, step 1
 * copies it into the slot's linear part at s + 2 half, step 2 splits that into its
 * even columns at s[0..half) and odd ones at s[half..2 half). */
static void dw_load_row(const dw_geo *g, const float *xr, float *s, int step)
{
	int64_t n;
	if (g->sw == 1) {
		if (step == 1)
			dw_copy(s + g->pw, xr, g->W);
		return;
	}
	if (step == 1) {
		n = 2 * g->half - g->pw < g->W ? 2 * g->half - g->pw : g->W;   /* columns read */
		if (n > 0)
			dw_copy(s + 2 * g->half + g->pw, xr, n);
		return;
	}
	for (int64_t i = 0; i < g->half; i += UK_VF) {
		uk_store(s + i, uk_load_s2(s + 2 * g->half + 2 * i));
		uk_store(s + g->half + i, uk_load_s2(s + 2 * g->half + 2 * i + 1));
	}
}

/* One pass: output rows oy0..oy0 + nrows (nrows <= DW_R) from the input rows rp[0..ns).
 * KH, KW, SH, SW are constants in the unrolled variants; trim skips the rows past
 * nrows (the generic variant). */
static inline UK_INLINE void dw_pass(const dw_geo *g, const float *const *rp, const float *w, float *y,
                                     int64_t oy0, int64_t nrows, const uk_epi *e0, const int64_t KH,
                                     const int64_t KW, const int64_t SH, const int64_t SW, const int trim)
{
	const int64_t half = g->half, OW = g->OW;
	const int64_t nin = trim ? (nrows - 1) * SH + KH : (DW_R - 1) * SH + KH;
	const uk_epi e = *e0;          /* a local: the stores to y cannot change it */
	for (int64_t ox = 0; ox < OW; ox += UK_VF) {
		const int64_t left = OW - ox;
		const uk_mask m = uk_mask_n(left < UK_VF ? left : UK_VF);
		uk_vec acc[DW_R];
#pragma GCC unroll 4
		for (int q = 0; q < DW_R; q++)
			acc[q] = uk_zero();
#pragma GCC unroll 16
		for (int64_t i = 0; i < nin; i++) {
			const float *r = rp[i] + ox;
#pragma GCC unroll 8
			for (int64_t kx = 0; kx < KW; kx++) {
				const uk_vec v = uk_load(r + (SW == 1 ? kx : (kx & 1) * half + kx / 2));
#pragma GCC unroll 4
				for (int q = 0; q < DW_R; q++) {
					const int64_t ky = i - q * SH;
					if (ky >= 0 && ky < KH && (!trim || q < nrows))
						acc[q] = uk_fma(v, uk_bcast(w[ky * KW + kx]), acc[q]);
				}
			}
		}
#pragma GCC unroll 4
		for (int q = 0; q < DW_R; q++) {
			const int64_t off = (oy0 + q) * OW + ox;
			uk_epi eq = e;
			if (q >= nrows)
				break;
			eq.res = e.res ? e.res + off : NULL;
			if (left >= UK_VF)
				uk_store(y + off, uk_epi_apply(&eq, 0, 0, acc[q], m, 0));
			else
				uk_storem(y + off, m, uk_epi_apply(&eq, 0, 0, acc[q], m, 1));
		}
	}
}

typedef void (*dw_fn)(const dw_geo *g, const float *const *rp, const float *w, float *y, int64_t oy0,
                      int64_t nrows, const uk_epi *e);

#define DW_VARIANT(NAME, KH, KW, S) \
	static void NAME(const dw_geo *g, const float *const *rp, const float *w, float *y, int64_t oy0, \
	                 int64_t nrows, const uk_epi *e) \
	{ \
		dw_pass(g, rp, w, y, oy0, nrows, e, KH, KW, S, S, 0); \
	}
DW_VARIANT(dw_3x3s1, 3, 3, 1)
DW_VARIANT(dw_3x3s2, 3, 3, 2)
DW_VARIANT(dw_5x5s1, 5, 5, 1)
DW_VARIANT(dw_5x5s2, 5, 5, 2)

static void dw_any(const dw_geo *g, const float *const *rp, const float *w, float *y, int64_t oy0,
                   int64_t nrows, const uk_epi *e)
{
	dw_pass(g, rp, w, y, oy0, nrows, e, g->KH, g->KW, g->sh, g->sw, 1);
}

/* One plane: x (H x W) to y (OH x OW) with the window w. The slots hold the input
 * rows 0..have of this plane that later passes still read. */
static void dw_plane(const dw_geo *g, dw_fn fn, const float *x, const float *w, float *y,
                     const uk_epi *e, float *slots)
{
	const float *zrow = slots + g->ns * g->rs;
	int64_t have = -1;
	for (int64_t oy0 = 0; oy0 < g->OH; oy0 += DW_R) {
		const float *rp[DW_NS];
		float *fresh[DW_NS];
		const float *src[DW_NS];
		int nf = 0;
		const int64_t iy0 = oy0 * g->sh - g->ph;
		int64_t slot = (iy0 % g->ns + g->ns) % g->ns;   /* row iy lives in slot iy mod ns */
		for (int64_t i = 0; i < g->ns; i++, slot = slot + 1 == g->ns ? 0 : slot + 1) {
			const int64_t iy = iy0 + i;
			float *s;
			if (iy < 0 || iy >= g->H) {
				rp[i] = zrow;
				continue;
			}
			s = slots + slot * g->rs;     /* the rows of one pass differ mod ns */
			if (iy > have) {
				fresh[nf] = s;
				src[nf++] = x + iy * g->W;
				have = iy;
			}
			rp[i] = s;
		}
		for (int f = 0; f < nf; f++)
			dw_load_row(g, src[f], fresh[f], 1);
		if (g->sw == 2)
			for (int f = 0; f < nf; f++)
				dw_load_row(g, src[f], fresh[f], 2);
		fn(g, rp, w, y, oy0, g->OH - oy0 < DW_R ? g->OH - oy0 : DW_R, e);
	}
}

/* ---- the blocked layout (pwconv.h): channels on the lanes ---- */

#define DWB_X 8                  /* output columns per unrolled step */

/* Output row oy in groups of up to DWB_X columns, one accumulator per column (KW
 * and S constants in the unrolled variants); taps outside the input are skipped.
 * The epilogue runs on the group, which is stored as whole vectors (blocked y, at
 * y + ox * UK_VF) or transposed into the NCHW planes of the block's channels
 * (P > 0: y at the row's first column of the block's first channel, planes P
 * apart). */
static inline UK_INLINE void dwb_row(const dw_geo *g, const float *x, const uk_vec *wt, uk_vec bv,
                                     float *y, int64_t P, int64_t oy, const uk_epi *e, const int64_t KW,
                                     const int64_t S)
{
	const int64_t iy0 = oy * g->sh - g->ph, W = g->W;
	const int64_t ky0 = iy0 < 0 ? -iy0 : 0, ky1 = iy0 + g->KH > g->H ? g->H - iy0 : g->KH;
	for (int64_t ox = 0; ox < g->OW; ox += DWB_X) {
		const int64_t nx = g->OW - ox < DWB_X ? g->OW - ox : DWB_X, ix0 = ox * S - g->pw;
		uk_vec acc[DWB_X];
#pragma GCC unroll 8
		for (int j = 0; j < DWB_X; j++)
			acc[j] = uk_zero();
		if (nx == DWB_X && ix0 >= 0 && ix0 + (DWB_X - 1) * S + KW <= W) {   /* inside the row */
			for (int64_t ky = ky0; ky < ky1; ky++) {
				const float *r = x + ((iy0 + ky) * W + ix0) * UK_VF;
#pragma GCC unroll 7
				for (int64_t kx = 0; kx < KW; kx++) {
					const uk_vec wv = wt[ky * KW + kx];
#pragma GCC unroll 8
					for (int j = 0; j < DWB_X; j++)
						acc[j] = uk_fma(uk_load(r + (j * S + kx) * UK_VF), wv, acc[j]);
				}
			}
		} else {
			for (int64_t ky = ky0; ky < ky1; ky++) {
				const float *r = x + (iy0 + ky) * W * UK_VF;
#pragma GCC unroll 7
				for (int64_t kx = 0; kx < KW; kx++) {
					const uk_vec wv = wt[ky * KW + kx];
#pragma GCC unroll 8
					for (int j = 0; j < DWB_X; j++) {
						const int64_t ix = ix0 + j * S + kx;
						if (j < nx && ix >= 0 && ix < W)
							acc[j] = uk_fma(uk_load(r + ix * UK_VF), wv, acc[j]);
					}
				}
			}
		}
#pragma GCC unroll 8
		for (int j = 0; j < DWB_X; j++)
			acc[j] = uk_epi_apply(e, 0, 0, uk_add(acc[j], bv), uk_mask_n(UK_VF), 0);
		if (P)
			uk_store_t8(y + ox, P, acc, UK_VF, nx);
		else
			for (int j = 0; j < nx; j++)
				uk_store(y + (ox + j) * UK_VF, acc[j]);
	}
}

typedef void (*dwb_fn)(const dw_geo *g, const float *x, const uk_vec *wt, uk_vec bv, float *y, int64_t P,
                       int64_t oy, const uk_epi *e);

#define DWB_VARIANT(NAME, KW, S) \
	static void NAME(const dw_geo *g, const float *x, const uk_vec *wt, uk_vec bv, float *y, int64_t P, \
	                 int64_t oy, const uk_epi *e) \
	{ \
		dwb_row(g, x, wt, bv, y, P, oy, e, KW, S); \
	}
DWB_VARIANT(dwb_3x3s1, 3, 1)
DWB_VARIANT(dwb_3x3s2, 3, 2)
DWB_VARIANT(dwb_5x5s1, 5, 1)
DWB_VARIANT(dwb_5x5s2, 5, 2)
DWB_VARIANT(dwb_any, g->KW, g->sw)

/* Blocked x into blocked y (yb) or NCHW y. Tasks split the rows of the N x C / UK_VF
 * output planes. */
static int dwb_run(const dw_geo *g, const float *x, const float *w, const float *bias, float *y, int yb,
                   int64_t N, int64_t C, const uk_epi *e, int task, int n_tasks)
{
	uk_vec wt[INGOT_X86_DW_KMAX * INGOT_X86_DW_KMAX];
	const int64_t K = g->KH * g->KW, cb = C / UK_VF, units = N * cb * g->OH;
	const int64_t u0 = units * task / n_tasks, u1 = units * (task + 1) / n_tasks;
	int64_t have = -1;
	uk_vec bv = uk_zero();
	dwb_fn fn = dwb_any;
	if (C % UK_VF)
		return INGOT_EINVAL;
	if (g->KH == g->KW && g->sh == g->sw && (g->KH == 3 || g->KH == 5))
		fn = g->KH == 3 ? (g->sh == 1 ? dwb_3x3s1 : dwb_3x3s2) : (g->sh == 1 ? dwb_5x5s1 : dwb_5x5s2);
	for (int64_t u = u0; u < u1; u++) {
		const int64_t plane = u / g->OH, oy = u % g->OH, b = plane % cb, P = g->OH * g->OW;
		const int64_t yoff = plane * P * UK_VF + oy * g->OW * (yb ? UK_VF : 1);
		if (b != have) {             /* the block's taps as vectors over its channels */
			float t[UK_VF] DW_ALIGN;
			for (int64_t k = 0; k < K; k++) {
				for (int l = 0; l < UK_VF; l++)
					t[l] = w[(b * UK_VF + l) * K + k];
				wt[k] = uk_load(t);
			}
			bv = bias ? uk_load(bias + b * UK_VF) : uk_zero();
			have = b;
		}
		fn(g, x + plane * g->H * g->W * UK_VF, wt, bv, y + yoff, yb ? 0 : P, oy, e);
	}
	return INGOT_OK;
}

INGOT_KERNEL int ingot_x86_dwconv(const void *params, const void *const *in, void *const *out,
                                  void *scratch, int task, int n_tasks)
{
	const ingot_x86_conv_params *p = (const ingot_x86_conv_params *)params;
	const float *x = (const float *)in[0], *w = (const float *)in[1];
	const float *bias = p->has_bias ? (const float *)in[2] : NULL;
	const float *res = p->has_residual ? (const float *)in[3] : NULL;
	float *y = (float *)out[0];
	float slots[(DW_NS + 1) * DW_RS] DW_ALIGN;
	const int two = p->nsp == 2;
	int64_t C, P, K, nvf, units, u0, u1;
	dw_geo g;
	dw_fn fn = dw_any;
	uk_epi e;
	(void)scratch;
	if (!ingot_x86_dw_ok(p) || !x || !w || !y || (p->has_bias && !bias) || (p->has_residual && !res))
		return INGOT_EINVAL;
	memset(&g, 0, sizeof g);
	g.H = two ? p->x_dims[2] : 1;
	g.W = p->x_dims[1 + p->nsp];
	g.OH = two ? p->y_dims[2] : 1;
	g.OW = p->y_dims[1 + p->nsp];
	g.KH = two ? p->w_dims[2] : 1;
	g.KW = p->w_dims[1 + p->nsp];
	g.sh = two ? p->strides[0] : 1;
	g.sw = p->strides[p->nsp - 1];
	g.ph = two ? p->pads[0] : 0;
	g.pw = p->pads[p->nsp - 1];
	g.ns = (DW_R - 1) * g.sh + g.KH;
	if (g.OH <= 0 || g.OW <= 0)
		return INGOT_OK;
	nvf = (g.OW + UK_VF - 1) / UK_VF * UK_VF;           /* output columns the vectors cover */
	if (g.sw == 1) {
		g.rs = nvf + g.KW - 1 > g.pw + g.W ? nvf + g.KW - 1 : g.pw + g.W;
		g.rs = (g.rs + UK_VF - 1) / UK_VF * UK_VF;
	} else {                      /* even and odd halves, then the linear row */
		g.half = (nvf + (g.KW - 1) / 2 + UK_VF - 1) / UK_VF * UK_VF;
		g.rs = 4 * g.half + 2 * UK_VF;
	}
	if (g.rs > DW_RS)
		return INGOT_EINVAL;
	if (g.KH == g.KW && g.sh == g.sw && (g.KH == 3 || g.KH == 5))
		fn = g.KH == 3 ? (g.sh == 1 ? dw_3x3s1 : dw_3x3s2) : (g.sh == 1 ? dw_5x5s1 : dw_5x5s2);
	memset(slots, 0, sizeof(float) * (size_t)((g.ns + 1) * g.rs));
	ingot_x86_epi_init(&e, p->act, p->act_alpha, p->act_beta);
	C = p->x_dims[1];
	if (n_tasks < 1) {
		task = 0;
		n_tasks = 1;
	}
	if (p->layout) {             /* blocked input (pwconv.h), no residual */
		if (!(p->layout & 1) || !two || res)
			return INGOT_EINVAL;
		return dwb_run(&g, x, w, bias, y, (int)(p->layout >> 1), p->y_dims[0], C, &e, task, n_tasks);
	}
	P = g.OH * g.OW;
	K = g.KH * g.KW;
	units = p->y_dims[0] * C;
	u0 = units * task / n_tasks;
	u1 = units * (task + 1) / n_tasks;
	for (int64_t u = u0; u < u1; u++) {
		const int64_t oc = u % C;
		e.rbias = bias ? bias + oc : NULL;
		e.res = res ? res + u * P : NULL;
		dw_plane(&g, fn, x + u * g.H * g.W, w + oc * K, y + u * P, &e, slots);
	}
	return INGOT_OK;
}
#endif /* ukernel.h */
