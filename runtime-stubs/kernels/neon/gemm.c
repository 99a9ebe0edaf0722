/* neon/gemm.c — NEON f32 Conv, MatMul and Gemm for the neon (aarch64) and neon32
 * (armv7 + neon-vfpv4) targets: one register-blocked GEMM core. B is packed per
 * k-block into NR-column panels (from a strided matrix or, for Conv, straight from
 * the input as an implicit im2col), A into MR-row panels, both in the scratch,
 * and the generated MR x NR microkernel (ukernel.h, codegen/common/ukgen.c: 8 x 12 on
 * aarch64, 4 x 12 on armv7) accumulates with vector FMA. Depthwise Conv runs directly, vectorized over output columns; fewer
 * than MR rows skip packing. The epilogue (alpha, bias, beta * C, residual,
 * activation) runs once per output after the last k-block, in the reference
 * kernels' order; sums are reordered, so results differ only by rounding. Sigmoid,
 * tanh and Gelu are the vector math of simd/vmath.h. */
#include "gemm.h"
#if !defined(__has_include) || __has_include("ukernel.h")   /* absent: stubs built alone */
#include "ukernel.h"          /* generated: the microkernels and their blocking */
#include "../ewmath.h"
#include "../simd/vmath.h"

#include <arm_neon.h>
#include <math.h>
#include <string.h>

#define NG_MR UK_MR
#define NG_NR UK_NR
#define NG_KC INGOT_NEON_KC  /* k-block: a B panel of KC x NR floats stays in L1 */
#define NG_NC INGOT_NEON_NC  /* columns of B packed per k-block (scratch: KC * NC floats) */
_Static_assert(NG_MR <= INGOT_NEON_MR_MAX && NG_NR <= INGOT_NEON_NR_MAX && NG_NC % NG_NR == 0 &&
               NG_MR % 4 == 0 && NG_NR % 4 == 0,
               "ingot_neon_gemm_scratch_bytes does not cover the blocking");
#define NG_CHUNK 64        /* columns per row chunk of the unpacked paths */

/* armv7 without VFPv4 has no fused multiply-add: multiply-accumulate instead */
#if defined(__aarch64__) || defined(__ARM_FEATURE_FMA)
#define NG_FMA(acc, a, b) vfmaq_f32(acc, a, b)
#else
#define NG_FMA(acc, a, b) vmlaq_f32(acc, a, b)
#endif

/* The epilogue: y = act(alpha * acc + rbias[i] + beta * C[i, j] + res[i, j]). */
typedef struct ng_epi {
	float alpha;
	int scale;                   /* alpha != 1 */
	const float *rbias;          /* per row (Conv bias), or NULL */
	const float *c;              /* Gemm's C at row 0, or NULL */
	int64_t c_rs, c_cs;
	float beta;
	const float *res;            /* the residual, laid out like y, or NULL */
	int64_t act;
	float al, be;                /* the activation's parameters */
} ng_epi;

/* Conv input of one image and group seen as B[K = Cg * KH * KW][P = OH * OW]. */
typedef struct ng_col {
	const float *x;              /* the group's first input channel */
	int64_t H, W, OW, KH, KW, sh, sw, ph, pw, dh, dw;
} ng_col;

/* Y (m x n, row stride ldy) = A (m x k) @ B (k x n) through the epilogue. */
typedef struct ng_job {
	int64_t m, n, k;
	const float *a;
	int64_t a_rs, a_cs;
	const float *b;              /* B when col is NULL */
	int64_t b_rs, b_cs;
	const ng_col *col;
	float *y;
	int64_t ldy;
	ng_epi e;
} ng_job;

/* ---- the epilogue ---- */

/* ewtable.h's vector forms of the activations, x the vector, A and B its parameters
 * as vectors, H = A x + B. The exact ones (ingot_ew_act_exact) run on each vector as
 * it is finished, the others (the vector math: sigmoid, tanh, Gelu, Swish...) after
 * the row (ng_math). */
