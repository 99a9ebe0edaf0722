/* einsum.c — op group einsum: the equation parser, type inference and lowering to
 * ingot_einsum (runtime-stubs/kernels/arith.c).
 *
 * The equation is normalized at import (spaces dropped, an implicit output made
 * explicit: "..." first if any operand has one, then the labels used exactly once, in
 * ASCII order) and kept as its character codes. Infer and lower both build a Plan:
 * one index space holding every label (ellipsis dims become labels of their own, right
 * aligned across operands), output labels first. A label repeated in one operand
 * adds its strides (a diagonal); a size-1 dim against a larger extent broadcasts
 * (stride 0); labels missing from the output are summed.
 */
#include "opimpl.h"

#include <stdarg.h>
#include <string.h>

#include "arith.h"

#define ELLIPSIS_CHAR '.'       /* one '.' stands for "..." in the normalized equation */
#define N_LETTERS 52
#define MAX_LABELS (N_LETTERS + IR_MAX_RANK)

typedef struct EinsumAttrs {
	IntList equation;           /* character codes of the normalized equation */
} EinsumAttrs;

static const AttrField einsum_fields[] = {
	{ "equation", AK_INTS, offsetof(EinsumAttrs, equation), NULL },
};

static int letter_code(int ch)
{
	if (ch >= 'a' && ch <= 'z')
		return ch - 'a';
	if (ch >= 'A' && ch <= 'Z')
		return 26 + ch - 'A';
	return -1;
}

/* Normalizes src into dst (capacity cap): "..." becomes '.', the output is explicit.
 * Returns the length, or -1 with a message in err. */
static int normalize(const char *src, char *dst, int cap, const char **err)
{
	int n = 0, counts[N_LETTERS], has_arrow = 0, any_ellipsis = 0, term_ellipsis = 0;
	memset(counts, 0, sizeof counts);
	for (const char *s = src; *s; s++) {
		if (*s == ' ' || *s == '\t')
			continue;
		if (n + 2 >= cap) {
			*err = "equation too long";
			return -1;
		}
		if (s[0] == '.') {
			if (s[1] != '.' || s[2] != '.') {
				*err = "'.' outside an ellipsis \"...\"";
				return -1;
			}
			if (term_ellipsis) {
				*err = "more than one ellipsis in a term";
				return -1;
			}
			term_ellipsis = 1;
			any_ellipsis |= !has_arrow;
			dst[n++] = ELLIPSIS_CHAR;
			s += 2;
		} else if (s[0] == '-') {
			if (s[1] != '>' || has_arrow) {
				*err = "expected a single \"->\"";
				return -1;
			}
			has_arrow = 1;
			term_ellipsis = 0;
			dst[n++] = '-';
			dst[n++] = '>';
			s++;
		} else if (s[0] == ',') {
			if (has_arrow) {
				*err = "',' in the output";
				return -1;
			}
			term_ellipsis = 0;
			dst[n++] = ',';
		} else if (letter_code((unsigned char)*s) >= 0) {
			if (!has_arrow)
				counts[letter_code((unsigned char)*s)]++;
			dst[n++] = *s;
		} else {
			*err = "unexpected character (labels are letters a-z, A-Z)";
			return -1;
		}
	}
	if (!has_arrow) {                    /* implicit output */
		if (n + 3 + N_LETTERS >= cap) {
			*err = "equation too long";
			return -1;
		}
		dst[n++] = '-';
		dst[n++] = '>';
		if (any_ellipsis)
			dst[n++] = ELLIPSIS_CHAR;
		for (int ch = 'A'; ch <= 'z'; ch++)
			if (letter_code(ch) >= 0 && counts[letter_code(ch)] == 1)
				dst[n++] = (char)ch;
	}
	dst[n] = 0;
	return n;
}

static int einsum_import(ImportCtx *c)
{
	EinsumAttrs *a = c->attrs;
	const RawAttr *r = import_find(c, "equation");
	char buf[512];
	const char *err = NULL;
	if (!r)
		return import_fail(c, "equation", "required attribute is missing");
	if (r->kind != RA_STRING)
		return import_fail(c, "equation", "expected a string");
	int n = normalize(r->s, buf, (int)sizeof buf, &err);
	if (n < 0)
		return import_fail(c, "equation", "'%s': %s", r->s, err);
	a->equation.n = n;
	a->equation.v = arena_array(&c->g->arena, (size_t)n + 1, sizeof *a->equation.v);
	for (int i = 0; i < n; i++)
		a->equation.v[i] = (unsigned char)buf[i];
	return 0;
}

