/* quant.c — reference kernels of the linear quantization ops (see quant.h).
 * Values go through double where the ONNX reference mixes precisions, and are
 * rounded back to the precision numpy would have used, so results match the
 * reference bit for bit on ordinary inputs. 8-bit operands of the integer products
 * are read as bytes and sign-adjusted with an xor (no per-element dtype switch).
 * Out-of-range and NaN values saturate (NaN to the low end), never UB. */
#include "quant.h"

#include <math.h>
#include <string.h>

#define Q_CHUNK 64
#define Q_MAX_SP 6

/* v rounded to the precision of float dtype dt (double rounding through double is
 * exact for f32/f16/bf16 results of one +, -, *, /). */
static double q_round_to(int dt, double v)
{
	switch (dt) {
	case INGOT_DT_F32: return (double)(float)v;
	case INGOT_DT_F16: return (double)ingot_f16_to_f32(ingot_f32_to_f16((float)v));
	case INGOT_DT_BF16: return (double)ingot_bf16_to_f32(ingot_f32_to_bf16((float)v));
	default: return v;
	}
}

/* The representable range of an integer dtype (as doubles). 0 if not an integer. */
static int q_range(int dt, double *lo, double *hi)
{
	switch (dt) {
	case INGOT_DT_U8: *lo = 0.0; *hi = 255.0; return 1;
	case INGOT_DT_I8: *lo = -128.0; *hi = 127.0; return 1;
	case INGOT_DT_U16: *lo = 0.0; *hi = 65535.0; return 1;
	case INGOT_DT_I16: *lo = -32768.0; *hi = 32767.0; return 1;
	case INGOT_DT_I32: *lo = -2147483648.0; *hi = 2147483647.0; return 1;
	case INGOT_DT_U4: *lo = 0.0; *hi = 15.0; return 1;
	case INGOT_DT_I4: *lo = -8.0; *hi = 7.0; return 1;
	case INGOT_DT_U2: *lo = 0.0; *hi = 3.0; return 1;
	case INGOT_DT_I2: *lo = -2.0; *hi = 1.0; return 1;
	default: return 0;
	}
}

/* Stores an integral v saturated to [lo, hi] (NaN -> lo) into integer dtype dt. */
static void q_st_int(int dt, void *p, int64_t i, double v, double lo, double hi)
{
	int64_t q;
	if (!(v >= lo))
		v = lo;
	if (v > hi)
		v = hi;
	q = (int64_t)v;
	switch (dt) {
	case INGOT_DT_U8: case INGOT_DT_U4: case INGOT_DT_U2: ((uint8_t *)p)[i] = (uint8_t)q; break;
	case INGOT_DT_I8: case INGOT_DT_I4: case INGOT_DT_I2: ((int8_t *)p)[i] = (int8_t)q; break;
	case INGOT_DT_U16: ((uint16_t *)p)[i] = (uint16_t)q; break;
	case INGOT_DT_I16: ((int16_t *)p)[i] = (int16_t)q; break;
	case INGOT_DT_I32: ((int32_t *)p)[i] = (int32_t)q; break;
	default: break;
	}
}

/* int64 -> int32 modulo 2^32, without implementation-defined conversions. */
static int32_t q_wrap32(int64_t v)
{
	uint32_t u = (uint32_t)((uint64_t)v & 0xffffffffu);
	if (u <= 0x7fffffffu)
		return (int32_t)u;
	return (int32_t)(u - 0x80000000u) - 0x7fffffff - 1;
}

/* The scale / zero point index of element e of a (outer, axis_len, inner) tensor. */
static int64_t q_sidx(int64_t mode, int64_t e, int64_t axis_len, int64_t inner, int64_t block,
                      int64_t s_axis_len)
{
	int64_t i, a, o;
	if (mode == INGOT_Q_TENSOR)
		return 0;
	i = e % inner;
	a = (e / inner) % axis_len;
	if (mode == INGOT_Q_AXIS)
		return a;
	o = e / inner / axis_len;
	return (o * s_axis_len + a / block) * inner + i;
}

static int q_span(int64_t n, int task, int n_tasks, int64_t *e0, int64_t *e1)
{
	if (n_tasks < 1) {
		task = 0;
		n_tasks = 1;
	}
	*e0 = n * task / n_tasks;
	*e1 = n * (task + 1) / n_tasks;
	return *e0 < *e1;
}

