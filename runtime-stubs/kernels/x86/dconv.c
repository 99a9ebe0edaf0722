/* x86/dconv.c — f32 Conv by direct convolution for the x86 targets (stride 1; see
 * dconv.h). The GEMM form Y (M x P) = W (M x K) @ B (K x P), K = C * KH * KW, with B
 * the im2col matrix, never builds B: a tile of UK_MR output channels x up to UK_NR
 * output columns of one output row reads B's row k = (c, ky, kx) straight from the
 * (padded) input at a fixed offset off[k] from the tile's first column. The tile
 * keeps its sums in registers over all of K (W is pre-packed in panels of UK_MR
 * rows, sgemm.h) and runs the epilogue on them: no packing and no C reloads. The
 * padded input, when the Conv pads, is copied once per call into scratch; with
 * stride 2 as its phases (even / odd rows x even / odd columns), so that a tap
 * (ky, kx) reads phase (ky & 1, kx & 1) at (oy + ky / 2, ox + kx / 2): contiguous
 * columns again. Sums are
 * reordered against the reference kernel, so results differ only by rounding. */
#include "dconv.h"
#if !defined(__has_include) || __has_include("ukernel.h")   /* absent: stubs built alone */
#include "ukernel.h"

#include <string.h>

/* One tile: rows MRc (the panel's width) x NVc vectors, the last one masked to nr
 * columns; b + off[k] is B's row k at the tile's first column. */
static inline UK_INLINE void dc_tile(int64_t K, const int64_t *off, const float *a, const float *b,
                                     float *c, int64_t ldc, int64_t nr, const uk_epi *e, const int MRc,
                                     const int NVc)
{
	const uk_mask ml = uk_mask_n(nr - (NVc - 1) * UK_VF);
	uk_vec acc[UK_MR][UK_NV];
#pragma GCC unroll 8
	for (int r = 0; r < MRc; r++)
#pragma GCC unroll 4
		for (int v = 0; v < NVc; v++)
			acc[r][v] = uk_zero();
	for (int64_t k = 0; k < K; k++, a += MRc) {
		const float *bk = b + off[k];
		uk_vec bv[UK_NV];
#pragma GCC unroll 4
		for (int v = 0; v < NVc; v++)
			bv[v] = v == NVc - 1 ? uk_loadm(bk + v * UK_VF, ml) : uk_load(bk + v * UK_VF);
#pragma GCC unroll 8
		for (int r = 0; r < MRc; r++) {
			const uk_vec av = uk_bcast(a[r]);
#pragma GCC unroll 4
			for (int v = 0; v < NVc; v++)
				acc[r][v] = uk_fma(av, bv[v], acc[r][v]);
		}
	}
#pragma GCC unroll 8
	for (int r = 0; r < MRc; r++)
#pragma GCC unroll 4
		for (int v = 0; v < NVc; v++) {
			if (v == NVc - 1)
				uk_storem(c + r * ldc + v * UK_VF, ml, uk_epi_apply(e, r, v * UK_VF, acc[r][v], ml, 1));
			else
				uk_store(c + r * ldc + v * UK_VF, uk_epi_apply(e, r, v * UK_VF, acc[r][v], ml, 0));
		}
}

typedef void (*dc_fn)(int64_t K, const int64_t *off, const float *a, const float *b, float *c,
                      int64_t ldc, int64_t nr, const uk_epi *e);

#define DC_TILE(MRc, NVc) \
	static void dc_tile_##MRc##_##NVc(int64_t K, const int64_t *off, const float *a, const float *b, \
	                                  float *c, int64_t ldc, int64_t nr, const uk_epi *e) \
	{ \
		dc_tile(K, off, a, b, c, ldc, nr, e, MRc, NVc); \
	}
#define DC_ROW(MRc) DC_TILE(MRc, 1) DC_TILE(MRc, 2) DC_TILE(MRc, 3)
#define DC_FNS(MRc) { dc_tile_##MRc##_1, dc_tile_##MRc##_2, dc_tile_##MRc##_3 }

#if UK_NV != 3 || (UK_MR != 4 && UK_MR != 8)
#error "dconv.c expects tiles of 4 or 8 rows x 3 vectors"
#endif
DC_ROW(1)
DC_ROW(2)
DC_ROW(3)
DC_ROW(4)
#if UK_MR == 8
DC_ROW(5)
DC_ROW(6)
DC_ROW(7)
DC_ROW(8)
static const dc_fn dc_fns[UK_MR][UK_NV] = { DC_FNS(1), DC_FNS(2), DC_FNS(3), DC_FNS(4),
	                                        DC_FNS(5), DC_FNS(6), DC_FNS(7), DC_FNS(8) };
