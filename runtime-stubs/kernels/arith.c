/* arith.c — reference kernels of the math and matrix odds and ends (see arith.h).
 *
 * Elements travel through a few accessors: floats as double (float16/bfloat16 via
 * float), integers as uint64 two's-complement bits (arithmetic wraps there, no
 * signed-overflow UB) or as int64 where the sign matters (Mod, Sign). Narrow stores go
 * through unsigned pointers, so truncation is defined. Unary math on float and double
 * uses the matching libm functions.
 */
#include "arith.h"
#include "ewmath.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* This task's share [*lo, *hi) of n items. */
static INGOT_UNUSED void ar_range(int64_t n, int task, int n_tasks, int64_t *lo, int64_t *hi)
{
	if (n_tasks < 1)
		n_tasks = 1;
	*lo = n * task / n_tasks;
	*hi = n * (task + 1) / n_tasks;
}

static INGOT_UNUSED int ar_is_unsigned(int64_t dt)
{
	return dt == INGOT_DT_U8 || dt == INGOT_DT_U16 || dt == INGOT_DT_U32 || dt == INGOT_DT_U64 ||
	       dt == INGOT_DT_BOOL;
}

/* ---- element accessors ---- */

/* Element i of a signed integer dtype (or an unsigned one narrower than 64 bits). */
static INGOT_UNUSED int64_t ar_lds(int64_t dt, const void *p, int64_t i)
{
	switch (dt) {
	case INGOT_DT_I8: return ((const int8_t *)p)[i];
	case INGOT_DT_I16: return ((const int16_t *)p)[i];
	case INGOT_DT_I32: return ((const int32_t *)p)[i];
	case INGOT_DT_I64: return ((const int64_t *)p)[i];
	case INGOT_DT_U8: return ((const uint8_t *)p)[i];
	case INGOT_DT_U16: return ((const uint16_t *)p)[i];
	case INGOT_DT_U32: return ((const uint32_t *)p)[i];
	case INGOT_DT_BOOL: return ((const uint8_t *)p)[i] != 0;
	default: return 0;
	}
}

/* Element i of an integer dtype as two's-complement bits (signed ones sign-extended). */
static INGOT_UNUSED uint64_t ar_ldu(int64_t dt, const void *p, int64_t i)
{
	if (dt == INGOT_DT_U64)
		return ((const uint64_t *)p)[i];
	return (uint64_t)ar_lds(dt, p, i);
}

/* Stores the low bits of v as element i of an integer dtype (bool: v != 0). */
static INGOT_UNUSED void ar_stu(int64_t dt, void *p, int64_t i, uint64_t v)
{
	switch (dt) {
	case INGOT_DT_I8: case INGOT_DT_U8: ((uint8_t *)p)[i] = (uint8_t)v; break;
	case INGOT_DT_I16: case INGOT_DT_U16: ((uint16_t *)p)[i] = (uint16_t)v; break;
	case INGOT_DT_I32: case INGOT_DT_U32: ((uint32_t *)p)[i] = (uint32_t)v; break;
	case INGOT_DT_I64: case INGOT_DT_U64: ((uint64_t *)p)[i] = v; break;
	case INGOT_DT_BOOL: ((uint8_t *)p)[i] = v != 0; break;
	default: break;
	}
}

/* double -> float without the UB of out-of-range conversions (overflow gives inf). */
static INGOT_UNUSED float ar_f64_to_f32(double v)
{
	if (v > (double)FLT_MAX)
		return v < 3.4028235677973366e38 ? FLT_MAX : HUGE_VALF;
	if (v < -(double)FLT_MAX)
		return v > -3.4028235677973366e38 ? -FLT_MAX : -HUGE_VALF;
	return (float)v;
}

/* double -> integer bits: truncates toward zero, saturates to int64/uint64, NaN is 0. */
static INGOT_UNUSED uint64_t ar_f64_to_bits(double v, int is_unsigned)
{
	if (v != v)
		return 0;
	if (is_unsigned && v >= 0)
		return v >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)v;
	if (v >= 9223372036854775808.0)
		return (uint64_t)INT64_MAX;
	if (v <= -9223372036854775808.0)
		return (uint64_t)INT64_MIN;
	return (uint64_t)(int64_t)v;
}

