/* norm.c — reference kernels of the normalizations and of Softmax/LogSoftmax.
 * Per-dtype loops come from one macro (NRM_FNS) instantiated for f32, f64, f16 and
 * bf16; per-channel values (scale, bias, mean, var), which ONNX lets have their own
 * dtype, go through ingot_ldf/ingot_stf. Statistics use double accumulators and two
 * passes (mean, then squared deviations), which keeps variance exact enough for
 * large planes; elementwise math stays in float (double for f64). */
#include "norm.h"

#include <math.h>
#include <string.h>

/* This task's share [*lo, *hi) of n items; 0 or INGOT_EINVAL. */
static INGOT_UNUSED int nrm_share(int64_t n, int task, int n_tasks, int64_t *lo, int64_t *hi)
{
	if (n_tasks < 1 || task < 0 || task >= n_tasks || n < 0)
		return INGOT_EINVAL;
	*lo = n / n_tasks * task + n % n_tasks * task / n_tasks;
	*hi = n / n_tasks * (task + 1) + n % n_tasks * (task + 1) / n_tasks;
	return INGOT_OK;
}

#define NRM_ID(v) (v)
#define NRM_F16_LD(h) ingot_f16_to_f32(h)
#define NRM_BF16_LD(h) ingot_bf16_to_f32(h)

/* T: stored type, A: compute type, LD/ST: T <-> A, EXPF/LOGF: math in A. */
#define NRM_FNS(SUF, T, A, LD, ST, EXPF, LOGF) \
/* Mean and population variance of `count` runs of `len` elements starting at \
 * element `off`, `stride` apart. */ \
static INGOT_UNUSED void nrm_stats_##SUF(const void *xv, int64_t off, int64_t count, \
                                         int64_t stride, int64_t len, double *mean, double *var) \
{ \
	const T *x = (const T *)xv + off; \
	double s = 0.0, ss = 0.0, m; \
	int64_t i, j, tot = count * len; \
	for (i = 0; i < count; i++) \
		for (j = 0; j < len; j++) \
			s += (double)LD(x[i * stride + j]); \
	m = tot > 0 ? s / (double)tot : 0.0; \
	for (i = 0; i < count; i++) \
		for (j = 0; j < len; j++) { \
			double d = (double)LD(x[i * stride + j]) - m; \
			ss += d * d; \
		} \
	*mean = m; \
	*var = tot > 0 ? ss / (double)tot : 0.0; \
} \
/* y = (x - mean) * a + b over the same runs. */ \
static INGOT_UNUSED void nrm_affine_##SUF(const void *xv, void *yv, int64_t off, int64_t count, \
                                          int64_t stride, int64_t len, double mean, double a, \
                                          double b) \
{ \
	const T *x = (const T *)xv + off; \
	T *y = (T *)yv + off; \
	A m = (A)mean, aa = (A)a, bb = (A)b; \
	int64_t i, j; \
	for (i = 0; i < count; i++) \
		for (j = 0; j < len; j++) \
			y[i * stride + j] = ST((LD(x[i * stride + j]) - m) * aa + bb); \
} \
/* Rows r0..r1 of the [outer, n, inner] view; row r is (r / inner, r % inner). */ \
static INGOT_UNUSED void nrm_softmax_##SUF(const ingot_softmax_params *p, const void *xv, \
                                           void *yv, int64_t r0, int64_t r1) \
{ \
	const T *x = (const T *)xv; \
	T *y = (T *)yv; \
	int64_t r, j, n = p->n, s = p->inner; \
	for (r = r0; r < r1; r++) { \
		const T *xr = x + r / s * n * s + r % s; \
		T *yr = y + r / s * n * s + r % s; \
		A mx = (A)-INFINITY, sum = (A)0; \
		for (j = 0; j < n; j++) { \
			A v = LD(xr[j * s]); \
			if (v > mx || v != v) \
				mx = v; \
		} \
		for (j = 0; j < n; j++) \
			sum += EXPF(LD(xr[j * s]) - mx); \
		if (p->log) { \
			A ls = LOGF(sum); \
			for (j = 0; j < n; j++) \
				yr[j * s] = ST(LD(xr[j * s]) - mx - ls); \
		} else { \
			for (j = 0; j < n; j++) \
				yr[j * s] = ST(EXPF(LD(xr[j * s]) - mx) / sum); \
		} \
	} \
} \
/* Rows r0..r1; scale and bias indices follow the normalized dims by an odometer. */ \
static INGOT_UNUSED void nrm_layernorm_##SUF(const ingot_layernorm_params *p, \
                                             const void *const *in, void *const *out, \
                                             int64_t r0, int64_t r1) \
{ \
	const T *sc = (const T *)in[1], *bi = p->has_bias ? (const T *)in[2] : NULL; \
	int64_t r, j, idx[INGOT_MAX_RANK]; \
	int d, nr = (int)p->nrank; \
	for (r = r0; r < r1; r++) { \
		const T *x = (const T *)in[0] + r * p->inner; \
		T *y = (T *)out[0] + r * p->inner; \
		double mean, var, inv; \
		int64_t si = 0, bo = 0; \
		A m, is; \
		nrm_stats_##SUF(x, 0, 1, 0, p->inner, &mean, &var); \
		inv = 1.0 / sqrt(var + (double)p->epsilon); \
		m = (A)mean; \
		is = (A)inv; \
		memset(idx, 0, sizeof idx); \
		for (j = 0; j < p->inner; j++) { \
			A v = (LD(x[j]) - m) * is * LD(sc[si]); \
			if (bi) \
				v += LD(bi[bo]); \
			y[j] = ST(v); \
			for (d = nr - 1; d >= 0; d--) { \
				si += p->s_str[d]; \
				bo += p->b_str[d]; \
				if (++idx[d] < p->ndims[d]) \
					break; \
				si -= p->s_str[d] * p->ndims[d]; \
				bo -= p->b_str[d] * p->ndims[d]; \
				idx[d] = 0; \
			} \
		} \
		if (p->has_mean) \
			ingot_stf(p->stash, out[1], r, mean); \
		if (p->has_inv) \
			ingot_stf(p->stash, out[2], r, inv); \
	} \
}

