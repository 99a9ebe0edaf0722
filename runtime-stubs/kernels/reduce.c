/* reduce.c — reference kernel of the Reduce* ops: each output element walks its
 * reduced sub-box (an odometer over the reduced dims, innermost dim as a tight loop).
 * Floats accumulate in float (double for f64); integer sums and products wrap,
 * computed in uint64_t so no signed overflow occurs; integer ReduceMean divides the
 * wrapped sum and truncates toward zero, as numpy's mean(dtype=int) does. */
#include "reduce.h"

#include <math.h>
#include <string.h>

/* The input split into kept and reduced dims, each with its input stride. */
typedef struct ingot_red_plan {
	int nk, nr;
	int64_t kd[INGOT_MAX_RANK], ks[INGOT_MAX_RANK];
	int64_t rd[INGOT_MAX_RANK], rs[INGOT_MAX_RANK];
	int64_t n_out, n_red;
	int64_t inner_n, inner_s;    /* the innermost reduced dim and its stride */
} ingot_red_plan;

static INGOT_UNUSED int red_plan(const ingot_reduce_params *p, ingot_red_plan *pl)
{
	int64_t stride = 1;
	int d, nk = 0, nr = 0;
	if (p->rank < 0 || p->rank > INGOT_MAX_RANK)
		return INGOT_EINVAL;
	memset(pl, 0, sizeof *pl);
	pl->n_out = 1;
	pl->n_red = 1;
	/* count first, then fill from the innermost dim outwards */
	for (d = 0; d < (int)p->rank; d++) {
		if (p->dims[d] < 0)
			return INGOT_EINVAL;
		if ((p->rmask >> d) & 1) {
			nr++;
			pl->n_red *= p->dims[d];
		} else {
			nk++;
			pl->n_out *= p->dims[d];
		}
	}
	pl->nk = nk;
	pl->nr = nr;
	for (d = (int)p->rank - 1; d >= 0; d--) {
		if ((p->rmask >> d) & 1) {
			nr--;
			pl->rd[nr] = p->dims[d];
			pl->rs[nr] = stride;
		} else {
			nk--;
			pl->kd[nk] = p->dims[d];
			pl->ks[nk] = stride;
		}
		stride *= p->dims[d];
	}
	pl->inner_n = pl->nr ? pl->rd[pl->nr - 1] : 1;
	pl->inner_s = pl->nr ? pl->rs[pl->nr - 1] : 0;
	return INGOT_OK;
}

/* Kept-dim index and input offset of output element o. */
static INGOT_UNUSED void red_start(const ingot_red_plan *pl, int64_t o, int64_t *ki, int64_t *base)
{
	int d;
	*base = 0;
	for (d = pl->nk - 1; d >= 0; d--) {
		ki[d] = pl->kd[d] ? o % pl->kd[d] : 0;
		o = pl->kd[d] ? o / pl->kd[d] : 0;
		*base += ki[d] * pl->ks[d];
	}
}

static INGOT_UNUSED void red_next(const ingot_red_plan *pl, int64_t *ki, int64_t *base)
{
	int d;
	for (d = pl->nk - 1; d >= 0; d--) {
		*base += pl->ks[d];
		if (++ki[d] < pl->kd[d])
			return;
		*base -= pl->ks[d] * pl->kd[d];
		ki[d] = 0;
	}
}

/* Two's-complement value of the low `bits` bits of u, without implementation-defined
 * unsigned-to-signed conversion. */
static INGOT_UNUSED int64_t red_sext(uint64_t u, int bits)
{
	uint64_t m = bits >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << bits) - 1u);
	u &= m;
	if (u >> (bits - 1))
		return -(int64_t)(~u & m) - 1;
	return (int64_t)u;
}

