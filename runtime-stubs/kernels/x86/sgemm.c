/* x86/sgemm.c — f32 Conv, MatMul and Gemm for the x86 targets: one blocked GEMM
 * driver around the generated microkernels (ukernel.h). Y (m x n) = A (m x k) @
 * B (k x n) runs over column blocks of SG_NC, k-blocks of UK_KC (a B panel of
 * UK_KC x UK_NR floats stays in L1), B panels and A panels. A and B come pre-packed
 * by the compiler (constant weights) or are packed here per block into stack
 * buffers: A from a strided matrix, B from a strided matrix or, for Conv, straight
 * from the input image (implicit im2col: no im2col buffer). The epilogue runs in
 * the microkernel on the last k-block; the activations without an exact vector form
 * in ewtable.h (sigmoid, tanh, Gelu...) run afterwards on the tile in the vector math of simd/vmath.h. Depthwise Conv runs directly, vectorized over output
 * columns. Sums are reordered against the reference kernels, so results differ
 * only by rounding. Tasks split the output by rows or columns of tiles. */
#include "sgemm.h"
#if !defined(__has_include) || __has_include("ukernel.h")   /* absent: stubs built alone */
#include "ukernel.h"
#include "../ewmath.h"
#include "../simd/vmath.h"

#include <math.h>
#include <string.h>

#define SG_NC (8 * UK_NR)      /* columns of B packed per k-block */
#ifdef UK_MC
#define SG_MC UK_MC            /* rows of A packed per k-block when not pre-packed (from L2) */
#else
#define SG_MC 128
#endif
#ifndef SG_DIRECT_M
#define SG_DIRECT_M 512        /* up to this many rows, a strided B is not packed */
#endif

#if defined(__GNUC__)
#define SG_ALIGN __attribute__((aligned(64)))
#else
#define SG_ALIGN
#endif

/* Conv input of one image and group seen as B[K = Cg * KH * KW][P = OH * OW]. */
typedef struct sg_col {
	const float *x;              /* the group's first input channel */
	int64_t H, W, OW, KH, KW, sh, sw, ph, pw, dh, dw;
} sg_col;

/* Y (m x n, row stride ldy) = A @ B through the epilogue e (pointers at Y's (0, 0)). */
typedef struct sg_job {
	int64_t m, n, k;
	const float *ap;             /* A pre-packed (panels of UK_MR rows), or NULL */
	const float *a;              /* else A strided */
	int64_t a_rs, a_cs;
	const float *bp;             /* B pre-packed (panels of UK_NR columns), or NULL */
	const float *b;              /* else B strided */
	int64_t b_rs, b_cs;
	const sg_col *col;           /* or B is a Conv input */
	float *y;
	int64_t ldy;
	uk_epi e;
	int64_t act;                 /* INGOT_X86_ACT_*, run after the tile when post */
	int post;
} sg_job;

/* The activations the microkernels' epilogue lacks (ingot_x86_act_in_epilogue), in
 * ewtable.h's vector forms (the vector math of simd/vmath.h, maximum errors stated
 * there), x the vector, A and B the parameters as vectors, H = A x + B. */
#define H uk_add(uk_mul(A, x), B)
static inline uk_vec sg_post_v(int64_t act, uk_vec x, float al, float be)
{
	const uk_vec A = uk_bcast(al), B = uk_bcast(be);
	(void)A;
	(void)B;
	switch (act) {
#define X(N, On, fn, R, U, Ac, PAR, S, V) \
	INGOT_EW_IF_ACT_##R(case INGOT_X86_ACT_##N: return INGOT_EW_VEC_##V;)
	INGOT_EW_TABLE(X)
#undef X
	default: return x;
	}
}
#undef H

/* y[0..n) = act(y[0..n)) of job jb, the last vector masked: every element, wherever
 * it lies in a tile, gets the same formula. */
static void sg_post(const sg_job *jb, float *y, int64_t n)
{
	if (!ingot_ew_act_has_vec(jb->act)) {   /* none in the table: per element */
		for (int64_t q = 0; q < n; q++)
			y[q] = ingot_ewf_act(jb->act, y[q], jb->e.lo, jb->e.hi);
		return;
	}
	for (int64_t q = 0; q < n; q += UK_VF) {
		const uk_mask m = uk_mask_n(n - q < UK_VF ? n - q : UK_VF);
		uk_storem(y + q, m, sg_post_v(jb->act, uk_loadm(y + q, m), jb->e.lo, jb->e.hi));
	}
}

INGOT_KERNEL int ingot_x86_epi_init(struct uk_epi *e, int64_t act, float al, float be)
{
	memset(e, 0, sizeof *e);
	e->alpha = 1.0f;
	e->lo = al;                  /* read only by the activations that take them */
	e->hi = be;
	if (!ingot_x86_act_in_epilogue(act))
		return 0;
	e->act = (int)act;
	return 1;
}

/* The epilogue of a job: alpha, the activation in the microkernel or after it. */
static void sg_epi_init(sg_job *jb, int64_t act, float al, float be)
{
	jb->act = act;
	jb->post = !ingot_x86_epi_init(&jb->e, act, al, be);
}

