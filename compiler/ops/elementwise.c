/* elementwise.c — op groups unary, binary, variadic, cast, clip, identity, where and device_copy:
 * typed attributes with their opset defaults, type inference with numpy
 * broadcasting, and lowering to the kernels of runtime-stubs/kernels/elementwise.c.
 *
 * Opset differences are canonicalized here: legacy (opset < 7) axis broadcasting
 * becomes a rank-aligned shape, Clip's min/max attributes (< 11) and inputs (11+)
 * both reach ingot_clip, Dropout's ratio attribute (< 12) and inputs (12+) likewise.
 */
#include "opimpl.h"
#include "op_attrs.h"

#include <stdarg.h>
#include <string.h>

#include "elementwise.h"

/* ---- shared helpers ---- */


static int type_fail(InferCtx *c, int slot, const char *what)
{
	DiagLoc l = ir_node_loc(c->g, c->node);
	const Node *n = infer_node(c);
	l.slot_kind = "input";
	l.slot = slot;
	l.tensor = c->g->values[n->in[slot]].name;
	diag_report(c->diags, DIAG_ERROR, DC_TYPE, &l, "expected %s, got %s", what,
	            dtype_name(infer_in(c, slot)->dtype));
	return -1;
}

static void set_float(Arena *a, FloatList *l, float v)
{
	l->v = arena_alloc(a, sizeof *l->v);
	l->v[0] = v;
	l->n = 1;
}

/* Reads an optional float attribute into a 1-element list (n = -1 when absent). */
static int import_opt_float(ImportCtx *c, const char *name, FloatList *l)
{
	float v;
	l->n = -1;
	l->v = NULL;
	if (!import_find(c, name))
		return 0;
	if (import_float(c, name, 0, &v))
		return -1;
	set_float(&c->g->arena, l, v);
	return 0;
}

static float list_f(const FloatList *l, float def)
{
	return l->n > 0 ? l->v[0] : def;
}

static Type plain_like(DType dt, const Type *shape)
{
	return type_make(dt, shape->rank, shape->dims);
}

/* Broadcasts inputs ins[0..n) into *out (dtype of ins[0]); reports the first
 * incompatible input. */
static int infer_bcast(InferCtx *c, const Type *const *ins, int n, Type *out)
{
	Type r = *ins[0];
	for (int i = 1; i < n; i++) {
		Type t;
		if (!type_broadcast(&r, ins[i], &t)) {
			char a[96], b[96];
			return infer_fail(c, i, "shape %s is not broadcastable with %s",
			                  type_format(ins[i], b, sizeof b), type_format(&r, a, sizeof a));
		}
		r = t;
	}
	*out = type_make(ins[0]->dtype, r.rank, r.dims);
	return 0;
}

/* The kernels' view of a broadcast: output dims with size-1 dims dropped and
 * neighbours merged where every input is either present in both or broadcast in
 * both; bc[j][d] says input j is broadcast along dim d. The result has rank >= 1. */
typedef struct Bcast {
	int rank;
	int64_t dims[IR_MAX_RANK];
	bool bc[INGOT_VARIADIC_MAX_IN][IR_MAX_RANK];
} Bcast;

static void bcast_layout(const Type *out, const Type *const *ins, int n_in, Bcast *b)
{
	int r = 0;
	IR_ASSERT(n_in <= INGOT_VARIADIC_MAX_IN);
	memset(b, 0, sizeof *b);
	for (int d = 0; d < out->rank; d++) {
		if (out->dims[d] == 1)
			continue;
		bool merge = r > 0;
		for (int j = 0; j < n_in; j++) {
			int id = d - (out->rank - ins[j]->rank);
			bool bc = id < 0 || ins[j]->dims[id] != out->dims[d];
			if (r > 0 && b->bc[j][r - 1] != bc)
				merge = false;
			b->bc[j][r] = bc;
		}
		if (merge) {
			b->dims[r - 1] *= out->dims[d];
		} else {
			b->dims[r] = out->dims[d];
			r++;
		}
	}
	if (r == 0) {
		b->dims[0] = 1;
		for (int j = 0; j < n_in; j++)
			b->bc[j][0] = false;
		r = 1;
	}
	b->rank = r;
}