/* Stores v as element i of any numeric dtype (or bool: v != 0). */
static INGOT_UNUSED void ar_std(int64_t dt, void *p, int64_t i, double v)
{
	switch (dt) {
	case INGOT_DT_F32: ((float *)p)[i] = ar_f64_to_f32(v); break;
	case INGOT_DT_F64: ((double *)p)[i] = v; break;
	case INGOT_DT_F16: ((uint16_t *)p)[i] = ingot_f32_to_f16(ar_f64_to_f32(v)); break;
	case INGOT_DT_BF16: ((uint16_t *)p)[i] = ingot_f32_to_bf16(ar_f64_to_f32(v)); break;
	case INGOT_DT_BOOL: ((uint8_t *)p)[i] = v != 0; break;
	default: ar_stu(dt, p, i, ar_f64_to_bits(v, ar_is_unsigned(dt))); break;
	}
}

/* ---- unary math ---- */

/* One function body for float and double: M(fn) names the libm function of T, P
 * ewmath.h's prefix for T (Gelu). */
#define AR_MF(fn) fn##f
#define AR_MD(fn) fn
#define AR_UNARY_DEF(NAME, T, M, P) \
static INGOT_UNUSED T NAME(int64_t op, T x, T alpha, T beta) \
{ \
	T r; \
	switch (op) { \
	case INGOT_MU_SIN: return M(sin)(x); \
	case INGOT_MU_COS: return M(cos)(x); \
	case INGOT_MU_TAN: return M(tan)(x); \
	case INGOT_MU_ASIN: return M(asin)(x); \
	case INGOT_MU_ACOS: return M(acos)(x); \
	case INGOT_MU_ATAN: return M(atan)(x); \
	case INGOT_MU_SINH: return M(sinh)(x); \
	case INGOT_MU_COSH: return M(cosh)(x); \
	case INGOT_MU_ASINH: return M(asinh)(x); \
	case INGOT_MU_ACOSH: return M(acosh)(x); \
	case INGOT_MU_ATANH: return M(atanh)(x); \
	case INGOT_MU_SIGN: return x > 0 ? (T)1 : x < 0 ? (T)-1 : x;   /* keeps 0 and NaN */ \
	case INGOT_MU_ROUND:   /* half to even, whatever the FPU rounding mode */ \
		r = M(floor)(x); \
		if (x - r > (T)0.5 || (x - r == (T)0.5 && M(fmod)(r, (T)2) != 0)) \
			r += 1; \
		return M(copysign)(r, x); \
	case INGOT_MU_CELU: \
		r = alpha * M(expm1)(x / alpha); \
		return (x > 0 ? x : 0) + (r < 0 ? r : 0); \
	case INGOT_MU_MISH: return x * M(tanh)(M(log1p)(M(exp)(x))); \
	case INGOT_MU_GELU: return P##gelu(x); \
	case INGOT_MU_GELU_TANH: return P##gelu_tanh(x); \
	case INGOT_MU_THRESHOLDED_RELU: return x > alpha ? x : 0; \
	case INGOT_MU_SHRINK: return x < -alpha ? x + beta : x > alpha ? x - beta : 0; \
	default: return x; \
	} \
}
AR_UNARY_DEF(ar_unary_f, float, AR_MF, ingot_ewf_)
AR_UNARY_DEF(ar_unary_d, double, AR_MD, ingot_ewd_)

