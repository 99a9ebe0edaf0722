/* linalg.c — reference kernels of MatMul and Gemm: one strided matrix product per
 * dtype. Each output row is computed in column chunks held in a small local
 * accumulator array, so the inner loop runs over contiguous rows of B (a
 * transposed B uses dot products along its contiguous rows instead); f16/bf16
 * accumulate in float, and no scratch memory is needed. */
#include "linalg.h"
#include "ewmath.h"

#include <math.h>
#include <string.h>

#define LINALG_CHUNK 64

/* One matrix product: Y[i, j] = alpha * sum_k A[i*a_si + k*a_sk] * B[k*b_sk + j*b_sj]
 * (+ beta * C[i*c_rs + j*c_cs] when c), Y contiguous with n columns. */
typedef struct linalg_job {
	const void *a, *b, *c;
	const void *res;       /* the fused residual, indexed like y; NULL if none */
	void *y;
	int64_t n, k, a_si, a_sk, b_sk, b_sj, c_rs, c_cs;
	float alpha, beta;
	int sgn;               /* integer dtypes: values are signed */
	int epi;               /* res or act: store through the epilogue */
	int64_t act;           /* INGOT_LINALG_ACT_* */
	float act_alpha, act_beta;
} linalg_job;

static INGOT_UNUSED float linalg_ld_f16(uint16_t v) { return ingot_f16_to_f32(v); }
static INGOT_UNUSED float linalg_ld_bf16(uint16_t v) { return ingot_bf16_to_f32(v); }
static INGOT_UNUSED uint16_t linalg_st_f16(float v) { return ingot_f32_to_f16(v); }
static INGOT_UNUSED uint16_t linalg_st_bf16(float v) { return ingot_f32_to_bf16(v); }
#define LINALG_ID(v) (v)

/* One output through the epilogue: + residual, then the activation, rounding to T
 * after each step as the separate ops would. */
#define LINALG_EPI_DEF(NAME, T, ACC, LD, ST, ACT) \
static INGOT_UNUSED T NAME(const linalg_job *jb, ACC v, int64_t idx) \
{ \
	if (jb->res) \
		v = (ACC)LD(ST(v)) + (ACC)LD(((const T *)jb->res)[idx]); \
	if (jb->act != INGOT_LINALG_ACT_NONE) \
		v = ACT(jb->act, (ACC)LD(ST(v)), (ACC)jb->act_alpha, (ACC)jb->act_beta); \
	return ST(v); \
}
LINALG_EPI_DEF(linalg_epi_f32, float, float, LINALG_ID, LINALG_ID, ingot_ewf_act)
LINALG_EPI_DEF(linalg_epi_f64, double, double, LINALG_ID, LINALG_ID, ingot_ewd_act)
LINALG_EPI_DEF(linalg_epi_f16, uint16_t, float, linalg_ld_f16, linalg_st_f16, ingot_ewf_act)
LINALG_EPI_DEF(linalg_epi_bf16, uint16_t, float, linalg_ld_bf16, linalg_st_bf16, ingot_ewf_act)

