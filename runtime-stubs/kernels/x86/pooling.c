/* x86/pooling.c — f32 MaxPool / AveragePool (1 or 2 spatial dims) for the x86
 * targets, in two passes per output row: the window's input rows are reduced
 * column by column with vectors (max or sum over contiguous columns), then each
 * output reduces its window's columns of that row. MaxPool keeps the reference
 * kernel's rule (a later value replaces the best only when greater, so the first
 * NaN of a window wins only as its first value; an empty window gives 0).
 * AveragePool multiplies inside windows by the reciprocal of their count (one
 * rounding more than the reference's division: at most 1 ulp apart). */
#include "pooling.h"
#if !defined(__has_include) || __has_include("ukernel.h")   /* absent: stubs built alone */
#include "ukernel.h"

/* Positions k = 0..n-1 of a window starting at `start` (step dil) inside [0, len):
 * the first valid k in *k0, the count returned. */
static int64_t xp_span(int64_t start, int64_t n, int64_t dil, int64_t len, int64_t *k0)
{
	int64_t lo = 0, hi = n;
	while (lo < n && start + lo * dil < 0)
		lo++;
	while (hi > lo && start + (hi - 1) * dil >= len)
		hi--;
	*k0 = lo;
	return hi - lo;
}

/* Window positions inside the padded input [-pad_begin, len + pad_end). */
static int64_t xp_padded(int64_t start, int64_t n, int64_t dil, int64_t len, int64_t pb, int64_t pe)
{
	int64_t c = 0;
	for (int64_t k = 0; k < n; k++)
		c += start + k * dil >= -pb && start + k * dil < len + pe;
	return c;
}

/* One output of pass 2 at column ox of the row-reduced `row`. */
static float xp_out(const ingot_x86_pool_params *p, const float *row, int64_t ox, int64_t W,
                    int64_t nky, int64_t rows_padded)
{
	const int64_t KW = p->kernel[p->nsp - 1], sw = p->strides[p->nsp - 1];
	const int64_t dw = p->dilations[p->nsp - 1], pw = p->pads[p->nsp - 1];
	const int64_t pwe = p->pads[2 * p->nsp - 1];
	int64_t kx0;
	const int64_t ix0 = ox * sw - pw, nkx = xp_span(ix0, KW, dw, W, &kx0);
	const float *r = row + ix0 + kx0 * dw;
	float v;
	(void)nky;
	if (nkx == 0)
		return 0.0f;
	v = r[0];
	if (p->kind == INGOT_X86_POOL_MAX) {
		for (int64_t k = 1; k < nkx; k++)
			v = r[k * dw] > v ? r[k * dw] : v;
		return v;
	}
	for (int64_t k = 1; k < nkx; k++)
		v += r[k * dw];
	return v / (float)(rows_padded * (p->count_include_pad ? xp_padded(ix0, KW, dw, W, pw, pwe) : nkx));
}

/* The outputs of a row that pass 2 computes with vectors, [first, stop): their
 * windows lie inside the row (stride 1 or 2, no dilation); the same for every row
 * and plane, so found once per call (stop = 0: none). */
static void xp_inside(const ingot_x86_pool_params *p, int64_t *first, int64_t *stop)
{
	const int64_t W = p->x_dims[1 + p->nsp], OW = p->y_dims[1 + p->nsp];
	const int64_t KW = p->kernel[p->nsp - 1], sw = p->strides[p->nsp - 1];
	const int64_t dw = p->dilations[p->nsp - 1], pw = p->pads[p->nsp - 1];
	*first = *stop = 0;
	if (dw == 1 && sw <= 2) {
		const int64_t end = W - KW + pw >= 0 ? (W - KW + pw) / sw + 1 : 0;   /* ends <= W */
		*first = (pw + sw - 1) / sw;                                         /* starts >= 0 */
		*stop = end < OW ? end : OW;
	}
}

/* One plane; `direct`: pass 2 may read a single-row window straight from x, whose
 * buffer holds at least 2 vectors past this plane's last row. */