INGOT_KERNEL int ingot_math_unary(const void *params, const void *const *in, void *const *out,
                                  void *scratch, int task, int n_tasks)
{
	const ingot_math_unary_params *p = (const ingot_math_unary_params *)params;
	const void *x = in[0];
	void *y = out[0];
	int64_t i, lo, hi, op = p->op, dt = p->dtype;
	float a = p->alpha, b = p->beta;
	(void)scratch;
	ar_range(p->n, task, n_tasks, &lo, &hi);
	if (op == INGOT_MU_ISNAN || op == INGOT_MU_ISINF) {
		int pos = (p->flags & 1) != 0, neg = (p->flags & 2) != 0;
		uint8_t *q = (uint8_t *)y;
		for (i = lo; i < hi; i++) {
			double v = ingot_ld_num(dt, x, i);
			if (op == INGOT_MU_ISNAN)
				q[i] = v != v;
			else
				q[i] = (pos && v > DBL_MAX) || (neg && v < -DBL_MAX);
		}
		return INGOT_OK;
	}
	switch (dt) {
	case INGOT_DT_F32: {
		const float *s = (const float *)x;
		float *d = (float *)y;
		for (i = lo; i < hi; i++)
			d[i] = ar_unary_f(op, s[i], a, b);
		break;
	}
	case INGOT_DT_F64: {
		const double *s = (const double *)x;
		double *d = (double *)y;
		for (i = lo; i < hi; i++)
			d[i] = ar_unary_d(op, s[i], (double)a, (double)b);
		break;
	}
	case INGOT_DT_F16: case INGOT_DT_BF16: {
		const uint16_t *s = (const uint16_t *)x;
		uint16_t *d = (uint16_t *)y;
		for (i = lo; i < hi; i++) {
			float v = dt == INGOT_DT_F16 ? ingot_f16_to_f32(s[i]) : ingot_bf16_to_f32(s[i]);
			v = ar_unary_f(op, v, a, b);
			d[i] = dt == INGOT_DT_F16 ? ingot_f32_to_f16(v) : ingot_f32_to_bf16(v);
		}
		break;
	}
	default:                             /* integers: Sign and Shrink */
		for (i = lo; i < hi; i++) {
			if (op == INGOT_MU_SIGN) {
				if (ar_is_unsigned(dt)) {
					ar_stu(dt, y, i, ar_ldu(dt, x, i) != 0);
				} else {
					int64_t v = ar_lds(dt, x, i);
					ar_stu(dt, y, i, (uint64_t)(int64_t)(v > 0 ? 1 : v < 0 ? -1 : 0));
				}
			} else {                     /* Shrink: computed in double, truncated back */
				double v = ingot_ld_num(dt, x, i), l = (double)a;
				ar_std(dt, y, i, v < -l ? v + (double)b : v > l ? v - (double)b : 0);
			}
		}
		break;
	}
	return INGOT_OK;
}

/* ---- broadcasting binary: Mod, BitShift, Bitwise*, PRelu ---- */

/* Multi-index of output element i and the matching offsets into a and b. */
static INGOT_UNUSED void ar_seek2(int64_t i, int rank, const int64_t *dims, const int64_t *sa,
                                  const int64_t *sb, int64_t *idx, int64_t *oa, int64_t *ob)
{
	int d;
	*oa = *ob = 0;
	for (d = rank - 1; d >= 0; d--) {
		idx[d] = dims[d] ? i % dims[d] : 0;
		i = dims[d] ? i / dims[d] : 0;
		*oa += idx[d] * sa[d];
		*ob += idx[d] * sb[d];
	}
}

/* Advances the row-major multi-index by one element, and the offsets with it. */
static INGOT_UNUSED void ar_step2(int rank, const int64_t *dims, const int64_t *sa,
                                  const int64_t *sb, int64_t *idx, int64_t *oa, int64_t *ob)
{
	int d;
	for (d = rank - 1; d >= 0; d--) {
		idx[d]++;
		*oa += sa[d];
		*ob += sb[d];
		if (idx[d] < dims[d])
			return;
		*oa -= sa[d] * dims[d];
		*ob -= sb[d] * dims[d];
		idx[d] = 0;
	}
}

static INGOT_UNUSED double ar_mod_f(int64_t op, double a, double b)
{
	double r;
	if (op == INGOT_AB_PRELU)
		return a < 0 ? a * b : a;
	r = fmod(a, b);
	if (op == INGOT_AB_FMOD || b == 0 || r != r)
		return r;
	if (r != 0) {
		if ((b < 0) != (r < 0))
			r += b;
	} else {
		r = copysign(0.0, b);            /* numpy: a zero remainder takes b's sign */
	}
	return r;
}

