/* elementwise.c — reference kernels of the elementwise ops (see elementwise.h).
 *
 * To serve every dtype without a loop per op and dtype, elements travel in chunks
 * through one of four computation classes: float (f32, f16, bf16), double, int64
 * (signed ints) and uint64 (unsigned ints, bool). Loading widens, storing narrows;
 * integer arithmetic wraps in uint64 and is truncated on store, which gives the same
 * bits as wrapping arithmetic in the narrow type, without signed-overflow UB.
 */
#include "elementwise.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "ewmath.h"

#define EW_CHUNK 64

enum { EW_CL_F32, EW_CL_F64, EW_CL_I64, EW_CL_U64 };

typedef union ew_buf {
	float f[EW_CHUNK];
	double d[EW_CHUNK];
	int64_t i[EW_CHUNK];
	uint64_t u[EW_CHUNK];
} ew_buf;

static INGOT_UNUSED int ew_class(int64_t dt)
{
	switch (dt) {
	case INGOT_DT_F32: case INGOT_DT_F16: case INGOT_DT_BF16: return EW_CL_F32;
	case INGOT_DT_F8E4M3FN: case INGOT_DT_F8E4M3FNUZ: case INGOT_DT_F8E5M2:
	case INGOT_DT_F8E5M2FNUZ: case INGOT_DT_F4E2M1: case INGOT_DT_F8E8M0: return EW_CL_F32;
	case INGOT_DT_F64: return EW_CL_F64;
	case INGOT_DT_I8: case INGOT_DT_I16: case INGOT_DT_I32: case INGOT_DT_I64: return EW_CL_I64;
	case INGOT_DT_I4: case INGOT_DT_I2: return EW_CL_I64;
	default: return EW_CL_U64;
	}
}

/* This task's share [*lo, *hi) of n elements. */
static INGOT_UNUSED void ew_range(int64_t n, int task, int n_tasks, int64_t *lo, int64_t *hi)
{
	if (n_tasks < 1)
		n_tasks = 1;
	*lo = n * task / n_tasks;
	*hi = n * (task + 1) / n_tasks;
}

/* ---- conversions between classes (defined for every input value) ---- */

static INGOT_UNUSED float ew_f64_to_f32(double v)
{
	/* out of float range is UB in C; IEEE rounding would give +-inf past FLT_MAX+ulp/2 */
	if (v > (double)FLT_MAX)
		return v < 3.4028235677973366e38 ? FLT_MAX : HUGE_VALF;
	if (v < -(double)FLT_MAX)
		return v > -3.4028235677973366e38 ? -FLT_MAX : -HUGE_VALF;
	return (float)v;
}

static INGOT_UNUSED int64_t ew_f_to_i64(double v)
{
	if (v != v)
		return 0;
	if (v >= 9223372036854775808.0)
		return INT64_MAX;
	if (v <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)v;                 /* truncates toward zero */
}

static INGOT_UNUSED uint64_t ew_f_to_u64(double v)
{
	if (v != v)
		return 0;
	if (v < 0)                         /* as numpy on common targets: via int64, wrapping */
		return (uint64_t)ew_f_to_i64(v);
	if (v >= 18446744073709551616.0)
		return UINT64_MAX;
	return (uint64_t)v;
}

/* dst (class to) = src (class from), len elements; src and dst must not overlap. */
static INGOT_UNUSED void ew_convert(int from, int to, const void *src, void *dst, int len)
{
	int k;
#define EW_CV(DT, ST, expr) { const ST *s = (const ST *)src; DT *d = (DT *)dst; \
	for (k = 0; k < len; k++) { ST x = s[k]; d[k] = (DT)(expr); } } break;
	switch (to * 4 + from) {
	case EW_CL_F32 * 4 + EW_CL_F32: EW_CV(float, float, x)
	case EW_CL_F32 * 4 + EW_CL_F64: EW_CV(float, double, ew_f64_to_f32(x))
	case EW_CL_F32 * 4 + EW_CL_I64: EW_CV(float, int64_t, x)
	case EW_CL_F32 * 4 + EW_CL_U64: EW_CV(float, uint64_t, x)
	case EW_CL_F64 * 4 + EW_CL_F32: EW_CV(double, float, x)
	case EW_CL_F64 * 4 + EW_CL_F64: EW_CV(double, double, x)
	case EW_CL_F64 * 4 + EW_CL_I64: EW_CV(double, int64_t, x)
	case EW_CL_F64 * 4 + EW_CL_U64: EW_CV(double, uint64_t, x)
	case EW_CL_I64 * 4 + EW_CL_F32: EW_CV(int64_t, float, ew_f_to_i64((double)x))
	case EW_CL_I64 * 4 + EW_CL_F64: EW_CV(int64_t, double, ew_f_to_i64(x))
	case EW_CL_I64 * 4 + EW_CL_I64: EW_CV(int64_t, int64_t, x)
	case EW_CL_I64 * 4 + EW_CL_U64: EW_CV(int64_t, uint64_t, x)
	case EW_CL_U64 * 4 + EW_CL_F32: EW_CV(uint64_t, float, ew_f_to_u64((double)x))
	case EW_CL_U64 * 4 + EW_CL_F64: EW_CV(uint64_t, double, ew_f_to_u64(x))
	case EW_CL_U64 * 4 + EW_CL_I64: EW_CV(uint64_t, int64_t, x)
	default: EW_CV(uint64_t, uint64_t, x)
	}
