/* shape.c — reference kernels of the data-movement ops (see shape.h). They copy
 * elements by size (1, 2, 4, 8 bytes, anything else through memcpy), never by
 * dtype, so one loop serves bool, f16, bf16 and every int and float type. Work is
 * split across tasks by output rows; rows are found by division, which keeps the
 * loops rank-generic without per-rank code. */
#include "shape.h"

#include <string.h>

/* The half-open share [*lo, *hi) of n items that this task handles. */
static inline void share(int64_t n, int task, int n_tasks, int64_t *lo, int64_t *hi)
{
	if (n_tasks < 1) {
		task = 0;
		n_tasks = 1;
	}
	*lo = n / n_tasks * task + (n % n_tasks) * task / n_tasks;
	*hi = n / n_tasks * (task + 1) + (n % n_tasks) * (task + 1) / n_tasks;
}

/* Copies n elements of esize bytes, reading with a stride of `stride` elements. */
static inline void copy_strided(char *dst, const char *src, int64_t n, int64_t stride,
                                int64_t esize)
{
	int64_t i;
	if (stride == 1) {
		memcpy(dst, src, (size_t)(n * esize));
		return;
	}
	switch (esize) {
	case 1:
		for (i = 0; i < n; i++)
			((uint8_t *)dst)[i] = *(const uint8_t *)(src + i * stride);
		break;
	case 2:
		for (i = 0; i < n; i++)
			memcpy(dst + 2 * i, src + 2 * i * stride, 2);
		break;
	case 4:
		for (i = 0; i < n; i++)
			memcpy(dst + 4 * i, src + 4 * i * stride, 4);
		break;
	case 8:
		for (i = 0; i < n; i++)
			memcpy(dst + 8 * i, src + 8 * i * stride, 8);
		break;
	default:
		for (i = 0; i < n; i++)
			memcpy(dst + esize * i, src + esize * i * stride, (size_t)esize);
	}
}

/* Fills n elements with the bit pattern `value` (an unsigned integer of esize bytes). */
static inline void fill(char *dst, int64_t n, int64_t esize, int64_t value)
{
	uint64_t v = (uint64_t)value;
	int64_t i;
	switch (esize) {
	case 1:
		memset(dst, (int)(v & 0xffu), (size_t)n);
		break;
	case 2: {
		uint16_t x = (uint16_t)v;
		for (i = 0; i < n; i++)
			memcpy(dst + 2 * i, &x, 2);
		break;
	}
	case 4: {
		uint32_t x = (uint32_t)v;
		for (i = 0; i < n; i++)
			memcpy(dst + 4 * i, &x, 4);
		break;
	}
	case 8:
		for (i = 0; i < n; i++)
			memcpy(dst + 8 * i, &v, 8);
		break;
	default:            /* wider types (complex) only ever fill with zero */
		memset(dst, 0, (size_t)(n * esize));
	}
}

INGOT_KERNEL int ingot_copy(const void *params, const void *const *in, void *const *out,
                            void *scratch, int task, int n_tasks)
{
	const ingot_copy_params *p = (const ingot_copy_params *)params;
	int64_t lo, hi;
	(void)scratch;
	share(p->bytes, task, n_tasks, &lo, &hi);
	if (hi > lo && in[0] != out[0])      /* an aliased (in-place) reshape has nothing to do */
		memcpy((char *)out[0] + lo, (const char *)in[0] + lo, (size_t)(hi - lo));
	return INGOT_OK;
}

INGOT_KERNEL int ingot_strided_copy(const void *params, const void *const *in,
                                    void *const *out, void *scratch, int task, int n_tasks)
{
	const ingot_strided_params *p = (const ingot_strided_params *)params;
	const char *src = (const char *)in[0];
	char *dst = (char *)out[0];
	int64_t es = p->esize, rank = p->rank, inner = 1, istride = 1, rows = 1, lo, hi, r;
	int k;
	(void)scratch;
	if (rank > 0) {
		inner = p->dims[rank - 1];
		istride = p->strides[rank - 1];
		for (k = 0; k < rank - 1; k++)
			rows *= p->dims[k];
	}
	if (inner == 0)
		return INGOT_OK;
	share(rows, task, n_tasks, &lo, &hi);
	for (r = lo; r < hi; r++) {
		int64_t off = p->offset, rest = r;
		for (k = (int)rank - 2; k >= 0; k--) {
			off += rest % p->dims[k] * p->strides[k];
			rest /= p->dims[k];
		}
		copy_strided(dst + r * inner * es, src + off * es, inner, istride, es);
	}
	return INGOT_OK;
}