static INGOT_UNUSED uint64_t ar_binary_s(int64_t op, int64_t a, int64_t b)
{
	int64_t r;
	if (op == INGOT_AB_PRELU)
		return a < 0 ? (uint64_t)a * (uint64_t)b : (uint64_t)a;
	if (b == 0 || b == -1)               /* x % -1 is 0; avoids INT64_MIN % -1 */
		return 0;
	r = a % b;
	if (op == INGOT_AB_MOD && r != 0 && (r < 0) != (b < 0))
		r += b;
	return (uint64_t)r;
}

static INGOT_UNUSED uint64_t ar_binary_u(int64_t op, uint64_t a, uint64_t b)
{
	switch (op) {
	case INGOT_AB_SHL: return b < 64 ? a << b : 0;
	case INGOT_AB_SHR: return b < 64 ? a >> b : 0;
	case INGOT_AB_PRELU: return a;
	case INGOT_AB_AND: return a & b;
	case INGOT_AB_OR: return a | b;
	case INGOT_AB_XOR: return a ^ b;
	case INGOT_AB_NOT: return ~a;
	default: return b ? a % b : 0;
	}
}

INGOT_KERNEL int ingot_arith_binary(const void *params, const void *const *in,
                                    void *const *out, void *scratch, int task, int n_tasks)
{
	const ingot_arith_binary_params *p = (const ingot_arith_binary_params *)params;
	int64_t i, lo, hi, oa, ob, idx[INGOT_MAX_RANK], dt = p->dtype, op = p->op;
	const void *a = in[0], *b = op == INGOT_AB_NOT ? in[0] : in[1];
	void *y = out[0];
	/* bitwise ops see the bits, sign-extended and truncated back, whatever the sign */
	int bits = ar_is_unsigned(dt) || op == INGOT_AB_AND || op == INGOT_AB_OR ||
	           op == INGOT_AB_XOR || op == INGOT_AB_NOT;
	int rank = (int)p->rank;
	(void)scratch;
	if (rank < 0 || rank > INGOT_MAX_RANK)
		return INGOT_EINVAL;
	ar_range(p->n, task, n_tasks, &lo, &hi);
	if (lo >= hi)
		return INGOT_OK;
	ar_seek2(lo, rank, p->dims, p->sa, p->sb, idx, &oa, &ob);
	for (i = lo; i < hi; i++) {
		if (ingot_dtype_is_float(dt))
			ar_std(dt, y, i, ar_mod_f(op, ingot_ldf(dt, a, oa), ingot_ldf(dt, b, ob)));
		else if (bits)
			ar_stu(dt, y, i, ar_binary_u(op, ar_ldu(dt, a, oa), ar_ldu(dt, b, ob)));
		else
			ar_stu(dt, y, i, ar_binary_s(op, ar_lds(dt, a, oa), ar_lds(dt, b, ob)));
		ar_step2(rank, p->dims, p->sa, p->sb, idx, &oa, &ob);
	}
	return INGOT_OK;
}

/* ---- Hardmax, CumSum ---- */

INGOT_KERNEL int ingot_hardmax(const void *params, const void *const *in, void *const *out,
                               void *scratch, int task, int n_tasks)
{
	const ingot_hardmax_params *p = (const ingot_hardmax_params *)params;
	int64_t r, lo, hi, k, inner = p->inner, len = p->len;
	(void)scratch;
	ar_range(p->outer * inner, task, n_tasks, &lo, &hi);
	for (r = lo; r < hi; r++) {
		int64_t base = (r / inner) * len * inner + r % inner, best = 0;
		double bv = len > 0 ? ingot_ld_num(p->dtype, in[0], base) : 0;
		for (k = 1; k < len; k++) {
			double v = ingot_ld_num(p->dtype, in[0], base + k * inner);
			if (v > bv || (v != v && bv == bv)) {   /* the first NaN wins, as in numpy */
				bv = v;
				best = k;
			}
		}
		for (k = 0; k < len; k++)
			ar_std(p->dtype, out[0], base + k * inner, k == best ? 1.0 : 0.0);
	}
	return INGOT_OK;
}