#else
static const dc_fn dc_fns[UK_MR][UK_NV] = { DC_FNS(1), DC_FNS(2), DC_FNS(3), DC_FNS(4) };
#endif

/* Image x (C x H x W) zero-padded into xp (C x Hp x Wp, stride 1) or split into its
 * phases (C x 2 x 2 x Hp x Wp, stride 2; phase (py, px) holds xpad[2 i + py][2 j + px]).
 * 1-D Convs have H = Hp = 1 and ph = 0 (stride 2: one row phase). */
static void dc_pad(const float *x, float *xp, int64_t C, int64_t H, int64_t W, int64_t Hp, int64_t Wp,
                   int64_t ph, int64_t pw, int64_t s, int two)
{
	const int64_t nrp = s == 2 && two ? 2 : 1, ncp = s;   /* row and column phases */
	memset(xp, 0, sizeof(float) * (size_t)(C * nrp * ncp * Hp * Wp));
	for (int64_t c = 0; c < C; c++)
		for (int64_t iy = 0; iy < H; iy++) {
			const float *xr = x + (c * H + iy) * W;
			const int64_t r = iy + ph, py = nrp == 2 ? r & 1 : 0, i = nrp == 2 ? r >> 1 : r;
			float *d = xp + ((c * nrp + py) * ncp * Hp + i) * Wp;
			if (i >= Hp)
				continue;
			if (s == 1) {
				memcpy(d + pw, xr, sizeof(float) * (size_t)(W < Wp - pw ? W : Wp - pw));
			} else {                  /* even and odd columns through a padded row */
				float lin[2 * INGOT_X86_DC_MAX_W + 4 * UK_VF];
				const int64_t n = 2 * Wp + 2 * UK_VF;
				memset(lin, 0, sizeof(float) * (size_t)n);
				memcpy(lin + pw, xr, sizeof(float) * (size_t)(W < n - pw ? W : n - pw));
				for (int64_t j = 0; j < Wp; j += UK_VF) {
					const uk_mask m = uk_mask_n(Wp - j < UK_VF ? Wp - j : UK_VF);
					uk_storem(d + j, m, uk_load_s2(lin + 2 * j));
					uk_storem(d + Hp * Wp + j, m, uk_load_s2(lin + 2 * j + 1));
				}
			}
		}
}

INGOT_KERNEL void ingot_x86_dc_store_t(const ingot_x86_conv_params *p, const float *z, int64_t ldz,
                                       int64_t P, int64_t o0, int64_t o1, const float *res, float *y)
{
	const int64_t M = p->y_dims[1];
	uk_epi e;
	ingot_x86_epi_init(&e, p->act, p->act_alpha, p->act_beta);
	e.res = res;
	e.ldres = P;
	for (int64_t o = o0; o < o1; o += UK_VF)
		for (int64_t j0 = 0; j0 < P; j0 += UK_VF) {
			const int64_t np = P - j0 < UK_VF ? P - j0 : UK_VF;
			const uk_mask mp = uk_mask_n(np);
			uk_vec r[UK_VF];
#pragma GCC unroll 16
			for (int i = 0; i < UK_VF; i++)   /* rows past P: Z's slack, masked off below */
				r[i] = uk_load(z + (j0 + i) * ldz + o);
			uk_transpose(r);
			for (int64_t i = 0; i < UK_VF && o + i < M && o + i < o1; i++) {
				const uk_vec v = uk_epi_apply(&e, o + i, j0, r[i], mp, np < UK_VF);
				if (np < UK_VF)
					uk_storem(y + (o + i) * P + j0, mp, v);
				else
					uk_store(y + (o + i) * P + j0, v);
			}
		}
}

/* packed = 4 (dconv.h): tiles of up to UK_MR output positions x UK_NV vectors of
 * output channels, Z row j = position j0 + j, sums plus bias. */