/* Floating point dtypes: T storage, ACC accumulator, LD/ST convert. */
#define LINALG_MM_FLOAT(NAME, T, ACC, LD, ST, EPI) \
static void NAME(const linalg_job *jb, int64_t r0, int64_t r1, int64_t c0, int64_t c1) \
{ \
	const T *a = (const T *)jb->a, *b = (const T *)jb->b, *c = (const T *)jb->c; \
	T *y = (T *)jb->y; \
	ACC acc[LINALG_CHUNK]; \
	int64_t i, j0, j, k, len; \
	if (jb->b_sj != 1) {      /* B transposed: 4 dot products at a time along k */ \
		for (i = r0; i < r1; i++) { \
			const T *ar = a + i * jb->a_si; \
			for (j0 = c0; j0 < c1; j0 += 4) { \
				const T *bc[4]; \
				len = c1 - j0 < 4 ? c1 - j0 : 4; \
				for (j = 0; j < 4; j++)    /* a short tail repeats its last column */ \
					bc[j] = b + (j0 + (j < len ? j : len - 1)) * jb->b_sj; \
				for (j = 0; j < 4; j++) \
					acc[j] = (ACC)0; \
				for (k = 0; k < jb->k; k++) { \
					ACC av = (ACC)LD(ar[k * jb->a_sk]); \
					int64_t kb = k * jb->b_sk; \
					acc[0] += av * (ACC)LD(bc[0][kb]); \
					acc[1] += av * (ACC)LD(bc[1][kb]); \
					acc[2] += av * (ACC)LD(bc[2][kb]); \
					acc[3] += av * (ACC)LD(bc[3][kb]); \
				} \
				for (j = 0; j < len; j++) { \
					ACC v = acc[j] * (ACC)jb->alpha; \
					if (c) \
						v += (ACC)jb->beta * (ACC)LD(c[i * jb->c_rs + (j0 + j) * jb->c_cs]); \
					y[i * jb->n + j0 + j] = jb->epi ? EPI(jb, v, i * jb->n + j0 + j) : ST(v); \
				} \
			} \
		} \
		return; \
	} \
	for (i = r0; i < r1; i++) { \
		for (j0 = c0; j0 < c1; j0 += LINALG_CHUNK) { \
			len = c1 - j0 < LINALG_CHUNK ? c1 - j0 : LINALG_CHUNK; \
			for (j = 0; j < len; j++) \
				acc[j] = (ACC)0; \
			for (k = 0; k < jb->k; k++) { \
				ACC av = (ACC)LD(a[i * jb->a_si + k * jb->a_sk]); \
				const T *br = b + k * jb->b_sk + j0; \
				if (len == LINALG_CHUNK) {   /* constant trip count: vectorizes at -O2 */ \
					for (j = 0; j < LINALG_CHUNK; j++) \
						acc[j] += av * (ACC)LD(br[j]); \
				} else { \
					for (j = 0; j < len; j++) \
						acc[j] += av * (ACC)LD(br[j]); \
				} \
			} \
			for (j = 0; j < len; j++) { \
				ACC v = acc[j] * (ACC)jb->alpha; \
				if (c) \
					v += (ACC)jb->beta * (ACC)LD(c[i * jb->c_rs + (j0 + j) * jb->c_cs]); \
				y[i * jb->n + j0 + j] = jb->epi ? EPI(jb, v, i * jb->n + j0 + j) : ST(v); \
			} \
		} \
	} \
}

LINALG_MM_FLOAT(linalg_mm_f32, float, float, LINALG_ID, LINALG_ID, linalg_epi_f32)
LINALG_MM_FLOAT(linalg_mm_f64, double, double, LINALG_ID, LINALG_ID, linalg_epi_f64)
LINALG_MM_FLOAT(linalg_mm_f16, uint16_t, float, linalg_ld_f16, linalg_st_f16, linalg_epi_f16)
LINALG_MM_FLOAT(linalg_mm_bf16, uint16_t, float, linalg_ld_bf16, linalg_st_bf16, linalg_epi_bf16)

/* Integers: the product is computed in unsigned arithmetic of the dtype's width,
 * which is the same modulo 2^bits for signed and unsigned values. Only a Gemm
 * with alpha != 1 or beta not in {0, 1} leaves the integers (through double,
 * clamped to the dtype's range on the way back). */
static double linalg_u2d(uint64_t v, int bits, int sgn)
{
	uint64_t top = (uint64_t)1 << (bits - 1);
	if (bits < 64)
		v &= (top << 1) - 1u;
	if (sgn && (v & top)) {
		uint64_t mag = (~v + 1u);
		if (bits < 64)
			mag &= (top << 1) - 1u;
		return -(double)mag;
	}
	return (double)v;
}

static uint64_t linalg_d2u(double v, int bits, int sgn)
{
	double lo, hi;
	if (v != v)
		return 0;
	if (sgn) {
		lo = -ldexp(1.0, bits - 1);
		hi = ldexp(1.0, bits - 1);      /* exclusive */
		if (v <= lo)
			return (uint64_t)1 << (bits - 1);          /* the most negative value */
		if (v >= hi)
			return ((uint64_t)1 << (bits - 1)) - 1u;
		return (uint64_t)(int64_t)v;
	}
	hi = ldexp(1.0, bits);
	if (v <= 0.0)
		return 0;
	if (v >= hi)
		return bits < 64 ? ((uint64_t)1 << bits) - 1u : ~(uint64_t)0;
	return (uint64_t)v;
}