#define H uk_add(uk_mul(A, x), B)
static inline float32x4_t ng_act_v(int64_t act, float32x4_t x, float32x4_t A, float32x4_t B)
{
	switch (act) {
#define X(N, On, fn, R, U, Ac, PAR, S, V) \
	INGOT_EW_IF_ACT_##R(case INGOT_NEON_ACT_##N: return INGOT_EW_VEC_##V;)
	INGOT_EW_TABLE(X)
#undef X
	default: return x;
	}
}
#undef H

/* y[0..len) = act(y) in the vector math of simd/vmath.h (maximum errors stated
 * there); the last partial vector masked, so every element gets the same formula
 * wherever it lies. */
static void ng_math(const ng_epi *e, float *y, int64_t len)
{
	const float32x4_t A = vdupq_n_f32(e->al), B = vdupq_n_f32(e->be);
	int64_t j = 0;
	for (; j + 4 <= len; j += 4)
		vst1q_f32(y + j, ng_act_v(e->act, vld1q_f32(y + j), A, B));
	if (j < len) {
		const uk_mask m = uk_mask_n(len - j);
		uk_storem(y + j, m, ng_act_v(e->act, uk_loadm(y + j, m), A, B));
	}
}

/* One row segment: y[j] from the accumulators acc[j] (acc may be y); c and res
 * point at the segment's first column, rb is the row's bias. */
static void ng_finish(const ng_epi *e, const float *acc, float *y, const float *c,
                      const float *res, const float *rb, int64_t len)
{
	const float32x4_t va = vdupq_n_f32(e->alpha), vbeta = vdupq_n_f32(e->beta);
	const float32x4_t vrb = vdupq_n_f32(rb ? *rb : 0.0f);
	const float32x4_t A = vdupq_n_f32(e->al), B = vdupq_n_f32(e->be);
	const int exact = ingot_ew_act_exact(e->act);
	int64_t j = 0;
	for (; j + 4 <= len; j += 4) {
		float32x4_t v = vld1q_f32(acc + j);
		if (e->scale)
			v = vmulq_f32(v, va);
		if (rb)
			v = vaddq_f32(v, vrb);
		if (c) {
			float32x4_t cv;
			if (e->c_cs == 1) {
				cv = vld1q_f32(c + j);
			} else if (e->c_cs == 0) {
				cv = vdupq_n_f32(c[0]);
			} else {
				float t[4];
				int q;
				for (q = 0; q < 4; q++)
					t[q] = c[(j + q) * e->c_cs];
				cv = vld1q_f32(t);
			}
			v = vaddq_f32(v, vmulq_f32(vbeta, cv));
		}
		if (res)
			v = vaddq_f32(v, vld1q_f32(res + j));
		vst1q_f32(y + j, exact ? ng_act_v(e->act, v, A, B) : v);
	}
	for (; j < len; j++) {
		float v = acc[j];
		if (e->scale)
			v *= e->alpha;
		if (rb)
			v += *rb;
		if (c)
			v += e->beta * c[j * e->c_cs];
		if (res)
			v += res[j];
		y[j] = exact ? ingot_ewf_act(e->act, v, e->al, e->be) : v;   /* the same bits */
	}
	if (!exact && ingot_ew_act_has_vec(e->act))
		ng_math(e, y, len);
	else if (!exact)
		for (j = 0; j < len; j++)
			y[j] = ingot_ewf_act(e->act, y[j], e->al, e->be);
}

/* Row i, columns j0..j0 + len of a job from its accumulators. */
static void ng_finish_row(const ng_job *jb, const float *acc, int64_t i, int64_t j0, int64_t len)
{
	const ng_epi *e = &jb->e;
	ng_finish(e, acc, jb->y + i * jb->ldy + j0, e->c ? e->c + i * e->c_rs + j0 * e->c_cs : NULL,
	          e->res ? e->res + i * jb->ldy + j0 : NULL, e->rbias ? e->rbias + i : NULL, len);
}

/* ---- packing ---- */

