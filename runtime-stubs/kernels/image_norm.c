/* image_norm.c — reference kernels of LRN, LpPool, LpNormalization,
 * MeanVarianceNormalization, GroupNormalization (statistics and window sums in
 * double, f16/bf16 through float), MaxUnpool (a byte-size scatter) and Col2Im (a
 * gather per output pixel, so tasks split the output and sums are deterministic).
 */
#include "image_norm.h"

#include <math.h>
#include <string.h>

static void imn_range(int64_t total, int task, int n_tasks, int64_t *lo, int64_t *hi)
{
	if (n_tasks < 1) {
		task = 0;
		n_tasks = 1;
	}
	*lo = total * task / n_tasks;
	*hi = total * (task + 1) / n_tasks;
}

/* ---- LRN ---- */

INGOT_KERNEL int ingot_lrn(const void *params, const void *const *in, void *const *out,
                           void *scratch, int task, int n_tasks)
{
	const ingot_lrn_params *p = (const ingot_lrn_params *)params;
	int64_t u0, u1, u, i, k, lo_off = (p->size - 1) / 2, hi_off = p->size / 2;
	double scale = (double)p->alpha / (double)p->size;
	(void)scratch;
	if (!in[0] || !out[0] || p->size < 1 || !ingot_dtype_is_float(p->dtype))
		return INGOT_EINVAL;
	imn_range(p->n * p->c, task, n_tasks, &u0, &u1);
	for (u = u0; u < u1; u++) {
		int64_t n = u / p->c, ch = u % p->c;
		int64_t c0 = ch - lo_off < 0 ? 0 : ch - lo_off;
		int64_t c1 = ch + hi_off >= p->c ? p->c - 1 : ch + hi_off;
		for (i = 0; i < p->inner; i++) {
			double sum = 0.0, x = ingot_ldf(p->dtype, in[0], u * p->inner + i);
			for (k = c0; k <= c1; k++) {
				double v = ingot_ldf(p->dtype, in[0], (n * p->c + k) * p->inner + i);
				sum += v * v;
			}
			ingot_stf(p->dtype, out[0], u * p->inner + i,
			       x / pow((double)p->bias + scale * sum, (double)p->beta));
		}
	}
	return INGOT_OK;
}

/* ---- LpPool ---- */

INGOT_KERNEL int ingot_lp_pool(const void *params, const void *const *in, void *const *out,
                               void *scratch, int task, int n_tasks)
{
	const ingot_lp_pool_params *p = (const ingot_lp_pool_params *)params;
	int nsp = (int)p->nsp, d;
	int64_t xs[INGOT_MAX_RANK], xplane = 1, yplane = 1, kplane = 1, u0, u1, u, yi, kk;
	double pw = (double)p->p;
	(void)scratch;
	if (nsp < 1 || nsp > INGOT_MAX_RANK - 2 || !in[0] || !out[0] ||
	    !ingot_dtype_is_float(p->dtype) || !(pw > 0.0))
		return INGOT_EINVAL;
	for (d = nsp - 1; d >= 0; d--) {
		xs[d] = xplane;
		xplane *= p->x_dims[2 + d];
		yplane *= p->y_dims[2 + d];
		kplane *= p->kernel[d];
	}
	imn_range(p->y_dims[0] * p->y_dims[1], task, n_tasks, &u0, &u1);
	for (u = u0; u < u1; u++) {
		int64_t yo[INGOT_MAX_RANK] = { 0 };
		for (yi = 0; yi < yplane; yi++) {
			int64_t ko[INGOT_MAX_RANK] = { 0 };
			double sum = 0.0;
			for (kk = 0; kk < kplane; kk++) {
				int64_t off = u * xplane;
				int ok = 1;
				for (d = 0; d < nsp && ok; d++) {
					int64_t id = yo[d] * p->strides[d] - p->pads[d] + ko[d] * p->dilations[d];
					ok = id >= 0 && id < p->x_dims[2 + d];
					off += id * xs[d];
				}
				if (ok)
					sum += pow(fabs(ingot_ldf(p->dtype, in[0], off)), pw);
				for (d = nsp - 1; d >= 0; d--) {
					if (++ko[d] < p->kernel[d])
						break;
					ko[d] = 0;
				}
			}
			ingot_stf(p->dtype, out[0], u * yplane + yi, pow(sum, 1.0 / pw));
			for (d = nsp - 1; d >= 0; d--) {
				if (++yo[d] < p->y_dims[2 + d])
					break;
				yo[d] = 0;
			}
		}
	}
	return INGOT_OK;
}

