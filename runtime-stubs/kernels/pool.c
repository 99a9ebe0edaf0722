/* pool.c — reference kernels of MaxPool / AveragePool (a direct loop over each
 * window, skipping padding) and of the global pools (one contiguous reduction per
 * plane), with a row-buffer path for 2-D 8-bit MaxPool. f16 compares and sums in
 * float; sums of the global average in double.
 */
#include "pool.h"

#include <math.h>
#include <string.h>

#define POOL_MAX_SP 6

/* Steps a row-major multi-index over dims[0..n); wraps to zeros at the end. */
static void pool_next(int64_t *idx, const int64_t *dims, int n)
{
	int d;
	for (d = n - 1; d >= 0; d--) {
		if (++idx[d] < dims[d])
			return;
		idx[d] = 0;
	}
}

typedef struct pool_geo {
	int nsp;
	int64_t xs[POOL_MAX_SP], ys[POOL_MAX_SP], ks[POOL_MAX_SP];
	int64_t rstr[POOL_MAX_SP], cstr[POOL_MAX_SP];  /* row- and column-major strides of X */
	int64_t x_plane, y_plane, k_plane;
	float qxs, qys;                                  /* INGOT_POOL_QAVG */
	double xzp, yzp, qlo, qhi;
} pool_geo;

/* INGOT_POOL_QAVG computes what DequantizeLinear -> the float pool -> QuantizeLinear
 * compute, bit for bit: each x dequantized to float (the product is exact in double,
 * so this is the float product, whatever the compiler contracts), the float mean,
 * then the float quotient by y_scale rounded half to even. */
static float pool_deq(const pool_geo *g, int64_t x)
{
	return (float)(((double)x - g->xzp) * (double)g->qxs);
}

static double pool_quant(const pool_geo *g, float mean)
{
	double v = rint((double)(mean / g->qys)) + g->yzp;
	return !(v >= g->qlo) ? g->qlo : v > g->qhi ? g->qhi : v;
}

/* AveragePool's divisor with count_include_pad: window positions inside the padded
 * input (positions a ceil_mode window adds past the end pad do not count). */
static int64_t pool_padded_count(const ingot_pool_params *p, const pool_geo *g,
                                 const int64_t *yo)
{
	int64_t total = 1, k, d;
	for (d = 0; d < g->nsp; d++) {
		int64_t n = 0, start = yo[d] * p->strides[d] - p->pads[d];
		for (k = 0; k < g->ks[d]; k++) {
			int64_t id = start + k * p->dilations[d];
			if (id >= -p->pads[d] && id < g->xs[d] + p->pads[g->nsp + d])
				n++;
		}
		total *= n;
	}
	return total;
}

static INGOT_UNUSED float pool_ld_f16(uint16_t v) { return ingot_f16_to_f32(v); }
static INGOT_UNUSED uint16_t pool_st_f16(float v) { return ingot_f32_to_f16(v); }
#define POOL_ID(v) (v)
#define POOL_I8(v) ((int8_t)(v))
#define POOL_U8(v) ((uint8_t)(v))

/* One dtype: planes u0..u1 (u = n * C + c); the 8-bit ones average only as
 * INGOT_POOL_QAVG. */
