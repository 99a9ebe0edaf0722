/* x86/wino1d.c — f32 1-D Conv by Winograd F(m, k), m = 9 - k, on 8 points for the
 * x86 targets (see wino1d.h). A 1-D Conv of a few dozen positions leaves too few
 * tiles to fill a vector, so the channels go on the lanes instead:
 *   1. the zero-padded input is transposed (positions x C) in UK_VF x UK_VF blocks;
 *   2. each tile of 8 positions is transformed, V = B^T d, a vector of channels at
 *      a time, into V[xi][tile][c];
 *   3. per point xi a product V[xi] (tiles x C) @ U[xi] (C x Mp), a block of up to
 *      W1_R tiles x W1_NV vectors of output channels in registers, then the output
 *      transform A^T of the 8 products gives m positions per tile, plus bias, into
 *      Z (positions x Mp);
 *   4. Z is transposed back into Y (M x positions), with the residual and the
 *      activation (ingot_x86_dc_store_t of x86/dconv.c).
 * B^T's rows are scaled to small constants; prepack.c divides G's rows by the same
 * scales. Sums are reordered against the reference kernel and the transforms round,
 * so results differ from it by a few units of the inputs' rounding (tests/unit/x86
 * checks them against numpy). */
#include "wino1d.h"
#include "dconv.h"
#if !defined(__has_include) || __has_include("ukernel.h")   /* absent: stubs built alone */
#include "ukernel.h"

#include <string.h>

#define W1_R 6         /* tiles of a product block */
#if UK_VF >= 16
#define W1_NV 4        /* vectors of output channels: 24 accumulators of 32 registers */
#else
#define W1_NV 2        /* 12 of 16 */
#endif

/* The 8 transformed values of the tile whose rows d + j * ld (j < 8) hold its
 * positions, one vector of channels each, into v + xi * lv. */
static inline UK_INLINE void w1_in(const float *d, int64_t ld, float *v, int64_t lv)
{
	const uk_vec d0 = uk_load(d), d1 = uk_load(d + ld), d2 = uk_load(d + 2 * ld);
	const uk_vec d3 = uk_load(d + 3 * ld), d4 = uk_load(d + 4 * ld), d5 = uk_load(d + 5 * ld);
	const uk_vec d6 = uk_load(d + 6 * ld), d7 = uk_load(d + 7 * ld);
	/* the rows of +-p share their even and odd parts: p = 1, 2, 1/2 */
	const uk_vec e1 = uk_fma(uk_bcast(-4.25f), d4, uk_add(d2, d6));
	const uk_vec o1 = uk_fma(uk_bcast(-4.25f), d3, uk_add(d1, d5));
	const uk_vec e2 = uk_fma(uk_bcast(0.25f), d2, uk_fma(uk_bcast(-1.25f), d4, d6));
	const uk_vec o2 = uk_fma(uk_bcast(0.5f), d1, uk_fma(uk_bcast(-2.5f), d3, uk_add(d5, d5)));
	const uk_vec e3 = uk_fma(uk_bcast(4.0f), d2, uk_fma(uk_bcast(-5.0f), d4, d6));
	const uk_vec o3 = uk_fma(uk_bcast(2.0f), d1, uk_fma(uk_bcast(-2.5f), d3, uk_mul(uk_bcast(0.5f), d5)));
	uk_store(v, uk_fma(uk_bcast(5.25f), uk_sub(d4, d2), uk_sub(d0, d6)));
	uk_store(v + lv, uk_add(e1, o1));
	uk_store(v + 2 * lv, uk_sub(e1, o1));
	uk_store(v + 3 * lv, uk_add(e2, o2));
	uk_store(v + 4 * lv, uk_sub(e2, o2));
	uk_store(v + 5 * lv, uk_add(e3, o3));
	uk_store(v + 6 * lv, uk_sub(e3, o3));
	uk_store(v + 7 * lv, uk_fma(uk_bcast(5.25f), uk_sub(d3, d5), uk_sub(d7, d1)));
}

/* The m outputs of a tile from its 8 products q: y_i = sum_xi p_xi^i q_xi, plus
 * q_7 (the point at infinity) in the last. */
