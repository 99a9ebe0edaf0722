/* neon/pooling.c — NEON f32 MaxPool / AveragePool over 1 or 2 spatial dims: four
 * output columns per vector wherever their windows lie inside the input row
 * (stride 1 loads contiguous, stride 2 de-interleaves, others gather), the border
 * columns one at a time. Windows are visited in the reference's order, so maxima
 * (NaN rules included), sums and divisors are bit-identical to pool.c. */
#include "pooling.h"

#include <arm_neon.h>
#include <string.h>

typedef struct np_geo {
	int64_t H, W, OH, OW, KH, KW, sh, sw, dh, dw, ph, pw, ph_end, pw_end;
	int avg, incl;               /* AveragePool; count_include_pad */
} np_geo;

/* AveragePool's count_include_pad divisor along one dim (pool_padded_count) */
static int64_t np_count(int64_t o, int64_t s, int64_t pb, int64_t pe, int64_t k, int64_t d,
                        int64_t size)
{
	int64_t n = 0, i, start = o * s - pb;
	for (i = 0; i < k; i++) {
		int64_t id = start + i * d;
		if (id >= -pb && id < size + pe)
			n++;
	}
	return n;
}

/* Output (oy, ox) alone: the reference loop. */
static float np_one(const np_geo *g, const float *x, int64_t oy, int64_t ox)
{
	float best = 0.0f, sum = 0.0f;
	int64_t ky, kx, cnt = 0;
	int seen = 0;
	for (ky = 0; ky < g->KH; ky++) {
		int64_t iy = oy * g->sh - g->ph + ky * g->dh;
		if (iy < 0 || iy >= g->H)
			continue;
		for (kx = 0; kx < g->KW; kx++) {
			int64_t ix = ox * g->sw - g->pw + kx * g->dw;
			float v;
			if (ix < 0 || ix >= g->W)
				continue;
			v = x[iy * g->W + ix];
			if (g->avg) {
				sum += v;
				cnt++;
			} else if (!seen || v > best) {
				best = v;
				seen = 1;
			}
		}
	}
	if (!g->avg)
		return best;
	if (g->incl)
		cnt = np_count(oy, g->sh, g->ph, g->ph_end, g->KH, g->dh, g->H) *
		      np_count(ox, g->sw, g->pw, g->pw_end, g->KW, g->dw, g->W);
	return cnt ? sum / (float)cnt : 0.0f;
}

/* Four input columns starting at s, spaced by the stride. */
static inline float32x4_t np_load(const float *s, int64_t sw)
{
	float t[4];
	int q;
	if (sw == 1)
		return vld1q_f32(s);
	if (sw == 2)
		return vld2q_f32(s).val[0];
	for (q = 0; q < 4; q++)
		t[q] = s[q * sw];
	return vld1q_f32(t);
}

static void np_plane(const np_geo *g, const float *x, float *y)
{
	/* columns [lo, hi) have every window column inside the row (stride 2 loads one
	 * float past the last lane) */
	const int64_t span = (g->KW - 1) * g->dw + (g->sw == 2 ? 1 : 0);
	const int64_t lo = (g->pw + g->sw - 1) / g->sw;
	const int64_t hi = g->W - 1 - span + g->pw >= 0 ? (g->W - 1 - span + g->pw) / g->sw + 1 : 0;
	int64_t oy, ox, ky, kx;
	for (oy = 0; oy < g->OH; oy++) {
		float *yr = y + oy * g->OW;
		int64_t nval = 0, cnt;
		for (ky = 0; ky < g->KH; ky++) {
			int64_t iy = oy * g->sh - g->ph + ky * g->dh;
			nval += iy >= 0 && iy < g->H;
		}
		cnt = (g->incl ? np_count(oy, g->sh, g->ph, g->ph_end, g->KH, g->dh, g->H) : nval) * g->KW;
		for (ox = 0; ox < g->OW;) {
			if (ox >= lo && ox + 4 <= hi && nval > 0 && g->KW > 0) {
				const float *xr = x + ox * g->sw - g->pw;
				float32x4_t acc = vdupq_n_f32(0.0f);
				int seen = 0;
				for (ky = 0; ky < g->KH; ky++) {
					int64_t iy = oy * g->sh - g->ph + ky * g->dh;
					if (iy < 0 || iy >= g->H)
						continue;
					for (kx = 0; kx < g->KW; kx++) {
						float32x4_t v = np_load(xr + iy * g->W + kx * g->dw, g->sw);
						if (g->avg)
							acc = vaddq_f32(acc, v);
						else
							acc = seen ? vbslq_f32(vcgtq_f32(v, acc), v, acc) : v;
						seen = 1;
					}
				}
				if (g->avg) {
#if defined(__aarch64__)
					acc = vdivq_f32(acc, vdupq_n_f32((float)cnt));
#else
					float t[4];
					int q;
					vst1q_f32(t, acc);
					for (q = 0; q < 4; q++)
						t[q] /= (float)cnt;
					acc = vld1q_f32(t);
#endif
				}
				vst1q_f32(yr + ox, acc);
				ox += 4;
			} else {
				yr[ox] = np_one(g, x, oy, ox);
				ox++;
			}
		}
	}
}

INGOT_KERNEL int ingot_neon_pool(const void *params, const void *const *in, void *const *out,
                                 void *scratch, int task, int n_tasks)
{
	const ingot_neon_pool_params *p = (const ingot_neon_pool_params *)params;
	const float *x = (const float *)in[0];
	float *y = (float *)out[0];
	const int two = p->nsp == 2;
	const int64_t L = p->nsp - 1;
	np_geo g;
	int64_t units, u0, u1, u;
	(void)scratch;
	if (p->dtype != INGOT_DT_F32 || (p->nsp != 1 && p->nsp != 2) || p->has_indices || !x || !y)
		return INGOT_EINVAL;
	memset(&g, 0, sizeof g);
	g.avg = p->kind == INGOT_NEON_POOL_AVG;
	g.incl = p->count_include_pad != 0;
	g.H = two ? p->x_dims[2] : 1;
	g.OH = two ? p->y_dims[2] : 1;
	g.KH = two ? p->kernel[0] : 1;
	g.sh = two ? p->strides[0] : 1;
	g.dh = two ? p->dilations[0] : 1;
	g.ph = two ? p->pads[0] : 0;
	g.ph_end = two ? p->pads[2] : 0;
	g.W = p->x_dims[2 + L];
	g.OW = p->y_dims[2 + L];
	g.KW = p->kernel[L];
	g.sw = p->strides[L];
	g.dw = p->dilations[L];
	g.pw = p->pads[L];
	g.pw_end = p->pads[p->nsp + L];
	if (g.sh < 1 || g.sw < 1 || g.dh < 1 || g.dw < 1)
		return INGOT_EINVAL;
	units = p->y_dims[0] * p->y_dims[1];
	if (n_tasks < 1) {
		task = 0;
		n_tasks = 1;
	}
	u0 = units * task / n_tasks;
	u1 = units * (task + 1) / n_tasks;
	for (u = u0; u < u1; u++)
		np_plane(&g, x + u * g.H * g.W, y + u * g.OH * g.OW);
	return INGOT_OK;
}