/* 4x4 transpose: o[q] gets lane q of r0..r3. */
static inline void ng_tr4(float32x4_t r0, float32x4_t r1, float32x4_t r2, float32x4_t r3,
                          float32x4_t *o)
{
	float32x4x2_t t01 = vtrnq_f32(r0, r1), t23 = vtrnq_f32(r2, r3);
	o[0] = vcombine_f32(vget_low_f32(t01.val[0]), vget_low_f32(t23.val[0]));
	o[1] = vcombine_f32(vget_low_f32(t01.val[1]), vget_low_f32(t23.val[1]));
	o[2] = vcombine_f32(vget_high_f32(t01.val[0]), vget_high_f32(t23.val[0]));
	o[3] = vcombine_f32(vget_high_f32(t01.val[1]), vget_high_f32(t23.val[1]));
}

/* A rows i0..i0 + mr, k p0..p0 + kc into dst[k][MR] (missing rows zero). */
static void ng_pack_a(const ng_job *jb, int64_t i0, int64_t mr, int64_t p0, int64_t kc, float *dst)
{
	int64_t r, k;
	if (mr < NG_MR)
		memset(dst, 0, sizeof(float) * (size_t)(kc * NG_MR));
	if (jb->a_rs == 1 && mr == NG_MR) {           /* transposed A: rows contiguous per k */
		for (k = 0; k < kc; k++) {
			const float *s = jb->a + i0 + (p0 + k) * jb->a_cs;
			for (r = 0; r < NG_MR; r += 4)
				vst1q_f32(dst + k * NG_MR + r, vld1q_f32(s + r));
		}
		return;
	}
	for (r = 0; r < mr; r++) {
		const float *s = jb->a + (i0 + r) * jb->a_rs + p0 * jb->a_cs;
		for (k = 0; k < kc; k++)
			dst[k * NG_MR + r] = s[k * jb->a_cs];
	}
}

/* Conv: the im2col panel of k p0..p0 + kc and output positions j0..j0 + nr. The
 * positions form runs along output rows (one run, or two where the panel wraps to
 * the next row); per k, a run reads one input row at strided columns. */
