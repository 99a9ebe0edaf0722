/* x86/eltwise.c — f32 unary elementwise ops for the x86 targets, in the generated
 * vector vocabulary (ukernel.h). e^x is Cody-Waite range reduction (x = n ln2 + r,
 * |r| <= ln2 / 2) and a degree-6 polynomial (Cephes' coefficients), 2^n applied in
 * two halves so n = 128 does not overflow; sigmoid and tanh are built on it.
 * Maximum errors against a double-precision reference over a dense sweep
 * (tests/unit/x86/x86_math_test.py asserts the bounds): exp 2 ulp (1.23 measured),
 * sigmoid 3 ulp (2.39), tanh 2 ulp (1.49); results below FLT_MIN flush to 0. Everything else computes exactly what the reference kernel
 * computes, including NaN handling. */
#include "eltwise.h"
#include "ukernel.h"

#include <math.h>

/* e^x: +inf above ln(FLT_MAX), 0 below ln(FLT_MIN), NaN stays NaN */
static inline uk_vec xe_exp(uk_vec x)
{
	const uk_vec hi = uk_bcast(88.72283935546875f), lo = uk_bcast(-87.33654022216797f);
	const uk_vec xc = uk_min(hi, uk_max(lo, x));
	const uk_vec n = uk_floor(uk_fma(xc, uk_bcast(1.44269504088896341f), uk_bcast(0.5f)));
	uk_vec r = uk_fma(n, uk_bcast(-0.693359375f), xc);
	uk_vec p, y, h;
	r = uk_fma(n, uk_bcast(2.12194440e-4f), r);
	p = uk_bcast(1.9875691500E-4f);
	p = uk_fma(p, r, uk_bcast(1.3981999507E-3f));
	p = uk_fma(p, r, uk_bcast(8.3334519073E-3f));
	p = uk_fma(p, r, uk_bcast(4.1665795894E-2f));
	p = uk_fma(p, r, uk_bcast(1.6666665459E-1f));
	p = uk_fma(p, r, uk_bcast(5.0000001201E-1f));
	y = uk_fma(p, uk_mul(r, r), uk_add(r, uk_bcast(1.0f)));
	h = uk_floor(uk_mul(n, uk_bcast(0.5f)));            /* 2^n = 2^h * 2^(n - h) */
	y = uk_mul(uk_mul(y, uk_pow2i(h)), uk_pow2i(uk_add(n, uk_mul(h, uk_bcast(-1.0f)))));
	y = uk_sel_lt(hi, x, y, uk_bcast(INFINITY));
	y = uk_sel_lt(x, lo, y, uk_zero());
	return uk_nan_sel(x, y);
}

/* 1 / (1 + e^-x), as the reference: e^x / (1 + e^x) below 0 */
static inline uk_vec xe_sigmoid(uk_vec x)
{
	const uk_vec e = xe_exp(uk_mul(uk_abs(x), uk_bcast(-1.0f)));
	const uk_vec r = uk_div(uk_bcast(1.0f), uk_add(uk_bcast(1.0f), e));
	return uk_nan_sel(x, uk_sel_lt(x, uk_zero(), r, uk_mul(e, r)));
}

/* tanh: an odd polynomial below 0.625 (where 1 - e^-2|x| would cancel), else
 * (1 - e^-2|x|) / (1 + e^-2|x|) with x's sign */
static inline uk_vec xe_tanh(uk_vec x)
{
	const uk_vec a = uk_abs(x), z = uk_mul(x, x);
	uk_vec p = uk_bcast(-5.70498872745E-3f), e, t;
	p = uk_fma(p, z, uk_bcast(2.06390887954E-2f));
	p = uk_fma(p, z, uk_bcast(-5.37397155531E-2f));
	p = uk_fma(p, z, uk_bcast(1.33314422036E-1f));
	p = uk_fma(p, z, uk_bcast(-3.33332819422E-1f));
	p = uk_fma(uk_mul(p, z), x, x);
	e = xe_exp(uk_mul(a, uk_bcast(-2.0f)));
	t = uk_copysign(uk_div(uk_add(uk_bcast(1.0f), uk_mul(e, uk_bcast(-1.0f))),
	                       uk_add(uk_bcast(1.0f), e)), x);
	return uk_nan_sel(x, uk_sel_lt(a, uk_bcast(0.625f), t, p));
}

/* fmax(0, fmin(1, t)) as the reference computes it: fminf(1, NaN) is 1 */
static inline uk_vec xe_unit(uk_vec t)
{
	t = uk_sel_lt(t, uk_bcast(1.0f), uk_bcast(1.0f), t);   /* NaN compares false: 1 */
	return uk_sel_lt(uk_zero(), t, uk_zero(), t);
}

