/* onnx_function.c — frontend: model-local functions (ModelProto.functions, as newer
 * PyTorch exporters write them) are inlined before a graph's nodes are imported.
 *
 * A node whose (domain, op_type) names a function is replaced by the function's
 * nodes: formal inputs and outputs become the call's actual names (an omitted
 * actual input stays omitted), every other value gets the prefix "F#k/" (k counts
 * the calls of this load, so two calls never share a name), nodes are named
 * "<call node>/<inner node>" for diagnostics, and an attribute that refers to the
 * caller's (ref_attr_name) takes the caller's value, else the function's default
 * (FunctionProto.attribute_proto, field 11 of newer onnx.proto files, read from the
 * unknown fields), else it is left out so that the op's own default applies.
 * Inlined nodes run under the function's ai.onnx opset (its opset_import), or the
 * caller's when the function imports none. Calls inside a function are expanded in
 * turn, up to MAX_DEPTH (a recursive function is an error).
 *
 * The flat node list lives in the graph arena and shares strings and attribute
 * messages with the ModelProto, which outlives the import.
 */
#include "onnx_internal.h"

#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 32
/* FunctionProto fields after ONNX 1.12 */
#define FN_F_ATTRIBUTE_PROTO 11

struct OnnxFunction {
	const Onnx__FunctionProto *fp;
	Onnx__AttributeProto **defaults;   /* unpacked attribute_proto (malloc-owned) */
	size_t n_defaults;
	int opset;                         /* its ai.onnx opset; 0: the caller's */
};

static bool same_domain(const char *a, const char *b)
{
	bool da = !a || !a[0] || strcmp(a, "ai.onnx") == 0;
	bool db = !b || !b[0] || strcmp(b, "ai.onnx") == 0;
	if (da || db)
		return da && db;
	return strcmp(a, b) == 0;
}

const OnnxFunction *onnx_function_find(const Loader *L, const char *domain, const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < L->n_functions; i++) {
		const Onnx__FunctionProto *fp = L->functions[i].fp;
		if (strcmp(fp->name, name) == 0 && same_domain(fp->domain, domain))
			return &L->functions[i];
	}
	return NULL;
}

static DiagLoc fn_loc(const Loader *L, const Onnx__FunctionProto *fp)
{
	DiagLoc l = diag_loc_file(L->file);
	l.graph = arena_printf(&L->g->arena, "function %s", fp->name ? fp->name : "?");
	return l;
}

/* Reads the defaults (attribute_proto) out of the unknown fields; rejects the rest
 * that would change the meaning (overload). */
static int fn_read(Loader *L, const Onnx__FunctionProto *fp, OnnxFunction *f)
{
	DiagLoc loc = fn_loc(L, fp);
	const ProtobufCMessage *m = &fp->base;
	f->fp = fp;
	if (!fp->name || !fp->name[0])
		return onnx_fail(L, DC_PARSE, &loc, "function has no name");
	if (onnx_check_unknown(L, m, &loc))
		return -1;
	for (unsigned i = 0; i < m->n_unknown_fields; i++) {
		const ProtobufCMessageUnknownField *u = &m->unknown_fields[i];
		if (u->tag != FN_F_ATTRIBUTE_PROTO)
			continue;
		if (u->wire_type != PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED)
			return onnx_fail(L, DC_PARSE, &loc, "attribute_proto has wire type %d",
			                 (int)u->wire_type);
		/* protobuf-c keeps the length prefix in front of the payload */
		size_t at = 0, len = 0;
		unsigned shift = 0;
		while (at < u->len && shift < 64) {
			len |= (size_t)(u->data[at] & 0x7fu) << shift;
			shift += 7;
			if (!(u->data[at++] & 0x80u))
				break;
		}
		Onnx__AttributeProto *a = len == u->len - at
		                          ? onnx__attribute_proto__unpack(NULL, len, u->data + at) : NULL;
		if (!a)
			return onnx_fail(L, DC_PARSE, &loc, "malformed attribute_proto");
		Onnx__AttributeProto **d = realloc(f->defaults, (f->n_defaults + 1) * sizeof *d);
		if (!d)
			die("out of memory");
		f->defaults = d;
		f->defaults[f->n_defaults++] = a;
		if (!a->name || !a->name[0])
			return onnx_fail(L, DC_PARSE, &loc, "attribute_proto entry has no name");
	}
	for (size_t i = 0; i < fp->n_opset_import; i++) {
		const Onnx__OperatorSetIdProto *os = fp->opset_import[i];
		if (onnx_check_unknown(L, &os->base, &loc))
			return -1;
		if (os->domain && os->domain[0] && strcmp(os->domain, "ai.onnx") != 0)
			continue;
		if (!os->has_version || os->version < 1 || os->version > 100)
			return onnx_fail(L, DC_PARSE, &loc, "invalid ai.onnx opset version %lld",
			                 os->has_version ? (long long)os->version : 0LL);
		f->opset = (int)os->version;
	}
	return 0;
}

