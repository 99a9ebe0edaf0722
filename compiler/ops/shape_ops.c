/* shape_ops.c — the data-movement and shape op groups (concat, constant_of_shape,
 * expand, gather, pad, range, reshape, shape, slice, split, tile, transpose):
 * typed attributes per opset, shape inference, lowering to runtime-stubs/kernels/shape.c.
 *
 * Whatever moved from an attribute to an input across opsets (Slice starts, Split
 * sizes, Pad pads and value, Transpose's default perm) is resolved by infer() into
 * the attribute struct, the one place lower() reads; lower() then turns it into
 * final dims, strides and offsets, so the kernels are plain loops. */
#include "opimpl.h"
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
#define PARAM_STRUCT ingot_concat_params
static const ParamField concat_fields[] = { INGOT_CONCAT_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
#define PARAM_STRUCT ingot_gather_params
static const ParamField gather_fields[] = { INGOT_GATHER_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
#define PARAM_STRUCT ingot_pad_params
static const ParamField pad_fields[] = { INGOT_PAD_FIELDS(PARAM_FIELD) };
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
static const ParamDesc concat_desc = PARAM_DESC(ingot_concat_params, concat_fields);
/* Split shares Concat's layout under its own type name */
static const ParamDesc split_desc = PARAM_DESC(ingot_split_params, concat_fields);
static const ParamDesc gather_desc = PARAM_DESC(ingot_gather_params, gather_fields);
static const ParamDesc pad_desc = PARAM_DESC(ingot_pad_params, pad_fields);
static const ParamDesc fill_desc = PARAM_DESC(ingot_fill_params, fill_fields);
static const ParamDesc const_i64s_desc = PARAM_DESC(ingot_const_i64s_params, const_i64s_fields);
static const ParamDesc range_desc = PARAM_DESC(ingot_range_params, range_fields);

/* ---- helpers ---- */

static Node *lnode(LowerCtx *c) { return &c->g->nodes[c->node]; }
static const Type *lin(LowerCtx *c, int slot) { return &c->g->values[lnode(c)->in[slot]].type; }

static const Type *lout(LowerCtx *c, int slot)
{
	ValueId v = lnode(c)->out[slot];
	return v == IR_NONE ? NULL : &c->g->values[v].type;
}

static int64_t prod(const int64_t *d, int lo, int hi)
{
	int64_t p = 1;
	for (int i = lo; i < hi; i++)
		p *= d[i];
	return p;
}

static int64_t esize_of(const Type *t) { return (int64_t)dtype_size(t->dtype); }

/* Row-major element strides of a type. */
static void contiguous_strides(const Type *t, int64_t *s)
{
	int64_t acc = 1;
	for (int k = t->rank - 1; k >= 0; k--) {
		s[k] = acc;
		acc *= t->dims[k];
	}
}

static int set_out(InferCtx *c, int slot, DType dt, int rank, const int64_t *dims)
{
	Type *o = infer_out(c, slot);
	if (rank > IR_MAX_RANK)
		return infer_fail(c, -1, "output rank %d exceeds the maximum of %d", rank, IR_MAX_RANK);
	if (o)
		*o = type_make(dt, rank, dims);
	return 0;
}

/* Stores n int64s into an arena IntList (the canonical attribute). */
static void set_list(Graph *g, IntList *l, const int64_t *v, int n)
{
	l->v = arena_array(&g->arena, (size_t)(n ? n : 1), sizeof *l->v);
	if (n > 0)
		memcpy(l->v, v, (size_t)n * sizeof *v);
	l->n = n;
}

/* The bit pattern of a scalar as an unsigned integer of es bytes (kernel `value`). */
static int64_t scalar_bits(const Scalar *s, size_t es)
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
static int norm_axes(InferCtx *c, const int64_t *axes, int n, int rank, int64_t *out)
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
static int lower_strided(LowerCtx *c, int64_t esize, int rank, const int64_t *dims,
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
	lower_call(c, "ingot_strided_copy", "shape", ingot_strided_copy, &strided_desc, p);
	c->kc.split = true;   /* tasks own disjoint outputs */
	return 0;
}

/* ---- reshape: Reshape, Flatten, Squeeze, Unsqueeze (pure copies) ---- */

typedef struct ReshapeAttrs {
	IntList shape;      /* Reshape before opset 5 (later: input 1) */
	IntList allowzero;  /* Reshape (opset 14): [1] makes a 0 a literal zero dim */
	IntList axis;       /* Flatten: [axis], default [1] */
	IntList axes;       /* Squeeze/Unsqueeze before opset 13 (later: input 1) */
} ReshapeAttrs;

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
			set_list(c->g, &a->allowzero, &axis, 1);
		}
		return 0;
	case OP_FLATTEN:
		if (import_int(c, "axis", 1, &axis))
			return -1;
		set_list(c->g, &a->axis, &axis, 1);
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
		dims[0] = prod(t->dims, 0, (int)axis);
		dims[1] = prod(t->dims, (int)axis, t->rank);
		rank = 2;
		break;
	}
	case OP_SQUEEZE: {
		unsigned drop = 0;
		if (nv > IR_MAX_RANK)
			return infer_fail(c, -1, "too many axes (%d)", nv);
		if (nv > 0) {
			if (norm_axes(c, v, nv, t->rank, norm))
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
		if (norm_axes(c, v, nv, rank, norm))
			return -1;
		for (int i = 0; i < nv; i++)
			add |= 1u << norm[i];
		for (int k = 0, j = 0; k < rank; k++)
			dims[k] = add & (1u << k) ? 1 : t->dims[j++];
		break;
	}
	}
	return set_out(c, 0, t->dtype, rank, dims);
}