static inline UK_INLINE void w1_out(const uk_vec *q, int64_t m, uk_vec *y)
{
	const uk_vec s1 = uk_add(q[1], q[2]), t1 = uk_sub(q[1], q[2]);
	const uk_vec s2 = uk_add(q[3], q[4]), t2 = uk_sub(q[3], q[4]);
	const uk_vec s3 = uk_add(q[5], q[6]), t3 = uk_sub(q[5], q[6]);
	y[0] = uk_add(q[0], uk_add(s1, uk_add(s2, s3)));
	y[1] = uk_fma(uk_bcast(2.0f), t2, uk_fma(uk_bcast(0.5f), t3, t1));
	y[2] = uk_fma(uk_bcast(4.0f), s2, uk_fma(uk_bcast(0.25f), s3, s1));
	y[3] = uk_fma(uk_bcast(8.0f), t2, uk_fma(uk_bcast(0.125f), t3, t1));
	if (m > 4) {
		y[4] = uk_fma(uk_bcast(16.0f), s2, uk_fma(uk_bcast(0.0625f), s3, s1));
		y[5] = uk_fma(uk_bcast(32.0f), t2, uk_fma(uk_bcast(0.03125f), t3, t1));
	}
	y[m - 1] = uk_add(y[m - 1], q[7]);
}

/* The 8 products of a block: q[xi][r][v] = sum_c V[xi][r][c] U[xi][c][v] for Rc
 * tiles (v: V at its first tile, rows ldv apart, points pv apart) and NVc vectors
 * of output channels (u: U at the block's first channel, rows ldu apart, points pu
 * apart). */
static inline UK_INLINE void w1_block(int64_t C, const float *v, int64_t ldv, int64_t pv, const float *u,
                                      int64_t ldu, int64_t pu, uk_vec q[][W1_R][W1_NV], const int Rc,
                                      const int NVc)
{
	for (int xi = 0; xi < INGOT_X86_W1_ALPHA; xi++, v += pv, u += pu) {
		uk_vec acc[W1_R][W1_NV];
		const float *uc = u;
#pragma GCC unroll 8
		for (int r = 0; r < Rc; r++)
#pragma GCC unroll 4
			for (int j = 0; j < NVc; j++)
				acc[r][j] = uk_zero();
		for (int64_t c = 0; c < C; c++, uc += ldu) {
			uk_vec b[W1_NV];
#pragma GCC unroll 4
			for (int j = 0; j < NVc; j++)
				b[j] = uk_load(uc + j * UK_VF);
#pragma GCC unroll 8
			for (int r = 0; r < Rc; r++) {
				const uk_vec a = uk_bcast(v[r * ldv + c]);
#pragma GCC unroll 4
				for (int j = 0; j < NVc; j++)
					acc[r][j] = uk_fma(a, b[j], acc[r][j]);
			}
		}
#pragma GCC unroll 8
		for (int r = 0; r < Rc; r++)
#pragma GCC unroll 4
			for (int j = 0; j < NVc; j++)
				q[xi][r][j] = acc[r][j];
	}
}

typedef void (*w1_fn)(int64_t C, const float *v, int64_t ldv, int64_t pv, const float *u, int64_t ldu,
                      int64_t pu, uk_vec q[][W1_R][W1_NV]);

#define W1_BLOCK(R, NV) \
	static void w1_block_##R##_##NV(int64_t C, const float *v, int64_t ldv, int64_t pv, const float *u, \
	                                int64_t ldu, int64_t pu, uk_vec q[][W1_R][W1_NV]) \
	{ \
		w1_block(C, v, ldv, pv, u, ldu, pu, q, R, NV); \
	}
#if W1_NV == 4
#define W1_ROW(R) W1_BLOCK(R, 1) W1_BLOCK(R, 2) W1_BLOCK(R, 3) W1_BLOCK(R, 4)
#define W1_FNS(R) { w1_block_##R##_1, w1_block_##R##_2, w1_block_##R##_3, w1_block_##R##_4 }
#else
#define W1_ROW(R) W1_BLOCK(R, 1) W1_BLOCK(R, 2)
#define W1_FNS(R) { w1_block_##R##_1, w1_block_##R##_2 }
#endif
W1_ROW(1)
W1_ROW(2)
W1_ROW(3)
W1_ROW(4)
W1_ROW(5)
W1_ROW(6)
static const w1_fn w1_fns[W1_R][W1_NV] = { W1_FNS(1), W1_FNS(2), W1_FNS(3), W1_FNS(4), W1_FNS(5),
	                                       W1_FNS(6) };

/* x (C x L) into xt (rows x ld): row pb + q holds position q's channels, the other
 * rows and the channels from C on are zeros. */
