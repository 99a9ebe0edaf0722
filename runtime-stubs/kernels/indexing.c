/* indexing.c — reference kernels of the index-driven ops (see indexing.h): gathers
 * and scatters move elements by size, never by dtype; scatter reductions, NonZero,
 * Unique, ArgMax/ArgMin and TopK compare or combine typed values (f16/bf16 through
 * float, integer arithmetic in uint64_t so nothing overflows a signed type).
 * Every index is checked by every task before any write, so a bad index leaves the
 * outputs untouched and returns INGOT_ERANGE. */
#include "indexing.h"

#include <string.h>

/* The half-open share [*lo, *hi) of n items that this task handles. */
static INGOT_UNUSED void ix_share(int64_t n, int task, int n_tasks, int64_t *lo, int64_t *hi)
{
	if (n_tasks < 1 || task < 0 || task >= n_tasks) {
		task = 0;
		n_tasks = 1;
	}
	*lo = n / n_tasks * task + (n % n_tasks) * task / n_tasks;
	*hi = n / n_tasks * (task + 1) + (n % n_tasks) * (task + 1) / n_tasks;
}

/* Index i of an int32 (size 4) or int64 (size 8) tensor. */
static INGOT_UNUSED int64_t ix_ld_idx(const void *p, int64_t i, int64_t size)
{
	if (size == 4) {
		int32_t v;
		memcpy(&v, (const char *)p + 4 * i, 4);
		return v;
	} else {
		int64_t v;
		memcpy(&v, (const char *)p + 8 * i, 8);
		return v;
	}
}

/* The index wrapped into [0, n), or -1 when outside [-n, n). */
static INGOT_UNUSED int64_t ix_wrap(int64_t v, int64_t n)
{
	if (v < -n || v >= n)
		return -1;
	return v < 0 ? v + n : v;
}

static INGOT_UNUSED void ix_cp(char *dst, const char *src, int64_t n, int64_t es)
{
	if (n > 0)
		memcpy(dst, src, (size_t)(n * es));
}

/* Row-major element strides of dims[0..rank). */
static INGOT_UNUSED void ix_strides(const int64_t *dims, int64_t rank, int64_t *st)
{
	int64_t s = 1, k;
	for (k = rank - 1; k >= 0; k--) {
		st[k] = s;
		s *= dims[k];
	}
}

static INGOT_UNUSED int64_t ix_numel(const int64_t *dims, int64_t rank)
{
	int64_t n = 1, k;
	for (k = 0; k < rank; k++)
		n *= dims[k];
	return n;
}

/* ---- typed values: compare and combine ---- */

/* Loads element i as an integer of the dtype (signed in *s, unsigned in *u). */
static INGOT_UNUSED int ix_ld_int(int64_t dt, const void *p, int64_t i, int64_t *s, uint64_t *u)
{
	const char *c = (const char *)p;
	switch (dt) {
	case INGOT_DT_I8: { int8_t v; memcpy(&v, c + i, 1); *s = v; return 1; }
	case INGOT_DT_I16: { int16_t v; memcpy(&v, c + 2 * i, 2); *s = v; return 1; }
	case INGOT_DT_I32: { int32_t v; memcpy(&v, c + 4 * i, 4); *s = v; return 1; }
	case INGOT_DT_I64: { int64_t v; memcpy(&v, c + 8 * i, 8); *s = v; return 1; }
	case INGOT_DT_U8: case INGOT_DT_BOOL: { uint8_t v; memcpy(&v, c + i, 1); *u = v; return 0; }
	case INGOT_DT_U16: { uint16_t v; memcpy(&v, c + 2 * i, 2); *u = v; return 0; }
	case INGOT_DT_U32: { uint32_t v; memcpy(&v, c + 4 * i, 4); *u = v; return 0; }
	default: { uint64_t v; memcpy(&v, c + 8 * i, 8); *u = v; return 0; }
	}
}

/* Element i of a float dtype, widened to double (exact for every float type). */
static INGOT_UNUSED double ix_ld_flt(int64_t dt, const void *p, int64_t i)
{
	const char *c = (const char *)p;
	switch (dt) {
	case INGOT_DT_F32: { float v; memcpy(&v, c + 4 * i, 4); return (double)v; }
	case INGOT_DT_F64: { double v; memcpy(&v, c + 8 * i, 8); return v; }
	case INGOT_DT_F16: { uint16_t h; memcpy(&h, c + 2 * i, 2); return (double)ingot_f16_to_f32(h); }
	default: { uint16_t h; memcpy(&h, c + 2 * i, 2); return (double)ingot_bf16_to_f32(h); }
	}
}

