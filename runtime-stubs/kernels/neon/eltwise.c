/* neon/eltwise.c — NEON f32 binary ops with broadcasting (simd/vbinary.h: the
 * contiguous and one-value inner runs vectorized), unary ops (ewtable.h's vector
 * forms), and Softmax/LogSoftmax. exp, sigmoid, tanh, erf and the other VM forms are
 * the vector math of simd/vmath.h over the generated NEON vocabulary (ukernel.h;
 * errors stated there); everything else (LogSoftmax included) computes exactly what
 * the reference kernels compute. */
#include "eltwise.h"
#if !defined(__has_include) || __has_include("ukernel.h")   /* absent: stubs built alone */
#include "ukernel.h"
#include "../simd/vmath.h"
#include "../simd/vbinary.h"

#include <arm_neon.h>
#include <math.h>

static void ne_split(int64_t n, int task, int n_tasks, int64_t *lo, int64_t *hi)
{
	if (n_tasks < 1) {
		task = 0;
		n_tasks = 1;
	}
	*lo = n * task / n_tasks;
	*hi = n * (task + 1) / n_tasks;
}

/* ---- unary ---- */

/* One vector of unary op code op: ewtable.h's vector form, x the operand, A and B
 * alpha and beta as vectors, H = A x + B. */
#define H uk_add(uk_mul(A, x), B)
static inline float32x4_t ne_unary_v(int64_t op, float32x4_t x, float32x4_t A, float32x4_t B)
{
	switch (op) {
#define X(N, On, fn, R, U, Ac, PAR, S, V) INGOT_EW_IF_FLOAT_##R(case U: return INGOT_EW_VEC_##V;)
	INGOT_EW_TABLE(X)
#undef X
	default: return x;
	}
}
#undef H

INGOT_KERNEL int ingot_neon_unary(const void *params, const void *const *in, void *const *out,
                                  void *scratch, int task, int n_tasks)
{
	const ingot_neon_unary_params *p = (const ingot_neon_unary_params *)params;
	const float *x = (const float *)in[0];
	float *y = (float *)out[0];
	const float32x4_t al = vdupq_n_f32(p->alpha), be = vdupq_n_f32(p->beta);
	int64_t lo, hi, i;
	(void)scratch;
	if (!x || !y || p->dtype != INGOT_DT_F32 || !ingot_ew_unary_has_vec(p->op))
		return INGOT_EINVAL;
	/* tasks take whole vectors: only the last has the tail, a masked vector, so
	 * every element gets the same formula whatever the split */
	ne_split((p->n + 3) / 4, task, n_tasks, &lo, &hi);
	lo = 4 * lo < p->n ? 4 * lo : p->n;
	hi = 4 * hi < p->n ? 4 * hi : p->n;
	for (i = lo; i + 4 <= hi; i += 4)
		vst1q_f32(y + i, ne_unary_v(p->op, vld1q_f32(x + i), al, be));
	if (i < hi) {
		const uk_mask m = uk_mask_n(hi - i);
		uk_storem(y + i, m, ne_unary_v(p->op, uk_loadm(x + i, m), al, be));
	}
	return INGOT_OK;
}

/* ---- binary (simd/vbinary.h) ---- */

INGOT_KERNEL int ingot_neon_binary(const void *params, const void *const *in,
                                   void *const *out, void *scratch, int task, int n_tasks)
{
	const ingot_neon_binary_params *p = (const ingot_neon_binary_params *)params;
	const float *a = (const float *)in[0], *b = (const float *)in[1];
	float *y = (float *)out[0];
	const int rank = (int)p->rank;
	int64_t lo, hi;
	(void)scratch;
	if (!a || !b || !y || rank < 1 || rank > INGOT_MAX_RANK || p->dtype_a != INGOT_DT_F32 ||
	    p->dtype_b != INGOT_DT_F32 || p->dtype_out != INGOT_DT_F32 || !vb_op_ok(p->op))
		return INGOT_EINVAL;
	ne_split(p->n, task, n_tasks, &lo, &hi);
	if (lo < hi)
		vb_binary(p->op, a, b, y, rank, p->dims, p->sa, p->sb, lo, hi);
	return INGOT_OK;
}

/* ---- Softmax ---- */

static inline float ne_hsum(float32x4_t v)
{
#if defined(__aarch64__)
	return vaddvq_f32(v);
#else
	float32x2_t s = vadd_f32(vget_low_f32(v), vget_high_f32(v));
	return vget_lane_f32(vpadd_f32(s, s), 0);
#endif
}

static inline float ne_hmax(float32x4_t v)
{
#if defined(__aarch64__)
	return vmaxvq_f32(v);
#else
	float32x2_t s = vmax_f32(vget_low_f32(v), vget_high_f32(v));
	return vget_lane_f32(vpmax_f32(s, s), 0);
#endif
}