static void xp_plane(const ingot_x86_pool_params *p, const float *x, float *y, float *row,
                     int64_t first_in, int64_t stop, int direct)
{
	const int two = p->nsp == 2, is_max = p->kind == INGOT_X86_POOL_MAX;
	const int64_t H = two ? p->x_dims[2] : 1, W = p->x_dims[1 + p->nsp];
	const int64_t OH = two ? p->y_dims[2] : 1, OW = p->y_dims[1 + p->nsp];
	const int64_t KH = two ? p->kernel[0] : 1, KW = p->kernel[p->nsp - 1];
	const int64_t sh = two ? p->strides[0] : 1, sw = p->strides[p->nsp - 1];
	const int64_t dh = two ? p->dilations[0] : 1;
	const int64_t ph = two ? p->pads[0] : 0, pw = p->pads[p->nsp - 1];
	const int64_t phe = two ? p->pads[p->nsp] : 0;
	for (int64_t oy = 0; oy < OH; oy++) {
		int64_t ky0, j;
		const int64_t iy0 = oy * sh - ph, nky = xp_span(iy0, KH, dh, H, &ky0);
		const int64_t rows_padded = p->count_include_pad ? xp_padded(iy0, KH, dh, H, ph, phe) : nky;
		float *yr = y + oy * OW;
		if (nky == 0) {
			for (int64_t ox = 0; ox < OW; ox++)
				yr[ox] = 0.0f;
			continue;
		}
		const float *first = x + (iy0 + ky0 * dh) * W, *src = row;
		/* every output's window inside the plane: one pass over the input rows,
		 * nothing through `row` (whose stores would not forward to the loads) */
		if (direct && nky == KH && first_in == 0 && stop == OW) {
			const uk_vec scale = is_max ? uk_zero() : uk_bcast(1.0f / (float)(rows_padded * KW));
			for (int64_t ox = 0; ox < OW; ox += UK_VF) {
				const int64_t n = OW - ox < UK_VF ? OW - ox : UK_VF;
				uk_vec v = uk_zero();
				for (int64_t ky = 0; ky < KH; ky++) {
					const float *r = first + ky * dh * W + ox * sw - pw;
					for (int64_t k = 0; k < KW; k++) {
						const uk_vec t = sw == 1 ? uk_load(r + k) : uk_load_s2(r + k);
						v = ky + k == 0 ? t : is_max ? uk_max(t, v) : uk_add(v, t);
					}
				}
				uk_storem(yr + ox, uk_mask_n(n), is_max ? v : uk_mul(v, scale));
			}
			continue;
		}
		/* pass 1: row[ix] = max / sum over the window's rows, the first two rows
		 * combined straight from the input; the last vector masked; a single row
		 * is read in place when direct allows */
		if (nky == 1 && direct)
			src = first;
		for (j = 0; nky == 1 && !direct && j < W; j += UK_VF) {
			const uk_mask m = uk_mask_n(W - j < UK_VF ? W - j : UK_VF);
			uk_storem(row + j, m, uk_loadm(first + j, m));
		}
		for (int64_t ky = ky0 + 1; ky < ky0 + nky; ky++) {
			const float *xr = x + (iy0 + ky * dh) * W, *acc = ky == ky0 + 1 ? first : row;
			for (j = 0; j < W; j += UK_VF) {
				const uk_mask m = uk_mask_n(W - j < UK_VF ? W - j : UK_VF);
				const uk_vec a = uk_loadm(acc + j, m), t = uk_loadm(xr + j, m);
				uk_storem(row + j, m, is_max ? uk_max(t, a) : uk_add(a, t));
			}
		}
		/* pass 2: each output over its window's columns; vectors over the outputs
		 * whose window lies inside the row (xp_inside) */
		int64_t ox = 0;
		if (stop > 0) {
			const uk_vec scale = is_max ? uk_zero() : uk_bcast(1.0f / (float)(rows_padded * KW));
			for (; ox < first_in && ox < OW; ox++)
				yr[ox] = xp_out(p, src, ox, W, nky, rows_padded);
			/* an inside window counts KW columns with or without count_include_pad */
			for (; ox < stop; ox += UK_VF) {
				/* the last vector masked; loads read up to 2 vectors past (slack) */
				const int64_t n = stop - ox < UK_VF ? stop - ox : UK_VF;
				const float *r = src + ox * sw - pw;
				uk_vec v = sw == 1 ? uk_load(r) : uk_load_s2(r);
				for (int64_t k = 1; k < KW; k++) {
					const uk_vec t = sw == 1 ? uk_load(r + k) : uk_load_s2(r + k);
					v = is_max ? uk_max(t, v) : uk_add(v, t);
				}
				uk_storem(yr + ox, uk_mask_n(n), is_max ? v : uk_mul(v, scale));
			}
			ox = ox > stop ? stop : ox;
		}
		for (; ox < OW; ox++)
			yr[ox] = xp_out(p, src, ox, W, nky, rows_padded);
	}
}