int onnx_functions_init(Loader *L, const Onnx__ModelProto *m)
{
	if (!m->n_functions)
		return 0;
	L->functions = calloc(m->n_functions, sizeof *L->functions);
	if (!L->functions)
		die("out of memory");
	for (size_t i = 0; i < m->n_functions; i++) {
		L->n_functions = i + 1;        /* so that free releases what was read */
		if (fn_read(L, m->functions[i], &L->functions[i]))
			return -1;
		for (size_t k = 0; k < i; k++) {
			const Onnx__FunctionProto *a = m->functions[k], *b = m->functions[i];
			if (strcmp(a->name, b->name) == 0 && same_domain(a->domain, b->domain)) {
				DiagLoc loc = fn_loc(L, b);
				return onnx_fail(L, DC_PARSE, &loc, "function '%s' of domain '%s' is defined "
				                 "twice", b->name, b->domain ? b->domain : "");
			}
		}
	}
	return 0;
}

void onnx_functions_free(Loader *L)
{
	for (size_t i = 0; i < L->n_functions; i++) {
		for (size_t k = 0; k < L->functions[i].n_defaults; k++)
			onnx__attribute_proto__free_unpacked(L->functions[i].defaults[k], NULL);
		free(L->functions[i].defaults);
	}
	free(L->functions);
	L->functions = NULL;
	L->n_functions = 0;
}

/* ---- expansion ---- */

typedef struct Flat {
	Loader *L;
	const char *graph_name;
	Onnx__NodeProto **nodes;
	int n, cap;
	int *opsets;
	int n_opsets, cap_opsets;
} Flat;

static void push(Flat *x, Onnx__NodeProto *n, int opset)
{
	*VEC_PUSH(x->nodes, x->n, x->cap) = n;
	*VEC_PUSH(x->opsets, x->n_opsets, x->cap_opsets) = opset;
}

/* One call being expanded: the function, the call node and the value prefix. */
typedef struct Call {
	const OnnxFunction *fn;
	const Onnx__NodeProto *node;
	const char *name;          /* the call node's name (diagnostics, inner node names) */
	const char *prefix;        /* "F#k/" for the function's own values */
} Call;

static int index_of(char *const *list, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] && strcmp(list[i], s) == 0)
			return (int)i;
	return -1;
}

/* The caller-side name of a name used inside the function body. */
static char *rename_value(Flat *x, const Call *c, const char *s)
{
	const Onnx__FunctionProto *fp = c->fn->fp;
	int i;
	if (!s || !s[0])
		return (char *)"";
	if ((i = index_of(fp->input, fp->n_input, s)) >= 0)
		return (size_t)i < c->node->n_input ? c->node->input[i] : (char *)"";
	if ((i = index_of(fp->output, fp->n_output, s)) >= 0 && (size_t)i < c->node->n_output &&
	    c->node->output[i] && c->node->output[i][0])
		return c->node->output[i];
	return arena_printf(&x->L->g->arena, "%s%s", c->prefix, s);
}

static const Onnx__AttributeProto *find_attr(Onnx__AttributeProto *const *list, size_t n,
                                              const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (list[i]->name && strcmp(list[i]->name, name) == 0)
			return list[i];
	return NULL;
}

static bool is_graph_attr(const Onnx__AttributeProto *a)
{
	return a->g || a->n_graphs || (a->has_type && (a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH ||
	       a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS));
}