/* Three-way comparison of elements i and j; NaNs equal each other and order last. */
static INGOT_UNUSED int ix_cmp(int64_t dt, const void *p, int64_t i, int64_t j)
{
	if (ingot_dtype_is_float(dt)) {
		double a = ix_ld_flt(dt, p, i), b = ix_ld_flt(dt, p, j);
		if (a != a || b != b)
			return (a != a) - (b != b);
		return (a > b) - (a < b);
	} else {
		int64_t sa = 0, sb = 0;
		uint64_t ua = 0, ub = 0;
		if (ix_ld_int(dt, p, i, &sa, &ua)) {
			ix_ld_int(dt, p, j, &sb, &ub);
			return (sa > sb) - (sa < sb);
		}
		ix_ld_int(dt, p, j, &sb, &ub);
		return (ua > ub) - (ua < ub);
	}
}

/* *dst = *dst (op) *src for one element of dtype dt (reduction != NONE). Floats
 * propagate NaN through max/min as numpy does; bool add/mul are or/and. */
static INGOT_UNUSED void ix_combine(int64_t dt, int64_t red, char *dst, const char *src)
{
	if (ingot_dtype_is_float(dt)) {
		double a = ix_ld_flt(dt, dst, 0), b = ix_ld_flt(dt, src, 0), r;
		switch (red) {
		case INGOT_SCATTER_ADD: r = a + b; break;
		case INGOT_SCATTER_MUL: r = a * b; break;
		case INGOT_SCATTER_MAX: r = (b > a || b != b) ? b : a; break;
		default: r = (b < a || b != b) ? b : a; break;
		}
		switch (dt) {
		case INGOT_DT_F64: memcpy(dst, &r, 8); break;
		case INGOT_DT_F32: { float f = (float)r; memcpy(dst, &f, 4); break; }
		case INGOT_DT_F16: { uint16_t h = ingot_f32_to_f16((float)r); memcpy(dst, &h, 2); break; }
		default: { uint16_t h = ingot_f32_to_bf16((float)r); memcpy(dst, &h, 2); break; }
		}
	} else if (dt == INGOT_DT_BOOL) {
		uint8_t a = (uint8_t)(*dst != 0), b = (uint8_t)(*src != 0);
		*dst = (char)((red == INGOT_SCATTER_ADD || red == INGOT_SCATTER_MAX) ? (a | b) : (a & b));
	} else {
		int64_t sa = 0, sb = 0;
		uint64_t ua = 0, ub = 0, r;
		size_t es = dt == INGOT_DT_I8 || dt == INGOT_DT_U8 ? 1 :
		            dt == INGOT_DT_I16 || dt == INGOT_DT_U16 ? 2 :
		            dt == INGOT_DT_I32 || dt == INGOT_DT_U32 ? 4 : 8;
		int sgn = ix_ld_int(dt, dst, 0, &sa, &ua);
		ix_ld_int(dt, src, 0, &sb, &ub);
		if (sgn) {
			ua = (uint64_t)sa;
			ub = (uint64_t)sb;
		}
		switch (red) {
		case INGOT_SCATTER_ADD: r = ua + ub; break;
		case INGOT_SCATTER_MUL: r = ua * ub; break;
		case INGOT_SCATTER_MAX: r = (sgn ? sb > sa : ub > ua) ? ub : ua; break;
		default: r = (sgn ? sb < sa : ub < ua) ? ub : ua; break;
		}
		/* store the low es bytes, in the machine's byte order */
		switch (es) {
		case 1: { uint8_t v = (uint8_t)r; memcpy(dst, &v, 1); break; }
		case 2: { uint16_t v = (uint16_t)r; memcpy(dst, &v, 2); break; }
		case 4: { uint32_t v = (uint32_t)r; memcpy(dst, &v, 4); break; }
		default: memcpy(dst, &r, 8); break;
		}
	}
}

/* ---- GatherElements ---- */

