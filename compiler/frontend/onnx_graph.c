/* onnx_graph.c — frontend: a GraphProto → one IR region. Inputs (typed, or
 * constants when they have an initializer or a --bind), initializers, Constant
 * nodes (which become constant values, not nodes), one IR node per other ONNX node
 * with its attributes typed by the op group, and the outputs in ONNX order.
 *
 * Unsupported ops are all collected in a first pass over the nodes, so the user
 * sees the whole list at once; the second pass stops at the first error, because
 * later nodes would only repeat it as undefined inputs.
 *
 * The graph attributes of If, Loop and Scan become nested regions, imported while
 * their node is: names resolve in the region first, then in the enclosing ones
 * (outer-scope references). Every body output is made a distinct value produced by
 * a node of its body (an Identity where it names an input, a constant or an outer
 * value), so a body function can write its results straight into its caller's
 * buffers and an inlined branch can hand its producers over to the If's outputs.
 */
#include "onnx_internal.h"
#include "opimpl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct GraphImport {
	Loader *L;
	const Onnx__GraphProto *gp;
	RegionId r;
	NameMap names;             /* every value defined so far in this region */
	const char **synth;        /* per node: its synthesized name, made once */
	struct GraphImport *parent;/* the enclosing graph of a body, NULL for the main graph */
	const char *graph_name;    /* a body's name for diagnostics ("If_0.then_branch") */
	const int *opsets;         /* per node: ai.onnx opset of an inlined function's node;
	                              NULL: all run under the model's */
	Onnx__GraphProto flat;     /* gp with function calls inlined (gp points here) */
} GraphImport;

static int import_graph(Loader *L, const Onnx__GraphProto *gp, RegionId r, GraphImport *parent,
                        const char *graph_name);

/* A name in this graph's scope: its own values, then the enclosing graphs'. */
static ValueId lookup(const GraphImport *gi, const char *name)
{
	for (; gi; gi = gi->parent) {
		ValueId v = onnx_names_get(&gi->names, name);
		if (v != IR_NONE)
			return v;
	}
	return IR_NONE;
}

/* Room for the graph's values (one per input, initializer and node: most nodes have one
 * output) and nodes up front: doubling the arrays from 8 copied them a dozen times (a
 * third of importing a 3*10^5-node Sum tree). Each counted entry's decoded message is
 * bigger than its Value or Node, so a hostile count costs no more than decoding it did. */
static void reserve_ir(Graph *g, const Onnx__GraphProto *gp)
{
	size_t vals = gp->n_input + gp->n_initializer + gp->n_node;
	if (vals < (size_t)INT32_MAX / 4 - (size_t)g->n_values) {
		vec_reserve((void **)&g->values, &g->cap_values, g->n_values + (int)vals, sizeof *g->values);
		vec_reserve((void **)&g->nodes, &g->cap_nodes, g->n_nodes + (int)gp->n_node, sizeof *g->nodes);
	}
}

/* Ops whose graph attributes ingot imports as nested regions. */
static bool has_bodies(const char *op_type)
{
	Op op = ir_op_lookup(op_type);
	return op == OP_IF || op == OP_LOOP || op == OP_SCAN || op == OP_SEQUENCE_MAP ||
	       op == OP_FLEX_ATTENTION;
}

/* The ONNX node name, or "<OpType>_<index>" for an unnamed node (deterministic). */
static const char *node_name(GraphImport *gi, size_t i)
{
	const Onnx__NodeProto *n = gi->gp->node[i];
	if (n->name && n->name[0])
		return n->name;
	if (!gi->synth[i])
		gi->synth[i] = arena_printf(&gi->L->g->arena, "%s_%zu",
		                            n->op_type && n->op_type[0] ? n->op_type : "node", i);
	return gi->synth[i];
}

static DiagLoc node_loc(GraphImport *gi, size_t i)
{
	DiagLoc l = diag_loc_file(gi->L->file);
	l.node = node_name(gi, i);
	l.op_type = gi->gp->node[i]->op_type && gi->gp->node[i]->op_type[0]
	            ? gi->gp->node[i]->op_type : "?";
	if (gi->graph_name)
		l.graph = gi->graph_name;
	return l;
}