/* ---- packing ---- */

/* A rows i0..i0 + mc, k p0..p0 + kc into panels of UK_MR rows (the last one
 * narrower): panel at dst + (i / UK_MR) * UK_MR * kc, element [k][r]. */
static void sg_pack_a(const sg_job *jb, int64_t i0, int64_t mc, int64_t p0, int64_t kc, float *dst)
{
	for (int64_t ir = 0; ir < mc; ir += UK_MR) {
		const int64_t mr = mc - ir < UK_MR ? mc - ir : UK_MR;
		float *d = dst + ir * kc;
		for (int64_t r = 0; r < mr; r++) {
			const float *s = jb->a + (i0 + ir + r) * jb->a_rs + p0 * jb->a_cs;
			if (jb->a_cs == 1)
				for (int64_t k = 0; k < kc; k++)
					d[k * mr + r] = s[k];
			else
				for (int64_t k = 0; k < kc; k++)
					d[k * mr + r] = s[k * jb->a_cs];
		}
	}
}

/* One run of output columns inside one output row and one B panel. */
typedef struct sg_seg {
	int64_t iy, ix;              /* input position of the run's first column at k = 0 */
	int64_t len;
	int64_t dst;                 /* float offset of its first column in the block */
} sg_seg;

/* d[0..len) = 0 (short runs: masked vector stores, no call). */
static inline void sg_zero(float *d, int64_t len)
{
	for (int64_t q = 0; q < len; q += UK_VF)
		uk_storem(d + q, uk_mask_n(len - q < UK_VF ? len - q : UK_VF), uk_zero());
}

/* d[q] = src[q * sw] for q < len; src[0..avail) is readable. */
static inline void sg_copy_strided(float *d, const float *src, int64_t len, int64_t sw, int64_t avail)
{
	int64_t q = 0;
	if (sw == 1) {
		for (; q < len; q += UK_VF) {
			const uk_mask m = uk_mask_n(len - q < UK_VF ? len - q : UK_VF);
			uk_storem(d + q, m, uk_loadm(src + q, m));
		}
		return;
	}
	if (sw == 2)
		for (; q + UK_VF <= len && 2 * (q + UK_VF) <= avail; q += UK_VF)
			uk_store(d + q, uk_load_s2(src + 2 * q));
	for (; q < len; q++)
		d[q] = src[q * sw];
}

/* Conv: the im2col block of k p0..p0 + kc and output positions j0..j0 + nc into
 * panels of UK_NR columns (zero-padded). Per k, a run reads one input row at
 * strided columns. */
static void sg_pack_col(const sg_col *g, int64_t p0, int64_t kc, int64_t j0, int64_t nc, float *dst)
{
	sg_seg segs[SG_NC + SG_NC / UK_NR + 2];
	int nseg = 0;
	int64_t kx = p0 % g->KW, ky = p0 / g->KW % g->KH;
	const float *xc = g->x + p0 / (g->KW * g->KH) * g->H * g->W;
	for (int64_t q = 0; q < nc;) {
		const int64_t j = j0 + q, ox = j % g->OW, in_panel = q % UK_NR;
		int64_t len = g->OW - ox;
		if (len > UK_NR - in_panel)
			len = UK_NR - in_panel;
		if (len > nc - q)
			len = nc - q;
		segs[nseg].iy = j / g->OW * g->sh - g->ph;
		segs[nseg].ix = ox * g->sw - g->pw;
		segs[nseg].len = len;
		segs[nseg].dst = q / UK_NR * kc * UK_NR + in_panel;
		nseg++;
		q += len;
	}
	if (nc % UK_NR)
		memset(dst + nc / UK_NR * kc * UK_NR, 0, sizeof(float) * (size_t)(kc * UK_NR));
	for (int64_t k = 0; k < kc; k++) {
		const int64_t dy = ky * g->dh, dx = kx * g->dw;
		for (int s = 0; s < nseg; s++) {
			const sg_seg *sg = &segs[s];
			float *d = dst + sg->dst + k * UK_NR;
			const int64_t iy = sg->iy + dy, ix = sg->ix + dx;
			if (iy < 0 || iy >= g->H) {
				sg_zero(d, sg->len);
			} else if (ix >= 0 && ix + (sg->len - 1) * g->sw < g->W) {
				sg_copy_strided(d, xc + iy * g->W + ix, sg->len, g->sw, g->W - ix);
			} else {               /* zeros where the run leaves the row */
				const float *row = xc + iy * g->W;
				int64_t q0 = ix < 0 ? (-ix + g->sw - 1) / g->sw : 0;
				int64_t q1 = ix < g->W ? (g->W - 1 - ix) / g->sw + 1 : 0;
				q0 = q0 < sg->len ? q0 : sg->len;
				q1 = q1 < sg->len ? q1 : sg->len;
				q1 = q1 > q0 ? q1 : q0;
				sg_zero(d, q0);
				if (q1 > q0)
					sg_copy_strided(d + q0, row + ix + q0 * g->sw, q1 - q0, g->sw, g->W - ix - q0 * g->sw);
				sg_zero(d + q1, sg->len - q1);
			}
		}
		if (++kx == g->KW) {
			kx = 0;
			if (++ky == g->KH) {
				ky = 0;
				xc += g->H * g->W;
			}
		}
	}
}