INGOT_KERNEL int ingot_gather_elements(const void *params, const void *const *in,
                                       void *const *out, void *scratch, int task, int n_tasks)
{
	const ingot_gather_elements_params *p = (const ingot_gather_elements_params *)params;
	int64_t st[INGOT_MAX_RANK], co[INGOT_MAX_RANK], n, i, lo, hi, es = p->esize;
	int64_t rank = p->rank, ax = p->axis, adim;
	int k;
	(void)scratch;
	if (rank < 1 || rank > INGOT_MAX_RANK || ax < 0 || ax >= rank)
		return INGOT_EINVAL;
	adim = p->dims[ax];
	n = ix_numel(p->idims, rank);
	for (i = 0; i < n; i++)
		if (ix_wrap(ix_ld_idx(in[1], i, p->idx_size), adim) < 0)
			return INGOT_ERANGE;
	ix_strides(p->dims, rank, st);
	ix_share(n, task, n_tasks, &lo, &hi);
	if (lo >= hi)
		return INGOT_OK;
	for (i = lo, k = (int)rank - 1; k >= 0; k--) {
		co[k] = i % p->idims[k];
		i /= p->idims[k];
	}
	for (i = lo; i < hi; i++) {
		int64_t off = 0;
		for (k = 0; k < (int)rank; k++)
			off += (k == ax ? ix_wrap(ix_ld_idx(in[1], i, p->idx_size), adim) : co[k]) * st[k];
		ix_cp((char *)out[0] + i * es, (const char *)in[0] + off * es, 1, es);
		for (k = (int)rank - 1; k >= 0; k--) {
			if (++co[k] < p->idims[k])
				break;
			co[k] = 0;
		}
	}
	return INGOT_OK;
}

/* ---- GatherND ---- */

/* Element offset (within its batch) of index tuple t, or -1 if out of range. */
static INGOT_UNUSED int64_t ix_nd_off(const void *idx, int64_t idx_size, int64_t t, int64_t m,
                                      const int64_t *dims, int64_t slice)
{
	int64_t off = 0, j;
	for (j = 0; j < m; j++) {
		int64_t v = ix_wrap(ix_ld_idx(idx, t * m + j, idx_size), dims[j]);
		if (v < 0)
			return -1;
		off = off * dims[j] + v;
	}
	return off * slice;
}

INGOT_KERNEL int ingot_gather_nd(const void *params, const void *const *in, void *const *out,
                                 void *scratch, int task, int n_tasks)
{
	const ingot_gather_nd_params *p = (const ingot_gather_nd_params *)params;
	int64_t total = p->n_batch * p->n_tuples, t, lo, hi, es = p->esize;
	(void)scratch;
	if (p->m < 0 || p->m > INGOT_MAX_RANK)
		return INGOT_EINVAL;
	for (t = 0; t < total; t++)
		if (ix_nd_off(in[1], p->idx_size, t, p->m, p->dims, p->slice) < 0)
			return INGOT_ERANGE;
	ix_share(total, task, n_tasks, &lo, &hi);
	for (t = lo; t < hi; t++) {
		int64_t off = ix_nd_off(in[1], p->idx_size, t, p->m, p->dims, p->slice);
		int64_t b = p->n_tuples ? t / p->n_tuples : 0;
		ix_cp((char *)out[0] + t * p->slice * es,
		         (const char *)in[0] + (b * p->batch_stride + off) * es, p->slice, es);
	}
	return INGOT_OK;
}

/* ---- ScatterElements / ScatterND ---- */

static INGOT_UNUSED void ix_apply(int64_t dt, int64_t red, int64_t es, char *dst, const char *src)
{
	if (red == INGOT_SCATTER_NONE)
		ix_cp(dst, src, 1, es);
	else
		ix_combine(dt, red, dst, src);
}

INGOT_KERNEL int ingot_scatter_elements(const void *params, const void *const *in,
                                        void *const *out, void *scratch, int task, int n_tasks)
{
	const ingot_scatter_elements_params *p = (const ingot_scatter_elements_params *)params;
	int64_t st[INGOT_MAX_RANK], co[INGOT_MAX_RANK], n_data, n_upd, i, lo, hi, es = p->esize;
	int64_t rank = p->rank, ax = p->axis, adim;
	char *y = (char *)out[0];
	int k;
	(void)scratch;
	if (rank < 1 || rank > INGOT_MAX_RANK || ax < 0 || ax >= rank)
		return INGOT_EINVAL;
	adim = p->dims[ax];
	n_data = ix_numel(p->dims, rank);
	n_upd = ix_numel(p->idims, rank);
	for (i = 0; i < n_upd; i++)
		if (ix_wrap(ix_ld_idx(in[1], i, p->idx_size), adim) < 0)
			return INGOT_ERANGE;
	ix_strides(p->dims, rank, st);
	ix_share(n_data, task, n_tasks, &lo, &hi);
	if (lo >= hi)
		return INGOT_OK;
	ix_cp(y + lo * es, (const char *)in[0] + lo * es, hi - lo, es);
	memset(co, 0, sizeof co);
	for (i = 0; i < n_upd; i++) {
		int64_t off = 0;
		for (k = 0; k < (int)rank; k++)
			off += (k == ax ? ix_wrap(ix_ld_idx(in[1], i, p->idx_size), adim) : co[k]) * st[k];
		if (off >= lo && off < hi)
			ix_apply(p->dtype, p->reduction, es, y + off * es, (const char *)in[2] + i * es);
		for (k = (int)rank - 1; k >= 0; k--) {
			if (++co[k] < p->idims[k])
				break;
			co[k] = 0;
		}
	}
	return INGOT_OK;
}