static int q_layout_ok(int64_t mode, int64_t outer, int64_t axis_len, int64_t inner,
                       int64_t block)
{
	return outer >= 0 && axis_len >= 0 && inner >= 0 &&
	       (mode != INGOT_Q_BLOCK || block >= 1);
}

INGOT_KERNEL int ingot_quantize(const void *params, const void *const *in, void *const *out,
                                void *scratch, int task, int n_tasks)
{
	const ingot_quantize_params *p = (const ingot_quantize_params *)params;
	const void *x = in[0], *s = in[1], *zp = p->has_zp ? in[2] : NULL;
	void *y = out[0];
	int64_t e, e0, e1, n = p->outer * p->axis_len * p->inner;
	double lo, hi;
	int xdt = (int)p->x_dtype, sdt = (int)p->s_dtype, ydt = (int)p->y_dtype;
	int ddt = (int)p->div_dtype;
	(void)scratch;
	if (!x || !s || !y || (p->has_zp && !zp) ||
	    (!q_range(ydt, &lo, &hi) && !ingot_dtype_is_small_float(ydt)) ||
	    !q_layout_ok(p->mode, p->outer, p->axis_len, p->inner, p->block))
		return INGOT_EINVAL;
	if (!q_span(n, task, n_tasks, &e0, &e1))
		return INGOT_OK;
	if (ingot_dtype_is_small_float(ydt)) {
		/* 8-bit and 4-bit floats: x / scale (+ zero point) rounded to the type, no rint */
		for (e = e0; e < e1; e++) {
			int64_t si = q_sidx(p->mode, e, p->axis_len, p->inner, p->block, p->s_axis_len);
			double xv = q_round_to(ddt, ingot_ld_num(xdt, x, e));
			double v = q_round_to(ddt, xv / q_round_to(ddt, ingot_ld_num(sdt, s, si)));
			if (zp)
				v += ingot_ld_num(ydt, zp, si);
			/* beyond float's range (UB to convert) is infinite, NaN stays NaN */
			float f = v >= 3.4028235677973366e38 ? HUGE_VALF
			          : v <= -3.4028235677973366e38 ? -HUGE_VALF
			          : v > 3.4028234663852886e38 ? 3.4028234663852886e38f
			          : v < -3.4028234663852886e38 ? -3.4028234663852886e38f : (float)v;
			((uint8_t *)y)[e] = ingot_f32_to_small(ydt, f, p->saturate != 0);
		}
		return INGOT_OK;
	}
	if (p->mode == INGOT_Q_TENSOR && xdt == INGOT_DT_F32 && sdt == INGOT_DT_F32 &&
	    ddt == INGOT_DT_F32) {
		/* the common case: one float scale, float division, no dtype switch inside */
		const float *xf = (const float *)x;
		float sc = *(const float *)s;
		double z = zp ? ingot_ld_num(ydt, zp, 0) : 0.0;
		if (ydt == INGOT_DT_U8) {
			uint8_t *yq = (uint8_t *)y;
			for (e = e0; e < e1; e++) {
				float v = rintf(xf[e] / sc) + (float)z;
				yq[e] = (uint8_t)(v >= 0.0f ? (v <= 255.0f ? v : 255.0f) : 0.0f);
			}
			return INGOT_OK;
		}
		if (ydt == INGOT_DT_I8) {
			int8_t *yq = (int8_t *)y;
			for (e = e0; e < e1; e++) {
				float v = rintf(xf[e] / sc) + (float)z;
				yq[e] = (int8_t)(v >= -128.0f ? (v <= 127.0f ? v : 127.0f) : -128.0f);
			}
			return INGOT_OK;
		}
	}
	for (e = e0; e < e1; e++) {
		int64_t si = q_sidx(p->mode, e, p->axis_len, p->inner, p->block, p->s_axis_len);
		double xv = q_round_to(ddt, ingot_ld_num(xdt, x, e));
		double sv = q_round_to(ddt, ingot_ld_num(sdt, s, si));
		double v = rint(q_round_to(ddt, xv / sv));
		if (zp)
			v += ingot_ld_num(ydt, zp, si);
		q_st_int(ydt, y, e, v, lo, hi);
	}
	return INGOT_OK;
}