/* B rows p0..p0 + kc, columns j0..j0 + nc into panels of UK_NR columns
 * (zero-padded): panel at dst + (q / UK_NR) * kc * UK_NR, element [k][c]. */
static void sg_pack_b(const sg_job *jb, int64_t p0, int64_t kc, int64_t j0, int64_t nc, float *dst)
{
	if (jb->col) {
		sg_pack_col(jb->col, p0, kc, j0, nc, dst);
		return;
	}
	for (int64_t jr = 0; jr < nc; jr += UK_NR) {
		const int64_t nr = nc - jr < UK_NR ? nc - jr : UK_NR;
		float *d = dst + jr * kc;
		if (nr < UK_NR)
			memset(d, 0, sizeof(float) * (size_t)(kc * UK_NR));
		if (jb->b_cs == 1) {
			for (int64_t k = 0; k < kc; k++)
				memcpy(d + k * UK_NR, jb->b + (p0 + k) * jb->b_rs + j0 + jr, sizeof(float) * (size_t)nr);
		} else {
			for (int64_t c = 0; c < nr; c++) {
				const float *s = jb->b + (j0 + jr + c) * jb->b_cs + p0 * jb->b_rs;
				for (int64_t k = 0; k < kc; k++)
					d[k * UK_NR + c] = s[k * jb->b_rs];
			}
		}
	}
}

/* ---- the driver ---- */

/* The epilogue pointers of the tile at (i, j). */
static uk_epi sg_tile_epi(const sg_job *jb, int64_t i, int64_t j)
{
	uk_epi e = jb->e;
	if (e.rbias)
		e.rbias += i;
	if (e.cm)
		e.cm += i * e.ldcm + j;
	if (e.res)
		e.res += i * e.ldres + j;
	return e;
}

/* The epilogue of one sum v at (r, j) of the tile e points at, in scalar form. */
static float sg_epi1(const sg_job *jb, const uk_epi *e, float v, int64_t r, int64_t j)
{
	if (e->scale)
		v *= e->alpha;
	if (e->rbias)
		v += e->rbias[r];
	if (e->cm)
		v += e->beta * e->cm[r * e->ldcm + j];
	if (e->res)
		v += e->res[r * e->ldres + j];
	if (e->act)   /* exact: the scalar form is the vector form's bits */
		return ingot_ewf_act(e->act, v, e->lo, e->hi);
	if (jb->post)
		sg_post(jb, &v, 1);
	return v;
}

/* k = 0: the epilogue of zero sums. */
static void sg_empty(const sg_job *jb, int64_t i0, int64_t i1, int64_t j0, int64_t j1)
{
	for (int64_t i = i0; i < i1; i++)
		for (int64_t j = j0; j < j1; j++)
			jb->y[i * jb->ldy + j] = sg_epi1(jb, &jb->e, 0.0f, i, j);
}