static int reshape_lower(LowerCtx *c)
{
	ingot_copy_params *p = lower_params(c, &copy_desc);
	p->bytes = type_bytes(lout(c, 0));
	lower_call(c, "ingot_copy", "shape", ingot_copy, &copy_desc, p);
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
		set_list(c->g, &a->start, &v, 1);
	}
	if (import_find(c, "end")) {
		if (import_int(c, "end", 0, &v))
			return -1;
		set_list(c->g, &a->end, &v, 1);
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
		return set_out(c, 0, DT_I64, 0, NULL);
	shape_range(n->attrs, t->rank, &s, &e);
	len = e - s;
	return set_out(c, 0, DT_I64, 1, &len);
}

static int shape_lower(LowerCtx *c)
{
	ingot_const_i64s_params *p = lower_params(c, &const_i64s_desc);
	const Type *t = lin(c, 0);
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
	lower_call(c, "ingot_const_i64s", "shape", ingot_const_i64s, &const_i64s_desc, p);
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
	return set_out(c, 0, a->value.dtype, n, v);
}

static int constant_of_shape_lower(LowerCtx *c)
{
	const ConstantOfShapeAttrs *a = lnode(c)->attrs;
	ingot_fill_params *p = lower_params(c, &fill_desc);
	p->esize = (int64_t)dtype_size(a->value.dtype);
	p->n = type_numel(lout(c, 0));
	p->value = scalar_bits(&a->value, (size_t)p->esize);
	lower_call(c, "ingot_fill", "shape", ingot_fill, &fill_desc, p);
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
	static const DType allowed[] = { DT_F32, DT_F64, DT_I16, DT_I32, DT_I64, DT_UNDEF };
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
	return set_out(c, 0, t->dtype, 1, &len);
}

static int range_lower(LowerCtx *c)
{
	ingot_range_params *p = lower_params(c, &range_desc);
	RangeArgs r = range_args(c->g, lnode(c));
	p->dtype = lin(c, 0)->dtype;
	p->n = type_numel(lout(c, 0));
	p->istart = r.i[0];
	p->idelta = r.i[2];
	p->fstart = r.f[0];
	p->fdelta = r.f[2];
	lower_call(c, "ingot_range", "shape", ingot_range, &range_desc, p);
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
	return set_out(c, 0, t->dtype, rank, dims);
}