/* Row-major element strides of input j in the layout, 0 where broadcast. */
static void bcast_strides(const Bcast *b, int j, int64_t *s)
{
	int64_t st = 1;
	for (int d = b->rank - 1; d >= 0; d--) {
		s[d] = b->bc[j][d] ? 0 : st;
		st *= b->bc[j][d] ? 1 : b->dims[d];
	}
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

/* ---- unary ---- */

/* UnaryAttrs is in op_attrs.h */

static const AttrField unary_fields[] = {
	{ "alpha", AK_FLOATS, offsetof(UnaryAttrs, alpha), NULL },
	{ "beta", AK_FLOATS, offsetof(UnaryAttrs, beta), NULL },
	{ "gamma", AK_FLOATS, offsetof(UnaryAttrs, gamma), NULL },
};

/* Imports float attribute `name` (default def) into *l. */
static int attr_in(ImportCtx *c, const char *name, float def, FloatList *l)
{
	float v;
	if (import_float(c, name, def, &v))
		return -1;
	set_float(&c->g->arena, l, v);
	return 0;
}

static int unary_import(ImportCtx *c)
{
	UnaryAttrs *a = c->attrs;
	a->alpha.n = a->beta.n = a->gamma.n = -1;
	/* the attributes of ewtable.h's PAR column, with its defaults */
#define IMP_P0 0
#define IMP_PHS 0
#define IMP_PA(da) attr_in(c, "alpha", da, &a->alpha)
#define IMP_PAB(da, db) IMP_PA(da) || attr_in(c, "beta", db, &a->beta)
#define IMP_PAG(da, dg) IMP_PA(da) || attr_in(c, "gamma", dg, &a->gamma)
#define X(N, On, fn, R, U, A, PAR, S, V) \
	INGOT_EW_IF_UNARY_##R(case OP_##N: return IMP_##PAR ? -1 : 0;)
	switch (c->g->nodes[c->node].op) {
	INGOT_EW_TABLE(X)
	default: break;
	}
#undef X
#undef IMP_P0
#undef IMP_PHS
#undef IMP_PA
#undef IMP_PAB
#undef IMP_PAG
	return 0;
}

static const DType dtl_signed_float[] = { DT_F16, DT_F32, DT_F64, DT_BF16, DT_I8, DT_I16,
                                          DT_I32, DT_I64, DT_UNDEF };
static const DType dtl_bool[] = { DT_BOOL, DT_UNDEF };

static int unary_infer(InferCtx *c)
{
	const Type *x = infer_in(c, 0);
	const DType *allowed;
	switch (infer_node(c)->op) {
	case OP_ABS: allowed = dtl_numeric; break;
	case OP_NEG: case OP_RELU: allowed = dtl_signed_float; break;
	case OP_NOT: allowed = dtl_bool; break;
	default: allowed = dtl_float; break;
	}
	if (infer_check_dtype(c, 0, allowed))
		return -1;
	*infer_out(c, 0) = plain_like(x->dtype, x);
	return 0;
}

/* The kernel's op code of each unary op (ewtable.h: OP_<NAME> runs INGOT_EW_<NAME>) */
static int64_t unary_code(Op op)
{
	switch (op) {
#define X(N, On, fn, R, U, A, PAR, S, V) INGOT_EW_IF_UNARY_##R(case OP_##N: return INGOT_EW_##N;)
	INGOT_EW_TABLE(X)
#undef X
	default: return -1;
	}
}

#define PARAM_STRUCT ingot_unary_params
static const ParamField unary_pfields[] = { INGOT_UNARY_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc unary_desc = PARAM_DESC(ingot_unary_params, unary_pfields);

static int unary_lower(LowerCtx *c)
{
	const Node *n = &c->g->nodes[c->node];
	const UnaryAttrs *a = n->attrs;
	const Type *x = in_type(c, 0);
	ingot_unary_params *p = lower_params(c, &unary_desc);
	p->op = unary_code(n->op);
	if (p->op < 0 || !x)
		return -1;
	p->dtype = x->dtype;
	p->n = type_numel(x);
	p->alpha = list_f(&a->alpha, 0);
	p->beta = list_f(&a->beta, 0);
	p->gamma = list_f(&a->gamma, 0);
	if (n->op == OP_HARD_SWISH) {        /* HardSigmoid with alpha = 1/6, beta = 0.5, times x */
		p->alpha = 1.0f / 6.0f;
		p->beta = 0.5f;
	}
	LOWER_CALL(c, ingot_unary, &unary_desc, p);
	c->kc.split = true;   /* tasks own disjoint outputs */
	return 0;
}

const OpImpl op_impl_unary = { sizeof(UnaryAttrs), unary_fields, COUNTOF(unary_fields),
                               unary_import, unary_infer, unary_lower };

/* ---- binary ---- */

/* Opset < 7 broadcasting ("broadcast=1"): B's dims line up with A's starting at
 * bcast_axis. n = -1 for numpy broadcasting; n = 0 at import means "suffix", which
 * infer resolves to the axis. */
typedef struct BinaryAttrs {
	IntList bcast_axis;
} BinaryAttrs;

static const AttrField binary_fields[] = {
	{ "bcast_axis", AK_INTS, offsetof(BinaryAttrs, bcast_axis), NULL },
};

static int binary_import(ImportCtx *c)
{
	BinaryAttrs *a = c->attrs;
	int64_t bcast, axis;
	a->bcast_axis.n = -1;
	a->bcast_axis.v = NULL;
	if (c->g->nodes[c->node].opset >= 7)
		return 0;
	if (import_int(c, "broadcast", 0, &bcast))
		return -1;
	if (!bcast)
		return 0;
	a->bcast_axis.v = arena_alloc(&c->g->arena, sizeof *a->bcast_axis.v);
	a->bcast_axis.n = 0;
	if (import_find(c, "axis")) {
		if (import_int(c, "axis", 0, &axis))
			return -1;
		a->bcast_axis.v[0] = axis;
		a->bcast_axis.n = 1;
	}
	return 0;
}

/* The type of input 1 as numpy broadcasting should see it (legacy axis applied). */
static Type binary_b_type(const Graph *g, const Node *n)
{
	const BinaryAttrs *a = n->attrs;
	const Type *ta = &g->values[n->in[0]].type, *tb = &g->values[n->in[1]].type;
	Type t = *tb;
	if (a->bcast_axis.n == 1) {
		int64_t axis = a->bcast_axis.v[0];
		t = type_make(tb->dtype, ta->rank, NULL);
		for (int d = 0; d < ta->rank; d++)
			t.dims[d] = d >= axis && d < axis + tb->rank ? tb->dims[d - axis] : 1;
	}
	return t;
}

static bool is_compare(Op op)
{
	return op == OP_EQUAL || op == OP_GREATER || op == OP_GREATER_OR_EQUAL || op == OP_LESS ||
	       op == OP_LESS_OR_EQUAL;
}

static int binary_infer(InferCtx *c)
{
	Node *n = infer_node(c);
	BinaryAttrs *a = n->attrs;
	const Type *ta = infer_in(c, 0), *tb = infer_in(c, 1);
	const DType *allowed = dtl_numeric;
	if (n->op == OP_AND || n->op == OP_OR || n->op == OP_XOR)
		allowed = dtl_bool;
	else if (n->op == OP_EQUAL)
		allowed = dtl_all;
	/* Equal on strings from opset 19 (ingot_str_equal) */
	const bool str = n->op == OP_EQUAL && n->opset >= 19 && ta->dtype == DT_STRING;
	if (!str && (infer_check_dtype(c, 0, allowed) || infer_check_dtype(c, 1, allowed)))
		return -1;
	if (n->op != OP_POW && infer_same_dtype(c, 0, 1))
		return -1;
	if (a->bcast_axis.n >= 0) {         /* legacy: B is a contiguous run of A's dims */
		int64_t axis = a->bcast_axis.n == 1 ? a->bcast_axis.v[0] : ta->rank - tb->rank;
		if (axis < 0 && a->bcast_axis.n == 1)
			axis += ta->rank;
		if (axis < 0 || axis + tb->rank > ta->rank)
			return infer_fail_attr(c, "axis", "axis %lld does not fit rank %d into rank %d",
			                       (long long)axis, tb->rank, ta->rank);
		for (int d = 0; d < tb->rank; d++)
			if (tb->dims[d] != 1 && tb->dims[d] != ta->dims[axis + d])
				return infer_fail(c, 1, "dim %d is %lld, expected %lld (input 0 dim %lld)",
				                  d, (long long)tb->dims[d], (long long)ta->dims[axis + d],
				                  (long long)(axis + d));
		a->bcast_axis.v[0] = axis;
		a->bcast_axis.n = 1;
	}
	Type vb = binary_b_type(c->g, n), out;
	const Type *ins[2] = { ta, &vb };
	if (infer_bcast(c, ins, 2, &out))
		return -1;
	if (is_compare(n->op))
		out.dtype = DT_BOOL;
	*infer_out(c, 0) = out;
	return 0;
}

static int64_t binary_code(Op op)
{
	switch (op) {
	case OP_ADD: return INGOT_EW_ADD;
	case OP_AND: return INGOT_EW_AND;
	case OP_DIV: return INGOT_EW_DIV;
	case OP_EQUAL: return INGOT_EW_EQUAL;
	case OP_GREATER: return INGOT_EW_GREATER;
	case OP_GREATER_OR_EQUAL: return INGOT_EW_GREATER_OR_EQUAL;
	case OP_LESS: return INGOT_EW_LESS;
	case OP_LESS_OR_EQUAL: return INGOT_EW_LESS_OR_EQUAL;
	case OP_MUL: return INGOT_EW_MUL;
	case OP_OR: return INGOT_EW_OR;
	case OP_POW: return INGOT_EW_POW;
	case OP_SUB: return INGOT_EW_SUB;
	case OP_XOR: return INGOT_EW_XOR;
	case OP_MAX: return INGOT_EW_MAX;
	case OP_MIN: return INGOT_EW_MIN;
	case OP_SUM: return INGOT_EW_ADD;
	case OP_MEAN: return INGOT_EW_MEAN;
	default: return -1;
	}
}

#define PARAM_STRUCT ingot_binary_params
static const ParamField binary_pfields[] = { INGOT_BINARY_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc binary_desc = PARAM_DESC(ingot_binary_params, binary_pfields);

static int binary_lower(LowerCtx *c)
{
	const Node *n = &c->g->nodes[c->node];
	const Type *ta = in_type(c, 0), *tout = out_type(c, 0);
	if (!ta || !in_type(c, 1) || !tout)
		return -1;
	if (ta->dtype == DT_STRING)
		return ops_str_equal_lower(c);
	ingot_binary_params *p = lower_params(c, &binary_desc);
	Bcast b;
	Type vb = binary_b_type(c->g, n);
	const Type *ins[2] = { ta, &vb };
	bcast_layout(tout, ins, 2, &b);
	p->op = binary_code(n->op);
	p->dtype_a = ta->dtype;
	p->dtype_b = vb.dtype;
	p->dtype_out = tout->dtype;
	p->n = type_numel(tout);
	p->rank = b.rank;
	memcpy(p->dims, b.dims, sizeof b.dims);
	bcast_strides(&b, 0, p->sa);
	bcast_strides(&b, 1, p->sb);
	LOWER_CALL(c, ingot_binary, &binary_desc, p);
	c->kc.split = true;   /* tasks own disjoint outputs */
	return 0;
}

const OpImpl op_impl_binary = { sizeof(BinaryAttrs), binary_fields, COUNTOF(binary_fields),
                                binary_import, binary_infer, binary_lower };

/* ---- variadic ---- */

static int variadic_infer(InferCtx *c)
{
	Node *n = infer_node(c);
	const Type *ins[INGOT_VARIADIC_MAX_IN];
	const DType *allowed = n->op == OP_MAX || n->op == OP_MIN ? dtl_numeric : dtl_float;
	if (n->n_in > INGOT_VARIADIC_MAX_IN)
		return infer_unsupported(c, "%d inputs; at most %d are supported", n->n_in,
		                   INGOT_VARIADIC_MAX_IN);
	for (int i = 0; i < n->n_in; i++) {
		if (!infer_has(c, i))
			return infer_fail(c, i, "missing");
		if (infer_check_dtype(c, i, allowed) || infer_same_dtype(c, 0, i))
			return -1;
		ins[i] = infer_in(c, i);
	}
	return infer_bcast(c, ins, n->n_in, infer_out(c, 0));
}

#define PARAM_STRUCT ingot_variadic_params
static const ParamField variadic_pfields[] = { INGOT_VARIADIC_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc variadic_desc = PARAM_DESC(ingot_variadic_params, variadic_pfields);

static int variadic_lower(LowerCtx *c)
{
	const Node *n = &c->g->nodes[c->node];
	const Type *ins[INGOT_VARIADIC_MAX_IN], *tout = out_type(c, 0);
	ingot_variadic_params *p = lower_params(c, &variadic_desc);
	uint64_t words[4] = { 0, 0, 0, 0 };
	Bcast b;
	if (n->n_in < 1 || n->n_in > INGOT_VARIADIC_MAX_IN || !tout)
		return -1;
	for (int i = 0; i < n->n_in; i++)
		if (!(ins[i] = in_type(c, i)))
			return -1;
	bcast_layout(tout, ins, n->n_in, &b);
	for (int j = 0; j < n->n_in; j++)
		for (int d = 0; d < b.rank; d++)
			if (b.bc[j][d])
				words[j / 8] |= (uint64_t)1 << (8 * (j % 8) + d);
	p->op = binary_code(n->op);
	p->dtype = tout->dtype;
	p->n_in = n->n_in;
	p->n = type_numel(tout);
	p->rank = b.rank;
	memcpy(p->dims, b.dims, sizeof b.dims);
	p->bcast0 = (int64_t)words[0];
	p->bcast1 = (int64_t)words[1];
	p->bcast2 = (int64_t)words[2];
	p->bcast3 = (int64_t)words[3];
	LOWER_CALL(c, ingot_variadic, &variadic_desc, p);
	c->kc.split = true;   /* tasks own disjoint outputs */
	return 0;
}

const OpImpl op_impl_variadic = { 0, NULL, 0, NULL, variadic_infer, variadic_lower };

/* ---- cast ---- */

typedef struct CastAttrs {
	int to;                 /* DType, printed by name */
	int64_t saturate;       /* opset 19: out-of-range values to 8-bit floats saturate */
	int round_mode;         /* opset 24: INGOT_E8M0_UP, _DOWN or _NEAREST (float8e8m0 only) */
} CastAttrs;

/* Indexed by the ONNX dtype number. ORDER DTYPE */
static const char *const dtype_names[] = {
	"undef", "f32", "u8", "i8", "u16", "i16", "i32", "i64", "str", "bool", "f16", "f64",
	"u32", "u64", "c64", "c128", "bf16", "f8e4m3fn", "f8e4m3fnuz", "f8e5m2", "f8e5m2fnuz",
	"u4", "i4", "f4e2m1", "f8e8m0", "u2", "i2", NULL
};

static const AttrField cast_fields[] = {
	{ "to", AK_ENUM, offsetof(CastAttrs, to), dtype_names },
	{ "saturate", AK_INT, offsetof(CastAttrs, saturate), NULL, .has_default = true, .def = 1 },
	{ "round_mode", AK_ENUM, offsetof(CastAttrs, round_mode), cast_round_mode_names,
	  .has_default = true, .def = INGOT_E8M0_UP },
};

static int cast_import(ImportCtx *c)
{
	CastAttrs *a = c->attrs;
	const RawAttr *r = import_find(c, "to");
	if (import_int(c, "saturate", 1, &a->saturate))
		return -1;
	if (import_enum(c, "round_mode", cast_round_mode_names, INGOT_E8M0_UP, &a->round_mode))
		return -1;
	if (!r)
		return import_fail(c, "to", "required attribute is missing");
	if (r->kind == RA_STRING) {          /* opset 1 spelled the type: "FLOAT" */
		for (int t = 1; t < DT_COUNT; t++)
			if (strcmp(dtype_onnx_name((DType)t), r->s) == 0) {
				a->to = t;
				return 0;
			}
		return import_fail(c, "to", "unknown element type '%s'", r->s);
	}
	int64_t to;
	if (import_int(c, "to", 0, &to))
		return -1;
	if (to <= 0 || to >= DT_COUNT || !dtype_is_valid((int)to))
		return import_fail(c, "to", "unknown element type %lld", (long long)to);
	a->to = (int)to;
	return 0;
}

static int cast_infer(InferCtx *c)
{
	const CastAttrs *a = infer_node(c)->attrs;
	const Type *x = infer_in(c, 0);
	DType to = (DType)a->to;
	if (x->dtype != DT_STRING && infer_check_dtype(c, 0, dtl_all_small))
		return -1;
	bool ok = to == DT_STRING;
	for (int i = 0; dtl_all_small[i] != DT_UNDEF; i++)
		ok |= dtl_all_small[i] == to;
	if ((dtype_is_small(to) || dtype_is_small(x->dtype)) && (to == DT_STRING || x->dtype == DT_STRING))
		return infer_unsupported(c, "Cast between %s and %s is not supported",
		                         dtype_name(x->dtype), dtype_name(to));
	if (!ok)
		return infer_unsupported(c, "Cast to %s is not supported", dtype_name(to));
	*infer_out(c, 0) = plain_like(to, x);
	return 0;
}

#define PARAM_STRUCT ingot_cast_params
static const ParamField cast_pfields[] = { INGOT_CAST_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc cast_desc = PARAM_DESC(ingot_cast_params, cast_pfields);

static int cast_lower(LowerCtx *c)
{
	const CastAttrs *a = c->g->nodes[c->node].attrs;
	const Type *x = in_type(c, 0);
	ingot_cast_params *p = lower_params(c, &cast_desc);
	if (!x)
		return -1;
	if (x->dtype == DT_STRING || a->to == DT_STRING)
		return text_cast_lower(c, x->dtype, (DType)a->to, type_numel(x));
	p->from = x->dtype;
	p->to = a->to;
	p->n = type_numel(x);
	p->saturate = a->saturate != 0;
	p->round_mode = a->round_mode;
	LOWER_CALL(c, ingot_cast, &cast_desc, p);
	c->kc.split = true;   /* tasks own disjoint outputs */
	return 0;
}

const OpImpl op_impl_cast = { sizeof(CastAttrs), cast_fields, COUNTOF(cast_fields),
                              cast_import, cast_infer, cast_lower };

/* ---- clip ---- */

/* ClipAttrs is in op_attrs.h */

static const AttrField clip_fields[] = {
	{ "min", AK_FLOATS, offsetof(ClipAttrs, min), NULL },
	{ "max", AK_FLOATS, offsetof(ClipAttrs, max), NULL },
};

static int clip_import(ImportCtx *c)
{
	ClipAttrs *a = c->attrs;
	a->min.n = a->max.n = -1;
	if (c->g->nodes[c->node].opset >= 11)
		return 0;
	return import_opt_float(c, "min", &a->min) || import_opt_float(c, "max", &a->max) ? -1 : 0;
}

static int clip_infer(InferCtx *c)
{
	Node *n = infer_node(c);
	const Type *x = infer_in(c, 0);
	if (infer_check_dtype(c, 0, n->opset >= 12 ? dtl_numeric : dtl_float))
		return -1;
	for (int i = 1; i < n->n_in; i++) {
		if (!infer_has(c, i))
			continue;
		if (n->opset < 11)
			return infer_fail(c, i, "Clip-%d takes min and max as attributes, not inputs",
			                  n->opset);
		if (infer_same_dtype(c, 0, i))
			return -1;
		if (type_numel(infer_in(c, i)) != 1)
			return infer_fail(c, i, "expected a scalar bound, got %lld elements",
			                  (long long)type_numel(infer_in(c, i)));
	}
	*infer_out(c, 0) = plain_like(x->dtype, x);
	return 0;
}

#define PARAM_STRUCT ingot_clip_params
static const ParamField clip_pfields[] = { INGOT_CLIP_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc clip_desc = PARAM_DESC(ingot_clip_params, clip_pfields);

static int clip_lower(LowerCtx *c)
{
	const Node *n = &c->g->nodes[c->node];
	const ClipAttrs *a = n->attrs;
	const Type *x = in_type(c, 0);
	ingot_clip_params *p = lower_params(c, &clip_desc);
	if (!x)
		return -1;
	p->dtype = x->dtype;
	p->n = type_numel(x);
	p->n_in = n->n_in;
	p->has_lo = a->min.n > 0;
	p->has_hi = a->max.n > 0;
	p->lo = (double)list_f(&a->min, 0);
	p->hi = (double)list_f(&a->max, 0);
	LOWER_CALL(c, ingot_clip, &clip_desc, p);
	c->kc.split = true;   /* tasks own disjoint outputs */
	return 0;
}

const OpImpl op_impl_clip = { sizeof(ClipAttrs), clip_fields, COUNTOF(clip_fields),
                              clip_import, clip_infer, clip_lower };

/* ---- identity (Identity, Dropout) ---- */

typedef struct IdentityAttrs {
	FloatList ratio;        /* Dropout < 12 attribute (default 0.5); n = -1 otherwise */
	IntList is_test;        /* Dropout < 7 attribute (default 0: training); n = -1 otherwise */
	FloatList seed;         /* Dropout >= 12 training seed; n = -1: none */
} IdentityAttrs;

static const AttrField identity_fields[] = {
	{ "ratio", AK_FLOATS, offsetof(IdentityAttrs, ratio), NULL },
	{ "is_test", AK_INTS, offsetof(IdentityAttrs, is_test), NULL },
	{ "seed", AK_FLOATS, offsetof(IdentityAttrs, seed), NULL },
};

static int identity_import(ImportCtx *c)
{
	IdentityAttrs *a = c->attrs;
	const Node *n = &c->g->nodes[c->node];
	float ratio;
	int64_t is_test;
	a->ratio.n = a->is_test.n = a->seed.n = -1;
	if (n->op != OP_DROPOUT)
		return 0;
	if (n->opset >= 12)
		return random_import_seed(c, &a->seed);
	if (import_float(c, "ratio", 0.5f, &ratio))
		return -1;
	set_float(&c->g->arena, &a->ratio, ratio);
	if (n->opset < 7) {
		if (import_int(c, "is_test", 0, &is_test))
			return -1;
		a->is_test.v = arena_alloc(&c->g->arena, sizeof *a->is_test.v);
		a->is_test.v[0] = is_test;
		a->is_test.n = 1;
	}
	return 0;
}

/* Reads a 1-element constant value as a double; false when it is not constant. */
static bool const_value(const Graph *g, ValueId v, double *out)
{
	const void *data = v == IR_NONE ? NULL : ir_const_data(g, v);
	const Type *t = data ? &g->values[v].type : NULL;
	Scalar s;
	if (!data || type_numel(t) != 1 || dtype_size(t->dtype) == 0 || dtype_size(t->dtype) > 8)
		return false;
	memset(&s, 0, sizeof s);
	s.dtype = t->dtype;
	memcpy(s.bytes, data, dtype_size(t->dtype));
	*out = scalar_to_f64(&s);
	return true;
}

/* Dropout's ratio when known at compile time (attribute, constant input or the
 * default 0.5); false when it is a run-time input. */
static bool dropout_ratio(const Graph *g, const Node *n, double *ratio)
{
	const IdentityAttrs *a = n->attrs;
	*ratio = 0.5;
	if (a->ratio.n > 0)
		*ratio = a->ratio.v[0];
	else if (n->n_in > 1 && n->in[1] != IR_NONE)
		return const_value(g, n->in[1], ratio);
	return true;
}

/* Whether Dropout may run in training mode (then it is random): opset < 7 with
 * is_test = 0, or opset >= 12 with a training_mode input that is not constant
 * false; never when the ratio is known to be 0. */
bool ops_dropout_training(const Graph *g, NodeId id)
{
	const Node *n = &g->nodes[id];
	const IdentityAttrs *a = n->attrs;
	double ratio, training = 1;
	if (n->op != OP_DROPOUT || !a)
		return false;
	if (n->opset < 7)
		training = a->is_test.n > 0 && a->is_test.v[0] == 0;
	else if (n->opset < 12 || n->n_in < 3 || n->in[2] == IR_NONE)
		return false;
	else if (!const_value(g, n->in[2], &training))
		training = 1;                    /* decided at run time */
	return training != 0 && !(dropout_ratio(g, n, &ratio) && ratio == 0);
}

static int dropout_infer(InferCtx *c)
{
	Node *n = infer_node(c);
	const Type *x = infer_in(c, 0);
	double ratio;
	if (infer_check_dtype(c, 0, dtl_float))
		return -1;
	if (n->opset < 12 && (infer_has(c, 1) || infer_has(c, 2)))
		return infer_fail(c, infer_has(c, 1) ? 1 : 2,
		                  "Dropout-%d takes its ratio as an attribute, not an input", n->opset);
	if (infer_has(c, 1)) {
		if (infer_check_dtype(c, 1, dtl_float))
			return -1;
		if (type_numel(infer_in(c, 1)) != 1)
			return infer_fail(c, 1, "expected a scalar ratio");
	}
	if (infer_has(c, 2)) {
		if (infer_in(c, 2)->dtype != DT_BOOL)
			return type_fail(c, 2, "bool");
		if (type_numel(infer_in(c, 2)) != 1)
			return infer_fail(c, 2, "expected a scalar training_mode");
	}
	if (ops_dropout_training(c->g, c->node) && dropout_ratio(c->g, n, &ratio) &&
	    !(ratio >= 0 && ratio < 1))
		return infer_fail(c, infer_has(c, 1) ? 1 : -1, "ratio %g is outside [0, 1)", ratio);
	*infer_out(c, 0) = plain_like(x->dtype, x);
	if (infer_out(c, 1))
		*infer_out(c, 1) = plain_like(n->opset >= 10 ? DT_BOOL : x->dtype, x);
	return 0;
}

static int identity_infer(InferCtx *c)
{
	const Type *x = infer_in(c, 0);
	if (infer_node(c)->op == OP_DROPOUT)
		return dropout_infer(c);
	if (x->dtype != DT_STRING && infer_check_dtype(c, 0, dtl_all_small))   /* copies slots */
		return -1;
	*infer_out(c, 0) = plain_like(x->dtype, x);
	return 0;
}

#define PARAM_STRUCT ingot_identity_params
static const ParamField identity_pfields[] = { INGOT_IDENTITY_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc identity_desc = PARAM_DESC(ingot_identity_params, identity_pfields);

/* ONNX's bit width of an element type (the 4- and 2-bit types take a byte each here) */
static int small_bits(DType t)
{
	if (t == DT_U4 || t == DT_I4 || t == DT_F4E2M1)
		return 4;
	if (t == DT_U2 || t == DT_I2)
		return 2;
	return 8 * (int)dtype_size(t);
}

static int identity_lower(LowerCtx *c)
{
	const Node *n = &c->g->nodes[c->node];
	const Type *x = in_type(c, 0), *mask = out_type(c, 1), *ratio = in_type(c, 1);
	if (!x)
		return -1;
	if (ops_dropout_training(c->g, c->node)) {
		const IdentityAttrs *a = n->attrs;
		double r;
		bool known = dropout_ratio(c->g, n, &r);
		return random_dropout_lower(c, known ? r : 0.5, n->opset < 7, &a->seed);
	}
	ingot_identity_params *p = lower_params(c, &identity_desc);
	p->n = type_numel(x);
	p->esize = (int64_t)dtype_size(x->dtype);
	p->n_in = n->n_in;
	p->n_out = n->n_out;
	p->mask_dtype = mask ? mask->dtype : DT_BOOL;
	p->ratio_dtype = ratio ? ratio->dtype : DT_F32;
	p->ratio = n->op == OP_DROPOUT ? 0.5f : 0.0f;
	p->bits = 0;
	p->sext = 0;
	if (n->op == OP_BIT_CAST && small_bits(out_type(c, 0)->dtype) < 8) {
		p->bits = small_bits(out_type(c, 0)->dtype);
		p->sext = out_type(c, 0)->dtype == DT_I4 || out_type(c, 0)->dtype == DT_I2;
	}
	LOWER_CALL(c, ingot_identity, &identity_desc, p);
	c->kc.split = true;   /* tasks own disjoint outputs */
	return 0;
}

const OpImpl op_impl_identity = { sizeof(IdentityAttrs), identity_fields,
                                  COUNTOF(identity_fields), identity_import, identity_infer,
                                  identity_lower };

/* ---- bitcast: BitCast (opset 26), the input's bits as element type `to` of the same
 * bit width (every type ingot carries, not string or complex: the 4-bit INT4/UINT4/FLOAT4E2M1 among themselves, the
 * 2-bit INT2/UINT2 likewise, one element per byte, the result's low bits kept and
 * sign-extended for INT4/INT2), copied by ingot_identity ---- */

typedef struct BitCastAttrs {
	int64_t to;   /* a DType of the input's bit width */
} BitCastAttrs;

static const AttrField bitcast_fields[] = {
	{ "to", AK_INT, offsetof(BitCastAttrs, to), NULL },
};

static int bitcast_import(ImportCtx *c)
{
	BitCastAttrs *a = c->attrs;
	if (import_int(c, "to", 0, &a->to))
		return -1;
	if (!dtype_is_valid((int)a->to) || a->to == DT_STRING)
		return import_fail(c, "to", "expected a numeric or bool element type, got %lld",
		                   (long long)a->to);
	return 0;
}

static const DType bitcast_types[] = { DT_F16, DT_F32, DT_F64, DT_BF16, DT_I8, DT_I16, DT_I32,
                                       DT_I64, DT_U8, DT_U16, DT_U32, DT_U64, DT_BOOL,
                                       DT_F8E4M3FN, DT_F8E4M3FNUZ, DT_F8E5M2, DT_F8E5M2FNUZ,
                                       DT_F8E8M0, DT_U4, DT_I4, DT_F4E2M1, DT_U2, DT_I2,
                                       DT_UNDEF };

static int bitcast_infer(InferCtx *c)
{
	const BitCastAttrs *a = infer_node(c)->attrs;
	const Type *x = infer_in(c, 0);
	const DType to = (DType)a->to;
	bool ok = false;
	if (infer_check_dtype(c, 0, bitcast_types))
		return -1;
	for (int i = 0; bitcast_types[i] != DT_UNDEF; i++)
		ok |= bitcast_types[i] == to;
	if (!ok || small_bits(to) != small_bits(x->dtype))
		return infer_fail_attr(c, "to", "expected a non-string element type of %d bits, "
		                       "got %s", small_bits(x->dtype), dtype_name(to));
	*infer_out(c, 0) = plain_like(to, x);
	return 0;
}

/* A copy of the bytes: Identity's lowering (ingot_identity; a BitCast is never a
 * training Dropout, and its one input and output make the mask and ratio unused). */
static int bitcast_lower(LowerCtx *c)
{
	return identity_lower(c);
}

const OpImpl op_impl_bitcast = { sizeof(BitCastAttrs), bitcast_fields, COUNTOF(bitcast_fields),
                                 bitcast_import, bitcast_infer, bitcast_lower };

/* ---- device_copy (CopyToDevice, CopyToHost): passes/place.c's transfers ---- */

/* The output is the input, in the other memory; on a CPU target a copy. */
static int device_copy_infer(InferCtx *c)
{
	const Type *x = infer_in(c, 0);
	if (infer_check_dtype(c, 0, dtl_all_small))
		return -1;
	*infer_out(c, 0) = plain_like(x->dtype, x);
	return 0;
}

static int device_copy_lower(LowerCtx *c)
{
	const Type *x = in_type(c, 0);
	if (!x)
		return -1;
	ingot_identity_params *p = lower_params(c, &identity_desc);
	p->n = type_numel(x);
	p->esize = (int64_t)dtype_size(x->dtype);
	p->n_in = 1;
	p->n_out = 1;
	p->mask_dtype = DT_BOOL;
	p->ratio_dtype = DT_F32;
	LOWER_CALL(c, ingot_identity, &identity_desc, p);
	c->kc.split = true;
	return 0;
}

const OpImpl op_impl_device_copy = { 0, NULL, 0, NULL, device_copy_infer, device_copy_lower };

/* ---- where ---- */

static int where_infer(InferCtx *c)
{
	const Type *ins[3] = { infer_in(c, 0), infer_in(c, 1), infer_in(c, 2) };
	Type out;
	if (ins[0]->dtype != DT_BOOL)
		return type_fail(c, 0, "bool");
	if (infer_check_dtype(c, 1, dtl_all) || infer_same_dtype(c, 1, 2))
		return -1;
	if (infer_bcast(c, ins, 3, &out))
		return -1;
	out.dtype = ins[1]->dtype;
	*infer_out(c, 0) = out;
	return 0;
}

#define PARAM_STRUCT ingot_where_params
static const ParamField where_pfields[] = { INGOT_WHERE_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc where_desc = PARAM_DESC(ingot_where_params, where_pfields);

static int where_lower(LowerCtx *c)
{
	const Type *ins[3] = { in_type(c, 0), in_type(c, 1), in_type(c, 2) }, *tout = out_type(c, 0);
	ingot_where_params *p = lower_params(c, &where_desc);
	Bcast b;
	if (!ins[0] || !ins[1] || !ins[2] || !tout)
		return -1;
	bcast_layout(tout, ins, 3, &b);
	p->esize = (int64_t)dtype_size(tout->dtype);
	p->n = type_numel(tout);
	p->rank = b.rank;
	memcpy(p->dims, b.dims, sizeof b.dims);
	bcast_strides(&b, 0, p->sc);
	bcast_strides(&b, 1, p->sx);
	bcast_strides(&b, 2, p->sy);
	LOWER_CALL(c, ingot_where, &where_desc, p);
	c->kc.split = true;   /* tasks own disjoint outputs */
	return 0;
}

const OpImpl op_impl_where = { 0, NULL, 0, NULL, where_infer, where_lower };