static void sg_run(const sg_job *jb, int task, int n_tasks)
{
	float bbuf[UK_KC * SG_NC] SG_ALIGN, abuf[SG_MC * UK_KC] SG_ALIGN;
	const int64_t mp = (jb->m + UK_MR - 1) / UK_MR, np = (jb->n + UK_NR - 1) / UK_NR;
	int64_t i0 = 0, i1 = jb->m, j0 = 0, j1 = jb->n;
	int direct_b;
	int64_t kcb;
	if (jb->m <= 0 || jb->n <= 0)
		return;
	if (n_tasks > 1) {           /* whole tiles per task, along the longer side */
		if (mp >= np) {
			i0 = mp * task / n_tasks * UK_MR;
			i1 = mp * (task + 1) / n_tasks * UK_MR;
			i1 = i1 < jb->m ? i1 : jb->m;
		} else {
			j0 = np * task / n_tasks * UK_NR;
			j1 = np * (task + 1) / n_tasks * UK_NR;
			j1 = j1 < jb->n ? j1 : jb->n;
		}
		if (i0 >= i1 || j0 >= j1)
			return;
	}
	if (jb->k <= 0) {
		sg_empty(jb, i0, i1, j0, j1);
		return;
	}
	/* few rows of A reuse a packed B panel too little to pay for packing it: the
	 * microkernels read a row-contiguous B in place */
	direct_b = !jb->bp && !jb->col && jb->b_cs == 1 && jb->m <= SG_DIRECT_M;
	/* an unpacked B panel streams anyway: longer k-blocks reload C less often */
	kcb = direct_b ? 4 * UK_KC : UK_KC;
	for (int64_t jc = j0; jc < j1; jc += SG_NC) {
		const int64_t nc = j1 - jc < SG_NC ? j1 - jc : SG_NC;
		for (int64_t pc = 0; pc < jb->k; pc += kcb) {
			const int64_t kc = jb->k - pc < kcb ? jb->k - pc : kcb;
			const int last = pc + kc >= jb->k;
			const int64_t mcb = jb->ap ? i1 - i0 : SG_MC;
			if (!jb->bp && !direct_b)
				sg_pack_b(jb, pc, kc, jc, nc, bbuf);
			for (int64_t ic = i0; ic < i1; ic += mcb) {
				const int64_t mc = i1 - ic < mcb ? i1 - ic : mcb;
				if (!jb->ap)
					sg_pack_a(jb, ic, mc, pc, kc, abuf);
				for (int64_t jr = 0; jr < nc; jr += UK_NR) {
					const int64_t j = jc + jr, nr = nc - jr < UK_NR ? nc - jr : UK_NR;
					const float *b;
					int64_t ldb = UK_NR;
					if (jb->bp) {
						ldb = jb->n - j < UK_NR ? jb->n - j : UK_NR;
						b = jb->bp + j * jb->k + pc * ldb;
					} else if (direct_b) {
						ldb = jb->b_rs;
						b = jb->b + pc * ldb + j;
					} else {
						b = bbuf + jr * kc;
					}
					for (int64_t ir = 0; ir < mc; ir += UK_MR) {
						const int64_t i = ic + ir, mr = mc - ir < UK_MR ? mc - ir : UK_MR;
						const float *a = jb->ap ? jb->ap + i * jb->k + pc * mr : abuf + ir * kc;
						float *c = jb->y + i * jb->ldy + j;
						uk_epi e;
						if (last)
							e = sg_tile_epi(jb, i, j);
						if (nr == UK_NR && ldb == UK_NR && !direct_b)
							uk_full[mr](kc, a, b, ldb, c, jb->ldy, nr, pc > 0, last ? &e : NULL);
						else
							uk_edge[mr][(nr + UK_VF - 1) / UK_VF](kc, a, b, ldb, c, jb->ldy, nr, pc > 0,
							                                      last ? &e : NULL);
						if (last && jb->post)
							for (int64_t r = 0; r < mr; r++)
								sg_post(jb, c + r * jb->ldy, nr);
					}
				}
			}
		}
	}
}

static void sg_split(int64_t n, int task, int n_tasks, int64_t *lo, int64_t *hi)
{
	if (n_tasks < 1) {
		task = 0;
		n_tasks = 1;
	}
	*lo = n * task / n_tasks;
	*hi = n * (task + 1) / n_tasks;
}

/* ---- Conv ---- */

/* Depthwise planes whose zero-padded copy holds at most this many floats run
 * fully vectorized from that copy (on the stack). */
#define SG_DW_MAX 65536

/* Depthwise from a zero-padded copy of the input plane: every output row is whole
 * vectors over output columns (stride 1 or 2), the last one masked. */
static void sg_depthwise_padded(const sg_col *g, int64_t OH, int64_t Hp, int64_t Wp, const float *w,
                                float *y, const sg_job *jb, const uk_epi *e0)
{
	float pad[SG_DW_MAX] SG_ALIGN;
	/* zeros around the copied rows only */
	memset(pad, 0, sizeof(float) * (size_t)(g->ph * Wp));
	for (int64_t iy = 0; iy < g->H; iy++) {
		float *r = pad + (iy + g->ph) * Wp;
		memset(r, 0, sizeof(float) * (size_t)g->pw);
		memcpy(r + g->pw, g->x + iy * g->W, sizeof(float) * (size_t)g->W);
		memset(r + g->pw + g->W, 0, sizeof(float) * (size_t)(Wp - g->pw - g->W));
	}
	memset(pad + (g->ph + g->H) * Wp, 0, sizeof(float) * (size_t)((Hp - g->ph - g->H) * Wp));
	for (int64_t oy = 0; oy < OH; oy++) {
		float *yr = y + oy * g->OW;
		uk_epi e = *e0;
		if (e.res)
			e.res += oy * g->OW;
		for (int64_t ox = 0; ox < g->OW; ox += UK_VF) {
			const int64_t left = g->OW - ox;
			const uk_mask m = uk_mask_n(left < UK_VF ? left : UK_VF);
			uk_vec acc = uk_zero();
			for (int64_t ky = 0; ky < g->KH; ky++) {
				const float *pr = pad + (oy * g->sh + ky * g->dh) * Wp + ox * g->sw;
				for (int64_t kx = 0; kx < g->KW; kx++) {
					const float *q = pr + kx * g->dw;
					acc = uk_fma(g->sw == 1 ? uk_load(q) : uk_load_s2(q), uk_bcast(w[ky * g->KW + kx]), acc);
				}
			}
			if (left >= UK_VF)
				uk_store(yr + ox, uk_epi_apply(&e, 0, ox, acc, m, 0));
			else
				uk_storem(yr + ox, m, uk_epi_apply(&e, 0, ox, acc, m, 1));
		}
		if (jb->post)
			sg_post(jb, yr, g->OW);
	}
}

/* Depthwise (one input channel per group): one output plane directly. Through a
 * padded copy when it fits, else vectors over the output columns whose window
 * row lies inside the input (stride 1) and scalar code for the rest. */