#define POOL_DEF(NAME, T, ACC, LD, ST) \
static void NAME(const ingot_pool_params *p, const pool_geo *g, const T *x, T *y, \
                 int64_t *ind, int64_t u0, int64_t u1) \
{ \
	int64_t yo[POOL_MAX_SP], ko[POOL_MAX_SP], u, yi, kk; \
	const int is_max = p->kind == INGOT_POOL_MAX, nsp = g->nsp; \
	for (u = u0; u < u1; u++) { \
		const T *xp = x + u * g->x_plane; \
		memset(yo, 0, sizeof yo); \
		for (yi = 0; yi < g->y_plane; yi++, pool_next(yo, g->ys, nsp)) { \
			ACC best = (ACC)0, sum = (ACC)0; \
			float qsum = 0.0f; \
			int64_t bidx = -1, cnt = 0; \
			memset(ko, 0, sizeof ko); \
			for (kk = 0; kk < g->k_plane; kk++, pool_next(ko, g->ks, nsp)) { \
				int64_t off = 0, col = 0; \
				int d, ok = 1; \
				ACC v; \
				for (d = 0; d < nsp && ok; d++) { \
					int64_t id = yo[d] * p->strides[d] - p->pads[d] + ko[d] * p->dilations[d]; \
					ok = id >= 0 && id < g->xs[d]; \
					off += id * g->rstr[d]; \
					col += id * g->cstr[d]; \
				} \
				if (!ok) \
					continue; \
				v = (ACC)LD(xp[off]); \
				if (is_max) { \
					if (bidx < 0 || v > best) { \
						best = v; \
						bidx = p->storage_order ? col : off; \
					} \
				} else if (p->kind == INGOT_POOL_QAVG) { \
					qsum += pool_deq(g, (int64_t)v); \
					cnt++; \
				} else { \
					sum += v; \
					cnt++; \
				} \
			} \
			if (is_max) { \
				y[u * g->y_plane + yi] = ST(best); \
				if (ind) \
					ind[u * g->y_plane + yi] = bidx < 0 ? -1 : u * g->x_plane + bidx; \
			} else if (p->kind == INGOT_POOL_QAVG) { \
				int64_t div = p->count_include_pad ? pool_padded_count(p, g, yo) : cnt; \
				y[u * g->y_plane + yi] = (T)pool_quant(g, div ? qsum / (float)div : 0.0f); \
			} else { \
				if (p->count_include_pad) \
					cnt = pool_padded_count(p, g, yo); \
				y[u * g->y_plane + yi] = ST(cnt ? sum / (ACC)cnt : (ACC)0); \
			} \
		} \
	} \
}

POOL_DEF(pool_f32, float, float, POOL_ID, POOL_ID)
POOL_DEF(pool_f64, double, double, POOL_ID, POOL_ID)
POOL_DEF(pool_f16, uint16_t, float, pool_ld_f16, pool_st_f16)
POOL_DEF(pool_i8, int8_t, int64_t, POOL_ID, POOL_I8)
POOL_DEF(pool_u8, uint8_t, int64_t, POOL_ID, POOL_U8)

/* MaxPool of 8-bit planes in 2-D without dilation or indices, the pooling of quantized
 * nets (the generic loop above costs some 12 ns per window element): per output row,
 * the maximum over the window's rows of each input column goes to a row buffer (a
 * loop compilers vectorize), then each output takes the maximum of its columns there.
 * Outputs are chunked so the columns they read fit POOL_ROW; a window that covers no
 * input gives 0, as above. Returns 0 (nothing done) when the window is wider than the
 * buffer. */
#define POOL_ROW 256
#define POOL_MAX2D_DEF(NAME, T) \
static int NAME(const ingot_pool_params *p, const pool_geo *g, const T *x, T *y, \
                int64_t u0, int64_t u1) \
{ \
	const int64_t h = g->xs[0], w = g->xs[1], oh = g->ys[0], ow = g->ys[1]; \
	const int64_t kh = g->ks[0], kw = g->ks[1], sh = p->strides[0], sw = p->strides[1]; \
	const int64_t ph = p->pads[0], pw = p->pads[1]; \
	const int64_t chunk = kw <= POOL_ROW ? (POOL_ROW - kw) / sw + 1 : 0; \
	T row[POOL_ROW]; \
	int64_t u, oy, ox0, ox, r, c; \
	if (chunk < 1) \
		return 0; \
	for (u = u0; u < u1; u++) { \
		const T *xp = x + u * g->x_plane; \
		T *yp = y + u * g->y_plane; \
		for (oy = 0; oy < oh; oy++, yp += ow) { \
			const int64_t r0 = oy * sh - ph < 0 ? 0 : oy * sh - ph; \
			const int64_t r1 = oy * sh - ph + kh > h ? h : oy * sh - ph + kh; \
			for (ox0 = 0; ox0 < ow; ox0 += chunk) { \
				const int64_t ox1 = ox0 + chunk < ow ? ox0 + chunk : ow; \
				const int64_t c0 = ox0 * sw - pw < 0 ? 0 : ox0 * sw - pw; \
				const int64_t c1 = (ox1 - 1) * sw - pw + kw > w ? w : (ox1 - 1) * sw - pw + kw; \
				if (r0 >= r1 || c0 >= c1) { \
					for (ox = ox0; ox < ox1; ox++) \
						yp[ox] = (T)0; \
					continue; \
				} \
				memcpy(row, xp + r0 * w + c0, (size_t)(c1 - c0) * sizeof(T)); \
				for (r = r0 + 1; r < r1; r++) { \
					const T *xr = xp + r * w + c0; \
					int64_t n = c1 - c0, j; \
					for (c = 0; c + 16 <= n; c += 16) { /* vectorized at -O2 */ \
						T a[16], b[16]; \
						memcpy(a, row + c, sizeof a); \
						memcpy(b, xr + c, sizeof b); \
						for (j = 0; j < 16; j++) \
							a[j] = b[j] > a[j] ? b[j] : a[j]; \
						memcpy(row + c, a, sizeof a); \
					} \
					for (; c < n; c++) \
						row[c] = xr[c] > row[c] ? xr[c] : row[c]; \
				} \
				for (ox = ox0; ox < ox1; ox++) { \
					const int64_t a = ox * sw - pw < c0 ? c0 : ox * sw - pw; \
					const int64_t b = ox * sw - pw + kw > c1 ? c1 : ox * sw - pw + kw; \
					T best = a < b ? row[a - c0] : (T)0; \
					for (c = a + 1; c < b; c++) \
						best = row[c - c0] > best ? row[c - c0] : best; \
					yp[ox] = best; \
				} \
			} \
		} \
	} \
	return 1; \
}