static bool is_default_domain(const char *d)
{
	return !d || !d[0] || strcmp(d, "ai.onnx") == 0;
}

static bool is_ml_domain(const char *d)
{
	return d && strcmp(d, "ai.onnx.ml") == 0;
}

/* Whether op (ir_op_lookup's answer, OP_COUNT if none) is one of ingot's ai.onnx.ml ops
 * (OPF_ML): those live only there. */
static bool is_ml_op(Op op)
{
	return op < OP_COUNT && op_has(op, OPF_ML);
}

/* The optimizers Adagrad, Adam and Momentum live in ai.onnx.preview.training, FlexAttention
 * in ai.onnx.preview (version 1 only, so the node's ai.onnx opset does not matter for
 * them); no other op there is known. The ai.onnx.ml ops (OPF_ML) live in ai.onnx.ml, and
 * no ai.onnx op does. */
static bool is_known_domain(const char *d, const char *op_type, Op op)
{
	if (is_default_domain(d))
		return !is_ml_op(op);
	if (is_ml_domain(d))
		return is_ml_op(op);
	if (strcmp(d, "ai.onnx.preview") == 0)
		return op_type && strcmp(op_type, "FlexAttention") == 0;
	return strcmp(d, "ai.onnx.preview.training") == 0 && op_type &&
	       (strcmp(op_type, "Adagrad") == 0 || strcmp(op_type, "Adam") == 0 ||
	        strcmp(op_type, "Momentum") == 0);
}

static Onnx__AttributeProto__AttributeType attr_type(const Onnx__AttributeProto *a)
{
	if (a->has_type)
		return a->type;
	/* IR version 1 had no type field: the field that is set tells */
	if (a->has_f) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
	if (a->has_i) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
	if (a->has_s) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
	if (a->t) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR;
	if (a->g) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH;
	if (a->n_floats) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS;
	if (a->n_ints) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
	if (a->n_strings) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS;
	return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED;
}

static const char *attr_type_name(Onnx__AttributeProto__AttributeType t)
{
	const ProtobufCEnumValue *v =
		protobuf_c_enum_descriptor_get_value(&onnx__attribute_proto__attribute_type__descriptor, (int)t);
	return v ? v->name : "?";
}

/* ---- pass 1: is every node something we can import? ---- */

static int check_node(GraphImport *gi, size_t i)
{
	Loader *L = gi->L;
	const Onnx__NodeProto *n = gi->gp->node[i];
	DiagLoc loc = node_loc(gi, i);

	if (onnx_check_unknown(L, &n->base, &loc))
		return -1;
	if (!n->op_type || !n->op_type[0])
		return onnx_fail(L, DC_PARSE, &loc, "node has no op_type");
	Op op = ir_op_lookup(n->op_type);   /* once: it scans the op names */
	if (is_default_domain(n->domain) && is_ml_op(op))
		return onnx_fail(L, DC_UNSUPPORTED, &loc, "unsupported op '%s' of domain 'ai.onnx' "
		                 "(%s is an ai.onnx.ml op)", n->op_type, n->op_type);
	if (!is_known_domain(n->domain, n->op_type, op))
		return onnx_fail(L, DC_UNSUPPORTED, &loc, "unsupported op '%s' of domain '%s' (%s)",
		                 n->op_type, n->domain, L->n_functions
		                 ? "no model-local function has this domain and name"
		                 : "the model defines no local functions");
	if (strcmp(n->op_type, "Constant") != 0 && op >= OP_FIRST_INTERNAL)
		return onnx_fail(L, DC_UNSUPPORTED, &loc, "unsupported op '%s'", n->op_type);
	int rc = 0;
	for (size_t k = 0; k < n->n_attribute; k++) {
		const Onnx__AttributeProto *a = n->attribute[k];
		Onnx__AttributeProto__AttributeType t = attr_type(a);
		loc.slot_kind = "attribute";
		loc.tensor = a->name;
		if (t == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH && has_bodies(n->op_type) && a->g) {
			/* the body's unsupported ops are listed with the rest */
			GraphImport sub;
			int *opsets;
			memset(&sub, 0, sizeof sub);
			sub.L = L;
			sub.parent = gi;
			sub.graph_name = arena_printf(&L->g->arena, "%s.%s", loc.node, a->name ? a->name : "");
			if (onnx_functions_expand(L, a->g, sub.graph_name, &sub.flat, &opsets)) {
				rc = -1;
				continue;
			}
			sub.gp = &sub.flat;
			sub.synth = arena_array(&L->g->arena, sub.gp->n_node ? sub.gp->n_node : 1, sizeof *sub.synth);
			for (size_t j = 0; j < sub.gp->n_node; j++)
				if (check_node(&sub, j))
					rc = -1;
		} else if (t == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH ||
		           t == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS) {
			return onnx_fail(L, DC_UNSUPPORTED, &loc, "subgraph attributes of %s are not "
			                 "supported", n->op_type);
		}
	}
	return rc;
}

