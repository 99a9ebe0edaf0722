/* image_norm.c — op groups lrn, lp_pool, global_lp_pool (one window per plane),
 * lp_norm, mvn, group_norm, max_unpool and col2im: import, inference and lowering to
 * runtime-stubs/kernels/image_norm.c.
 * Opset differences: LpPool's p is a float in opset 1 (int after), dilations and
 * ceil_mode from 18; GroupNormalization's scale/bias are per group in 18 and per
 * channel in 21 (either shape is accepted at any opset, told apart by length);
 * MaxUnpool's output_shape input and Col2Im's image/block shapes must be constant.
 * LpPool's geometry (auto_pad, ceil_mode) follows pool.c. */
#include "opimpl.h"

#include <math.h>
#include <string.h>

#include "image_norm.h"

#define SIZE_MAX_BYTES OPS_MAX_TENSOR_BYTES
#define ATTR_MAX OPS_MAX_ATTR
#define MAX_SP (IR_MAX_RANK - 2)

static const Type *in_type(Graph *g, const Node *n, int slot)
{
	return &ir_value(g, n->in[slot])->type;
}

/* Reads an optional list of n values, defaulting to `def`, each in [lo, ATTR_MAX]. */
static int spatial_list(InferCtx *c, const char *name, const IntList *l, int n, int64_t def,
                        int64_t lo, int64_t *v)
{
	if (l->n <= 0) {
		for (int i = 0; i < n; i++)
			v[i] = def;
		return 0;
	}
	if (l->n != n)
		return infer_fail_attr(c, name, "expected %d values, got %d", n, l->n);
	for (int i = 0; i < n; i++) {
		if (l->v[i] < lo || l->v[i] > ATTR_MAX)
			return infer_fail_attr(c, name, "value %lld is out of range %lld..%lld",
			                       (long long)l->v[i], (long long)lo, (long long)ATTR_MAX);
		v[i] = l->v[i];
	}
	return 0;
}

/* ---- LRN ---- */

typedef struct LrnAttrs {
	float alpha, beta, bias;
	int64_t size;
} LrnAttrs;

static const AttrField lrn_fields[] = {
	{ "alpha", AK_FLOAT, offsetof(LrnAttrs, alpha), NULL },
	{ "beta", AK_FLOAT, offsetof(LrnAttrs, beta), NULL },
	{ "bias", AK_FLOAT, offsetof(LrnAttrs, bias), NULL },
	{ "size", AK_INT, offsetof(LrnAttrs, size), NULL },
};

static int lrn_import(ImportCtx *c)
{
	LrnAttrs *a = c->attrs;
	if (import_float(c, "alpha", 1e-4f, &a->alpha) || import_float(c, "beta", 0.75f, &a->beta) ||
	    import_float(c, "bias", 1.0f, &a->bias) || import_int(c, "size", 0, &a->size))
		return -1;
	if (a->size < 1 || a->size > ATTR_MAX)
		return import_fail(c, "size", a->size ? "expected a positive value, got %lld"
		                   : "required attribute is missing", (long long)a->size);
	return 0;
}

static int lrn_infer(InferCtx *c)
{
	const Type *x = infer_in(c, 0);
	if (infer_check_dtype(c, 0, dtl_float) || infer_check_size(c, 0))
		return -1;
	if (x->rank < 2)
		return infer_fail(c, 0, "expected rank >= 2 (N, C, ...), got %d", x->rank);
	*infer_out(c, 0) = *x;
	return 0;
}

static const ParamField lrn_pfields[] = {
#define PARAM_STRUCT ingot_lrn_params
	INGOT_LRN_FIELDS(PARAM_FIELD)
#undef PARAM_STRUCT
};
static const ParamDesc lrn_desc = PARAM_DESC(ingot_lrn_params, lrn_pfields);