static int expand_lower(LowerCtx *c)
{
	const Type *t = lin(c, 0), *o = lout(c, 0);
	int64_t in_s[IR_MAX_RANK], strides[IR_MAX_RANK];
	contiguous_strides(t, in_s);
	for (int i = 0; i < o->rank; i++) {
		int ia = i - (o->rank - t->rank);
		strides[i] = ia >= 0 && t->dims[ia] != 1 ? in_s[ia] : 0;   /* broadcast: stay put */
	}
	return lower_strided(c, esize_of(t), o->rank, o->dims, strides, 0);
}

const OpImpl op_impl_expand = { 0, NULL, 0, NULL, expand_infer, expand_lower };

/* ---- tile (the pad kernel in wrap mode) ---- */

static int tile_infer(InferCtx *c)
{
	const Type *t = infer_in(c, 0);
	int64_t *r, dims[IR_MAX_RANK];
	int n;
	if (infer_const_ints(c, 1, &r, &n))
		return -1;
	if (n != t->rank)
		return infer_fail(c, 1, "expected %d repeats (the input's rank), got %d", t->rank, n);
	for (int i = 0; i < n; i++)
		if (r[i] < 0 || !size_mul(t->dims[i], r[i], &dims[i]))
			return infer_fail(c, 1, "invalid repeat count %lld", (long long)r[i]);
	return set_out(c, 0, t->dtype, n, dims);
}

static int tile_lower(LowerCtx *c)
{
	const Type *t = lin(c, 0), *o = lout(c, 0);
	ingot_pad_params *p = lower_params(c, &pad_desc);
	p->esize = esize_of(t);
	p->rank = t->rank;
	p->mode = INGOT_PAD_WRAP;
	for (int k = 0; k < t->rank; k++) {
		p->in_dims[k] = t->dims[k];
		p->out_dims[k] = o->dims[k];
	}
	lower_call(c, "ingot_pad", "shape", ingot_pad, &pad_desc, p);
	c->kc.split = true;   /* tasks own disjoint outputs */
	return 0;
}

const OpImpl op_impl_tile = { 0, NULL, 0, NULL, tile_infer, tile_lower };

/* ---- transpose ---- */

typedef struct TransposeAttrs {
	IntList perm;          /* filled with the reversed default by infer */
} TransposeAttrs;

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
		set_list(c->g, &a->perm, rev, t->rank);
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
	return set_out(c, 0, t->dtype, t->rank, dims);
}

static int transpose_lower(LowerCtx *c)
{
	const TransposeAttrs *a = lnode(c)->attrs;
	const Type *t = lin(c, 0), *o = lout(c, 0);
	int64_t in_s[IR_MAX_RANK], strides[IR_MAX_RANK];
	contiguous_strides(t, in_s);
	for (int k = 0; k < t->rank; k++)
		strides[k] = in_s[a->perm.v[k]];
	return lower_strided(c, esize_of(t), o->rank, o->dims, strides, 0);
}

const OpImpl op_impl_transpose = {
	sizeof(TransposeAttrs), transpose_fields, COUNTOF(transpose_fields), transpose_import,
	transpose_infer, transpose_lower
};

/* ---- slice ---- */

typedef struct SliceAttrs {
	IntList starts, ends, axes, steps;   /* attributes before opset 10, then inputs 1-4 */
} SliceAttrs;

static const AttrField slice_fields[] = {
	{ "starts", AK_INTS, offsetof(SliceAttrs, starts), NULL },
	{ "ends", AK_INTS, offsetof(SliceAttrs, ends), NULL },
	{ "axes", AK_INTS, offsetof(SliceAttrs, axes), NULL },
	{ "steps", AK_INTS, offsetof(SliceAttrs, steps), NULL },
};

static int slice_import(ImportCtx *c)
{
	SliceAttrs *a = c->attrs;
	a->steps.n = -1;
	return import_ints(c, "starts", &a->starts) || import_ints(c, "ends", &a->ends) ||
	       import_ints(c, "axes", &a->axes) ? -1 : 0;
}