static void w1_transpose_in(const float *x, int64_t C, int64_t L, int64_t pb, int64_t rows, int64_t ld,
                            float *xt)
{
	memset(xt, 0, sizeof(float) * (size_t)(pb * ld));
	memset(xt + (pb + L) * ld, 0, sizeof(float) * (size_t)((rows - pb - L) * ld));
	for (int64_t c0 = 0; c0 < C; c0 += UK_VF)
		for (int64_t q0 = 0; q0 < L; q0 += UK_VF) {
			const uk_mask mk = uk_mask_n(L - q0 < UK_VF ? L - q0 : UK_VF);
			uk_vec r[UK_VF];
#pragma GCC unroll 16
			for (int i = 0; i < UK_VF; i++)
				r[i] = c0 + i < C ? uk_loadm(x + (c0 + i) * L + q0, mk) : uk_zero();
			uk_transpose(r);
#pragma GCC unroll 16
			for (int j = 0; j < UK_VF; j++)    /* rows past L get the zeros of the masked lanes */
				uk_store(xt + (pb + q0 + j) * ld + c0, r[j]);
		}
}

INGOT_KERNEL int ingot_x86_wconv1(const void *params, const void *const *in, void *const *out,
                                  void *scratch, int task, int n_tasks)
{
	const ingot_x86_conv_params *p = (const ingot_x86_conv_params *)params;
	const float *x = (const float *)in[0], *u = (const float *)in[1];
	const float *bias = p->has_bias ? (const float *)in[2] : NULL;
	const float *res = p->has_residual ? (const float *)in[3] : NULL;
	float *y = (float *)out[0];
	const int64_t C = p->x_dims[1], M = p->y_dims[1], L = p->x_dims[2], OL = p->y_dims[2];
	const int64_t pb = p->pads[0], m = ingot_x86_w1_m(p), T = ingot_x86_w1_tiles(p);
	const int64_t XR = ingot_x86_w1_xrows(p);
	const int64_t Cp = ingot_x86_w1_up(C, UK_VF), Mp = ingot_x86_w1_up(M, UK_VF), nvec = Mp / UK_VF;
	const int64_t nblk = (T + W1_R - 1) / W1_R;   /* tile blocks of near-equal size */
	float *xt = (float *)scratch, *vt, *z;
	int64_t v0, v1;
	if (!ingot_x86_w1_ok(p) || !x || !u || !y || !scratch || (p->has_bias && !bias) ||
	    (p->has_residual && !res))
		return INGOT_EINVAL;
	if (n_tasks < 1) {
		task = 0;
		n_tasks = 1;
	}
	v0 = nvec * task / n_tasks;       /* this task's vectors of output channels */
	v1 = nvec * (task + 1) / n_tasks;
	if (v0 >= v1)
		return INGOT_OK;
	vt = xt + XR * Cp;
	z = vt + INGOT_X86_W1_ALPHA * T * Cp;
	for (int64_t n = 0; n < p->y_dims[0]; n++) {
		const float *rn = res ? res + n * M * OL : NULL;
		float *yn = y + n * M * OL;
		w1_transpose_in(x + n * C * L, C, L, pb, XR, Cp, xt);
		for (int64_t t = 0; t < T; t++)
			for (int64_t c = 0; c < Cp; c += UK_VF)
				w1_in(xt + t * m * Cp + c, Cp, vt + t * Cp + c, T * Cp);
		for (int64_t b = 0; b < nblk; b++) {
			const int64_t t0 = T * b / nblk, R = T * (b + 1) / nblk - t0;
			for (int64_t vb = v0; vb < v1; vb += W1_NV) {
				const int64_t nv = v1 - vb < W1_NV ? v1 - vb : W1_NV;
				uk_vec q[INGOT_X86_W1_ALPHA][W1_R][W1_NV];
				w1_fns[R - 1][nv - 1](C, vt + t0 * Cp, Cp, T * Cp, u + vb * UK_VF, Mp, C * Mp, q);
				for (int64_t j = 0; j < nv; j++) {
					const int64_t o = (vb + j) * UK_VF;
					const uk_mask mo = uk_mask_n(M - o < UK_VF ? M - o : UK_VF);
					const uk_vec bv = bias ? uk_loadm(bias + o, mo) : uk_zero();
					for (int64_t r = 0; r < R; r++) {
						uk_vec qs[INGOT_X86_W1_ALPHA], ys[INGOT_X86_W1_ALPHA];
						float *zr = z + (t0 + r) * m * Mp + o;
#pragma GCC unroll 8
						for (int xi = 0; xi < INGOT_X86_W1_ALPHA; xi++)
							qs[xi] = q[xi][r][j];
						w1_out(qs, m, ys);
#pragma GCC unroll 8
						for (int64_t i = 0; i < m; i++)
							uk_store(zr + i * Mp, uk_add(ys[i], bv));
					}
				}
			}
		}
		ingot_x86_dc_store_t(p, z, Mp, OL, v0 * UK_VF, v1 * UK_VF, rn, yn);
	}
	return INGOT_OK;
}
#endif /* ukernel.h */