static void sg_depthwise(const sg_col *g, int64_t OH, const float *w, float *y, const sg_job *jb,
                         const uk_epi *e0)
{
	const int64_t span = (g->KW - 1) * g->dw;
	const int64_t lo = g->pw;                        /* first column reading inside (sw 1) */
	const int64_t hi = g->W - span + g->pw;          /* columns below hi read inside */
	if (g->sw <= 2) {
		const int64_t last = (g->OW - 1) / UK_VF * UK_VF;   /* the last vector's first column */
		int64_t Hp = (OH - 1) * g->sh + (g->KH - 1) * g->dh + 1;
		int64_t Wp = last * g->sw + span + g->sw * UK_VF;
		Hp = Hp > g->ph + g->H ? Hp : g->ph + g->H;
		Wp = Wp > g->pw + g->W ? Wp : g->pw + g->W;
		if (Hp * Wp <= SG_DW_MAX) {
			sg_depthwise_padded(g, OH, Hp, Wp, w, y, jb, e0);
			return;
		}
	}
	for (int64_t oy = 0; oy < OH; oy++) {
		float *yr = y + oy * g->OW;
		const int64_t iy0 = oy * g->sh - g->ph;
		uk_epi e = *e0;
		if (e.res)
			e.res += oy * g->OW;
		for (int64_t ox = 0; ox < g->OW;) {
			if (g->sw == 1 && ox >= lo && ox + UK_VF <= hi) {
				uk_vec acc = uk_zero();
				for (int64_t ky = 0; ky < g->KH; ky++) {
					const int64_t iy = iy0 + ky * g->dh;
					if (iy < 0 || iy >= g->H)
						continue;
					const float *xr = g->x + iy * g->W + ox - g->pw;
					for (int64_t kx = 0; kx < g->KW; kx++)
						acc = uk_fma(uk_load(xr + kx * g->dw), uk_bcast(w[ky * g->KW + kx]), acc);
				}
				uk_store(yr + ox, uk_epi_apply(&e, 0, ox, acc, uk_mask_n(0), 0));
				if (jb->post)
					sg_post(jb, yr + ox, UK_VF);
				ox += UK_VF;
			} else {
				float acc = 0.0f;
				for (int64_t ky = 0; ky < g->KH; ky++) {
					const int64_t iy = iy0 + ky * g->dh;
					if (iy < 0 || iy >= g->H)
						continue;
					for (int64_t kx = 0; kx < g->KW; kx++) {
						const int64_t ix = ox * g->sw - g->pw + kx * g->dw;
						if (ix >= 0 && ix < g->W)
							acc += w[ky * g->KW + kx] * g->x[iy * g->W + ix];
					}
				}
				yr[ox] = sg_epi1(jb, &e, acc, 0, ox);
				ox++;
			}
		}
	}
}

/* ---- Winograd F(2x2, 3x3) ---- */

/* One block of tile rows [ty0, ty0 + rows) of image x (C planes) into y (M planes):
 *   V = B^T d B per 4x4 input tile d (vectors over the tiles of a row: stride-2 loads
 *       from zero-padded rows), U x V per position as 16 GEMMs, Y = A^T m A per tile,
 *   then bias, residual and activation per output row. */
