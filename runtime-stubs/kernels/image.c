/* image.c — reference kernels of Resize / Upsample, GridSample, AffineGrid, RoiAlign
 * and NonMaxSuppression. Interpolation computes in double through one load/store pair
 * per element (every numeric dtype, f16/bf16 through float), following the ONNX
 * reference implementation's coordinate formulas, so tie-breaking of nearest modes
 * and the boundary tests of tf_crop_and_resize match it.
 */
#include "image.h"

#include <math.h>
#include <string.h>

/* Integer results round half away from zero and saturate (NaN becomes 0), so no
 * out-of-range float-to-int conversion happens. */
static double img_round(double v, double lo, double hi)
{
	if (v != v)
		return 0.0;
	v = round(v);
	return v < lo ? lo : v > hi ? hi : v;
}

static void img_st(int64_t dt, void *p, int64_t i, double v)
{
	switch (dt) {
	case INGOT_DT_I8: ((int8_t *)p)[i] = (int8_t)img_round(v, -128.0, 127.0); break;
	case INGOT_DT_U8: ((uint8_t *)p)[i] = (uint8_t)img_round(v, 0.0, 255.0); break;
	case INGOT_DT_I16: ((int16_t *)p)[i] = (int16_t)img_round(v, -32768.0, 32767.0); break;
	case INGOT_DT_U16: ((uint16_t *)p)[i] = (uint16_t)img_round(v, 0.0, 65535.0); break;
	case INGOT_DT_I32:
		((int32_t *)p)[i] = (int32_t)img_round(v, -2147483648.0, 2147483647.0);
		break;
	case INGOT_DT_U32: ((uint32_t *)p)[i] = (uint32_t)img_round(v, 0.0, 4294967295.0); break;
	case INGOT_DT_I64:
		v = img_round(v, -9223372036854775808.0, 9223372036854775808.0);
		((int64_t *)p)[i] = v >= 9223372036854775808.0 ? INT64_MAX : (int64_t)v;
		break;
	case INGOT_DT_U64:
		v = img_round(v, 0.0, 18446744073709551616.0);
		((uint64_t *)p)[i] = v >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)v;
		break;
	case INGOT_DT_BOOL: ((uint8_t *)p)[i] = v != 0.0; break;
	default: ingot_stf(dt, p, i, v); break;   /* the float types */
	}
}

/* Copies element si of src to element di of dst (sizes 1, 2, 4, 8). */
static void img_copy(size_t es, void *dst, int64_t di, const void *src, int64_t si)
{
	switch (es) {
	case 1: ((uint8_t *)dst)[di] = ((const uint8_t *)src)[si]; break;
	case 2: ((uint16_t *)dst)[di] = ((const uint16_t *)src)[si]; break;
	case 4: ((uint32_t *)dst)[di] = ((const uint32_t *)src)[si]; break;
	default: ((uint64_t *)dst)[di] = ((const uint64_t *)src)[si]; break;
	}
}