NRM_FNS(f32, float, float, NRM_ID, NRM_ID, expf, logf)
NRM_FNS(f64, double, double, NRM_ID, NRM_ID, exp, log)
NRM_FNS(f16, uint16_t, float, NRM_F16_LD, ingot_f32_to_f16, expf, logf)
NRM_FNS(bf16, uint16_t, float, NRM_BF16_LD, ingot_f32_to_bf16, expf, logf)

static INGOT_UNUSED void nrm_stats(int64_t dt, const void *x, int64_t off, int64_t count,
                                   int64_t stride, int64_t len, double *mean, double *var)
{
	switch (dt) {
	case INGOT_DT_F32: nrm_stats_f32(x, off, count, stride, len, mean, var); break;
	case INGOT_DT_F64: nrm_stats_f64(x, off, count, stride, len, mean, var); break;
	case INGOT_DT_F16: nrm_stats_f16(x, off, count, stride, len, mean, var); break;
	default: nrm_stats_bf16(x, off, count, stride, len, mean, var); break;
	}
}

static INGOT_UNUSED void nrm_affine(int64_t dt, const void *x, void *y, int64_t off,
                                    int64_t count, int64_t stride, int64_t len, double mean,
                                    double a, double b)
{
	switch (dt) {
	case INGOT_DT_F32: nrm_affine_f32(x, y, off, count, stride, len, mean, a, b); break;
	case INGOT_DT_F64: nrm_affine_f64(x, y, off, count, stride, len, mean, a, b); break;
	case INGOT_DT_F16: nrm_affine_f16(x, y, off, count, stride, len, mean, a, b); break;
	default: nrm_affine_bf16(x, y, off, count, stride, len, mean, a, b); break;
	}
}

INGOT_KERNEL int ingot_batchnorm(const void *params, const void *const *in, void *const *out,
                                 void *scratch, int task, int n_tasks)
{
	const ingot_batchnorm_params *p = (const ingot_batchnorm_params *)params;
	int64_t c0, c1, ch, plane = p->c * p->inner;
	double mom = (double)p->momentum;
	(void)scratch;
	if (nrm_share(p->c, task, n_tasks, &c0, &c1) || !ingot_dtype_is_float(p->dtype) ||
	    !ingot_dtype_is_float(p->s_dtype) || !ingot_dtype_is_float(p->b_dtype) ||
	    !ingot_dtype_is_float(p->m_dtype) || !ingot_dtype_is_float(p->v_dtype))
		return INGOT_EINVAL;
	if (c0 >= c1)
		return INGOT_OK;
	if (!in[0] || !in[1] || !in[2] || !in[3] || !in[4] || !out[0] ||
	    (p->has_rmean && !out[1]) || (p->has_rvar && !out[2]))
		return INGOT_EINVAL;
	for (ch = c0; ch < c1; ch++) {
		double in_mean = ingot_ldf(p->m_dtype, in[3], ch);
		double in_var = ingot_ldf(p->v_dtype, in[4], ch);
		double mean = in_mean, var = in_var, a;
		if (p->training)
			nrm_stats(p->dtype, in[0], ch * p->inner, p->n, plane, p->inner, &mean, &var);
		a = ingot_ldf(p->s_dtype, in[1], ch) / sqrt(var + (double)p->epsilon);
		nrm_affine(p->dtype, in[0], out[0], ch * p->inner, p->n, plane, p->inner, mean, a,
		           ingot_ldf(p->b_dtype, in[2], ch));
		if (p->has_rmean)
			ingot_stf(p->m_dtype, out[1], ch,
			       p->training ? in_mean * mom + mean * (1.0 - mom) : in_mean);
		if (p->has_rvar)
			ingot_stf(p->v_dtype, out[2], ch,
			       p->training ? in_var * mom + var * (1.0 - mom) : in_var);
	}
	return INGOT_OK;
}

