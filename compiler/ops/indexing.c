/* indexing.c — op groups gather_elements, gather_nd, scatter_elements, scatter_nd,
 * compress, nonzero and unique: typed attributes per opset, inference and lowering
 * to runtime-stubs/kernels/indexing.c (ordering, layout and n-gram ops live in
 * indexing_order.c).
 *
 * Data-dependent sizes (Compress with a run-time condition, NonZero, Unique): when
 * the inputs that decide the size are constants the size is computed here, so the
 * output type is static and folding usually evaluates the node; otherwise the output
 * gets its upper bound, is marked `dynamic`, and the kernel reports the actual dims
 * through out[n_out + k] (k counting the node's dynamic outputs in slot order). */
#include "opimpl.h"

#include <stdlib.h>
#include <string.h>

#include "indexing.h"

/* ---- helpers ---- */

static const DType ix_idx_dtypes[] = { DT_I32, DT_I64, DT_UNDEF };

static Node *ix_lnode(LowerCtx *c) { return &c->g->nodes[c->node]; }

static const Type *ix_lin(LowerCtx *c, int slot)
{
	return &c->g->values[ix_lnode(c)->in[slot]].type;
}

static int64_t ix_prod(const int64_t *dims, int a, int b)
{
	int64_t p = 1;
	for (int k = a; k < b; k++)
		p *= dims[k];
	return p;
}

static int64_t ix_esize(const Type *t) { return (int64_t)dtype_size(t->dtype); }

/* The out[] slot of each output's dims array (-1: static), per the convention above. */
static void dyn_slots(const Graph *g, const Node *n, int64_t *slot)
{
	int k = 0;
	for (int i = 0; i < n->n_out; i++) {
		slot[i] = -1;
		if (n->out[i] != IR_NONE && g->values[n->out[i]].dynamic)
			slot[i] = n->n_out + k++;
	}
}

/* Largest upper-bound output (bytes) evaluated at compile time to get a static size. */
#define EVAL_MAX_BYTES ((int64_t)256 << 20)

int infer_eval_dynamic(InferCtx *c)
{
	Graph *g = c->g;
	Node *n = infer_node(c);
	const void *in[8];
	void *out[16];
	int64_t dims[8][IR_MAX_RANK];
	int n_dyn = 0, rc = 0;
	LowerCtx lc;
	if (n->n_in > 8 || n->n_out > 8)
		return 0;
	for (int i = 0; i < n->n_in; i++) {
		if (n->in[i] != IR_NONE && !g->values[n->in[i]].is_const)
			return 0;
	}
	for (int i = 0; i < n->n_out; i++)
		if (n->out[i] != IR_NONE && type_bytes(&g->values[n->out[i]].type) > EVAL_MAX_BYTES)
			return 0;
	memset(&lc, 0, sizeof lc);
	lc.g = g;
	lc.node = c->node;
	if (op_info(n->op)->impl->lower(&lc) || !lc.kc.fn)
		return 0;
	for (int i = 0; i < n->n_in; i++)
		in[i] = n->in[i] == IR_NONE ? NULL : ir_const_data(g, n->in[i]);
	memset(out, 0, sizeof out);
	for (int i = 0; i < n->n_out; i++) {
		if (n->out[i] == IR_NONE)
			continue;
		int64_t bytes = type_bytes(&g->values[n->out[i]].type);
		out[i] = calloc(1, (size_t)(bytes > 0 ? bytes : 1));
		if (!out[i])
			die("out of memory");
		if (g->values[n->out[i]].dynamic) {
			memset(dims[n_dyn], 0, sizeof dims[n_dyn]);
			out[n->n_out + n_dyn] = dims[n_dyn];
			n_dyn++;
		}
	}
	void *scratch = lc.kc.scratch_bytes > 0 ? calloc(1, (size_t)lc.kc.scratch_bytes) : NULL;
	if (lc.kc.scratch_bytes > 0 && !scratch)
		die("out of memory");
	rc = lc.kc.fn(lc.kc.params, in, out, scratch, 0, 1);
	free(scratch);
	for (int i = 0; i < n->n_out; i++)
		free(out[i]);
	if (rc != 0)
		return infer_fail(c, -1, "constant evaluation failed (%s)",
		                  rc == INGOT_ERANGE ? "index out of range" : "invalid argument");
	n_dyn = 0;
	for (int i = 0; i < n->n_out; i++) {
		if (n->out[i] == IR_NONE || !g->values[n->out[i]].dynamic)
			continue;
		Value *v = &g->values[n->out[i]];
		for (int k = 0; k < v->type.rank; k++)
			v->type.dims[k] = dims[n_dyn][k];
		v->dynamic = false;
		n_dyn++;
	}
	return 0;
}