static int lrn_lower(LowerCtx *c)
{
	Node *n = ir_node(c->g, c->node);
	const LrnAttrs *a = n->attrs;
	const Type *x = in_type(c->g, n, 0);
	ingot_lrn_params *p = lower_params(c, &lrn_desc);
	p->dtype = x->dtype;
	p->n = x->dims[0];
	p->c = x->dims[1];
	p->inner = 1;
	for (int d = 2; d < x->rank; d++)
		p->inner *= x->dims[d];
	p->size = a->size;
	p->alpha = a->alpha;
	p->beta = a->beta;
	p->bias = a->bias;
	LOWER_CALL(c, ingot_lrn, &lrn_desc, p);
	return 0;
}

const OpImpl op_impl_lrn = {
	sizeof(LrnAttrs), lrn_fields, COUNTOF(lrn_fields), lrn_import, lrn_infer, lrn_lower
};

/* ---- LpPool ---- */

enum { PAD_NOTSET, PAD_SAME_UPPER, PAD_SAME_LOWER, PAD_VALID };
static const char *const auto_pad_names[] = { "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID",
                                              NULL };

typedef struct LpPoolAttrs {
	int auto_pad;
	int64_t ceil_mode;
	float p;
	IntList dilations, kernel_shape, pads, strides;
} LpPoolAttrs;

static const AttrField lp_pool_fields[] = {
	{ "auto_pad", AK_ENUM, offsetof(LpPoolAttrs, auto_pad), auto_pad_names },
	{ "ceil_mode", AK_INT, offsetof(LpPoolAttrs, ceil_mode), NULL },
	{ "p", AK_FLOAT, offsetof(LpPoolAttrs, p), NULL },
	{ "dilations", AK_INTS, offsetof(LpPoolAttrs, dilations), NULL },
	{ "kernel_shape", AK_INTS, offsetof(LpPoolAttrs, kernel_shape), NULL },
	{ "pads", AK_INTS, offsetof(LpPoolAttrs, pads), NULL },
	{ "strides", AK_INTS, offsetof(LpPoolAttrs, strides), NULL },
};

/* p: a float in LpPool-1 / GlobalLpPool-1, an int from version 2. */
static int lp_pool_import_p(ImportCtx *c, LpPoolAttrs *a)
{
	const RawAttr *pa = import_find(c, "p");
	if (pa && pa->kind == RA_FLOAT) {       /* version 1 */
		if (import_float(c, "p", 2.0f, &a->p))
			return -1;
	} else {
		int64_t p;
		if (import_int(c, "p", 2, &p))
			return -1;
		if (p < 1 || p > 1024)
			return import_fail(c, "p", "expected a value in 1..1024, got %lld", (long long)p);
		a->p = (float)p;
	}
	if (!(a->p > 0.0f) || !isfinite(a->p))
		return import_fail(c, "p", "expected a positive value");
	return 0;
}

static int lp_pool_import(ImportCtx *c)
{
	LpPoolAttrs *a = c->attrs;
	const RawAttr *ap = import_find(c, "auto_pad");
	if (ap && ap->kind == RA_STRING && ap->s && !ap->s[0])
		a->auto_pad = PAD_NOTSET;
	else if (import_enum(c, "auto_pad", auto_pad_names, PAD_NOTSET, &a->auto_pad))
		return -1;
	if (lp_pool_import_p(c, a))
		return -1;
	if (import_int(c, "ceil_mode", 0, &a->ceil_mode) ||
	    import_ints(c, "dilations", &a->dilations) ||
	    import_ints(c, "kernel_shape", &a->kernel_shape) || import_ints(c, "pads", &a->pads) ||
	    import_ints(c, "strides", &a->strides))
		return -1;
	if (a->kernel_shape.n <= 0)
		return import_fail(c, "kernel_shape", "required attribute is missing");
	a->ceil_mode = a->ceil_mode != 0;
	return 0;
}

typedef struct LpGeom {
	int nsp;
	int64_t k[MAX_SP], s[MAX_SP], d[MAX_SP], pb[MAX_SP], pe[MAX_SP], out[MAX_SP];
} LpGeom;