INGOT_KERNEL int ingot_dequantize(const void *params, const void *const *in, void *const *out,
                                  void *scratch, int task, int n_tasks)
{
	const ingot_dequantize_params *p = (const ingot_dequantize_params *)params;
	const void *x = in[0], *s = in[1], *zp = p->has_zp ? in[2] : NULL;
	void *y = out[0];
	int64_t e, e0, e1, n = p->outer * p->axis_len * p->inner;
	int xdt = (int)p->x_dtype, sdt = (int)p->s_dtype, ydt = (int)p->y_dtype;
	(void)scratch;
	if (!x || !s || !y || (p->has_zp && !zp) || !ingot_dtype_is_float(ydt) ||
	    !(ingot_dtype_is_float(sdt) || sdt == INGOT_DT_F8E8M0) ||
	    !q_layout_ok(p->mode, p->outer, p->axis_len, p->inner, p->block))
		return INGOT_EINVAL;
	if (!q_span(n, task, n_tasks, &e0, &e1))
		return INGOT_OK;
	if (p->mode == INGOT_Q_TENSOR && sdt == INGOT_DT_F32 && ydt == INGOT_DT_F32 &&
	    (xdt == INGOT_DT_U8 || xdt == INGOT_DT_I8)) {
		/* the common case: 8-bit x, one float scale; x - zp is exact in float */
		const uint8_t *xb = (const uint8_t *)x;
		float sc = *(const float *)s, *yf = (float *)y;
		int32_t flip = xdt == INGOT_DT_I8 ? 0x80 : 0;
		int32_t z = zp ? (int32_t)ingot_ld_num(xdt, zp, 0) : 0;
		for (e = e0; e < e1; e++)
			yf[e] = (float)(((int32_t)(xb[e] ^ flip) - flip) - z) * sc;
		return INGOT_OK;
	}
	for (e = e0; e < e1; e++) {
		int64_t si = q_sidx(p->mode, e, p->axis_len, p->inner, p->block, p->s_axis_len);
		double d = ingot_ld_num(xdt, x, e) - (zp ? ingot_ld_num(xdt, zp, si) : 0.0);
		/* the reference multiplies in float32 (f16/bf16 scales promote to it) */
		double v = (double)(float)(d * ingot_ld_num(sdt, s, si));
		ingot_stf(ydt, y, e, v);
	}
	return INGOT_OK;
}

INGOT_KERNEL int ingot_dynquant(const void *params, const void *const *in, void *const *out,
                                void *scratch, int task, int n_tasks)
{
	const ingot_dynquant_params *p = (const ingot_dynquant_params *)params;
	const float *x = (const float *)in[0];
	uint8_t *y = (uint8_t *)out[0];
	float lo = 0.0f, hi = 0.0f, sc, zf;
	int64_t e, e0, e1;
	(void)scratch;
	if (!x || p->n < 0)
		return INGOT_EINVAL;
	for (e = 0; e < p->n; e++) {       /* NaN compares false: ignored */
		if (x[e] < lo)
			lo = x[e];
		if (x[e] > hi)
			hi = x[e];
	}
	sc = (hi - lo) / 255.0f;
	zf = 0.0f;
	if (sc > 0.0f) {
		/* numpy computes this quotient in double (python int minus float32) */
		zf = (float)rint((0.0 - (double)lo) / (double)sc);
		zf = zf >= 0.0f ? (zf <= 255.0f ? zf : 255.0f) : 0.0f;
	}
	if (task == 0 || n_tasks <= 1) {
		if (out[1])
			*(float *)out[1] = sc;
		if (out[2])
			*(uint8_t *)out[2] = (uint8_t)zf;
	}
	if (!y || !q_span(p->n, task, n_tasks, &e0, &e1))
		return INGOT_OK;
	for (e = e0; e < e1; e++) {
		float v = sc > 0.0f ? rintf(x[e] / sc) + zf : 0.0f;
		y[e] = (uint8_t)(v >= 0.0f ? (v <= 255.0f ? v : 255.0f) : 0.0f);
	}
	return INGOT_OK;
}

/* An 8-bit operand: bytes xor flip minus flip gives the value for u8 (flip 0) and
 * i8 (flip 0x80) alike. */
static int32_t q_flip(int dt)
{
	return dt == INGOT_DT_I8 ? 0x80 : 0;
}

#define Q_B8(p, i, flip) ((int32_t)((p)[i] ^ (flip)) - (flip))

/* Inner loops accumulate in int32 (they vectorize); each product is at most
 * 255 * 255 in magnitude, so Q_FLUSH of them fit, then they move to int64. */