POOL_MAX2D_DEF(pool_max2d_i8, int8_t)
POOL_MAX2D_DEF(pool_max2d_u8, uint8_t)

/* The scales and zero points of a quantized average (in[1..4]: x_scale, x_zp, y_scale,
 * y_zp, f32 and 8-bit scalars). 0 when one is missing. */
static int pool_qparams(int64_t dtype, const void *const *in, pool_geo *g)
{
	int u8 = dtype == INGOT_DT_U8;
	if (!in[1] || !in[2] || !in[3] || !in[4] || (!u8 && dtype != INGOT_DT_I8))
		return 0;
	g->qxs = ((const float *)in[1])[0];
	g->qys = ((const float *)in[3])[0];
	g->xzp = u8 ? ((const uint8_t *)in[2])[0] : ((const int8_t *)in[2])[0];
	g->yzp = u8 ? ((const uint8_t *)in[4])[0] : ((const int8_t *)in[4])[0];
	g->qlo = u8 ? 0.0 : -128.0;
	g->qhi = u8 ? 255.0 : 127.0;
	return 1;
}

INGOT_KERNEL int ingot_pool(const void *params, const void *const *in, void *const *out,
                            void *scratch, int task, int n_tasks)
{
	const ingot_pool_params *p = (const ingot_pool_params *)params;
	pool_geo g;
	int64_t units, u0, u1, cs = 1;
	int d, nsp = (int)p->nsp;
	int64_t *ind = p->kind == INGOT_POOL_MAX && p->has_indices ? (int64_t *)out[1] : NULL;
	(void)scratch;
	if (nsp < 1 || nsp > POOL_MAX_SP || !in[0] || !out[0])
		return INGOT_EINVAL;
	memset(&g, 0, sizeof g);
	if (p->kind == INGOT_POOL_QAVG && !pool_qparams(p->dtype, in, &g))
		return INGOT_EINVAL;
	g.nsp = nsp;
	g.x_plane = g.y_plane = g.k_plane = 1;
	for (d = nsp - 1; d >= 0; d--) {
		if (p->strides[d] < 1 || p->dilations[d] < 1)
			return INGOT_EINVAL;
		g.xs[d] = p->x_dims[2 + d];
		g.ys[d] = p->y_dims[2 + d];
		g.ks[d] = p->kernel[d];
		g.rstr[d] = g.x_plane;
		g.x_plane *= g.xs[d];
		g.y_plane *= g.ys[d];
		g.k_plane *= g.ks[d];
	}
	for (d = 0; d < nsp; d++) {
		g.cstr[d] = cs;
		cs *= g.xs[d];
	}
	units = p->y_dims[0] * p->y_dims[1];
	if (n_tasks < 1) {
		task = 0;
		n_tasks = 1;
	}
	u0 = units * task / n_tasks;
	u1 = units * (task + 1) / n_tasks;
	if (nsp == 2 && p->kind == INGOT_POOL_MAX && !ind && p->dilations[0] == 1 &&
	    p->dilations[1] == 1) {
		if (p->dtype == INGOT_DT_U8 &&
		    pool_max2d_u8(p, &g, (const uint8_t *)in[0], (uint8_t *)out[0], u0, u1))
			return INGOT_OK;
		if (p->dtype == INGOT_DT_I8 &&
		    pool_max2d_i8(p, &g, (const int8_t *)in[0], (int8_t *)out[0], u0, u1))
			return INGOT_OK;
	}
	switch (p->dtype) {
	case INGOT_DT_F32:
		pool_f32(p, &g, (const float *)in[0], (float *)out[0], ind, u0, u1);
		return INGOT_OK;
	case INGOT_DT_F64:
		pool_f64(p, &g, (const double *)in[0], (double *)out[0], ind, u0, u1);
		return INGOT_OK;
	case INGOT_DT_F16:
		pool_f16(p, &g, (const uint16_t *)in[0], (uint16_t *)out[0], ind, u0, u1);
		return INGOT_OK;
	case INGOT_DT_I8:
		pool_i8(p, &g, (const int8_t *)in[0], (int8_t *)out[0], ind, u0, u1);
		return INGOT_OK;
	case INGOT_DT_U8:
		pool_u8(p, &g, (const uint8_t *)in[0], (uint8_t *)out[0], ind, u0, u1);
		return INGOT_OK;
	default:
		return INGOT_EINVAL;
	}
}