static void sg_wino_block(const ingot_x86_conv_params *p, const sg_job *proto, const float *u,
                          const float *x, float *y, const float *res, int64_t ty0, int64_t rows,
                          int64_t m0, int64_t m1, float *scratch)
{
	const int64_t C = p->x_dims[1], M = p->y_dims[1], H = p->x_dims[2], W = p->x_dims[3];
	const int64_t OH = p->y_dims[2], OW = p->y_dims[3], ph = p->pads[0], pw = p->pads[1];
	const int64_t tw = (OW + 1) / 2, tb = rows * tw;
	const int64_t wp = 2 * tw + 2 + 2 * UK_VF;             /* padded row: loads read past */
	float *v = scratch, *mm = scratch + 16 * C * tb;
	float prow[4][4096 + 8 + 4 * UK_VF] SG_ALIGN;       /* ingot_x86_wino_ok bounds the rows */
	float out[2][4096 + 8 + 4 * UK_VF] SG_ALIGN;
	sg_job jb;
	memset(&jb, 0, sizeof jb);           /* the products run without an epilogue */
	jb.e.alpha = 1.0f;
	/* input transform */
	for (int64_t c = 0; c < C; c++) {
		const float *xc = x + c * H * W;
		for (int64_t ty = ty0; ty < ty0 + rows; ty++) {
			const int64_t t0 = (ty - ty0) * tw;
			for (int r = 0; r < 4; r++) {
				const int64_t iy = 2 * ty - ph + r;
				memset(prow[r], 0, sizeof(float) * (size_t)wp);
				if (iy >= 0 && iy < H) {
					const int64_t lo = pw, n = W < wp - pw ? W : wp - pw;
					memcpy(prow[r] + lo, xc + iy * W, sizeof(float) * (size_t)n);
				}
			}
			for (int64_t tx = 0; tx < tw; tx += UK_VF) {
				const int64_t n = tw - tx < UK_VF ? tw - tx : UK_VF;
				const uk_mask m = uk_mask_n(n);
				uk_vec d[4][4], t[4][4];
				for (int r = 0; r < 4; r++)
					for (int q = 0; q < 4; q++)
						d[r][q] = uk_load_s2(prow[r] + 2 * tx + q);
				for (int q = 0; q < 4; q++) {               /* B^T d */
					t[0][q] = uk_add(d[0][q], uk_mul(d[2][q], uk_bcast(-1.0f)));
					t[1][q] = uk_add(d[1][q], d[2][q]);
					t[2][q] = uk_add(d[2][q], uk_mul(d[1][q], uk_bcast(-1.0f)));
					t[3][q] = uk_add(d[1][q], uk_mul(d[3][q], uk_bcast(-1.0f)));
				}
				for (int r = 0; r < 4; r++) {               /* (B^T d) B */
					uk_vec o[4];
					o[0] = uk_add(t[r][0], uk_mul(t[r][2], uk_bcast(-1.0f)));
					o[1] = uk_add(t[r][1], t[r][2]);
					o[2] = uk_add(t[r][2], uk_mul(t[r][1], uk_bcast(-1.0f)));
					o[3] = uk_add(t[r][1], uk_mul(t[r][3], uk_bcast(-1.0f)));
					for (int q = 0; q < 4; q++)
						uk_storem(v + ((r * 4 + q) * C + c) * tb + t0 + tx, m, o[q]);
				}
			}
		}
	}
	/* the 16 products: output channels m0..m1 (whole panels of U) times C x tiles */
	jb.m = m1 - m0;
	jb.n = tb;
	jb.k = C;
	jb.b_rs = tb;
	jb.b_cs = 1;
	jb.ldy = tb;
	for (int xi = 0; xi < 16; xi++) {
		jb.ap = u + xi * M * C + m0 * C;
		jb.b = v + xi * C * tb;
		jb.y = mm + (xi * M + m0) * tb;
		sg_run(&jb, 0, 1);
	}
	/* output transform, then the epilogue per output row */
	for (int64_t oc = m0; oc < m1; oc++) {
		const float bias = p->has_bias ? proto->e.rbias[oc] : 0.0f;
		for (int64_t ty = ty0; ty < ty0 + rows; ty++) {
			const int64_t t0 = (ty - ty0) * tw;
			for (int64_t tx = 0; tx < tw; tx += UK_VF) {
				const int64_t n = tw - tx < UK_VF ? tw - tx : UK_VF;
				const uk_mask m = uk_mask_n(n);
				uk_vec g[4][4], s0[4], s1[4];
				for (int xi = 0; xi < 16; xi++)
					g[xi / 4][xi % 4] = uk_loadm(mm + (xi * M + oc) * tb + t0 + tx, m);
				for (int q = 0; q < 4; q++) {               /* A^T m */
					s0[q] = uk_add(uk_add(g[0][q], g[1][q]), g[2][q]);
					s1[q] = uk_add(uk_add(g[1][q], uk_mul(g[2][q], uk_bcast(-1.0f))),
					               uk_mul(g[3][q], uk_bcast(-1.0f)));
				}
				/* (A^T m) A, interleaved into the two output rows */
				uk_store_il2(out[0] + 2 * tx, uk_add(uk_add(s0[0], s0[1]), s0[2]),
				             uk_add(uk_add(s0[1], uk_mul(s0[2], uk_bcast(-1.0f))),
				                    uk_mul(s0[3], uk_bcast(-1.0f))));
				uk_store_il2(out[1] + 2 * tx, uk_add(uk_add(s1[0], s1[1]), s1[2]),
				             uk_add(uk_add(s1[1], uk_mul(s1[2], uk_bcast(-1.0f))),
				                    uk_mul(s1[3], uk_bcast(-1.0f))));
			}
			for (int r = 0; r < 2 && 2 * ty + r < OH; r++) {
				const int64_t oy = 2 * ty + r;
				float *yr = y + (oc * OH + oy) * OW;
				uk_epi e;
				memset(&e, 0, sizeof e);
				e.rbias = p->has_bias ? &bias : NULL;
				e.res = res ? res + (oc * OH + oy) * OW : NULL;
				e.act = proto->e.act;
				e.lo = proto->e.lo;
				e.hi = proto->e.hi;
				for (int64_t ox = 0; ox < OW; ox += UK_VF) {
					const int64_t n = OW - ox < UK_VF ? OW - ox : UK_VF;
					const uk_mask m = uk_mask_n(n);
					uk_storem(yr + ox, m, uk_epi_apply(&e, 0, ox, uk_loadm(out[r] + ox, m), m, 1));
				}
				if (proto->post)
					sg_post(proto, yr, OW);
			}
		}
	}
}

/* Winograd Conv of every image: tasks split the tile rows, or, when a task would
 * get fewer than 4 vectors of tiles (small planes, where every task would stream all
 * of U for a few tiles), the output channels in whole panels of U; blocks of
 * ingot_x86_wino_rows() rows go through the task's scratch. Either way each output
 * is computed alike, so the split does not change results. */