/* ---- pass 2: values and nodes ---- */

/* Registers a new value name; a second definition of one name is an error. */
static int define(GraphImport *gi, const char *name, ValueId v, const DiagLoc *loc, const char *what)
{
	if (onnx_names_get(&gi->names, name) != IR_NONE)
		return onnx_fail(gi->L, DC_PARSE, loc, "%s '%s' is already defined (value names must "
		                 "be unique)", what, name);
	onnx_names_put(&gi->names, gi->L->g->values[v].name, v);
	return 0;
}

static int constant_node(GraphImport *gi, size_t i)
{
	Loader *L = gi->L;
	const Onnx__NodeProto *n = gi->gp->node[i];
	DiagLoc loc = node_loc(gi, i);
	const Onnx__AttributeProto *a;
	ValueId v = IR_NONE;

	if (n->n_output != 1 || !n->output[0] || !n->output[0][0])
		return onnx_fail(L, DC_PARSE, &loc, "Constant needs exactly one named output");
	if (n->n_input != 0)
		return onnx_fail(L, DC_PARSE, &loc, "Constant takes no inputs, got %zu", n->n_input);
	if (n->n_attribute != 1)
		return onnx_fail(L, DC_PARSE, &loc, "Constant needs exactly one value attribute, got %zu",
		                 n->n_attribute);
	a = n->attribute[0];
	const char *an = a->name ? a->name : "";
	const char *out = n->output[0];
	Onnx__AttributeProto__AttributeType t = attr_type(a);
	loc.slot_kind = "attribute";
	loc.tensor = an;
	if (onnx_names_get(&gi->names, out) != IR_NONE)
		return onnx_fail(L, DC_PARSE, &loc, "output '%s' is already defined (value names must "
		                 "be unique)", out);

	if (strcmp(an, "value") == 0 && t == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR && a->t) {
		v = onnx_tensor_import(L, a->t, gi->r, out, &loc);
	} else if (strcmp(an, "value_float") == 0 && t == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT) {
		Type ty = type_make(DT_F32, 0, NULL);
		v = onnx_const_new(L, gi->r, out, &ty, &a->f, &loc);
	} else if (strcmp(an, "value_int") == 0 && t == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT) {
		Type ty = type_make(DT_I64, 0, NULL);
		v = onnx_const_new(L, gi->r, out, &ty, &a->i, &loc);
	} else if (strcmp(an, "value_floats") == 0 && t == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS) {
		int64_t len = (int64_t)a->n_floats;
		Type ty = type_make(DT_F32, 1, &len);
		v = onnx_const_new(L, gi->r, out, &ty, a->floats, &loc);
	} else if (strcmp(an, "value_ints") == 0 && t == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS) {
		int64_t len = (int64_t)a->n_ints;
		Type ty = type_make(DT_I64, 1, &len);
		v = onnx_const_new(L, gi->r, out, &ty, a->ints, &loc);
	} else if ((strcmp(an, "value_string") == 0 && t == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING) ||
	           (strcmp(an, "value_strings") == 0 && t == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS)) {
		/* as a STRING TensorProto: the one place that fills string slots */
		Onnx__TensorProto tp = ONNX__TENSOR_PROTO__INIT;
		int64_t len = (int64_t)a->n_strings;
		bool one = an[12] == '\0';
		ProtobufCBinaryData s1 = a->s;
		tp.has_data_type = true;
		tp.data_type = DT_STRING;
		tp.n_dims = one ? 0 : 1;
		tp.dims = &len;
		tp.n_string_data = one ? 1 : a->n_strings;
		tp.string_data = one ? &s1 : a->strings;
		v = onnx_tensor_import(L, &tp, gi->r, out, &loc);
	} else if (strcmp(an, "sparse_value") == 0) {
		return onnx_fail(L, DC_UNSUPPORTED, &loc, "sparse constants are not supported");
	} else {
		return onnx_fail(L, DC_PARSE, &loc, "not a valid Constant value attribute (type %s)",
		                 attr_type_name(t));
	}
	if (v == IR_NONE)
		return -1;
	return define(gi, out, v, &loc, "output");
}