INGOT_KERNEL int ingot_scatter_nd(const void *params, const void *const *in, void *const *out,
                                  void *scratch, int task, int n_tasks)
{
	const ingot_scatter_nd_params *p = (const ingot_scatter_nd_params *)params;
	int64_t u, lo, hi, es = p->esize, s = p->slice;
	char *y = (char *)out[0];
	(void)scratch;
	if (p->m < 0 || p->m > INGOT_MAX_RANK)
		return INGOT_EINVAL;
	for (u = 0; u < p->n_upd; u++)
		if (ix_nd_off(in[1], p->idx_size, u, p->m, p->dims, s) < 0)
			return INGOT_ERANGE;
	ix_share(p->n_data, task, n_tasks, &lo, &hi);
	if (lo >= hi)
		return INGOT_OK;
	ix_cp(y + lo * es, (const char *)in[0] + lo * es, hi - lo, es);
	for (u = 0; u < p->n_upd; u++) {
		int64_t off = ix_nd_off(in[1], p->idx_size, u, p->m, p->dims, s), a, b, e;
		a = off > lo ? off : lo;
		b = off + s < hi ? off + s : hi;
		if (p->reduction == INGOT_SCATTER_NONE) {
			if (a < b)
				ix_cp(y + a * es, (const char *)in[2] + (u * s + a - off) * es, b - a, es);
			continue;
		}
		for (e = a; e < b; e++)
			ix_combine(p->dtype, p->reduction, y + e * es, (const char *)in[2] + (u * s + e - off) * es);
	}
	return INGOT_OK;
}

/* ---- Compress ---- */

INGOT_KERNEL int ingot_compress(const void *params, const void *const *in, void *const *out,
                                void *scratch, int task, int n_tasks)
{
	const ingot_compress_params *p = (const ingot_compress_params *)params;
	const uint8_t *cond = (const uint8_t *)in[1];
	int64_t n_cond = p->n_cond < p->axis_dim ? p->n_cond : p->axis_dim;
	int64_t cnt = 0, j, o, lo, hi, es = p->esize, row = p->inner * es;
	(void)scratch;
	for (j = 0; j < n_cond; j++)
		cnt += cond[j] != 0;
	if (p->dims_slot >= 0 && task == 0 && out[p->dims_slot]) {
		int64_t *d = (int64_t *)out[p->dims_slot];
		int k;
		for (k = 0; k < INGOT_MAX_RANK; k++)
			d[k] = k < p->rank ? p->dims[k] : 0;
		if (p->axis_out >= 0 && p->axis_out < INGOT_MAX_RANK)
			d[p->axis_out] = cnt;
	}
	ix_share(p->outer, task, n_tasks, &lo, &hi);
	for (o = lo; o < hi; o++) {
		char *dst = (char *)out[0] + o * cnt * row;
		const char *src = (const char *)in[0] + o * p->axis_dim * row;
		for (j = 0; j < n_cond; j++)
			if (cond[j]) {
				if (row > 0)
					memcpy(dst, src + j * row, (size_t)row);
				dst += row;
			}
	}
	return INGOT_OK;
}

/* ---- NonZero ---- */

static INGOT_UNUSED int ix_nonzero_at(int64_t dt, const void *p, int64_t i)
{
	const uint8_t *c = (const uint8_t *)p;
	switch (dt) {
	case INGOT_DT_F32: case INGOT_DT_F64: return ix_ld_flt(dt, p, i) != 0.0;
	case INGOT_DT_F16: case INGOT_DT_BF16: {
		uint16_t h;
		memcpy(&h, c + 2 * i, 2);
		return (h & 0x7fffu) != 0;
	}
	default: {
		size_t es = ingot_dtype_size((int)dt), b;
		for (b = 0; b < es; b++)
			if (c[(size_t)i * es + b])
				return 1;
		return 0;
	}
	}
}

