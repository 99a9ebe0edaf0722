/* arith_matrix.c — op groups hardmax, cumsum, det, trilu, eye_like and one_hot: ops
 * that see a tensor as rows or matrices along an axis. Typed attributes with their
 * opset defaults, type inference, and lowering to runtime-stubs/kernels/arith.c.
 *
 * Opset differences canonicalized here: Hardmax < 13 coerces the input to 2-D at
 * `axis` (default 1), 13+ works along one axis (default -1); OneHot < 11 does not
 * wrap negative indices. Inputs read at compile time (CumSum's axis, Trilu's k,
 * OneHot's depth) are resolved by the same functions in infer and lower.
 */
#include "opimpl.h"

#include "arith.h"

/* ---- shared helpers ---- */

static Type plain_like(DType dt, const Type *shape)
{
	return type_make(dt, shape->rank, shape->dims);
}

static int64_t prod(const int64_t *d, int from, int to)
{
	int64_t p = 1;
	for (int i = from; i < to; i++)
		p *= d[i];
	return p;
}

/* A resolver of a compile-time input (axis, k, depth), shared by infer and lower. */
typedef int (*Resolver)(InferCtx *c, int64_t *out);

/* Runs a resolver at lowering time; infer has already reported its diagnostics. */
static int resolve_quiet(LowerCtx *lc, Resolver fn, int64_t *out)
{
	DiagSink quiet;
	InferCtx ic = { lc->g, lc->node, NULL };
	int rc;
	diag_sink_init(&quiet, NULL);
	ic.diags = &quiet;
	rc = fn(&ic, out);
	diag_sink_free(&quiet);
	return rc;
}

/* Reads a 1-element integer constant input (i32/i64). */
static int const_one_int(InferCtx *c, int slot, const char *what, int64_t *out)
{
	int64_t *v;
	int n;
	if (infer_const_ints(c, slot, &v, &n))
		return -1;
	if (n != 1 || infer_in(c, slot)->rank > 1)
		return infer_fail(c, slot, "expected a scalar %s, got %d elements", what, n);
	*out = v[0];
	return 0;
}
/* ---- hardmax ---- */

typedef struct HardmaxAttrs {
	int64_t axis;               /* default 1 before opset 13 (2-D coercion), -1 after */
} HardmaxAttrs;

static const AttrField hardmax_fields[] = {
	{ "axis", AK_INT, offsetof(HardmaxAttrs, axis), NULL },
};

static int hardmax_import(ImportCtx *c)
{
	HardmaxAttrs *a = c->attrs;
	return import_int(c, "axis", c->g->nodes[c->node].opset >= 13 ? -1 : 1, &a->axis);
}

/* x as [outer, len, inner]. */
static int hardmax_view(InferCtx *c, int64_t *v)
{
	const Node *n = infer_node(c);
	const HardmaxAttrs *a = n->attrs;
	const Type *x = infer_in(c, 0);
	int64_t axis = a->axis;
	if (n->opset < 13) {                  /* [prod(dims[:axis]), prod(dims[axis:])] */
		if (axis < 0)
			axis += x->rank;
		if (axis < 0 || axis > x->rank)
			return infer_fail_attr(c, "axis", "axis %lld out of range for rank %d",
			                       (long long)a->axis, x->rank);
		v[0] = prod(x->dims, 0, (int)axis);
		v[1] = prod(x->dims, (int)axis, x->rank);
		v[2] = 1;
		return 0;
	}
	if (infer_normalize_axis(c, axis, x->rank, &axis))
		return -1;
	v[0] = prod(x->dims, 0, (int)axis);
	v[1] = x->rank ? x->dims[axis] : 1;
	v[2] = x->rank ? prod(x->dims, (int)axis + 1, x->rank) : 1;
	return 0;
}

static int hardmax_infer(InferCtx *c)
{
	const Type *x = infer_in(c, 0);
	int64_t v[3];
	if (infer_check_dtype(c, 0, dtl_float) || hardmax_view(c, v))
		return -1;
	*infer_out(c, 0) = plain_like(x->dtype, x);
	return 0;
}