#undef EW_CV
}

/* ---- loading (widening, strided) and storing (narrowing, contiguous) ---- */

/* b = len elements of dtype dt at base[off + k * stride], in dt's class. */
static INGOT_UNUSED void ew_load(int64_t dt, const void *base, int64_t off, int64_t stride,
                                 int len, ew_buf *b)
{
	int k;
#define EW_LD(T, F, W, expr) { const T *p = (const T *)base + off; \
	for (k = 0; k < len; k++) { T x = p[k * stride]; b->F[k] = (W)(expr); } } break;
	switch (dt) {
	case INGOT_DT_F32: EW_LD(float, f, float, x)
	case INGOT_DT_F16: EW_LD(uint16_t, f, float, ingot_f16_to_f32(x))
	case INGOT_DT_BF16: EW_LD(uint16_t, f, float, ingot_bf16_to_f32(x))
	case INGOT_DT_F64: EW_LD(double, d, double, x)
	case INGOT_DT_I8: EW_LD(int8_t, i, int64_t, x)
	case INGOT_DT_I16: EW_LD(int16_t, i, int64_t, x)
	case INGOT_DT_I32: EW_LD(int32_t, i, int64_t, x)
	case INGOT_DT_I64: EW_LD(int64_t, i, int64_t, x)
	case INGOT_DT_U8: EW_LD(uint8_t, u, uint64_t, x)
	case INGOT_DT_U16: EW_LD(uint16_t, u, uint64_t, x)
	case INGOT_DT_U32: EW_LD(uint32_t, u, uint64_t, x)
	case INGOT_DT_U64: EW_LD(uint64_t, u, uint64_t, x)
	case INGOT_DT_F8E4M3FN: case INGOT_DT_F8E4M3FNUZ: case INGOT_DT_F8E5M2:
	case INGOT_DT_F8E5M2FNUZ: case INGOT_DT_F4E2M1: case INGOT_DT_F8E8M0:
		EW_LD(uint8_t, f, float, ingot_small_to_f32((int)dt, x))
	case INGOT_DT_I4: case INGOT_DT_I2: EW_LD(int8_t, i, int64_t, x)
	case INGOT_DT_U4: EW_LD(uint8_t, u, uint64_t, x & 15u)
	case INGOT_DT_U2: EW_LD(uint8_t, u, uint64_t, x & 3u)
	default: EW_LD(uint8_t, u, uint64_t, x != 0)         /* bool: any nonzero byte is true */
	}
#undef EW_LD
}

/* base[off + k] = src[k] (class data of dt's class) narrowed to dt (integers wrap,
 * bool is != 0). */
static INGOT_UNUSED void ew_store(int64_t dt, void *base, int64_t off, int len, const void *src)
{
	int k;
#define EW_ST(T, ST, expr) { T *p = (T *)base + off; const ST *s = (const ST *)src; \
	for (k = 0; k < len; k++) { ST x = s[k]; p[k] = (T)(expr); } } break;
	switch (dt) {
	case INGOT_DT_F32: EW_ST(float, float, x)
	case INGOT_DT_F16: EW_ST(uint16_t, float, ingot_f32_to_f16(x))
	case INGOT_DT_BF16: EW_ST(uint16_t, float, ingot_f32_to_bf16(x))
	case INGOT_DT_F64: EW_ST(double, double, x)
	case INGOT_DT_I8: EW_ST(int8_t, int64_t, x)
	case INGOT_DT_I16: EW_ST(int16_t, int64_t, x)
	case INGOT_DT_I32: EW_ST(int32_t, int64_t, x)
	case INGOT_DT_I64: EW_ST(int64_t, int64_t, x)
	case INGOT_DT_U8: EW_ST(uint8_t, uint64_t, x)
	case INGOT_DT_U16: EW_ST(uint16_t, uint64_t, x)
	case INGOT_DT_U32: EW_ST(uint32_t, uint64_t, x)
	case INGOT_DT_U64: EW_ST(uint64_t, uint64_t, x)
	case INGOT_DT_F8E4M3FN: case INGOT_DT_F8E4M3FNUZ: case INGOT_DT_F8E5M2:
	case INGOT_DT_F8E5M2FNUZ: case INGOT_DT_F4E2M1: case INGOT_DT_F8E8M0:
		EW_ST(uint8_t, float, ingot_f32_to_small((int)dt, x, 1))
	case INGOT_DT_I4: EW_ST(int8_t, int64_t, ingot_wrap_i4(x))
	case INGOT_DT_U4: EW_ST(uint8_t, uint64_t, x & 15u)
	case INGOT_DT_I2: EW_ST(int8_t, int64_t, ingot_wrap_i2(x))
	case INGOT_DT_U2: EW_ST(uint8_t, uint64_t, x & 3u)
	default: EW_ST(uint8_t, uint64_t, x != 0)
	}