static int lp_pool_geom(InferCtx *c, LpGeom *g)
{
	const LpPoolAttrs *a = infer_node(c)->attrs;
	const Type *x = infer_in(c, 0);
	int64_t pads[2 * MAX_SP];
	memset(g, 0, sizeof *g);
	if (infer_check_dtype(c, 0, dtl_float) || infer_check_size(c, 0))
		return -1;
	if (x->rank < 3)
		return infer_fail(c, 0, "expected rank >= 3 (N, C, spatial...), got %d", x->rank);
	g->nsp = x->rank - 2;
	if (infer_node(c)->op == OP_GLOBAL_LP_POOL) {   /* one window over each whole plane */
		for (int i = 0; i < g->nsp; i++) {
			g->k[i] = x->dims[2 + i];
			g->s[i] = g->d[i] = g->out[i] = 1;
		}
		return 0;
	}
	if (spatial_list(c, "kernel_shape", &a->kernel_shape, g->nsp, 1, 1, g->k) ||
	    spatial_list(c, "strides", &a->strides, g->nsp, 1, 1, g->s) ||
	    spatial_list(c, "dilations", &a->dilations, g->nsp, 1, 1, g->d) ||
	    spatial_list(c, "pads", &a->pads, 2 * g->nsp, 0, 0, pads))
		return -1;
	for (int i = 0; i < g->nsp; i++) {
		int64_t in = x->dims[2 + i], ek = (g->k[i] - 1) * g->d[i] + 1, total, num;
		if (a->auto_pad == PAD_SAME_UPPER || a->auto_pad == PAD_SAME_LOWER) {
			g->out[i] = (in + g->s[i] - 1) / g->s[i];
			total = (g->out[i] - 1) * g->s[i] + ek - in;
			total = total > 0 ? total : 0;
			g->pb[i] = a->auto_pad == PAD_SAME_UPPER ? total / 2 : total - total / 2;
			g->pe[i] = total - g->pb[i];
			continue;
		}
		if (a->auto_pad == PAD_NOTSET) {
			g->pb[i] = pads[i];
			g->pe[i] = pads[g->nsp + i];
		}
		num = in + g->pb[i] + g->pe[i] - ek;
		if (num < 0)
			return infer_fail(c, 0, "spatial dim %d (%lld, padded %lld) is smaller than the "
			                  "dilated kernel (%lld)", i, (long long)in,
			                  (long long)(in + g->pb[i] + g->pe[i]), (long long)ek);
		g->out[i] = (a->ceil_mode ? num + g->s[i] - 1 : num) / g->s[i] + 1;
		if (a->ceil_mode && (g->out[i] - 1) * g->s[i] >= in + g->pb[i])
			g->out[i]--;
	}
	return 0;
}

static int lp_pool_infer(InferCtx *c)
{
	LpGeom g;
	if (lp_pool_geom(c, &g))
		return -1;
	Type *y = infer_out(c, 0);
	*y = *infer_in(c, 0);
	for (int i = 0; i < g.nsp; i++)
		y->dims[2 + i] = g.out[i];
	return 0;
}

static const ParamField lp_pool_pfields[] = {
#define PARAM_STRUCT ingot_lp_pool_params
	INGOT_LP_POOL_FIELDS(PARAM_FIELD)
#undef PARAM_STRUCT
};
static const ParamDesc lp_pool_desc = PARAM_DESC(ingot_lp_pool_params, lp_pool_pfields);

static int lp_pool_lower(LowerCtx *c)
{
	Node *n = ir_node(c->g, c->node);
	DiagSink quiet;
	InferCtx ic = { c->g, c->node, &quiet };
	LpGeom g;
	diag_sink_init(&quiet, NULL);
	int rc = lp_pool_geom(&ic, &g);
	diag_sink_free(&quiet);
	if (rc)
		return -1;
	const Type *x = in_type(c->g, n, 0);
	ingot_lp_pool_params *p = lower_params(c, &lp_pool_desc);
	p->dtype = x->dtype;
	p->nsp = g.nsp;
	p->p = ((const LpPoolAttrs *)n->attrs)->p;
	for (int i = 0; i < x->rank; i++)
		p->x_dims[i] = p->y_dims[i] = x->dims[i];
	for (int i = 0; i < g.nsp; i++) {
		p->y_dims[2 + i] = g.out[i];
		p->kernel[i] = g.k[i];
		p->strides[i] = g.s[i];
		p->dilations[i] = g.d[i];
		p->pads[i] = g.pb[i];
		p->pads[g.nsp + i] = g.pe[i];
	}
	LOWER_CALL(c, ingot_lp_pool, &lp_pool_desc, p);
	return 0;
}