/* Copies one AttributeProto into a RawAttr (arena-owned). */
static int raw_attr(GraphImport *gi, size_t node_i, const Onnx__AttributeProto *a, RawAttr *ra)
{
	Loader *L = gi->L;
	Arena *ar = &L->g->arena;
	DiagLoc loc = node_loc(gi, node_i);
	Onnx__AttributeProto__AttributeType t = attr_type(a);

	loc.slot_kind = "attribute";
	loc.tensor = a->name;
	memset(ra, 0, sizeof *ra);
	ra->tensor = IR_NONE;
	ra->graph = IR_NONE;
	if (onnx_check_unknown(L, &a->base, &loc))
		return -1;
	if (!a->name || !a->name[0])
		return onnx_fail(L, DC_PARSE, &loc, "attribute has no name");
	if (a->ref_attr_name && a->ref_attr_name[0])
		return onnx_fail(L, DC_PARSE, &loc, "attribute references (ref_attr_name) are only "
		                 "valid inside functions");
	ra->name = arena_strdup(ar, a->name);
	switch (t) {
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT:
		ra->kind = RA_FLOAT;
		ra->f = a->f;
		return 0;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT:
		ra->kind = RA_INT;
		ra->i = a->i;
		return 0;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING: {
		char *s = arena_alloc(ar, a->s.len + 1);
		if (a->s.len)
			memcpy(s, a->s.data, a->s.len);
		ra->kind = RA_STRING;
		ra->s = s;
		return 0;
	}
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS: {
		if (a->n_floats > INT32_MAX)
			return onnx_fail(L, DC_LIMIT, &loc, "too many elements");
		float *f = arena_array(ar, a->n_floats, sizeof *f);
		if (a->n_floats)
			memcpy(f, a->floats, a->n_floats * sizeof *f);
		ra->kind = RA_FLOATS;
		ra->floats = f;
		ra->n = (int)a->n_floats;
		return 0;
	}
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS: {
		if (a->n_ints > INT32_MAX)
			return onnx_fail(L, DC_LIMIT, &loc, "too many elements");
		int64_t *v = arena_array(ar, a->n_ints, sizeof *v);
		if (a->n_ints)
			memcpy(v, a->ints, a->n_ints * sizeof *v);
		ra->kind = RA_INTS;
		ra->ints = v;
		ra->n = (int)a->n_ints;
		return 0;
	}
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS: {
		if (a->n_strings > INT32_MAX)
			return onnx_fail(L, DC_LIMIT, &loc, "too many elements");
		const char **v = arena_array(ar, a->n_strings, sizeof *v);
		for (size_t k = 0; k < a->n_strings; k++) {
			char *s = arena_alloc(ar, a->strings[k].len + 1);
			if (a->strings[k].len)
				memcpy(s, a->strings[k].data, a->strings[k].len);
			v[k] = s;
		}
		ra->kind = RA_STRINGS;
		ra->strings = v;
		ra->n = (int)a->n_strings;
		return 0;
	}
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR: {
		if (!a->t)
			return onnx_fail(L, DC_PARSE, &loc, "tensor attribute has no tensor");
		/* a constant outside the name map: no ONNX value can refer to it */
		const char *nm = arena_printf(ar, "%s.%s", node_name(gi, node_i), a->name);
		ra->kind = RA_TENSOR;
		ra->tensor = onnx_tensor_import(L, a->t, gi->r, nm, &loc);
		return ra->tensor == IR_NONE ? -1 : 0;
	}
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH:
		if (a->g && has_bodies(gi->gp->node[node_i]->op_type)) {
			const char *nm = arena_printf(ar, "%s.%s", node_name(gi, node_i), a->name);
			ra->kind = RA_GRAPH;
			ra->graph = ir_region_new(L->g, gi->r, nm);
			return import_graph(L, a->g, ra->graph, gi, L->g->regions[ra->graph].name);
		}
		/* fall through */
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTO:
		/* Optional's `type`: only the element type of the tensors matters */
		if (a->tp) {
			ra->kind = RA_INT;
			ra->i = onnx_type_elem(a->tp);
			return 0;
		}
		/* fall through */
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS:
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSORS:
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSOR:
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSORS:
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTOS:
		return onnx_fail(L, DC_UNSUPPORTED, &loc, "%s attributes are not supported",
		                 attr_type_name(t));
	default:
		return onnx_fail(L, DC_PARSE, &loc, "attribute has no value or an unknown type %d",
		                 (int)t);
	}
}