INGOT_KERNEL int ingot_cumsum(const void *params, const void *const *in, void *const *out,
                              void *scratch, int task, int n_tasks)
{
	const ingot_cumsum_params *p = (const ingot_cumsum_params *)params;
	int64_t r, lo, hi, k, inner = p->inner, len = p->len, dt = p->dtype;
	(void)scratch;
	ar_range(p->outer * inner, task, n_tasks, &lo, &hi);
	for (r = lo; r < hi; r++) {
		int64_t base = (r / inner) * len * inner + r % inner;
		int64_t step = p->reverse ? -inner : inner;
		int64_t at = p->reverse ? base + (len - 1) * inner : base;
		const int prod = p->prod != 0;
		double fa = prod;
		float sa = (float)prod;
		uint64_t ua = (uint64_t)prod;
		for (k = 0; k < len; k++, at += step) {
			if (dt == INGOT_DT_F64) {
				double v = ((const double *)in[0])[at], next = prod ? fa * v : fa + v;
				((double *)out[0])[at] = p->exclusive ? fa : next;
				fa = next;
			} else if (ingot_dtype_is_float(dt)) {
				/* float accumulates in float; float16/bfloat16 round after each step */
				float v = (float)ingot_ld_num(dt, in[0], at), next = prod ? sa * v : sa + v;
				if (dt == INGOT_DT_F16)
					next = ingot_f16_to_f32(ingot_f32_to_f16(next));
				else if (dt == INGOT_DT_BF16)
					next = ingot_bf16_to_f32(ingot_f32_to_bf16(next));
				ar_std(dt, out[0], at, (double)(p->exclusive ? sa : next));
				sa = next;
			} else {
				uint64_t v = ar_ldu(dt, in[0], at), next = prod ? ua * v : ua + v;
				ar_stu(dt, out[0], at, p->exclusive ? ua : next);
				ua = next;
			}
		}
	}
	return INGOT_OK;
}

/* ---- Det ---- */

INGOT_KERNEL int ingot_det(const void *params, const void *const *in, void *const *out,
                           void *scratch, int task, int n_tasks)
{
	const ingot_det_params *p = (const ingot_det_params *)params;
	int64_t b, lo, hi, m = p->m, i, j, k;
	ar_range(p->batch, task, n_tasks, &lo, &hi);
	if (m > 0 && !scratch)
		return INGOT_EINVAL;
	for (b = lo; b < hi; b++) {
		double *a, det = 1;
		if (m == 0) {                    /* the empty product */
			ar_std(p->dtype, out[0], b, 1.0);
			continue;
		}
		a = (double *)scratch + b * m * m;
		for (i = 0; i < m * m; i++)
			a[i] = ingot_ld_num(p->dtype, in[0], b * m * m + i);
		for (k = 0; k < m && det != 0; k++) {
			int64_t piv = k;
			for (i = k + 1; i < m; i++)
				if (fabs(a[i * m + k]) > fabs(a[piv * m + k]))
					piv = i;
			if (a[piv * m + k] == 0) {
				det = 0;
				break;
			}
			if (piv != k) {
				for (j = 0; j < m; j++) {
					double t = a[k * m + j];
					a[k * m + j] = a[piv * m + j];
					a[piv * m + j] = t;
				}
				det = -det;
			}
			det *= a[k * m + k];
			for (i = k + 1; i < m; i++) {
				double f = a[i * m + k] / a[k * m + k];
				for (j = k + 1; j < m; j++)
					a[i * m + j] -= f * a[k * m + j];
			}
		}
		ar_std(p->dtype, out[0], b, det);
	}
	return INGOT_OK;
}

/* ---- Einsum ---- */