static float xe_unary1(const ingot_x86_unary_params *p, float x)
{
	const float al = p->alpha, be = p->beta;
	switch (p->op) {
	case INGOT_X86_EW_ABS: return fabsf(x);
	case INGOT_X86_EW_EXP: return expf(x);
	case INGOT_X86_EW_HARD_SIGMOID: return fmaxf(0.0f, fminf(1.0f, al * x + be));
	case INGOT_X86_EW_HARD_SWISH: return x * fmaxf(0.0f, fminf(1.0f, al * x + be));
	case INGOT_X86_EW_LEAKY_RELU: return x < 0 ? al * x : x;
	case INGOT_X86_EW_NEG: return -x;
	case INGOT_X86_EW_RELU: return x < 0 ? 0.0f : x;
	case INGOT_X86_EW_SIGMOID: return x >= 0 ? 1.0f / (1.0f + expf(-x)) : expf(x) / (1.0f + expf(x));
	default: return tanhf(x);
	}
}

INGOT_KERNEL int ingot_x86_unary(const void *params, const void *const *in, void *const *out,
                                 void *scratch, int task, int n_tasks)
{
	const ingot_x86_unary_params *p = (const ingot_x86_unary_params *)params;
	const float *x = (const float *)in[0];
	float *y = (float *)out[0];
	const uk_vec al = uk_bcast(p->alpha), be = uk_bcast(p->beta);
	int64_t lo, hi, i;
	(void)scratch;
	if (!x || !y || p->dtype != INGOT_DT_F32)
		return INGOT_EINVAL;
	switch (p->op) {
	case INGOT_X86_EW_ABS: case INGOT_X86_EW_EXP: case INGOT_X86_EW_HARD_SIGMOID:
	case INGOT_X86_EW_HARD_SWISH: case INGOT_X86_EW_LEAKY_RELU: case INGOT_X86_EW_NEG:
	case INGOT_X86_EW_RELU: case INGOT_X86_EW_SIGMOID: case INGOT_X86_EW_TANH:
		break;
	default:
		return INGOT_EINVAL;
	}
	if (n_tasks < 1) {
		task = 0;
		n_tasks = 1;
	}
	/* tasks take whole vectors, so only the last task has the scalar tail and the
	 * results do not depend on the split (NAME_run_par) */
	lo = (p->n + UK_VF - 1) / UK_VF * task / n_tasks * UK_VF;
	hi = (p->n + UK_VF - 1) / UK_VF * (task + 1) / n_tasks * UK_VF;
	lo = lo < p->n ? lo : p->n;
	hi = hi < p->n ? hi : p->n;
	for (i = lo; i + UK_VF <= hi; i += UK_VF) {
		uk_vec v = uk_load(x + i);
		switch (p->op) {
		case INGOT_X86_EW_ABS: v = uk_abs(v); break;
		case INGOT_X86_EW_EXP: v = xe_exp(v); break;
		case INGOT_X86_EW_HARD_SIGMOID: v = xe_unit(uk_add(uk_mul(al, v), be)); break;
		case INGOT_X86_EW_HARD_SWISH: v = uk_mul(v, xe_unit(uk_add(uk_mul(al, v), be))); break;
		case INGOT_X86_EW_LEAKY_RELU: v = uk_select_lt(v, uk_zero(), uk_mul(al, v)); break;
		case INGOT_X86_EW_NEG: v = uk_mul(v, uk_bcast(-1.0f)); break;
		case INGOT_X86_EW_RELU: v = uk_sel_lt(v, uk_zero(), v, uk_zero()); break;
		case INGOT_X86_EW_SIGMOID: v = xe_sigmoid(v); break;
		default: v = xe_tanh(v); break;
		}
		uk_store(y + i, v);
	}
	for (; i < hi; i++)
		y[i] = xe_unary1(p, x[i]);
	return INGOT_OK;
}

/* Rows [r0, r1) of `outer` for one task. */
static void xe_rows(int64_t outer, int task, int n_tasks, int64_t *r0, int64_t *r1)
{
	if (n_tasks < 1) {
		task = 0;
		n_tasks = 1;
	}
	*r0 = outer * task / n_tasks;
	*r1 = outer * (task + 1) / n_tasks;
}

/* The n values of x (the last vector's missing lanes read as -inf, which adds
 * e^-inf = 0 to the sum) as vectors: v = the k-th. */
static inline uk_vec xs_load(const float *x, int64_t n, int64_t k, float *pad)
{
	int64_t left = n - k, j;
	if (left >= UK_VF)
		return uk_load(x + k);
	for (j = 0; j < UK_VF; j++)
		pad[j] = j < left ? x[k + j] : -INFINITY;
	return uk_load(pad);
}