#define Q_FLUSH 32768

static void q_flush(int64_t *acc, int32_t *acc32, int64_t len)
{
	int64_t j;
	for (j = 0; j < len; j++) {
		acc[j] += acc32[j];
		acc32[j] = 0;
	}
}

/* Requantizes an accumulator: saturate(rint(acc * mult) + zp) into y[i]. */
static void q_requant(int dt, void *y, int64_t i, int64_t acc, float mult, double zp,
                      double lo, double hi)
{
	q_st_int(dt, y, i, rint((double)acc * (double)mult) + zp, lo, hi);
}

/* Narrows the dtype's range [lo, hi] to a fused activation's [y_lo, y_hi]. */
static void q_clamp_range(double *lo, double *hi, int64_t y_lo, int64_t y_hi)
{
	if ((double)y_lo > *lo)
		*lo = (double)y_lo;
	if ((double)y_hi < *hi)
		*hi = (double)y_hi;
}

/* A zero point / scale of an operand, by layout: v = vec index, b = batch number. */
static double q_pick(int dt, const void *p, int64_t mode, int64_t v, int64_t b, int64_t len)
{
	switch (mode) {
	case INGOT_QV_ONE: return ingot_ld_num(dt, p, 0);
	case INGOT_QV_VEC: return ingot_ld_num(dt, p, v);
	case INGOT_QV_BATCH: return ingot_ld_num(dt, p, b * len + v);
	default: return 0.0;
	}
}

INGOT_KERNEL int ingot_qmatmul(const void *params, const void *const *in, void *const *out,
                               void *scratch, int task, int n_tasks)
{
	const ingot_qmatmul_params *p = (const ingot_qmatmul_params *)params;
	const int ql = p->qlinear != 0;
	const uint8_t *a = (const uint8_t *)in[0], *b = (const uint8_t *)in[ql ? 3 : 1];
	const void *azp = p->a_zp ? in[2] : NULL, *bzp = p->b_zp ? in[ql ? 5 : 3] : NULL;
	const void *as = ql ? in[1] : NULL, *bs = ql ? in[4] : NULL, *ys = ql ? in[6] : NULL;
	const void *yzp = ql && p->y_zp ? in[7] : NULL;
	const int32_t *bias = ql && p->has_bias ? (const int32_t *)in[8] : NULL;
	const int32_t af = q_flip((int)p->a_dtype), bf = q_flip((int)p->b_dtype);
	int adt = (int)p->a_dtype, bdt = (int)p->b_dtype, ydt = (int)p->y_dtype;
	int sdt = (int)p->s_dtype;
	int64_t batches = 1, rows, r, r0, r1, j, j0, kk, d;
	int64_t acc[Q_CHUNK];
	int32_t acc32[Q_CHUNK], bz[Q_CHUNK];
	double lo = 0.0, hi = 0.0;
	(void)scratch;
	if (!a || !b || !out[0] || p->nb < 0 || p->nb > INGOT_MAX_RANK || p->m < 0 || p->k < 0 ||
	    p->n < 0 || (p->a_zp && !azp) || (p->b_zp && !bzp) || (ql && (!as || !bs || !ys)) ||
	    (ql && p->y_zp && !yzp) || (ql && !q_range(ydt, &lo, &hi)) ||
	    (ql && p->has_bias && !in[8]))
		return INGOT_EINVAL;
	q_clamp_range(&lo, &hi, p->y_lo, p->y_hi);
	for (d = 0; d < p->nb; d++)
		batches *= p->bdims[d];
	rows = batches * p->m;
	if (!q_span(rows, task, n_tasks, &r0, &r1) || p->n == 0)
		return INGOT_OK;
	for (r = r0; r < r1; r++) {
		int64_t bt = r / p->m, i = r % p->m, rem = bt, a_off = 0, b_off = 0, ab, bb;
		int32_t az;
		for (d = p->nb - 1; d >= 0; d--) {
			int64_t id = rem % p->bdims[d];
			rem /= p->bdims[d];
			a_off += id * p->a_bstr[d];
			b_off += id * p->b_bstr[d];
		}
		ab = p->m * p->k > 0 ? a_off / (p->m * p->k) : 0;     /* A's own batch number */
		bb = p->k * p->n > 0 ? b_off / (p->k * p->n) : 0;
		az = (int32_t)q_pick(adt, azp, p->a_zp, i, ab, p->m);
		for (j0 = 0; j0 < p->n; j0 += Q_CHUNK) {
			int64_t len = p->n - j0 < Q_CHUNK ? p->n - j0 : Q_CHUNK;
			for (j = 0; j < len; j++) {
				acc[j] = bias ? bias[j0 + j] : 0;
				acc32[j] = 0;
				/* the zero point folded with the sign flip: b - bz = (b ^ bf) - bz[j] */
				bz[j] = (int32_t)q_pick(bdt, bzp, p->b_zp, j0 + j, bb, p->n) + bf;
			}
			for (kk = 0; kk < p->k; kk++) {
				const uint8_t *br = b + b_off + kk * p->n + j0;
				int32_t av = Q_B8(a, a_off + i * p->k + kk, af) - az;
				for (j = 0; j < len; j++)
					acc32[j] += av * ((int32_t)(br[j] ^ bf) - bz[j]);
				if ((kk + 1) % Q_FLUSH == 0)
					q_flush(acc, acc32, len);
			}
			q_flush(acc, acc32, len);
			if (!ql) {
				int32_t *yi = (int32_t *)out[0] + r * p->n + j0;
				for (j = 0; j < len; j++)
					yi[j] = q_wrap32(acc[j]);
				continue;
			}
			for (j = 0; j < len; j++) {
				float sa = (float)q_pick(sdt, as, p->a_s, i, 0, p->m);
				float sb = (float)q_pick(sdt, bs, p->b_s, j0 + j, 0, p->n);
				float sy = (float)q_pick(sdt, ys, p->y_s, i, 0, p->m);
				double z = yzp ? q_pick(ydt, yzp, p->y_zp, i, 0, p->m) : 0.0;
				q_requant(ydt, out[0], r * p->n + j0 + j, acc[j], sa * sb / sy, z, lo, hi);
			}
		}
	}
	return INGOT_OK;
}