static inline int64_t row_bytes(const ingot_concat_params *p, int64_t i)
{
	return i < 16 ? p->row_bytes[i] : p->row_bytes_hi[i - 16];
}

INGOT_KERNEL int ingot_concat(const void *params, const void *const *in, void *const *out,
                              void *scratch, int task, int n_tasks)
{
	const ingot_concat_params *p = (const ingot_concat_params *)params;
	int64_t total = 0, lo, hi, r, i;
	(void)scratch;
	for (i = 0; i < p->n; i++)
		total += row_bytes(p, i);
	share(p->outer, task, n_tasks, &lo, &hi);
	for (r = lo; r < hi; r++) {
		char *dst = (char *)out[0] + r * total;
		for (i = 0; i < p->n; i++) {
			int64_t b = row_bytes(p, i);
			if (b > 0)
				memcpy(dst, (const char *)in[i] + r * b, (size_t)b);
			dst += b;
		}
	}
	return INGOT_OK;
}

INGOT_KERNEL int ingot_split(const void *params, const void *const *in, void *const *out,
                             void *scratch, int task, int n_tasks)
{
	const ingot_concat_params *p = (const ingot_concat_params *)params;
	int64_t total = 0, lo, hi, r, i;
	(void)scratch;
	for (i = 0; i < p->n; i++)
		total += row_bytes(p, i);
	share(p->outer, task, n_tasks, &lo, &hi);
	for (r = lo; r < hi; r++) {
		const char *src = (const char *)in[0] + r * total;
		for (i = 0; i < p->n; i++) {
			int64_t b = row_bytes(p, i);
			if (b > 0 && out[i])          /* an omitted output is NULL */
				memcpy((char *)out[i] + r * b, src, (size_t)b);
			src += b;
		}
	}
	return INGOT_OK;
}

static inline int64_t load_index(const void *idx, int64_t i, int64_t size)
{
	if (size == 4) {
		int32_t v;
		memcpy(&v, (const char *)idx + 4 * i, 4);
		return v;
	} else {
		int64_t v;
		memcpy(&v, (const char *)idx + 8 * i, 8);
		return v;
	}
}

INGOT_KERNEL int ingot_gather(const void *params, const void *const *in, void *const *out,
                              void *scratch, int task, int n_tasks)
{
	const ingot_gather_params *p = (const ingot_gather_params *)params;
	int64_t row = p->inner * p->esize, lo, hi, r, i;
	(void)scratch;
	/* every task checks every index, so no task writes anything on bad input */
	for (i = 0; i < p->n_idx; i++) {
		int64_t v = load_index(in[1], i, p->idx_size);
		if (v < -p->axis_dim || v >= p->axis_dim)
			return INGOT_ERANGE;
	}
	share(p->outer * p->n_idx, task, n_tasks, &lo, &hi);
	for (r = lo; r < hi; r++) {
		int64_t o = r / p->n_idx, v = load_index(in[1], r % p->n_idx, p->idx_size);
		if (v < 0)
			v += p->axis_dim;
		if (row > 0)
			memcpy((char *)out[0] + r * row,
			       (const char *)in[0] + (o * p->axis_dim + v) * row, (size_t)row);
	}
	return INGOT_OK;
}

/* Maps coordinate c into [0, n) per the pad mode; -1 means "the constant". */
static inline int64_t pad_coord(int64_t c, int64_t n, int64_t mode)
{
	if (c >= 0 && c < n)
		return c;
	if (n <= 0)
		return -1;
	switch (mode) {
	case INGOT_PAD_REFLECT: {
		int64_t period = 2 * (n - 1);
		if (period == 0)
			return 0;
		c %= period;
		if (c < 0)
			c += period;
		return c < n ? c : period - c;
	}
	case INGOT_PAD_EDGE:
		return c < 0 ? 0 : n - 1;
	case INGOT_PAD_WRAP:
		c %= n;
		return c < 0 ? c + n : c;
	default:
		return -1;
	}
}