INGOT_KERNEL int ingot_x86_softmax(const void *params, const void *const *in, void *const *out,
                                   void *scratch, int task, int n_tasks)
{
	const ingot_x86_softmax_params *p = (const ingot_x86_softmax_params *)params;
	float pad[UK_VF], lanes[UK_VF];
	int64_t r, r0, r1, k, j;
	const int64_t n = p->n;
	(void)scratch;
	if (p->dtype != INGOT_DT_F32 || p->inner != 1 || p->outer < 0 || n < 0 || !in[0] || !out[0])
		return INGOT_EINVAL;
	xe_rows(p->outer, task, n_tasks, &r0, &r1);
	for (r = r0; r < r1; r++) {
		const float *x = (const float *)in[0] + r * n;
		float *y = (float *)out[0] + r * n;
		uk_vec mv = uk_bcast(-INFINITY), nan = uk_zero(), acc = uk_zero();
		float mx, sum;
		if (n == 0)
			continue;
		for (k = 0; k < n; k += UK_VF) {
			const uk_vec v = xs_load(x, n, k, pad);
			mv = uk_max(v, mv);          /* (a NaN lane of v keeps mv) */
			nan = uk_nan_sel(v, nan);    /* ... and is remembered here */
		}
		uk_store(lanes, uk_add(mv, nan));
		mx = lanes[0];
		for (j = 1; j < UK_VF; j++)
			mx = lanes[j] > mx || lanes[j] != lanes[j] ? lanes[j] : mx;
		for (k = 0; k < n; k += UK_VF) {
			const uk_vec e = xe_exp(uk_add(xs_load(x, n, k, pad), uk_bcast(-mx)));
			acc = uk_add(acc, e);
			if (!p->log && n - k >= UK_VF)
				uk_store(y + k, e);
			else if (!p->log)
				uk_storem(y + k, uk_mask_n(n - k), e);
		}
		sum = uk_hsum(acc);
		if (p->log) {
			const float ls = logf(sum);
			for (j = 0; j < n; j++)
				y[j] = x[j] - mx - ls;
		} else {
			const uk_vec s = uk_bcast(sum);
			for (k = 0; k + UK_VF <= n; k += UK_VF)
				uk_store(y + k, uk_div(uk_load(y + k), s));
			if (k < n) {
				const uk_mask m = uk_mask_n(n - k);
				uk_storem(y + k, m, uk_div(uk_loadm(y + k, m), s));
			}
		}
	}
	return INGOT_OK;
}

INGOT_KERNEL int ingot_x86_layernorm(const void *params, const void *const *in, void *const *out,
                                     void *scratch, int task, int n_tasks)
{
	const ingot_x86_layernorm_params *p = (const ingot_x86_layernorm_params *)params;
	const float *sc = (const float *)in[1], *bi = p->has_bias ? (const float *)in[2] : NULL;
	const int64_t n = p->inner;
	int64_t r, r0, r1, k;
	(void)scratch;
	if (p->dtype != INGOT_DT_F32 || p->has_mean || p->has_inv || n < 0 || p->outer < 0 || !in[0] ||
	    !sc || !out[0] || (p->has_bias && !bi))
		return INGOT_EINVAL;
	xe_rows(p->outer, task, n_tasks, &r0, &r1);
	for (r = r0; r < r1; r++) {
		const float *x = (const float *)in[0] + r * n;
		float *y = (float *)out[0] + r * n;
		uk_vec acc = uk_zero(), m, is;
		float mean, var;
		if (n == 0)
			continue;
		for (k = 0; k + UK_VF <= n; k += UK_VF)
			acc = uk_add(acc, uk_load(x + k));
		if (k < n)
			acc = uk_add(acc, uk_loadm(x + k, uk_mask_n(n - k)));
		mean = uk_hsum(acc) / (float)n;
		m = uk_bcast(-mean);
		acc = uk_zero();
		for (k = 0; k + UK_VF <= n; k += UK_VF) {
			const uk_vec d = uk_add(uk_load(x + k), m);
			acc = uk_fma(d, d, acc);
		}
		if (k < n) {            /* masked lanes load 0: keep them out of the sum */
			const uk_mask mk = uk_mask_n(n - k);
			const uk_vec d = uk_loadm(x + k, mk);
			const uk_vec dm = uk_add(d, m);
			uk_vec sq = uk_mul(dm, dm);
			float t[UK_VF];
			int64_t j;
			uk_store(t, sq);
			for (j = n - k; j < UK_VF; j++)
				t[j] = 0.0f;
			acc = uk_add(acc, uk_load(t));
		}
		var = uk_hsum(acc) / (float)n;
		is = uk_bcast((float)(1.0 / sqrt((double)var + (double)p->epsilon)));
		for (k = 0; k < n; k += UK_VF) {
			const int64_t left = n - k;
			const uk_mask mk = uk_mask_n(left < UK_VF ? left : UK_VF);
			const int whole = left >= UK_VF;
			uk_vec v = uk_mul(uk_mul(uk_add(whole ? uk_load(x + k) : uk_loadm(x + k, mk), m), is),
			                  whole ? uk_load(sc + k) : uk_loadm(sc + k, mk));
			if (bi)
				v = uk_add(v, whole ? uk_load(bi + k) : uk_loadm(bi + k, mk));
			if (whole)
				uk_store(y + k, v);
			else
				uk_storem(y + k, mk, v);
		}
	}
	return INGOT_OK;
}