INGOT_KERNEL int ingot_nonzero(const void *params, const void *const *in, void *const *out,
                               void *scratch, int task, int n_tasks)
{
	const ingot_nonzero_params *p = (const ingot_nonzero_params *)params;
	int64_t rank = p->rank > 0 ? p->rank : 1, n = ix_numel(p->dims, p->rank), nnz = 0, i, w = 0;
	int64_t co[INGOT_MAX_RANK], *y = (int64_t *)out[0];
	int k;
	(void)scratch;
	(void)n_tasks;
	if (p->rank < 0 || p->rank > INGOT_MAX_RANK)
		return INGOT_EINVAL;
	if (task != 0)
		return INGOT_OK;
	for (i = 0; i < n; i++)
		nnz += ix_nonzero_at(p->dtype, in[0], i);
	memset(co, 0, sizeof co);
	for (i = 0; i < n; i++) {
		if (ix_nonzero_at(p->dtype, in[0], i)) {
			for (k = 0; k < (int)rank; k++)
				y[k * nnz + w] = co[k];
			w++;
		}
		for (k = (int)p->rank - 1; k >= 0; k--) {
			if (++co[k] < p->dims[k])
				break;
			co[k] = 0;
		}
	}
	if (p->dims_slot >= 0 && out[p->dims_slot]) {
		int64_t *d = (int64_t *)out[p->dims_slot];
		memset(d, 0, INGOT_MAX_RANK * sizeof *d);
		d[0] = rank;
		d[1] = nnz;
	}
	return INGOT_OK;
}

/* ---- ordering helpers of Unique and TopK: heaps of int64 positions ---- */

/* What is compared: Unique items (the [outer, inner] sub-tensors at positions a and
 * b of the middle axis) or TopK elements x[base + a * step]. */
typedef struct ix_ord {
	int64_t dt;
	const void *x;
	int64_t outer, n, inner;     /* Unique */
	int64_t base, step, largest; /* TopK */
	int topk;
} ix_ord;

/* Three-way comparison of positions a and b by value only (TopK largest: reversed). */
static INGOT_UNUSED int ix_ord_cmp(const ix_ord *o, int64_t a, int64_t b)
{
	int c = 0;
	if (o->topk) {
		c = ix_cmp(o->dt, o->x, o->base + a * o->step, o->base + b * o->step);
		return o->largest ? -c : c;
	} else {
		int64_t q, i;
		for (q = 0; q < o->outer && c == 0; q++)
			for (i = 0; i < o->inner && c == 0; i++)
				c = ix_cmp(o->dt, o->x, (q * o->n + a) * o->inner + i,
				           (q * o->n + b) * o->inner + i);
	}
	return c;
}

/* Strict total order: a comes before b (equal values: the lower position first). */
static INGOT_UNUSED int ix_before(const ix_ord *o, int64_t a, int64_t b)
{
	int c = ix_ord_cmp(o, a, b);
	return c < 0 || (c == 0 && a < b);
}

/* Heap of `size` positions h[0], h[hs], ... whose root comes last in `before` order. */
static INGOT_UNUSED void ix_sift_down(const ix_ord *o, int64_t *h, int64_t hs, int64_t i,
                                      int64_t size)
{
	for (;;) {
		int64_t c = 2 * i + 1, m = i, t;
		if (c < size && ix_before(o, h[m * hs], h[c * hs]))
			m = c;
		if (c + 1 < size && ix_before(o, h[m * hs], h[(c + 1) * hs]))
			m = c + 1;
		if (m == i)
			return;
		t = h[i * hs];
		h[i * hs] = h[m * hs];
		h[m * hs] = t;
		i = m;
	}
}

static INGOT_UNUSED void ix_sift_up(const ix_ord *o, int64_t *h, int64_t hs, int64_t i)
{
	while (i > 0) {
		int64_t p = (i - 1) / 2, t;
		if (!ix_before(o, h[p * hs], h[i * hs]))
			return;
		t = h[i * hs];
		h[i * hs] = h[p * hs];
		h[p * hs] = t;
		i = p;
	}
}

/* Sorts a heap of `size` positions into `before` order. */
static INGOT_UNUSED void ix_heap_sort(const ix_ord *o, int64_t *h, int64_t hs, int64_t size)
{
	int64_t end, t;
	for (end = size - 1; end > 0; end--) {
		t = h[0];
		h[0] = h[end * hs];
		h[end * hs] = t;
		ix_sift_down(o, h, hs, 0, end);
	}
}

/* ---- Unique ---- */

static INGOT_UNUSED void ix_put_dims(void *const *out, int64_t slot, int64_t rank,
                                     const int64_t *dims)
{
	int64_t *d, k;
	if (slot < 0 || !out[slot])
		return;
	d = (int64_t *)out[slot];
	for (k = 0; k < INGOT_MAX_RANK; k++)
		d[k] = k < rank ? dims[k] : 0;
}