static int64_t img_clamp(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* A coordinate as int64 without overflow (NaN goes far below any index). */
static double img_bound(double x)
{
	if (x != x)
		return -1e15;
	return x < -1e15 ? -1e15 : x > 1e15 ? 1e15 : x;
}

/* Keys' cubic convolution kernel at distance x >= 0. */
static double img_cubic(double x, double a)
{
	if (x <= 1.0)
		return ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0;
	if (x < 2.0)
		return ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a;
	return 0.0;
}

/* Splits [0, total) among tasks. */
static void img_range(int64_t total, int task, int n_tasks, int64_t *lo, int64_t *hi)
{
	if (n_tasks < 1) {
		task = 0;
		n_tasks = 1;
	}
	*lo = total * task / n_tasks;
	*hi = total * (task + 1) / n_tasks;
}

/* ---- Resize ---- */

static double rs_scale(const ingot_resize_params *p, int d)
{
	const double s[8] = { p->scale0, p->scale1, p->scale2, p->scale3,
	                      p->scale4, p->scale5, p->scale6, p->scale7 };
	return s[d];
}

static void rs_roi(const ingot_resize_params *p, int d, double *lo, double *hi)
{
	const double l[8] = { p->roi_lo0, p->roi_lo1, p->roi_lo2, p->roi_lo3,
	                      p->roi_lo4, p->roi_lo5, p->roi_lo6, p->roi_lo7 };
	const double h[8] = { p->roi_hi0, p->roi_hi1, p->roi_hi2, p->roi_hi3,
	                      p->roi_hi4, p->roi_hi5, p->roi_hi6, p->roi_hi7 };
	*lo = l[d];
	*hi = h[d];
}

/* The input coordinate of output index o on axis d (the reference's formulas,
 * evaluated in the same order). out_w is scale * in, not the integer size. */
static double rs_coord(const ingot_resize_params *p, int d, int64_t o)
{
	double s = rs_scale(p, d), in = (double)p->x_dims[d], x = (double)o;
	double out_w = s * in, lo, hi;
	switch (p->ctm) {
	case INGOT_CTM_ALIGN_CORNERS:
		return out_w == 1.0 ? 0.0 : x * (in - 1.0) / (out_w - 1.0);
	case INGOT_CTM_ASYMMETRIC:
		return x / s;
	case INGOT_CTM_TF_CROP_AND_RESIZE:
		rs_roi(p, d, &lo, &hi);
		if (out_w == 1.0)
			return (hi - lo) * (in - 1.0) / 2.0 + lo * (in - 1.0);
		return x * (hi - lo) * (in - 1.0) / (out_w - 1.0) + lo * (in - 1.0);
	case INGOT_CTM_PYTORCH_HALF_PIXEL:
		return out_w == 1.0 ? -0.5 : (x + 0.5) / s - 0.5;
	case INGOT_CTM_HALF_PIXEL_SYMMETRIC: {
		double adj = (double)p->y_dims[d] / out_w;
		return in / 2.0 * (1.0 - adj) + (x + 0.5) / s - 0.5;
	}
	case INGOT_CTM_TF_HALF_PIXEL_FOR_NN:
		return (x + 0.5) / s;
	default:
		return (x + 0.5) / s - 0.5;
	}
}

/* image.h: the tap table of axis d */
INGOT_KERNEL void ingot_resize_taps(const ingot_resize_params *p, int d, int64_t *idx, double *w)
{
	int64_t k = p->taps[d], in = p->x_dims[d], o, j;
	int64_t start = 1 - k / 2;
	double s = rs_scale(p, d);
	double sc = p->antialias && s < 1.0 ? s : 1.0;
	for (o = 0; o < p->y_dims[d]; o++, idx += k, w += k) {
		double x = rs_coord(p, d, o), r, sum = 0.0;
		int64_t base, pick;
		if (p->ctm == INGOT_CTM_TF_CROP_AND_RESIZE && (x < 0.0 || x > (double)(in - 1))) {
			for (j = 0; j < k; j++) {
				idx[j] = -1;
				w[j] = 0.0;
			}
			continue;
		}
		x = img_bound(x);
		base = (int64_t)ceil(x) - 1;   /* ratio in (0, 1]: prefer the left pixel */
		r = x - (double)base;
		if (p->mode == INGOT_INTERP_NEAREST) {
			switch (p->nearest) {
			case INGOT_NEAREST_ROUND_PREFER_CEIL: pick = r < 0.5 ? base : base + 1; break;
			case INGOT_NEAREST_FLOOR: pick = r == 1.0 ? base + 1 : base; break;
			case INGOT_NEAREST_CEIL: pick = base + 1; break;
			case INGOT_NEAREST_SIMPLE:   /* ceil when downsampling, else floor */
				pick = s < 1.0 || r == 1.0 ? base + 1 : base;
				break;
			default: pick = r <= 0.5 ? base : base + 1; break;
			}
			idx[0] = img_clamp(pick, 0, in - 1);
			w[0] = 1.0;
			continue;
		}
		for (j = 0; j < k; j++) {
			int64_t i = base + start + j;
			double a = fabs(((double)(start + j) - r) * sc), wj;
			if (p->mode == INGOT_INTERP_LINEAR)
				wj = a < 1.0 ? 1.0 - a : 0.0;
			else
				wj = img_cubic(a, p->cubic_a);
			if (p->exclude_outside && (i < 0 || i >= in))
				wj = 0.0;
			idx[j] = img_clamp(i, 0, in - 1);
			w[j] = wj;
			sum += wj;
		}
		if ((p->antialias || p->exclude_outside) && sum != 0.0)
			for (j = 0; j < k; j++)
				w[j] /= sum;
	}
}

/* The common case, an image resize: only the last two axes (H, W) resized, no
 * tf_crop_and_resize extrapolation. Row by row from the tap tables, with the generic
 * loop's arithmetic in its order (weights multiplied from 1.0 in axis order, the sum
 * in double from 0.0, H taps outer), so the results are the same bits; tasks split
 * the output rows. th/tw: H's and W's tables, NULL for an axis kept as it is. */
static void rs_rows(const ingot_resize_params *p, const int64_t *hi, const double *hw, const int64_t *wi,
                    const double *ww, int task, int n_tasks, const void *x, void *y)
{
	const int r = (int)p->rank;
	const int64_t H = r >= 2 ? p->x_dims[r - 2] : 1, W = p->x_dims[r - 1];
	const int64_t OH = r >= 2 ? p->y_dims[r - 2] : 1, OW = p->y_dims[r - 1];
	const int64_t kh = hi ? p->taps[r - 2] : 1, kw = wi ? p->taps[r - 1] : 1;
	const size_t es = ingot_dtype_size((int)p->dtype);
	int64_t planes = 1, rows, r0, r1;
	for (int d = 0; d < r - 2; d++)
		planes *= p->y_dims[d];
	rows = planes * OH;
	img_range(rows, task, n_tasks, &r0, &r1);
	for (int64_t row = r0; row < r1; row++) {
		const int64_t plane = row / OH, oh = row % OH, xoff = plane * H * W, yoff = row * OW;
		if (p->mode == INGOT_INTERP_NEAREST) {
			const int64_t src = xoff + (hi ? hi[oh] : oh) * W;
			if (es == 4) {
				const uint32_t *xs = (const uint32_t *)x + src;
				uint32_t *ys = (uint32_t *)y + yoff;
				if (wi)
					for (int64_t ow = 0; ow < OW; ow++)
						ys[ow] = xs[wi[ow]];
				else
					for (int64_t ow = 0; ow < OW; ow++)
						ys[ow] = xs[ow];
			} else {
				for (int64_t ow = 0; ow < OW; ow++)
					img_copy(es, y, yoff + ow, x, src + (wi ? wi[ow] : ow));
			}
			continue;
		}
		const float *xf = (const float *)x + xoff;
		float *yf = (float *)y + yoff;
		if (kh == 2 && kw == 2 && hi && wi) {   /* bilinear: the four taps spelled out */
			const float *a = xf + hi[2 * oh] * W, *b = xf + hi[2 * oh + 1] * W;
			const double h0 = hw[2 * oh], h1 = hw[2 * oh + 1];
			for (int64_t ow = 0; ow < OW; ow++) {
				const int64_t i0 = wi[2 * ow], i1 = wi[2 * ow + 1];
				const double w0 = ww[2 * ow], w1 = ww[2 * ow + 1];
				double acc = 0.0;
				acc += h0 * w0 * (double)a[i0];
				acc += h0 * w1 * (double)a[i1];
				acc += h1 * w0 * (double)b[i0];
				acc += h1 * w1 * (double)b[i1];
				yf[ow] = (float)acc;
			}
			continue;
		}
		for (int64_t ow = 0; ow < OW; ow++) {
			double acc = 0.0;
			for (int64_t th = 0; th < kh; th++) {
				const float *xr = xf + (hi ? hi[oh * kh + th] : oh) * W;
				const double wh = hi ? hw[oh * kh + th] : 1.0;
				for (int64_t tw = 0; tw < kw; tw++) {
					const double wt = wi ? wh * ww[ow * kw + tw] : wh;
					acc += wt * (double)xr[wi ? wi[ow * kw + tw] : ow];
				}
			}
			yf[ow] = (float)acc;
		}
	}
}

INGOT_KERNEL int ingot_resize(const void *params, const void *const *in, void *const *out,
                              void *scratch, int task, int n_tasks)
{
	const ingot_resize_params *p = (const ingot_resize_params *)params;
	int64_t *tidx[INGOT_MAX_RANK] = { 0 }, xs[INGOT_MAX_RANK], oi[INGOT_MAX_RANK];
	double *tw[INGOT_MAX_RANK] = { 0 };
	int64_t total = 1, i0, i1, i, rem;
	unsigned char *sp = (unsigned char *)scratch;
	const float *f32 = p->dtype == INGOT_DT_F32 ? (const float *)in[0] : NULL;
	size_t es = ingot_dtype_size((int)p->dtype);
	int rank = (int)p->rank, d;
	if (rank < 1 || rank > INGOT_MAX_RANK || es == 0 || !in[0] || !out[0])
		return INGOT_EINVAL;
	for (d = 0; d < rank; d++)
		total *= p->y_dims[d];
	if (total == 0)
		return INGOT_OK;
	for (d = rank - 1, rem = 1; d >= 0; d--) {
		xs[d] = rem;
		rem *= p->x_dims[d];
		if (p->x_dims[d] < 1 || p->taps[d] < 0)
			return INGOT_EINVAL;
	}
	for (d = 0; d < rank; d++) {
		int64_t n = p->y_dims[d] * p->taps[d];
		tidx[d] = NULL;
		tw[d] = NULL;
		if (!p->taps[d])
			continue;
		if (!sp)
			return INGOT_EINVAL;
		tidx[d] = (int64_t *)(void *)sp;
		tw[d] = (double *)(void *)(sp + 8 * n);
		sp += 16 * n;
		ingot_resize_taps(p, d, tidx[d], tw[d]);
	}
	{   /* only H and W resized (or fewer), no extrapolation, f32 or nearest: by rows */
		int fast = p->ctm != INGOT_CTM_TF_CROP_AND_RESIZE &&
		           (p->mode == INGOT_INTERP_NEAREST || p->dtype == INGOT_DT_F32);
		for (d = 0; d < rank - 2; d++)
			fast &= !p->taps[d];
		if (fast) {
			rs_rows(p, rank >= 2 ? tidx[rank - 2] : NULL, rank >= 2 ? tw[rank - 2] : NULL, tidx[rank - 1],
			        tw[rank - 1], task, n_tasks, in[0], out[0]);
			return INGOT_OK;
		}
	}
	img_range(total, task, n_tasks, &i0, &i1);
	for (d = rank - 1, rem = i0; d >= 0; d--) {
		oi[d] = rem % p->y_dims[d];
		rem /= p->y_dims[d];
	}
	for (i = i0; i < i1; i++) {
		const int64_t *ri[INGOT_MAX_RANK];
		const double *rw[INGOT_MAX_RANK];
		int64_t kk[INGOT_MAX_RANK], st[INGOT_MAX_RANK], t[INGOT_MAX_RANK];
		int64_t off = 0;
		int na = 0, ext = 0, j;
		for (d = 0; d < rank; d++) {
			if (!p->taps[d]) {
				off += oi[d] * xs[d];
				continue;
			}
			kk[na] = p->taps[d];
			ri[na] = tidx[d] + oi[d] * kk[na];
			rw[na] = tw[d] + oi[d] * kk[na];
			st[na] = xs[d];
			ext |= ri[na][0] < 0;
			t[na++] = 0;
		}
		if (ext) {
			img_st(p->dtype, out[0], i, p->extrapolation);
		} else if (p->mode == INGOT_INTERP_NEAREST) {
			for (j = 0; j < na; j++)
				off += ri[j][0] * st[j];
			img_copy(es, out[0], i, in[0], off);
		} else {
			double acc = 0.0;
			for (;;) {
				double wt = 1.0;
				int64_t o2 = off;
				for (j = 0; j < na; j++) {
					wt *= rw[j][t[j]];
					o2 += ri[j][t[j]] * st[j];
				}
				acc += wt * (f32 ? (double)f32[o2] : ingot_ld_num(p->dtype, in[0], o2));
				for (j = na - 1; j >= 0; j--) {
					if (++t[j] < kk[j])
						break;
					t[j] = 0;
				}
				if (j < 0)
					break;
			}
			img_st(p->dtype, out[0], i, acc);
		}
		for (d = rank - 1; d >= 0; d--) {
			if (++oi[d] < p->y_dims[d])
				break;
			oi[d] = 0;
		}
	}
	return INGOT_OK;
}

/* ---- GridSample ---- */

/* Reflects x by the nearer border until it lies in [lo, hi] (the reference's rule). */
static double gs_reflect(double x, double lo, double hi)
{
	double rng = hi - lo, dx, q, r;
	if (x >= lo && x <= hi)
		return x;
	if (!(rng > 0.0))
		return lo;
	dx = x < lo ? lo - x : x - hi;
	q = floor(dx / rng);
	r = dx - q * rng;
	if (fmod(q, 2.0) == 0.0)
		return x < lo ? lo + r : hi - r;
	return x < lo ? hi - r : lo + r;
}

/* Round half to even, independent of the floating-point rounding mode. */
static double gs_rint(double x)
{
	double f = floor(x), diff = x - f;
	if (diff > 0.5 || (diff == 0.5 && fmod(f, 2.0) != 0.0))
		return f + 1.0;
	return f;
}

/* Maps tap index i of a dim of length len through the padding mode; -1: zero. */
static int64_t gs_pixel(const ingot_grid_sample_params *p, int64_t i, int64_t len, double lo,
                        double hi)
{
	if (p->padding == INGOT_GS_ZEROS)
		return i >= 0 && i < len ? i : -1;
	if (p->padding == INGOT_GS_REFLECTION)
		i = (int64_t)gs_reflect((double)i, lo, hi);
	return img_clamp(i, 0, len - 1);
}

INGOT_KERNEL int ingot_grid_sample(const void *params, const void *const *in,
                                   void *const *out, void *scratch, int task, int n_tasks)
{
	const ingot_grid_sample_params *p = (const ingot_grid_sample_params *)params;
	int nsp = (int)p->nsp, d, j;
	int64_t xs[INGOT_MAX_RANK], opos = 1, xplane = 1, pos0, pos1, pos, c;
	int64_t k = p->mode == INGOT_INTERP_NEAREST ? 1 : p->mode == INGOT_INTERP_LINEAR ? 2 : 4;
	(void)scratch;
	if (nsp < 1 || nsp > INGOT_MAX_RANK - 2 || !in[0] || !in[1] || !out[0])
		return INGOT_EINVAL;
	for (d = nsp - 1; d >= 0; d--) {
		xs[d] = xplane;
		xplane *= p->x_dims[2 + d];
		opos *= p->y_dims[2 + d];
		if (p->x_dims[2 + d] < 1)
			return INGOT_EINVAL;
	}
	img_range(p->y_dims[0] * opos, task, n_tasks, &pos0, &pos1);
	for (pos = pos0; pos < pos1; pos++) {
		int64_t n = pos / opos, o = pos % opos;
		int64_t ti[INGOT_MAX_RANK][4], t[INGOT_MAX_RANK];
		double tw[INGOT_MAX_RANK][4];
		for (d = 0; d < nsp; d++) {
			int64_t len = p->x_dims[2 + d], x0;
			double g = ingot_ld_num(p->g_dtype, in[1], (n * opos + o) * nsp + (nsp - 1 - d));
			double lo = p->align_corners ? 0.0 : -0.5;
			double hi = p->align_corners ? (double)len - 1.0 : (double)len - 0.5, x, f;
			if (p->align_corners)
				x = (g + 1.0) / 2.0 * (double)(len - 1);
			else
				x = ((g + 1.0) * (double)len - 1.0) / 2.0;
			x = img_bound((double)(float)x);   /* the reference keeps float32 coordinates */
			if (p->mode == INGOT_INTERP_NEAREST)
				x = gs_rint(x);
			if (x < lo || x > hi) {
				if (p->padding == INGOT_GS_BORDER)
					x = x < 0.0 ? 0.0 : x > (double)(len - 1) ? (double)(len - 1) : x;
				else if (p->padding == INGOT_GS_REFLECTION)
					x = gs_reflect(x, lo, hi);
			}
			if (p->mode == INGOT_INTERP_NEAREST) {
				ti[d][0] = gs_pixel(p, (int64_t)x, len, lo, hi);
				tw[d][0] = 1.0;
				continue;
			}
			x0 = (int64_t)floor(x);
			f = x - (double)x0;
			if (p->mode == INGOT_INTERP_LINEAR) {
				tw[d][0] = 1.0 - f;
				tw[d][1] = f;
			} else {
				tw[d][0] = img_cubic(f + 1.0, -0.75);
				tw[d][1] = img_cubic(f, -0.75);
				tw[d][2] = img_cubic(1.0 - f, -0.75);
				tw[d][3] = img_cubic(2.0 - f, -0.75);
				x0--;
			}
			for (j = 0; j < k; j++)
				ti[d][j] = gs_pixel(p, x0 + j, len, lo, hi);
		}
		for (c = 0; c < p->x_dims[1]; c++) {
			int64_t xbase = (n * p->x_dims[1] + c) * xplane;
			double acc = 0.0;
			for (d = 0; d < nsp; d++)
				t[d] = 0;
			for (;;) {
				double wt = 1.0;
				int64_t off = xbase;
				for (d = 0; d < nsp && off >= 0; d++) {
					wt *= tw[d][t[d]];
					off = ti[d][t[d]] < 0 ? -1 : off + ti[d][t[d]] * xs[d];
				}
				if (off >= 0)
					acc += wt * ingot_ld_num(p->dtype, in[0], off);
				for (d = nsp - 1; d >= 0; d--) {
					if (++t[d] < k)
						break;
					t[d] = 0;
				}
				if (d < 0)
					break;
			}
			img_st(p->dtype, out[0], (n * p->x_dims[1] + c) * opos + o, acc);
		}
	}
	return INGOT_OK;
}

/* ---- AffineGrid ---- */

/* The normalized coordinate of point i of len along one dim (see image.h). */
static double ag_coord(int64_t i, int64_t len, int64_t align_corners)
{
	if (len <= 1)
		return 0.0;
	if (align_corners)
		return -1.0 + 2.0 * (double)i / (double)(len - 1);
	return (2.0 * (double)i + 1.0) / (double)len - 1.0;
}

INGOT_KERNEL int ingot_affine_grid(const void *params, const void *const *in,
                                   void *const *out, void *scratch, int task, int n_tasks)
{
	const ingot_affine_grid_params *p = (const ingot_affine_grid_params *)params;
	int nsp = (int)p->nsp, d, r, k;
	int64_t pts = 1, pos, pos0, pos1;
	(void)scratch;
	if ((nsp != 2 && nsp != 3) || !in[0] || !out[0])
		return INGOT_EINVAL;
	for (d = 0; d < nsp; d++)
		pts *= p->sp[d];
	img_range(p->n * pts, task, n_tasks, &pos0, &pos1);
	for (pos = pos0; pos < pos1; pos++) {
		int64_t rest = pos % pts, tb = pos / pts * nsp * (nsp + 1);
		double c[4];                  /* x (along the last dim), y, z, then 1 */
		for (d = nsp - 1; d >= 0; d--) {
			c[nsp - 1 - d] = ag_coord(rest % p->sp[d], p->sp[d], p->align_corners);
			rest /= p->sp[d];
		}
		c[nsp] = 1.0;
		for (r = 0; r < nsp; r++) {   /* output component r: row r of theta */
			double v = 0.0;
			for (k = 0; k <= nsp; k++)
				v += ingot_ld_num(p->dtype, in[0], tb + r * (nsp + 1) + k) * c[k];
			img_st(p->dtype, out[0], pos * nsp + r, v);
		}
	}
	return INGOT_OK;
}

/* ---- RoiAlign ---- */

INGOT_KERNEL int ingot_roi_align(const void *params, const void *const *in,
                                 void *const *out, void *scratch, int task, int n_tasks)
{
	const ingot_roi_align_params *p = (const ingot_roi_align_params *)params;
	const int64_t *bi = (const int64_t *)in[2];
	const void *xs = in[0];
	int64_t u0, u1, u, h = p->h, w = p->w, dt = p->dtype;
	double off = p->half_pixel ? 0.5 : 0.0, sc = (double)p->spatial_scale;
	(void)scratch;
	if (!in[0] || !in[1] || !in[2] || !out[0] || p->out_h < 1 || p->out_w < 1)
		return INGOT_EINVAL;
	img_range(p->n_rois * p->c, task, n_tasks, &u0, &u1);
	for (u = u0; u < u1; u++) {
		int64_t r = u / p->c, ch = u % p->c, ph, pw, gh, gw, iy, ix, xb;
		double x1 = ingot_ld_num(dt, in[1], 4 * r) * sc - off;
		double y1 = ingot_ld_num(dt, in[1], 4 * r + 1) * sc - off;
		double x2 = ingot_ld_num(dt, in[1], 4 * r + 2) * sc - off;
		double y2 = ingot_ld_num(dt, in[1], 4 * r + 3) * sc - off;
		double rw = x2 - x1, rh = y2 - y1, bh, bw, count;
		if (bi[r] < 0 || bi[r] >= p->n)
			return INGOT_ERANGE;
		if (!p->half_pixel) {      /* force malformed rois to 1x1 */
			rw = rw > 1.0 ? rw : 1.0;
			rh = rh > 1.0 ? rh : 1.0;
		}
		bh = rh / (double)p->out_h;
		bw = rw / (double)p->out_w;
		gh = p->sampling_ratio > 0 ? p->sampling_ratio : (int64_t)img_bound(ceil(bh));
		gw = p->sampling_ratio > 0 ? p->sampling_ratio : (int64_t)img_bound(ceil(bw));
		gh = gh > 0 ? (gh < 1 << 16 ? gh : 1 << 16) : 0;
		gw = gw > 0 ? (gw < 1 << 16 ? gw : 1 << 16) : 0;
		count = gh * gw > 1 ? (double)(gh * gw) : 1.0;
		xb = (bi[r] * p->c + ch) * h * w;
		for (ph = 0; ph < p->out_h; ph++) {
			for (pw = 0; pw < p->out_w; pw++) {
				double acc = 0.0;
				int first = 1;
				for (iy = 0; iy < gh; iy++) {
					double y = y1 + (double)ph * bh + ((double)iy + 0.5) * bh / (double)gh;
					for (ix = 0; ix < gw; ix++) {
						double x = x1 + (double)pw * bw + ((double)ix + 0.5) * bw / (double)gw;
						double v[4] = { 0.0, 0.0, 0.0, 0.0 }, ly, lx, val;
						int64_t yl, xl, yh, xh;
						if (!(y < -1.0 || y > (double)h || x < -1.0 || x > (double)w)) {
							y = y > 0.0 ? y : 0.0;
							x = x > 0.0 ? x : 0.0;
							yl = (int64_t)y;
							xl = (int64_t)x;
							if (yl >= h - 1) {
								yh = yl = h - 1;
								y = (double)yl;
							} else {
								yh = yl + 1;
							}
							if (xl >= w - 1) {
								xh = xl = w - 1;
								x = (double)xl;
							} else {
								xh = xl + 1;
							}
							ly = y - (double)yl;
							lx = x - (double)xl;
							v[0] = (1.0 - ly) * (1.0 - lx) * ingot_ld_num(dt, xs, xb + yl * w + xl);
							v[1] = (1.0 - ly) * lx * ingot_ld_num(dt, xs, xb + yl * w + xh);
							v[2] = ly * (1.0 - lx) * ingot_ld_num(dt, xs, xb + yh * w + xl);
							v[3] = ly * lx * ingot_ld_num(dt, xs, xb + yh * w + xh);
						}
						if (!p->max) {
							acc += v[0] + v[1] + v[2] + v[3];
							continue;
						}
						val = v[0] > v[1] ? v[0] : v[1];
						val = val > v[2] ? val : v[2];
						val = val > v[3] ? val : v[3];
						acc = first || val > acc ? val : acc;
						first = 0;
					}
				}
				if (!p->max)
					acc /= count;
				img_st(p->dtype, out[0], (u * p->out_h + ph) * p->out_w + pw, acc);
			}
		}
	}
	return INGOT_OK;
}

/* ---- NonMaxSuppression ---- */

/* Candidate a ranks before b: higher score, then lower box index. */
static int nms_before(const float *s, int64_t a, int64_t b)
{
	return s[a] > s[b] || (s[a] == s[b] && a < b);
}

/* Heap sort of idx[0..n) into rank order (no libc qsort in freestanding code); the
 * heap's root is the last-ranked candidate, moved to the end. */
static void nms_sort(const float *s, int64_t *idx, int64_t n)
{
	int64_t i, end, root, child, tmp;
	for (i = n / 2 - 1; i >= 0; i--) {
		for (root = i; (child = 2 * root + 1) < n; root = child) {
			if (child + 1 < n && nms_before(s, idx[child], idx[child + 1]))
				child++;
			if (!nms_before(s, idx[root], idx[child]))
				break;
			tmp = idx[root]; idx[root] = idx[child]; idx[child] = tmp;
		}
	}
	for (end = n - 1; end > 0; end--) {
		tmp = idx[0]; idx[0] = idx[end]; idx[end] = tmp;
		for (root = 0; (child = 2 * root + 1) < end; root = child) {
			if (child + 1 < end && nms_before(s, idx[child], idx[child + 1]))
				child++;
			if (!nms_before(s, idx[root], idx[child]))
				break;
			tmp = idx[root]; idx[root] = idx[child]; idx[child] = tmp;
		}
	}
}

/* Corner form (y1, x1, y2, x2 in any order) of box b. */
static void nms_box(const float *bx, int center, float *c)
{
	if (center) {
		float xc = bx[0], yc = bx[1], hw = bx[2] / 2.0f, hh = bx[3] / 2.0f;
		c[0] = yc - hh; c[1] = xc - hw; c[2] = yc + hh; c[3] = xc + hw;
	} else {
		c[0] = bx[0] < bx[2] ? bx[0] : bx[2];
		c[2] = bx[0] < bx[2] ? bx[2] : bx[0];
		c[1] = bx[1] < bx[3] ? bx[1] : bx[3];
		c[3] = bx[1] < bx[3] ? bx[3] : bx[1];
	}
}

/* True when IoU(a, b) > thr (as ONNX Runtime: empty boxes never suppress). */
static int nms_suppress(const float *a, const float *b, int center, float thr)
{
	float ca[4], cb[4], ih, iw, inter, area_a, area_b, uni;
	nms_box(a, center, ca);
	nms_box(b, center, cb);
	ih = (ca[2] < cb[2] ? ca[2] : cb[2]) - (ca[0] > cb[0] ? ca[0] : cb[0]);
	iw = (ca[3] < cb[3] ? ca[3] : cb[3]) - (ca[1] > cb[1] ? ca[1] : cb[1]);
	if (ih <= 0.0f || iw <= 0.0f)
		return 0;
	inter = ih * iw;
	area_a = (ca[2] - ca[0]) * (ca[3] - ca[1]);
	area_b = (cb[2] - cb[0]) * (cb[3] - cb[1]);
	uni = area_a + area_b - inter;
	if (area_a <= 0.0f || area_b <= 0.0f || uni <= 0.0f)
		return 0;
	return inter / uni > thr;
}

INGOT_KERNEL int ingot_nms(const void *params, const void *const *in, void *const *out,
                           void *scratch, int task, int n_tasks)
{
	const ingot_nms_params *p = (const ingot_nms_params *)params;
	const float *boxes = (const float *)in[0], *scores = (const float *)in[1];
	int64_t *sel = (int64_t *)out[0], *cand = (int64_t *)scratch, *kept = cand + p->n_boxes;
	int64_t max_out = 0, rows = 0, b, c, i, j;
	float iou = 0.0f, thr = 0.0f;
	(void)n_tasks;
	if (task != 0)
		return INGOT_OK;
	if (!boxes || !scores || !sel || (p->n_boxes > 0 && !scratch))
		return INGOT_EINVAL;
	if (p->has_max && in[2])
		max_out = ((const int64_t *)in[2])[0];
	if (p->has_iou && in[3])
		iou = ((const float *)in[3])[0];
	if (p->has_score && in[4])
		thr = ((const float *)in[4])[0];
	if (max_out > p->n_boxes)
		max_out = p->n_boxes;
	for (b = 0; b < p->batch; b++) {
		const float *bb = boxes + b * p->n_boxes * 4;
		for (c = 0; c < p->n_classes && max_out > 0; c++) {
			const float *s = scores + (b * p->n_classes + c) * p->n_boxes;
			int64_t n = 0, n_kept = 0;
			for (i = 0; i < p->n_boxes; i++)
				if (!p->has_score || s[i] > thr)
					cand[n++] = i;
			nms_sort(s, cand, n);
			for (i = 0; i < n && n_kept < max_out; i++) {
				int keep = 1;
				for (j = 0; j < n_kept && keep; j++)
					keep = !nms_suppress(bb + 4 * cand[i], bb + 4 * kept[j],
					                     (int)p->center_point_box, iou);
				if (!keep)
					continue;
				kept[n_kept++] = cand[i];
				if (rows >= p->max_rows)
					return INGOT_ERANGE;
				sel[3 * rows] = b;
				sel[3 * rows + 1] = c;
				sel[3 * rows + 2] = cand[i];
				rows++;
			}
		}
	}
	if (p->dynamic) {
		int64_t *dims = (int64_t *)out[1];
		if (!dims)
			return INGOT_EINVAL;
		memset(dims, 0, INGOT_MAX_RANK * sizeof *dims);
		dims[0] = rows;
		dims[1] = 3;
	} else if (rows != p->max_rows) {
		return INGOT_ERANGE;
	}
	return INGOT_OK;
}