/* The first element and step along each axis, and the output dims, per the ONNX
 * clamping rules. Returns NULL or what is wrong. */
static const char *slice_resolve(const SliceAttrs *a, const Type *t, int64_t *start,
                                 int64_t *step, int64_t *dims)
{
	unsigned seen = 0;
	int n = a->starts.n;
	if (n < 0 || a->ends.n != n)
		return "starts and ends must be given, with the same length";
	if ((a->axes.n >= 0 && a->axes.n != n) || (a->steps.n >= 0 && a->steps.n != n))
		return "axes and steps must have as many entries as starts";
	for (int k = 0; k < t->rank; k++) {
		start[k] = 0;
		step[k] = 1;
		dims[k] = t->dims[k];
	}
	for (int i = 0; i < n; i++) {
		int64_t ax = a->axes.n >= 0 ? a->axes.v[i] : i;
		int64_t st = a->steps.n >= 0 ? a->steps.v[i] : 1, s = a->starts.v[i], e = a->ends.v[i];
		int64_t dim, len = 0;
		if (ax < 0)
			ax += t->rank;
		if (ax < 0 || ax >= t->rank)
			return "axis out of range";
		if (seen & (1u << ax))
			return "an axis appears twice";
		seen |= 1u << ax;
		if (st == 0)
			return "a step is zero";
		dim = t->dims[ax];
		if (s < 0)
			s += dim;
		if (e < 0)
			e += dim;
		if (st > 0) {
			s = s < 0 ? 0 : s > dim ? dim : s;
			e = e < 0 ? 0 : e > dim ? dim : e;
			if (e > s)
				len = (e - s - 1) / st + 1;
		} else {
			int64_t back = st == INT64_MIN ? INT64_MAX : -st;
			s = s < 0 ? 0 : s > dim - 1 ? dim - 1 : s;
			e = e < -1 ? -1 : e > dim - 1 ? dim - 1 : e;
			if (s > e)
				len = (s - e - 1) / back + 1;
		}
		start[ax] = len ? s : 0;
		step[ax] = st;
		dims[ax] = len;
	}
	return NULL;
}

static int slice_infer(InferCtx *c)
{
	SliceAttrs *a = infer_node(c)->attrs;
	const Type *t = infer_in(c, 0);
	int64_t start[IR_MAX_RANK], step[IR_MAX_RANK], dims[IR_MAX_RANK];
	const char *err;
	IntList *lists[4] = { &a->starts, &a->ends, &a->axes, &a->steps };
	if (infer_has(c, 1)) {                /* opset 10: inputs, stored as the attributes */
		for (int k = 0; k < 4; k++) {
			int64_t *v;
			int n;
			if (!infer_has(c, k + 1)) {
				lists[k]->n = -1;
				continue;
			}
			if (infer_const_ints(c, k + 1, &v, &n))
				return -1;
			lists[k]->v = v;
			lists[k]->n = n;
		}
	}
	if (t->rank == 0)
		return infer_fail(c, 0, "cannot slice a scalar");
	err = slice_resolve(a, t, start, step, dims);
	if (err)
		return infer_fail(c, -1, "%s", err);
	return set_out(c, 0, t->dtype, t->rank, dims);
}

static int slice_lower(LowerCtx *c)
{
	const Type *t = lin(c, 0);
	int64_t start[IR_MAX_RANK], step[IR_MAX_RANK], dims[IR_MAX_RANK], in_s[IR_MAX_RANK];
	int64_t strides[IR_MAX_RANK], offset = 0;
	IR_ASSERT(!slice_resolve(lnode(c)->attrs, t, start, step, dims));
	contiguous_strides(t, in_s);
	for (int k = 0; k < t->rank; k++) {
		offset += start[k] * in_s[k];
		/* a step beyond the dim only ever takes one element: keep the product small */
		strides[k] = dims[k] > 1 ? step[k] * in_s[k] : 0;
	}
	return lower_strided(c, esize_of(t), t->rank, dims, strides, offset);
}