/* Runs STEP (which sees `v`, an element as type A) over the sub-box at `base`. */
#define RED_WALK(T, A, LD, STEP) do { \
	int64_t ri_[INGOT_MAX_RANK], off_ = base, j_; \
	int d_; \
	memset(ri_, 0, sizeof ri_); \
	if (pl->n_red > 0) \
		for (;;) { \
			const T *q_ = x + off_; \
			for (j_ = 0; j_ < pl->inner_n; j_++) { \
				A v = LD(q_[j_ * pl->inner_s]); \
				STEP; \
			} \
			for (d_ = pl->nr - 2; d_ >= 0; d_--) { \
				off_ += pl->rs[d_]; \
				if (++ri_[d_] < pl->rd[d_]) \
					break; \
				off_ -= pl->rs[d_] * pl->rd[d_]; \
				ri_[d_] = 0; \
			} \
			if (d_ < 0) \
				break; \
		} \
} while (0)

#define RED_ID(v) (v)

/* Floating types: T stored, A computed (float for f16/bf16/f32, double for f64) with
 * SQRT/LOG/EXP in A. Max/Min propagate NaN like numpy; the empty Max is -inf, the
 * empty Min +inf; LogSumExp subtracts the max first. */
#define RED_FLOAT_FN(NAME, T, A, LD, ST, SQRT, LOG, EXP) \
static INGOT_UNUSED void NAME(const ingot_red_plan *pl, int64_t mode, const T *x, T *y, \
                              int64_t o0, int64_t o1) \
{ \
	int64_t ki[INGOT_MAX_RANK], base, o; \
	red_start(pl, o0, ki, &base); \
	for (o = o0; o < o1; o++) { \
		A acc = (A)0, mx; \
		switch (mode) { \
		case INGOT_REDUCE_MAX: \
			acc = (A)-INFINITY; \
			RED_WALK(T, A, LD, if (v > acc || v != v) acc = v); \
			break; \
		case INGOT_REDUCE_MIN: \
			acc = (A)INFINITY; \
			RED_WALK(T, A, LD, if (v < acc || v != v) acc = v); \
			break; \
		case INGOT_REDUCE_PROD: \
			acc = (A)1; \
			RED_WALK(T, A, LD, acc *= v); \
			break; \
		case INGOT_REDUCE_SUM_SQUARE: \
		case INGOT_REDUCE_L2: \
			RED_WALK(T, A, LD, acc += v * v); \
			if (mode == INGOT_REDUCE_L2) \
				acc = SQRT(acc); \
			break; \
		case INGOT_REDUCE_L1: \
			RED_WALK(T, A, LD, acc += v < (A)0 ? -v : v); \
			break; \
		case INGOT_REDUCE_LOG_SUM_EXP: \
			mx = (A)-INFINITY; \
			RED_WALK(T, A, LD, if (v > mx || v != v) mx = v); \
			if (mx != mx || mx == (A)INFINITY || mx == (A)-INFINITY) { \
				acc = mx; \
				break; \
			} \
			RED_WALK(T, A, LD, acc += EXP(v - mx)); \
			acc = mx + LOG(acc); \
			break; \
		default: \
			RED_WALK(T, A, LD, acc += v); \
			if (mode == INGOT_REDUCE_MEAN) \
				acc = acc / (A)pl->n_red; \
			else if (mode == INGOT_REDUCE_LOG_SUM) \
				acc = LOG(acc); \
			break; \
		} \
		y[o] = ST(acc); \
		red_next(pl, ki, &base); \
	} \
}

/* Integer types: C is int64_t or uint64_t (the compare type of Max/Min); sums and
 * products run in uint64_t and FIX maps the wrapped result back to C; ABSU is |v| as
 * uint64_t. L2, LogSum and
 * LogSumExp go through double and saturate into [LO, HI] (NaN gives 0), as a float
 * result cast back to the integer type has no other defined value. */