/* ---- LpNormalization ---- */

INGOT_KERNEL int ingot_lp_norm(const void *params, const void *const *in, void *const *out,
                               void *scratch, int task, int n_tasks)
{
	const ingot_lp_norm_params *p = (const ingot_lp_norm_params *)params;
	int64_t r0, r1, r, k;
	(void)scratch;
	if (!in[0] || !out[0] || !ingot_dtype_is_float(p->dtype))
		return INGOT_EINVAL;
	imn_range(p->outer * p->inner, task, n_tasks, &r0, &r1);
	for (r = r0; r < r1; r++) {
		int64_t base = (r / p->inner) * p->n * p->inner + r % p->inner;
		double norm = 0.0;
		for (k = 0; k < p->n; k++) {
			double v = ingot_ldf(p->dtype, in[0], base + k * p->inner);
			norm += p->p == 1 ? fabs(v) : v * v;
		}
		if (p->p != 1)
			norm = sqrt(norm);
		for (k = 0; k < p->n; k++) {
			int64_t i = base + k * p->inner;
			double v = ingot_ldf(p->dtype, in[0], i);
			ingot_stf(p->dtype, out[0], i, norm != 0.0 ? v / norm : 0.0);
		}
	}
	return INGOT_OK;
}

/* ---- MeanVarianceNormalization ---- */

/* Offset of element (g, r) where g indexes the kept dims and r the reduced ones. */
static int64_t mvn_offset(const ingot_mvn_params *p, int64_t g, int64_t r)
{
	int64_t off = 0, stride = 1;
	int d;
	for (d = (int)p->rank - 1; d >= 0; d--) {
		int64_t n = p->dims[d];
		if (p->rmask & ((int64_t)1 << d)) {
			off += (r % n) * stride;
			r /= n;
		} else {
			off += (g % n) * stride;
			g /= n;
		}
		stride *= n;
	}
	return off;
}

INGOT_KERNEL int ingot_mvn(const void *params, const void *const *in, void *const *out,
                           void *scratch, int task, int n_tasks)
{
	const ingot_mvn_params *p = (const ingot_mvn_params *)params;
	int64_t groups = 1, red = 1, g0, g1, g, r;
	int d;
	(void)scratch;
	if (!in[0] || !out[0] || p->rank < 0 || p->rank > INGOT_MAX_RANK ||
	    !ingot_dtype_is_float(p->dtype))
		return INGOT_EINVAL;
	for (d = 0; d < (int)p->rank; d++) {
		if (p->rmask & ((int64_t)1 << d))
			red *= p->dims[d];
		else
			groups *= p->dims[d];
	}
	imn_range(groups, task, n_tasks, &g0, &g1);
	for (g = g0; g < g1 && red > 0; g++) {
		double mean = 0.0, var = 0.0, den;
		for (r = 0; r < red; r++)
			mean += ingot_ldf(p->dtype, in[0], mvn_offset(p, g, r));
		mean /= (double)red;
		for (r = 0; r < red; r++) {
			double v = ingot_ldf(p->dtype, in[0], mvn_offset(p, g, r)) - mean;
			var += v * v;
		}
		den = sqrt(var / (double)red) + 1e-9;
		for (r = 0; r < red; r++) {
			int64_t i = mvn_offset(p, g, r);
			ingot_stf(p->dtype, out[0], i, (ingot_ldf(p->dtype, in[0], i) - mean) / den);
		}
	}
	return INGOT_OK;
}