const OpImpl op_impl_slice = {
	sizeof(SliceAttrs), slice_fields, COUNTOF(slice_fields), slice_import, slice_infer,
	slice_lower
};

/* ---- concat and split ---- */

typedef struct AxisAttrs {
	int64_t axis;
} AxisAttrs;

static const AttrField axis_fields[] = {
	{ "axis", AK_INT, offsetof(AxisAttrs, axis), NULL },
};

static int concat_import(ImportCtx *c)
{
	AxisAttrs *a = c->attrs;
	if (!import_find(c, "axis") && c->g->nodes[c->node].opset >= 4)
		return import_fail(c, "axis", "required attribute is missing");
	return import_int(c, "axis", 1, &a->axis);    /* opset 1-3 default: 1 */
}

static int concat_infer(InferCtx *c)
{
	const AxisAttrs *a = infer_node(c)->attrs;
	Node *n = infer_node(c);
	const Type *t0 = infer_in(c, 0);
	int64_t axis, dims[IR_MAX_RANK];
	if (n->n_in > INGOT_CONCAT_MAX)
		return infer_fail(c, -1, "more than %d inputs are not supported", INGOT_CONCAT_MAX);
	if (t0->rank == 0)
		return infer_fail(c, 0, "cannot concatenate scalars");
	if (infer_normalize_axis(c, a->axis, t0->rank, &axis))
		return -1;
	memcpy(dims, t0->dims, sizeof dims);
	for (int i = 1; i < n->n_in; i++) {
		const Type *t = infer_in(c, i);
		if (!t)
			return infer_fail(c, i, "missing");
		if (infer_same_dtype(c, 0, i))
			return -1;
		if (t->rank != t0->rank)
			return infer_fail(c, i, "expected rank %d, got %d", t0->rank, t->rank);
		for (int k = 0; k < t->rank; k++)
			if (k != axis && t->dims[k] != t0->dims[k])
				return infer_fail(c, i, "dim %d is %lld, expected %lld as input 0", k,
				                  (long long)t->dims[k], (long long)t0->dims[k]);
		if (!size_add(dims[axis], t->dims[axis], &dims[axis]))
			return infer_fail(c, i, "output too large");
	}
	return set_out(c, 0, t0->dtype, t0->rank, dims);
}

/* Concat/Split parameters: rows before the axis, bytes per row of each part. */
static ingot_concat_params *rows_params(LowerCtx *c, const Type *whole, int64_t axis,
                                        int n, const Type *const *parts)
{
	ingot_concat_params *p = lower_params(c, &concat_desc);
	int64_t inner = prod(whole->dims, (int)axis + 1, whole->rank) * esize_of(whole);
	p->n = n;
	p->outer = prod(whole->dims, 0, (int)axis);
	for (int i = 0; i < n; i++) {
		int64_t b = parts[i]->dims[axis] * inner;
		if (i < 16)
			p->row_bytes[i] = b;
		else
			p->row_bytes_hi[i - 16] = b;
	}
	return p;
}

static int concat_lower(LowerCtx *c)
{
	const AxisAttrs *a = lnode(c)->attrs;
	const Type *o = lout(c, 0), *parts[INGOT_CONCAT_MAX];
	int n = lnode(c)->n_in;
	for (int i = 0; i < n; i++)
		parts[i] = lin(c, i);
	ingot_concat_params *p = rows_params(c, o, a->axis < 0 ? a->axis + o->rank : a->axis, n,
	                                     parts);
	lower_call(c, "ingot_concat", "shape", ingot_concat, &concat_desc, p);
	c->kc.split = true;   /* tasks own disjoint outputs */
	return 0;
}

const OpImpl op_impl_concat = {
	sizeof(AxisAttrs), axis_fields, COUNTOF(axis_fields), concat_import, concat_infer,
	concat_lower
};

typedef struct SplitAttrs {
	int64_t axis;
	IntList split;         /* sizes: attribute before opset 13, then input 1; filled by infer */
	IntList num_outputs;   /* opset 18: [n] */
} SplitAttrs;