/* Whether a later node produces `name` (for a clearer undefined-input message). */
static bool produced_later(const GraphImport *gi, size_t i, const char *name)
{
	for (size_t k = i + 1; k < gi->gp->n_node; k++)
		for (size_t o = 0; o < gi->gp->node[k]->n_output; o++)
			if (gi->gp->node[k]->output[o] && strcmp(gi->gp->node[k]->output[o], name) == 0)
				return true;
	return false;
}

static const char *arity(int lo, int hi, char *buf, size_t cap)
{
	if (hi == lo)
		snprintf(buf, cap, "%d", lo);
	else if (hi < 0)
		snprintf(buf, cap, "at least %d", lo);
	else
		snprintf(buf, cap, "%d to %d", lo, hi);
	return buf;
}

static int op_node(GraphImport *gi, size_t i)
{
	Loader *L = gi->L;
	Graph *g = L->g;
	const Onnx__NodeProto *n = gi->gp->node[i];
	DiagLoc loc = node_loc(gi, i);
	Op op = ir_op_lookup(n->op_type);
	const OpInfo *info = op_info(op);
	size_t n_in = n->n_input, n_out = n->n_output;
	int opset = gi->opsets ? gi->opsets[i] : L->opset;

	/* an ai.onnx.ml node goes by the model's ai.onnx.ml opset */
	if (is_ml_domain(n->domain)) {
		if (!L->ml_opset)
			return onnx_fail(L, DC_PARSE, &loc, "the model imports no ai.onnx.ml opset for "
			                 "this %s node", n->op_type);
		opset = L->ml_opset;
	}

	/* an op used below the opset that introduced it (op_since.c): not a valid model,
	 * and no version of the op to follow */
	if (is_default_domain(n->domain) && opset > 0 && opset < ir_op_since(op))
		return onnx_fail(L, DC_PARSE, &loc, "%s exists from opset %d; the model imports ai.onnx "
		                 "opset %d", n->op_type, ir_op_since(op), opset);

	/* trailing omitted optional inputs and outputs may simply be absent; a control
	 * node keeps all its outputs, which pair with its body's */
	while (n_in && (!n->input[n_in - 1] || !n->input[n_in - 1][0]))
		n_in--;
	while (n_out && (!n->output[n_out - 1] || !n->output[n_out - 1][0]) && !has_bodies(n->op_type))
		n_out--;
	char want[48];
	if ((int64_t)n_in < info->min_in || (info->max_in >= 0 && (int64_t)n_in > info->max_in))
		return onnx_fail(L, DC_PARSE, &loc, "has %zu inputs, expected %s", n_in,
		                 arity(info->min_in, info->max_in, want, sizeof want));
	if (n_out == 0 || (int64_t)n_out < info->min_out ||
	    (info->max_out >= 0 && (int64_t)n_out > info->max_out))
		return onnx_fail(L, DC_PARSE, &loc, "has %zu outputs, expected %s", n_out,
		                 arity(info->min_out, info->max_out, want, sizeof want));

	ValueId *in = arena_array(&g->arena, n_in ? n_in : 1, sizeof *in);
	ValueId *out = arena_array(&g->arena, n_out, sizeof *out);
	for (size_t k = 0; k < n_in; k++) {
		const char *nm = n->input[k];
		in[k] = IR_NONE;
		if (!nm || !nm[0])
			continue;
		in[k] = lookup(gi, nm);
		if (in[k] == IR_NONE) {
			loc.slot_kind = "input";
			loc.slot = (int)k;
			loc.tensor = nm;
			return onnx_fail(L, DC_PARSE, &loc, "%s", produced_later(gi, i, nm)
			                 ? "used before the node that produces it (nodes are not "
			                   "topologically sorted)"
			                 : "not defined by any node, input or initializer");
		}
	}
	for (size_t k = 0; k < n_out; k++) {
		const char *nm = n->output[k];
		out[k] = IR_NONE;
		if (!nm || !nm[0])
			continue;
		out[k] = ir_value_new(g, gi->r, nm, NULL);
		loc.slot_kind = "output";
		loc.slot = (int)k;
		if (define(gi, nm, out[k], &loc, "output"))
			return -1;
	}

	RawAttr *raw = arena_array(&g->arena, n->n_attribute ? n->n_attribute : 1, sizeof *raw);
	for (size_t k = 0; k < n->n_attribute; k++) {
		if (raw_attr(gi, i, n->attribute[k], &raw[k]))
			return -1;
		for (size_t j = 0; j < k; j++)
			if (strcmp(raw[j].name, raw[k].name) == 0) {
				DiagLoc al = node_loc(gi, i);
				al.slot_kind = "attribute";
				al.tensor = raw[k].name;
				return onnx_fail(L, DC_PARSE, &al, "attribute given twice");
			}
	}
	NodeId id = ir_node_new(g, gi->r, op, opset, in, (int)n_in, out, (int)n_out,
	                        node_name(gi, i));
	return ops_import_attrs(g, id, raw, (int)n->n_attribute, L->d);
}