/* The contraction an equation and the input shapes describe. */
typedef struct Plan {
	int n_idx, n_out_idx;
	int64_t dims[INGOT_EINSUM_MAX_IDX];
	int64_t st[INGOT_EINSUM_MAX_IN][INGOT_EINSUM_MAX_IDX];
	int out_rank;
	int64_t out_dims[IR_MAX_RANK];
} Plan;

static int plan_fail(InferCtx *c, DiagCode code, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;
static int plan_fail(InferCtx *c, DiagCode code, const char *fmt, ...)
{
	DiagLoc l = ir_node_loc(c->g, c->node);
	va_list ap;
	va_start(ap, fmt);
	diag_vreport(c->diags, DIAG_ERROR, code, &l, fmt, ap);
	va_end(ap);
	return -1;
}

/* Labels: letters 0..51, ellipsis dim j (of the widest operand's ellipsis, right
 * aligned) N_LETTERS + j. Fills labels[k] for operand k, one per dim. */
static int build_plan(InferCtx *c, Plan *pl)
{
	const Node *node = infer_node(c);
	const EinsumAttrs *a = node->attrs;
	int n_in = node->n_in, k = 0, e_rank = 0;
	int labels[INGOT_EINSUM_MAX_IN][IR_MAX_RANK], out_labels[MAX_LABELS], n_out = 0;
	int slot[MAX_LABELS];
	int64_t extent[MAX_LABELS];
	const int64_t *eq = a->equation.v;
	int len = a->equation.n, pos = 0;
	memset(pl, 0, sizeof *pl);
	if (n_in > INGOT_EINSUM_MAX_IN)
		return plan_fail(c, DC_UNSUPPORTED, "%d operands; at most %d are supported", n_in,
		                 INGOT_EINSUM_MAX_IN);
	/* pass 1: the ellipsis rank of each operand, checked against the term */
	int e_of[INGOT_EINSUM_MAX_IN], has_e[INGOT_EINSUM_MAX_IN];
	for (k = 0; k < n_in; k++) {
		int letters = 0;
		has_e[k] = 0;
		for (; pos < len && eq[pos] != ',' && eq[pos] != '-'; pos++) {
			if (eq[pos] == ELLIPSIS_CHAR)
				has_e[k] = 1;
			else
				letters++;
		}
		const Type *t = infer_in(c, k);
		if (!t)
			return infer_fail(c, k, "missing");
		e_of[k] = t->rank - letters;
		if (e_of[k] < 0 || (!has_e[k] && e_of[k] != 0))
			return infer_fail(c, k, "rank %d does not match term %d of the equation (%d labels)",
			                  t->rank, k, letters);
		if (e_of[k] > e_rank)
			e_rank = e_of[k];
		if (k + 1 < n_in) {
			if (pos >= len || eq[pos] != ',')
				return plan_fail(c, DC_SHAPE, "the equation has %d input terms, the node %d "
				                 "inputs", k + 1, n_in);
			pos++;
		}
	}
	if (pos >= len || eq[pos] != '-')
		return plan_fail(c, DC_SHAPE, "the equation has more input terms than the node's %d "
		                 "inputs", n_in);
	int out_pos = pos + 2;
	/* pass 2: labels per dim */
	pos = 0;
	for (k = 0; k < n_in; k++, pos++) {
		int d = 0;
		for (; pos < len && eq[pos] != ',' && eq[pos] != '-'; pos++) {
			if (eq[pos] == ELLIPSIS_CHAR) {
				for (int j = 0; j < e_of[k]; j++)
					labels[k][d++] = N_LETTERS + e_rank - e_of[k] + j;
			} else {
				labels[k][d++] = letter_code((int)eq[pos]);
			}
		}
	}
	/* extents: equal, or 1 broadcasting against a larger one */
	for (int l = 0; l < MAX_LABELS; l++) {
		extent[l] = -1;
		slot[l] = -1;
	}
	for (k = 0; k < n_in; k++) {
		const Type *t = infer_in(c, k);
		for (int d = 0; d < t->rank; d++) {
			int l = labels[k][d];
			int64_t v = t->dims[d];
			if (extent[l] < 0 || extent[l] == 1)
				extent[l] = v;
			else if (v != extent[l] && v != 1)
				return infer_fail(c, k, "dim %d is %lld, but its label has extent %lld elsewhere",
				                  d, (long long)v, (long long)extent[l]);
		}
	}
	/* the output labels first, in order */
	for (pos = out_pos; pos < len; pos++) {
		if (eq[pos] == ELLIPSIS_CHAR) {
			for (int j = 0; j < e_rank; j++)
				out_labels[n_out++] = N_LETTERS + j;
			continue;
		}
		int l = letter_code((int)eq[pos]);
		if (l < 0 || extent[l] < 0)
			return plan_fail(c, DC_SHAPE, "output label '%c' does not appear in any input",
			                 (char)eq[pos]);
		if (slot[l] >= 0)
			return plan_fail(c, DC_SHAPE, "output label '%c' is repeated", (char)eq[pos]);
		slot[l] = n_out;
		out_labels[n_out++] = l;
	}
	if (n_out > IR_MAX_RANK)
		return plan_fail(c, DC_UNSUPPORTED, "output rank %d exceeds %d", n_out, IR_MAX_RANK);
	for (int i = 0; i < n_out; i++)
		slot[out_labels[i]] = i;
	pl->n_idx = pl->n_out_idx = pl->out_rank = n_out;
	for (int l = 0; l < MAX_LABELS; l++) {        /* then the summed ones */
		if (extent[l] < 0 || slot[l] >= 0)
			continue;
		if (pl->n_idx >= INGOT_EINSUM_MAX_IDX)
			break;
		slot[l] = pl->n_idx++;
	}
	for (int l = 0; l < MAX_LABELS; l++)
		if (extent[l] >= 0 && slot[l] < 0)
			return plan_fail(c, DC_UNSUPPORTED, "more than %d distinct indices",
			                 INGOT_EINSUM_MAX_IDX);
	for (int l = 0; l < MAX_LABELS; l++)
		if (slot[l] >= 0)
			pl->dims[slot[l]] = extent[l];
	for (int i = 0; i < n_out; i++)
		pl->out_dims[i] = extent[out_labels[i]];
	for (k = 0; k < n_in; k++) {
		const Type *t = infer_in(c, k);
		int64_t st = 1;
		for (int d = t->rank - 1; d >= 0; d--) {
			int l = labels[k][d];
			if (!(t->dims[d] == 1 && extent[l] != 1))
				pl->st[k][slot[l]] += st;
			st *= t->dims[d];
		}
	}
	return 0;
}

static int einsum_infer(InferCtx *c)
{
	const Node *n = infer_node(c);
	Plan pl;
	for (int i = 0; i < n->n_in; i++)
		if (infer_check_dtype(c, i, dtl_numeric) || infer_same_dtype(c, 0, i))
			return -1;
	if (build_plan(c, &pl))
		return -1;
	*infer_out(c, 0) = type_make(infer_in(c, 0)->dtype, pl.out_rank, pl.out_dims);
	return 0;
}

#define PARAM_STRUCT ingot_einsum_params
static const ParamField einsum_pfields[] = { INGOT_EINSUM_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc einsum_desc = PARAM_DESC(ingot_einsum_params, einsum_pfields);

static int einsum_lower(LowerCtx *c)
{
	const Node *n = &c->g->nodes[c->node];
	InferCtx ic = { c->g, c->node, NULL };
	DiagSink quiet;
	Plan pl;
	int rc;
	diag_sink_init(&quiet, NULL);
	ic.diags = &quiet;
	rc = build_plan(&ic, &pl);
	diag_sink_free(&quiet);
	if (rc || n->n_in < 1)
		return -1;
	ingot_einsum_params *p = lower_params(c, &einsum_desc);
	int64_t *st[INGOT_EINSUM_MAX_IN] = { p->st0, p->st1, p->st2, p->st3 };
	p->dtype = c->g->values[n->in[0]].type.dtype;
	p->n_in = n->n_in;
	p->n_idx = pl.n_idx;
	p->n_out_idx = pl.n_out_idx;
	memcpy(p->dims, pl.dims, sizeof pl.dims);
	for (int k = 0; k < n->n_in; k++)
		memcpy(st[k], pl.st[k], sizeof pl.st[k]);
	LOWER_CALL(c, ingot_einsum, &einsum_desc, p);
	return 0;
}

const OpImpl op_impl_einsum = { sizeof(EinsumAttrs), einsum_fields, COUNTOF(einsum_fields),
                                einsum_import, einsum_infer, einsum_lower };