static int sg_wino(const ingot_x86_conv_params *p, const sg_job *proto, const float *x,
                   const float *w, float *y, const float *res, float *scratch, int task, int n_tasks)
{
	const int64_t C = p->x_dims[1], M = p->y_dims[1], th = (p->y_dims[2] + 1) / 2;
	const int64_t R = ingot_x86_wino_rows(p), plane_x = p->x_dims[2] * p->x_dims[3];
	const int64_t plane_y = p->y_dims[2] * p->y_dims[3];
	int64_t r0 = 0, r1 = th, m0 = 0, m1 = M;
	if (!scratch)
		return INGOT_EINVAL;
	if (n_tasks > 1 && th * ((p->y_dims[3] + 1) / 2) < 4 * UK_VF * (int64_t)n_tasks) {
		const int64_t panels = (M + UK_MR - 1) / UK_MR;
		sg_split(panels, task, n_tasks, &m0, &m1);
		m0 *= UK_MR;
		m1 = m1 * UK_MR < M ? m1 * UK_MR : M;
	} else {
		sg_split(th, task, n_tasks, &r0, &r1);
	}
	if (m0 >= m1)
		return INGOT_OK;
	for (int64_t n = 0; n < p->y_dims[0]; n++)
		for (int64_t ty = r0; ty < r1; ty += R)
			sg_wino_block(p, proto, w, x + n * C * plane_x, y + n * M * plane_y,
			              res ? res + n * M * plane_y : NULL, ty, r1 - ty < R ? r1 - ty : R, m0, m1,
			              scratch);
	return INGOT_OK;
}

INGOT_KERNEL int ingot_x86_conv(const void *params, const void *const *in, void *const *out,
                                void *scratch, int task, int n_tasks)
{
	const ingot_x86_conv_params *p = (const ingot_x86_conv_params *)params;
	const float *x = (const float *)in[0], *w = (const float *)in[1];
	const float *bias = p->has_bias ? (const float *)in[2] : NULL;
	const float *res = p->has_residual ? (const float *)in[3] : NULL;
	float *y = (float *)out[0];
	const int two = p->nsp == 2;
	sg_col g;
	sg_job jb;
	int64_t C, M, Cg, Mg, K, P, OH;
	if (p->dtype != INGOT_DT_F32 || p->transposed || (p->nsp != 1 && p->nsp != 2) ||
	    p->group < 1 || !x || !w || !y || (p->has_bias && !bias) || (p->has_residual && !res))
		return INGOT_EINVAL;
	memset(&g, 0, sizeof g);
	g.H = two ? p->x_dims[2] : 1;
	g.W = p->x_dims[1 + p->nsp];
	OH = two ? p->y_dims[2] : 1;
	g.OW = p->y_dims[1 + p->nsp];
	g.KH = two ? p->w_dims[2] : 1;
	g.KW = p->w_dims[1 + p->nsp];
	g.sh = two ? p->strides[0] : 1;
	g.sw = p->strides[p->nsp - 1];
	g.dh = two ? p->dilations[0] : 1;
	g.dw = p->dilations[p->nsp - 1];
	g.ph = two ? p->pads[0] : 0;
	g.pw = p->pads[p->nsp - 1];
	if (g.sh < 1 || g.sw < 1 || g.dh < 1 || g.dw < 1)
		return INGOT_EINVAL;
	C = p->x_dims[1];
	M = p->y_dims[1];
	Cg = C / p->group;
	Mg = M / p->group;
	K = Cg * g.KH * g.KW;
	P = OH * g.OW;
	if (P <= 0 || Mg <= 0)
		return INGOT_OK;
	memset(&jb, 0, sizeof jb);
	sg_epi_init(&jb, p->act, p->act_alpha, p->act_beta);
	if (p->packed == 2) {
		if (!ingot_x86_wino_ok(p))
			return INGOT_EINVAL;
		jb.e.rbias = bias;
		return sg_wino(p, &jb, x, w, y, res, (float *)scratch, task, n_tasks);
	}
	if (Cg == 1 && Mg == 1 && K > 0 && !p->packed) {      /* depthwise: planes per task */
		int64_t u0, u1;
		sg_split(p->y_dims[0] * M, task, n_tasks, &u0, &u1);
		for (int64_t u = u0; u < u1; u++) {
			const int64_t oc = u % M;
			uk_epi e = jb.e;
			e.rbias = bias ? bias + oc : NULL;
			e.res = res ? res + u * P : NULL;
			g.x = x + (u / M * C + oc) * g.H * g.W;
			sg_depthwise(&g, OH, w + oc * K, y + u * P, &jb, &e);
		}
		return INGOT_OK;
	}
	jb.n = P;
	jb.k = K;
	jb.a_rs = K;
	jb.a_cs = 1;
	jb.ldy = P;
	jb.e.ldres = P;
	/* 1x1, stride 1, no padding: B is the input itself */
	if (g.KH == 1 && g.KW == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 && g.pw == 0 &&
	    OH == g.H && g.OW == g.W) {
		jb.b_rs = g.H * g.W;
		jb.b_cs = 1;
	} else {
		jb.col = &g;
	}
	for (int64_t n = 0; n < p->y_dims[0]; n++)
		for (int64_t grp = 0; grp < p->group; grp++) {
			const float *xg = x + (n * C + grp * Cg) * g.H * g.W;
			const int64_t u = n * M + grp * Mg;      /* first output plane */
			g.x = xg;
			jb.b = xg;
			jb.m = Mg;
			if (p->packed)
				jb.ap = w + grp * Mg * K;
			else
				jb.a = w + grp * Mg * K;
			jb.y = y + u * P;
			jb.e.rbias = bias ? bias + grp * Mg : NULL;
			jb.e.res = res ? res + u * P : NULL;
			sg_run(&jb, task, n_tasks);
		}
	return INGOT_OK;
}

