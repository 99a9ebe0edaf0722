/* x86/pwconv.c — f32 pointwise Conv for the x86 targets with output channels on the
 * vector lanes (see pwconv.h for the blocked layout and the packed weights). A tile
 * is PW_NV vectors of output channels x up to PW_NB pixels; per input channel k it
 * loads the panel's weights once and broadcasts each pixel's x(k, p), so the sums
 * stay in registers over the whole of C. Blocked outputs are stored as whole
 * vectors, an NCHW output through 8 x 8 transposes (uk_store_t8). The pixels of a
 * plane are cut into tiles of near-equal size (49 = 7 x 7, not 6 x 8 + 1), grouped
 * into chunks whose input fits in L2; per chunk, every panel runs over the chunk's
 * tiles, so a panel's weights are reused from cache. Sums are reordered against
 * the reference kernel, so results differ only by rounding. */
#include "pwconv.h"
#if !defined(__has_include) || __has_include("ukernel.h")   /* absent: stubs built alone */
#include "ukernel.h"

#include <math.h>
#include <string.h>

#define PW_NV INGOT_X86_PW_NV(UK_VF)
#define PW_MC INGOT_X86_PW_MC(UK_VF)
#define PW_NB (UK_VF == 16 ? 8 : 6)      /* pixels per tile: PW_NV * PW_NB sums in registers */
#define PW_CHUNK_FLOATS 65536            /* input floats of a chunk of tiles (256 KiB) */

/* One tile's operands. */
typedef struct pw_tile_args {
	const float *xs;             /* the tile's first pixel at channel 0 */
	int64_t P, C;
	const float *wp;             /* the panel */
	int64_t ldw;                 /* its width: floats per k */
	uk_mask mlast;               /* lanes of the panel's last vector */
	const float *bias;           /* the panel's first channel's bias, or NULL */
	float *y;                    /* NCHW: (channel m0, pixel p0); blocked: block of m0, p0 */
	const float *res;            /* the residual at the same place as y, or NULL */
	int64_t mc, nb;              /* channels of the panel, pixels of the tile */
	int yb;                      /* y (and the residual) blocked */
	int clip;                    /* yb, no residual, act = clamp to [clo, chi] (Relu, Clip, */
	float clo, chi;              /* none: the same results as uk_epi_apply) */
	const uk_epi *act;           /* the activation alone */
} pw_tile_args;

/* The epilogue and the stores of a tile's sums acc[v][j] (v < nv, j < t->nb): bias,
 * residual, activation. Out of line: once per tile, against C multiply-adds per sum. */
static void pw_epilogue(const pw_tile_args *t, uk_vec acc[][INGOT_X86_PW_NBMAX], int nv)
{
	const int64_t P = t->P, nb = t->nb;
	if (t->yb) {                 /* whole vectors: M is a multiple of UK_VF */
		for (int v = 0; v < nv; v++) {
			const uk_vec bv = t->bias ? uk_load(t->bias + v * UK_VF) : uk_zero();
			float *yv = t->y + v * UK_VF * P;
			const float *rv = t->res ? t->res + v * UK_VF * P : NULL;
			for (int j = 0; j < nb; j++) {
				uk_vec s = uk_add(acc[v][j], bv);
				if (rv)
					s = uk_add(s, uk_load(rv + j * UK_VF));
				uk_store(yv + j * UK_VF, uk_epi_apply(t->act, 0, 0, s, t->mlast, 0));
			}
		}
	} else {                     /* transposed on the way out; the residual after that */
		for (int v = 0; v < nv; v++) {
			const uk_mask m = v == nv - 1 ? t->mlast : uk_mask_n(UK_VF);
			const uk_vec bv = t->bias ? uk_loadm(t->bias + v * UK_VF, m) : uk_zero();
			const int64_t nc = t->mc - v * UK_VF;
			uk_vec r[INGOT_X86_PW_NBMAX];
			for (int j = 0; j < INGOT_X86_PW_NBMAX; j++)
				r[j] = j >= nb ? uk_zero()
				     : t->res ? uk_add(acc[v][j], bv) : uk_epi_apply(t->act, 0, 0, uk_add(acc[v][j], bv), m, 0);
			uk_store_t8(t->y + v * UK_VF * P, P, r, nc < UK_VF ? nc : UK_VF, nb);
		}
		if (t->res) {
			const uk_mask m = uk_mask_n(nb);
			for (int64_t c = 0; c < t->mc; c++) {
				float *yc = t->y + c * P;
				uk_storem(yc, m, uk_epi_apply(t->act, 0, 0, uk_add(uk_loadm(yc, m), uk_loadm(t->res + c * P, m)),
				                              m, 1));
			}
		}
	}
}