/* acc[j] += w * ((x[j] ^ flip) - adj) for j < n. Blocks of Q_VB go through a
 * local copy with a constant trip count, which compilers vectorize at -O2 (the
 * bytes of x may alias anything, the local cannot). */
#define Q_VB 16

static void q_axpy(int32_t *acc, const uint8_t *x, int64_t n, int32_t w, int32_t flip,
                   int32_t adj)
{
	int32_t xv[Q_VB];
	int64_t j = 0;
	int t;
	for (; j + Q_VB <= n; j += Q_VB) {
		for (t = 0; t < Q_VB; t++)
			xv[t] = (int32_t)(x[j + t] ^ flip) - adj;
		for (t = 0; t < Q_VB; t++)
			acc[j + t] += w * xv[t];
	}
	for (; j < n; j++)
		acc[j] += w * ((int32_t)(x[j] ^ flip) - adj);
}

/* floor(a / b) for b > 0 and any sign of a */
static int64_t q_floordiv(int64_t a, int64_t b)
{
	int64_t q = a / b;
	if (a % b != 0 && a < 0)
		q--;
	return q;
}

/* Steps a row-major multi-index over dims[0..n); wraps to zeros at the end. */
static void q_next(int64_t *idx, const int64_t *dims, int n)
{
	int d;
	for (d = n - 1; d >= 0; d--) {
		if (++idx[d] < dims[d])
			return;
		idx[d] = 0;
	}
}