INGOT_KERNEL int ingot_unique(const void *params, const void *const *in, void *const *out,
                              void *scratch, int task, int n_tasks)
{
	const ingot_unique_params *p = (const ingot_unique_params *)params;
	int64_t n = p->n, es = (int64_t)ingot_dtype_size((int)p->dtype), row = p->inner * es;
	int64_t *perm = (int64_t *)scratch, *grp, *first, *cnt, *pos, i, g, nu = 0, q;
	int64_t *idx = p->n_out > 1 ? (int64_t *)out[1] : NULL;
	int64_t *inv = p->n_out > 2 ? (int64_t *)out[2] : NULL;
	int64_t *cts = p->n_out > 3 ? (int64_t *)out[3] : NULL;
	char *y = p->n_out > 0 ? (char *)out[0] : NULL;
	int64_t d[INGOT_MAX_RANK];
	ix_ord o;
	(void)n_tasks;
	if (task != 0)
		return INGOT_OK;
	if (p->y_rank < 1 || p->y_rank > INGOT_MAX_RANK || p->y_axis < 0 || p->y_axis >= p->y_rank)
		return INGOT_EINVAL;
	if (n > 0 && (!perm || es == 0))
		return INGOT_EINVAL;
	grp = perm + n;
	first = grp + n;
	cnt = first + n;
	memset(&o, 0, sizeof o);
	o.dt = p->dtype;
	o.x = in[0];
	o.outer = p->outer;
	o.n = n;
	o.inner = p->inner;
	for (i = 0; i < n; i++) {
		perm[i] = i;
		ix_sift_up(&o, perm, 1, i);
	}
	ix_heap_sort(&o, perm, 1, n);
	/* equal items are now adjacent, each run led by its first occurrence */
	for (i = 0; i < n; i++) {
		if (i == 0 || ix_ord_cmp(&o, first[nu - 1], perm[i]) != 0) {
			first[nu] = perm[i];
			cnt[nu] = 0;
			nu++;
		}
		cnt[nu - 1]++;
		grp[perm[i]] = nu - 1;
	}
	/* output position of each group: sorted order, or order of first occurrence */
	pos = perm;
	if (p->sorted) {
		for (g = 0; g < nu; g++)
			pos[g] = g;
	} else {
		for (g = 0, i = 0; i < n; i++)
			if (first[grp[i]] == i)
				pos[grp[i]] = g++;
	}
	for (g = 0; g < nu; g++) {
		if (y && row > 0)
			for (q = 0; q < p->outer; q++)
				memcpy(y + (q * nu + pos[g]) * row,
				       (const char *)in[0] + (q * n + first[g]) * row, (size_t)row);
		if (idx)
			idx[pos[g]] = first[g];
		if (cts)
			cts[pos[g]] = cnt[g];
	}
	if (inv)
		for (i = 0; i < n; i++)
			inv[i] = pos[grp[i]];
	memcpy(d, p->y_dims, sizeof d);
	d[p->y_axis] = nu;
	if (p->n_out > 0)
		ix_put_dims(out, p->dims_slot[0], p->y_rank, d);
	if (p->n_out > 1)
		ix_put_dims(out, p->dims_slot[1], 1, &nu);
	if (p->n_out > 3)
		ix_put_dims(out, p->dims_slot[3], 1, &nu);
	return INGOT_OK;
}

/* ---- ReverseSequence ---- */

INGOT_KERNEL int ingot_reverse_sequence(const void *params, const void *const *in,
                                        void *const *out, void *scratch, int task, int n_tasks)
{
	const ingot_reverse_sequence_params *p = (const ingot_reverse_sequence_params *)params;
	int64_t nt = p->n_time, nb = p->n_batch, row = p->inner * p->esize, r, lo, hi;
	(void)scratch;
	for (r = 0; r < nb; r++) {
		int64_t len = ix_ld_idx(in[1], r, p->idx_size);
		if (len < 0 || len > nt)
			return INGOT_ERANGE;
	}
	ix_share(nt * nb, task, n_tasks, &lo, &hi);
	for (r = lo; r < hi; r++) {
		int64_t t = p->time_axis == 0 ? r / nb : r % nt;
		int64_t b = p->time_axis == 0 ? r % nb : r / nt;
		int64_t len = ix_ld_idx(in[1], b, p->idx_size), ts = t < len ? len - 1 - t : t;
		int64_t src = p->time_axis == 0 ? ts * nb + b : b * nt + ts;
		if (row > 0)
			memcpy((char *)out[0] + r * row, (const char *)in[0] + src * row, (size_t)row);
	}
	return INGOT_OK;
}

/* ---- ArgMax / ArgMin ---- */

#define IX_NAN_F(v) ((v) != (v))
#define IX_NAN_I(v) 0
#define IX_ID(v) (v)
/* Best position along the axis: NaN wins (its first, or with `last` its last,
 * occurrence), else the greatest (least) value, ties by first (or last) position. */