/* ---- GroupNormalization ---- */

INGOT_KERNEL int ingot_group_norm(const void *params, const void *const *in,
                                  void *const *out, void *scratch, int task, int n_tasks)
{
	const ingot_group_norm_params *p = (const ingot_group_norm_params *)params;
	int64_t u0, u1, u, cg, i, ch;
	(void)scratch;
	if (!in[0] || !in[1] || !in[2] || !out[0] || p->groups < 1 || p->c % p->groups != 0 ||
	    !ingot_dtype_is_float(p->dtype))
		return INGOT_EINVAL;
	cg = p->c / p->groups;
	imn_range(p->n * p->groups, task, n_tasks, &u0, &u1);
	for (u = u0; u < u1; u++) {
		int64_t base = u * cg * p->inner, cnt = cg * p->inner, grp = u % p->groups;
		double mean = 0.0, var = 0.0, inv;
		for (i = 0; i < cnt; i++)
			mean += ingot_ldf(p->dtype, in[0], base + i);
		mean = cnt ? mean / (double)cnt : 0.0;
		for (i = 0; i < cnt; i++) {
			double v = ingot_ldf(p->dtype, in[0], base + i) - mean;
			var += v * v;
		}
		inv = 1.0 / sqrt((cnt ? var / (double)cnt : 0.0) + (double)p->epsilon);
		for (ch = 0; ch < cg; ch++) {
			int64_t k = p->per_channel ? grp * cg + ch : grp;
			double s = ingot_ldf(p->dtype, in[1], k), b = ingot_ldf(p->dtype, in[2], k);
			for (i = ch * p->inner; i < (ch + 1) * p->inner; i++)
				ingot_stf(p->dtype, out[0], base + i,
				       s * (ingot_ldf(p->dtype, in[0], base + i) - mean) * inv + b);
		}
	}
	return INGOT_OK;
}

/* ---- MaxUnpool ---- */

INGOT_KERNEL int ingot_max_unpool(const void *params, const void *const *in,
                                  void *const *out, void *scratch, int task, int n_tasks)
{
	const ingot_max_unpool_params *p = (const ingot_max_unpool_params *)params;
	const int64_t *ind = (const int64_t *)in[1];
	const unsigned char *x = (const unsigned char *)in[0];
	unsigned char *y = (unsigned char *)out[0];
	int64_t full = 1, ytot = 1, y0, y1, i;
	size_t es = (size_t)p->esize;
	int rank = (int)p->rank, d, same = 1;
	(void)scratch;
	if (!x || !ind || !y || rank < 1 || rank > INGOT_MAX_RANK || es < 1 || es > 8)
		return INGOT_EINVAL;
	for (d = 0; d < rank; d++) {
		full *= p->full[d];
		ytot *= p->y_dims[d];
		same &= p->full[d] == p->y_dims[d];
	}
	imn_range(ytot, task, n_tasks, &y0, &y1);
	memset(y + (size_t)y0 * es, 0, (size_t)(y1 - y0) * es);
	for (i = 0; i < p->x_numel; i++) {
		int64_t idx = ind[i], yoff = 0, stride = 1, rem = idx;
		if (idx < 0 || idx >= full)
			return INGOT_ERANGE;
		if (same) {
			yoff = idx;
		} else {
			for (d = rank - 1; d >= 0 && yoff >= 0; d--) {
				int64_t coord = rem % p->full[d];
				rem /= p->full[d];
				yoff = coord < p->y_dims[d] ? yoff + coord * stride : -1;
				stride *= p->y_dims[d];
			}
		}
		if (yoff >= y0 && yoff < y1)
			memcpy(y + (size_t)yoff * es, x + (size_t)i * es, es);
	}
	return INGOT_OK;
}