#undef EW_ST
}

/* f32, f64, i64 and u64 are already class data: contiguous runs of them are used in
 * place, without a copy through a chunk buffer. */
static INGOT_UNUSED int ew_native(int64_t dt)
{
	return dt == INGOT_DT_F32 || dt == INGOT_DT_F64 || dt == INGOT_DT_I64 || dt == INGOT_DT_U64;
}

/* The class data of an input run: the input itself when native and contiguous,
 * else buf after loading. */
static INGOT_UNUSED const void *ew_src(int64_t dt, const void *base, int64_t off,
                                       int64_t stride, int len, ew_buf *buf)
{
	if (stride == 1 && ew_native(dt))
		return (const char *)base + off * (dt == INGOT_DT_F32 ? 4 : 8);
	ew_load(dt, base, off, stride, len, buf);
	return buf;
}

/* Where to compute an output run: in place when native, else buf (see ew_put). */
static INGOT_UNUSED void *ew_dst(int64_t dt, void *base, int64_t off, ew_buf *buf)
{
	if (ew_native(dt))
		return (char *)base + off * (dt == INGOT_DT_F32 ? 4 : 8);
	return buf;
}

static INGOT_UNUSED void ew_put(int64_t dt, void *base, int64_t off, int len, const void *r)
{
	if (!ew_native(dt))
		ew_store(dt, base, off, len, r);
}

/* In place (the memory planner lets unary, binary and clip write over an input of
 * the same size): the loops' pointers are restrict, so a run is computed into buf
 * and copied out; ew_dst_io/ew_put_io are ew_dst/ew_put with that case. */
static INGOT_UNUSED void *ew_dst_io(int64_t dt, void *base, int64_t off, ew_buf *buf, int inplace)
{
	return inplace ? (void *)buf : ew_dst(dt, base, off, buf);
}

static INGOT_UNUSED void ew_put_io(int64_t dt, void *base, int64_t off, int len, const void *r,
                                   int inplace)
{
	if (inplace)
		ew_store(dt, base, off, len, r);
	else
		ew_put(dt, base, off, len, r);
}

/* ---- broadcasting: walking the output in runs along the innermost dim ---- */

static INGOT_UNUSED void ew_seek(int64_t i, int rank, const int64_t *dims, int64_t *idx)
{
	int d;
	for (d = rank - 1; d >= 0; d--) {
		idx[d] = i % dims[d];
		i /= dims[d];
	}
}

static INGOT_UNUSED int64_t ew_offset(int rank, const int64_t *idx, const int64_t *s)
{
	int64_t off = 0;
	int d;
	for (d = 0; d < rank; d++)
		off += idx[d] * s[d];
	return off;
}

/* Length of the next run from output element i (< hi) at idx, at most cap. */
static INGOT_UNUSED int ew_run(int rank, const int64_t *dims, const int64_t *idx, int64_t i,
                               int64_t hi, int cap)
{
	int64_t len = dims[rank - 1] - idx[rank - 1];
	if (len > hi - i)
		len = hi - i;
	return len > cap ? cap : (int)len;
}

/* Runs that never pass through a chunk buffer may be long (but fit an int). */
#define EW_DIRECT_CAP (1 << 30)

static INGOT_UNUSED void ew_advance(int rank, const int64_t *dims, int64_t *idx, int64_t len)
{
	int d;
	idx[rank - 1] += len;
	for (d = rank - 1; d > 0 && idx[d] >= dims[d]; d--) {
		idx[d] = 0;
		idx[d - 1]++;
	}
}

static INGOT_UNUSED int ew_bad_rank(int64_t rank)
{
	return rank < 1 || rank > INGOT_MAX_RANK;
}

/* Runs the body for each k in [0, len): in blocks of 8, whose constant trip count
 * lets gcc vectorize at -O2 (its cheap cost model refuses unknown counts), then the
 * tail. */
#define EW_LOOP(...) { int k0_ = 0, q_; \
	for (; k0_ + 8 <= len; k0_ += 8) \
		for (q_ = 0; q_ < 8; q_++) { int k = k0_ + q_; __VA_ARGS__ } \
	for (; k0_ < len; k0_++) { int k = k0_; __VA_ARGS__ } }

/* ---- unary ---- */

/* Float-class unary ops (ewtable.h's rows, ewmath.h), for float (EW_P(fn) =
 * ingot_ewf_<fn>) and double (ingot_ewd_<fn>). */
#define EW_UNARY_CASE(N, On, fn, R, U, A, PAR, S, V) INGOT_EW_IF_FLOAT_##R( \
	case INGOT_EW_##N: EW_U(INGOT_EW_CALL_##PAR(EW_P, fn)))
#define EW_UNARY_FLOAT \
	switch (p->op) { \
	INGOT_EW_TABLE(EW_UNARY_CASE) \
	default: return INGOT_EINVAL; \
	}

/* d = op(s) per class, as functions so that restrict (which gcc honours on
 * parameters) lets the loops vectorize; s and d do not overlap. */