/* The attributes of an inlined node: references resolved against the call. */
static int resolve_attrs(Flat *x, const Call *c, const Onnx__NodeProto *b, Onnx__NodeProto *nb,
                         const DiagLoc *loc)
{
	Arena *ar = &x->L->g->arena;
	nb->attribute = arena_array(ar, b->n_attribute ? b->n_attribute : 1, sizeof *nb->attribute);
	nb->n_attribute = 0;
	for (size_t k = 0; k < b->n_attribute; k++) {
		Onnx__AttributeProto *a = b->attribute[k];
		DiagLoc al = *loc;
		al.slot_kind = "attribute";
		al.tensor = a->name;
		if (!a->ref_attr_name || !a->ref_attr_name[0]) {
			if (is_graph_attr(a))
				return onnx_fail(x->L, DC_UNSUPPORTED, &al, "subgraph attributes inside "
				                 "function '%s' are not supported", c->fn->fp->name);
			nb->attribute[nb->n_attribute++] = a;
			continue;
		}
		const Onnx__AttributeProto *src =
			find_attr(c->node->attribute, c->node->n_attribute, a->ref_attr_name);
		if (!src)
			src = find_attr(c->fn->defaults, c->fn->n_defaults, a->ref_attr_name);
		if (!src)
			continue;              /* not given and no default: the op's default applies */
		if (is_graph_attr(src))
			return onnx_fail(x->L, DC_UNSUPPORTED, &al, "graph-valued attribute '%s' of "
			                 "function '%s' is not supported", a->ref_attr_name, c->fn->fp->name);
		Onnx__AttributeProto *cp = arena_alloc(ar, sizeof *cp);
		*cp = *src;
		cp->name = a->name;
		cp->ref_attr_name = NULL;
		nb->attribute[nb->n_attribute++] = cp;
	}
	return 0;
}

static int expand_node(Flat *x, Onnx__NodeProto *n, const char *name, int opset, int depth);

static int expand_call(Flat *x, const Call *c, int caller_opset, int depth)
{
	Loader *L = x->L;
	Arena *ar = &L->g->arena;
	const Onnx__FunctionProto *fp = c->fn->fp;
	const Onnx__NodeProto *call = c->node;
	DiagLoc loc = diag_loc_file(L->file);
	int opset = c->fn->opset ? c->fn->opset : caller_opset;
	loc.graph = x->graph_name;
	loc.node = c->name;
	loc.op_type = call->op_type;

	if (onnx_check_unknown(L, &call->base, &loc))
		return -1;
	if (depth >= MAX_DEPTH)
		return onnx_fail(L, DC_LIMIT, &loc, "function calls nest deeper than %d (is function "
		                 "'%s' recursive?)", MAX_DEPTH, fp->name);
	if (call->n_input > fp->n_input || call->n_output > fp->n_output)
		return onnx_fail(L, DC_PARSE, &loc, "has %zu inputs and %zu outputs, function '%s' "
		                 "takes %zu and %zu", call->n_input, call->n_output, fp->name,
		                 fp->n_input, fp->n_output);
	for (size_t k = 0; k < call->n_attribute; k++) {
		const char *an = call->attribute[k]->name ? call->attribute[k]->name : "";
		if (index_of(fp->attribute, fp->n_attribute, an) < 0 &&
		    !find_attr(c->fn->defaults, c->fn->n_defaults, an)) {
			DiagLoc al = loc;
			al.slot_kind = "attribute";
			al.tensor = an;
			return onnx_fail(L, DC_PARSE, &al, "function '%s' has no attribute '%s'",
			                 fp->name, an);
		}
	}
	for (size_t t = 0; t < fp->n_node; t++) {
		const Onnx__NodeProto *b = fp->node[t];
		DiagLoc bl = loc;
		Onnx__NodeProto *nb = arena_alloc(ar, sizeof *nb);
		onnx__node_proto__init(nb);
		const char *inner = b->name && b->name[0] ? b->name
		                    : arena_printf(ar, "%s_%zu", b->op_type ? b->op_type : "node", t);
		nb->name = arena_printf(ar, "%s/%s", c->name, inner);
		nb->op_type = b->op_type;
		nb->domain = b->domain;
		bl.node = nb->name;
		bl.op_type = b->op_type ? b->op_type : "?";
		if (onnx_check_unknown(L, &b->base, &bl))
			return -1;
		nb->n_input = b->n_input;
		nb->input = arena_array(ar, b->n_input ? b->n_input : 1, sizeof *nb->input);
		for (size_t k = 0; k < b->n_input; k++)
			nb->input[k] = rename_value(x, c, b->input[k]);
		nb->n_output = b->n_output;
		nb->output = arena_array(ar, b->n_output ? b->n_output : 1, sizeof *nb->output);
		for (size_t k = 0; k < b->n_output; k++) {
			if (b->output[k] && b->output[k][0] && index_of(fp->input, fp->n_input, b->output[k]) >= 0)
				return onnx_fail(L, DC_PARSE, &bl, "output '%s' redefines an input of function "
				                 "'%s'", b->output[k], fp->name);
			nb->output[k] = rename_value(x, c, b->output[k]);
		}
		if (resolve_attrs(x, c, b, nb, &bl) || expand_node(x, nb, nb->name, opset, depth + 1))
			return -1;
	}
	/* a formal output that is a formal input (or produced by no node) */
	for (size_t j = 0; j < call->n_output; j++) {
		const char *fo = fp->output[j], *act = call->output[j];
		bool made = false;
		if (!act || !act[0])
			continue;
		for (size_t t = 0; t < fp->n_node && !made; t++)
			made = index_of(fp->node[t]->output, fp->node[t]->n_output, fo) >= 0;
		if (made)
			continue;
		if (index_of(fp->input, fp->n_input, fo) < 0) {
			DiagLoc ol = loc;
			ol.slot_kind = "output";
			ol.slot = (int)j;
			return onnx_fail(L, DC_PARSE, &ol, "output '%s' of function '%s' is not produced by "
			                 "any of its nodes", fo, fp->name);
		}
		Onnx__NodeProto *id = arena_alloc(ar, sizeof *id);
		onnx__node_proto__init(id);
		id->name = arena_printf(ar, "%s/%s.identity", c->name, fo);
		id->op_type = (char *)"Identity";
		id->n_input = id->n_output = 1;
		id->input = arena_array(ar, 1, sizeof *id->input);
		id->output = arena_array(ar, 1, sizeof *id->output);
		id->input[0] = rename_value(x, c, fo);
		id->output[0] = (char *)act;
		push(x, id, opset);
	}
	return 0;
}