static void ng_pack_col(const ng_col *g, int64_t p0, int64_t kc, int64_t j0, int64_t nr, float *dst)
{
	int64_t r_iy[NG_NR], r_ix[NG_NR], r_q[NG_NR + 1], q, k;
	int64_t kx = p0 % g->KW, ky = p0 / g->KW % g->KH;
	const float *xc = g->x + p0 / (g->KW * g->KH) * g->H * g->W;
	int nrun = 0, r;
	for (q = 0; q < nr; q++) {
		int64_t ox = (j0 + q) % g->OW;
		if (q == 0 || ox == 0) {
			r_iy[nrun] = (j0 + q) / g->OW * g->sh - g->ph;
			r_ix[nrun] = ox * g->sw - g->pw;
			r_q[nrun++] = q;
		}
	}
	r_q[nrun] = nr;
	for (k = 0; k < kc; k++) {
		float *d = dst + k * NG_NR;
		const int64_t dy = ky * g->dh, dx = kx * g->dw;
		const int64_t iy = r_iy[0] + dy, ix = r_ix[0] + dx;
		if (nrun == 1 && nr == NG_NR && iy >= 0 && iy < g->H && ix >= 0 &&
		    ix + (g->sw == 2 ? 2 * NG_NR : (NG_NR - 1) * g->sw + 1) <= g->W && g->sw <= 2) {
			const float *s = xc + iy * g->W + ix;
			if (g->sw == 1) {
				for (q = 0; q < NG_NR; q += 4)
					vst1q_f32(d + q, vld1q_f32(s + q));
			} else {
				for (q = 0; q < NG_NR; q += 4)
					vst1q_f32(d + q, vld2q_f32(s + 2 * q).val[0]);
			}
		} else {
			for (r = 0; r < nrun; r++) {
				const int64_t q0 = r_q[r], len = r_q[r + 1] - q0;
				const int64_t ry = r_iy[r] + dy, rx = r_ix[r] + dx;
				if (ry < 0 || ry >= g->H) {
					for (q = 0; q < len; q++)
						d[q0 + q] = 0.0f;
				} else if (rx >= 0 && rx + (len - 1) * g->sw < g->W) {
					const float *s = xc + ry * g->W + rx;
					for (q = 0; q < len; q++)
						d[q0 + q] = s[q * g->sw];
				} else {
					for (q = 0; q < len; q++) {
						const int64_t c = rx + q * g->sw;
						d[q0 + q] = c >= 0 && c < g->W ? xc[ry * g->W + c] : 0.0f;
					}
				}
			}
			for (q = nr; q < NG_NR; q++)
				d[q] = 0.0f;
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

/* B rows p0..p0 + kc, columns j0..j0 + nr into dst[k][NR] (missing columns zero). */
static void ng_pack_b(const ng_job *jb, int64_t p0, int64_t kc, int64_t j0, int64_t nr, float *dst)
{
	int64_t k, q;
	if (jb->col) {
		ng_pack_col(jb->col, p0, kc, j0, nr, dst);
		return;
	}
	if (jb->b_cs == 1 && nr == NG_NR) {
		for (k = 0; k < kc; k++) {
			const float *s = jb->b + (p0 + k) * jb->b_rs + j0;
			for (q = 0; q < NG_NR; q += 4)
				vst1q_f32(dst + k * NG_NR + q, vld1q_f32(s + q));
		}
		return;
	}
	if (nr < NG_NR)
		memset(dst, 0, sizeof(float) * (size_t)(kc * NG_NR));
	if (jb->b_rs == 1) {                          /* transposed B: columns contiguous in k */
		const float *s = jb->b + j0 * jb->b_cs + p0;
		k = 0;
		if (nr == NG_NR) {
			for (; k + 4 <= kc; k += 4) {
				float32x4_t o[4];
				for (q = 0; q < NG_NR; q += 4) {
					const float *c0 = s + q * jb->b_cs + k;
					ng_tr4(vld1q_f32(c0), vld1q_f32(c0 + jb->b_cs), vld1q_f32(c0 + 2 * jb->b_cs),
					       vld1q_f32(c0 + 3 * jb->b_cs), o);
					vst1q_f32(dst + k * NG_NR + q, o[0]);
					vst1q_f32(dst + (k + 1) * NG_NR + q, o[1]);
					vst1q_f32(dst + (k + 2) * NG_NR + q, o[2]);
					vst1q_f32(dst + (k + 3) * NG_NR + q, o[3]);
				}
			}
		}
		for (q = 0; q < nr; q++)
			for (int64_t kk = k; kk < kc; kk++)
				dst[kk * NG_NR + q] = s[q * jb->b_cs + kk];
		return;
	}
	for (k = 0; k < kc; k++)
		for (q = 0; q < nr; q++)
			dst[k * NG_NR + q] = jb->b[(p0 + k) * jb->b_rs + (j0 + q) * jb->b_cs];
}

/* ---- the microkernel: tile (MR x NR, row stride NR) = A panel @ B panel, the
 * generated full-width kernel (ukernel.h) without accumulation or epilogue; ng_store
 * adds earlier k-blocks and runs the epilogue ---- */

static void ng_micro(int64_t kc, const float *a, const float *b, float *t)
{
	uk_full[NG_MR](kc, a, b, NG_NR, t, NG_NR, NG_NR, 0, NULL);
}

/* A finished tile into Y: adds what earlier k-blocks left there, and runs the
 * epilogue after the last one. */
static void ng_store(const ng_job *jb, float *t, int64_t i0, int64_t mr, int64_t j0, int64_t nr,
                     int first, int last)
{
	int64_t r, q;
	for (r = 0; r < mr; r++, t += NG_NR) {
		float *y = jb->y + (i0 + r) * jb->ldy + j0;
		if (!first) {
			if (nr == NG_NR) {
				for (q = 0; q < NG_NR; q += 4)
					vst1q_f32(t + q, vaddq_f32(vld1q_f32(t + q), vld1q_f32(y + q)));
			} else {
				for (q = 0; q < nr; q++)
					t[q] += y[q];
			}
		}
		if (last)
			ng_finish_row(jb, t, i0 + r, j0, nr);
		else
			memcpy(y, t, sizeof(float) * (size_t)nr);
	}
}

static inline float ng_hsum(float32x4_t v)
{
#if defined(__aarch64__)
	return vaddvq_f32(v);
#else
	float32x2_t s = vadd_f32(vget_low_f32(v), vget_high_f32(v));
	return vget_lane_f32(vpadd_f32(s, s), 0);
#endif
}

/* Fewer than MR rows (or k = 0): no packing. Rows of B contiguous: axpy over a
 * chunk of columns; columns of B contiguous (transposed): dot products along k. */
static void ng_small(const ng_job *jb)
{
	float acc[NG_CHUNK];
	int64_t i, j0, j, k, len;
	for (i = 0; i < jb->m; i++) {
		const float *ar = jb->a + i * jb->a_rs;
		for (j0 = 0; j0 < jb->n; j0 += NG_CHUNK) {
			len = jb->n - j0 < NG_CHUNK ? jb->n - j0 : NG_CHUNK;
			memset(acc, 0, sizeof acc);
			if (jb->k <= 0) {
				/* nothing to multiply: the epilogue alone */
			} else if (jb->b_cs == 1) {
				/* 16 columns in registers over all of k, then 4, then one */
				for (j = 0; j + 16 <= len; j += 16) {
					float32x4_t s0 = vdupq_n_f32(0.0f), s1 = s0, s2 = s0, s3 = s0;
					const float *br = jb->b + j0 + j;
					for (k = 0; k < jb->k; k++, br += jb->b_rs) {
						const float32x4_t va = vdupq_n_f32(ar[k * jb->a_cs]);
						s0 = NG_FMA(s0, va, vld1q_f32(br));
						s1 = NG_FMA(s1, va, vld1q_f32(br + 4));
						s2 = NG_FMA(s2, va, vld1q_f32(br + 8));
						s3 = NG_FMA(s3, va, vld1q_f32(br + 12));
					}
					vst1q_f32(acc + j, s0);
					vst1q_f32(acc + j + 4, s1);
					vst1q_f32(acc + j + 8, s2);
					vst1q_f32(acc + j + 12, s3);
				}
				for (; j + 4 <= len; j += 4) {
					float32x4_t s0 = vdupq_n_f32(0.0f);
					for (k = 0; k < jb->k; k++)
						s0 = NG_FMA(s0, vdupq_n_f32(ar[k * jb->a_cs]),
						            vld1q_f32(jb->b + k * jb->b_rs + j0 + j));
					vst1q_f32(acc + j, s0);
				}
				for (; j < len; j++)
					for (k = 0; k < jb->k; k++)
						acc[j] += ar[k * jb->a_cs] * jb->b[k * jb->b_rs + j0 + j];
			} else if (jb->b_rs == 1 && jb->a_cs == 1) {
				for (j = 0; j < len; j++) {
					const float *bc = jb->b + (j0 + j) * jb->b_cs;
					float32x4_t s0 = vdupq_n_f32(0.0f), s1 = s0;
					float s;
					for (k = 0; k + 8 <= jb->k; k += 8) {
						s0 = NG_FMA(s0, vld1q_f32(ar + k), vld1q_f32(bc + k));
						s1 = NG_FMA(s1, vld1q_f32(ar + k + 4), vld1q_f32(bc + k + 4));
					}
					s = ng_hsum(vaddq_f32(s0, s1));
					for (; k < jb->k; k++)
						s += ar[k] * bc[k];
					acc[j] = s;
				}
			} else {
				for (k = 0; k < jb->k; k++)
					for (j = 0; j < len; j++)
						acc[j] += ar[k * jb->a_cs] * jb->b[k * jb->b_rs + (j0 + j) * jb->b_cs];
			}
			ng_finish_row(jb, acc, i, j0, len);
		}
	}
}

/* scratch: ingot_neon_gemm_scratch_bytes(jb->k) bytes */
static void ng_run(const ng_job *jb, float *scratch)
{
	const int64_t kmax = jb->k < NG_KC ? jb->k : NG_KC;
	float *bpack = scratch, *apack = bpack + kmax * NG_NC, *tile = apack + kmax * NG_MR;
	int64_t pc, jc, jr, ic, kc, nc;
	if (jb->m <= 0 || jb->n <= 0)
		return;
	if (jb->k <= 0 || (!jb->col && jb->m < NG_MR &&
	                   (jb->b_cs == 1 || (jb->b_rs == 1 && jb->a_cs == 1)))) {
		ng_small(jb);
		return;
	}
	for (pc = 0; pc < jb->k; pc += NG_KC) {
		kc = jb->k - pc < NG_KC ? jb->k - pc : NG_KC;
		for (jc = 0; jc < jb->n; jc += NG_NC) {
			nc = jb->n - jc < NG_NC ? jb->n - jc : NG_NC;
			for (jr = 0; jr < nc; jr += NG_NR)
				ng_pack_b(jb, pc, kc, jc + jr, nc - jr < NG_NR ? nc - jr : NG_NR, bpack + jr * kc);
			for (ic = 0; ic < jb->m; ic += NG_MR) {
				int64_t mr = jb->m - ic < NG_MR ? jb->m - ic : NG_MR;
				ng_pack_a(jb, ic, mr, pc, kc, apack);
				for (jr = 0; jr < nc; jr += NG_NR) {
					ng_micro(kc, apack, bpack + jr * kc, tile);
					ng_store(jb, tile, ic, mr, jc + jr, nc - jr < NG_NR ? nc - jr : NG_NR, pc == 0,
					         pc + kc >= jb->k);
				}
			}
		}
	}
}

static void ng_epi_init(ng_epi *e, int64_t act, float al, float be)
{
	memset(e, 0, sizeof *e);
	e->alpha = 1.0f;
	e->act = act;
	e->al = al;
	e->be = be;
}

static void ng_split(int64_t n, int task, int n_tasks, int64_t *lo, int64_t *hi)
{
	if (n_tasks < 1) {
		task = 0;
		n_tasks = 1;
	}
	*lo = n * task / n_tasks;
	*hi = n * (task + 1) / n_tasks;
}

/* ---- Conv ---- */

/* Depthwise (one input channel per group): one output plane directly, vectorized
 * over output columns whose window row lies inside the input. acc = y. */
static void ng_depthwise(const ng_col *g, int64_t OH, const float *w, float *y, const float *res,
                         const float *bias, const ng_epi *e)
{
	/* columns [lo, hi) read only inside the row (stride 2 loads one float more) */
	const int64_t span = (g->KW - 1) * g->dw + (g->sw == 2 ? 1 : 0);
	const int64_t lo = (g->pw + g->sw - 1) / g->sw;
	const int64_t hi = g->W - 1 - span + g->pw >= 0 ? (g->W - 1 - span + g->pw) / g->sw + 1 : 0;
	int64_t oy, ox, ky, kx;
	for (oy = 0; oy < OH; oy++) {
		float *yr = y + oy * g->OW;
		const int64_t iy0 = oy * g->sh - g->ph;
		for (ox = 0; ox < g->OW; ) {
			if (ox >= lo && ox + 4 <= hi) {
				const int64_t ix = ox * g->sw - g->pw;
				float32x4_t acc = vdupq_n_f32(0.0f);
				for (ky = 0; ky < g->KH; ky++) {
					const int64_t iy = iy0 + ky * g->dh;
					const float *xr, *wr = w + ky * g->KW;
					if (iy < 0 || iy >= g->H)
						continue;
					xr = g->x + iy * g->W + ix;
					for (kx = 0; kx < g->KW; kx++) {
						const float *s = xr + kx * g->dw;
						float32x4_t xv;
						if (g->sw == 1) {
							xv = vld1q_f32(s);
						} else if (g->sw == 2) {
							xv = vld2q_f32(s).val[0];
						} else {
							float t[4];
							int q;
							for (q = 0; q < 4; q++)
								t[q] = s[q * g->sw];
							xv = vld1q_f32(t);
						}
						acc = NG_FMA(acc, xv, vdupq_n_f32(wr[kx]));
					}
				}
				vst1q_f32(yr + ox, acc);
				ox += 4;
			} else {
				float acc = 0.0f;
				for (ky = 0; ky < g->KH; ky++) {
					const int64_t iy = iy0 + ky * g->dh;
					if (iy < 0 || iy >= g->H)
						continue;
					for (kx = 0; kx < g->KW; kx++) {
						const int64_t ix = ox * g->sw - g->pw + kx * g->dw;
						if (ix >= 0 && ix < g->W)
							acc += w[ky * g->KW + kx] * g->x[iy * g->W + ix];
					}
				}
				yr[ox++] = acc;
			}
		}
		ng_finish(e, yr, yr, NULL, res ? res + oy * g->OW : NULL, bias, g->OW);
	}
}

INGOT_KERNEL int ingot_neon_conv(const void *params, const void *const *in, void *const *out,
                                 void *scratch, int task, int n_tasks)
{
	const ingot_neon_conv_params *p = (const ingot_neon_conv_params *)params;
	const float *x = (const float *)in[0], *w = (const float *)in[1];
	const float *bias = p->has_bias ? (const float *)in[2] : NULL;
	const float *res = p->has_residual ? (const float *)in[3] : NULL;
	float *y = (float *)out[0];
	const int two = p->nsp == 2;
	ng_col g;
	ng_job jb;
	int64_t C, M, Cg, Mg, K, P, OH, u, u0, u1;
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
	ng_split(p->y_dims[0] * M, task, n_tasks, &u0, &u1);
	if (P <= 0 || Mg <= 0)
		return INGOT_OK;
	memset(&jb, 0, sizeof jb);
	ng_epi_init(&jb.e, p->act, p->act_alpha, p->act_beta);
	if (Cg == 1 && K > 0) {
		for (u = u0; u < u1; u++) {
			int64_t n = u / M, oc = u % M;
			g.x = x + (n * C + oc / Mg) * g.H * g.W;
			ng_depthwise(&g, OH, w + oc * K, y + u * P, res ? res + u * P : NULL,
			             bias ? bias + oc : NULL, &jb.e);
		}
		return INGOT_OK;
	}
	if (!scratch)
		return INGOT_EINVAL;
	jb.n = P;
	jb.k = K;
	jb.a_rs = K;
	jb.a_cs = 1;
	jb.ldy = P;
	/* 1x1, stride 1, no padding: B is the input itself */
	if (g.KH == 1 && g.KW == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 && g.pw == 0 &&
	    OH == g.H && g.OW == g.W) {
		jb.b_rs = g.H * g.W;
		jb.b_cs = 1;
	} else {
		jb.col = &g;
	}
	for (u = u0; u < u1;) {
		int64_t n = u / M, oc = u % M, grp = oc / Mg;
		int64_t end = (grp + 1) * Mg < oc + (u1 - u) ? (grp + 1) * Mg : oc + (u1 - u);
		const float *xg = x + (n * C + grp * Cg) * g.H * g.W;
		g.x = xg;
		jb.b = xg;
		jb.m = end - oc;
		jb.a = w + oc * K;
		jb.y = y + u * P;
		jb.e.rbias = bias ? bias + oc : NULL;
		jb.e.res = res ? res + u * P : NULL;
		ng_run(&jb, (float *)scratch);
		u += end - oc;
	}
	return INGOT_OK;
}

/* ---- MatMul and Gemm ---- */

INGOT_KERNEL int ingot_neon_matmul(const void *params, const void *const *in,
                                   void *const *out, void *scratch, int task, int n_tasks)
{
	const ingot_neon_matmul_params *p = (const ingot_neon_matmul_params *)params;
	const float *a = (const float *)in[0], *b = (const float *)in[1];
	const float *res = p->has_residual ? (const float *)in[2] : NULL;
	float *y = (float *)out[0];
	ng_job jb;
	int64_t nbatch = 1, r0, r1, r, d;
	if (p->dtype != INGOT_DT_F32 || !a || !b || !y || !scratch || p->nb < 0 ||
	    p->nb > INGOT_MAX_RANK || (p->has_residual && !res))
		return INGOT_EINVAL;
	for (d = 0; d < p->nb; d++)
		nbatch *= p->bdims[d];
	memset(&jb, 0, sizeof jb);
	ng_epi_init(&jb.e, p->act, p->act_alpha, p->act_beta);
	jb.n = p->n;
	jb.k = p->k;
	jb.a_rs = p->k;
	jb.a_cs = 1;
	jb.b_rs = p->n;
	jb.b_cs = 1;
	jb.ldy = p->n;
	ng_split(nbatch * p->m, task, n_tasks, &r0, &r1);
	for (r = r0; r < r1;) {
		int64_t bi = r / p->m, i0 = r - bi * p->m;
		int64_t i1 = r1 - bi * p->m < p->m ? r1 - bi * p->m : p->m;
		int64_t aoff = 0, boff = 0, rem = bi, yoff = (bi * p->m + i0) * p->n;
		for (d = p->nb - 1; d >= 0; d--) {   /* batch index -> element offsets */
			int64_t idx = rem % p->bdims[d];
			rem /= p->bdims[d];
			aoff += idx * p->a_bstr[d];
			boff += idx * p->b_bstr[d];
		}
		jb.m = i1 - i0;
		jb.a = a + aoff + i0 * p->k;
		jb.b = b + boff;
		jb.y = y + yoff;
		jb.e.res = res ? res + yoff : NULL;
		ng_run(&jb, (float *)scratch);
		r += i1 - i0;
	}
	return INGOT_OK;
}

INGOT_KERNEL int ingot_neon_gemm(const void *params, const void *const *in, void *const *out,
                                 void *scratch, int task, int n_tasks)
{
	const ingot_neon_gemm_params *p = (const ingot_neon_gemm_params *)params;
	const float *a = (const float *)in[0], *b = (const float *)in[1];
	const float *c = p->has_c && p->beta != 0.0f ? (const float *)in[2] : NULL;
	const float *res = p->has_residual ? (const float *)in[3] : NULL;
	float *y = (float *)out[0];
	ng_job jb;
	int64_t r0, r1;
	if (p->dtype != INGOT_DT_F32 || !a || !b || !y || !scratch || (p->has_residual && !res))
		return INGOT_EINVAL;
	ng_split(p->m, task, n_tasks, &r0, &r1);
	memset(&jb, 0, sizeof jb);
	ng_epi_init(&jb.e, p->act, p->act_alpha, p->act_beta);
	jb.e.alpha = p->alpha;
	jb.e.scale = p->alpha != 1.0f;
	jb.e.beta = p->beta;
	jb.e.c = c ? c + r0 * p->c_rs : NULL;     /* beta = 0 ignores C, even NaN in it */
	jb.e.c_rs = p->c_rs;
	jb.e.c_cs = p->c_cs;
	jb.e.res = res ? res + r0 * p->n : NULL;
	jb.m = r1 - r0;
	jb.n = p->n;
	jb.k = p->k;
	jb.a_rs = p->trans_a ? 1 : p->k;
	jb.a_cs = p->trans_a ? p->m : 1;
	jb.a = a + r0 * jb.a_rs;
	jb.b = b;
	jb.b_rs = p->trans_b ? 1 : p->n;
	jb.b_cs = p->trans_b ? p->k : 1;
	jb.y = y + r0 * p->n;
	jb.ldy = p->n;
	ng_run(&jb, (float *)scratch);
	return INGOT_OK;
}
#endif /* ukernel.h */