static Type *set_out(InferCtx *c, int slot, DType dt, int rank, const int64_t *dims, bool dyn)
{
	Type *t = infer_out(c, slot);
	if (!t)
		return NULL;
	*t = type_make(dt, rank, dims);
	c->g->values[infer_node(c)->out[slot]].dynamic = dyn;
	return t;
}

/* An axis attribute that may be absent (Compress, Unique). */
typedef struct AxisAttrs {
	int64_t axis;
	int64_t has_axis;        /* 0: absent (flatten); set at import */
} AxisAttrs;

static const AttrField axis_fields[] = {
	{ "axis", AK_INT, offsetof(AxisAttrs, axis), NULL },
	{ "has_axis", AK_INT, offsetof(AxisAttrs, has_axis), NULL },
};

static int axis_import(ImportCtx *c, int64_t def, bool optional)
{
	AxisAttrs *a = c->attrs;
	a->has_axis = !optional || import_find(c, "axis") != NULL;
	return import_int(c, "axis", def, &a->axis);
}

/* ---- GatherElements ---- */

static int gather_elements_import(ImportCtx *c) { return axis_import(c, 0, false); }

/* Shared by GatherElements and ScatterElements: same rank, and the index tensor no
 * larger than the data off the axis. */
static int elements_check(InferCtx *c, int64_t axis_attr, int64_t *axis)
{
	const Type *x = infer_in(c, 0), *ti = infer_in(c, 1);
	if (infer_check_dtype(c, 0, dtl_all) || infer_check_dtype(c, 1, ix_idx_dtypes))
		return -1;
	if (x->rank < 1)
		return infer_fail(c, 0, "expected a tensor of rank >= 1, got a scalar");
	if (ti->rank != x->rank)
		return infer_fail(c, 1, "expected rank %d (as the data), got %d", x->rank, ti->rank);
	if (infer_normalize_axis(c, axis_attr, x->rank, axis))
		return -1;
	for (int k = 0; k < x->rank; k++)
		if (k != *axis && ti->dims[k] > x->dims[k])
			return infer_fail(c, 1, "dim %d is %lld, larger than the data's %lld", k,
			                  (long long)ti->dims[k], (long long)x->dims[k]);
	return 0;
}

static int gather_elements_infer(InferCtx *c)
{
	const AxisAttrs *a = infer_node(c)->attrs;
	int64_t axis;
	if (elements_check(c, a->axis, &axis))
		return -1;
	const Type *ti = infer_in(c, 1);
	set_out(c, 0, infer_in(c, 0)->dtype, ti->rank, ti->dims, false);
	return 0;
}