INGOT_KERNEL int ingot_x86_pool(const void *params, const void *const *in, void *const *out,
                                void *scratch, int task, int n_tasks)
{
	const ingot_x86_pool_params *p = (const ingot_x86_pool_params *)params;
	const float *x = (const float *)in[0];
	float *y = (float *)out[0];
	float row[INGOT_X86_POOL_MAX_W + 4 * UK_VF];   /* vector loads read past W */
	int64_t xs, ys, units, u0, u1, first, stop;
	(void)scratch;
	if (p->dtype != INGOT_DT_F32 || p->has_indices || (p->nsp != 1 && p->nsp != 2) || !x || !y ||
	    p->x_dims[1 + p->nsp] > INGOT_X86_POOL_MAX_W)
		return INGOT_EINVAL;
	for (int d = 0; d < p->nsp; d++)
		if (p->strides[d] < 1 || p->dilations[d] < 1)
			return INGOT_EINVAL;
	xs = p->x_dims[2] * (p->nsp == 2 ? p->x_dims[3] : 1);
	ys = p->y_dims[2] * (p->nsp == 2 ? p->y_dims[3] : 1);
	units = p->y_dims[0] * p->y_dims[1];
	if (n_tasks < 1) {
		task = 0;
		n_tasks = 1;
	}
	u0 = units * task / n_tasks;
	u1 = units * (task + 1) / n_tasks;
	xp_inside(p, &first, &stop);
	for (int64_t u = u0; u < u1; u++)   /* the last planes go through row (slack) */
		xp_plane(p, x + u * xs, y + u * ys, row, first, stop, (units - 1 - u) * xs >= 2 * UK_VF);
	return INGOT_OK;
}

INGOT_KERNEL int ingot_x86_global_pool(const void *params, const void *const *in, void *const *out,
                                       void *scratch, int task, int n_tasks)
{
	const ingot_x86_global_pool_params *p = (const ingot_x86_global_pool_params *)params;
	const float *x = (const float *)in[0];
	float *y = (float *)out[0];
	const int64_t size = p->size;
	int64_t u0, u1;
	(void)scratch;
	if (p->dtype != INGOT_DT_F32 || p->kind != INGOT_X86_POOL_AVG || !x || !y || size < 0)
		return INGOT_EINVAL;
	if (n_tasks < 1) {
		task = 0;
		n_tasks = 1;
	}
	u0 = p->planes * task / n_tasks;
	u1 = p->planes * (task + 1) / n_tasks;
	for (int64_t u = u0; u < u1; u++) {
		const float *xp = x + u * size;
		uk_vec s0 = uk_zero(), s1 = uk_zero();
		int64_t i = 0;
		for (; i + 2 * UK_VF <= size; i += 2 * UK_VF) {
			s0 = uk_add(s0, uk_load(xp + i));
			s1 = uk_add(s1, uk_load(xp + i + UK_VF));
		}
		for (; i < size; i += UK_VF)
			s0 = uk_add(s0, uk_loadm(xp + i, uk_mask_n(size - i < UK_VF ? size - i : UK_VF)));
		y[u] = size ? uk_hsum(uk_add(s0, s1)) / (float)size : 0.0f;
	}
	return INGOT_OK;
}
#endif /* ukernel.h */