INGOT_KERNEL int ingot_instancenorm(const void *params, const void *const *in,
                                    void *const *out, void *scratch, int task, int n_tasks)
{
	const ingot_instancenorm_params *p = (const ingot_instancenorm_params *)params;
	int64_t q0, q1, q;
	(void)scratch;
	if (p->c < 1 || nrm_share(p->n * p->c, task, n_tasks, &q0, &q1) ||
	    !ingot_dtype_is_float(p->dtype))
		return INGOT_EINVAL;
	if (q0 >= q1)
		return INGOT_OK;
	if (!in[0] || !in[1] || !in[2] || !out[0])
		return INGOT_EINVAL;
	for (q = q0; q < q1; q++) {
		int64_t ch = q % p->c;
		double mean, var, a;
		nrm_stats(p->dtype, in[0], q * p->inner, 1, 0, p->inner, &mean, &var);
		a = ingot_ldf(p->dtype, in[1], ch) / sqrt(var + (double)p->epsilon);
		nrm_affine(p->dtype, in[0], out[0], q * p->inner, 1, 0, p->inner, mean, a,
		           ingot_ldf(p->dtype, in[2], ch));
	}
	return INGOT_OK;
}

INGOT_KERNEL int ingot_layernorm(const void *params, const void *const *in, void *const *out,
                                 void *scratch, int task, int n_tasks)
{
	const ingot_layernorm_params *p = (const ingot_layernorm_params *)params;
	int64_t r0, r1;
	(void)scratch;
	if (nrm_share(p->outer, task, n_tasks, &r0, &r1) || !ingot_dtype_is_float(p->dtype) ||
	    !ingot_dtype_is_float(p->stash) || p->nrank < 0 || p->nrank > INGOT_MAX_RANK)
		return INGOT_EINVAL;
	if (r0 >= r1)
		return INGOT_OK;
	if (!in[0] || !in[1] || !out[0] || (p->has_bias && !in[2]) || (p->has_mean && !out[1]) ||
	    (p->has_inv && !out[2]))
		return INGOT_EINVAL;
	switch (p->dtype) {
	case INGOT_DT_F32: nrm_layernorm_f32(p, in, out, r0, r1); break;
	case INGOT_DT_F64: nrm_layernorm_f64(p, in, out, r0, r1); break;
	case INGOT_DT_F16: nrm_layernorm_f16(p, in, out, r0, r1); break;
	default: nrm_layernorm_bf16(p, in, out, r0, r1); break;
	}
	return INGOT_OK;
}

INGOT_KERNEL int ingot_softmax(const void *params, const void *const *in, void *const *out,
                               void *scratch, int task, int n_tasks)
{
	const ingot_softmax_params *p = (const ingot_softmax_params *)params;
	int64_t r0, r1;
	(void)scratch;
	if (p->inner < 0 || nrm_share(p->outer * p->inner, task, n_tasks, &r0, &r1) ||
	    !ingot_dtype_is_float(p->dtype))
		return INGOT_EINVAL;
	if (r0 >= r1)
		return INGOT_OK;
	if (!in[0] || !out[0])
		return INGOT_EINVAL;
	switch (p->dtype) {
	case INGOT_DT_F32: nrm_softmax_f32(p, in[0], out[0], r0, r1); break;
	case INGOT_DT_F64: nrm_softmax_f64(p, in[0], out[0], r0, r1); break;
	case INGOT_DT_F16: nrm_softmax_f16(p, in[0], out[0], r0, r1); break;
	default: nrm_softmax_bf16(p, in[0], out[0], r0, r1); break;
	}
	return INGOT_OK;
}