static const AttrField split_fields[] = {
	{ "axis", AK_INT, offsetof(SplitAttrs, axis), NULL },
	{ "split", AK_INTS, offsetof(SplitAttrs, split), NULL },
	{ "num_outputs", AK_INTS, offsetof(SplitAttrs, num_outputs), NULL },
};

static int split_import(ImportCtx *c)
{
	SplitAttrs *a = c->attrs;
	int64_t v;
	a->num_outputs.n = -1;
	if (import_int(c, "axis", 0, &a->axis) || import_ints(c, "split", &a->split))
		return -1;
	if (import_find(c, "num_outputs")) {
		if (import_int(c, "num_outputs", 0, &v))
			return -1;
		set_list(c->g, &a->num_outputs, &v, 1);
	}
	return 0;
}

static int split_infer(InferCtx *c)
{
	Node *n = infer_node(c);
	SplitAttrs *a = n->attrs;
	const Type *t = infer_in(c, 0);
	int64_t axis, sizes[INGOT_CONCAT_MAX], sum = 0, *v = NULL;
	int k = n->n_out, nv = -1;
	if (k > INGOT_CONCAT_MAX)
		return infer_fail(c, -1, "more than %d outputs are not supported", INGOT_CONCAT_MAX);
	if (t->rank == 0)
		return infer_fail(c, 0, "cannot split a scalar");
	if (infer_normalize_axis(c, a->axis, t->rank, &axis))
		return -1;
	if (infer_has(c, 1)) {
		if (infer_const_ints(c, 1, &v, &nv))
			return -1;
		if (nv == 0)                  /* an empty split input means "not given" */
			nv = -1;
	} else if (a->split.n >= 0) {
		v = a->split.v;
		nv = a->split.n;
	}
	if (nv >= 0) {
		if (nv != k)
			return infer_fail(c, infer_has(c, 1) ? 1 : -1,
			                  "%d split sizes for %d outputs", nv, k);
		for (int i = 0; i < k; i++) {
			if (v[i] < 0 || !size_add(sum, v[i], &sum))
				return infer_fail(c, -1, "invalid split size %lld", (long long)v[i]);
			sizes[i] = v[i];
		}
		if (sum != t->dims[axis])
			return infer_fail(c, -1, "split sizes add up to %lld, the axis has %lld",
			                  (long long)sum, (long long)t->dims[axis]);
	} else {
		int64_t dim = t->dims[axis], chunk;
		if (a->num_outputs.n == 1 && a->num_outputs.v[0] != k)
			return infer_fail_attr(c, "num_outputs", "is %lld, the node has %d outputs",
			                       (long long)a->num_outputs.v[0], k);
		if (a->num_outputs.n != 1 && dim % k)
			return infer_fail(c, 0, "axis of %lld cannot be split into %d equal parts",
			                  (long long)dim, k);
		chunk = (dim + k - 1) / k;     /* opset 18: the last part may be smaller */
		if (chunk * (k - 1) > dim)
			return infer_fail(c, 0, "axis of %lld cannot be split into %d parts",
			                  (long long)dim, k);
		for (int i = 0; i < k; i++)
			sizes[i] = i < k - 1 ? chunk : dim - chunk * (k - 1);
	}
	set_list(c->g, &a->split, sizes, k);
	for (int i = 0; i < k; i++) {
		int64_t dims[IR_MAX_RANK];
		memcpy(dims, t->dims, sizeof dims);
		dims[axis] = sizes[i];
		if (set_out(c, i, t->dtype, t->rank, dims))
			return -1;
	}
	return 0;
}

static int split_lower(LowerCtx *c)
{
	const SplitAttrs *a = lnode(c)->attrs;
	const Type *t = lin(c, 0), *parts[INGOT_CONCAT_MAX];
	Type sized[INGOT_CONCAT_MAX];
	int64_t axis = a->axis < 0 ? a->axis + t->rank : a->axis;
	/* omitted outputs still take their rows of the input: size them from `split` */
	for (int i = 0; i < a->split.n; i++) {
		sized[i] = *t;
		sized[i].dims[axis] = a->split.v[i];
		parts[i] = &sized[i];
	}
	ingot_concat_params *p = rows_params(c, t, axis, a->split.n, parts);
	lower_call(c, "ingot_split", "shape", ingot_split, &split_desc, p);
	c->kc.split = true;   /* tasks own disjoint outputs */
	return 0;
}

