/* arith.c — op groups unary_math, int_binary, prelu and cast_like: typed attributes
 * with their opset defaults, type inference, and lowering to
 * runtime-stubs/kernels/arith.c (CastLike to ingot_cast of elementwise.c). Hardmax,
 * CumSum, Det, Trilu, EyeLike and OneHot live in arith_matrix.c, Einsum in einsum.c.
 *
 * BitwiseAnd/Or/Xor and the unary BitwiseNot (opset 18) are the group `bitwise`: no
 * attributes, any integer type, the op itself picks the kernel's op code.
 *
 * Opset differences canonicalized here: PRelu < 7 applies a 1-D slope of C values per
 * channel (dim 1).
 */
#include "opimpl.h"
#include "op_attrs.h"

#include <string.h>

#include "arith.h"
#include "elementwise.h"

/* ---- shared helpers ---- */

static Type plain_like(DType dt, const Type *shape)
{
	return type_make(dt, shape->rank, shape->dims);
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

/* ---- unary_math ---- */

/* MathAttrs is in op_attrs.h */

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
	const Type *x = lower_in(c, 0);
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
	LOWER_CALL(c, ingot_math_unary, &math_desc, p);
	c->kc.split = true;   /* tasks own disjoint outputs */
	return 0;
}

const OpImpl op_impl_unary_math = { sizeof(MathAttrs), math_fields, COUNTOF(math_fields),
                                    math_import, math_infer, math_lower };

/* ---- broadcasting binaries: int_binary (Mod, BitShift), bitwise and prelu ---- */

void ops_bcast_strides(const Type *out, const Type *t, int64_t *s)
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
	const Type *y = lower_out(c, 0);
	ingot_arith_binary_params *p = lower_params(c, &binary_desc);
	if (!a || !b || !y)
		return -1;
	p->op = op;
	p->dtype = y->dtype;
	p->n = type_numel(y);
	p->rank = y->rank;
	memcpy(p->dims, y->dims, sizeof p->dims);
	ops_bcast_strides(y, a, p->sa);
	ops_bcast_strides(y, b, p->sb);
	LOWER_CALL(c, ingot_arith_binary, &binary_desc, p);
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
	return lower_binary(c, codes[a->mode], lower_in(c, 0), lower_in(c, 1));
}

const OpImpl op_impl_int_binary = { sizeof(IntBinaryAttrs), int_binary_fields,
                                    COUNTOF(int_binary_fields), int_binary_import,
                                    int_binary_infer, int_binary_lower };

/* BitwiseAnd/Or/Xor: both inputs of one integer type, broadcast; BitwiseNot: unary. */
static int bitwise_infer(InferCtx *c)
{
	const Type *a = infer_in(c, 0);
	if (infer_check_dtype(c, 0, dtl_int))
		return -1;
	if (infer_node(c)->op == OP_BITWISE_NOT) {
		*infer_out(c, 0) = plain_like(a->dtype, a);
		return 0;
	}
	if (infer_check_dtype(c, 1, dtl_int) || infer_same_dtype(c, 0, 1))
		return -1;
	return infer_bcast2(c, a, infer_in(c, 1), infer_out(c, 0));
}

static int bitwise_lower(LowerCtx *c)
{
	switch (c->g->nodes[c->node].op) {
	case OP_BITWISE_AND: return lower_binary(c, INGOT_AB_AND, lower_in(c, 0), lower_in(c, 1));
	case OP_BITWISE_OR: return lower_binary(c, INGOT_AB_OR, lower_in(c, 0), lower_in(c, 1));
	case OP_BITWISE_XOR: return lower_binary(c, INGOT_AB_XOR, lower_in(c, 0), lower_in(c, 1));
	/* unary: b is a again (the kernel reads only in[0]) */
	case OP_BITWISE_NOT: return lower_binary(c, INGOT_AB_NOT, lower_in(c, 0), lower_in(c, 0));
	default: return -1;
	}
}

const OpImpl op_impl_bitwise = { 0, NULL, 0, NULL, bitwise_infer, bitwise_lower };

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
	if (!lower_in(c, 0) || !lower_in(c, 1))
		return -1;
	Type s = prelu_slope(c->g, &c->g->nodes[c->node]);
	return lower_binary(c, INGOT_AB_PRELU, lower_in(c, 0), &s);
}

const OpImpl op_impl_prelu = { 0, NULL, 0, NULL, prelu_infer, prelu_lower };

/* ---- cast_like: Cast to the element type of input 1, through ingot_cast (strings:
 * ingot_cast_str, text.c) ---- */

typedef struct CastLikeAttrs {
	int64_t saturate;       /* opset 19: out-of-range values to 8-bit floats saturate */
	int round_mode;         /* opset 24: INGOT_E8M0_* (float8e8m0 only) */
} CastLikeAttrs;

static const AttrField cast_like_fields[] = {
	{ "saturate", AK_INT, offsetof(CastLikeAttrs, saturate), NULL, .has_default = true, .def = 1 },
	{ "round_mode", AK_ENUM, offsetof(CastLikeAttrs, round_mode), cast_round_mode_names,
	  .has_default = true, .def = INGOT_E8M0_UP },
};

static int cast_like_import(ImportCtx *c)
{
	CastLikeAttrs *a = c->attrs;
	if (import_int(c, "saturate", 1, &a->saturate) ||
	    import_enum(c, "round_mode", cast_round_mode_names, INGOT_E8M0_UP, &a->round_mode))
		return -1;
	return 0;
}

static int cast_like_infer(InferCtx *c)
{
	const Type *x = infer_in(c, 0), *like = infer_in(c, 1);
	if ((x->dtype != DT_STRING && infer_check_dtype(c, 0, dtl_all_small)) ||
	    (like->dtype != DT_STRING && infer_check_dtype(c, 1, dtl_all_small)))
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
	const Type *x = lower_in(c, 0), *like = lower_in(c, 1);
	if (!x || !like)
		return -1;
	if (x->dtype == DT_STRING || like->dtype == DT_STRING)
		return text_cast_lower(c, x->dtype, like->dtype, type_numel(x));
	ingot_cast_params *p = lower_params(c, &cast_desc);
	p->from = x->dtype;
	p->to = like->dtype;
	p->n = type_numel(x);
	p->saturate = ((const CastLikeAttrs *)c->g->nodes[c->node].attrs)->saturate != 0;
	p->round_mode = ((const CastLikeAttrs *)c->g->nodes[c->node].attrs)->round_mode;
	LOWER_CALL(c, ingot_cast, &cast_desc, p);
	c->kc.split = true;   /* tasks own disjoint outputs */
	return 0;
}

const OpImpl op_impl_cast_like = { sizeof(CastLikeAttrs), cast_like_fields,
                                   COUNTOF(cast_like_fields), cast_like_import,
                                   cast_like_infer, cast_like_lower };