/* The tile's sums, then pw_epilogue. NV and XB (blocked input) are constants in
 * each variant, and so is the tile's pixel count NBK, or NBK = 0: any count up to
 * PW_NB (t->nb), each pixel behind a test. */
static inline UK_INLINE void pw_tile(const pw_tile_args *t, const int NV, const int NBK, const int XB)
{
	const int64_t P = t->P, C = t->C, ldw = t->ldw, nb = NBK ? NBK : t->nb;
	const int NB = NBK ? NBK : PW_NB;
	uk_vec acc[3][INGOT_X86_PW_NBMAX];     /* 3: every variant compiles on either ISA */
#define PW_ON(j) (NBK || (j) < nb)
#pragma GCC unroll 3
	for (int v = 0; v < NV; v++)
#pragma GCC unroll 8
		for (int j = 0; j < NB; j++)
			acc[v][j] = uk_zero();
	if (XB) {
		for (int64_t kb = 0; kb < C; kb += UK_VF) {
			const float *xb = t->xs + kb * P, *wk = t->wp + kb * ldw;
#pragma GCC unroll 2
			for (int kk = 0; kk < UK_VF; kk++, wk += ldw) {
				uk_vec wv[3];
#pragma GCC unroll 3
				for (int v = 0; v < NV; v++)
					wv[v] = v == NV - 1 ? uk_loadm(wk + v * UK_VF, t->mlast) : uk_load(wk + v * UK_VF);
#pragma GCC unroll 8
				for (int j = 0; j < NB; j++)
					if (PW_ON(j)) {
						const uk_vec bc = uk_bcast(xb[j * UK_VF + kk]);
#pragma GCC unroll 3
						for (int v = 0; v < NV; v++)
							acc[v][j] = uk_fma(wv[v], bc, acc[v][j]);
					}
			}
		}
	} else {
		const float *xk = t->xs, *wk = t->wp;
		for (int64_t k = 0; k < C; k++, xk += P, wk += ldw) {
			uk_vec wv[3];
#pragma GCC unroll 3
			for (int v = 0; v < NV; v++)
				wv[v] = v == NV - 1 ? uk_loadm(wk + v * UK_VF, t->mlast) : uk_load(wk + v * UK_VF);
#pragma GCC unroll 8
			for (int j = 0; j < NB; j++)
				if (PW_ON(j)) {
					const uk_vec bc = uk_bcast(xk[j]);
#pragma GCC unroll 3
					for (int v = 0; v < NV; v++)
						acc[v][j] = uk_fma(wv[v], bc, acc[v][j]);
				}
		}
	}
	if (t->clip) {               /* blocked y, no residual, Relu/Clip/none: inline */
		const uk_vec lo = uk_bcast(t->clo), hi = uk_bcast(t->chi);
#pragma GCC unroll 3
		for (int v = 0; v < NV; v++) {
			const uk_vec bv = t->bias ? uk_load(t->bias + v * UK_VF) : uk_zero();
#pragma GCC unroll 8
			for (int j = 0; j < NB; j++)
				if (PW_ON(j))
					uk_store(t->y + v * UK_VF * P + j * UK_VF, uk_min(hi, uk_max(lo, uk_add(acc[v][j], bv))));
		}
	} else {                     /* a copy: acc itself never leaves the registers */
		uk_vec sums[3][INGOT_X86_PW_NBMAX];
#pragma GCC unroll 3
		for (int v = 0; v < NV; v++)
#pragma GCC unroll 8
			for (int j = 0; j < NB; j++)
				sums[v][j] = acc[v][j];
		pw_epilogue(t, sums, NV);
	}
#undef PW_ON
}

typedef void (*pw_fn)(const pw_tile_args *t);

#define PW_FN(XB, NV, K, NBK) \
	static void pw_##XB##_##NV##_##K(const pw_tile_args *t) { pw_tile(t, NV, NBK, XB); }
#define PW_FNS(XB, NV) PW_FN(XB, NV, 0, PW_NB) PW_FN(XB, NV, 1, PW_NB - 1) PW_FN(XB, NV, 2, 0)
PW_FNS(0, 1) PW_FNS(0, 2) PW_FNS(0, 3)
PW_FNS(1, 1) PW_FNS(1, 2) PW_FNS(1, 3)
#define PW_ROW(XB, NV) { pw_##XB##_##NV##_0, pw_##XB##_##NV##_1, pw_##XB##_##NV##_2 }