static inline UK_INLINE void dc_tile_t(int64_t K, const int64_t *off, const int64_t *base, const float *w,
                                       int64_t ldw, const float *xb, const float *bias, int64_t M,
                                       float *z, int64_t ldz, const int Rc, const int NVc)
{
	uk_vec acc[UK_MR][UK_NV];
#pragma GCC unroll 8
	for (int r = 0; r < Rc; r++)
#pragma GCC unroll 4
		for (int v = 0; v < NVc; v++)
			acc[r][v] = uk_zero();
	for (int64_t k = 0; k < K; k++, w += ldw) {
		uk_vec b[UK_NV];
#pragma GCC unroll 4
		for (int v = 0; v < NVc; v++)
			b[v] = uk_load(w + v * UK_VF);
#pragma GCC unroll 8
		for (int r = 0; r < Rc; r++) {
			const uk_vec a = uk_bcast(xb[base[r] + off[k]]);
#pragma GCC unroll 4
			for (int v = 0; v < NVc; v++)
				acc[r][v] = uk_fma(a, b[v], acc[r][v]);
		}
	}
#pragma GCC unroll 4
	for (int v = 0; v < NVc; v++) {
		const int64_t n = M - v * UK_VF;
		const uk_vec bv = bias ? uk_loadm(bias + v * UK_VF, uk_mask_n(n < 0 ? 0 : n < UK_VF ? n : UK_VF))
		                       : uk_zero();
#pragma GCC unroll 8
		for (int r = 0; r < Rc; r++)
			uk_store(z + r * ldz + v * UK_VF, uk_add(acc[r][v], bv));
	}
}

typedef void (*dc_tfn)(int64_t K, const int64_t *off, const int64_t *base, const float *w, int64_t ldw,
                       const float *xb, const float *bias, int64_t M, float *z, int64_t ldz);

#define DC_TILE_T(MRc, NVc) \
	static void dc_tile_t_##MRc##_##NVc(int64_t K, const int64_t *off, const int64_t *base, const float *w, \
	                                    int64_t ldw, const float *xb, const float *bias, int64_t M, float *z, \
	                                    int64_t ldz) \
	{ \
		dc_tile_t(K, off, base, w, ldw, xb, bias, M, z, ldz, MRc, NVc); \
	}
#define DC_ROW_T(MRc) DC_TILE_T(MRc, 1) DC_TILE_T(MRc, 2) DC_TILE_T(MRc, 3)
#define DC_FNS_T(MRc) { dc_tile_t_##MRc##_1, dc_tile_t_##MRc##_2, dc_tile_t_##MRc##_3 }
DC_ROW_T(1)
DC_ROW_T(2)
DC_ROW_T(3)
DC_ROW_T(4)
#if UK_MR == 8
DC_ROW_T(5)
DC_ROW_T(6)
DC_ROW_T(7)
DC_ROW_T(8)
static const dc_tfn dc_tfns[UK_MR][UK_NV] = { DC_FNS_T(1), DC_FNS_T(2), DC_FNS_T(3), DC_FNS_T(4),
	                                          DC_FNS_T(5), DC_FNS_T(6), DC_FNS_T(7), DC_FNS_T(8) };
#else
static const dc_tfn dc_tfns[UK_MR][UK_NV] = { DC_FNS_T(1), DC_FNS_T(2), DC_FNS_T(3), DC_FNS_T(4) };
#endif

/* One image with packed = 4: the task's vectors [v0, v1) of output channels. */
static void dc_image_t(const ingot_x86_conv_params *p, const int64_t *off, const float *xb, int64_t rs,
                       const float *w, const float *bias, const float *res, float *y, float *z,
                       int64_t v0, int64_t v1)
{
	const int64_t M = p->y_dims[1], Mp = (M + UK_VF - 1) / UK_VF * UK_VF;
	const int64_t OW = p->y_dims[1 + p->nsp], P = (p->nsp == 2 ? p->y_dims[2] : 1) * OW;
	const int64_t K = p->x_dims[1] * (p->nsp == 2 ? p->w_dims[2] : 1) * p->w_dims[1 + p->nsp];
	for (int64_t j0 = 0; j0 < P; j0 += UK_MR) {
		const int64_t mr = P - j0 < UK_MR ? P - j0 : UK_MR;
		int64_t base[UK_MR];
		for (int64_t r = 0; r < mr; r++)   /* output position j0 + r in the (padded) input */
			base[r] = (j0 + r) / OW * rs + (j0 + r) % OW;
		for (int64_t v = v0; v < v1; v += UK_NV) {
			const int64_t nv = v1 - v < UK_NV ? v1 - v : UK_NV;
			dc_tfns[mr - 1][nv - 1](K, off, base, w + v * UK_VF, Mp, xb, bias ? bias + v * UK_VF : NULL,
			                        M - v * UK_VF, z + j0 * Mp + v * UK_VF, Mp);
		}
	}
	ingot_x86_dc_store_t(p, z, Mp, P, v0 * UK_VF, v1 * UK_VF, res, y);
}