const OpImpl op_impl_split = {
	sizeof(SplitAttrs), split_fields, COUNTOF(split_fields), split_import, split_infer,
	split_lower
};

/* ---- gather ---- */

static int gather_import(ImportCtx *c)
{
	AxisAttrs *a = c->attrs;
	return import_int(c, "axis", 0, &a->axis);
}

static int gather_infer(InferCtx *c)
{
	static const DType idx_types[] = { DT_I32, DT_I64, DT_UNDEF };
	const AxisAttrs *a = infer_node(c)->attrs;
	const Type *t = infer_in(c, 0), *ti = infer_in(c, 1);
	int64_t axis, dims[2 * IR_MAX_RANK];
	int rank = 0;
	if (infer_check_dtype(c, 1, idx_types))
		return -1;
	if (t->rank == 0)
		return infer_fail(c, 0, "cannot gather from a scalar");
	if (infer_normalize_axis(c, a->axis, t->rank, &axis))
		return -1;
	for (int k = 0; k < axis; k++)
		dims[rank++] = t->dims[k];
	for (int k = 0; k < ti->rank; k++)
		dims[rank++] = ti->dims[k];
	for (int k = (int)axis + 1; k < t->rank; k++)
		dims[rank++] = t->dims[k];
	return set_out(c, 0, t->dtype, rank, dims);
}

static int gather_lower(LowerCtx *c)
{
	const AxisAttrs *a = lnode(c)->attrs;
	const Type *t = lin(c, 0), *ti = lin(c, 1);
	int axis = (int)(a->axis < 0 ? a->axis + t->rank : a->axis);
	ingot_gather_params *p = lower_params(c, &gather_desc);
	p->esize = esize_of(t);
	p->outer = prod(t->dims, 0, axis);
	p->axis_dim = t->dims[axis];
	p->inner = prod(t->dims, axis + 1, t->rank);
	p->n_idx = type_numel(ti);
	p->idx_size = esize_of(ti);
	lower_call(c, "ingot_gather", "shape", ingot_gather, &gather_desc, p);
	c->kc.split = true;   /* tasks own disjoint outputs */
	return 0;
}

const OpImpl op_impl_gather = {
	sizeof(AxisAttrs), axis_fields, COUNTOF(axis_fields), gather_import, gather_infer,
	gather_lower
};

/* ---- pad ---- */

static const char *const pad_modes[] = { "constant", "reflect", "edge", "wrap", NULL };

typedef struct PadAttrs {
	int mode;              /* INGOT_PAD_* (indices into pad_modes) */
	IntList pads;          /* [begin..., end...] over every axis; from input 1 (opset 11) */
	Scalar value;          /* in the data's dtype once inferred; from input 2 (opset 11) */
} PadAttrs;

static const AttrField pad_fields_attr[] = {
	{ "mode", AK_ENUM, offsetof(PadAttrs, mode), pad_modes },
	{ "pads", AK_INTS, offsetof(PadAttrs, pads), NULL },
	{ "value", AK_SCALAR, offsetof(PadAttrs, value), NULL },
};

static int pad_import(ImportCtx *c)
{
	PadAttrs *a = c->attrs;
	float v;
	if (import_enum(c, "mode", pad_modes, INGOT_PAD_CONSTANT, &a->mode) ||
	    import_ints(c, c->g->nodes[c->node].opset < 2 ? "paddings" : "pads", &a->pads) ||
	    import_float(c, "value", 0.0f, &v))
		return -1;
	a->value = scalar_from_f64(DT_F32, v);
	return 0;
}

