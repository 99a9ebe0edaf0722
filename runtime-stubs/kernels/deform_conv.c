/* deform_conv.c — reference kernel of DeformConv (deform_conv.h): a direct loop
 * over output planes, bilinear samples in double. Each task owns whole output
 * planes, so any split gives the same bytes. */
#include "deform_conv.h"

#include <math.h>

/* X's plane at `base` (h x w) sampled at (y, x): bilinear over the four neighbours,
 * a neighbour outside the plane counting as 0. */
static double dc_sample(const ingot_deform_conv_params *p, const void *x, int64_t base, double y,
                        double xx)
{
	double fy = floor(y), fx = floor(xx), ly = y - fy, lx = xx - fx, v = 0.0;
	if (!(fy > -2.0 && fy < (double)p->h && fx > -2.0 && fx < (double)p->w))
		return 0.0;                      /* all four outside (or NaN) */
	int64_t y0 = (int64_t)fy, x0 = (int64_t)fx;
	for (int a = 0; a < 2; a++) {
		int64_t yy = y0 + a;
		double wy = a ? ly : 1.0 - ly;
		if (yy < 0 || yy >= p->h || wy == 0.0)
			continue;
		for (int b = 0; b < 2; b++) {
			int64_t xc = x0 + b;
			double wx = b ? lx : 1.0 - lx;
			if (xc < 0 || xc >= p->w || wx == 0.0)
				continue;
			v += wy * wx * ingot_ldf(p->dtype, x, base + yy * p->w + xc);
		}
	}
	return v;
}

INGOT_KERNEL int ingot_deform_conv(const void *params, const void *const *in, void *const *out,
                                   void *scratch, int task, int n_tasks)
{
	const ingot_deform_conv_params *p = (const ingot_deform_conv_params *)params;
	const void *x = in[0], *wt = in[1], *off = in[2];
	const void *bias = p->n_in > 3 ? in[3] : NULL, *mask = p->n_in > 4 ? in[4] : NULL;
	int64_t planes = p->n * p->oc, lo, hi, taps = p->kh * p->kw, osz = p->oh * p->ow;
	(void)scratch;
	if (!x || !wt || !off || !out[0] || p->group < 1 || p->offset_group < 1)
		return INGOT_EINVAL;
	if (n_tasks < 1)
		n_tasks = 1;
	lo = planes * task / n_tasks;
	hi = planes * (task + 1) / n_tasks;
	int64_t cpg = p->c / p->group, ocpg = p->oc / p->group, cpog = p->c / p->offset_group;
	for (int64_t pl = lo; pl < hi; pl++) {
		int64_t b = pl / p->oc, o = pl % p->oc, g = o / ocpg;
		double b0 = bias ? ingot_ldf(p->dtype, bias, o) : 0.0;
		for (int64_t oy = 0; oy < p->oh; oy++)
			for (int64_t ox = 0; ox < p->ow; ox++) {
				double acc = b0;
				int64_t pos = oy * p->ow + ox;
				for (int64_t k = 0; k < cpg; k++) {
					int64_t ic = g * cpg + k, og = ic / cpog;
					int64_t xbase = (b * p->c + ic) * p->h * p->w;
					for (int64_t t = 0; t < taps; t++) {
						int64_t i = t / p->kw, j = t % p->kw;
						int64_t oc_h = ((b * p->offset_group + og) * taps + t) * 2;
						double dy = ingot_ldf(p->dtype, off, oc_h * osz + pos);
						double dx = ingot_ldf(p->dtype, off, (oc_h + 1) * osz + pos);
						int64_t mi = ((b * p->offset_group + og) * taps + t) * osz + pos;
						double m = mask ? ingot_ldf(p->dtype, mask, mi) : 1.0;
						double y = (double)(oy * p->sh - p->pad_t + i * p->dh) + dy;
						double xx = (double)(ox * p->sw - p->pad_l + j * p->dw) + dx;
						double wv = ingot_ldf(p->dtype, wt, (o * cpg + k) * taps + t);
						acc += wv * m * dc_sample(p, x, xbase, y, xx);
					}
				}
				ingot_stf(p->dtype, out[0], pl * osz + pos, acc);
			}
	}
	return INGOT_OK;
}