const OpImpl op_impl_lp_pool = {
	sizeof(LpPoolAttrs), lp_pool_fields, COUNTOF(lp_pool_fields),
	lp_pool_import, lp_pool_infer, lp_pool_lower
};

/* GlobalLpPool: LpPool with the window of a whole plane (p only). */
static int global_lp_pool_import(ImportCtx *c)
{
	return lp_pool_import_p(c, c->attrs);
}

const OpImpl op_impl_global_lp_pool = {
	sizeof(LpPoolAttrs), lp_pool_fields + 2, 1, global_lp_pool_import, lp_pool_infer, lp_pool_lower
};

/* ---- LpNormalization ---- */

typedef struct LpNormAttrs {
	int64_t axis, p;
} LpNormAttrs;

static const AttrField lp_norm_fields[] = {
	{ "axis", AK_INT, offsetof(LpNormAttrs, axis), NULL },
	{ "p", AK_INT, offsetof(LpNormAttrs, p), NULL },
};

static int lp_norm_import(ImportCtx *c)
{
	LpNormAttrs *a = c->attrs;
	if (import_int(c, "axis", -1, &a->axis) || import_int(c, "p", 2, &a->p))
		return -1;
	if (a->p != 1 && a->p != 2)
		return import_fail(c, "p", "expected 1 or 2, got %lld", (long long)a->p);
	return 0;
}

static int lp_norm_infer(InferCtx *c)
{
	const Type *x = infer_in(c, 0);
	int64_t ax;
	if (infer_check_dtype(c, 0, dtl_float) || infer_check_size(c, 0) ||
	    infer_normalize_axis(c, ((const LpNormAttrs *)infer_node(c)->attrs)->axis, x->rank, &ax))
		return -1;
	*infer_out(c, 0) = *x;
	return 0;
}

static const ParamField lp_norm_pfields[] = {
#define PARAM_STRUCT ingot_lp_norm_params
	INGOT_LP_NORM_FIELDS(PARAM_FIELD)
#undef PARAM_STRUCT
};
static const ParamDesc lp_norm_desc = PARAM_DESC(ingot_lp_norm_params, lp_norm_pfields);

static int lp_norm_lower(LowerCtx *c)
{
	Node *n = ir_node(c->g, c->node);
	const LpNormAttrs *a = n->attrs;
	const Type *x = in_type(c->g, n, 0);
	int64_t ax = a->axis < 0 ? a->axis + x->rank : a->axis;
	ingot_lp_norm_params *p = lower_params(c, &lp_norm_desc);
	p->dtype = x->dtype;
	p->outer = p->inner = 1;
	p->n = x->rank ? x->dims[ax] : 1;
	for (int d = 0; d < x->rank; d++) {
		if (d < ax)
			p->outer *= x->dims[d];
		else if (d > ax)
			p->inner *= x->dims[d];
	}
	p->p = a->p;
	LOWER_CALL(c, ingot_lp_norm, &lp_norm_desc, p);
	return 0;
}

const OpImpl op_impl_lp_norm = {
	sizeof(LpNormAttrs), lp_norm_fields, COUNTOF(lp_norm_fields),
	lp_norm_import, lp_norm_infer, lp_norm_lower
};

/* ---- MeanVarianceNormalization ---- */

typedef struct MvnAttrs {
	IntList axes;              /* n = -1: [0, 2, 3] */
} MvnAttrs;

static const AttrField mvn_fields[] = {
	{ "axes", AK_INTS, offsetof(MvnAttrs, axes), NULL },
};

static int mvn_import(ImportCtx *c)
{
	return import_ints(c, "axes", &((MvnAttrs *)c->attrs)->axes);
}