static int pad_infer(InferCtx *c)
{
	PadAttrs *a = infer_node(c)->attrs;
	const Type *t = infer_in(c, 0);
	int r = t->rank;
	int64_t dims[IR_MAX_RANK];
	if (infer_check_dtype(c, 0, dtl_all_small))
		return -1;
	if (infer_has(c, 1)) {                /* opset 11: pads (and axes, opset 18) as inputs */
		int64_t *v, *axes = NULL, full[2 * IR_MAX_RANK], norm[IR_MAX_RANK];
		int nv, na = r;
		if (infer_const_ints(c, 1, &v, &nv))
			return -1;
		if (infer_has(c, 3)) {
			if (infer_const_ints(c, 3, &axes, &na))
				return -1;
			if (na > r)
				return infer_fail(c, 3, "%d axes for rank %d", na, r);
			if (norm_axes(c, axes, na, r, norm))
				return -1;
		}
		if (nv != 2 * na)
			return infer_fail(c, 1, "expected %d pads, got %d", 2 * na, nv);
		memset(full, 0, sizeof full);
		for (int i = 0; i < na; i++) {
			int k = axes ? (int)norm[i] : i;
			full[k] = v[i];
			full[r + k] = v[na + i];
		}
		set_list(c->g, &a->pads, full, 2 * r);
		if (infer_has(c, 2)) {
			const void *cv = infer_const(c, 2);
			if (infer_same_dtype(c, 0, 2))
				return -1;
			if (!cv) {
				int64_t *dummy;
				int nd;
				return infer_const_ints(c, 2, &dummy, &nd) ? -1 : infer_fail(c, 2, "not constant");
			}
			if (type_numel(infer_in(c, 2)) != 1)
				return infer_fail(c, 2, "expected a scalar");
			memset(&a->value, 0, sizeof a->value);
			a->value.dtype = t->dtype;
			memcpy(a->value.bytes, cv, dtype_size(t->dtype));
		} else {
			a->value = scalar_from_f64(t->dtype, 0);
		}
	} else if (a->value.dtype != t->dtype) {   /* the float attribute of opset 1-10 */
		a->value = scalar_from_f64(t->dtype, scalar_to_f64(&a->value));
	}
	if (a->pads.n != 2 * r)
		return infer_fail(c, -1, "expected %d pads, got %d", 2 * r, a->pads.n < 0 ? 0 : a->pads.n);
	for (int k = 0; k < r; k++) {
		int64_t b = a->pads.v[k], e = a->pads.v[r + k];
		if (b < -t->dims[k] || e < -t->dims[k] || b > ((int64_t)1 << 40) ||
		    e > ((int64_t)1 << 40) || t->dims[k] + b + e < 0)
			return infer_fail(c, -1, "invalid pads %lld, %lld for axis %d of size %lld",
			                  (long long)b, (long long)e, k, (long long)t->dims[k]);
		dims[k] = t->dims[k] + b + e;
		if (a->mode != INGOT_PAD_CONSTANT && t->dims[k] == 0 && dims[k] > 0)
			return infer_fail(c, -1, "cannot %s-pad axis %d of size 0", pad_modes[a->mode], k);
	}
	return set_out(c, 0, t->dtype, r, dims);
}

static int pad_lower(LowerCtx *c)
{
	const PadAttrs *a = lnode(c)->attrs;
	const Type *t = lin(c, 0), *o = lout(c, 0);
	ingot_pad_params *p = lower_params(c, &pad_desc);
	p->esize = esize_of(t);
	p->rank = t->rank;
	p->mode = a->mode;
	p->value = scalar_bits(&a->value, (size_t)p->esize);
	for (int k = 0; k < t->rank; k++) {
		p->in_dims[k] = t->dims[k];
		p->out_dims[k] = o->dims[k];
		p->begin[k] = a->pads.v[k];
	}
	lower_call(c, "ingot_pad", "shape", ingot_pad, &pad_desc, p);
	c->kc.split = true;   /* tasks own disjoint outputs */
	return 0;
}

const OpImpl op_impl_pad = {
	sizeof(PadAttrs), pad_fields_attr, COUNTOF(pad_fields_attr), pad_import, pad_infer,
	pad_lower
};
