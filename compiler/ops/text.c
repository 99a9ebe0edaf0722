/* text.c — string tensors in the op groups: the STRING side of Cast/CastLike
 * (text_cast_lower, called by elementwise.c and arith.c), StringNormalizer,
 * StringConcat and StringSplit, lowered to runtime-stubs/kernels/text.c, and
 * RegexFullMatch (its pattern compiled by regex.c), lowered to kernels/regex.c.
 *
 * StringNormalizer's stopwords attribute becomes a constant string tensor that the
 * import appends as input 1, so the kernel reads them like any tensor and the
 * attribute struct stays numeric. Its output size depends on the data (stopwords
 * are dropped): the output gets the bound max(C, 1), is marked `dynamic`, and the
 * kernel reports the actual dims (indexing.c describes the convention). Case
 * changes and case-insensitive matching are ASCII only, whatever `locale` says.
 */
#include "opimpl.h"

#include <string.h>

#include "regex.h"
#include "text.h"

/* ---- Cast / CastLike with a STRING side ---- */

#define PARAM_STRUCT ingot_cast_str_params
static const ParamField cast_str_pfields[] = { INGOT_CAST_STR_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc cast_str_desc = PARAM_DESC(ingot_cast_str_params, cast_str_pfields);

int text_cast_lower(LowerCtx *c, DType from, DType to, int64_t n)
{
	ingot_cast_str_params *p = lower_params(c, &cast_str_desc);
	p->from = from;
	p->to = to;
	p->n = n;
	LOWER_CALL(c, ingot_cast_str, &cast_str_desc, p);
	return 0;
}

/* ---- StringNormalizer ---- */

void ops_append_const_input(ImportCtx *c, const char *what, DType dt, int64_t n, void *data)
{
	Graph *g = c->g;
	Node *nd = &g->nodes[c->node];
	Type t = type_make(dt, 1, &n);
	const char *name = arena_printf(&g->arena, "%s.%s", ir_node_name(g, c->node), what);
	ValueId v = ir_value_new_const(g, nd->region, name, &t, data);
	nd = &g->nodes[c->node];
	ValueId *in = arena_array(&g->arena, (size_t)nd->n_in + 1, sizeof *in);
	memcpy(in, nd->in, (size_t)nd->n_in * sizeof *in);
	in[nd->n_in] = v;
	nd->in = in;
	nd->n_in++;
}

char *ops_str_slots(ImportCtx *c, const char *attr, const char *const *s, int n)
{
	char *slots = arena_array(&c->g->arena, (size_t)(n ? n : 1), INGOT_STRING_CAP);
	for (int i = 0; i < n; i++) {
		size_t k = strlen(s[i]);
		if (k > INGOT_STRING_CAP - 1) {
			import_fail(c, attr, "string %d has %zu bytes, at most %d fit a string slot "
			            "(INGOT_STRING_CAP)", i, k, INGOT_STRING_CAP - 1);
			return NULL;
		}
		memcpy(slots + (size_t)i * INGOT_STRING_CAP, s[i], k);
	}
	return slots;
}

typedef struct StrNormAttrs {
	int action;                 /* INGOT_CASE_*: case_change_action */
	int64_t case_sensitive;     /* is_case_sensitive, default 0 */
} StrNormAttrs;

static const char *const case_names[] = { "NONE", "LOWER", "UPPER", NULL };

static const AttrField strnorm_fields[] = {
	{ "case_change_action", AK_ENUM, offsetof(StrNormAttrs, action), case_names },
	{ "is_case_sensitive", AK_INT, offsetof(StrNormAttrs, case_sensitive), NULL },
};

static int strnorm_import(ImportCtx *c)
{
	StrNormAttrs *a = c->attrs;
	Graph *g = c->g;
	Node *n = &g->nodes[c->node];
	const RawAttr *sw = import_find(c, "stopwords");
	if (import_enum(c, "case_change_action", case_names, INGOT_CASE_NONE, &a->action) ||
	    import_int(c, "is_case_sensitive", 0, &a->case_sensitive))
		return -1;
	a->case_sensitive = a->case_sensitive != 0;
	if (import_find(c, "locale") && import_find(c, "locale")->kind != RA_STRING)
		return import_fail(c, "locale", "expected a string");
	if (n->n_in != 1)
		return import_fail(c, NULL, "StringNormalizer takes 1 input, got %d", n->n_in);
	if (!sw || sw->n == 0)
		return 0;
	if (sw->kind != RA_STRINGS)
		return import_fail(c, "stopwords", "expected strings");
	char *slots = ops_str_slots(c, "stopwords", sw->strings, sw->n);
	if (!slots)
		return -1;
	ops_append_const_input(c, "stopwords", DT_STRING, sw->n, slots);
	return 0;
}

static const DType str_only[] = { DT_STRING, DT_UNDEF };

static int strnorm_infer(InferCtx *c)
{
	const Type *x = infer_in(c, 0);
	if (infer_check_dtype(c, 0, str_only) || (infer_has(c, 1) && infer_check_dtype(c, 1, str_only)))
		return -1;
	if (infer_has(c, 1) && infer_in(c, 1)->rank != 1)
		return infer_fail(c, 1, "stopwords must be 1-D, got rank %d", infer_in(c, 1)->rank);
	if (!(x->rank == 1 || (x->rank == 2 && x->dims[0] == 1)))
		return infer_fail(c, 0, "expected shape [C] or [1, C], got rank %d%s", x->rank,
		                  x->rank == 2 ? " with a first dim other than 1" : "");
	int64_t bound = x->dims[x->rank - 1] > 0 ? x->dims[x->rank - 1] : 1;
	Type *y = infer_out(c, 0);
	if (!y)
		return 0;
	*y = *x;
	y->dims[y->rank - 1] = bound;
	c->g->values[infer_node(c)->out[0]].dynamic = true;
	return 0;
}

#define PARAM_STRUCT ingot_strnorm_params
static const ParamField strnorm_pfields[] = { INGOT_STRNORM_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc strnorm_desc = PARAM_DESC(ingot_strnorm_params, strnorm_pfields);

static int strnorm_lower(LowerCtx *c)
{
	const Node *n = &c->g->nodes[c->node];
	const StrNormAttrs *a = n->attrs;
	const Type *x = &c->g->values[n->in[0]].type;
	ingot_strnorm_params *p = lower_params(c, &strnorm_desc);
	p->n = type_numel(x);
	p->n_stop = n->n_in > 1 && n->in[1] != IR_NONE ? type_numel(&c->g->values[n->in[1]].type) : 0;
	p->action = a->action;
	p->case_sensitive = a->case_sensitive;
	p->two_dim = x->rank == 2;
	LOWER_CALL(c, ingot_strnorm, &strnorm_desc, p);
	return 0;
}

const OpImpl op_impl_string_normalizer = { sizeof(StrNormAttrs), strnorm_fields,
                                           COUNTOF(strnorm_fields), strnorm_import,
                                           strnorm_infer, strnorm_lower };

/* ---- StringConcat ---- */

/* Constant inputs: a result that cannot fit a slot is an error here, naming the
 * element, rather than the kernel's INGOT_ERANGE when folding. */
static int concat_check_const(InferCtx *c, const Type *y)
{
	const char *a = infer_const(c, 0), *b = infer_const(c, 1);
	int64_t sa[IR_MAX_RANK], sb[IR_MAX_RANK], n = type_numel(y);
	if (!a || !b)
		return 0;
	ops_bcast_strides(y, infer_in(c, 0), sa);
	ops_bcast_strides(y, infer_in(c, 1), sb);
	for (int64_t i = 0; i < n; i++) {
		int64_t rem = i, oa = 0, ob = 0;
		for (int d = y->rank - 1; d >= 0; d--) {
			oa += rem % y->dims[d] * sa[d];
			ob += rem % y->dims[d] * sb[d];
			rem /= y->dims[d];
		}
		size_t len = ingot_str_len(a + oa * INGOT_STRING_CAP) + ingot_str_len(b + ob * INGOT_STRING_CAP);
		if (len > INGOT_STRING_CAP - 1)
			return infer_fail(c, -1, "element %lld of the result has %zu bytes, at most %d fit a "
			                  "string slot (INGOT_STRING_CAP)", (long long)i, len, INGOT_STRING_CAP - 1);
	}
	return 0;
}

static int concat_infer(InferCtx *c)
{
	const Type *a = infer_in(c, 0), *b = infer_in(c, 1);
	Type *y = infer_out(c, 0), t;
	char s1[96], s2[96];
	if (infer_check_dtype(c, 0, str_only) || infer_check_dtype(c, 1, str_only))
		return -1;
	if (!type_broadcast(a, b, &t))
		return infer_fail(c, 1, "shape %s is not broadcastable with %s",
		                  type_format(b, s2, sizeof s2), type_format(a, s1, sizeof s1));
	t.dtype = DT_STRING;
	if (y)
		*y = t;
	return concat_check_const(c, &t);
}

#define PARAM_STRUCT ingot_str_concat_params
static const ParamField concat_pfields[] = { INGOT_STR_CONCAT_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc concat_desc = PARAM_DESC(ingot_str_concat_params, concat_pfields);

/* The params of a broadcast over two string inputs (StringConcat, Equal), or NULL. */
static ingot_str_concat_params *str_bcast_params(LowerCtx *c)
{
	const Type *y = lower_out(c, 0);
	if (!y)
		return NULL;
	ingot_str_concat_params *p = lower_params(c, &concat_desc);
	p->n = type_numel(y);
	p->rank = y->rank;
	memcpy(p->dims, y->dims, sizeof p->dims);
	ops_bcast_strides(y, lower_in(c, 0), p->sa);
	ops_bcast_strides(y, lower_in(c, 1), p->sb);
	c->kc.split = true;   /* tasks own disjoint outputs */
	return p;
}

static int concat_lower(LowerCtx *c)
{
	ingot_str_concat_params *p = str_bcast_params(c);
	if (!p)
		return -1;
	LOWER_CALL(c, ingot_str_concat, &concat_desc, p);
	return 0;
}

int ops_str_equal_lower(LowerCtx *c)
{
	ingot_str_concat_params *p = str_bcast_params(c);
	if (!p)
		return -1;
	LOWER_CALL(c, ingot_str_equal, &concat_desc, p);
	return 0;
}

const OpImpl op_impl_string_concat = { 0, NULL, 0, NULL, concat_infer, concat_lower };

/* ---- StringSplit ---- */

/* The delimiter attribute becomes a one-slot constant string input (slot 1) when it
 * is not empty; maxsplit < 0 (or absent) means no limit. */
typedef struct SplitAttrs {
	int64_t maxsplit;
} SplitAttrs;

static const AttrField split_fields[] = {
	{ "maxsplit", AK_INT, offsetof(SplitAttrs, maxsplit), NULL },
};

static int split_import(ImportCtx *c)
{
	SplitAttrs *a = c->attrs;
	const RawAttr *d = import_find(c, "delimiter");
	if (import_int(c, "maxsplit", -1, &a->maxsplit))
		return -1;
	if (a->maxsplit < 0)
		a->maxsplit = -1;
	if (c->g->nodes[c->node].n_in != 1)
		return import_fail(c, NULL, "StringSplit takes 1 input, got %d", c->g->nodes[c->node].n_in);
	if (!d || (d->kind == RA_STRING && d->s[0] == '\0'))
		return 0;
	if (d->kind != RA_STRING)
		return import_fail(c, "delimiter", "expected a string");
	size_t k = strlen(d->s);
	if (k > INGOT_STRING_CAP - 1)
		return import_fail(c, "delimiter", "%zu bytes, at most %d fit a string slot "
		                   "(INGOT_STRING_CAP)", k, INGOT_STRING_CAP - 1);
	char *slot = arena_alloc(&c->g->arena, INGOT_STRING_CAP);
	memcpy(slot, d->s, k);
	ops_append_const_input(c, "delimiter", DT_STRING, 1, slot);
	return 0;
}

/* The most pieces a string of a slot can split into (text.h). */
static int64_t split_bound(const SplitAttrs *a, size_t delim_len)
{
	int64_t b = delim_len ? (INGOT_STRING_CAP - 1) / (int64_t)delim_len + 1 : INGOT_STRING_CAP / 2;
	return a->maxsplit >= 0 && a->maxsplit < b - 1 ? a->maxsplit + 1 : b;
}

static int split_infer(InferCtx *c)
{
	const SplitAttrs *a = infer_node(c)->attrs;
	const Type *x = infer_in(c, 0);
	const char *delim = infer_has(c, 1) ? infer_const(c, 1) : NULL;
	Type *y = infer_out(c, 0), *z = infer_out(c, 1);
	if (infer_check_dtype(c, 0, str_only))
		return -1;
	if (x->rank >= IR_MAX_RANK)
		return infer_fail(c, 0, "rank %d: the pieces need one more dim, at most %d in all",
		                  x->rank, IR_MAX_RANK);
	if (infer_has(c, 1) && (!delim || infer_in(c, 1)->dtype != DT_STRING))
		return infer_fail(c, 1, "expected the constant delimiter");
	if (z) {
		*z = *x;
		z->dtype = DT_I64;
	}
	if (y) {
		*y = *x;
		y->dims[y->rank++] = split_bound(a, delim ? ingot_str_len(delim) : 0);
		c->g->values[infer_node(c)->out[0]].dynamic = true;
		return infer_eval_dynamic(c);
	}
	return 0;
}

#define PARAM_STRUCT ingot_str_split_params
static const ParamField split_pfields[] = { INGOT_STR_SPLIT_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc split_desc = PARAM_DESC(ingot_str_split_params, split_pfields);

static int split_lower(LowerCtx *c)
{
	const Node *n = &c->g->nodes[c->node];
	const SplitAttrs *a = n->attrs;
	const Type *x = lower_in(c, 0), *y = lower_out(c, 0);
	ingot_str_split_params *p = lower_params(c, &split_desc);
	p->n = type_numel(x);
	p->rank = x->rank;
	memcpy(p->in_dims, x->dims, (size_t)x->rank * sizeof *x->dims);
	p->bound = y ? y->dims[y->rank - 1] : 0;
	p->maxsplit = a->maxsplit;
	p->has_delim = n->n_in > 1 && n->in[1] != IR_NONE;
	p->has_z = n->n_out > 1 && n->out[1] != IR_NONE;
	p->dims_slot = y && c->g->values[n->out[0]].dynamic ? n->n_out : -1;
	LOWER_CALL(c, ingot_str_split, &split_desc, p);
	return 0;
}

const OpImpl op_impl_string_split = { sizeof(SplitAttrs), split_fields, COUNTOF(split_fields),
                                      split_import, split_infer, split_lower };

/* ---- RegexFullMatch ---- */

/* The pattern is compiled at import (regex.c) into an int32 program that becomes
 * constant input 1; a pattern that is not valid RE2 fails there, naming the node. */
static int regex_import(ImportCtx *c)
{
	const RawAttr *pat = import_find(c, "pattern");
	char err[256];
	int32_t *prog;
	int64_t n_words;
	int rc;
	if (c->g->nodes[c->node].n_in != 1)
		return import_fail(c, NULL, "RegexFullMatch takes 1 input, got %d", c->g->nodes[c->node].n_in);
	if (!pat)
		return import_fail(c, "pattern", "required attribute is missing");
	if (pat->kind != RA_STRING)
		return import_fail(c, "pattern", "expected a string");
	rc = regex_compile(&c->g->arena, pat->s, &prog, &n_words, err, sizeof err);
	if (rc == -2) {
		DiagLoc l = ir_node_loc(c->g, c->node);
		l.slot_kind = "attribute";
		l.tensor = "pattern";
		diag_report(c->diags, DIAG_ERROR, DC_UNSUPPORTED, &l, "%s", err);
		return -1;
	}
	if (rc)
		return import_fail(c, "pattern", "invalid RE2 pattern: %s", err);
	ops_append_const_input(c, "pattern", DT_I32, n_words, prog);
	return 0;
}

static int regex_infer(InferCtx *c)
{
	static const DType i32_only[] = { DT_I32, DT_UNDEF };
	Type *y = infer_out(c, 0);
	if (infer_check_dtype(c, 0, str_only))
		return -1;
	if (!infer_has(c, 1) || !infer_const(c, 1) || infer_check_dtype(c, 1, i32_only))
		return infer_fail(c, 1, "expected the compiled pattern (set at import)");
	if (y) {
		*y = *infer_in(c, 0);
		y->dtype = DT_BOOL;
	}
	return 0;
}

#define PARAM_STRUCT ingot_regex_params
static const ParamField regex_pfields[] = { INGOT_REGEX_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc regex_desc = PARAM_DESC(ingot_regex_params, regex_pfields);

static int regex_lower(LowerCtx *c)
{
	const Node *n = &c->g->nodes[c->node];
	const int32_t *prog = ir_const_data(c->g, n->in[1]);
	ingot_regex_params *p = lower_params(c, &regex_desc);
	if (!prog)
		return -1;
	p->n = type_numel(lower_in(c, 0));
	p->prog_words = type_numel(lower_in(c, 1));
	LOWER_CALL(c, ingot_regex_full_match, &regex_desc, p);
	c->kc.scratch_bytes = 4 * (int64_t)sizeof(int32_t) * (p->prog_words > 1 ? prog[1] : 0);
	c->kc.split = true;   /* tasks own disjoint outputs, each with its own scratch */
	return 0;
}

const OpImpl op_impl_regex_full_match = { 0, NULL, 0, regex_import, regex_infer, regex_lower };