static int mvn_mask(InferCtx *c, int64_t *mask)
{
	static const int64_t def[] = { 0, 2, 3 };
	const MvnAttrs *a = infer_node(c)->attrs;
	const Type *x = infer_in(c, 0);
	const int64_t *ax = a->axes.n >= 0 ? a->axes.v : def;
	int n = a->axes.n >= 0 ? a->axes.n : 3;
	*mask = 0;
	for (int i = 0; i < n; i++) {
		int64_t d;
		if (infer_normalize_axis(c, ax[i], x->rank, &d))
			return -1;
		if (*mask & ((int64_t)1 << d))
			return infer_fail_attr(c, "axes", "axis %lld is repeated", (long long)ax[i]);
		*mask |= (int64_t)1 << d;
	}
	return 0;
}

static int mvn_infer(InferCtx *c)
{
	int64_t mask;
	if (infer_check_dtype(c, 0, dtl_float) || infer_check_size(c, 0) || mvn_mask(c, &mask))
		return -1;
	*infer_out(c, 0) = *infer_in(c, 0);
	return 0;
}

static const ParamField mvn_pfields[] = {
#define PARAM_STRUCT ingot_mvn_params
	INGOT_MVN_FIELDS(PARAM_FIELD)
#undef PARAM_STRUCT
};
static const ParamDesc mvn_desc = PARAM_DESC(ingot_mvn_params, mvn_pfields);

static int mvn_lower(LowerCtx *c)
{
	Node *n = ir_node(c->g, c->node);
	DiagSink quiet;
	InferCtx ic = { c->g, c->node, &quiet };
	int64_t mask;
	diag_sink_init(&quiet, NULL);
	int rc = mvn_mask(&ic, &mask);
	diag_sink_free(&quiet);
	if (rc)
		return -1;
	const Type *x = in_type(c->g, n, 0);
	ingot_mvn_params *p = lower_params(c, &mvn_desc);
	p->dtype = x->dtype;
	p->rank = x->rank;
	p->rmask = mask;
	for (int d = 0; d < x->rank; d++)
		p->dims[d] = x->dims[d];
	LOWER_CALL(c, ingot_mvn, &mvn_desc, p);
	return 0;
}

const OpImpl op_impl_mvn = {
	sizeof(MvnAttrs), mvn_fields, COUNTOF(mvn_fields), mvn_import, mvn_infer, mvn_lower
};

/* ---- GroupNormalization ---- */

typedef struct GroupNormAttrs {
	float epsilon;
	int64_t num_groups, stash_type;
} GroupNormAttrs;

static const AttrField group_norm_fields[] = {
	{ "epsilon", AK_FLOAT, offsetof(GroupNormAttrs, epsilon), NULL },
	{ "num_groups", AK_INT, offsetof(GroupNormAttrs, num_groups), NULL },
	{ "stash_type", AK_INT, offsetof(GroupNormAttrs, stash_type), NULL },
};

static int group_norm_import(ImportCtx *c)
{
	GroupNormAttrs *a = c->attrs;
	if (import_float(c, "epsilon", 1e-5f, &a->epsilon) ||
	    import_int(c, "num_groups", 0, &a->num_groups) ||
	    import_int(c, "stash_type", 1, &a->stash_type))
		return -1;
	if (!import_find(c, "num_groups"))
		return import_fail(c, "num_groups", "required attribute is missing");
	if (a->num_groups < 1)
		return import_fail(c, "num_groups", "expected a positive value, got %lld",
		                   (long long)a->num_groups);
	/* statistics are computed in double whatever the stash type */
	if (!dtype_is_valid((int)a->stash_type) || !dtype_is_float((DType)a->stash_type))
		return import_fail(c, "stash_type", "expected a float type, got %lld",
		                   (long long)a->stash_type);
	return 0;
}

