/* arith.c — op groups unary_math, int_binary, prelu, hardmax, cumsum, det, trilu,
 * eye_like, one_hot and cast_like: typed attributes with their opset defaults, type
 * inference, and lowering to runtime-stubs/kernels/arith.c (CastLike to ingot_cast of
 * elementwise.c). Einsum lives in einsum.c.
 *
 * Opset differences canonicalized here: Hardmax < 13 coerces the input to 2-D at
 * `axis` (default 1), 13+ works along one axis (default -1); PRelu < 7 applies a 1-D
 * slope of C values per channel (dim 1); OneHot < 11 does not wrap negative indices.
 * Inputs read at compile time (CumSum's axis, Trilu's k, OneHot's depth) are resolved
 * by the same functions in infer and lower.
 */
#include "opimpl.h"

#include <stdarg.h>
#include <string.h>

#include "arith.h"
#include "elementwise.h"

/* ---- shared helpers ---- */


static Type plain_like(DType dt, const Type *shape)
{
	return type_make(dt, shape->rank, shape->dims);
}

static const Type *in_type(LowerCtx *c, int slot)
{
	const Node *n = &c->g->nodes[c->node];
	return slot < n->n_in && n->in[slot] != IR_NONE ? &c->g->values[n->in[slot]].type : NULL;
}

static const Type *out_type(LowerCtx *c, int slot)
{
	const Node *n = &c->g->nodes[c->node];
	return slot < n->n_out && n->out[slot] != IR_NONE ? &c->g->values[n->out[slot]].type : NULL;
}

/* Sets a 1-element list. */
static void set_f(Arena *a, FloatList *l, float v)
{
	l->v = arena_alloc(a, sizeof *l->v);
	l->v[0] = v;
	l->n = 1;
}

