/* roi_pool.c — reference kernel of MaxRoiPool (roi_pool.h). Coordinates follow
 * ONNX Runtime's float arithmetic (each step rounded to float unless the dtype is
 * f64), so bin edges land on the same pixels. */
#include "roi_pool.h"

#include <math.h>

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
		double bidx = ingot_ldf(dt, rois, r * 5);
		if (!(bidx >= 0.0 && bidx < (double)p->n))
			return INGOT_ERANGE;
		int64_t b = (int64_t)bidx, corner[4];
		for (int k = 0; k < 4; k++) {
			double v = round(rp_fp(dt, ingot_ldf(dt, rois, r * 5 + 1 + k) * scale));
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
							double v = ingot_ldf(dt, x, base + yy * p->w + xx);
							if (!any || v > m || v != v)
								m = v;
							any = 1;
						}
					ingot_stf(dt, out[0], obase + i * p->pw + j, m);
				}
			}
		}
	}
	return INGOT_OK;
}
