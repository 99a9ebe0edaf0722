/* shape_ops.c — the shape op groups (constant_of_shape, expand, range, reshape,
 * shape, transpose): typed attributes per opset, shape inference, lowering to
 * runtime-stubs/kernels/shape.c; and the helpers they share with the groups of
 * slice_concat.c (opimpl.h).
 *
 * Whatever moved from an attribute to an input across opsets (Reshape's shape,
 * Transpose's default perm; in slice_concat.c Slice starts, Split sizes, Pad pads and
 * value) is resolved by infer() into the attribute struct, the one place lower()
 * reads; lower() then turns it into final dims, strides and offsets, so the kernels
 * are plain loops. */
#include "opimpl.h"
#include "op_attrs.h"
#include "shape.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* ---- kernel parameter descriptors ---- */

#define PARAM_STRUCT ingot_copy_params
static const ParamField copy_fields[] = { INGOT_COPY_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
#define PARAM_STRUCT ingot_strided_params
static const ParamField strided_fields[] = { INGOT_STRIDED_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
#define PARAM_STRUCT ingot_fill_params
static const ParamField fill_fields[] = { INGOT_FILL_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
#define PARAM_STRUCT ingot_const_i64s_params
static const ParamField const_i64s_fields[] = { INGOT_CONST_I64S_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
#define PARAM_STRUCT ingot_range_params
static const ParamField range_fields[] = { INGOT_RANGE_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT

static const ParamDesc copy_desc = PARAM_DESC(ingot_copy_params, copy_fields);
static const ParamDesc strided_desc = PARAM_DESC(ingot_strided_params, strided_fields);
static const ParamDesc fill_desc = PARAM_DESC(ingot_fill_params, fill_fields);
static const ParamDesc const_i64s_desc = PARAM_DESC(ingot_const_i64s_params, const_i64s_fields);
static const ParamDesc range_desc = PARAM_DESC(ingot_range_params, range_fields);
/* ---- helpers ---- */

static Node *lnode(LowerCtx *c) { return &c->g->nodes[c->node]; }

int64_t ops_prod(const int64_t *d, int lo, int hi)
{
	int64_t p = 1;
	for (int i = lo; i < hi; i++)
		p *= d[i];
	return p;
}

static int64_t esize_of(const Type *t) { return (int64_t)dtype_size(t->dtype); }

/* Row-major element strides of a type. */
void ops_contiguous_strides(const Type *t, int64_t *s)
{
	int64_t acc = 1;
	for (int k = t->rank - 1; k >= 0; k--) {
		s[k] = acc;
		acc *= t->dims[k];
	}
}

int ops_set_out(InferCtx *c, int slot, DType dt, int rank, const int64_t *dims)
{
	Type *o = infer_out(c, slot);
	if (rank > IR_MAX_RANK)
		return infer_fail(c, -1, "output rank %d exceeds the maximum of %d", rank, IR_MAX_RANK);
	if (o)
		*o = type_make(dt, rank, dims);
	return 0;
}

/* Stores n int64s into an arena IntList (the canonical attribute). */
void ops_set_list(Graph *g, IntList *l, const int64_t *v, int n)
{
	l->v = arena_array(&g->arena, (size_t)(n ? n : 1), sizeof *l->v);
	if (n > 0)
		memcpy(l->v, v, (size_t)n * sizeof *v);
	l->n = n;
}

/* The bit pattern of a scalar as an unsigned integer of es bytes (kernel `value`). */
int64_t ops_scalar_bits(const Scalar *s, size_t es)
{
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;
	switch (es) {
	case 1: memcpy(&u8, s->bytes, 1); return u8;
	case 2: memcpy(&u16, s->bytes, 2); return u16;
	case 4: memcpy(&u32, s->bytes, 4); return u32;
	default: memcpy(&u64, s->bytes, 8); return (int64_t)u64;
	}
}

/* Normalizes a list of axes against `rank`, rejecting duplicates. */
int ops_norm_axes(InferCtx *c, const int64_t *axes, int n, int rank, int64_t *out)
{
	unsigned seen = 0;
	for (int i = 0; i < n; i++) {
		if (infer_normalize_axis(c, axes[i], rank, &out[i]))
			return -1;
		if (seen & (1u << out[i]))
			return infer_fail(c, -1, "axis %lld appears twice", (long long)axes[i]);
		seen |= 1u << out[i];
	}
	return 0;
}

/* Emits a strided copy, dropping unit dims and merging dims that are contiguous
 * in the source, so a transpose of [1,3,224,224] to NHWC is a rank-2 loop. */
int ops_lower_strided(LowerCtx *c, int64_t esize, int rank, const int64_t *dims,
                      const int64_t *strides, int64_t offset)
{
	ingot_strided_params *p = lower_params(c, &strided_desc);
	int r = 0;
	p->esize = esize;
	p->offset = offset;
	for (int k = 0; k < rank; k++) {
		if (dims[k] == 0) {                 /* empty output: nothing to copy */
			p->dims[0] = 0;
			p->strides[0] = 1;
			p->offset = 0;
			r = 1;
			break;
		}
		if (dims[k] == 1)
			continue;
		if (r > 0 && p->strides[r - 1] == strides[k] * dims[k]) {
			p->dims[r - 1] *= dims[k];
			p->strides[r - 1] = strides[k];
			continue;
		}
		p->dims[r] = dims[k];
		p->strides[r] = strides[k];
		r++;
	}
	p->rank = r;
	LOWER_CALL(c, ingot_strided_copy, &strided_desc, p);
	c->kc.split = true;   /* tasks own disjoint outputs */
	return 0;
}

/* ---- reshape: Reshape, Flatten, Squeeze, Unsqueeze (pure copies) ---- */

/* ReshapeAttrs is in op_attrs.h */

static const AttrField reshape_fields[] = {
	{ "shape", AK_INTS, offsetof(ReshapeAttrs, shape), NULL },
	{ "allowzero", AK_INTS, offsetof(ReshapeAttrs, allowzero), NULL },
	{ "axis", AK_INTS, offsetof(ReshapeAttrs, axis), NULL },
	{ "axes", AK_INTS, offsetof(ReshapeAttrs, axes), NULL },
};

static int reshape_import(ImportCtx *c)
{
	ReshapeAttrs *a = c->attrs;
	Node *n = &c->g->nodes[c->node];
	int64_t axis;
	a->shape.n = a->allowzero.n = a->axis.n = a->axes.n = -1;
	switch (n->op) {
	case OP_RESHAPE:
		if (import_ints(c, "shape", &a->shape))
			return -1;
		if (import_find(c, "allowzero")) {
			if (import_int(c, "allowzero", 0, &axis))
				return -1;
			ops_set_list(c->g, &a->allowzero, &axis, 1);
		}
		return 0;
	case OP_FLATTEN:
		if (import_int(c, "axis", 1, &axis))
			return -1;
		ops_set_list(c->g, &a->axis, &axis, 1);
		return 0;
	default:
		return import_ints(c, "axes", &a->axes);
	}
}

static int reshape_dims(InferCtx *c, const Type *t, const int64_t *s, int n, bool allowzero,
                        int64_t *dims)
{
	int64_t numel = type_numel(t), known = 1;
	int infer_at = -1;
	if (n > IR_MAX_RANK)
		return infer_fail(c, 1, "shape has %d dims, more than the maximum of %d", n, IR_MAX_RANK);
	for (int i = 0; i < n; i++) {
		int64_t v = s[i];
		if (v == -1) {
			if (infer_at >= 0)
				return infer_fail(c, 1, "more than one -1 in the shape");
			infer_at = i;
			continue;
		}
		if (v == 0 && !allowzero) {
			if (i >= t->rank)
				return infer_fail(c, 1, "shape[%d] = 0 copies a dim the rank-%d input lacks",
				                  i, t->rank);
			v = t->dims[i];
		}
		if (v < 0)
			return infer_fail(c, 1, "invalid dim %lld in the shape", (long long)v);
		if (!size_mul(known, v, &known))
			return infer_fail(c, 1, "shape is too large");
		dims[i] = v;
	}
	if (infer_at >= 0) {
		if (known == 0 || numel % known)
			return infer_fail(c, 1, "cannot infer the -1 dim: %lld elements into blocks of %lld",
			                  (long long)numel, (long long)known);
		dims[infer_at] = numel / known;
	} else if (known != numel) {
		return infer_fail(c, 1, "cannot reshape %lld elements into %lld", (long long)numel,
		                  (long long)known);
	}
	return 0;
}

static int reshape_infer(InferCtx *c)
{
	Node *n = infer_node(c);
	ReshapeAttrs *a = n->attrs;
	const Type *t = infer_in(c, 0);
	int64_t dims[IR_MAX_RANK], *v = NULL, norm[IR_MAX_RANK];
	int nv = -1, rank = 0;

	if (n->op != OP_FLATTEN && infer_has(c, 1)) {
		if (infer_const_ints(c, 1, &v, &nv))
			return -1;
	} else if (n->op == OP_RESHAPE) {
		v = a->shape.v;
		nv = a->shape.n;
	} else if (n->op != OP_FLATTEN) {
		v = a->axes.v;
		nv = a->axes.n;
	}
	switch (n->op) {
	case OP_RESHAPE:
		if (nv < 0)
			return infer_fail(c, -1, "missing the target shape (input 1 or attribute 'shape')");
		if (reshape_dims(c, t, v, nv, a->allowzero.n == 1 && a->allowzero.v[0], dims))
			return -1;
		rank = nv;
		break;
	case OP_FLATTEN: {
		int64_t axis = a->axis.n == 1 ? a->axis.v[0] : 1;
		if (axis < 0)
			axis += t->rank;
		if (axis < 0 || axis > t->rank)
			return infer_fail_attr(c, "axis", "axis %lld out of range for rank %d",
			                       (long long)(a->axis.n == 1 ? a->axis.v[0] : 1), t->rank);
		dims[0] = ops_prod(t->dims, 0, (int)axis);
		dims[1] = ops_prod(t->dims, (int)axis, t->rank);
		rank = 2;
		break;
	}
	case OP_SQUEEZE: {
		unsigned drop = 0;
		if (nv > IR_MAX_RANK)
			return infer_fail(c, -1, "too many axes (%d)", nv);
		if (nv > 0) {
			if (ops_norm_axes(c, v, nv, t->rank, norm))
				return -1;
			for (int i = 0; i < nv; i++) {
				if (t->dims[norm[i]] != 1)
					return infer_fail(c, 0, "cannot squeeze axis %lld of size %lld",
					                  (long long)v[i], (long long)t->dims[norm[i]]);
				drop |= 1u << norm[i];
			}
		} else {                          /* no axes: every unit dim goes */
			for (int k = 0; k < t->rank; k++)
				if (t->dims[k] == 1)
					drop |= 1u << k;
		}
		for (int k = 0; k < t->rank; k++)
			if (!(drop & (1u << k)))
				dims[rank++] = t->dims[k];
		break;
	}
	default: {                            /* OP_UNSQUEEZE */
		unsigned add = 0;
		if (nv < 0)
			return infer_fail(c, -1, "missing axes (input 1 or attribute 'axes')");
		rank = t->rank + nv;
		if (rank > IR_MAX_RANK)
			return infer_fail(c, -1, "output rank %d exceeds the maximum of %d", rank,
			                  IR_MAX_RANK);
		if (ops_norm_axes(c, v, nv, rank, norm))
			return -1;
		for (int i = 0; i < nv; i++)
			add |= 1u << norm[i];
		for (int k = 0, j = 0; k < rank; k++)
			dims[k] = add & (1u << k) ? 1 : t->dims[j++];
		break;
	}
	}
	return ops_set_out(c, 0, t->dtype, rank, dims);
}

static int reshape_lower(LowerCtx *c)
{
	ingot_copy_params *p = lower_params(c, &copy_desc);
	p->bytes = type_bytes(lower_out(c, 0));
	LOWER_CALL(c, ingot_copy, &copy_desc, p);
	c->kc.split = true;   /* tasks own disjoint outputs */
	return 0;
}

const OpImpl op_impl_reshape = {
	sizeof(ReshapeAttrs), reshape_fields, COUNTOF(reshape_fields),
	reshape_import, reshape_infer, reshape_lower
};

/* ---- shape: Shape (opset 15 start/end), Size ---- */

typedef struct ShapeAttrs {
	IntList start, end;   /* Shape: [v] when given; clamped to [0, rank] */
} ShapeAttrs;

static const AttrField shape_fields[] = {
	{ "start", AK_INTS, offsetof(ShapeAttrs, start), NULL },
	{ "end", AK_INTS, offsetof(ShapeAttrs, end), NULL },
};

static int shape_import(ImportCtx *c)
{
	ShapeAttrs *a = c->attrs;
	int64_t v;
	a->start.n = a->end.n = -1;
	if (import_find(c, "start")) {
		if (import_int(c, "start", 0, &v))
			return -1;
		ops_set_list(c->g, &a->start, &v, 1);
	}
	if (import_find(c, "end")) {
		if (import_int(c, "end", 0, &v))
			return -1;
		ops_set_list(c->g, &a->end, &v, 1);
	}
	return 0;
}

static int64_t clamp_dim_index(const IntList *l, int64_t def, int rank)
{
	int64_t v = l->n == 1 ? l->v[0] : def;
	if (v < 0)
		v += rank;
	return v < 0 ? 0 : v > rank ? rank : v;
}

static void shape_range(const ShapeAttrs *a, int rank, int64_t *s, int64_t *e)
{
	*s = clamp_dim_index(&a->start, 0, rank);
	*e = clamp_dim_index(&a->end, rank, rank);
	if (*e < *s)
		*e = *s;
}

static int shape_infer(InferCtx *c)
{
	Node *n = infer_node(c);
	const Type *t = infer_in(c, 0);
	int64_t s, e, len;
	if (n->op == OP_SIZE)
		return ops_set_out(c, 0, DT_I64, 0, NULL);
	shape_range(n->attrs, t->rank, &s, &e);
	len = e - s;
	return ops_set_out(c, 0, DT_I64, 1, &len);
}

static int shape_lower(LowerCtx *c)
{
	ingot_const_i64s_params *p = lower_params(c, &const_i64s_desc);
	const Type *t = lower_in(c, 0);
	if (lnode(c)->op == OP_SIZE) {
		p->n = 1;
		p->v[0] = type_numel(t);
	} else {
		int64_t s, e;
		shape_range(lnode(c)->attrs, t->rank, &s, &e);
		p->n = e - s;
		for (int64_t i = s; i < e; i++)
			p->v[i - s] = t->dims[i];
	}
	LOWER_CALL(c, ingot_const_i64s, &const_i64s_desc, p);
	return 0;
}

const OpImpl op_impl_shape = {
	sizeof(ShapeAttrs), shape_fields, COUNTOF(shape_fields), shape_import, shape_infer,
	shape_lower
};

/* ---- constant_of_shape ---- */

typedef struct ConstantOfShapeAttrs {
	Scalar value;          /* the fill value and the output's dtype; default f32 0 */
} ConstantOfShapeAttrs;

static const AttrField constant_of_shape_fields[] = {
	{ "value", AK_SCALAR, offsetof(ConstantOfShapeAttrs, value), NULL },
};

static int constant_of_shape_import(ImportCtx *c)
{
	ConstantOfShapeAttrs *a = c->attrs;
	Scalar def = scalar_from_f64(DT_F32, 0);
	return import_scalar(c, "value", &def, &a->value);
}

static int constant_of_shape_infer(InferCtx *c)
{
	const ConstantOfShapeAttrs *a = infer_node(c)->attrs;
	int64_t *v;
	int n;
	if (infer_const_ints(c, 0, &v, &n))
		return -1;
	if (n > IR_MAX_RANK)
		return infer_fail(c, 0, "shape has %d dims, more than the maximum of %d", n, IR_MAX_RANK);
	for (int i = 0; i < n; i++)
		if (v[i] < 0)
			return infer_fail(c, 0, "invalid dim %lld in the shape", (long long)v[i]);
	return ops_set_out(c, 0, a->value.dtype, n, v);
}

static int constant_of_shape_lower(LowerCtx *c)
{
	const ConstantOfShapeAttrs *a = lnode(c)->attrs;
	ingot_fill_params *p = lower_params(c, &fill_desc);
	p->esize = (int64_t)dtype_size(a->value.dtype);
	p->n = type_numel(lower_out(c, 0));
	p->value = ops_scalar_bits(&a->value, (size_t)p->esize);
	LOWER_CALL(c, ingot_fill, &fill_desc, p);
	return 0;
}

const OpImpl op_impl_constant_of_shape = {
	sizeof(ConstantOfShapeAttrs), constant_of_shape_fields, COUNTOF(constant_of_shape_fields),
	constant_of_shape_import, constant_of_shape_infer, constant_of_shape_lower
};

/* ---- range ---- */

/* start, limit and delta of a Range node, as int64s (ints) or doubles (floats). */
typedef struct RangeArgs { int64_t i[3]; double f[3]; } RangeArgs;

static RangeArgs range_args(const Graph *g, const Node *n)
{
	RangeArgs r;
	memset(&r, 0, sizeof r);
	for (int k = 0; k < 3; k++) {
		const Value *v = &g->values[n->in[k]];
		Scalar s;
		memset(&s, 0, sizeof s);
		s.dtype = v->type.dtype;
		memcpy(s.bytes, ir_const_data(g, n->in[k]), dtype_size(v->type.dtype));
		r.f[k] = scalar_to_f64(&s);
		if (s.dtype == DT_I64)
			memcpy(&r.i[k], s.bytes, 8);
		else if (dtype_is_int(s.dtype))
			r.i[k] = (int64_t)r.f[k];   /* i16 and i32 are exact in a double */
	}
	return r;
}

static int range_infer(InferCtx *c)
{
	static const DType allowed[] = { DT_F32, DT_F64, DT_F16, DT_BF16, DT_I16, DT_I32, DT_I64,
	                                 DT_UNDEF };
	Node *n = infer_node(c);
	const Type *t = infer_in(c, 0);
	int64_t len = 0;
	RangeArgs r;
	for (int k = 0; k < 3; k++) {
		if (infer_check_dtype(c, k, allowed) || infer_same_dtype(c, 0, k))
			return -1;
		if (type_numel(infer_in(c, k)) != 1)
			return infer_fail(c, k, "expected a scalar");
		if (!infer_const(c, k)) {       /* reports the --bind hint */
			double *d;
			int nd;
			return infer_const_f64s(c, k, &d, &nd) ? -1 : infer_fail(c, k, "not constant");
		}
	}
	r = range_args(c->g, n);
	if (dtype_is_float(t->dtype)) {
		double q = (r.f[1] - r.f[0]) / r.f[2];
		if (r.f[2] == 0 || q != q)
			return infer_fail(c, 2, "delta must be a nonzero number");
		q = ceil(q);
		if (q > (double)((int64_t)1 << 40))
			return infer_fail(c, -1, "range of %g elements is too large", q);
		len = q > 0 ? (int64_t)q : 0;
	} else {
		int64_t s = r.i[0], l = r.i[1], d = r.i[2];
		if (d == 0)
			return infer_fail(c, 2, "delta must be nonzero");
		/* the distance and the step in unsigned arithmetic, so no extreme overflows */
		if (d > 0 && l > s) {
			uint64_t dist = (uint64_t)l - (uint64_t)s;
			len = (int64_t)(dist / (uint64_t)d + (dist % (uint64_t)d != 0));
		} else if (d < 0 && l < s) {
			uint64_t dist = (uint64_t)s - (uint64_t)l, step = 0 - (uint64_t)d;
			len = (int64_t)(dist / step + (dist % step != 0));
		}
		if (len < 0 || len > ((int64_t)1 << 40))
			return infer_fail(c, -1, "range is too large");
	}
	return ops_set_out(c, 0, t->dtype, 1, &len);
}

static int range_lower(LowerCtx *c)
{
	ingot_range_params *p = lower_params(c, &range_desc);
	RangeArgs r = range_args(c->g, lnode(c));
	p->dtype = lower_in(c, 0)->dtype;
	p->n = type_numel(lower_out(c, 0));
	p->istart = r.i[0];
	p->idelta = r.i[2];
	p->fstart = r.f[0];
	p->fdelta = r.f[2];
	LOWER_CALL(c, ingot_range, &range_desc, p);
	return 0;
}

const OpImpl op_impl_range = { 0, NULL, 0, NULL, range_infer, range_lower };

/* ---- expand ---- */

static int expand_infer(InferCtx *c)
{
	const Type *t = infer_in(c, 0);
	int64_t *s, dims[IR_MAX_RANK];
	int n, rank;
	if (infer_const_ints(c, 1, &s, &n))
		return -1;
	rank = n > t->rank ? n : t->rank;
	if (rank > IR_MAX_RANK)
		return infer_fail(c, 1, "output rank %d exceeds the maximum of %d", rank, IR_MAX_RANK);
	for (int i = 0; i < rank; i++) {
		int ia = i - (rank - t->rank), ib = i - (rank - n);
		int64_t da = ia >= 0 ? t->dims[ia] : 1, db = ib >= 0 ? s[ib] : 1;
		if (db < 0)
			return infer_fail(c, 1, "invalid dim %lld in the shape", (long long)db);
		if (da == db || db == 1)
			dims[i] = da;
		else if (da == 1)
			dims[i] = db;
		else
			return infer_fail(c, 1, "cannot broadcast dim %lld of the input to %lld",
			                  (long long)da, (long long)db);
	}
	return ops_set_out(c, 0, t->dtype, rank, dims);
}

static int expand_lower(LowerCtx *c)
{
	const Type *t = lower_in(c, 0), *o = lower_out(c, 0);
	int64_t in_s[IR_MAX_RANK], strides[IR_MAX_RANK];
	ops_contiguous_strides(t, in_s);
	for (int i = 0; i < o->rank; i++) {
		int ia = i - (o->rank - t->rank);
		strides[i] = ia >= 0 && t->dims[ia] != 1 ? in_s[ia] : 0;   /* broadcast: stay put */
	}
	return ops_lower_strided(c, esize_of(t), o->rank, o->dims, strides, 0);
}

const OpImpl op_impl_expand = { 0, NULL, 0, NULL, expand_infer, expand_lower };


/* ---- transpose ---- */

/* TransposeAttrs is in op_attrs.h */

static const AttrField transpose_fields[] = {
	{ "perm", AK_INTS, offsetof(TransposeAttrs, perm), NULL },
};

static int transpose_import(ImportCtx *c)
{
	TransposeAttrs *a = c->attrs;
	return import_ints(c, "perm", &a->perm);
}

static int transpose_infer(InferCtx *c)
{
	TransposeAttrs *a = infer_node(c)->attrs;
	const Type *t = infer_in(c, 0);
	int64_t dims[IR_MAX_RANK];
	unsigned seen = 0;
	if (a->perm.n < 0) {
		int64_t rev[IR_MAX_RANK];
		for (int k = 0; k < t->rank; k++)
			rev[k] = t->rank - 1 - k;
		ops_set_list(c->g, &a->perm, rev, t->rank);
	}
	if (a->perm.n != t->rank)
		return infer_fail_attr(c, "perm", "expected %d entries (the input's rank), got %d",
		                       t->rank, a->perm.n);
	for (int k = 0; k < t->rank; k++) {
		int64_t p = a->perm.v[k];
		if (p < 0 || p >= t->rank || (seen & (1u << p)))
			return infer_fail_attr(c, "perm", "not a permutation of 0..%d", t->rank - 1);
		seen |= 1u << p;
		dims[k] = t->dims[p];
	}
	return ops_set_out(c, 0, t->dtype, t->rank, dims);
}

static int transpose_lower(LowerCtx *c)
{
	const TransposeAttrs *a = lnode(c)->attrs;
	const Type *t = lower_in(c, 0), *o = lower_out(c, 0);
	int64_t in_s[IR_MAX_RANK], strides[IR_MAX_RANK];
	ops_contiguous_strides(t, in_s);
	for (int k = 0; k < t->rank; k++)
		strides[k] = in_s[a->perm.v[k]];
	return ops_lower_strided(c, esize_of(t), o->rank, o->dims, strides, 0);
}

const OpImpl op_impl_transpose = {
	sizeof(TransposeAttrs), transpose_fields, COUNTOF(transpose_fields), transpose_import,
	transpose_infer, transpose_lower
};