INGOT_KERNEL int ingot_qconv(const void *params, const void *const *in, void *const *out,
                             void *scratch, int task, int n_tasks)
{
	const ingot_qconv_params *p = (const ingot_qconv_params *)params;
	const int ql = p->qlinear != 0, nsp = (int)p->nsp, L = nsp - 1;
	const uint8_t *x = (const uint8_t *)in[0], *w = (const uint8_t *)in[ql ? 3 : 1];
	const void *xzp = p->has_xzp ? in[2] : NULL, *wzp = p->w_zp ? in[ql ? 5 : 3] : NULL;
	const int32_t *bias = ql && p->has_bias ? (const int32_t *)in[8] : NULL;
	const int32_t xf = q_flip((int)p->x_dtype), wf = q_flip((int)p->w_dtype);
	int ydt = (int)p->y_dtype;
	int64_t xs[Q_MAX_SP], ys[Q_MAX_SP], ks[Q_MAX_SP], xstr[Q_MAX_SP], yo[Q_MAX_SP], ko[Q_MAX_SP];
	int64_t x_plane = 1, y_plane = 1, k_plane = 1, C, M, Cg, Mg, u, u0, u1, j, kx, icg;
	int64_t acc[Q_CHUNK];
	int32_t acc32[Q_CHUNK];
	double lo = 0.0, hi = 0.0, yz = 0.0;
	float xsc = 0.0f, ysc = 1.0f;
	int32_t xz, xadj;
	int d;
	(void)scratch;
	if (nsp < 1 || nsp > Q_MAX_SP || p->group < 1 || !x || !w || !out[0] ||
	    (p->has_xzp && !xzp) || (p->w_zp && !wzp) || (bias == NULL && ql && p->has_bias))
		return INGOT_EINVAL;
	if (ql) {
		if (!in[1] || !in[4] || !in[6] || !in[7] || !q_range(ydt, &lo, &hi))
			return INGOT_EINVAL;
		q_clamp_range(&lo, &hi, p->y_lo, p->y_hi);
		xsc = *(const float *)in[1];
		ysc = *(const float *)in[6];
		yz = ingot_ld_num(ydt, in[7], 0);
	}
	xz = xzp ? (int32_t)ingot_ld_num((int)p->x_dtype, xzp, 0) : 0;
	xadj = xz + xf;          /* x - xz = (byte ^ xf) - xadj */
	for (d = L; d >= 0; d--) {
		if (p->strides[d] < 1 || p->dilations[d] < 1)
			return INGOT_EINVAL;
		xs[d] = p->x_dims[2 + d];
		ys[d] = p->y_dims[2 + d];
		ks[d] = p->w_dims[2 + d];
		xstr[d] = x_plane;
		x_plane *= xs[d];
		y_plane *= ys[d];
		k_plane *= ks[d];
	}
	C = p->x_dims[1];
	M = p->y_dims[1];
	Cg = C / p->group;
	Mg = M / p->group;
	if (y_plane == 0 || Mg == 0 ||
	    !q_span(p->y_dims[0] * M, task, n_tasks, &u0, &u1))
		return INGOT_OK;
	for (u = u0; u < u1; u++) {
		const int64_t n = u / M, oc = u % M, grp = oc / Mg;
		const int64_t s = p->strides[L], dl = p->dilations[L], pd = p->pads[L];
		const int64_t W = xs[L], OW = ys[L], KW = ks[L];
		const uint8_t *x0 = x + (n * C + grp * Cg) * x_plane, *w0 = w + oc * Cg * k_plane;
		int32_t wz = p->w_zp == 1 ? (int32_t)ingot_ld_num((int)p->w_dtype, wzp, 0)
		             : p->w_zp > 1 ? (int32_t)ingot_ld_num((int)p->w_dtype, wzp, oc) : 0;
		int64_t b0 = bias ? bias[oc] : 0, yrow, krow, ox0;
		float mult = 0.0f;
		if (ql)
			mult = xsc * *((const float *)in[4] + (p->w_s > 1 ? oc : 0)) / ysc;
		memset(yo, 0, sizeof yo);
		for (yrow = 0; yrow < y_plane / OW; yrow++, q_next(yo, ys, L)) {
			int64_t ybase = u * y_plane + yrow * OW;
			for (ox0 = 0; ox0 < OW; ox0 += Q_CHUNK) {
				int64_t len = OW - ox0 < Q_CHUNK ? OW - ox0 : Q_CHUNK;
				int64_t terms = 0;
				for (j = 0; j < len; j++) {
					acc[j] = b0;
					acc32[j] = 0;
				}
				memset(ko, 0, sizeof ko);
				for (krow = 0; krow < k_plane / KW; krow++, q_next(ko, ks, L)) {
					int64_t xoff = 0;
					int ok = 1;
					for (d = 0; d < L && ok; d++) {    /* outer dims: the input row */
						int64_t id = yo[d] * p->strides[d] + ko[d] * p->dilations[d] - p->pads[d];
						ok = id >= 0 && id < xs[d];
						xoff += id * xstr[d];
					}
					if (!ok)
						continue;
					for (kx = 0; kx < KW; kx++) {
						/* outputs ox in [lo, hi] read inputs ox * s + off inside [0, W) */
						int64_t off = kx * dl - pd;
						int64_t jlo = -q_floordiv(off, s), jhi = q_floordiv(W - 1 - off, s);
						jlo = jlo > ox0 ? jlo : ox0;
						jhi = jhi < ox0 + len - 1 ? jhi : ox0 + len - 1;
						if (jlo > jhi)
							continue;
						for (icg = 0; icg < Cg; icg++) {
							/* ox * s + off >= 0 for ox >= jlo: index from x0, never before it */
							int64_t xb = icg * x_plane + xoff + off;
							int32_t wv = Q_B8(w0, icg * k_plane + krow * KW + kx, wf) - wz;
							if (s == 1) {
								q_axpy(acc32 + (jlo - ox0), x0 + xb + jlo, jhi - jlo + 1, wv,
								       xf, xadj);
							} else {
								for (j = jlo; j <= jhi; j++)
									acc32[j - ox0] += wv * (Q_B8(x0, xb + j * s, xf) - xz);
							}
							if (++terms == Q_FLUSH) {
								q_flush(acc, acc32, len);
								terms = 0;
							}
						}
					}
				}
				q_flush(acc, acc32, len);
				for (j = 0; j < len; j++) {
					if (ql)
						q_requant(ydt, out[0], ybase + ox0 + j, acc[j], mult, yz, lo, hi);
					else
						((int32_t *)out[0])[ybase + ox0 + j] = q_wrap32(acc[j]);
				}
			}
		}
	}
	return INGOT_OK;
}