#define EW_U(expr) EW_LOOP({ T x = s[k]; d[k] = (expr); }) break;
#define EW_UNARY_FN(NAME, TT, BODY) \
static INGOT_UNUSED int NAME(const ingot_unary_params *p, const TT *restrict s, \
                             TT *restrict d, int len) \
{ \
	typedef TT T; \
	T al = (T)p->alpha, be = (T)p->beta, ga = (T)p->gamma; \
	(void)al; (void)be; (void)ga; \
	BODY \
	return INGOT_OK; \
}
#define EW_P(fn) ingot_ewf_##fn
EW_UNARY_FN(ew_unary_f32, float, EW_UNARY_FLOAT)
#undef EW_P
#define EW_P(fn) ingot_ewd_##fn
EW_UNARY_FN(ew_unary_f64, double, EW_UNARY_FLOAT)
#undef EW_P
#undef EW_UNARY_CASE
EW_UNARY_FN(ew_unary_i64, int64_t,
	switch (p->op) {   /* negation in uint64: wraps instead of overflowing */
	case INGOT_EW_ABS: EW_U(x < 0 ? (T)(0u - (uint64_t)x) : x)
	case INGOT_EW_NEG: EW_U((T)(0u - (uint64_t)x))
	case INGOT_EW_RELU: EW_U(x < 0 ? 0 : x)
	default: return INGOT_EINVAL;
	})
EW_UNARY_FN(ew_unary_u64, uint64_t,
	switch (p->op) {
	case INGOT_EW_ABS: case INGOT_EW_RELU: EW_U(x)
	case INGOT_EW_NOT: EW_U(x ? 0u : 1u)
	case INGOT_EW_NEG: EW_U(0u - x)
	default: return INGOT_EINVAL;
	})
#undef EW_U
#undef EW_UNARY_FN

/* dst = op(src), class data of class cl. */
static INGOT_UNUSED int ew_unary_op(const ingot_unary_params *p, int cl, const void *src,
                                    void *dst, int len)
{
	switch (cl) {
	case EW_CL_F32: return ew_unary_f32(p, (const float *)src, (float *)dst, len);
	case EW_CL_F64: return ew_unary_f64(p, (const double *)src, (double *)dst, len);
	case EW_CL_I64: return ew_unary_i64(p, (const int64_t *)src, (int64_t *)dst, len);
	default: return ew_unary_u64(p, (const uint64_t *)src, (uint64_t *)dst, len);
	}
}
#undef EW_UNARY_FLOAT

INGOT_KERNEL int ingot_unary(const void *params, const void *const *in, void *const *out,
                             void *scratch, int task, int n_tasks)
{
	const ingot_unary_params *p = (const ingot_unary_params *)params;
	int inplace = in[0] == out[0];
	int cl = ew_class(p->dtype), cap = ew_native(p->dtype) && !inplace ? EW_DIRECT_CAP : EW_CHUNK;
	int64_t lo, hi, i;
	ew_buf a, r;
	(void)scratch;
	if (!in[0] || !out[0])
		return INGOT_EINVAL;
	ew_range(p->n, task, n_tasks, &lo, &hi);
	for (i = lo; i < hi; ) {
		int len = hi - i < cap ? (int)(hi - i) : cap, rc;
		const void *src = ew_src(p->dtype, in[0], i, 1, len, &a);
		void *dst = ew_dst_io(p->dtype, out[0], i, &r, inplace);
		rc = ew_unary_op(p, cl, src, dst, len);
		if (rc)
			return rc;
		ew_put_io(p->dtype, out[0], i, len, dst, inplace);
		i += len;
	}
	return INGOT_OK;
}

/* ---- binary ---- */

static INGOT_UNUSED int64_t ew_ipow(int64_t x, int64_t e)
{
	uint64_t r = 1, b = (uint64_t)x;
	if (e < 0)       /* 1 / x^-e truncated toward zero */
		return x == 1 ? 1 : x == -1 ? (e % 2 ? -1 : 1) : 0;
	while (e) {
		if (e & 1)
			r *= b;
		b *= b;
		e >>= 1;
	}
	return (int64_t)r;
}

static INGOT_UNUSED uint64_t ew_upow(uint64_t b, uint64_t e)
{
	uint64_t r = 1;
	while (e) {
		if (e & 1)
			r *= b;
		b *= b;
		e >>= 1;
	}
	return r;
}

/* C division truncates toward zero like ONNX; x / 0 is defined as 0, and
 * INT64_MIN / -1 wraps (narrower types were sign-extended, so only int64 can hit it). */
static INGOT_UNUSED int64_t ew_idiv(int64_t x, int64_t y)
{
	return y == 0 ? 0 : y == -1 ? (int64_t)(0u - (uint64_t)x) : x / y;
}

static INGOT_UNUSED uint64_t ew_udiv(uint64_t x, uint64_t y)
{
	return y == 0 ? 0 : x / y;
}

/* Comparisons, shared by all classes: 0/1 into the uint64 result. */
#define EW_COMPARE \
	case INGOT_EW_EQUAL: EW_B(ru, x == y) \
	case INGOT_EW_GREATER: EW_B(ru, x > y) \
	case INGOT_EW_GREATER_OR_EQUAL: EW_B(ru, x >= y) \
	case INGOT_EW_LESS: EW_B(ru, x < y) \
	case INGOT_EW_LESS_OR_EQUAL: EW_B(ru, x <= y)

