/* x86/eltwise.c — f32 unary (ewtable.h's vector forms) and binary (simd/vbinary.h)
 * elementwise ops, Softmax and LayerNormalization for the x86 targets, in the generated vector vocabulary (ukernel.h). exp, sigmoid, tanh,
 * erf, Gelu and the other VM forms are the vector approximations of simd/vmath.h
 * (maximum errors stated there, asserted by tests/unit/x86/x86_math_test.py);
 * everything else computes exactly what the reference kernel computes, including
 * NaN handling. */
#include "eltwise.h"
#if !defined(__has_include) || __has_include("ukernel.h")   /* absent: stubs built alone */
#include "ukernel.h"
#include "../simd/vmath.h"
#include "../simd/vbinary.h"

#include <math.h>

/* One vector of unary op code op: ewtable.h's vector form (x the operand, A and B
 * alpha and beta as vectors, H = A x + B) of a unary code, or Gelu's two forms by
 * the codes after them. */
enum { XE_GELU = INGOT_EW_N_UNARY, XE_GELU_TANH, XE_NONE };
#define H uk_add(uk_mul(A, x), B)
static inline uk_vec xe_op(int64_t op, uk_vec x, uk_vec A, uk_vec B)
{
	switch (op) {
#define X(N, On, fn, R, U, Ac, PAR, S, V) INGOT_EW_IF_FLOAT_##R(case U: return INGOT_EW_VEC_##V;)
	INGOT_EW_TABLE(X)
#undef X
	case XE_GELU: return vm_gelu(x);
	case XE_GELU_TANH: return vm_gelu_tanh(x);
	default: return x;
	}
}
#undef H

/* y = op(x) over n floats. Tasks take whole vectors, so only the last task has the
 * tail (done in masked vectors: the same formula as every other element) and the
 * results do not depend on the split (NAME_run_par). */
static int xe_map(int64_t op, const float *x, float *y, int64_t n, float alpha, float beta, int task,
                  int n_tasks)
{
	const uk_vec al = uk_bcast(alpha), be = uk_bcast(beta);
	int64_t lo, hi, i;
	if (!x || !y || op == XE_NONE || n < 0)
		return INGOT_EINVAL;
	if (n_tasks < 1) {
		task = 0;
		n_tasks = 1;
	}
	lo = (n + UK_VF - 1) / UK_VF * task / n_tasks * UK_VF;
	hi = (n + UK_VF - 1) / UK_VF * (task + 1) / n_tasks * UK_VF;
	lo = lo < n ? lo : n;
	hi = hi < n ? hi : n;
	for (i = lo; i + UK_VF <= hi; i += UK_VF)
		uk_store(y + i, xe_op(op, uk_load(x + i), al, be));
	if (i < hi) {
		const uk_mask m = uk_mask_n(hi - i);
		uk_storem(y + i, m, xe_op(op, uk_loadm(x + i, m), al, be));
	}
	return INGOT_OK;
}

INGOT_KERNEL int ingot_x86_unary(const void *params, const void *const *in, void *const *out,
                                 void *scratch, int task, int n_tasks)
{
	const ingot_x86_unary_params *p = (const ingot_x86_unary_params *)params;
	(void)scratch;
	if (p->dtype != INGOT_DT_F32)
		return INGOT_EINVAL;
	return xe_map(ingot_ew_unary_has_vec(p->op) ? p->op : XE_NONE, (const float *)in[0],
	              (float *)out[0], p->n, p->alpha, p->beta, task, n_tasks);
}

INGOT_KERNEL int ingot_x86_math_unary(const void *params, const void *const *in, void *const *out,
                                      void *scratch, int task, int n_tasks)
{
	const ingot_x86_math_unary_params *p = (const ingot_x86_math_unary_params *)params;
	const int op = p->op == INGOT_X86_MU_GELU        ? XE_GELU
	               : p->op == INGOT_X86_MU_GELU_TANH ? XE_GELU_TANH
	                                                 : XE_NONE;
	(void)scratch;
	if (p->dtype != INGOT_DT_F32)
		return INGOT_EINVAL;
	return xe_map(op, (const float *)in[0], (float *)out[0], p->n, 0.0f, 0.0f, task, n_tasks);
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

/* ---- binary (simd/vbinary.h) ---- */

INGOT_KERNEL int ingot_x86_binary(const void *params, const void *const *in, void *const *out,
                                  void *scratch, int task, int n_tasks)
{
	const ingot_x86_binary_params *p = (const ingot_x86_binary_params *)params;
	const float *a = (const float *)in[0], *b = (const float *)in[1];
	float *y = (float *)out[0];
	const int rank = (int)p->rank;
	int64_t lo, hi;
	(void)scratch;
	if (!a || !b || !y || rank < 1 || rank > INGOT_MAX_RANK || p->dtype_a != INGOT_DT_F32 ||
	    p->dtype_b != INGOT_DT_F32 || p->dtype_out != INGOT_DT_F32 || !vb_op_ok(p->op))
		return INGOT_EINVAL;
	xe_rows(p->n, task, n_tasks, &lo, &hi);
	if (lo < hi)
		vb_binary(p->op, a, b, y, rank, p->dims, p->sa, p->sb, lo, hi);
	return INGOT_OK;
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
			const uk_vec e = vm_exp(uk_add(xs_load(x, n, k, pad), uk_bcast(-mx)));
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
#endif /* ukernel.h */