/* Whether element strides st over dims (rank r) are the row-major ones (unit dims
 * aside). */
static int q_contiguous(int64_t r, const int64_t *dims, const int64_t *st)
{
	int64_t want = 1, d;
	for (d = r - 1; d >= 0; d--) {
		if (dims[d] != 1 && st[d] != want)
			return 0;
		want *= dims[d];
	}
	return 1;
}

/* Reads element i of an 8-bit operand as an int. */
static int q_ld8(int dt, const void *p, int64_t i)
{
	return dt == INGOT_DT_U8 ? ((const uint8_t *)p)[i] : ((const int8_t *)p)[i];
}

INGOT_KERNEL int ingot_qbinary(const void *params, const void *const *in, void *const *out,
                               void *scratch, int task, int n_tasks)
{
	const ingot_qbinary_params *p = (const ingot_qbinary_params *)params;
	int adt = (int)p->a_dtype, bdt = (int)p->b_dtype, ydt = (int)p->y_dtype, d;
	double lo, hi, za, zb, zy;
	float sa, sb, sy;
	int64_t e, e0, e1;
	(void)scratch;
	if (p->rank < 0 || p->rank > INGOT_MAX_RANK || !q_range(ydt, &lo, &hi) || !in[0] ||
	    !in[1] || !in[3] || !in[4] || !in[6] || !out[0])
		return INGOT_EINVAL;
	q_clamp_range(&lo, &hi, p->y_lo, p->y_hi);
	if (!q_span(p->n, task, n_tasks, &e0, &e1))
		return INGOT_OK;
	sa = ((const float *)in[1])[0];
	sb = ((const float *)in[4])[0];
	sy = ((const float *)in[6])[0];
	za = in[2] ? (double)q_ld8(adt, in[2], 0) : 0.0;
	zb = in[5] ? (double)q_ld8(bdt, in[5], 0) : 0.0;
	zy = in[7] ? (double)q_ld8(ydt, in[7], 0) : 0.0;
	if (q_contiguous(p->rank, p->dims, p->sa) && q_contiguous(p->rank, p->dims, p->sb)) {
		/* no broadcast: each operand's 256 dequantized values, then one flat loop */
		float ta[256], tb[256];
		const uint8_t *xa = (const uint8_t *)in[0], *xb = (const uint8_t *)in[3];
		for (d = 0; d < 256; d++) {
			ta[d] = (float)(((double)q_ld8(adt, &(uint8_t){ (uint8_t)d }, 0) - za) * (double)sa);
			tb[d] = (float)(((double)q_ld8(bdt, &(uint8_t){ (uint8_t)d }, 0) - zb) * (double)sb);
		}
		if (ydt == INGOT_DT_U8 || ydt == INGOT_DT_I8) {
			/* 8-bit outputs in float, the same values: v / sy rounded to an integer is
			 * exact in float, adding the zero point too below 2^24, and a larger
			 * quotient saturates either way (NaN to lo as well) */
			const float zf = (float)zy, lof = (float)lo, hif = (float)hi;
			uint8_t *yq = (uint8_t *)out[0];
			for (e = e0; e < e1; e++) {
				float a = ta[xa[e]], b = tb[xb[e]];
				float v = p->op == INGOT_QB_MUL ? (float)((double)a * (double)b) : a + b;
				float r = rintf(v / sy) + zf;
				if (!(r >= lof))
					r = lof;
				if (r > hif)
					r = hif;
				yq[e] = ydt == INGOT_DT_U8 ? (uint8_t)(int)r : (uint8_t)(int8_t)(int)r;
			}
			return INGOT_OK;
		}
		for (e = e0; e < e1; e++) {
			float a = ta[xa[e]], b = tb[xb[e]];
			float v = p->op == INGOT_QB_MUL ? (float)((double)a * (double)b) : a + b;
			q_st_int(ydt, out[0], e, rint((double)(v / sy)) + zy, lo, hi);
		}
		return INGOT_OK;
	}
	for (e = e0; e < e1; e++) {
		int64_t rem = e, oa = 0, ob = 0;
		float a, b, v;
		for (d = (int)p->rank - 1; d >= 0; d--) {
			int64_t i = p->dims[d] ? rem % p->dims[d] : 0;
			rem = p->dims[d] ? rem / p->dims[d] : 0;
			oa += i * p->sa[d];
			ob += i * p->sb[d];
		}
		/* DequantizeLinear's float products (exact in double, then rounded) */
		a = (float)(((double)q_ld8(adt, in[0], oa) - za) * (double)sa);
		b = (float)(((double)q_ld8(bdt, in[3], ob) - zb) * (double)sb);
		v = p->op == INGOT_QB_MUL ? (float)((double)a * (double)b) : a + b;
		/* QuantizeLinear's float quotient, rounded half to even */
		q_st_int(ydt, out[0], e, rint((double)(v / sy)) + zy, lo, hi);
	}
	return INGOT_OK;
}