#define LINALG_MM_INT(NAME, U, BITS) \
static void NAME(const linalg_job *jb, int64_t r0, int64_t r1, int64_t c0, int64_t c1) \
{ \
	const U *a = (const U *)jb->a, *b = (const U *)jb->b, *c = (const U *)jb->c; \
	U *y = (U *)jb->y; \
	U acc[LINALG_CHUNK]; \
	int exact = jb->alpha == 1.0f && (!c || jb->beta == 0.0f || jb->beta == 1.0f); \
	int64_t i, j0, j, k, len; \
	for (i = r0; i < r1; i++) { \
		for (j0 = c0; j0 < c1; j0 += LINALG_CHUNK) { \
			len = c1 - j0 < LINALG_CHUNK ? c1 - j0 : LINALG_CHUNK; \
			for (j = 0; j < len; j++) \
				acc[j] = 0; \
			for (k = 0; k < jb->k; k++) { \
				U av = a[i * jb->a_si + k * jb->a_sk]; \
				const U *br = b + k * jb->b_sk + j0 * jb->b_sj; \
				for (j = 0; j < len; j++) \
					acc[j] = (U)(acc[j] + (U)(av * br[j * jb->b_sj])); \
			} \
			for (j = 0; j < len; j++) { \
				U cv = c ? c[i * jb->c_rs + (j0 + j) * jb->c_cs] : (U)0; \
				if (exact) { \
					y[i * jb->n + j0 + j] = (U)(acc[j] + (jb->beta == 1.0f ? cv : (U)0)); \
				} else { \
					double v = (double)jb->alpha * linalg_u2d(acc[j], BITS, jb->sgn); \
					if (c) \
						v += (double)jb->beta * linalg_u2d(cv, BITS, jb->sgn); \
					y[i * jb->n + j0 + j] = (U)linalg_d2u(v, BITS, jb->sgn); \
				} \
			} \
		} \
	} \
}

LINALG_MM_INT(linalg_mm_u32, uint32_t, 32)
LINALG_MM_INT(linalg_mm_u64, uint64_t, 64)

/* Rows [r0, r1) x columns [c0, c1) of one product; c0 is a multiple of LINALG_CHUNK,
 * so the column chunks are the same however the work is split. */
typedef void (*linalg_mm_fn)(const linalg_job *jb, int64_t r0, int64_t r1, int64_t c0, int64_t c1);

static linalg_mm_fn linalg_pick(int64_t dtype, int *sgn)
{
	*sgn = dtype == INGOT_DT_I32 || dtype == INGOT_DT_I64;
	switch (dtype) {
	case INGOT_DT_F32: return linalg_mm_f32;
	case INGOT_DT_F64: return linalg_mm_f64;
	case INGOT_DT_F16: return linalg_mm_f16;
	case INGOT_DT_BF16: return linalg_mm_bf16;
	case INGOT_DT_I32: case INGOT_DT_U32: return linalg_mm_u32;
	case INGOT_DT_I64: case INGOT_DT_U64: return linalg_mm_u64;
	default: return NULL;
	}
}

/* Sets the job's epilogue; integer products take none (EINVAL). */
static int linalg_set_epi(linalg_job *jb, int64_t dtype, int64_t act, float al, float be,
                          int64_t has_res, const void *res)
{
	jb->act = act;
	jb->act_alpha = al;
	jb->act_beta = be;
	jb->res = has_res ? res : NULL;
	jb->epi = has_res || act != INGOT_LINALG_ACT_NONE;
	if (has_res && !res)
		return INGOT_EINVAL;
	if (jb->epi && dtype != INGOT_DT_F32 && dtype != INGOT_DT_F64 && dtype != INGOT_DT_F16 &&
	    dtype != INGOT_DT_BF16)
		return INGOT_EINVAL;
	return INGOT_OK;
}

/* A task's share of the work: rows x column blocks of LINALG_CHUNK, numbered row by
 * row, so that a product with few rows (a GEMV) still splits. *u0, *u1: this task's
 * units; *nb: blocks per row. */
static void linalg_share(int64_t rows, int64_t n, int task, int n_tasks, int64_t *u0, int64_t *u1,
                         int64_t *nb)
{
	int64_t units;
	if (n_tasks < 1 || task < 0 || task >= n_tasks) {
		task = 0;
		n_tasks = 1;
	}
	*nb = n > 0 ? (n + LINALG_CHUNK - 1) / LINALG_CHUNK : 1;
	units = rows * *nb;
	*u0 = units * task / n_tasks;
	*u1 = units * (task + 1) / n_tasks;
}