/* Float ops (ewmath.h); NaN propagates through Max/Min like numpy. */
#define EW_BINARY_FLOAT(P) \
	switch (op) { \
	case INGOT_EW_ADD: case INGOT_EW_MEAN: EW_B(rt, P##add(x, y)) \
	case INGOT_EW_SUB: EW_B(rt, P##sub(x, y)) \
	case INGOT_EW_MUL: EW_B(rt, P##mul(x, y)) \
	case INGOT_EW_DIV: EW_B(rt, P##div(x, y)) \
	case INGOT_EW_POW: EW_B(rt, P##pow(x, y)) \
	case INGOT_EW_MAX: EW_B(rt, P##max(x, y)) \
	case INGOT_EW_MIN: EW_B(rt, P##min(x, y)) \
	EW_COMPARE \
	default: return INGOT_EINVAL; \
	}

/* Integer ops; T is int64_t or uint64_t, arithmetic wraps through uint64_t. */
#define EW_BINARY_INT(POW, DIV) \
	switch (op) { \
	case INGOT_EW_ADD: case INGOT_EW_MEAN: EW_B(rt, (T)((uint64_t)x + (uint64_t)y)) \
	case INGOT_EW_SUB: EW_B(rt, (T)((uint64_t)x - (uint64_t)y)) \
	case INGOT_EW_MUL: EW_B(rt, (T)((uint64_t)x * (uint64_t)y)) \
	case INGOT_EW_DIV: EW_B(rt, DIV(x, y)) \
	case INGOT_EW_POW: EW_B(rt, POW(x, y)) \
	case INGOT_EW_MAX: EW_B(rt, x > y ? x : y) \
	case INGOT_EW_MIN: EW_B(rt, x < y ? x : y) \
	case INGOT_EW_AND: EW_B(rt, x & y) \
	case INGOT_EW_OR: EW_B(rt, x | y) \
	case INGOT_EW_XOR: EW_B(rt, x ^ y) \
	EW_COMPARE \
	default: return INGOT_EINVAL; \
	}

/* r = op(a, b) per class, as functions with restrict parameters (see EW_UNARY_FN);
 * comparisons write 0/1 as uint64 through ru, everything else T through rt. */
#define EW_B(R, expr) EW_LOOP({ T x = xa[k], y = xb[k]; R[k] = (expr); }) break;
#define EW_BINARY_FN(NAME, TT, BODY) \
static INGOT_UNUSED int NAME(int64_t op, const TT *restrict xa, const TT *restrict xb, \
                             void *restrict r, int len) \
{ \
	typedef TT T; \
	T *rt = (T *)r; \
	uint64_t *ru = (uint64_t *)r; \
	BODY \
	return INGOT_OK; \
}
EW_BINARY_FN(ew_binary_f32, float, EW_BINARY_FLOAT(ingot_ewf_))
EW_BINARY_FN(ew_binary_f64, double, EW_BINARY_FLOAT(ingot_ewd_))
EW_BINARY_FN(ew_binary_i64, int64_t, EW_BINARY_INT(ew_ipow, ew_idiv))
EW_BINARY_FN(ew_binary_u64, uint64_t, EW_BINARY_INT(ew_upow, ew_udiv))
#undef EW_B
#undef EW_BINARY_FN

/* r = op(a, b), class data of class cl; r does not overlap a or b (a may be b). */
static INGOT_UNUSED int ew_binary_op(int64_t op, int cl, const void *pa, const void *pb,
                                     void *pr, int len)
{
	switch (cl) {
	case EW_CL_F32:
		return ew_binary_f32(op, (const float *)pa, (const float *)pb, pr, len);
	case EW_CL_F64:
		return ew_binary_f64(op, (const double *)pa, (const double *)pb, pr, len);
	case EW_CL_I64:
		return ew_binary_i64(op, (const int64_t *)pa, (const int64_t *)pb, pr, len);
	default:
		return ew_binary_u64(op, (const uint64_t *)pa, (const uint64_t *)pb, pr, len);
	}
}
#undef EW_COMPARE
#undef EW_BINARY_FLOAT
#undef EW_BINARY_INT

/* Pow with an exponent of another class (opset 12+): the result has a's class; an
 * integer base with a float exponent is computed in double and truncated. */
static INGOT_UNUSED int ew_pow_mixed(int cla, int clb, const void *pa, const void *pb,
                                     void *pr, int len)
{
	ew_buf t1, t2, t3;
	int rc;
	if ((cla == EW_CL_I64 || cla == EW_CL_U64) && (clb == EW_CL_F32 || clb == EW_CL_F64)) {
		ew_convert(cla, EW_CL_F64, pa, &t1, len);
		ew_convert(clb, EW_CL_F64, pb, &t2, len);
		rc = ew_binary_op(INGOT_EW_POW, EW_CL_F64, &t1, &t2, &t3, len);
		ew_convert(EW_CL_F64, cla, &t3, pr, len);
		return rc;
	}
	ew_convert(clb, cla, pb, &t1, len);
	return ew_binary_op(INGOT_EW_POW, cla, pa, &t1, pr, len);
}

INGOT_KERNEL int ingot_binary(const void *params, const void *const *in, void *const *out,
                              void *scratch, int task, int n_tasks)
{
	const ingot_binary_params *p = (const ingot_binary_params *)params;
	int cla = ew_class(p->dtype_a), clb = ew_class(p->dtype_b), rank = (int)p->rank, cap, inplace;
	int64_t lo, hi, i, idx[INGOT_MAX_RANK], sa, sb;
	ew_buf a, b, r;
	(void)scratch;
	if (!in[0] || !in[1] || !out[0] || ew_bad_rank(p->rank))
		return INGOT_EINVAL;
	sa = p->sa[rank - 1];
	sb = p->sb[rank - 1];
	inplace = out[0] == in[0] || out[0] == in[1];
	cap = sa == 1 && sb == 1 && ew_native(p->dtype_a) && ew_native(p->dtype_b) &&
	      ew_native(p->dtype_out) && !inplace ? EW_DIRECT_CAP : EW_CHUNK;
	ew_range(p->n, task, n_tasks, &lo, &hi);
	if (lo >= hi)
		return INGOT_OK;
	ew_seek(lo, rank, p->dims, idx);
	for (i = lo; i < hi; ) {
		int len = ew_run(rank, p->dims, idx, i, hi, cap), rc;
		const void *pa = ew_src(p->dtype_a, in[0], ew_offset(rank, idx, p->sa), sa, len, &a);
		const void *pb = ew_src(p->dtype_b, in[1], ew_offset(rank, idx, p->sb), sb, len, &b);
		void *pr = ew_dst_io(p->dtype_out, out[0], i, &r, inplace);
		if (cla == clb)
			rc = ew_binary_op(p->op, cla, pa, pb, pr, len);
		else if (p->op == INGOT_EW_POW)
			rc = ew_pow_mixed(cla, clb, pa, pb, pr, len);
		else
			rc = INGOT_EINVAL;
		if (rc)
			return rc;
		ew_put_io(p->dtype_out, out[0], i, len, pr, inplace);
		ew_advance(rank, p->dims, idx, len);
		i += len;
	}
	return INGOT_OK;
}

/* ---- variadic ---- */

INGOT_KERNEL int ingot_variadic(const void *params, const void *const *in, void *const *out,
                                void *scratch, int task, int n_tasks)
{
	const ingot_variadic_params *p = (const ingot_variadic_params *)params;
	int cl = ew_class(p->dtype), rank = (int)p->rank, n_in = (int)p->n_in, j, d, cap;
	int mean = p->op == INGOT_EW_MEAN;
	int64_t lo, hi, i, idx[INGOT_MAX_RANK];
	int64_t s[INGOT_VARIADIC_MAX_IN][INGOT_MAX_RANK];
	ew_buf x, acc[2];
	(void)scratch;
	if (n_in < 1 || n_in > INGOT_VARIADIC_MAX_IN || ew_bad_rank(p->rank) || !out[0])
		return INGOT_EINVAL;
	cap = EW_CHUNK;
	/* strides from the broadcast bits: 0 where broadcast, else row-major in its dims */
	for (j = 0; j < n_in; j++) {
		int64_t word = j < 8 ? p->bcast0 : j < 16 ? p->bcast1 : j < 24 ? p->bcast2 : p->bcast3;
		unsigned bits = (unsigned)(((uint64_t)word >> (8 * (j % 8))) & 0xffu);
		int64_t st = 1;
		if (!in[j])
			return INGOT_EINVAL;
		for (d = rank - 1; d >= 0; d--) {
			int bc = (int)((bits >> d) & 1u);
			s[j][d] = bc ? 0 : st;
			st *= bc ? 1 : p->dims[d];
		}
	}
	ew_range(p->n, task, n_tasks, &lo, &hi);
	if (lo >= hi)
		return INGOT_OK;
	ew_seek(lo, rank, p->dims, idx);
	for (i = lo; i < hi; ) {
		int len = ew_run(rank, p->dims, idx, i, hi, cap), k;
		const void *pa = ew_src(p->dtype, in[0], ew_offset(rank, idx, s[0]), s[0][rank - 1],
		                        len, &acc[0]);
		void *pr = &acc[1];
		/* acc = op(acc, x_j), ping-ponging so that the result never overlaps its inputs;
		 * the last step writes the output in place when it can */
		for (j = 1; j < n_in; j++) {
			const void *px = ew_src(p->dtype, in[j], ew_offset(rank, idx, s[j]),
			                        s[j][rank - 1], len, &x);
			int rc;
			pr = j == n_in - 1 && !mean ? ew_dst(p->dtype, out[0], i, &acc[j % 2])
			                            : (void *)&acc[j % 2];
			rc = ew_binary_op(p->op, cl, pa, px, pr, len);
			if (rc)
				return rc;
			pa = pr;
		}
		if (mean && cl == EW_CL_F32)
			for (k = 0; k < len; k++)
				acc[(n_in - 1) % 2].f[k] /= (float)n_in;
		else if (mean && cl == EW_CL_F64)
			for (k = 0; k < len; k++)
				acc[(n_in - 1) % 2].d[k] /= (double)n_in;
		if (n_in == 1 || mean || !ew_native(p->dtype))
			ew_store(p->dtype, out[0], i, len, pa);
		ew_advance(rank, p->dims, idx, len);
		i += len;
	}
	return INGOT_OK;
}

/* ---- cast ---- */

/* v rounded half away from zero; NaN, infinities and |v| >= 2^63 give 0. */
static int64_t ew_round_away(double v)
{
	int64_t t;
	double f;
	if (!(v > -9223372036854775808.0 && v < 9223372036854775808.0))
		return 0;
	t = (int64_t)v;
	f = v - (double)t;
	return f >= 0.5 ? t + 1 : f <= -0.5 ? t - 1 : t;
}

INGOT_KERNEL int ingot_cast(const void *params, const void *const *in, void *const *out,
                            void *scratch, int task, int n_tasks)
{
	const ingot_cast_params *p = (const ingot_cast_params *)params;
	int from = ew_class(p->from), to = ew_class(p->to);
	int64_t lo, hi, i;
	ew_buf a, b;
	(void)scratch;
	if (!in[0] || !out[0] || ingot_dtype_size((int)p->from) == 0 ||
	    ingot_dtype_size((int)p->to) == 0)
		return INGOT_EINVAL;
	ew_range(p->n, task, n_tasks, &lo, &hi);
	for (i = lo; i < hi; i += EW_CHUNK) {
		int len = hi - i < EW_CHUNK ? (int)(hi - i) : EW_CHUNK, k;
		ew_load(p->from, in[0], i, 1, len, &a);
		if (p->to == INGOT_DT_BOOL) {      /* nonzero in the source class: 0.5 is true */
			for (k = 0; k < len; k++)
				b.u[k] = from == EW_CL_F32 ? a.f[k] != 0 : from == EW_CL_F64 ? a.d[k] != 0
				         : a.u[k] != 0;
		} else if (ingot_dtype_is_small_float(p->to)) {  /* through float, saturating or not */
			uint8_t *o = (uint8_t *)out[0] + i;
			ew_convert(from, EW_CL_F32, &a, &b, len);
			for (k = 0; k < len; k++)
				o[k] = p->to == INGOT_DT_F8E8M0
				       ? ingot_f32_to_e8m0(b.f[k], p->saturate != 0, (int)p->round_mode)
				       : ingot_f32_to_small((int)p->to, b.f[k], p->saturate != 0);
			continue;
		} else if ((p->to == INGOT_DT_I4 || p->to == INGOT_DT_U4 || p->to == INGOT_DT_I2 ||
		            p->to == INGOT_DT_U2) && (from == EW_CL_F32 || from == EW_CL_F64)) {
			/* as ONNX Runtime: round half away from zero, then keep the low 4 (2) bits */
			ew_convert(from, EW_CL_F64, &a, &b, len);
			for (k = 0; k < len; k++)
				b.i[k] = ew_round_away(b.d[k]);
			ew_convert(EW_CL_I64, to, &b, &a, len);
			ew_store(p->to, out[0], i, len, &a);
			continue;
		} else {
			ew_convert(from, to, &a, &b, len);
		}
		ew_store(p->to, out[0], i, len, &b);
	}
	return INGOT_OK;
}

/* ---- clip ---- */

INGOT_KERNEL int ingot_clip(const void *params, const void *const *in, void *const *out,
                            void *scratch, int task, int n_tasks)
{
	const ingot_clip_params *p = (const ingot_clip_params *)params;
	const void *in_lo = p->n_in > 1 ? in[1] : NULL, *in_hi = p->n_in > 2 ? in[2] : NULL;
	int inplace = in[0] == out[0];
	int cl = ew_class(p->dtype), cap = ew_native(p->dtype) && !inplace ? EW_DIRECT_CAP : EW_CHUNK;
	int has_lo = in_lo || p->has_lo, has_hi = in_hi || p->has_hi;
	int64_t lo, hi, i;
	ew_buf a, r, bl, bh, t;
	(void)scratch;
	if (!in[0] || !out[0])
		return INGOT_EINVAL;
	/* the bounds, in the class of x: from the inputs, else the attributes */
	t.d[0] = p->lo;
	if (in_lo)
		ew_load(p->dtype, in_lo, 0, 0, 1, &bl);
	else
		ew_convert(EW_CL_F64, cl, &t, &bl, 1);
	t.d[0] = p->hi;
	if (in_hi)
		ew_load(p->dtype, in_hi, 0, 0, 1, &bh);
	else
		ew_convert(EW_CL_F64, cl, &t, &bh, 1);
	ew_range(p->n, task, n_tasks, &lo, &hi);
	for (i = lo; i < hi; ) {
		int len = hi - i < cap ? (int)(hi - i) : cap;
		const void *src = ew_src(p->dtype, in[0], i, 1, len, &a);
		void *dst = ew_dst_io(p->dtype, out[0], i, &r, inplace);
#define EW_CLAMP(T, F, P) { const T *restrict s = (const T *)src; T *restrict o = (T *)dst; \
	T l = bl.F[0], h = bh.F[0]; \
	EW_LOOP({ o[k] = P##clip(s[k], has_lo, l, has_hi, h); }) } break;
		switch (cl) {   /* ewmath.h */
		case EW_CL_F32: EW_CLAMP(float, f, ingot_ewf_)
		case EW_CL_F64: EW_CLAMP(double, d, ingot_ewd_)
		case EW_CL_I64: EW_CLAMP(int64_t, i, ingot_ewi_)
		default: EW_CLAMP(uint64_t, u, ingot_ewu_)
		}
#undef EW_CLAMP
		ew_put_io(p->dtype, out[0], i, len, dst, inplace);
		i += len;
	}
	return INGOT_OK;
}

/* ---- identity and inference dropout ---- */

INGOT_KERNEL int ingot_identity(const void *params, const void *const *in, void *const *out,
                                void *scratch, int task, int n_tasks)
{
	const ingot_identity_params *p = (const ingot_identity_params *)params;
	int64_t lo, hi, i;
	ew_buf one, ones;
	(void)scratch;
	if (!in[0] || !out[0] || p->esize < 1)
		return INGOT_EINVAL;
	if (p->n_in >= 3 && in[2] && *(const uint8_t *)in[2]) {
		double ratio = (double)p->ratio;
		if (in[1]) {
			ew_load(p->ratio_dtype, in[1], 0, 0, 1, &one);
			ew_convert(ew_class(p->ratio_dtype), EW_CL_F64, &one, &ones, 1);
			ratio = ones.d[0];
		}
		if (ratio > 0)                 /* training dropout: random, not supported */
			return INGOT_EINVAL;
	}
	ew_range(p->n, task, n_tasks, &lo, &hi);
	if (hi > lo)
		memcpy((char *)out[0] + lo * p->esize, (const char *)in[0] + lo * p->esize,
		       (size_t)((hi - lo) * p->esize));
	if (p->bits > 0 && p->bits < 8 && p->esize == 1) {
		const unsigned mask = (1u << p->bits) - 1, sign = 1u << (p->bits - 1);
		uint8_t *y = (uint8_t *)out[0];
		for (i = lo; i < hi; i++) {
			unsigned v = y[i] & mask;
			y[i] = (uint8_t)(p->sext ? (v ^ sign) - sign : v);
		}
	}
	if (p->n_out < 2 || !out[1])
		return INGOT_OK;
	for (i = 0; i < EW_CHUNK; i++)
		one.u[i] = 1;
	ew_convert(EW_CL_U64, ew_class(p->mask_dtype), &one, &ones, EW_CHUNK);
	for (i = lo; i < hi; i += EW_CHUNK)
		ew_store(p->mask_dtype, out[1], i, hi - i < EW_CHUNK ? (int)(hi - i) : EW_CHUNK, &ones);
	return INGOT_OK;
}

/* ---- where ---- */

INGOT_KERNEL int ingot_where(const void *params, const void *const *in, void *const *out,
                             void *scratch, int task, int n_tasks)
{
	const ingot_where_params *p = (const ingot_where_params *)params;
	int rank = (int)p->rank;
	int64_t lo, hi, i, idx[INGOT_MAX_RANK];
	(void)scratch;
	if (!in[0] || !in[1] || !in[2] || !out[0] || ew_bad_rank(p->rank))
		return INGOT_EINVAL;
	if (p->esize != 1 && p->esize != 2 && p->esize != 4 && p->esize != 8)
		return INGOT_EINVAL;
	ew_range(p->n, task, n_tasks, &lo, &hi);
	if (lo >= hi)
		return INGOT_OK;
	ew_seek(lo, rank, p->dims, idx);
	for (i = lo; i < hi; ) {
		int64_t len = p->dims[rank - 1] - idx[rank - 1], k;
		int64_t sc = p->sc[rank - 1], sx = p->sx[rank - 1], sy = p->sy[rank - 1];
		const uint8_t *c = (const uint8_t *)in[0] + ew_offset(rank, idx, p->sc);
		int64_t ox = ew_offset(rank, idx, p->sx), oy = ew_offset(rank, idx, p->sy);
		if (len > hi - i)
			len = hi - i;
#define EW_SEL(T) { const T *x = (const T *)in[1] + ox, *y = (const T *)in[2] + oy; \
	T *o = (T *)out[0] + i; \
	for (k = 0; k < len; k++) o[k] = c[k * sc] ? x[k * sx] : y[k * sy]; } break;
		switch (p->esize) {   /* a select moves bytes: the element size is all it needs */
		case 1: EW_SEL(uint8_t)
		case 2: EW_SEL(uint16_t)
		case 4: EW_SEL(uint32_t)
		default: EW_SEL(uint64_t)
		}
#undef EW_SEL
		ew_advance(rank, p->dims, idx, len);
		i += len;
	}
	return INGOT_OK;
}
