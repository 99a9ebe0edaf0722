/* text.c — string tensors in the op groups: the STRING side of Cast/CastLike
 * (text_cast_lower, called by elementwise.c and arith.c) and StringNormalizer,
 * lowered to runtime-stubs/kernels/text.c.
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
	lower_call(c, "ingot_cast_str", "text", ingot_cast_str, &cast_str_desc, p);
	return 0;
}

/* ---- StringNormalizer ---- */

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
	int64_t len = sw->n;
	Type t = type_make(DT_STRING, 1, &len);
	char *slots = arena_array(&g->arena, (size_t)len, INGOT_STRING_CAP);
	for (int i = 0; i < sw->n; i++) {
		size_t k = strlen(sw->strings[i]);
		if (k > INGOT_STRING_CAP - 1)
			return import_fail(c, "stopwords", "stopword %d has %zu bytes, at most %d fit a "
			                   "string slot (INGOT_STRING_CAP)", i, k, INGOT_STRING_CAP - 1);
		memcpy(slots + (size_t)i * INGOT_STRING_CAP, sw->strings[i], k);
	}
	const char *name = arena_printf(&g->arena, "%s.stopwords", ir_node_name(g, c->node));
	ValueId v = ir_value_new_const(g, n->region, name, &t, slots);
	n = &g->nodes[c->node];
	ValueId *in = arena_array(&g->arena, 2, sizeof *in);
	in[0] = n->in[0];
	in[1] = v;
	n->in = in;
	n->n_in = 2;
	return 0;
}

static int strnorm_infer(InferCtx *c)
{
	static const DType str_only[] = { DT_STRING, DT_UNDEF };
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
	lower_call(c, "ingot_strnorm", "text", ingot_strnorm, &strnorm_desc, p);
	return 0;
}

const OpImpl op_impl_string_normalizer = { sizeof(StrNormAttrs), strnorm_fields,
                                           COUNTOF(strnorm_fields), strnorm_import,
                                           strnorm_infer, strnorm_lower };