/* Sum over t < len of the product of the operands at off[k] + t * st[k] (floats). */
static INGOT_UNUSED double ar_dot_f(int64_t dt, int n_in, const void *const *in,
                                    const int64_t *off, const int64_t *st, int64_t len)
{
	double s = 0;
	int64_t t;
	int k;
	if (dt == INGOT_DT_F32 && n_in == 2) {       /* the common case: a plain dot product */
		const float *a = (const float *)in[0] + off[0], *b = (const float *)in[1] + off[1];
		for (t = 0; t < len; t++)
			s += (double)a[t * st[0]] * (double)b[t * st[1]];
		return s;
	}
	if (dt == INGOT_DT_F64 && n_in == 2) {
		const double *a = (const double *)in[0] + off[0], *b = (const double *)in[1] + off[1];
		for (t = 0; t < len; t++)
			s += a[t * st[0]] * b[t * st[1]];
		return s;
	}
	for (t = 0; t < len; t++) {
		double v = 1;
		for (k = 0; k < n_in; k++)
			v *= ingot_ld_num(dt, in[k], off[k] + t * st[k]);
		s += v;
	}
	return s;
}

/* The same for integers, wrapping in uint64. */
static INGOT_UNUSED uint64_t ar_dot_u(int64_t dt, int n_in, const void *const *in,
                                      const int64_t *off, const int64_t *st, int64_t len)
{
	uint64_t s = 0;
	int64_t t;
	int k;
	for (t = 0; t < len; t++) {
		uint64_t v = 1;
		for (k = 0; k < n_in; k++)
			v *= ar_ldu(dt, in[k], off[k] + t * st[k]);
		s += v;
	}
	return s;
}

INGOT_KERNEL int ingot_einsum(const void *params, const void *const *in, void *const *out,
                              void *scratch, int task, int n_tasks)
{
	const ingot_einsum_params *p = (const ingot_einsum_params *)params;
	const int64_t *st[INGOT_EINSUM_MAX_IN];
	int64_t o, lo, hi, n_out = 1, n_red = 1, r, j, k, dt = p->dtype, len = 1;
	int64_t inner_st[INGOT_EINSUM_MAX_IN];
	int n_in = (int)p->n_in, n_idx = (int)p->n_idx, n_oi = (int)p->n_out_idx;
	int is_f = ingot_dtype_is_float(dt), last;
	(void)scratch;
	if (n_in < 1 || n_in > INGOT_EINSUM_MAX_IN || n_idx > INGOT_EINSUM_MAX_IDX || n_oi < 0 ||
	    n_oi > n_idx)
		return INGOT_EINVAL;
	st[0] = p->st0;
	st[1] = p->st1;
	st[2] = p->st2;
	st[3] = p->st3;
	for (j = 0; j < n_oi; j++)
		n_out *= p->dims[j];
	/* the innermost summed index runs in ar_dot_*; the others step here */
	last = n_idx > n_oi ? n_idx - 1 : -1;
	for (k = 0; k < n_in; k++)
		inner_st[k] = last >= 0 ? st[k][last] : 0;
	if (last >= 0)
		len = p->dims[last];
	for (j = n_oi; j < last; j++)
		n_red *= p->dims[j];
	ar_range(n_out, task, n_tasks, &lo, &hi);
	for (o = lo; o < hi; o++) {
		int64_t off[INGOT_EINSUM_MAX_IN], idx[INGOT_EINSUM_MAX_IDX], rest = o;
		double fs = 0;
		uint64_t us = 0;
		for (k = 0; k < n_in; k++)
			off[k] = 0;
		for (j = n_oi - 1; j >= 0; j--) {
			int64_t v = rest % p->dims[j];
			rest /= p->dims[j];
			for (k = 0; k < n_in; k++)
				off[k] += v * st[k][j];
		}
		for (j = n_oi; j < n_idx; j++)
			idx[j] = 0;
		for (r = 0; r < n_red; r++) {
			if (is_f)
				fs += ar_dot_f(dt, n_in, in, off, inner_st, len);
			else
				us += ar_dot_u(dt, n_in, in, off, inner_st, len);
			for (j = last - 1; j >= n_oi; j--) {     /* next outer summed index */
				idx[j]++;
				for (k = 0; k < n_in; k++)
					off[k] += st[k][j];
				if (idx[j] < p->dims[j])
					break;
				for (k = 0; k < n_in; k++)
					off[k] -= st[k][j] * p->dims[j];
				idx[j] = 0;
			}
		}
		if (is_f)
			ar_std(dt, out[0], o, fs);
		else
			ar_stu(dt, out[0], o, us);
	}
	return INGOT_OK;
}