/* Global pools: max keeps the element itself (exact for f16); mean sums in double. */
#define POOL_GLOBAL_DEF(NAME, T, LD, ST) \
static void NAME(int64_t kind, int64_t size, const T *x, T *y, int64_t u0, int64_t u1) \
{ \
	int64_t u, i; \
	for (u = u0; u < u1; u++) { \
		const T *xp = x + u * size; \
		if (kind == INGOT_POOL_MAX) { \
			T best = size ? xp[0] : (T)0; \
			for (i = 1; i < size; i++) \
				if (LD(xp[i]) > LD(best)) \
					best = xp[i]; \
			y[u] = best; \
		} else { \
			double sum = 0.0; \
			for (i = 0; i < size; i++) \
				sum += (double)LD(xp[i]); \
			y[u] = ST(size ? sum / (double)size : 0.0); \
		} \
	} \
}

static INGOT_UNUSED uint16_t pool_st_f16d(double v) { return ingot_f32_to_f16((float)v); }
#define POOL_F32D(v) ((float)(v))

POOL_GLOBAL_DEF(pool_global_f32, float, POOL_ID, POOL_F32D)
POOL_GLOBAL_DEF(pool_global_f64, double, POOL_ID, POOL_ID)
POOL_GLOBAL_DEF(pool_global_f16, uint16_t, pool_ld_f16, pool_st_f16d)

INGOT_KERNEL int ingot_global_pool(const void *params, const void *const *in,
                                   void *const *out, void *scratch, int task, int n_tasks)
{
	const ingot_global_pool_params *p = (const ingot_global_pool_params *)params;
	int64_t u0, u1;
	(void)scratch;
	if (!in[0] || !out[0])
		return INGOT_EINVAL;
	if (n_tasks < 1) {
		task = 0;
		n_tasks = 1;
	}
	u0 = p->planes * task / n_tasks;
	u1 = p->planes * (task + 1) / n_tasks;
	if (p->kind == INGOT_POOL_QAVG) {
		pool_geo g;
		int64_t u, i;
		memset(&g, 0, sizeof g);
		if (!pool_qparams(p->dtype, in, &g))
			return INGOT_EINVAL;
		for (u = u0; u < u1; u++) {
			double sum = 0.0, v;
			for (i = 0; i < p->size; i++)
				sum += (double)pool_deq(&g, p->dtype == INGOT_DT_U8
				                                ? ((const uint8_t *)in[0])[u * p->size + i]
				                                : ((const int8_t *)in[0])[u * p->size + i]);
			v = pool_quant(&g, p->size ? (float)(sum / (double)p->size) : 0.0f);
			if (p->dtype == INGOT_DT_U8)
				((uint8_t *)out[0])[u] = (uint8_t)v;
			else
				((int8_t *)out[0])[u] = (int8_t)v;
		}
		return INGOT_OK;
	}
	switch (p->dtype) {
	case INGOT_DT_F32:
		pool_global_f32(p->kind, p->size, (const float *)in[0], (float *)out[0], u0, u1);
		return INGOT_OK;
	case INGOT_DT_F64:
		pool_global_f64(p->kind, p->size, (const double *)in[0], (double *)out[0], u0, u1);
		return INGOT_OK;
	case INGOT_DT_F16:
		pool_global_f16(p->kind, p->size, (const uint16_t *)in[0], (uint16_t *)out[0], u0, u1);
		return INGOT_OK;
	default:
		return INGOT_EINVAL;
	}
}