INGOT_KERNEL int ingot_pad(const void *params, const void *const *in, void *const *out,
                           void *scratch, int task, int n_tasks)
{
	const ingot_pad_params *p = (const ingot_pad_params *)params;
	const char *src = (const char *)in[0];
	char *dst = (char *)out[0];
	int64_t es = p->esize, rank = p->rank, rows = 1, lo, hi, r;
	int64_t n_out, n_in, b;
	int k;
	(void)scratch;
	if (rank == 0) {
		if (task == 0)
			memcpy(dst, src, (size_t)es);
		return INGOT_OK;
	}
	n_out = p->out_dims[rank - 1];
	n_in = p->in_dims[rank - 1];
	b = p->begin[rank - 1];
	for (k = 0; k < rank - 1; k++)
		rows *= p->out_dims[k];
	if (n_out == 0)
		return INGOT_OK;
	share(rows, task, n_tasks, &lo, &hi);
	for (r = lo; r < hi; r++) {
		char *d = dst + r * n_out * es;
		int64_t off = 0, scale = 1, rest = r, j;
		int outside = 0;
		for (k = (int)rank - 2; k >= 0; k--) {
			int64_t c = pad_coord(rest % p->out_dims[k] - p->begin[k], p->in_dims[k], p->mode);
			rest /= p->out_dims[k];
			if (c < 0)
				outside = 1;
			off += c * scale;
			scale *= p->in_dims[k];
		}
		if (outside) {
			fill(d, n_out, es, p->value);
			continue;
		}
		off *= n_in;                          /* first element of the source row */
		if (p->mode == INGOT_PAD_CONSTANT) {
			/* [0, a) constant, [a, z) copied from the input, [z, n_out) constant */
			int64_t a = b > 0 ? b : 0, z = b + n_in;
			if (a > n_out)
				a = n_out;
			if (z > n_out)
				z = n_out;
			if (z < a)
				z = a;
			fill(d, a, es, p->value);
			if (z > a)
				memcpy(d + a * es, src + (off + a - b) * es, (size_t)((z - a) * es));
			fill(d + z * es, n_out - z, es, p->value);
		} else {
			for (j = 0; j < n_out; j++)
				memcpy(d + j * es, src + (off + pad_coord(j - b, n_in, p->mode)) * es,
				       (size_t)es);
		}
	}
	return INGOT_OK;
}

INGOT_KERNEL int ingot_fill(const void *params, const void *const *in, void *const *out,
                            void *scratch, int task, int n_tasks)
{
	const ingot_fill_params *p = (const ingot_fill_params *)params;
	int64_t lo, hi;
	(void)in;
	(void)scratch;
	share(p->n, task, n_tasks, &lo, &hi);
	fill((char *)out[0] + lo * p->esize, hi - lo, p->esize, p->value);
	return INGOT_OK;
}

INGOT_KERNEL int ingot_const_i64s(const void *params, const void *const *in, void *const *out,
                                  void *scratch, int task, int n_tasks)
{
	const ingot_const_i64s_params *p = (const ingot_const_i64s_params *)params;
	(void)in;
	(void)scratch;
	(void)n_tasks;
	if (task == 0 && p->n > 0)
		memcpy(out[0], p->v, (size_t)p->n * sizeof p->v[0]);
	return INGOT_OK;
}

INGOT_KERNEL int ingot_range(const void *params, const void *const *in, void *const *out,
                             void *scratch, int task, int n_tasks)
{
	const ingot_range_params *p = (const ingot_range_params *)params;
	int64_t lo, hi, i;
	(void)in;
	(void)scratch;
	share(p->n, task, n_tasks, &lo, &hi);
	for (i = lo; i < hi; i++) {
		/* integers wrap like the ONNX reference's repeated addition, without UB */
		uint64_t u = (uint64_t)p->istart + (uint64_t)i * (uint64_t)p->idelta;
		double f = p->fstart + (double)i * p->fdelta;
		switch (p->dtype) {
		case INGOT_DT_F32: ((float *)out[0])[i] = (float)f; break;
		case INGOT_DT_F64: ((double *)out[0])[i] = f; break;
		case INGOT_DT_F16: ((uint16_t *)out[0])[i] = ingot_f32_to_f16((float)f); break;
		case INGOT_DT_BF16: ((uint16_t *)out[0])[i] = ingot_f32_to_bf16((float)f); break;
		case INGOT_DT_I16: ((int16_t *)out[0])[i] = (int16_t)(uint16_t)u; break;
		case INGOT_DT_I32: ((int32_t *)out[0])[i] = (int32_t)(uint32_t)u; break;
		case INGOT_DT_I64: ((int64_t *)out[0])[i] = (int64_t)u; break;
		default: return INGOT_EINVAL;
		}
	}
	return INGOT_OK;
}

INGOT_KERNEL int ingot_branch_error(const void *params, const void *const *in, void *const *out,
                                    void *scratch, int task, int n_tasks)
{
	(void)params;
	(void)in;
	(void)out;
	(void)scratch;
	(void)task;
	(void)n_tasks;
	return INGOT_EINVAL;
}