/* ---- MatMul and Gemm ---- */

INGOT_KERNEL int ingot_x86_matmul(const void *params, const void *const *in, void *const *out,
                                  void *scratch, int task, int n_tasks)
{
	const ingot_x86_matmul_params *p = (const ingot_x86_matmul_params *)params;
	const float *a = (const float *)in[0], *b = (const float *)in[1];
	const float *res = p->has_residual ? (const float *)in[2] : NULL;
	float *y = (float *)out[0];
	sg_job jb;
	int64_t nbatch = 1;
	int fold = 1;
	(void)scratch;
	if (p->dtype != INGOT_DT_F32 || !a || !b || !y || p->nb < 0 || p->nb > INGOT_MAX_RANK ||
	    (p->has_residual && !res))
		return INGOT_EINVAL;
	for (int64_t d = p->nb - 1; d >= 0; d--) {
		/* batches of A laid out one after another over one B are one taller A */
		fold = fold && (p->bdims[d] == 1 || (p->b_bstr[d] == 0 && p->a_bstr[d] == nbatch * p->m * p->k));
		nbatch *= p->bdims[d];
	}
	memset(&jb, 0, sizeof jb);
	sg_epi_init(&jb, p->act, p->act_alpha, p->act_beta);
	if (fold) {
		jb.m = nbatch * p->m;
		nbatch = 1;
	} else {
		jb.m = p->m;
	}
	jb.n = p->n;
	jb.k = p->k;
	jb.a_rs = p->k;
	jb.a_cs = 1;
	jb.b_rs = p->n;
	jb.b_cs = 1;
	jb.ldy = p->n;
	jb.e.ldres = p->n;
	for (int64_t bi = 0; bi < nbatch; bi++) {
		int64_t aoff = 0, boff = 0, rem = bi;
		for (int64_t d = p->nb - 1; d >= 0; d--) {   /* batch index -> element offsets */
			const int64_t idx = rem % p->bdims[d];
			rem /= p->bdims[d];
			aoff += idx * p->a_bstr[d];
			boff += idx * p->b_bstr[d];
		}
		jb.a = a + aoff;
		if (p->packed)                /* one B for every batch */
			jb.bp = b;
		else
			jb.b = b + boff;
		jb.y = y + bi * p->m * p->n;
		jb.e.res = res ? res + bi * p->m * p->n : NULL;
		sg_run(&jb, task, n_tasks);
	}
	return INGOT_OK;
}

INGOT_KERNEL int ingot_x86_gemm(const void *params, const void *const *in, void *const *out,
                                void *scratch, int task, int n_tasks)
{
	const ingot_x86_gemm_params *p = (const ingot_x86_gemm_params *)params;
	const float *a = (const float *)in[0], *b = (const float *)in[1];
	const float *c = p->has_c && p->beta != 0.0f ? (const float *)in[2] : NULL;
	const float *res = p->has_residual ? (const float *)in[3] : NULL;
	float *y = (float *)out[0];
	sg_job jb;
	(void)scratch;
	if (p->dtype != INGOT_DT_F32 || !a || !b || !y || (p->has_c && p->beta != 0.0f && !c) ||
	    (c && p->c_cs != 1) || (p->has_residual && !res))
		return INGOT_EINVAL;
	memset(&jb, 0, sizeof jb);
	sg_epi_init(&jb, p->act, p->act_alpha, p->act_beta);
	jb.m = p->m;
	jb.n = p->n;
	jb.k = p->k;
	jb.a = a;
	jb.a_rs = p->trans_a ? 1 : p->k;
	jb.a_cs = p->trans_a ? p->m : 1;
	if (p->packed) {
		jb.bp = b;
	} else {
		jb.b = b;
		jb.b_rs = p->trans_b ? 1 : p->n;
		jb.b_cs = p->trans_b ? p->k : 1;
	}
	jb.y = y;
	jb.ldy = p->n;
	jb.e.scale = p->alpha != 1.0f;
	jb.e.alpha = p->alpha;
	jb.e.cm = c;
	jb.e.ldcm = p->c_rs;
	jb.e.beta = p->beta;
	jb.e.res = res;
	jb.e.ldres = p->n;
	sg_run(&jb, task, n_tasks);
	return INGOT_OK;
}
#endif /* ukernel.h */
