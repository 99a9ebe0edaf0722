/* roi_pool.c — reference kernel of MaxRoiPool (roi_pool.h). Coordinates follow
 * ONNX Runtime's float arithmetic (each step rounded to float unless the dtype is
 * f64), so bin edges land on the same pixels. */
#include "roi_pool.h"

#include <math.h>

static double rp_ld(int64_t dt, const void *p, int64_t i)
{
	switch (dt) {
	case INGOT_DT_F32: return (double)((const float *)p)[i];
	case INGOT_DT_F64: return ((const double *)p)[i];
	case INGOT_DT_F16: return (double)ingot_f16_to_f32(((const uint16_t *)p)[i]);
	case INGOT_DT_BF16: return (double)ingot_bf16_to_f32(((const uint16_t *)p)[i]);
	default: return 0.0;
	}
}

static void rp_st(int64_t dt, void *p, int64_t i, double v)
{
	switch (dt) {
	case INGOT_DT_F32: ((float *)p)[i] = (float)v; break;
	case INGOT_DT_F64: ((double *)p)[i] = v; break;
	case INGOT_DT_F16: ((uint16_t *)p)[i] = ingot_f32_to_f16((float)v); break;
	case INGOT_DT_BF16: ((uint16_t *)p)[i] = ingot_f32_to_bf16((float)v); break;
	default: break;
	}
}

/* v rounded to the coordinate precision: float, or double for f64. */
static double rp_fp(int64_t dt, double v)
{
	return dt == INGOT_DT_F64 ? v : (double)(float)v;
}

static int64_t rp_clamp(int64_t v, int64_t hi)
{
	return v < 0 ? 0 : v > hi ? hi : v;
}

INGOT_KERNEL int ingot_roi_pool(const void *params, const void *const *in, void *const *out,
                                void *scratch, int task, int n_tasks)
{
	const ingot_roi_pool_params *p = (const ingot_roi_pool_params *)params;
	const void *x = in[0], *rois = in[1];
	int64_t lo, hi, dt = p->dtype;
	double scale = rp_fp(dt, (double)p->spatial_scale);
	(void)scratch;
	if (!x || !rois || !out[0] || p->ph < 1 || p->pw < 1)
		return INGOT_EINVAL;
	if (n_tasks < 1)
		n_tasks = 1;
	lo = p->n_rois * task / n_tasks;
	hi = p->n_rois * (task + 1) / n_tasks;
	for (int64_t r = lo; r < hi; r++) {
		double bidx = rp_ld(dt, rois, r * 5);
		if (!(bidx >= 0.0 && bidx < (double)p->n))
			return INGOT_ERANGE;
		int64_t b = (int64_t)bidx, corner[4];
		for (int k = 0; k < 4; k++) {
			double v = round(rp_fp(dt, rp_ld(dt, rois, r * 5 + 1 + k) * scale));
			corner[k] = v < -1e15 ? -(int64_t)1e15 : v > 1e15 ? (int64_t)1e15 : (int64_t)v;
		}
		/* corner: x1, y1, x2, y2 */
		int64_t rh = corner[3] - corner[1] + 1, rw = corner[2] - corner[0] + 1;
		double bh = rp_fp(dt, (double)(rh > 1 ? rh : 1) / (double)p->ph);
		double bw = rp_fp(dt, (double)(rw > 1 ? rw : 1) / (double)p->pw);
		for (int64_t ch = 0; ch < p->c; ch++) {
			int64_t base = (b * p->c + ch) * p->h * p->w;
			int64_t obase = (r * p->c + ch) * p->ph * p->pw;
			for (int64_t i = 0; i < p->ph; i++) {
				int64_t h0 = rp_clamp((int64_t)floor(rp_fp(dt, (double)i * bh)) + corner[1], p->h);
				int64_t h1 = rp_clamp((int64_t)ceil(rp_fp(dt, (double)(i + 1) * bh)) + corner[1], p->h);
				for (int64_t j = 0; j < p->pw; j++) {
					int64_t w0 = rp_clamp((int64_t)floor(rp_fp(dt, (double)j * bw)) + corner[0], p->w);
					int64_t w1 = rp_clamp((int64_t)ceil(rp_fp(dt, (double)(j + 1) * bw)) + corner[0], p->w);
					double m = 0.0;
					int any = 0;
					for (int64_t yy = h0; yy < h1; yy++)
						for (int64_t xx = w0; xx < w1; xx++) {
							double v = rp_ld(dt, x, base + yy * p->w + xx);
							if (!any || v > m || v != v)
								m = v;
							any = 1;
						}
					rp_st(dt, out[0], obase + i * p->pw + j, m);
				}
			}
		}
	}
	return INGOT_OK;
}