#define IX_ARG_CASE(DT, T, A, LD, ISNAN) \
	case DT: { \
		const T *x = (const T *)in[0]; \
		for (r = lo; r < hi; r++) { \
			int64_t base = r / inner * n * inner + r % inner, best = 0, j; \
			A bv = LD(x[base]); \
			for (j = 1; j < n; j++) { \
				A v = LD(x[base + j * inner]); \
				if (ISNAN(bv)) { \
					if (last && ISNAN(v)) \
						best = j; \
					continue; \
				} \
				if (ISNAN(v) || (mn ? v < bv : v > bv) || (last && v == bv)) { \
					best = j; \
					bv = v; \
				} \
			} \
			y[r] = best; \
		} \
		break; \
	}

INGOT_KERNEL int ingot_arg(const void *params, const void *const *in, void *const *out,
                           void *scratch, int task, int n_tasks)
{
	const ingot_arg_params *p = (const ingot_arg_params *)params;
	int64_t n = p->n, inner = p->inner, r, lo, hi, *y = (int64_t *)out[0];
	int mn = p->is_min != 0, last = p->last != 0;
	(void)scratch;
	if (n < 1 || inner < 1)
		return p->outer * inner == 0 ? INGOT_OK : INGOT_EINVAL;
	ix_share(p->outer * inner, task, n_tasks, &lo, &hi);
	switch (p->dtype) {
	IX_ARG_CASE(INGOT_DT_F32, float, float, IX_ID, IX_NAN_F)
	IX_ARG_CASE(INGOT_DT_F64, double, double, IX_ID, IX_NAN_F)
	IX_ARG_CASE(INGOT_DT_F16, uint16_t, float, ingot_f16_to_f32, IX_NAN_F)
	IX_ARG_CASE(INGOT_DT_BF16, uint16_t, float, ingot_bf16_to_f32, IX_NAN_F)
	IX_ARG_CASE(INGOT_DT_I8, int8_t, int8_t, IX_ID, IX_NAN_I)
	IX_ARG_CASE(INGOT_DT_I16, int16_t, int16_t, IX_ID, IX_NAN_I)
	IX_ARG_CASE(INGOT_DT_I32, int32_t, int32_t, IX_ID, IX_NAN_I)
	IX_ARG_CASE(INGOT_DT_I64, int64_t, int64_t, IX_ID, IX_NAN_I)
	IX_ARG_CASE(INGOT_DT_U8, uint8_t, uint8_t, IX_ID, IX_NAN_I)
	IX_ARG_CASE(INGOT_DT_U16, uint16_t, uint16_t, IX_ID, IX_NAN_I)
	IX_ARG_CASE(INGOT_DT_U32, uint32_t, uint32_t, IX_ID, IX_NAN_I)
	IX_ARG_CASE(INGOT_DT_U64, uint64_t, uint64_t, IX_ID, IX_NAN_I)
	default:
		return INGOT_EINVAL;
	}
	return INGOT_OK;
}

/* ---- TopK ---- */

/* Each row keeps its best k positions in a heap stored in the indices output
 * itself (worst at the root), so no scratch memory is needed: O(n log k). */
INGOT_KERNEL int ingot_topk(const void *params, const void *const *in, void *const *out,
                            void *scratch, int task, int n_tasks)
{
	const ingot_topk_params *p = (const ingot_topk_params *)params;
	int64_t n = p->n, k = p->k, inner = p->inner, es = (int64_t)ingot_dtype_size((int)p->dtype);
	int64_t r, lo, hi, *yi = (int64_t *)out[1];
	char *yv = (char *)out[0];
	ix_ord o;
	(void)scratch;
	if (k < 0 || k > n || es == 0)
		return INGOT_EINVAL;
	memset(&o, 0, sizeof o);
	o.dt = p->dtype;
	o.x = in[0];
	o.step = inner;
	o.largest = p->largest;
	o.topk = 1;
	ix_share(p->outer * inner, task, n_tasks, &lo, &hi);
	for (r = lo; r < hi && k > 0; r++) {
		int64_t q = r / inner, c = r % inner, j, size = 0, *h = yi + q * k * inner + c;
		o.base = q * n * inner + c;
		for (j = 0; j < n; j++) {
			if (size < k) {
				h[size * inner] = j;
				ix_sift_up(&o, h, inner, size++);
			} else if (ix_before(&o, j, h[0])) {
				h[0] = j;
				ix_sift_down(&o, h, inner, 0, size);
			}
		}
		ix_heap_sort(&o, h, inner, size);
		for (j = 0; j < k; j++)
			ix_cp(yv + ((q * k + j) * inner + c) * es,
			      (const char *)in[0] + (o.base + h[j * inner] * inner) * es, 1, es);
	}
	return INGOT_OK;
}