/* Row r's blocks from unit u up to unit `end`: columns [*c0, *c1); returns the next unit. */
static int64_t linalg_run(int64_t u, int64_t end, int64_t nb, int64_t n, int64_t *r, int64_t *c0,
                          int64_t *c1)
{
	int64_t b0, b1;
	*r = u / nb;
	b0 = u - *r * nb;
	b1 = end - *r * nb < nb ? end - *r * nb : nb;
	*c0 = b0 * LINALG_CHUNK;
	*c1 = b1 * LINALG_CHUNK < n ? b1 * LINALG_CHUNK : n;
	return *r * nb + b1;
}

INGOT_KERNEL int ingot_matmul(const void *params, const void *const *in, void *const *out,
                              void *scratch, int task, int n_tasks)
{
	const ingot_matmul_params *p = (const ingot_matmul_params *)params;
	linalg_job jb;
	linalg_mm_fn fn;
	size_t es = ingot_dtype_size((int)p->dtype);
	int64_t nbatch = 1, u, u1, nb, r, c0, c1, d;
	(void)scratch;
	memset(&jb, 0, sizeof jb);
	fn = linalg_pick(p->dtype, &jb.sgn);
	if (!fn || !in[0] || !in[1] || !out[0] || p->nb < 0 || p->nb > INGOT_MAX_RANK ||
	    linalg_set_epi(&jb, p->dtype, p->act, p->act_alpha, p->act_beta, p->has_residual,
	                   p->has_residual ? in[2] : NULL))
		return INGOT_EINVAL;
	for (d = 0; d < p->nb; d++)
		nbatch *= p->bdims[d];
	jb.n = p->n;
	jb.k = p->k;
	jb.a_si = p->k;
	jb.a_sk = 1;
	jb.b_sk = p->n;
	jb.b_sj = 1;
	jb.alpha = 1.0f;
	linalg_share(nbatch * p->m, p->n, task, n_tasks, &u, &u1, &nb);
	while (u < u1) {
		int64_t bi, i0, aoff = 0, boff = 0, rem;
		u = linalg_run(u, u1, nb, p->n, &r, &c0, &c1);
		bi = r / p->m;
		i0 = r - bi * p->m;
		rem = bi;
		for (d = p->nb - 1; d >= 0; d--) {   /* batch index -> element offsets */
			int64_t idx = rem % p->bdims[d];
			rem /= p->bdims[d];
			aoff += idx * p->a_bstr[d];
			boff += idx * p->b_bstr[d];
		}
		jb.a = (const char *)in[0] + (size_t)aoff * es;
		jb.b = (const char *)in[1] + (size_t)boff * es;
		jb.y = (char *)out[0] + (size_t)(bi * p->m * p->n) * es;
		if (p->has_residual)
			jb.res = (const char *)in[2] + (size_t)(bi * p->m * p->n) * es;
		fn(&jb, i0, i0 + 1, c0, c1);
	}
	return INGOT_OK;
}

INGOT_KERNEL int ingot_gemm(const void *params, const void *const *in, void *const *out,
                            void *scratch, int task, int n_tasks)
{
	const ingot_gemm_params *p = (const ingot_gemm_params *)params;
	linalg_job jb;
	linalg_mm_fn fn;
	int64_t u, u1, nb, r, c0, c1;
	(void)scratch;
	memset(&jb, 0, sizeof jb);
	fn = linalg_pick(p->dtype, &jb.sgn);
	if (!fn || !in[0] || !in[1] || !out[0] ||
	    linalg_set_epi(&jb, p->dtype, p->act, p->act_alpha, p->act_beta, p->has_residual,
	                   p->has_residual ? in[3] : NULL))
		return INGOT_EINVAL;
	jb.a = in[0];
	jb.b = in[1];
	jb.c = p->has_c && p->beta != 0.0f ? in[2] : NULL;  /* beta = 0 ignores C, even NaN in it */
	jb.y = out[0];
	jb.n = p->n;
	jb.k = p->k;
	jb.a_si = p->trans_a ? 1 : p->k;
	jb.a_sk = p->trans_a ? p->m : 1;
	jb.b_sk = p->trans_b ? 1 : p->n;
	jb.b_sj = p->trans_b ? p->k : 1;
	jb.c_rs = p->c_rs;
	jb.c_cs = p->c_cs;
	jb.alpha = p->alpha;
	jb.beta = p->beta;
	linalg_share(p->m, p->n, task, n_tasks, &u, &u1, &nb);
	while (u < u1) {
		u = linalg_run(u, u1, nb, p->n, &r, &c0, &c1);
		fn(&jb, r, r + 1, c0, c1);
	}
	return INGOT_OK;
}