#define PARAM_STRUCT ingot_gather_elements_params
static const ParamField ge_pfields[] = { INGOT_GATHER_ELEMENTS_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc ge_desc = PARAM_DESC(ingot_gather_elements_params, ge_pfields);

static int gather_elements_lower(LowerCtx *c)
{
	const AxisAttrs *a = ix_lnode(c)->attrs;
	const Type *x = ix_lin(c, 0), *ti = ix_lin(c, 1);
	ingot_gather_elements_params *p = lower_params(c, &ge_desc);
	p->esize = ix_esize(x);
	p->idx_size = ix_esize(ti);
	p->rank = x->rank;
	p->axis = a->axis < 0 ? a->axis + x->rank : a->axis;
	memcpy(p->dims, x->dims, sizeof p->dims);
	memcpy(p->idims, ti->dims, sizeof p->idims);
	LOWER_CALL(c, ingot_gather_elements, &ge_desc, p);
	return 0;
}

const OpImpl op_impl_gather_elements = {
	sizeof(AxisAttrs), axis_fields, COUNTOF(axis_fields), gather_elements_import,
	gather_elements_infer, gather_elements_lower
};

/* ---- GatherND ---- */

typedef struct GatherNdAttrs {
	int64_t batch_dims;      /* opset 12; 0 before */
} GatherNdAttrs;

static const AttrField gather_nd_fields[] = {
	{ "batch_dims", AK_INT, offsetof(GatherNdAttrs, batch_dims), NULL },
};

static int gather_nd_import(ImportCtx *c)
{
	GatherNdAttrs *a = c->attrs;
	return import_int(c, "batch_dims", 0, &a->batch_dims);
}

/* Checks data/indices of GatherND and ScatterND; *m = indices.shape[-1]. */
static int nd_check(InferCtx *c, int64_t b, int64_t *m)
{
	const Type *x = infer_in(c, 0), *ti = infer_in(c, 1);
	if (infer_check_dtype(c, 0, dtl_all) || infer_check_dtype(c, 1, ix_idx_dtypes))
		return -1;
	if (x->rank < 1)
		return infer_fail(c, 0, "expected a tensor of rank >= 1, got a scalar");
	if (ti->rank < 1)
		return infer_fail(c, 1, "expected indices of rank >= 1, got a scalar");
	if (b < 0 || b >= x->rank || b >= ti->rank)
		return infer_fail_attr(c, "batch_dims", "%lld out of range for data rank %d and "
		                       "indices rank %d", (long long)b, x->rank, ti->rank);
	for (int k = 0; k < b; k++)
		if (x->dims[k] != ti->dims[k])
			return infer_fail(c, 1, "batch dim %d is %lld, the data's is %lld", k,
			                  (long long)ti->dims[k], (long long)x->dims[k]);
	*m = ti->dims[ti->rank - 1];
	if (*m < 1 || *m > x->rank - b)
		return infer_fail(c, 1, "last dim %lld must be in [1, %lld] (data rank minus batch_dims)",
		                  (long long)*m, (long long)(x->rank - b));
	return 0;
}

static int gather_nd_infer(InferCtx *c)
{
	const GatherNdAttrs *a = infer_node(c)->attrs;
	const Type *x = infer_in(c, 0), *ti = infer_in(c, 1);
	int64_t m, dims[2 * IR_MAX_RANK];
	int rank = 0;
	if (nd_check(c, a->batch_dims, &m))
		return -1;
	for (int k = 0; k < ti->rank - 1; k++)
		dims[rank++] = ti->dims[k];
	for (int k = (int)(a->batch_dims + m); k < x->rank; k++)
		dims[rank++] = x->dims[k];
	if (rank > IR_MAX_RANK)
		return infer_fail(c, -1, "output rank %d exceeds %d", rank, IR_MAX_RANK);
	set_out(c, 0, x->dtype, rank, dims, false);
	return 0;
}

#define PARAM_STRUCT ingot_gather_nd_params
static const ParamField gnd_pfields[] = { INGOT_GATHER_ND_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc gnd_desc = PARAM_DESC(ingot_gather_nd_params, gnd_pfields);

static int gather_nd_lower(LowerCtx *c)
{
	const GatherNdAttrs *a = ix_lnode(c)->attrs;
	const Type *x = ix_lin(c, 0), *ti = ix_lin(c, 1);
	int b = (int)a->batch_dims, m = (int)ti->dims[ti->rank - 1];
	ingot_gather_nd_params *p = lower_params(c, &gnd_desc);
	p->esize = ix_esize(x);
	p->idx_size = ix_esize(ti);
	p->n_batch = ix_prod(x->dims, 0, b);
	p->n_tuples = ix_prod(ti->dims, b, ti->rank - 1);
	p->m = m;
	for (int k = 0; k < m; k++)
		p->dims[k] = x->dims[b + k];
	p->slice = ix_prod(x->dims, b + m, x->rank);
	p->batch_stride = ix_prod(x->dims, b, x->rank);
	LOWER_CALL(c, ingot_gather_nd, &gnd_desc, p);
	return 0;
}

const OpImpl op_impl_gather_nd = {
	sizeof(GatherNdAttrs), gather_nd_fields, COUNTOF(gather_nd_fields), gather_nd_import,
	gather_nd_infer, gather_nd_lower
};

/* ---- ScatterElements (and Scatter, opset 9-10) / ScatterND ---- */

static const char *const reduction_names[] = { "none", "add", "mul", "max", "min", NULL };

typedef struct ScatterAttrs {
	int64_t axis;            /* ScatterElements */
	int reduction;           /* INGOT_SCATTER_*: opset 16 (none/add/mul), 18 (max/min) */
} ScatterAttrs;

static const AttrField scatter_fields[] = {
	{ "axis", AK_INT, offsetof(ScatterAttrs, axis), NULL },
	{ "reduction", AK_ENUM, offsetof(ScatterAttrs, reduction), reduction_names },
};

static int scatter_import(ImportCtx *c)
{
	ScatterAttrs *a = c->attrs;
	Node *n = ir_node(c->g, c->node);
	if (import_enum(c, "reduction", reduction_names, INGOT_SCATTER_NONE, &a->reduction))
		return -1;
	if (n->op == OP_SCATTER_ND)
		return 0;
	return import_int(c, "axis", 0, &a->axis);
}

static int scatter_updates_check(InferCtx *c, int rank, const int64_t *dims)
{
	const Type *u = infer_in(c, 2);
	Type want = type_make(u->dtype, rank, dims);
	char b1[128], b2[128];
	if (infer_same_dtype(c, 0, 2))
		return -1;
	if (!type_same_shape(u, &want))
		return infer_fail(c, 2, "expected shape %s, got %s", type_format(&want, b1, sizeof b1),
		                  type_format(u, b2, sizeof b2));
	return 0;
}

static int scatter_elements_infer(InferCtx *c)
{
	const ScatterAttrs *a = infer_node(c)->attrs;
	const Type *x = infer_in(c, 0), *ti = infer_in(c, 1);
	int64_t axis;
	if (elements_check(c, a->axis, &axis) || scatter_updates_check(c, ti->rank, ti->dims))
		return -1;
	set_out(c, 0, x->dtype, x->rank, x->dims, false);
	return 0;
}

static int scatter_nd_infer(InferCtx *c)
{
	const Type *x = infer_in(c, 0), *ti = infer_in(c, 1);
	int64_t m, dims[2 * IR_MAX_RANK];
	int rank = 0;
	if (nd_check(c, 0, &m))
		return -1;
	for (int k = 0; k < ti->rank - 1; k++)
		dims[rank++] = ti->dims[k];
	for (int k = (int)m; k < x->rank; k++)
		dims[rank++] = x->dims[k];
	if (rank > IR_MAX_RANK)
		return infer_fail(c, 2, "updates rank %d exceeds %d", rank, IR_MAX_RANK);
	if (scatter_updates_check(c, rank, dims))
		return -1;
	set_out(c, 0, x->dtype, x->rank, x->dims, false);
	return 0;
}

static int scatter_infer(InferCtx *c)
{
	return infer_node(c)->op == OP_SCATTER_ND ? scatter_nd_infer(c) : scatter_elements_infer(c);
}

#define PARAM_STRUCT ingot_scatter_elements_params
static const ParamField se_pfields[] = { INGOT_SCATTER_ELEMENTS_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc se_desc = PARAM_DESC(ingot_scatter_elements_params, se_pfields);
#define PARAM_STRUCT ingot_scatter_nd_params
static const ParamField snd_pfields[] = { INGOT_SCATTER_ND_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc snd_desc = PARAM_DESC(ingot_scatter_nd_params, snd_pfields);

static int scatter_lower(LowerCtx *c)
{
	Node *n = ix_lnode(c);
	const ScatterAttrs *a = n->attrs;
	const Type *x = ix_lin(c, 0), *ti = ix_lin(c, 1);
	if (n->op == OP_SCATTER_ND) {
		int m = (int)ti->dims[ti->rank - 1];
		ingot_scatter_nd_params *p = lower_params(c, &snd_desc);
		p->dtype = x->dtype;
		p->esize = ix_esize(x);
		p->idx_size = ix_esize(ti);
		p->n_upd = ix_prod(ti->dims, 0, ti->rank - 1);
		p->m = m;
		for (int k = 0; k < m; k++)
			p->dims[k] = x->dims[k];
		p->slice = ix_prod(x->dims, m, x->rank);
		p->n_data = type_numel(x);
		p->reduction = a->reduction;
		LOWER_CALL(c, ingot_scatter_nd, &snd_desc, p);
		return 0;
	}
	ingot_scatter_elements_params *p = lower_params(c, &se_desc);
	p->dtype = x->dtype;
	p->esize = ix_esize(x);
	p->idx_size = ix_esize(ti);
	p->rank = x->rank;
	p->axis = a->axis < 0 ? a->axis + x->rank : a->axis;
	p->reduction = a->reduction;
	memcpy(p->dims, x->dims, sizeof p->dims);
	memcpy(p->idims, ti->dims, sizeof p->idims);
	LOWER_CALL(c, ingot_scatter_elements, &se_desc, p);
	return 0;
}

const OpImpl op_impl_scatter_elements = {
	sizeof(ScatterAttrs), scatter_fields, COUNTOF(scatter_fields), scatter_import,
	scatter_infer, scatter_lower
};
const OpImpl op_impl_scatter_nd = {
	sizeof(ScatterAttrs), scatter_fields, COUNTOF(scatter_fields), scatter_import,
	scatter_infer, scatter_lower
};

/* ---- Compress ---- */

static int compress_import(ImportCtx *c) { return axis_import(c, 0, true); }

static const DType bool_dtypes[] = { DT_BOOL, DT_UNDEF };

static int compress_infer(InferCtx *c)
{
	const AxisAttrs *a = infer_node(c)->attrs;
	const Type *x = infer_in(c, 0), *tc = infer_in(c, 1);
	const uint8_t *cond = infer_const(c, 1);
	int64_t axis = 0, n_cond, avail, dims[IR_MAX_RANK];
	int rank = 1;
	if (infer_check_dtype(c, 0, dtl_all) || infer_check_dtype(c, 1, bool_dtypes))
		return -1;
	if (tc->rank != 1)
		return infer_fail(c, 1, "expected a 1-D condition, got rank %d", tc->rank);
	n_cond = tc->dims[0];
	if (a->has_axis) {
		if (x->rank < 1)
			return infer_fail(c, 0, "cannot compress a scalar along an axis");
		if (infer_normalize_axis(c, a->axis, x->rank, &axis))
			return -1;
		avail = x->dims[axis];
		rank = x->rank;
		memcpy(dims, x->dims, sizeof dims);
	} else {
		avail = type_numel(x);
		dims[0] = avail;
	}
	if (n_cond > avail)
		return infer_fail(c, 1, "condition has %lld entries, more than the %lld slices it selects",
		                  (long long)n_cond, (long long)avail);
	if (cond) {
		int64_t cnt = 0;
		for (int64_t j = 0; j < n_cond; j++)
			cnt += cond[j] != 0;
		dims[axis] = cnt;
	} else {
		dims[axis] = n_cond;
	}
	set_out(c, 0, x->dtype, rank, dims, cond == NULL);
	return 0;
}

#define PARAM_STRUCT ingot_compress_params
static const ParamField compress_pfields[] = { INGOT_COMPRESS_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc compress_desc = PARAM_DESC(ingot_compress_params, compress_pfields);

static int compress_lower(LowerCtx *c)
{
	Node *n = ix_lnode(c);
	const AxisAttrs *a = n->attrs;
	const Type *x = ix_lin(c, 0), *tc = ix_lin(c, 1), *y;
	int64_t slots[8];
	if (n->out[0] == IR_NONE)
		return -1;
	y = &c->g->values[n->out[0]].type;
	ingot_compress_params *p = lower_params(c, &compress_desc);
	p->esize = ix_esize(x);
	p->n_cond = tc->dims[0];
	p->rank = y->rank;
	memcpy(p->dims, y->dims, sizeof p->dims);
	if (a->has_axis) {
		int axis = (int)(a->axis < 0 ? a->axis + x->rank : a->axis);
		p->outer = ix_prod(x->dims, 0, axis);
		p->axis_dim = x->dims[axis];
		p->inner = ix_prod(x->dims, axis + 1, x->rank);
		p->axis_out = axis;
	} else {
		p->outer = 1;
		p->axis_dim = type_numel(x);
		p->inner = 1;
	}
	dyn_slots(c->g, n, slots);
	p->dims_slot = slots[0];
	LOWER_CALL(c, ingot_compress, &compress_desc, p);
	return 0;
}

const OpImpl op_impl_compress = {
	sizeof(AxisAttrs), axis_fields, COUNTOF(axis_fields), compress_import, compress_infer,
	compress_lower
};

/* ---- NonZero ---- */

static int nonzero_infer(InferCtx *c)
{
	const Type *x = infer_in(c, 0);
	int64_t dims[2] = { x->rank > 0 ? x->rank : 1, type_numel(x) };
	if (infer_check_dtype(c, 0, dtl_all))
		return -1;
	set_out(c, 0, DT_I64, 2, dims, true);
	return infer_eval_dynamic(c);
}

#define PARAM_STRUCT ingot_nonzero_params
static const ParamField nonzero_pfields[] = { INGOT_NONZERO_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc nonzero_desc = PARAM_DESC(ingot_nonzero_params, nonzero_pfields);

static int nonzero_lower(LowerCtx *c)
{
	const Type *x = ix_lin(c, 0);
	int64_t slots[8];
	ingot_nonzero_params *p = lower_params(c, &nonzero_desc);
	p->dtype = x->dtype;
	p->rank = x->rank;
	memcpy(p->dims, x->dims, sizeof p->dims);
	dyn_slots(c->g, ix_lnode(c), slots);
	p->dims_slot = slots[0];
	LOWER_CALL(c, ingot_nonzero, &nonzero_desc, p);
	return 0;
}

const OpImpl op_impl_nonzero = { 0, NULL, 0, NULL, nonzero_infer, nonzero_lower };

/* ---- Unique ---- */

typedef struct UniqueAttrs {
	int64_t axis;
	int64_t has_axis;        /* 0: the flattened input */
	int64_t sorted;          /* default 1 */
} UniqueAttrs;

static const AttrField unique_fields[] = {
	{ "axis", AK_INT, offsetof(UniqueAttrs, axis), NULL },
	{ "has_axis", AK_INT, offsetof(UniqueAttrs, has_axis), NULL },
	{ "sorted", AK_INT, offsetof(UniqueAttrs, sorted), NULL },
};

static int unique_import(ImportCtx *c)
{
	UniqueAttrs *a = c->attrs;
	a->has_axis = import_find(c, "axis") != NULL;
	if (import_int(c, "axis", 0, &a->axis) || import_int(c, "sorted", 1, &a->sorted))
		return -1;
	a->sorted = a->sorted != 0;
	return 0;
}

/* The input seen as [outer, n, inner] with the unique items along n. */
static int unique_split(const UniqueAttrs *a, const Type *x, int64_t *outer, int64_t *n,
                        int64_t *inner)
{
	int axis = (int)(a->axis < 0 ? a->axis + x->rank : a->axis);
	if (!a->has_axis) {
		*outer = *inner = 1;
		*n = type_numel(x);
		return 0;
	}
	*outer = ix_prod(x->dims, 0, axis);
	*n = x->dims[axis];
	*inner = ix_prod(x->dims, axis + 1, x->rank);
	return axis;
}

static int unique_infer(InferCtx *c)
{
	const UniqueAttrs *a = infer_node(c)->attrs;
	const Type *x = infer_in(c, 0);
	int64_t axis = 0, outer, n, inner, dims[IR_MAX_RANK];
	if (infer_check_dtype(c, 0, dtl_all))
		return -1;
	if (a->has_axis) {
		if (x->rank < 1)
			return infer_fail(c, 0, "cannot take unique slices of a scalar along an axis");
		if (infer_normalize_axis(c, a->axis, x->rank, &axis))
			return -1;
	}
	unique_split(a, x, &outer, &n, &inner);
	if (a->has_axis) {
		memcpy(dims, x->dims, sizeof dims);
		set_out(c, 0, x->dtype, x->rank, dims, true);
	} else {
		set_out(c, 0, x->dtype, 1, &n, true);
	}
	set_out(c, 1, DT_I64, 1, &n, true);
	set_out(c, 2, DT_I64, 1, &n, false);
	set_out(c, 3, DT_I64, 1, &n, true);
	return infer_eval_dynamic(c);
}

#define PARAM_STRUCT ingot_unique_params
static const ParamField unique_pfields[] = { INGOT_UNIQUE_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc unique_desc = PARAM_DESC(ingot_unique_params, unique_pfields);

static int unique_lower(LowerCtx *c)
{
	Node *n = ix_lnode(c);
	const UniqueAttrs *a = n->attrs;
	const Type *x = ix_lin(c, 0);
	int64_t slots[8];
	ingot_unique_params *p = lower_params(c, &unique_desc);
	int axis = unique_split(a, x, &p->outer, &p->n, &p->inner);
	p->dtype = x->dtype;
	p->sorted = a->sorted;
	p->n_out = n->n_out;
	if (a->has_axis) {
		p->y_rank = x->rank;
		p->y_axis = axis;
		memcpy(p->y_dims, x->dims, sizeof p->y_dims);
	} else {
		p->y_rank = 1;
		p->y_dims[0] = p->n;
	}
	dyn_slots(c->g, n, slots);
	for (int i = 0; i < IR_MAX_RANK; i++)
		p->dims_slot[i] = i < n->n_out ? slots[i] : -1;
	c->kc.scratch_bytes = 4 * 8 * (p->n > 0 ? p->n : 1);
	LOWER_CALL(c, ingot_unique, &unique_desc, p);
	return 0;
}

const OpImpl op_impl_unique = {
	sizeof(UniqueAttrs), unique_fields, COUNTOF(unique_fields), unique_import, unique_infer,
	unique_lower
};

/* ---- tensor_scatter: TensorScatter (opset 24), a KV-cache update ---- */

typedef struct TensorScatterAttrs {
	int64_t axis;   /* the sequence axis, normalized at inference; never 0 (batch) */
	int64_t mode;   /* 0 linear, 1 circular */
} TensorScatterAttrs;

static const char *const ts_modes[] = { "linear", "circular", NULL };

static const AttrField tensor_scatter_fields[] = {
	{ "axis", AK_INT, offsetof(TensorScatterAttrs, axis), NULL },
	{ "mode", AK_ENUM, offsetof(TensorScatterAttrs, mode), ts_modes },
};

static int tensor_scatter_import(ImportCtx *c)
{
	TensorScatterAttrs *a = c->attrs;
	int mode;
	if (import_int(c, "axis", -2, &a->axis) || import_enum(c, "mode", ts_modes, 0, &mode))
		return -1;
	a->mode = mode;
	return 0;
}

static int tensor_scatter_infer(InferCtx *c)
{
	TensorScatterAttrs *a = infer_node(c)->attrs;
	const Type *past = infer_in(c, 0), *upd = infer_in(c, 1);
	int64_t axis;
	if (infer_check_dtype(c, 0, dtl_all) || infer_same_dtype(c, 0, 1))
		return -1;
	if (past->rank < 2 || upd->rank != past->rank)
		return infer_fail(c, 1, "expected the cache's rank %d (at least 2), got %d", past->rank,
		                  upd->rank);
	if (infer_normalize_axis(c, a->axis, past->rank, &axis))
		return -1;
	if (axis == 0)
		return infer_fail_attr(c, "axis", "expected a sequence axis other than the batch axis 0");
	for (int d = 0; d < past->rank; d++)
		if (d == axis ? upd->dims[d] > past->dims[d] : upd->dims[d] != past->dims[d])
			return infer_fail(c, 1, "dim %d is %lld, expected %s%lld (the cache's)", d,
			                  (long long)upd->dims[d], d == axis ? "at most " : "",
			                  (long long)past->dims[d]);
	if (infer_has(c, 2)) {
		static const DType i64_only[] = { DT_I64, DT_UNDEF };
		const Type *w = infer_in(c, 2);
		if (infer_check_dtype(c, 2, i64_only))
			return -1;
		if (w->rank != 1 || w->dims[0] != past->dims[0])
			return infer_fail(c, 2, "expected write indices of shape [%lld] (one per batch)",
			                  (long long)past->dims[0]);
	}
	a->axis = axis;
	*infer_out(c, 0) = type_make(past->dtype, past->rank, past->dims);
	return 0;
}

#define PARAM_STRUCT ingot_tensor_scatter_params
static const ParamField tensor_scatter_pfields[] = { INGOT_TENSOR_SCATTER_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc tensor_scatter_desc = PARAM_DESC(ingot_tensor_scatter_params,
                                                        tensor_scatter_pfields);

static int tensor_scatter_lower(LowerCtx *c)
{
	const Node *n = &c->g->nodes[c->node];
	const TensorScatterAttrs *a = n->attrs;
	const Type *past = lower_in(c, 0), *upd = lower_in(c, 1);
	if (!past || !upd)
		return -1;
	int ax = (int)a->axis;
	ingot_tensor_scatter_params *p = lower_params(c, &tensor_scatter_desc);
	p->esize = (int64_t)dtype_size(past->dtype);
	p->batch = past->dims[0];
	p->mid = 1;
	for (int d = 1; d < ax; d++)
		p->mid *= past->dims[d];
	p->max_seq = past->dims[ax];
	p->seq = upd->dims[ax];
	p->inner = 1;
	for (int d = ax + 1; d < past->rank; d++)
		p->inner *= past->dims[d];
	p->has_idx = n->n_in > 2 && n->in[2] != IR_NONE;
	p->circular = a->mode == 1;
	LOWER_CALL(c, ingot_tensor_scatter, &tensor_scatter_desc, p);
	return 0;
}

const OpImpl op_impl_tensor_scatter = { sizeof(TensorScatterAttrs), tensor_scatter_fields,
                                        COUNTOF(tensor_scatter_fields), tensor_scatter_import,
                                        tensor_scatter_infer, tensor_scatter_lower };