/* ---- TfIdfVectorizer ---- */

/* Counts the n-gram of `len` items x[at], x[at + d], ... if the pool holds it. */
static INGOT_UNUSED void ix_tf_hit(const ingot_tfidf_params *p, const int64_t *tab,
                                   const void *x, int64_t at, int64_t d, int64_t len, float *row)
{
	int64_t e = p->out_size, j;
	while (e < p->n_table) {
		int64_t l = tab[e];
		if (l == len) {
			for (j = 0; j < l; j++)
				if (tab[e + 2 + j] != ix_ld_idx(x, at + j * d, p->idx_size))
					break;
			if (j == l) {
				row[tab[e + 1]] += 1.0f;
				return;
			}
		}
		e += 2 + l;
	}
}

INGOT_KERNEL int ingot_tfidf(const void *params, const void *const *in, void *const *out,
                             void *scratch, int task, int n_tasks)
{
	const ingot_tfidf_params *p = (const ingot_tfidf_params *)params;
	const int64_t *tab = (const int64_t *)in[1];
	int64_t e, r, lo, hi, nc = p->n_cols, os = p->out_size;
	(void)scratch;
	/* the pool comes from the compiler; still, never walk past it */
	for (e = os; e < p->n_table; e += 2 + tab[e])
		if (tab[e] < 1 || tab[e] > p->n_table - e - 2 || tab[e + 1] < 0 || tab[e + 1] >= os)
			return INGOT_EINVAL;
	ix_share(p->n_rows, task, n_tasks, &lo, &hi);
	for (r = lo; r < hi; r++) {
		float *row = (float *)out[0] + r * os;
		int64_t start = p->min_n, d, s, len, c;
		for (c = 0; c < os; c++)
			row[c] = 0.0f;
		/* unigrams do not depend on the skip distance: count them once */
		if (start == 1) {
			for (s = 0; s < nc; s++)
				ix_tf_hit(p, tab, in[0], r * nc + s, 1, 1, row);
			start = 2;
		}
		for (d = 1; start <= p->max_n && d <= p->max_skip + 1; d++)
			for (s = 0; s + d * (start - 1) < nc; s++)
				for (len = start; len <= p->max_n && s + d * (len - 1) < nc; len++)
					ix_tf_hit(p, tab, in[0], r * nc + s, d, len, row);
		if (p->mode != INGOT_TFIDF_TF)
			for (c = 0; c < os; c++) {
				float w;
				uint32_t bits = (uint32_t)tab[c];
				memcpy(&w, &bits, 4);
				row[c] = p->mode == INGOT_TFIDF_IDF ? (row[c] > 0.0f ? w : 0.0f) : row[c] * w;
			}
	}
	return INGOT_OK;
}

/* ---- TensorScatter ---- */

INGOT_KERNEL int ingot_tensor_scatter(const void *params, const void *const *in,
                                      void *const *out, void *scratch, int task, int n_tasks)
{
	const ingot_tensor_scatter_params *p = (const ingot_tensor_scatter_params *)params;
	const unsigned char *past = (const unsigned char *)in[0], *upd = (const unsigned char *)in[1];
	const int64_t *widx = p->has_idx ? (const int64_t *)in[2] : NULL;
	unsigned char *y = (unsigned char *)out[0];
	const size_t row = (size_t)(p->inner * p->esize);
	int64_t b, m, j;
	(void)scratch;
	(void)n_tasks;
	if (task != 0)
		return INGOT_OK;
	if (!past || !upd || !y || (p->has_idx && !widx) || p->max_seq < 1)
		return INGOT_EINVAL;
	if (y != past)
		memmove(y, past, (size_t)(p->batch * p->mid * p->max_seq) * row);
	for (b = 0; b < p->batch; b++) {
		int64_t w = widx ? widx[b] : 0;
		if (!p->circular && (w < 0 || w > p->max_seq - p->seq))
			return INGOT_ERANGE;
		if (p->circular && w < 0)
			return INGOT_ERANGE;
		for (m = 0; m < p->mid; m++)
			for (j = 0; j < p->seq; j++) {
				int64_t at = p->circular ? (w + j) % p->max_seq : w + j;
				memcpy(y + (size_t)((b * p->mid + m) * p->max_seq + at) * row,
				       upd + (size_t)((b * p->mid + m) * p->seq + j) * row, row);
			}
	}
	return INGOT_OK;
}