/* One contiguous row of n (inner = 1). FMAX propagates NaN, as the reference's
 * max does. */
static void ne_softmax_row(const float *x, float *y, int64_t n)
{
	float mx, sum;
	float32x4_t vm = vdupq_n_f32(-INFINITY), vs = vdupq_n_f32(0.0f), vmx, vsum;
	int64_t j;
	for (j = 0; j + 4 <= n; j += 4)
		vm = vmaxq_f32(vm, vld1q_f32(x + j));
	mx = ne_hmax(vm);
	for (; j < n; j++)
		if (x[j] > mx || x[j] != x[j])
			mx = x[j];
	vmx = vdupq_n_f32(mx);
	for (j = 0; j + 4 <= n; j += 4) {
		float32x4_t e = vm_exp(vsubq_f32(vld1q_f32(x + j), vmx));
		vs = vaddq_f32(vs, e);
		vst1q_f32(y + j, e);
	}
	sum = ne_hsum(vs);
	for (; j < n; j++) {
		y[j] = expf(x[j] - mx);
		sum += y[j];
	}
	vsum = vdupq_n_f32(sum);
	for (j = 0; j + 4 <= n; j += 4)
		vst1q_f32(y + j, uk_div(vld1q_f32(y + j), vsum));
	for (; j < n; j++)
		y[j] /= sum;
}

/* Four adjacent rows of a strided view (inner > 1): lanes are the rows. */
static void ne_softmax_4rows(const float *x, float *y, int64_t n, int64_t s)
{
	float32x4_t vm = vdupq_n_f32(-INFINITY), vs = vdupq_n_f32(0.0f);
	int64_t j;
	for (j = 0; j < n; j++) {
		float32x4_t v = vld1q_f32(x + j * s);
		/* keep a NaN once seen, as the reference's max does */
		vm = vbslq_f32(vorrq_u32(vcgtq_f32(v, vm), vmvnq_u32(vceqq_f32(v, v))), v, vm);
	}
	for (j = 0; j < n; j++) {
		float32x4_t e = vm_exp(vsubq_f32(vld1q_f32(x + j * s), vm));
		vs = vaddq_f32(vs, e);
		vst1q_f32(y + j * s, e);
	}
	for (j = 0; j < n; j++)
		vst1q_f32(y + j * s, uk_div(vld1q_f32(y + j * s), vs));
}

/* One strided row, scalar, exactly the reference loop. LogSoftmax always runs it:
 * x - max - log(sum) cancels, so a sum a few ulp off would show. */
static void ne_softmax_strided(const float *x, float *y, int64_t n, int64_t s, int64_t log)
{
	float mx = -INFINITY, sum = 0.0f;
	int64_t j;
	for (j = 0; j < n; j++)
		if (x[j * s] > mx || x[j * s] != x[j * s])
			mx = x[j * s];
	for (j = 0; j < n; j++)
		sum += expf(x[j * s] - mx);
	if (log) {
		float ls = logf(sum);
		for (j = 0; j < n; j++)
			y[j * s] = x[j * s] - mx - ls;
	} else {
		for (j = 0; j < n; j++)
			y[j * s] = expf(x[j * s] - mx) / sum;
	}
}

INGOT_KERNEL int ingot_neon_softmax(const void *params, const void *const *in,
                                    void *const *out, void *scratch, int task, int n_tasks)
{
	const ingot_neon_softmax_params *p = (const ingot_neon_softmax_params *)params;
	const float *x = (const float *)in[0];
	float *y = (float *)out[0];
	const int64_t s = p->inner, n = p->n;
	int64_t r0, r1, r;
	(void)scratch;
	if (p->dtype != INGOT_DT_F32 || s < 0 || p->outer < 0 || n < 0)
		return INGOT_EINVAL;
	ne_split(p->outer * s, task, n_tasks, &r0, &r1);
	if (r0 >= r1 || n == 0)
		return INGOT_OK;
	if (!x || !y)
		return INGOT_EINVAL;
	for (r = r0; r < r1;) {
		const int64_t off = r / s * n * s + r % s;
		if (p->log) {
			ne_softmax_strided(x + off, y + off, n, s, 1);
			r++;
		} else if (s == 1) {
			ne_softmax_row(x + off, y + off, n);
			r++;
		} else if (r % s + 4 <= s && r + 4 <= r1) {
			ne_softmax_4rows(x + off, y + off, n, s);
			r += 4;
		} else {
			ne_softmax_strided(x + off, y + off, n, s, p->log);
			r++;
		}
	}
	return INGOT_OK;
}
#endif /* ukernel.h */
