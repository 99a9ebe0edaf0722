/* slice_concat.c — the data-movement op groups that select or join parts of tensors
 * (concat, gather, pad, slice, split, tile): typed attributes per opset, shape
 * inference, lowering to runtime-stubs/kernels/shape.c. As in shape_ops.c, infer()
 * resolves whatever moved from an attribute to an input across opsets into the
 * attribute struct, and lower() turns it into final dims, strides and offsets. */
#include "op_attrs.h"
#include "opimpl.h"
#include "shape.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* ---- kernel parameter descriptors ---- */

#define PARAM_STRUCT ingot_concat_params
static const ParamField concat_fields[] = { INGOT_CONCAT_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
#define PARAM_STRUCT ingot_gather_params
static const ParamField gather_fields[] = { INGOT_GATHER_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
#define PARAM_STRUCT ingot_pad_params
static const ParamField pad_fields[] = { INGOT_PAD_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT

static const ParamDesc concat_desc = PARAM_DESC(ingot_concat_params, concat_fields);
/* Split shares Concat's layout under its own type name */
static const ParamDesc split_desc = PARAM_DESC(ingot_split_params, concat_fields);
static const ParamDesc gather_desc = PARAM_DESC(ingot_gather_params, gather_fields);
static const ParamDesc pad_desc = PARAM_DESC(ingot_pad_params, pad_fields);

/* ---- helpers ---- */

static Node *lnode(LowerCtx *c) { return &c->g->nodes[c->node]; }
static int64_t esize_of(const Type *t) { return (int64_t)dtype_size(t->dtype); }

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
	return ops_set_out(c, 0, t->dtype, n, dims);
}

static int tile_lower(LowerCtx *c)
{
	const Type *t = lower_in(c, 0), *o = lower_out(c, 0);
	ingot_pad_params *p = lower_params(c, &pad_desc);
	p->esize = esize_of(t);
	p->rank = t->rank;
	p->mode = INGOT_PAD_WRAP;
	for (int k = 0; k < t->rank; k++) {
		p->in_dims[k] = t->dims[k];
		p->out_dims[k] = o->dims[k];
	}
	LOWER_CALL(c, ingot_pad, &pad_desc, p);
	c->kc.split = true;   /* tasks own disjoint outputs */
	return 0;
}

const OpImpl op_impl_tile = { 0, NULL, 0, NULL, tile_infer, tile_lower };
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
	return ops_set_out(c, 0, t->dtype, t->rank, dims);
}

static int slice_lower(LowerCtx *c)
{
	const Type *t = lower_in(c, 0);
	int64_t start[IR_MAX_RANK], step[IR_MAX_RANK], dims[IR_MAX_RANK], in_s[IR_MAX_RANK];
	int64_t strides[IR_MAX_RANK], offset = 0;
	IR_ASSERT(!slice_resolve(lnode(c)->attrs, t, start, step, dims));
	ops_contiguous_strides(t, in_s);
	for (int k = 0; k < t->rank; k++) {
		offset += start[k] * in_s[k];
		/* a step beyond the dim only ever takes one element: keep the product small */
		strides[k] = dims[k] > 1 ? step[k] * in_s[k] : 0;
	}
	return ops_lower_strided(c, esize_of(t), t->rank, dims, strides, offset);
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
	return ops_set_out(c, 0, t0->dtype, t0->rank, dims);
}

/* Concat/Split parameters: rows before the axis, bytes per row of each part. */
static ingot_concat_params *rows_params(LowerCtx *c, const Type *whole, int64_t axis,
                                        int n, const Type *const *parts)
{
	ingot_concat_params *p = lower_params(c, &concat_desc);
	int64_t inner = ops_prod(whole->dims, (int)axis + 1, whole->rank) * esize_of(whole);
	p->n = n;
	p->outer = ops_prod(whole->dims, 0, (int)axis);
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
	const Type *o = lower_out(c, 0), *parts[INGOT_CONCAT_MAX];
	int n = lnode(c)->n_in;
	for (int i = 0; i < n; i++)
		parts[i] = lower_in(c, i);
	ingot_concat_params *p = rows_params(c, o, a->axis < 0 ? a->axis + o->rank : a->axis, n,
	                                     parts);
	LOWER_CALL(c, ingot_concat, &concat_desc, p);
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
		ops_set_list(c->g, &a->num_outputs, &v, 1);
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
	ops_set_list(c->g, &a->split, sizes, k);
	for (int i = 0; i < k; i++) {
		int64_t dims[IR_MAX_RANK];
		memcpy(dims, t->dims, sizeof dims);
		dims[axis] = sizes[i];
		if (ops_set_out(c, i, t->dtype, t->rank, dims))
			return -1;
	}
	return 0;
}

static int split_lower(LowerCtx *c)
{
	const SplitAttrs *a = lnode(c)->attrs;
	const Type *t = lower_in(c, 0), *parts[INGOT_CONCAT_MAX];
	Type sized[INGOT_CONCAT_MAX];
	int64_t axis = a->axis < 0 ? a->axis + t->rank : a->axis;
	/* omitted outputs still take their rows of the input: size them from `split` */
	for (int i = 0; i < a->split.n; i++) {
		sized[i] = *t;
		sized[i].dims[axis] = a->split.v[i];
		parts[i] = &sized[i];
	}
	ingot_concat_params *p = rows_params(c, t, axis, a->split.n, parts);
	LOWER_CALL(c, ingot_split, &split_desc, p);
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
	return ops_set_out(c, 0, t->dtype, rank, dims);
}

static int gather_lower(LowerCtx *c)
{
	const AxisAttrs *a = lnode(c)->attrs;
	const Type *t = lower_in(c, 0), *ti = lower_in(c, 1);
	int axis = (int)(a->axis < 0 ? a->axis + t->rank : a->axis);
	ingot_gather_params *p = lower_params(c, &gather_desc);
	p->esize = esize_of(t);
	p->outer = ops_prod(t->dims, 0, axis);
	p->axis_dim = t->dims[axis];
	p->inner = ops_prod(t->dims, axis + 1, t->rank);
	p->n_idx = type_numel(ti);
	p->idx_size = esize_of(ti);
	LOWER_CALL(c, ingot_gather, &gather_desc, p);
	c->kc.split = true;   /* tasks own disjoint outputs */
	return 0;
}

const OpImpl op_impl_gather = {
	sizeof(AxisAttrs), axis_fields, COUNTOF(axis_fields), gather_import, gather_infer,
	gather_lower
};

/* ---- pad ---- */

static const char *const pad_modes[] = { "constant", "reflect", "edge", "wrap", NULL };

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
			if (ops_norm_axes(c, axes, na, r, norm))
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
		ops_set_list(c->g, &a->pads, full, 2 * r);
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
	return ops_set_out(c, 0, t->dtype, r, dims);
}

static int pad_lower(LowerCtx *c)
{
	const PadAttrs *a = lnode(c)->attrs;
	const Type *t = lower_in(c, 0), *o = lower_out(c, 0);
	ingot_pad_params *p = lower_params(c, &pad_desc);
	p->esize = esize_of(t);
	p->rank = t->rank;
	p->mode = a->mode;
	p->value = ops_scalar_bits(&a->value, (size_t)p->esize);
	for (int k = 0; k < t->rank; k++) {
		p->in_dims[k] = t->dims[k];
		p->out_dims[k] = o->dims[k];
		p->begin[k] = a->pads.v[k];
	}
	LOWER_CALL(c, ingot_pad, &pad_desc, p);
	c->kc.split = true;   /* tasks own disjoint outputs */
	return 0;
}

const OpImpl op_impl_pad = {
	sizeof(PadAttrs), pad_fields_attr, COUNTOF(pad_fields_attr), pad_import, pad_infer,
	pad_lower
};