/* ---- Trilu, EyeLike, OneHot ---- */

INGOT_KERNEL int ingot_trilu(const void *params, const void *const *in, void *const *out,
                             void *scratch, int task, int n_tasks)
{
	const ingot_trilu_params *p = (const ingot_trilu_params *)params;
	int64_t r, lo, hi, cols = p->cols, es = p->esize;
	(void)scratch;
	if (cols == 0)
		return INGOT_OK;                 /* nothing to touch (the buffers may be NULL) */
	ar_range(p->batch * p->rows, task, n_tasks, &lo, &hi);
	for (r = lo; r < hi; r++) {
		const char *s = (const char *)in[0] + r * cols * es;
		char *d = (char *)out[0] + r * cols * es;
		int64_t i = p->rows ? r % p->rows : 0;
		/* the kept columns of row i are [cut, cols) (upper) or [0, cut) (lower) */
		int64_t cut = p->upper ? i + p->k : i + p->k + 1;
		cut = cut < 0 ? 0 : cut > cols ? cols : cut;
		if (p->upper) {
			memset(d, 0, (size_t)(cut * es));
			memcpy(d + cut * es, s + cut * es, (size_t)((cols - cut) * es));
		} else {
			memcpy(d, s, (size_t)(cut * es));
			memset(d + cut * es, 0, (size_t)((cols - cut) * es));
		}
	}
	return INGOT_OK;
}

INGOT_KERNEL int ingot_eye_like(const void *params, const void *const *in, void *const *out,
                                void *scratch, int task, int n_tasks)
{
	const ingot_eye_like_params *p = (const ingot_eye_like_params *)params;
	int64_t i, lo, hi;
	(void)in;
	(void)scratch;
	ar_range(p->rows * p->cols, task, n_tasks, &lo, &hi);
	for (i = lo; i < hi; i++)
		ar_std(p->dtype, out[0], i, i % p->cols - i / p->cols == p->k ? 1.0 : 0.0);
	return INGOT_OK;
}

INGOT_KERNEL int ingot_one_hot(const void *params, const void *const *in, void *const *out,
                               void *scratch, int task, int n_tasks)
{
	const ingot_one_hot_params *p = (const ingot_one_hot_params *)params;
	int64_t i, lo, hi, depth = p->depth, inner = p->inner, es = p->esize, dt = p->idx_dtype;
	const char *vals = (const char *)in[2];
	(void)scratch;
	if (depth < 1 || inner < 1)
		return INGOT_OK;                 /* an empty output */
	ar_range(p->outer * depth * inner, task, n_tasks, &lo, &hi);
	for (i = lo; i < hi; i++) {
		int64_t o = i / (depth * inner), d = i / inner % depth, at = o * inner + i % inner;
		int64_t idx = -1 - depth;         /* out of range unless set below */
		if (ingot_dtype_is_float(dt)) {
			double v = ingot_ld_num(dt, in[0], at);
			if (v > -(double)depth - 1 && v < (double)depth)
				idx = (int64_t)v;
		} else if (dt != INGOT_DT_U64 || ((const uint64_t *)in[0])[at] <= (uint64_t)INT64_MAX) {
			idx = dt == INGOT_DT_U64 ? (int64_t)((const uint64_t *)in[0])[at]
			                         : ar_lds(dt, in[0], at);
		}
		if (idx < 0 && p->wrap && idx >= -depth)
			idx += depth;
		memcpy((char *)out[0] + i * es, vals + (idx == d ? es : 0), (size_t)es);
	}
	return INGOT_OK;
}