static void set_i(Arena *a, IntList *l, int64_t v)
{
	l->v = arena_alloc(a, sizeof *l->v);
	l->v[0] = v;
	l->n = 1;
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

/* ---- unary_math ---- */

typedef struct MathAttrs {
	FloatList alpha;            /* Celu, ThresholdedRelu; n = -1 for other ops */
	FloatList bias, lambd;      /* Shrink */
	IntList detect_positive, detect_negative;   /* IsInf */
	IntList approximate;        /* Gelu: 0 none, 1 tanh */
} MathAttrs;

static const AttrField math_fields[] = {
	{ "alpha", AK_FLOATS, offsetof(MathAttrs, alpha), NULL },
	{ "bias", AK_FLOATS, offsetof(MathAttrs, bias), NULL },
	{ "lambd", AK_FLOATS, offsetof(MathAttrs, lambd), NULL },
	{ "detect_positive", AK_INTS, offsetof(MathAttrs, detect_positive), NULL },
	{ "detect_negative", AK_INTS, offsetof(MathAttrs, detect_negative), NULL },
	{ "approximate", AK_INTS, offsetof(MathAttrs, approximate), NULL },
};

static int math_import(ImportCtx *c)
{
	static const char *const approx_names[] = { "none", "tanh", NULL };
	MathAttrs *a = c->attrs;
	Arena *ar = &c->g->arena;
	float f;
	int64_t i;
	int e;
	a->alpha.n = a->bias.n = a->lambd.n = -1;
	a->detect_positive.n = a->detect_negative.n = a->approximate.n = -1;
	switch (c->g->nodes[c->node].op) {
	case OP_CELU:
	case OP_THRESHOLDED_RELU:
		if (import_float(c, "alpha", 1.0f, &f))
			return -1;
		if (f == 0 && c->g->nodes[c->node].op == OP_CELU)
			return import_fail(c, "alpha", "must not be 0");
		set_f(ar, &a->alpha, f);
		break;
	case OP_SHRINK:
		if (import_float(c, "bias", 0.0f, &f))
			return -1;
		set_f(ar, &a->bias, f);
		if (import_float(c, "lambd", 0.5f, &f))
			return -1;
		set_f(ar, &a->lambd, f);
		break;
	case OP_IS_INF:
		if (import_int(c, "detect_positive", 1, &i))
			return -1;
		set_i(ar, &a->detect_positive, i != 0);
		if (import_int(c, "detect_negative", 1, &i))
			return -1;
		set_i(ar, &a->detect_negative, i != 0);
		break;
	case OP_GELU:
		if (import_enum(c, "approximate", approx_names, 0, &e))
			return -1;
		set_i(ar, &a->approximate, e);
		break;
	default:
		break;
	}
	return 0;
}

static int math_infer(InferCtx *c)
{
	Op op = infer_node(c)->op;
	const Type *x = infer_in(c, 0);
	bool numeric = op == OP_SIGN || op == OP_SHRINK;
	if (infer_check_dtype(c, 0, numeric ? dtl_numeric : dtl_float))
		return -1;
	*infer_out(c, 0) = plain_like(op == OP_IS_NAN || op == OP_IS_INF ? DT_BOOL : x->dtype, x);
	return 0;
}

/* ORDER MU_OPS */
static int64_t math_code(Op op, const MathAttrs *a)
{
	switch (op) {
	case OP_SIN: return INGOT_MU_SIN;
	case OP_COS: return INGOT_MU_COS;
	case OP_TAN: return INGOT_MU_TAN;
	case OP_ASIN: return INGOT_MU_ASIN;
	case OP_ACOS: return INGOT_MU_ACOS;
	case OP_ATAN: return INGOT_MU_ATAN;
	case OP_SINH: return INGOT_MU_SINH;
	case OP_COSH: return INGOT_MU_COSH;
	case OP_ASINH: return INGOT_MU_ASINH;
	case OP_ACOSH: return INGOT_MU_ACOSH;
	case OP_ATANH: return INGOT_MU_ATANH;
	case OP_SIGN: return INGOT_MU_SIGN;
	case OP_ROUND: return INGOT_MU_ROUND;
	case OP_IS_NAN: return INGOT_MU_ISNAN;
	case OP_IS_INF: return INGOT_MU_ISINF;
	case OP_CELU: return INGOT_MU_CELU;
	case OP_MISH: return INGOT_MU_MISH;
	case OP_GELU:
		return a->approximate.n > 0 && a->approximate.v[0] ? INGOT_MU_GELU_TANH : INGOT_MU_GELU;
	case OP_THRESHOLDED_RELU: return INGOT_MU_THRESHOLDED_RELU;
	case OP_SHRINK: return INGOT_MU_SHRINK;
	default: return -1;
	}
}

#define PARAM_STRUCT ingot_math_unary_params
static const ParamField math_pfields[] = { INGOT_MATH_UNARY_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc math_desc = PARAM_DESC(ingot_math_unary_params, math_pfields);

static int math_lower(LowerCtx *c)
{
	const Node *n = &c->g->nodes[c->node];
	const MathAttrs *a = n->attrs;
	const Type *x = in_type(c, 0);
	ingot_math_unary_params *p = lower_params(c, &math_desc);
	p->op = math_code(n->op, a);
	if (p->op < 0 || !x)
		return -1;
	p->dtype = x->dtype;
	p->n = type_numel(x);
	if (a->alpha.n > 0)
		p->alpha = a->alpha.v[0];
	if (a->lambd.n > 0)
		p->alpha = a->lambd.v[0];
	if (a->bias.n > 0)
		p->beta = a->bias.v[0];
	if (a->detect_positive.n > 0 && a->detect_positive.v[0])
		p->flags |= 1;
	if (a->detect_negative.n > 0 && a->detect_negative.v[0])
		p->flags |= 2;
	lower_call(c, "ingot_math_unary", "arith", &ingot_math_unary, &math_desc, p);
	c->kc.split = true;   /* tasks own disjoint outputs */
	return 0;
}

const OpImpl op_impl_unary_math = { sizeof(MathAttrs), math_fields, COUNTOF(math_fields),
                                    math_import, math_infer, math_lower };

/* ---- broadcasting binaries: int_binary (Mod, BitShift) and prelu ---- */

/* Element strides of `t` seen through the dims of `out` (right-aligned), 0 where t
 * is broadcast. */
static void bcast_strides(const Type *out, const Type *t, int64_t *s)
{
	int64_t st = 1;
	memset(s, 0, IR_MAX_RANK * sizeof *s);
	for (int d = out->rank - 1; d >= 0; d--) {
		int id = d - (out->rank - t->rank);
		if (id < 0)
			continue;
		s[d] = t->dims[id] == 1 && out->dims[d] != 1 ? 0 : st;
		st *= t->dims[id];
	}
}

#define PARAM_STRUCT ingot_arith_binary_params
static const ParamField binary_pfields[] = { INGOT_ARITH_BINARY_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc binary_desc = PARAM_DESC(ingot_arith_binary_params, binary_pfields);

static int lower_binary(LowerCtx *c, int64_t op, const Type *a, const Type *b)
{
	const Type *y = out_type(c, 0);
	ingot_arith_binary_params *p = lower_params(c, &binary_desc);
	if (!a || !b || !y)
		return -1;
	p->op = op;
	p->dtype = y->dtype;
	p->n = type_numel(y);
	p->rank = y->rank;
	memcpy(p->dims, y->dims, sizeof p->dims);
	bcast_strides(y, a, p->sa);
	bcast_strides(y, b, p->sb);
	lower_call(c, "ingot_arith_binary", "arith", &ingot_arith_binary, &binary_desc, p);
	c->kc.split = true;   /* tasks own disjoint outputs */
	return 0;
}

typedef struct IntBinaryAttrs {
	int mode;                   /* INT_MODE_*: Mod's fmod, BitShift's direction */
} IntBinaryAttrs;

enum { INT_MODE_MOD, INT_MODE_FMOD, INT_MODE_LEFT, INT_MODE_RIGHT };
static const char *const int_mode_names[] = { "mod", "fmod", "left", "right", NULL };

static const AttrField int_binary_fields[] = {
	{ "mode", AK_ENUM, offsetof(IntBinaryAttrs, mode), int_mode_names },
};

static int int_binary_import(ImportCtx *c)
{
	static const char *const dirs[] = { "LEFT", "RIGHT", NULL };
	IntBinaryAttrs *a = c->attrs;
	if (c->g->nodes[c->node].op == OP_MOD) {
		int64_t fmod;
		if (import_int(c, "fmod", 0, &fmod))
			return -1;
		if (fmod != 0 && fmod != 1)
			return import_fail(c, "fmod", "expected 0 or 1, got %lld", (long long)fmod);
		a->mode = fmod ? INT_MODE_FMOD : INT_MODE_MOD;
		return 0;
	}
	int dir;
	if (!import_find(c, "direction"))
		return import_fail(c, "direction", "required attribute is missing");
	if (import_enum(c, "direction", dirs, 0, &dir))
		return -1;
	a->mode = dir ? INT_MODE_RIGHT : INT_MODE_LEFT;
	return 0;
}

static const DType dtl_unsigned[] = { DT_U8, DT_U16, DT_U32, DT_U64, DT_UNDEF };

static int infer_bcast2(InferCtx *c, const Type *a, const Type *b, Type *out)
{
	if (!type_broadcast(a, b, out)) {
		char s1[96], s2[96];
		return infer_fail(c, 1, "shape %s is not broadcastable with %s",
		                  type_format(b, s2, sizeof s2), type_format(a, s1, sizeof s1));
	}
	out->dtype = a->dtype;
	return 0;
}

static int int_binary_infer(InferCtx *c)
{
	const DType *allowed = infer_node(c)->op == OP_MOD ? dtl_numeric : dtl_unsigned;
	if (infer_check_dtype(c, 0, allowed) || infer_check_dtype(c, 1, allowed) ||
	    infer_same_dtype(c, 0, 1))
		return -1;
	return infer_bcast2(c, infer_in(c, 0), infer_in(c, 1), infer_out(c, 0));
}

static int int_binary_lower(LowerCtx *c)
{
	static const int64_t codes[] = { INGOT_AB_MOD, INGOT_AB_FMOD, INGOT_AB_SHL, INGOT_AB_SHR };
	const IntBinaryAttrs *a = c->g->nodes[c->node].attrs;
	if (a->mode < 0 || a->mode > INT_MODE_RIGHT)
		return -1;
	return lower_binary(c, codes[a->mode], in_type(c, 0), in_type(c, 1));
}

const OpImpl op_impl_int_binary = { sizeof(IntBinaryAttrs), int_binary_fields,
                                    COUNTOF(int_binary_fields), int_binary_import,
                                    int_binary_infer, int_binary_lower };

/* The slope as numpy broadcasting should see it: PRelu < 7 applies a 1-D slope of
 * C = dim 1 values per channel. */
static Type prelu_slope(const Graph *g, const Node *n)
{
	const Type *x = &g->values[n->in[0]].type, *s = &g->values[n->in[1]].type;
	Type t = *s;
	if (n->opset < 7 && s->rank == 1 && x->rank >= 3 && s->dims[0] == x->dims[1] &&
	    s->dims[0] != 1) {
		t = type_make(s->dtype, x->rank - 1, NULL);
		for (int d = 0; d < t.rank; d++)
			t.dims[d] = d == 0 ? s->dims[0] : 1;
	}
	return t;
}

static int prelu_infer(InferCtx *c)
{
	const Type *x = infer_in(c, 0);
	Type s = prelu_slope(c->g, infer_node(c)), y;
	char b1[96], b2[96];
	if (infer_check_dtype(c, 0, dtl_numeric) || infer_same_dtype(c, 0, 1))
		return -1;
	if (!type_broadcast(x, &s, &y) || !type_same_shape(&y, x))
		return infer_fail(c, 1, "slope shape %s does not broadcast to input shape %s",
		                  type_format(&s, b1, sizeof b1), type_format(x, b2, sizeof b2));
	*infer_out(c, 0) = plain_like(x->dtype, x);
	return 0;
}

static int prelu_lower(LowerCtx *c)
{
	if (!in_type(c, 0) || !in_type(c, 1))
		return -1;
	Type s = prelu_slope(c->g, &c->g->nodes[c->node]);
	return lower_binary(c, INGOT_AB_PRELU, in_type(c, 0), &s);
}

const OpImpl op_impl_prelu = { 0, NULL, 0, NULL, prelu_infer, prelu_lower };

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
	const Type *x = in_type(c, 0);
	int64_t v[3];
	if (!x || resolve_quiet(c, hardmax_view, v))
		return -1;
	ingot_hardmax_params *p = lower_params(c, &hardmax_desc);
	p->dtype = x->dtype;
	p->outer = v[0];
	p->len = v[1];
	p->inner = v[2];
	lower_call(c, "ingot_hardmax", "arith", &ingot_hardmax, &hardmax_desc, p);
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
	const Type *x = in_type(c, 0);
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
	lower_call(c, "ingot_cumsum", "arith", &ingot_cumsum, &cumsum_desc, p);
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
	const Type *x = in_type(c, 0);
	if (!x || x->rank < 2)
		return -1;
	ingot_det_params *p = lower_params(c, &det_desc);
	p->dtype = x->dtype;
	p->m = x->dims[x->rank - 1];
	p->batch = prod(x->dims, 0, x->rank - 2);
	lower_call(c, "ingot_det", "arith", &ingot_det, &det_desc, p);
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
	const Type *x = in_type(c, 0);
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
	lower_call(c, "ingot_trilu", "arith", &ingot_trilu, &trilu_desc, p);
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
	const Type *y = out_type(c, 0);
	if (!y || y->rank != 2)
		return -1;
	ingot_eye_like_params *p = lower_params(c, &eye_like_desc);
	p->dtype = y->dtype;
	p->rows = y->dims[0];
	p->cols = y->dims[1];
	p->k = a->k;
	lower_call(c, "ingot_eye_like", "arith", &ingot_eye_like, &eye_like_desc, p);
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
	const Type *ind = in_type(c, 0), *y = out_type(c, 0);
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
	lower_call(c, "ingot_one_hot", "arith", &ingot_one_hot, &one_hot_desc, p);
	return 0;
}

const OpImpl op_impl_one_hot = { sizeof(OneHotAttrs), one_hot_fields, COUNTOF(one_hot_fields),
                                 one_hot_import, one_hot_infer, one_hot_lower };

/* ---- cast_like: Cast to the element type of input 1, through ingot_cast (strings:
 * ingot_cast_str, text.c) ---- */

static int cast_like_infer(InferCtx *c)
{
	const Type *x = infer_in(c, 0), *like = infer_in(c, 1);
	if ((x->dtype != DT_STRING && infer_check_dtype(c, 0, dtl_all)) ||
	    (like->dtype != DT_STRING && infer_check_dtype(c, 1, dtl_all)))
		return -1;
	*infer_out(c, 0) = plain_like(like->dtype, x);
	return 0;
}

#define PARAM_STRUCT ingot_cast_params
static const ParamField cast_pfields[] = { INGOT_CAST_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc cast_desc = PARAM_DESC(ingot_cast_params, cast_pfields);

static int cast_like_lower(LowerCtx *c)
{
	const Type *x = in_type(c, 0), *like = in_type(c, 1);
	if (!x || !like)
		return -1;
	if (x->dtype == DT_STRING || like->dtype == DT_STRING)
		return text_cast_lower(c, x->dtype, like->dtype, type_numel(x));
	ingot_cast_params *p = lower_params(c, &cast_desc);
	p->from = x->dtype;
	p->to = like->dtype;
	p->n = type_numel(x);
	lower_call(c, "ingot_cast", "elementwise", &ingot_cast, &cast_desc, p);
	c->kc.split = true;   /* tasks own disjoint outputs */
	return 0;
}

const OpImpl op_impl_cast_like = { 0, NULL, 0, NULL, cast_like_infer, cast_like_lower };