INGOT_KERNEL int ingot_x86_dconv(const void *params, const void *const *in, void *const *out,
                                 void *scratch, int task, int n_tasks)
{
	const ingot_x86_conv_params *p = (const ingot_x86_conv_params *)params;
	const float *x = (const float *)in[0], *w = (const float *)in[1];
	const float *bias = p->has_bias ? (const float *)in[2] : NULL;
	const float *res = p->has_residual ? (const float *)in[3] : NULL;
	float *y = (float *)out[0];
	const int two = p->nsp == 2;
	const int64_t s = ingot_x86_dc_stride(p), C = p->x_dims[1], M = p->y_dims[1];
	const int64_t H = two ? p->x_dims[2] : 1, W = p->x_dims[1 + p->nsp];
	const int64_t OH = two ? p->y_dims[2] : 1, OW = p->y_dims[1 + p->nsp];
	const int64_t KH = two ? p->w_dims[2] : 1, KW = p->w_dims[1 + p->nsp];
	const int64_t ph = two ? p->pads[0] : 0, pw = p->pads[p->nsp - 1];
	const int64_t Hp = two ? ingot_x86_dc_padded(p, 0) : 1, Wp = ingot_x86_dc_padded(p, p->nsp - 1);
	const int64_t nrp = s == 2 && two ? 2 : 1, ncp = s;   /* row and column phases */
	const int64_t K = C * KH * KW, P = OH * OW;
	const int padded = ingot_x86_dc_pad_bytes(p) > 0;
	const int64_t rs = padded ? Wp : W, ps = padded ? Hp * Wp : H * W;   /* B's row and phase strides */
	const int64_t mp = p->packed == 4 ? (M + UK_VF - 1) / UK_VF : (M + UK_MR - 1) / UK_MR;
	int64_t off[INGOT_X86_DC_KMAX], p0, p1;
	uk_epi e0;
	if (!ingot_x86_dc_ok(p) || !x || !w || !y || (p->has_bias && !bias) || (p->has_residual && !res) ||
	    ((padded || p->packed == 4) && !scratch))
		return INGOT_EINVAL;
	if (P <= 0 || M <= 0)
		return INGOT_OK;
	if (n_tasks < 1) {
		task = 0;
		n_tasks = 1;
	}
	p0 = mp * task / n_tasks;         /* this task's panels (packed = 4: vectors) */
	p1 = mp * (task + 1) / n_tasks;
	if (p0 >= p1)
		return INGOT_OK;
	for (int64_t c = 0, k = 0; c < C; c++)
		for (int64_t ky = 0; ky < KH; ky++)
			for (int64_t kx = 0; kx < KW; kx++) {
				const int64_t phase = (c * nrp + (nrp == 2 ? ky & 1 : 0)) * ncp + (s == 2 ? kx & 1 : 0);
				off[k++] = phase * ps + ky / nrp * rs + kx / s;
			}
	ingot_x86_epi_init(&e0, p->act, p->act_alpha, p->act_beta);
	e0.ldres = P;
	for (int64_t n = 0; n < p->y_dims[0]; n++) {
		const float *xb = x + n * C * H * W;
		if (padded) {
			dc_pad(xb, (float *)scratch, C, H, W, Hp, Wp, ph, pw, s, two);
			xb = (const float *)scratch;
		}
		if (p->packed == 4) {
			dc_image_t(p, off, xb, rs, w, bias, res ? res + n * M * P : NULL, y + n * M * P,
			           (float *)scratch + (padded ? ingot_x86_dc_pad_bytes(p) / (int64_t)sizeof(float) : 0),
			           p0, p1);
			continue;
		}
		for (int64_t oy = 0; oy < OH; oy++)
			for (int64_t ox = 0; ox < OW; ox += UK_NR) {
				const int64_t nr = OW - ox < UK_NR ? OW - ox : UK_NR;
				const int64_t j = oy * OW + ox;
				for (int64_t pi = p0; pi < p1; pi++) {
					const int64_t m0 = pi * UK_MR, mr = M - m0 < UK_MR ? M - m0 : UK_MR;
					uk_epi e = e0;
					float *c = y + (n * M + m0) * P + j;
					e.rbias = bias ? bias + m0 : NULL;
					e.res = res ? res + (n * M + m0) * P + j : NULL;
					dc_fns[mr - 1][(nr - 1) / UK_VF](K, off, w + m0 * K, xb + oy * rs + ox, c, P, nr, &e);
				}
			}
	}
	return INGOT_OK;
}
#endif /* ukernel.h */