static int group_norm_infer(InferCtx *c)
{
	const GroupNormAttrs *a = infer_node(c)->attrs;
	const Type *x = infer_in(c, 0);
	char buf[96];
	if (infer_check_dtype(c, 0, dtl_float) || infer_same_dtype(c, 0, 1) ||
	    infer_same_dtype(c, 0, 2) || infer_check_size(c, 0))
		return -1;
	if (x->rank < 2)
		return infer_fail(c, 0, "expected rank >= 2 (N, C, ...), got %d", x->rank);
	if (x->dims[1] % a->num_groups != 0)
		return infer_fail(c, 0, "%lld channels do not split into num_groups = %lld",
		                  (long long)x->dims[1], (long long)a->num_groups);
	for (int s = 1; s <= 2; s++) {
		const Type *t = infer_in(c, s);
		if (t->rank != 1 || (t->dims[0] != a->num_groups && t->dims[0] != x->dims[1]))
			return infer_fail(c, s, "expected [%lld] (per group) or [%lld] (per channel), got %s",
			                  (long long)a->num_groups, (long long)x->dims[1],
			                  type_format(t, buf, sizeof buf));
	}
	if (infer_in(c, 1)->dims[0] != infer_in(c, 2)->dims[0])
		return infer_fail(c, 2, "scale and bias differ in length");
	*infer_out(c, 0) = *x;
	return 0;
}

static const ParamField group_norm_pfields[] = {
#define PARAM_STRUCT ingot_group_norm_params
	INGOT_GROUP_NORM_FIELDS(PARAM_FIELD)
#undef PARAM_STRUCT
};
static const ParamDesc group_norm_desc = PARAM_DESC(ingot_group_norm_params, group_norm_pfields);

static int group_norm_lower(LowerCtx *c)
{
	Node *n = ir_node(c->g, c->node);
	const GroupNormAttrs *a = n->attrs;
	const Type *x = in_type(c->g, n, 0);
	ingot_group_norm_params *p = lower_params(c, &group_norm_desc);
	p->dtype = x->dtype;
	p->n = x->dims[0];
	p->c = x->dims[1];
	p->inner = 1;
	for (int d = 2; d < x->rank; d++)
		p->inner *= x->dims[d];
	p->groups = a->num_groups;
	p->per_channel = in_type(c->g, n, 1)->dims[0] == x->dims[1];
	p->epsilon = a->epsilon;
	LOWER_CALL(c, ingot_group_norm, &group_norm_desc, p);
	return 0;
}

const OpImpl op_impl_group_norm = {
	sizeof(GroupNormAttrs), group_norm_fields, COUNTOF(group_norm_fields),
	group_norm_import, group_norm_infer, group_norm_lower
};

/* ---- MaxUnpool ---- */

typedef struct UnpoolAttrs {
	IntList kernel_shape, pads, strides;
} UnpoolAttrs;

static const AttrField max_unpool_fields[] = {
	{ "kernel_shape", AK_INTS, offsetof(UnpoolAttrs, kernel_shape), NULL },
	{ "pads", AK_INTS, offsetof(UnpoolAttrs, pads), NULL },
	{ "strides", AK_INTS, offsetof(UnpoolAttrs, strides), NULL },
};

static int max_unpool_import(ImportCtx *c)
{
	UnpoolAttrs *a = c->attrs;
	if (import_ints(c, "kernel_shape", &a->kernel_shape) || import_ints(c, "pads", &a->pads) ||
	    import_ints(c, "strides", &a->strides))
		return -1;
	if (a->kernel_shape.n <= 0)
		return import_fail(c, "kernel_shape", "required attribute is missing");
	return 0;
}