#define PARAM_STRUCT ingot_hardmax_params
static const ParamField hardmax_pfields[] = { INGOT_HARDMAX_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc hardmax_desc = PARAM_DESC(ingot_hardmax_params, hardmax_pfields);

static int hardmax_lower(LowerCtx *c)
{
	const Type *x = lower_in(c, 0);
	int64_t v[3];
	if (!x || resolve_quiet(c, hardmax_view, v))
		return -1;
	ingot_hardmax_params *p = lower_params(c, &hardmax_desc);
	p->dtype = x->dtype;
	p->outer = v[0];
	p->len = v[1];
	p->inner = v[2];
	LOWER_CALL(c, ingot_hardmax, &hardmax_desc, p);
	return 0;
}

const OpImpl op_impl_hardmax = { sizeof(HardmaxAttrs), hardmax_fields, COUNTOF(hardmax_fields),
                                 hardmax_import, hardmax_infer, hardmax_lower };

/* ---- cumsum ---- */

typedef struct CumSumAttrs {
	int64_t exclusive, reverse;   /* 0 or 1 */
} CumSumAttrs;

static const AttrField cumsum_fields[] = {
	{ "exclusive", AK_INT, offsetof(CumSumAttrs, exclusive), NULL },
	{ "reverse", AK_INT, offsetof(CumSumAttrs, reverse), NULL },
};

static int cumsum_import(ImportCtx *c)
{
	CumSumAttrs *a = c->attrs;
	if (import_int(c, "exclusive", 0, &a->exclusive) || import_int(c, "reverse", 0, &a->reverse))
		return -1;
	a->exclusive = a->exclusive != 0;
	a->reverse = a->reverse != 0;
	return 0;
}

/* The normalized axis from input 1 (a compile-time scalar). */
static int cumsum_axis(InferCtx *c, int64_t *axis)
{
	int64_t v;
	if (const_one_int(c, 1, "axis", &v))
		return -1;
	return infer_normalize_axis(c, v, infer_in(c, 0)->rank, axis);
}

static int cumsum_infer(InferCtx *c)
{
	const Type *x = infer_in(c, 0);
	int64_t axis;
	if (infer_check_dtype(c, 0, dtl_numeric) || cumsum_axis(c, &axis))
		return -1;
	*infer_out(c, 0) = plain_like(x->dtype, x);
	return 0;
}

#define PARAM_STRUCT ingot_cumsum_params
static const ParamField cumsum_pfields[] = { INGOT_CUMSUM_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc cumsum_desc = PARAM_DESC(ingot_cumsum_params, cumsum_pfields);

static int cumsum_lower(LowerCtx *c)
{
	const CumSumAttrs *a = c->g->nodes[c->node].attrs;
	const Type *x = lower_in(c, 0);
	int64_t axis;
	if (!x || resolve_quiet(c, cumsum_axis, &axis))
		return -1;
	ingot_cumsum_params *p = lower_params(c, &cumsum_desc);
	p->dtype = x->dtype;
	p->outer = prod(x->dims, 0, (int)axis);
	p->len = x->rank ? x->dims[axis] : 1;
	p->inner = x->rank ? prod(x->dims, (int)axis + 1, x->rank) : 1;
	p->exclusive = a->exclusive;
	p->reverse = a->reverse;
	p->prod = c->g->nodes[c->node].op == OP_CUM_PROD;
	LOWER_CALL(c, ingot_cumsum, &cumsum_desc, p);
	return 0;
}

const OpImpl op_impl_cumsum = { sizeof(CumSumAttrs), cumsum_fields, COUNTOF(cumsum_fields),
                                cumsum_import, cumsum_infer, cumsum_lower };

/* ---- det ---- */

static int det_infer(InferCtx *c)
{
	const Type *x = infer_in(c, 0);
	int64_t scratch;
	if (infer_check_dtype(c, 0, dtl_float))
		return -1;
	if (x->rank < 2)
		return infer_fail(c, 0, "expected rank >= 2 (a batch of square matrices), got %d",
		                  x->rank);
	if (x->dims[x->rank - 1] != x->dims[x->rank - 2])
		return infer_fail(c, 0, "matrices are not square (%lld x %lld)",
		                  (long long)x->dims[x->rank - 2], (long long)x->dims[x->rank - 1]);
	if (!size_mul(type_numel(x), 8, &scratch) || scratch > ((int64_t)1 << 40))
		return infer_fail(c, 0, "too large");
	*infer_out(c, 0) = type_make(x->dtype, x->rank - 2, x->dims);
	return 0;
}

#define PARAM_STRUCT ingot_det_params
static const ParamField det_pfields[] = { INGOT_DET_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc det_desc = PARAM_DESC(ingot_det_params, det_pfields);

static int det_lower(LowerCtx *c)
{
	const Type *x = lower_in(c, 0);
	if (!x || x->rank < 2)
		return -1;
	ingot_det_params *p = lower_params(c, &det_desc);
	p->dtype = x->dtype;
	p->m = x->dims[x->rank - 1];
	p->batch = prod(x->dims, 0, x->rank - 2);
	LOWER_CALL(c, ingot_det, &det_desc, p);
	c->kc.scratch_bytes = type_numel(x) * (int64_t)sizeof(double);
	return 0;
}

const OpImpl op_impl_det = { 0, NULL, 0, NULL, det_infer, det_lower };

/* ---- trilu ---- */

typedef struct TriluAttrs {
	int64_t upper;              /* 1: keep the upper triangle (default), 0: the lower */
} TriluAttrs;

static const AttrField trilu_fields[] = {
	{ "upper", AK_INT, offsetof(TriluAttrs, upper), NULL },
};

static int trilu_import(ImportCtx *c)
{
	TriluAttrs *a = c->attrs;
	if (import_int(c, "upper", 1, &a->upper))
		return -1;
	a->upper = a->upper != 0;
	return 0;
}

/* k from the optional input 1 (a compile-time scalar), 0 when omitted. */
static int trilu_k(InferCtx *c, int64_t *k)
{
	*k = 0;
	return infer_has(c, 1) ? const_one_int(c, 1, "k", k) : 0;
}

static int trilu_infer(InferCtx *c)
{
	const Type *x = infer_in(c, 0);
	int64_t k;
	if (infer_check_dtype(c, 0, dtl_all) || trilu_k(c, &k))
		return -1;
	if (x->rank < 2)
		return infer_fail(c, 0, "expected rank >= 2, got %d", x->rank);
	*infer_out(c, 0) = plain_like(x->dtype, x);
	return 0;
}

#define PARAM_STRUCT ingot_trilu_params
static const ParamField trilu_pfields[] = { INGOT_TRILU_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc trilu_desc = PARAM_DESC(ingot_trilu_params, trilu_pfields);

static int trilu_lower(LowerCtx *c)
{
	const TriluAttrs *a = c->g->nodes[c->node].attrs;
	const Type *x = lower_in(c, 0);
	int64_t k;
	if (!x || x->rank < 2 || resolve_quiet(c, trilu_k, &k))
		return -1;
	ingot_trilu_params *p = lower_params(c, &trilu_desc);
	p->esize = (int64_t)dtype_size(x->dtype);
	p->rows = x->dims[x->rank - 2];
	p->cols = x->dims[x->rank - 1];
	p->batch = prod(x->dims, 0, x->rank - 2);
	p->upper = a->upper;
	/* beyond the matrix every k selects all or nothing; keeps row + k from overflowing */
	p->k = k < -p->rows - 1 ? -p->rows - 1 : k > p->cols + 1 ? p->cols + 1 : k;
	LOWER_CALL(c, ingot_trilu, &trilu_desc, p);
	return 0;
}

const OpImpl op_impl_trilu = { sizeof(TriluAttrs), trilu_fields, COUNTOF(trilu_fields),
                               trilu_import, trilu_infer, trilu_lower };

/* ---- eye_like ---- */

typedef struct EyeLikeAttrs {
	int dtype;                  /* DType of the output; 0 ("input"): the input's */
	int64_t k;                  /* diagonal offset: ones where column - row == k */
} EyeLikeAttrs;

/* Indexed by the ONNX dtype number; 0 means "as the input". ORDER DTYPE */
static const char *const eye_dtype_names[] = {
	"input", "f32", "u8", "i8", "u16", "i16", "i32", "i64", "str", "bool", "f16", "f64",
	"u32", "u64", "c64", "c128", "bf16", NULL
};

static const AttrField eye_like_fields[] = {
	{ "dtype", AK_ENUM, offsetof(EyeLikeAttrs, dtype), eye_dtype_names },
	{ "k", AK_INT, offsetof(EyeLikeAttrs, k), NULL },
};

static int eye_like_import(ImportCtx *c)
{
	EyeLikeAttrs *a = c->attrs;
	int64_t dt;
	if (import_int(c, "dtype", 0, &dt) || import_int(c, "k", 0, &a->k))
		return -1;
	if (import_find(c, "dtype") && !dtype_is_valid((int)dt))
		return import_fail(c, "dtype", "unknown element type %lld", (long long)dt);
	a->dtype = (int)dt;
	return 0;
}

static bool in_list(const DType *l, DType t)
{
	for (int i = 0; l[i] != DT_UNDEF; i++)
		if (l[i] == t)
			return true;
	return false;
}

static int eye_like_infer(InferCtx *c)
{
	const EyeLikeAttrs *a = infer_node(c)->attrs;
	const Type *x = infer_in(c, 0);
	DType dt = a->dtype ? (DType)a->dtype : x->dtype;
	if (infer_check_dtype(c, 0, dtl_all))
		return -1;
	if (x->rank != 2)
		return infer_fail(c, 0, "expected a 2-D tensor, got rank %d", x->rank);
	if (!in_list(dtl_all, dt))
		return infer_unsupported(c, "EyeLike to %s is not supported", dtype_name(dt));
	*infer_out(c, 0) = plain_like(dt, x);
	return 0;
}

#define PARAM_STRUCT ingot_eye_like_params
static const ParamField eye_like_pfields[] = { INGOT_EYE_LIKE_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc eye_like_desc = PARAM_DESC(ingot_eye_like_params, eye_like_pfields);

static int eye_like_lower(LowerCtx *c)
{
	const EyeLikeAttrs *a = c->g->nodes[c->node].attrs;
	const Type *y = lower_out(c, 0);
	if (!y || y->rank != 2)
		return -1;
	ingot_eye_like_params *p = lower_params(c, &eye_like_desc);
	p->dtype = y->dtype;
	p->rows = y->dims[0];
	p->cols = y->dims[1];
	p->k = a->k;
	LOWER_CALL(c, ingot_eye_like, &eye_like_desc, p);
	return 0;
}

const OpImpl op_impl_eye_like = { sizeof(EyeLikeAttrs), eye_like_fields,
                                  COUNTOF(eye_like_fields), eye_like_import, eye_like_infer,
                                  eye_like_lower };

/* ---- one_hot ---- */

typedef struct OneHotAttrs {
	int64_t axis;               /* where the depth dim goes in the output; default -1 */
} OneHotAttrs;

static const AttrField one_hot_fields[] = {
	{ "axis", AK_INT, offsetof(OneHotAttrs, axis), NULL },
};

static int one_hot_import(ImportCtx *c)
{
	OneHotAttrs *a = c->attrs;
	return import_int(c, "axis", -1, &a->axis);
}

/* depth from input 1: a compile-time 1-element tensor of any numeric type. */
static int one_hot_depth(InferCtx *c, int64_t *depth)
{
	double *v;
	int n;
	if (infer_check_dtype(c, 1, dtl_numeric) || infer_const_f64s(c, 1, &v, &n))
		return -1;
	if (n != 1)
		return infer_fail(c, 1, "expected a scalar depth, got %d elements", n);
	if (!(v[0] >= 1 && v[0] < (double)((int64_t)1 << 40)))
		return infer_fail(c, 1, "depth %g is not a positive size", v[0]);
	*depth = (int64_t)v[0];
	return 0;
}

static int one_hot_infer(InferCtx *c)
{
	const OneHotAttrs *a = infer_node(c)->attrs;
	const Type *ind = infer_in(c, 0), *vals = infer_in(c, 2);
	int64_t depth, axis = a->axis, numel;
	if (infer_check_dtype(c, 0, dtl_numeric) || infer_check_dtype(c, 2, dtl_all) ||
	    one_hot_depth(c, &depth))
		return -1;
	if (type_numel(vals) != 2 || vals->rank != 1)
		return infer_fail(c, 2, "expected [off_value, on_value] (2 elements, 1-D)");
	if (ind->rank + 1 > IR_MAX_RANK)
		return infer_unsupported(c, "output rank %d exceeds %d", ind->rank + 1, IR_MAX_RANK);
	if (axis < 0)
		axis += ind->rank + 1;
	if (axis < 0 || axis > ind->rank)
		return infer_fail_attr(c, "axis", "axis %lld out of range for output rank %d",
		                       (long long)a->axis, ind->rank + 1);
	if (!size_mul(type_numel(ind), depth, &numel))
		return infer_fail(c, 1, "output too large");
	Type *y = infer_out(c, 0);
	*y = type_make(vals->dtype, ind->rank + 1, NULL);
	for (int d = 0, s = 0; d < y->rank; d++)
		y->dims[d] = d == axis ? depth : ind->dims[s++];
	return 0;
}

#define PARAM_STRUCT ingot_one_hot_params
static const ParamField one_hot_pfields[] = { INGOT_ONE_HOT_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc one_hot_desc = PARAM_DESC(ingot_one_hot_params, one_hot_pfields);

static int one_hot_lower(LowerCtx *c)
{
	const Node *n = &c->g->nodes[c->node];
	const OneHotAttrs *a = n->attrs;
	const Type *ind = lower_in(c, 0), *y = lower_out(c, 0);
	int64_t depth, axis = a->axis;
	if (!ind || !y || resolve_quiet(c, one_hot_depth, &depth))
		return -1;
	if (axis < 0)
		axis += ind->rank + 1;
	ingot_one_hot_params *p = lower_params(c, &one_hot_desc);
	p->idx_dtype = ind->dtype;
	p->esize = (int64_t)dtype_size(y->dtype);
	p->outer = prod(ind->dims, 0, (int)axis);
	p->depth = depth;
	p->inner = prod(ind->dims, (int)axis, ind->rank);
	p->wrap = n->opset >= 11;
	LOWER_CALL(c, ingot_one_hot, &one_hot_desc, p);
	return 0;
}

const OpImpl op_impl_one_hot = { sizeof(OneHotAttrs), one_hot_fields, COUNTOF(one_hot_fields),
                                 one_hot_import, one_hot_infer, one_hot_lower };