/* pw_fns[x blocked][vectors - 1][0: PW_NB pixels, 1: PW_NB - 1, 2: fewer] */
static const pw_fn pw_fns[2][3][3] = {
	{ PW_ROW(0, 1), PW_ROW(0, 2), PW_ROW(0, 3) },
	{ PW_ROW(1, 1), PW_ROW(1, 2), PW_ROW(1, 3) },
};

INGOT_KERNEL int ingot_x86_pwconv(const void *params, const void *const *in, void *const *out,
                                  void *scratch, int task, int n_tasks)
{
	const ingot_x86_conv_params *p = (const ingot_x86_conv_params *)params;
	const float *x = (const float *)in[0], *w = (const float *)in[1];
	const float *bias = p->has_bias ? (const float *)in[2] : NULL;
	const float *res = p->has_residual ? (const float *)in[3] : NULL;
	float *y = (float *)out[0];
	const int xb = (int)(p->layout & 1), yb = (int)(p->layout >> 1 & 1);
	int64_t N, C, M, P, nt, npan, ct, units, u0, u1, u = 0;
	uk_epi act;
	int clip = 1;
	float clo = -HUGE_VALF, chi = HUGE_VALF;
	(void)scratch;
	if (!ingot_x86_pw_ok(p) || p->packed != 3 || !x || !w || !y || (p->has_bias && !bias) ||
	    (p->has_residual && !res))
		return INGOT_EINVAL;
	N = p->y_dims[0];
	C = p->x_dims[1];
	M = p->y_dims[1];
	P = p->y_dims[2] * p->y_dims[3];
	if ((xb && C % UK_VF) || (yb && M % UK_VF))
		return INGOT_EINVAL;
	if (N <= 0 || M <= 0 || P <= 0)
		return INGOT_OK;
	ingot_x86_epi_init(&act, p->act, p->act_alpha, p->act_beta);
	if (act.act == INGOT_X86_ACT_RELU) {
		clo = 0.0f;
	} else if (act.act == INGOT_X86_ACT_CLIP) {
		clo = act.lo;
		chi = act.hi;
	} else if (act.act != INGOT_X86_ACT_NONE) {
		clip = 0;
	}
	nt = (P + PW_NB - 1) / PW_NB;
	npan = (M + PW_MC - 1) / PW_MC;
	ct = PW_CHUNK_FLOATS / (C * PW_NB);
	ct = ct < 1 ? 1 : ct;
	units = N * nt * npan;
	if (n_tasks < 1) {
		task = 0;
		n_tasks = 1;
	}
	u0 = units * task / n_tasks;
	u1 = units * (task + 1) / n_tasks;
	/* units in the order image, chunk of tiles, panel, tile */
	for (int64_t n = 0; n < N; n++)
		for (int64_t t0 = 0; t0 < nt; t0 += ct) {
			const int64_t t1 = t0 + ct < nt ? t0 + ct : nt;
			if (u + (t1 - t0) * npan <= u0 || u >= u1) {
				u += (t1 - t0) * npan;
				continue;
			}
			for (int64_t pan = 0; pan < npan; pan++) {
				const int64_t m0 = pan * PW_MC, mc = M - m0 < PW_MC ? M - m0 : PW_MC;
				const int64_t nv = (mc + UK_VF - 1) / UK_VF;
				for (int64_t t = t0; t < t1; t++, u++) {
					const int64_t p0 = P * t / nt, nb = P * (t + 1) / nt - p0;
					const int64_t yoff = n * M * P + (yb ? m0 * P + p0 * UK_VF : m0 * P + p0);
					pw_tile_args a;
					if (u < u0 || u >= u1)
						continue;
					a.xs = x + n * C * P + (xb ? p0 * UK_VF : p0);
					a.P = P;
					a.C = C;
					a.wp = w + m0 * C;
					a.ldw = mc;
					a.mlast = uk_mask_n(mc - (nv - 1) * UK_VF);
					a.bias = bias ? bias + m0 : NULL;
					a.y = y + yoff;
					a.res = res ? res + yoff : NULL;
					a.mc = mc;
					a.nb = nb;
					a.act = &act;
					a.yb = yb;
					a.clip = yb && !res && clip;
					a.clo = clo;
					a.chi = chi;
					pw_fns[xb][nv - 1][nb == PW_NB ? 0 : nb == PW_NB - 1 ? 1 : 2](&a);
				}
			}
		}
	return INGOT_OK;
}
#endif /* ukernel.h */