static int expand_node(Flat *x, Onnx__NodeProto *n, const char *name, int opset, int depth)
{
	const OnnxFunction *fn = onnx_function_find(x->L, n->domain, n->op_type);
	if (!fn) {
		push(x, n, opset);
		return 0;
	}
	Call c = { fn, n, name, NULL };
	c.prefix = arena_printf(&x->L->g->arena, "%s#%d/", fn->fp->name, ++x->L->n_fn_calls);
	return expand_call(x, &c, opset, depth);
}

int onnx_functions_expand(Loader *L, const Onnx__GraphProto *gp, const char *graph_name,
                          Onnx__GraphProto *out, int **opsets)
{
	bool any = false;
	*out = *gp;
	*opsets = NULL;
	for (size_t i = 0; i < gp->n_node && !any; i++)
		any = onnx_function_find(L, gp->node[i]->domain, gp->node[i]->op_type) != NULL;
	if (!any)
		return 0;
	Flat x;
	memset(&x, 0, sizeof x);
	x.L = L;
	x.graph_name = graph_name;
	int rc = 0;
	for (size_t i = 0; i < gp->n_node && rc == 0; i++) {
		Onnx__NodeProto *n = gp->node[i];
		const char *name = n->name && n->name[0]
		                   ? n->name : arena_printf(&L->g->arena, "%s_%zu", n->op_type, i);
		rc = expand_node(&x, n, name, L->opset, 0);
	}
	if (rc == 0) {
		Arena *ar = &L->g->arena;
		out->n_node = (size_t)x.n;
		out->node = arena_array(ar, x.n ? (size_t)x.n : 1, sizeof *out->node);
		*opsets = arena_array(ar, x.n ? (size_t)x.n : 1, sizeof **opsets);
		if (x.n) {
			memcpy(out->node, x.nodes, (size_t)x.n * sizeof *out->node);
			memcpy(*opsets, x.opsets, (size_t)x.n * sizeof **opsets);
		}
	}
	free(x.nodes);
	free(x.opsets);
	return rc;
}