#define RED_INT_FN(NAME, T, C, LO, HI, FIX, ABSU) \
static INGOT_UNUSED void NAME(const ingot_red_plan *pl, int64_t mode, const T *x, T *y, \
                              int64_t o0, int64_t o1) \
{ \
	int64_t ki[INGOT_MAX_RANK], base, o; \
	red_start(pl, o0, ki, &base); \
	for (o = o0; o < o1; o++) { \
		C acc; \
		uint64_t u = 0; \
		double r = 0.0, mx = (double)-INFINITY; \
		switch (mode) { \
		case INGOT_REDUCE_MAX: \
			acc = (C)(LO); \
			RED_WALK(T, C, (C), if (v > acc) acc = v); \
			break; \
		case INGOT_REDUCE_MIN: \
			acc = (C)(HI); \
			RED_WALK(T, C, (C), if (v < acc) acc = v); \
			break; \
		case INGOT_REDUCE_PROD: \
			u = 1; \
			RED_WALK(T, C, (C), u *= (uint64_t)v); \
			acc = FIX(u); \
			break; \
		case INGOT_REDUCE_SUM_SQUARE: \
		case INGOT_REDUCE_L2: \
			RED_WALK(T, C, (C), u += (uint64_t)v * (uint64_t)v); \
			acc = FIX(u); \
			if (mode == INGOT_REDUCE_L2) \
				acc = RED_SAT(C, sqrt((double)acc), LO, HI); \
			break; \
		case INGOT_REDUCE_L1: \
			RED_WALK(T, C, (C), u += ABSU(v)); \
			acc = FIX(u); \
			break; \
		case INGOT_REDUCE_LOG_SUM_EXP: \
			RED_WALK(T, C, (C), if ((double)v > mx) mx = (double)v); \
			RED_WALK(T, C, (C), r += exp((double)v - mx)); \
			acc = RED_SAT(C, mx + log(r), LO, HI); \
			break; \
		default: \
			RED_WALK(T, C, (C), u += (uint64_t)v); \
			acc = FIX(u); \
			if (mode == INGOT_REDUCE_MEAN) \
				acc = pl->n_red > 0 ? acc / (C)pl->n_red : (C)0; \
			else if (mode == INGOT_REDUCE_LOG_SUM) \
				acc = RED_SAT(C, log((double)acc), LO, HI); \
			break; \
		} \
		y[o] = (T)acc; \
		red_next(pl, ki, &base); \
	} \
}

/* double -> C, truncating, saturated to [LO, HI]; NaN gives 0 */
#define RED_SAT(C, e, LO, HI) red_sat_##C(e, (double)(LO), (double)(HI), (C)(LO), (C)(HI))

static INGOT_UNUSED int64_t red_sat_int64_t(double r, double lo, double hi, int64_t ilo, int64_t ihi)
{
	return r != r ? 0 : r <= lo ? ilo : r >= hi ? ihi : (int64_t)r;
}

static INGOT_UNUSED uint64_t red_sat_uint64_t(double r, double lo, double hi, uint64_t ilo,
                                              uint64_t ihi)
{
	return r != r ? 0 : r <= lo ? ilo : r >= hi ? ihi : (uint64_t)r;
}

#define RED_F16_LD(h) ingot_f16_to_f32(h)
#define RED_BF16_LD(h) ingot_bf16_to_f32(h)
#define RED_S8(u) red_sext(u, 8)
#define RED_S16(u) red_sext(u, 16)
#define RED_S32(u) red_sext(u, 32)
#define RED_S64(u) red_sext(u, 64)
#define RED_U8(u) ((u) & 0xffu)
#define RED_U16(u) ((u) & 0xffffu)
#define RED_U32(u) ((u) & 0xffffffffu)
#define RED_U64(u) (u)
#define RED_ABS_S(v) ((v) < 0 ? 0u - (uint64_t)(v) : (uint64_t)(v))
#define RED_ABS_U(v) ((uint64_t)(v))