/* The unpooled shape (full) and the output dims (output_shape when given). */
static int max_unpool_dims(InferCtx *c, int64_t *full, int64_t *y)
{
	const UnpoolAttrs *a = infer_node(c)->attrs;
	const Type *x = infer_in(c, 0), *ind = infer_in(c, 1);
	static const DType i64only[] = { DT_I64, DT_UNDEF };
	int64_t k[MAX_SP], s[MAX_SP], pads[2 * MAX_SP];
	char buf[96];
	if (infer_check_dtype(c, 0, dtl_all) || infer_check_dtype(c, 1, i64only) || infer_check_size(c, 0))
		return -1;
	if (x->rank < 3)
		return infer_fail(c, 0, "expected rank >= 3 (N, C, spatial...), got %d", x->rank);
	if (!type_same_shape(x, ind))
		return infer_fail(c, 1, "expected the shape of X, got %s", type_format(ind, buf, sizeof buf));
	int nsp = x->rank - 2;
	if (spatial_list(c, "kernel_shape", &a->kernel_shape, nsp, 1, 1, k) ||
	    spatial_list(c, "strides", &a->strides, nsp, 1, 1, s) ||
	    spatial_list(c, "pads", &a->pads, 2 * nsp, 0, 0, pads))
		return -1;
	full[0] = y[0] = x->dims[0];
	full[1] = y[1] = x->dims[1];
	for (int d = 0; d < nsp; d++) {
		full[2 + d] = (x->dims[2 + d] - 1) * s[d] - pads[d] - pads[nsp + d] + k[d];
		if (full[2 + d] < 0)
			return infer_fail(c, 0, "pads exceed the unpooled size of spatial dim %d", d);
		y[2 + d] = full[2 + d];
	}
	if (infer_has(c, 2) && type_numel(infer_in(c, 2)) > 0) {
		int64_t *os;
		int n_os;
		if (infer_const_ints(c, 2, &os, &n_os))
			return -1;
		if (n_os != x->rank)
			return infer_fail(c, 2, "expected %d values, got %d", x->rank, n_os);
		for (int d = 0; d < x->rank; d++) {
			if (os[d] < 0 || os[d] > SIZE_MAX_BYTES)
				return infer_fail(c, 2, "dim %lld is out of range", (long long)os[d]);
			y[d] = os[d];
		}
	}
	return 0;
}

static int max_unpool_infer(InferCtx *c)
{
	int64_t full[IR_MAX_RANK], y[IR_MAX_RANK];
	if (max_unpool_dims(c, full, y))
		return -1;
	*infer_out(c, 0) = type_make(infer_in(c, 0)->dtype, infer_in(c, 0)->rank, y);
	return 0;
}

static const ParamField max_unpool_pfields[] = {
#define PARAM_STRUCT ingot_max_unpool_params
	INGOT_MAX_UNPOOL_FIELDS(PARAM_FIELD)
#undef PARAM_STRUCT
};
static const ParamDesc max_unpool_desc = PARAM_DESC(ingot_max_unpool_params, max_unpool_pfields);

static int max_unpool_lower(LowerCtx *c)
{
	Node *n = ir_node(c->g, c->node);
	DiagSink quiet;
	InferCtx ic = { c->g, c->node, &quiet };
	int64_t full[IR_MAX_RANK], y[IR_MAX_RANK];
	diag_sink_init(&quiet, NULL);
	int rc = max_unpool_dims(&ic, full, y);
	diag_sink_free(&quiet);
	if (rc)
		return -1;
	const Type *x = in_type(c->g, n, 0);
	ingot_max_unpool_params *p = lower_params(c, &max_unpool_desc);
	p->esize = (int64_t)dtype_size(x->dtype);
	p->rank = x->rank;
	p->x_numel = type_numel(x);
	for (int d = 0; d < x->rank; d++) {
		p->full[d] = full[d];
		p->y_dims[d] = y[d];
	}
	LOWER_CALL(c, ingot_max_unpool, &max_unpool_desc, p);
	return 0;
}

const OpImpl op_impl_max_unpool = {
	sizeof(UnpoolAttrs), max_unpool_fields, COUNTOF(max_unpool_fields),
	max_unpool_import, max_unpool_infer, max_unpool_lower
};

/* ---- Col2Im ---- */

typedef struct Col2ImAttrs {
	IntList dilations, pads, strides;
} Col2ImAttrs;

static const AttrField col2im_fields[] = {
	{ "dilations", AK_INTS, offsetof(Col2ImAttrs, dilations), NULL },
	{ "pads", AK_INTS, offsetof(Col2ImAttrs, pads), NULL },
	{ "strides", AK_INTS, offsetof(Col2ImAttrs, strides), NULL },
};

static int col2im_import(ImportCtx *c)
{
	Col2ImAttrs *a = c->attrs;
	return import_ints(c, "dilations", &a->dilations) || import_ints(c, "pads", &a->pads) ||
	       import_ints(c, "strides", &a->strides) ? -1 : 0;
}