/* ---- inputs, initializers, outputs ---- */

static int import_inputs(GraphImport *gi, const NameMap *inits)
{
	Loader *L = gi->L;
	const Onnx__GraphProto *gp = gi->gp;
	int rc = 0;
	NameMap seen;

	onnx_names_init(&seen);
	for (size_t i = 0; i < gp->n_input; i++) {
		const Onnx__ValueInfoProto *vi = gp->input[i];
		DiagLoc loc = diag_loc_file(L->file);
		loc.slot_kind = "input";
		loc.slot = (int)i;
		if (!vi->name || !vi->name[0]) {
			rc = onnx_fail(L, DC_PARSE, &loc, "graph input has no name");
			continue;
		}
		loc.slot = -1;
		loc.tensor = vi->name;
		if (onnx_names_get(&seen, vi->name) != IR_NONE) {
			rc = onnx_fail(L, DC_PARSE, &loc, "graph input listed twice");
			continue;
		}
		onnx_names_put(&seen, vi->name, 0);
		/* an initializer makes it a constant (its default), unless --bind overrides */
		if (onnx_names_get(inits, vi->name) != IR_NONE && !onnx_input_is_bound(L, vi->name))
			continue;
		ValueId v = onnx_input_import(L, vi, gi->r);
		if (v == IR_NONE) {
			rc = -1;
			continue;
		}
		onnx_names_put(&gi->names, L->g->values[v].name, v);
	}
	onnx_names_free(&seen);
	return rc;
}

/* A body's inputs: typed by inference from the control node's inputs; a declared
 * element type (and a declared static shape) is kept for checking. */