INGOT_KERNEL int ingot_qlookup(const void *params, const void *const *in, void *const *out,
                               void *scratch, int task, int n_tasks)
{
	const ingot_qlookup_params *p = (const ingot_qlookup_params *)params;
	const uint8_t *x = (const uint8_t *)in[0], *t = (const uint8_t *)in[1];
	uint8_t *y = (uint8_t *)out[0];
	int64_t e, e0, e1;
	(void)scratch;
	if (!x || !t || !y)
		return INGOT_EINVAL;
	if (!q_span(p->n, task, n_tasks, &e0, &e1))
		return INGOT_OK;
	for (e = e0; e < e1; e++)
		y[e] = t[x[e]];
	return INGOT_OK;
}

INGOT_KERNEL int ingot_matmul_w8(const void *params, const void *const *in, void *const *out,
                                 void *scratch, int task, int n_tasks)
{
	const ingot_matmul_w8_params *p = (const ingot_matmul_w8_params *)params;
	const float *a = (const float *)in[0], *s = (const float *)in[2];
	const float *b = p->has_bias ? (const float *)in[3] : NULL;
	float *y = (float *)out[0];
	int64_t i, j, kk, j0, j1;
	int u8 = p->w_dtype == INGOT_DT_U8;
	(void)scratch;
	if (!a || !in[1] || !s || !y || (p->has_bias && !b) || (p->s_n != 1 && p->s_n != p->n) ||
	    (!u8 && p->w_dtype != INGOT_DT_I8))
		return INGOT_EINVAL;
	if (!q_span(p->n, task, n_tasks, &j0, &j1))
		return INGOT_OK;
	for (i = 0; i < p->m; i++) {
		float *yr = y + i * p->n;
		const float *ar = a + i * p->k;
		for (j = j0; j < j1; j++)
			yr[j] = 0.0f;
		for (kk = 0; kk < p->k; kk++) {
			float av = ar[kk];
			if (u8) {
				const uint8_t *w = (const uint8_t *)in[1] + kk * p->n;
				for (j = j0; j < j1; j++)
					yr[j] += av * (float)w[j];
			} else {
				const int8_t *w = (const int8_t *)in[1] + kk * p->n;
				for (j = j0; j < j1; j++)
					yr[j] += av * (float)w[j];
			}
		}
		for (j = j0; j < j1; j++)
			yr[j] = yr[j] * s[p->s_n == 1 ? 0 : j] + (b ? b[j] : 0.0f);
	}
	return INGOT_OK;
}