static int col2im_plan(InferCtx *c, ingot_col2im_params *p)
{
	const Col2ImAttrs *a = infer_node(c)->attrs;
	const Type *x = infer_in(c, 0);
	int64_t *img, *blk, bsz = 1, lsz = 1;
	int n_img, n_blk;
	memset(p, 0, sizeof *p);
	if (infer_check_dtype(c, 0, dtl_numeric) || infer_check_size(c, 0) ||
	    infer_const_ints(c, 1, &img, &n_img) || infer_const_ints(c, 2, &blk, &n_blk))
		return -1;
	if (x->rank != 3)
		return infer_fail(c, 0, "expected rank 3 (N, C * prod(block_shape), L), got %d", x->rank);
	if (n_img < 1 || n_img > MAX_SP)
		return infer_fail(c, 1, "expected 1 to %d spatial dims, got %d", MAX_SP, n_img);
	if (n_blk != n_img)
		return infer_fail(c, 2, "expected %d values (as image_shape), got %d", n_img, n_blk);
	p->nsp = n_img;
	if (spatial_list(c, "strides", &a->strides, n_img, 1, 1, p->strides) ||
	    spatial_list(c, "dilations", &a->dilations, n_img, 1, 1, p->dilations) ||
	    spatial_list(c, "pads", &a->pads, 2 * n_img, 0, 0, p->pads))
		return -1;
	for (int d = 0; d < n_img; d++) {
		if (img[d] < 1 || img[d] > ATTR_MAX)
			return infer_fail(c, 1, "image dim %lld is out of range", (long long)img[d]);
		if (blk[d] < 1 || blk[d] > ATTR_MAX)
			return infer_fail(c, 2, "block dim %lld is out of range", (long long)blk[d]);
		int64_t ek = p->dilations[d] * (blk[d] - 1) + 1;
		int64_t num = img[d] + p->pads[d] + p->pads[n_img + d] - ek;
		if (num < 0)
			return infer_fail(c, 2, "the block (%lld dilated) exceeds padded image dim %d",
			                  (long long)ek, d);
		p->image[d] = img[d];
		p->block[d] = blk[d];
		p->lpos[d] = num / p->strides[d] + 1;
		if (!size_mul(bsz, blk[d], &bsz) || !size_mul(lsz, p->lpos[d], &lsz))
			return infer_fail(c, 2, "block too large");
	}
	if (x->dims[1] % bsz != 0)
		return infer_fail(c, 0, "dim 1 (%lld) is not a multiple of prod(block_shape) = %lld",
		                  (long long)x->dims[1], (long long)bsz);
	if (x->dims[2] != lsz)
		return infer_fail(c, 0, "dim 2 (%lld) must equal the number of block positions (%lld)",
		                  (long long)x->dims[2], (long long)lsz);
	p->dtype = x->dtype;
	p->n = x->dims[0];
	p->c = x->dims[1] / bsz;
	return 0;
}

static int col2im_infer(InferCtx *c)
{
	ingot_col2im_params p;
	int64_t dims[IR_MAX_RANK];
	if (col2im_plan(c, &p))
		return -1;
	dims[0] = p.n;
	dims[1] = p.c;
	for (int d = 0; d < p.nsp; d++)
		dims[2 + d] = p.image[d];
	*infer_out(c, 0) = type_make(infer_in(c, 0)->dtype, (int)p.nsp + 2, dims);
	return 0;
}

static const ParamField col2im_pfields[] = {
#define PARAM_STRUCT ingot_col2im_params
	INGOT_COL2IM_FIELDS(PARAM_FIELD)
#undef PARAM_STRUCT
};
static const ParamDesc col2im_desc = PARAM_DESC(ingot_col2im_params, col2im_pfields);

static int col2im_lower(LowerCtx *c)
{
	DiagSink quiet;
	InferCtx ic = { c->g, c->node, &quiet };
	ingot_col2im_params *p = lower_params(c, &col2im_desc);
	diag_sink_init(&quiet, NULL);
	int rc = col2im_plan(&ic, p);
	diag_sink_free(&quiet);
	if (rc)
		return -1;
	LOWER_CALL(c, ingot_col2im, &col2im_desc, p);
	return 0;
}

const OpImpl op_impl_col2im = {
	sizeof(Col2ImAttrs), col2im_fields, COUNTOF(col2im_fields),
	col2im_import, col2im_infer, col2im_lower
};