static int import_body_inputs(GraphImport *gi)
{
	Loader *L = gi->L;
	const Onnx__GraphProto *gp = gi->gp;
	for (size_t i = 0; i < gp->n_input; i++) {
		const Onnx__ValueInfoProto *vi = gp->input[i];
		const Onnx__TypeProto *tp = vi->type;
		DiagLoc loc = diag_loc_file(L->file);
		Type ty = type_make(DT_UNDEF, 0, NULL);
		loc.graph = gi->graph_name;
		loc.slot_kind = "input";
		loc.slot = (int)i;
		if (onnx_check_unknown(L, &vi->base, &loc))
			return -1;
		if (!vi->name || !vi->name[0])
			return onnx_fail(L, DC_PARSE, &loc, "body input has no name");
		loc.slot = -1;
		loc.tensor = vi->name;
		if (tp && tp->value_case != ONNX__TYPE_PROTO__VALUE__NOT_SET &&
		    tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE &&
		    tp->value_case != ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE &&
		    tp->value_case != ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE)
			return onnx_fail(L, DC_UNSUPPORTED, &loc, "body inputs that are maps or sparse "
			                 "tensors are not supported");
		if (tp && tp->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE) {
			const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
			const Onnx__TensorShapeProto *sp = tt->shape;
			if (tt->has_elem_type && tt->elem_type != 0 &&
			    onnx_dtype_check(L, tt->elem_type, &loc, &ty.dtype))
				return -1;
			if (sp && sp->n_dim <= IR_MAX_RANK) {
				bool fixed = true;
				for (size_t k = 0; k < sp->n_dim; k++) {
					fixed &= sp->dim[k]->value_case ==
					         ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
					         sp->dim[k]->dim_value >= 0;
					if (fixed)
						ty.dims[k] = sp->dim[k]->dim_value;
				}
				if (fixed)
					ty.rank = (int)sp->n_dim;
				else
					memset(ty.dims, 0, sizeof ty.dims);
			}
		}
		ValueId v = ir_value_new(L->g, gi->r, vi->name, &ty);
		if (define(gi, vi->name, v, &loc, "body input"))
			return -1;
		ir_region_add_input(L->g, gi->r, v);
	}
	return 0;
}

static int import_initializers(GraphImport *gi)
{
	Loader *L = gi->L;
	const Onnx__GraphProto *gp = gi->gp;
	for (size_t i = 0; i < gp->n_initializer; i++) {
		const Onnx__TensorProto *t = gp->initializer[i];
		DiagLoc loc = diag_loc_file(L->file);
		loc.slot_kind = "initializer";
		loc.tensor = t->name;
		/* a bound graph input replaces its initializer */
		if (onnx_names_get(&gi->names, t->name) != IR_NONE)
			continue;
		ValueId v = onnx_tensor_import(L, t, gi->r, t->name, &loc);
		if (v == IR_NONE)
			return -1;
		onnx_names_put(&gi->names, L->g->values[v].name, v);
	}
	return 0;
}

/* A body output must be a distinct value produced by a node of the body: an input,
 * a constant, an outer value or a repeated output gets an Identity. */
static ValueId body_output(GraphImport *gi, ValueId v, size_t i)
{
	Graph *g = gi->L->g;
	const Value *val = &g->values[v];
	const Region *reg = &g->regions[gi->r];
	bool own = val->producer != IR_NONE && g->nodes[val->producer].region == gi->r &&
	           !val->is_output;
	for (int k = 0; k < reg->n_outputs && own; k++)
		own = reg->outputs[k] != v;
	if (own)
		return v;
	const char *name = arena_printf(&g->arena, "%s.yield%zu", val->name, i);
	ValueId out = ir_value_new(g, gi->r, name, NULL);
	NodeId id = ir_node_new(g, gi->r, OP_IDENTITY, gi->L->opset, &v, 1, &out, 1, name);
	if (ops_import_attrs(g, id, NULL, 0, gi->L->d))
		die("Identity takes no attributes");
	return out;
}