/* ---- Col2Im ---- */

/* Integer elements as uint64 (sign-extended), so sums wrap without overflow UB. */
static uint64_t imn_ld_u(int64_t dt, const void *p, int64_t i)
{
	switch (dt) {
	case INGOT_DT_I8: return (uint64_t)(int64_t)((const int8_t *)p)[i];
	case INGOT_DT_U8: return ((const uint8_t *)p)[i];
	case INGOT_DT_I16: return (uint64_t)(int64_t)((const int16_t *)p)[i];
	case INGOT_DT_U16: return ((const uint16_t *)p)[i];
	case INGOT_DT_I32: return (uint64_t)(int64_t)((const int32_t *)p)[i];
	case INGOT_DT_U32: return ((const uint32_t *)p)[i];
	case INGOT_DT_I64: case INGOT_DT_U64: return ((const uint64_t *)p)[i];
	default: return 0;
	}
}

static void imn_st_u(int64_t dt, void *p, int64_t i, uint64_t v)
{
	switch (dt) {
	case INGOT_DT_I8: case INGOT_DT_U8: ((uint8_t *)p)[i] = (uint8_t)v; break;
	case INGOT_DT_I16: case INGOT_DT_U16: ((uint16_t *)p)[i] = (uint16_t)v; break;
	case INGOT_DT_I32: case INGOT_DT_U32: ((uint32_t *)p)[i] = (uint32_t)v; break;
	case INGOT_DT_I64: case INGOT_DT_U64: ((uint64_t *)p)[i] = v; break;
	default: break;
	}
}

INGOT_KERNEL int ingot_col2im(const void *params, const void *const *in, void *const *out,
                              void *scratch, int task, int n_tasks)
{
	const ingot_col2im_params *p = (const ingot_col2im_params *)params;
	int nsp = (int)p->nsp, d, fl = ingot_dtype_is_float(p->dtype);
	int64_t img = 1, bsz = 1, lsz = 1, y0, y1, yi;
	(void)scratch;
	if (!in[0] || !out[0] || nsp < 1 || nsp > INGOT_MAX_RANK)
		return INGOT_EINVAL;
	for (d = 0; d < nsp; d++) {
		img *= p->image[d];
		bsz *= p->block[d];
		lsz *= p->lpos[d];
		if (p->strides[d] < 1)
			return INGOT_EINVAL;
	}
	imn_range(p->n * p->c * img, task, n_tasks, &y0, &y1);
	for (yi = y0; yi < y1; yi++) {
		int64_t nc = yi / img, pix = yi % img, pos[INGOT_MAX_RANK], k[INGOT_MAX_RANK] = { 0 };
		int64_t kk, rem = pix;
		double acc = 0.0;
		uint64_t iacc = 0;
		for (d = nsp - 1; d >= 0; d--) {
			pos[d] = rem % p->image[d];
			rem /= p->image[d];
		}
		for (kk = 0; kk < bsz; kk++) {
			int64_t l = 0;
			int ok = 1;
			for (d = 0; d < nsp && ok; d++) {
				int64_t t = pos[d] + p->pads[d] - k[d] * p->dilations[d];
				ok = t >= 0 && t % p->strides[d] == 0 && t / p->strides[d] < p->lpos[d];
				l = l * p->lpos[d] + t / p->strides[d];
			}
			if (ok) {
				int64_t off = ((nc * bsz) + kk) * lsz + l;
				if (fl)
					acc += ingot_ldf(p->dtype, in[0], off);
				else
					iacc += imn_ld_u(p->dtype, in[0], off);
			}
			for (d = nsp - 1; d >= 0; d--) {
				if (++k[d] < p->block[d])
					break;
				k[d] = 0;
			}
		}
		if (fl)
			ingot_stf(p->dtype, out[0], yi, acc);
		else
			imn_st_u(p->dtype, out[0], yi, iacc);
	}
	return INGOT_OK;
}