RED_FLOAT_FN(red_f32, float, float, RED_ID, RED_ID, sqrtf, logf, expf)
RED_FLOAT_FN(red_f64, double, double, RED_ID, RED_ID, sqrt, log, exp)
RED_FLOAT_FN(red_f16, uint16_t, float, RED_F16_LD, ingot_f32_to_f16, sqrtf, logf, expf)
RED_FLOAT_FN(red_bf16, uint16_t, float, RED_BF16_LD, ingot_f32_to_bf16, sqrtf, logf, expf)
RED_INT_FN(red_i8, int8_t, int64_t, INT8_MIN, INT8_MAX, RED_S8, RED_ABS_S)
RED_INT_FN(red_i16, int16_t, int64_t, INT16_MIN, INT16_MAX, RED_S16, RED_ABS_S)
RED_INT_FN(red_i32, int32_t, int64_t, INT32_MIN, INT32_MAX, RED_S32, RED_ABS_S)
RED_INT_FN(red_i64, int64_t, int64_t, INT64_MIN, INT64_MAX, RED_S64, RED_ABS_S)
RED_INT_FN(red_u8, uint8_t, uint64_t, 0, UINT8_MAX, RED_U8, RED_ABS_U)
RED_INT_FN(red_u16, uint16_t, uint64_t, 0, UINT16_MAX, RED_U16, RED_ABS_U)
RED_INT_FN(red_u32, uint32_t, uint64_t, 0, UINT32_MAX, RED_U32, RED_ABS_U)
RED_INT_FN(red_u64, uint64_t, uint64_t, 0, UINT64_MAX, RED_U64, RED_ABS_U)

INGOT_KERNEL int ingot_reduce(const void *params, const void *const *in, void *const *out,
                              void *scratch, int task, int n_tasks)
{
	const ingot_reduce_params *p = (const ingot_reduce_params *)params;
	ingot_red_plan pl;
	int64_t o0, o1;
	const void *x = in[0];
	void *y = out[0];
	int rc = red_plan(p, &pl);
	(void)scratch;
	if (rc)
		return rc;
	if (n_tasks < 1 || task < 0 || task >= n_tasks)
		return INGOT_EINVAL;
	o0 = pl.n_out / n_tasks * task + pl.n_out % n_tasks * task / n_tasks;
	o1 = pl.n_out / n_tasks * (task + 1) + pl.n_out % n_tasks * (task + 1) / n_tasks;
	if (o0 >= o1)
		return INGOT_OK;
	if (!x || !y)
		return INGOT_EINVAL;
	switch (p->dtype) {
	case INGOT_DT_F32: red_f32(&pl, p->mode, (const float *)x, (float *)y, o0, o1); break;
	case INGOT_DT_F64: red_f64(&pl, p->mode, (const double *)x, (double *)y, o0, o1); break;
	case INGOT_DT_F16: red_f16(&pl, p->mode, (const uint16_t *)x, (uint16_t *)y, o0, o1); break;
	case INGOT_DT_BF16: red_bf16(&pl, p->mode, (const uint16_t *)x, (uint16_t *)y, o0, o1); break;
	case INGOT_DT_I8: red_i8(&pl, p->mode, (const int8_t *)x, (int8_t *)y, o0, o1); break;
	case INGOT_DT_I16: red_i16(&pl, p->mode, (const int16_t *)x, (int16_t *)y, o0, o1); break;
	case INGOT_DT_I32: red_i32(&pl, p->mode, (const int32_t *)x, (int32_t *)y, o0, o1); break;
	case INGOT_DT_I64: red_i64(&pl, p->mode, (const int64_t *)x, (int64_t *)y, o0, o1); break;
	case INGOT_DT_U8: red_u8(&pl, p->mode, (const uint8_t *)x, (uint8_t *)y, o0, o1); break;
	case INGOT_DT_U16: red_u16(&pl, p->mode, (const uint16_t *)x, (uint16_t *)y, o0, o1); break;
	case INGOT_DT_U32: red_u32(&pl, p->mode, (const uint32_t *)x, (uint32_t *)y, o0, o1); break;
	case INGOT_DT_U64: red_u64(&pl, p->mode, (const uint64_t *)x, (uint64_t *)y, o0, o1); break;
	case INGOT_DT_BOOL:
		/* ReduceMax / ReduceMin of bool (opset 20): the u8 max / min of 0 and 1; an
		 * empty min gives 255 there, true here */
		if (p->mode != INGOT_REDUCE_MAX && p->mode != INGOT_REDUCE_MIN)
			return INGOT_EINVAL;
		red_u8(&pl, p->mode, (const uint8_t *)x, (uint8_t *)y, o0, o1);
		for (int64_t o = o0; o < o1; o++)
			((uint8_t *)y)[o] = ((uint8_t *)y)[o] != 0;
		break;
	default: return INGOT_EINVAL;
	}
	return INGOT_OK;
}