static int import_outputs(GraphImport *gi)
{
	Loader *L = gi->L;
	const Onnx__GraphProto *gp = gi->gp;
	DiagLoc loc = diag_loc_file(L->file);
	if (gp->n_output == 0)
		return onnx_fail(L, DC_PARSE, &loc, "graph has no outputs");
	for (size_t i = 0; i < gp->n_output; i++) {
		const Onnx__ValueInfoProto *vi = gp->output[i];
		loc.slot_kind = "output";
		loc.slot = (int)i;
		loc.tensor = NULL;
		if (!vi->name || !vi->name[0])
			return onnx_fail(L, DC_PARSE, &loc, "graph output has no name");
		loc.slot = -1;
		loc.tensor = vi->name;
		if (onnx_check_unknown(L, &vi->base, &loc))
			return -1;
		ValueId v = lookup(gi, vi->name);
		if (v == IR_NONE)
			return onnx_fail(L, DC_PARSE, &loc, "graph output is not produced by any node, "
			                 "input or initializer");
		if (gi->parent) {
			v = body_output(gi, v, i);
			ir_region_add_output(L->g, gi->r, v);
			continue;
		}
		/* keep a declared element type until inference sets the real one */
		Value *val = &L->g->values[v];
		const Onnx__TypeProto *tp = vi->type;
		if (val->producer != IR_NONE && val->type.dtype == DT_UNDEF && tp &&
		    tp->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE && tp->tensor_type->has_elem_type &&
		    dtype_is_valid(tp->tensor_type->elem_type))
			val->type.dtype = (DType)tp->tensor_type->elem_type;
		if (val->producer != IR_NONE && L->g->nodes[val->producer].op == OP_IMAGE_DECODER) {
			int rank;
			int64_t dims[IR_MAX_RANK];
			if (onnx_output_bound(L, vi, &loc, &rank, dims))
				return -1;
			if (rank >= 0 && rank != 3)
				return onnx_fail(L, DC_SHAPE, &loc, "an ImageDecoder's image has rank 3, the "
				                 "model declares rank %d", rank);
			if (rank == 3)
				ops_imgdec_set_bound(L->g, val->producer, dims[0], dims[1]);
		}
		ir_region_add_output(L->g, gi->r, v);
	}
	return 0;
}

int onnx_graph_import(Loader *L, const Onnx__GraphProto *gp, RegionId r)
{
	return import_graph(L, gp, r, NULL, NULL);
}

static int import_graph(Loader *L, const Onnx__GraphProto *gp, RegionId r, GraphImport *parent,
                        const char *graph_name)
{
	GraphImport gi;
	NameMap inits;
	DiagLoc loc = diag_loc_file(L->file);
	int rc = -1, unsupported = 0;

	memset(&gi, 0, sizeof gi);
	gi.L = L;
	gi.r = r;
	gi.parent = parent;
	gi.graph_name = graph_name;
	onnx_names_init(&gi.names);
	onnx_names_init(&inits);

	if (onnx_check_unknown(L, &gp->base, &loc))
		goto out;
	int *opsets;
	if (onnx_functions_expand(L, gp, graph_name, &gi.flat, &opsets))
		goto out;
	gi.opsets = opsets;
	gp = gi.gp = &gi.flat;
	gi.synth = arena_array(&L->g->arena, gp->n_node ? gp->n_node : 1, sizeof *gi.synth);
	reserve_ir(L->g, gp);
	if (gp->n_sparse_initializer) {
		onnx_fail(L, DC_UNSUPPORTED, &loc, "sparse initializers are not supported");
		goto out;
	}
	for (size_t i = 0; i < gp->n_initializer; i++) {
		const char *nm = gp->initializer[i]->name;
		loc.slot_kind = "initializer";
		loc.slot = nm && nm[0] ? -1 : (int)i;
		loc.tensor = nm && nm[0] ? nm : NULL;
		if (!nm || !nm[0]) {
			onnx_fail(L, DC_PARSE, &loc, "initializer has no name");
			goto out;
		}
		if (onnx_names_get(&inits, nm) != IR_NONE) {
			onnx_fail(L, DC_PARSE, &loc, "initializer defined twice");
			goto out;
		}
		onnx_names_put(&inits, nm, (ValueId)i);
	}
	if ((parent ? import_body_inputs(&gi) : import_inputs(&gi, &inits)) || import_initializers(&gi))
		goto out;

	for (size_t i = 0; i < gp->n_node && !parent; i++)
		if (check_node(&gi, i))
			unsupported++;
	if (unsupported)
		goto out;
	for (size_t i = 0; i < gp->n_node; i++) {
		const char *op = gp->node[i]->op_type;
		if (strcmp(op, "Constant") == 0 ? constant_node(&gi, i) : op_node(&gi, i))
			goto out;
	}
	rc = import_outputs(&gi);
out:
	onnx_names_free(&gi.names);
	onnx_names_free(&inits);
	return rc;
}
