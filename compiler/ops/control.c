/* control.c — op groups if_else, loop and scan: attributes (the bodies become the
 * node's nested regions), inference into the bodies, and the layout of the node's
 * own workspace buffers (control.h). There is no kernel: the C target emits each
 * body as a function and the node as a loop or branch around its calls.
 *
 * Shapes stay static. An If whose condition is a compile-time constant is inlined:
 * the chosen branch's nodes move into the enclosing region. An If whose branches
 * give different shapes has a dynamic output bounded by their elementwise maximum.
 * A Loop's scan outputs need the trip count M at compile time; when the condition
 * can stop the loop earlier, they are dynamic with M as the bound. Loop-carried
 * values and Scan states must keep their shape across iterations. */
#include "control.h"
#include "graph_rewrite.h"
#include "shape.h"

#include <stdarg.h>
#include <string.h>

static const AttrField scan_fields[] = {
	{ "num_scan_inputs", AK_INT, offsetof(CtrlAttrs, num_scan_inputs), NULL },
	{ "scan_input_axes", AK_INTS, offsetof(CtrlAttrs, scan_input_axes), NULL },
	{ "scan_input_directions", AK_INTS, offsetof(CtrlAttrs, scan_input_directions), NULL },
	{ "scan_output_axes", AK_INTS, offsetof(CtrlAttrs, scan_output_axes), NULL },
	{ "scan_output_directions", AK_INTS, offsetof(CtrlAttrs, scan_output_directions), NULL },
};

/* ---- regions ---- */

bool ctrl_region_within(const Graph *g, RegionId r, RegionId root)
{
	for (; r != IR_NONE; r = g->regions[r].parent)
		if (r == root)
			return true;
	return false;
}

/* ---- import ---- */

static int import_body(ImportCtx *c, const char *name, int slot)
{
	const RawAttr *a = import_find(c, name);
	Node *n = &c->g->nodes[c->node];
	if (!a)
		return import_fail(c, name, "required subgraph attribute is missing");
	if (a->kind != RA_GRAPH || a->graph == IR_NONE)
		return import_fail(c, name, "expected a graph");
	n->bodies[slot] = a->graph;
	return 0;
}

static void import_common(ImportCtx *c, int n_bodies)
{
	CtrlAttrs *a = c->attrs;
	Node *n = &c->g->nodes[c->node];
	a->scan_input_axes.n = a->scan_input_directions.n = -1;
	a->scan_output_axes.n = a->scan_output_directions.n = -1;
	a->trip = -1;
	a->batch = 1;
	a->ws_off = -1;
	n->bodies = arena_array(&c->g->arena, (size_t)n_bodies, sizeof *n->bodies);
	n->n_bodies = n_bodies;
	for (int i = 0; i < n_bodies; i++)
		n->bodies[i] = IR_NONE;
}

static int if_import(ImportCtx *c)
{
	import_common(c, 2);
	if (import_body(c, "then_branch", 0) || import_body(c, "else_branch", 1))
		return -1;
	return 0;
}

static int loop_import(ImportCtx *c)
{
	import_common(c, 1);
	return import_body(c, "body", 0);
}

static int scan_import(ImportCtx *c)
{
	CtrlAttrs *a = c->attrs;
	const Node *n = &c->g->nodes[c->node];
	import_common(c, 1);
	if (import_body(c, "body", 0))
		return -1;
	if (!import_find(c, "num_scan_inputs"))
		return import_fail(c, "num_scan_inputs", "required attribute is missing");
	if (import_int(c, "num_scan_inputs", 0, &a->num_scan_inputs))
		return -1;
	if (a->num_scan_inputs < 1 || a->num_scan_inputs > 1024)
		return import_fail(c, "num_scan_inputs", "expected 1 to 1024, got %lld",
		                   (long long)a->num_scan_inputs);
	if (n->opset < 9)
		return import_ints(c, "directions", &a->scan_input_directions);
	if (import_ints(c, "scan_input_axes", &a->scan_input_axes) ||
	    import_ints(c, "scan_input_directions", &a->scan_input_directions) ||
	    import_ints(c, "scan_output_axes", &a->scan_output_axes) ||
	    import_ints(c, "scan_output_directions", &a->scan_output_directions))
		return -1;
	return 0;
}

/* ---- inference helpers ---- */

static const char *body_attr(const Node *n, int k)
{
	if (n->op == OP_IF)
		return k == 0 ? "then_branch" : "else_branch";
	return "body";
}

static int body_fail(InferCtx *c, int k, const char *fmt, ...)
{
	DiagLoc l = ir_node_loc(c->g, c->node);
	va_list ap;
	l.slot_kind = "attribute";
	l.tensor = body_attr(infer_node(c), k);
	va_start(ap, fmt);
	diag_vreport(c->diags, DIAG_ERROR, DC_SHAPE, &l, fmt, ap);
	va_end(ap);
	return -1;
}


static Type plain(const Type *t)
{
	return type_make(t->dtype, t->rank, t->dims);
}

/* Types body input k as t; a declared element type must agree. */
static int set_body_input(InferCtx *c, int body, int k, const Type *t)
{
	Graph *g = c->g;
	const Region *br = &g->regions[infer_node(c)->bodies[body]];
	Value *v = &g->values[br->inputs[k]];
	if (v->type.dtype != DT_UNDEF && v->type.dtype != t->dtype)
		return body_fail(c, body, "body input %d '%s' is declared %s, but receives %s", k,
		                 v->name, dtype_name(v->type.dtype), dtype_name(t->dtype));
	v->type = plain(t);
	return 0;
}

/* A 1-element type for a body's iteration number or condition: the declared shape
 * when it is one element ([] or [1]), else a scalar. */
static Type one_elem(const Graph *g, ValueId v, DType dt)
{
	const Type *d = &g->values[v].type;
	if (d->rank <= 1 && type_numel(d) == 1)
		return type_make(dt, d->rank, d->dims);
	return type_make(dt, 0, NULL);
}

static int check_body_output(InferCtx *c, int body, int k)
{
	Graph *g = c->g;
	const Region *br = &g->regions[infer_node(c)->bodies[body]];
	const Value *v = &g->values[br->outputs[k]];
	if (v->dynamic)
		return infer_unsupported(c, "body output %d '%s' has a data-dependent size: not supported "
		                   "inside control flow", k, v->name);
	return 0;
}

static bool is_scalar_of(const Type *t, DType dt)
{
	return t->dtype == dt && type_numel(t) == 1;
}

/* ---- If ---- */

/* Replaces every use of `from` in region r and its nested regions by `to`. */
static void replace_uses(Graph *g, RegionId r, ValueId from, ValueId to)
{
	Region *reg = &g->regions[r];
	for (int i = 0; i < reg->n_nodes; i++) {
		Node *n = &g->nodes[reg->nodes[i]];
		for (int k = 0; k < n->n_in; k++)
			if (n->in[k] == from)
				n->in[k] = to;
		for (int b = 0; b < n->n_bodies; b++)
			replace_uses(g, n->bodies[b], from, to);
	}
	for (int i = 0; i < reg->n_outputs; i++)
		if (reg->outputs[i] == from)
			reg->outputs[i] = to;
}

/* The condition is a constant: the chosen branch (already inferred) moves into the
 * If's region right after it, its results take over the If's output values (so
 * their names and consumers stay), and the If and the other branch die. */
static int if_inline(InferCtx *c, int pick)
{
	Graph *g = c->g;
	NodeId id = c->node;
	RegionId b = g->nodes[id].bodies[pick], r = g->nodes[id].region;
	Region *br = &g->regions[b];
	Region *rr = &g->regions[r];
	int pos = 0, m;

	for (int k = 0; k < g->nodes[id].n_out; k++) {
		ValueId bv = br->outputs[k], v = g->nodes[id].out[k];
		Value *src = &g->values[bv];
		if (v == IR_NONE)
			continue;
		if (src->seq) {   /* a sequence: its elements are values of the branch */
			g->values[v].type = src->type;
			g->values[v].seq = src->seq;
			g->values[v].producer = IR_NONE;
			continue;
		}
		/* the frontend makes every body output a distinct value produced in the body */
		NodeId p = src->producer;
		IR_ASSERT(p != IR_NONE && g->nodes[p].region == b);
		g->values[v].type = src->type;
		g->values[v].dynamic = src->dynamic;
		g->nodes[p].out[src->producer_slot] = v;
		g->values[v].producer = p;
		g->values[v].producer_slot = src->producer_slot;
		replace_uses(g, b, bv, v);
		src->producer = IR_NONE;
		src->is_output = false;
	}
	for (int k = 0; k < br->n_outputs; k++)
		g->values[br->outputs[k]].is_output = false;
	br->n_outputs = 0;
	for (ValueId v = 0; v < g->n_values; v++)
		if (g->values[v].region == b)
			g->values[v].region = r;
	while (rr->nodes[pos] != id)
		pos++;
	m = br->n_nodes;
	vec_reserve((void **)&rr->nodes, &rr->cap_nodes, rr->n_nodes + m, sizeof *rr->nodes);
	memmove(&rr->nodes[pos + 1 + m], &rr->nodes[pos + 1],
	        (size_t)(rr->n_nodes - pos - 1) * sizeof *rr->nodes);
	if (m)
		memcpy(&rr->nodes[pos + 1], br->nodes, (size_t)m * sizeof *rr->nodes);
	rr->n_nodes += m;
	for (int i = 0; i < m; i++) {
		Node *n = &g->nodes[br->nodes[i]];
		n->region = r;
		for (int q = 0; q < n->n_bodies; q++)
			g->regions[n->bodies[q]].parent = r;
	}
	br->n_nodes = 0;
	rw_region_kill(g, g->nodes[id].bodies[1 - pick]);
	g->nodes[id].dead = true;
	return 0;
}

/* Branch `bad` cannot be shaped at the model's static dims (a shape or type error),
 * while the other branch can: a data-dependent If whose other branch is only valid for
 * other inputs (a model that checks its sample rate, say). Like ONNX Runtime, which
 * only ever evaluates the branch taken, the model still compiles: the failing branch
 * becomes one BranchError node whose kernel returns INGOT_EINVAL, its outputs typed as
 * the other branch's. False (nothing changed) when the outputs are not plain tensors. */
static bool if_trap_branch(InferCtx *c, int bad, const DiagSink *why)
{
	Graph *g = c->g;
	Node *n = infer_node(c);
	RegionId br = n->bodies[bad], ok = n->bodies[1 - bad];
	int n_out = g->regions[ok].n_outputs;
	for (int k = 0; k < n_out; k++)
		if (g->values[g->regions[ok].outputs[k]].seq)
			return false;
	ValueId *outs = arena_array(&g->arena, (size_t)(n_out > 0 ? n_out : 1), sizeof *outs);
	for (int k = 0; k < n_out; k++) {
		Type t = plain(&g->values[g->regions[ok].outputs[k]].type);
		outs[k] = ir_value_new(g, br, arena_printf(&g->arena, "%s.%s_error%d",
		                                           ir_node_name(g, c->node),
		                                           bad ? "else" : "then", k), &t);
	}
	ValueId cond = n->in[0];
	const char *origin = ir_node_name(g, c->node);
	rw_region_kill(g, br);
	NodeId t = ir_node_new(g, br, OP_BRANCH_ERROR, 1, &cond, 1, outs, n_out, origin);
	(void)t;
	Region *reg = &g->regions[br];
	vec_reserve((void **)&reg->outputs, &reg->cap_outputs, n_out, sizeof *reg->outputs);
	for (int k = 0; k < n_out; k++) {
		reg->outputs[k] = outs[k];
		g->values[outs[k]].is_output = true;
	}
	reg->n_outputs = n_out;
	DiagLoc l = ir_node_loc(g, c->node);
	l.slot_kind = "attribute";
	l.tensor = body_attr(infer_node(c), bad);
	diag_report(c->diags, DIAG_WARNING, DC_SHAPE, &l, "this branch cannot run at the model's "
	            "shapes (%s); it is compiled as a run-time error (INGOT_EINVAL) when taken",
	            why->n_items ? why->items[0].text : "an error");
	return true;
}

/* Infers both branches of an If with a run-time condition. When exactly one fails
 * with a shape or type error, it gives way to a BranchError (if_trap_branch). */
static int if_infer_branches(InferCtx *c)
{
	Graph *g = c->g;
	DiagSink tmp[2];
	int rc[2], bad = -1;
	for (int b = 0; b < 2; b++) {
		diag_sink_init(&tmp[b], NULL);
		rc[b] = ops_infer_region(g, infer_node(c)->bodies[b], &tmp[b]);
	}
	if (rc[0] != rc[1]) {
		bad = rc[0] ? 0 : 1;
		if (diag_has_code(&tmp[bad], DC_UNSUPPORTED) || diag_has_code(&tmp[bad], DC_LIMIT) ||
		    !if_trap_branch(c, bad, &tmp[bad]))
			bad = -1;
	}
	for (int b = 0; b < 2; b++) {
		if (b != bad)
			for (int i = 0; i < tmp[b].n_items; i++)
				diag_report(c->diags, tmp[b].items[i].sev, tmp[b].items[i].code, NULL, "%s",
				            tmp[b].items[i].text);
		diag_sink_free(&tmp[b]);
	}
	return (rc[0] && bad != 0) || (rc[1] && bad != 1) ? -1 : 0;
}

static int if_infer(InferCtx *c)
{
	Graph *g = c->g;
	Node *n = infer_node(c);
	const Type *cond = infer_in(c, 0);
	const uint8_t *cv = infer_const(c, 0);

	if (!is_scalar_of(cond, DT_BOOL))
		return infer_fail(c, 0, "expected a 1-element bool condition");
	for (int b = 0; b < 2; b++) {
		const Region *br = &g->regions[n->bodies[b]];
		if (br->n_inputs != 0)
			return body_fail(c, b, "a branch takes no inputs, got %d", br->n_inputs);
		if (br->n_outputs != n->n_out)
			return body_fail(c, b, "the branch has %d outputs, the If has %d", br->n_outputs,
			                 n->n_out);
	}
	if (cv) {
		int pick = cv[0] ? 0 : 1;
		if (ops_infer_region(g, n->bodies[pick], c->diags))
			return -1;
		return if_inline(c, pick);
	}
	if (if_infer_branches(c))
		return -1;
	n = infer_node(c);
	if (ops_seq_if_expand(g, c->node, c->diags))
		return -1;
	n = infer_node(c);
	for (int b = 0; b < 2; b++)
		for (int k = 0; k < n->n_out; k++)
			if (check_body_output(c, b, k))
				return -1;
	for (int k = 0; k < n->n_out; k++) {
		const Type *t = &g->values[g->regions[n->bodies[0]].outputs[k]].type;
		const Type *e = &g->values[g->regions[n->bodies[1]].outputs[k]].type;
		char tb[128], eb[128];
		if (n->out[k] == IR_NONE)
			continue;
		Value *v = &g->values[n->out[k]];
		if (t->dtype != e->dtype)
			return body_fail(c, 1, "output %d is %s in the then branch but %s in the else "
			                 "branch", k, dtype_name(t->dtype), dtype_name(e->dtype));
		v->type = plain(t);
		v->dynamic = false;
		if (type_same_shape(t, e))
			continue;
		if (t->rank != e->rank)
			return infer_unsupported(c, "output %d has shape %s in the then branch and %s in the "
			                   "else branch: different ranks are not supported", k,
			                   type_format(t, tb, sizeof tb), type_format(e, eb, sizeof eb));
		/* the branch taken decides at run time: bound by the larger of the two */
		for (int q = 0; q < t->rank; q++)
			if (e->dims[q] > v->type.dims[q])
				v->type.dims[q] = e->dims[q];
		v->dynamic = true;
	}
	return 0;
}

/* ---- Loop ---- */

/* Whether the body's condition output always equals its condition input (passed
 * through Identity) or is the constant true: then only M and the initial condition
 * decide the number of iterations. */
static bool loop_cond_stays(const Graph *g, RegionId b)
{
	const Region *br = &g->regions[b];
	ValueId v = br->outputs[0];
	for (int guard = 0; guard < 1000; guard++) {
		const Value *val = &g->values[v];
		if (val->is_const)
			return ((const uint8_t *)ir_const_data(g, v))[0] != 0;
		if (v == br->inputs[1])
			return true;
		if (val->producer == IR_NONE)
			return false;
		const Node *p = &g->nodes[val->producer];
		if (p->op != OP_IDENTITY || p->dead || p->in[0] == IR_NONE)
			return false;
		v = p->in[0];
	}
	return false;
}

static int loop_infer(InferCtx *c)
{
	Graph *g = c->g;
	Node *n = infer_node(c);
	CtrlAttrs *a = n->attrs;
	RegionId b = n->bodies[0];
	int n_carried = n->n_in > 2 ? n->n_in - 2 : 0;
	int n_scan = n->n_out - n_carried;
	bool m_known = false, has_cond = infer_has(c, 1);
	int cond_known = -1;      /* -1: decided at run time */
	int64_t m = 0;

	if (n_scan < 0)
		return infer_fail(c, -1, "has %d loop-carried inputs but only %d outputs", n_carried,
		                  n->n_out);
	if (g->regions[b].n_inputs != 2 + n_carried)
		return body_fail(c, 0, "the body has %d inputs, expected %d (iteration number, "
		                 "condition and %d loop-carried values)", g->regions[b].n_inputs,
		                 2 + n_carried, n_carried);
	if (g->regions[b].n_outputs != 1 + n->n_out)
		return body_fail(c, 0, "the body has %d outputs, expected %d (condition, %d "
		                 "loop-carried values and %d scan outputs)", g->regions[b].n_outputs,
		                 1 + n->n_out, n_carried, n_scan);
	if (infer_has(c, 0)) {
		const int64_t *mv = infer_const(c, 0);
		if (!is_scalar_of(infer_in(c, 0), DT_I64))
			return infer_fail(c, 0, "expected a 1-element i64 trip count");
		if (mv) {
			memcpy(&m, mv, sizeof m);
			m_known = true;
		}
	}
	if (has_cond) {
		const uint8_t *cv = infer_const(c, 1);
		if (!is_scalar_of(infer_in(c, 1), DT_BOOL))
			return infer_fail(c, 1, "expected a 1-element bool condition");
		if (cv)
			cond_known = cv[0] != 0;
	}
	for (int j = 0; j < n_carried; j++)
		if (!infer_has(c, 2 + j))
			return infer_fail(c, 2 + j, "loop-carried input is missing");

	Type it = one_elem(g, g->regions[b].inputs[0], DT_I64);
	Type ct = one_elem(g, g->regions[b].inputs[1], DT_BOOL);
	if (set_body_input(c, 0, 0, &it) || set_body_input(c, 0, 1, &ct))
		return -1;
	for (int j = 0; j < n_carried; j++)
		if (set_body_input(c, 0, 2 + j, infer_in(c, 2 + j)))
			return -1;

	a->trip = -1;
	if (has_cond && cond_known == 0)
		a->trip = 0;
	else if (m_known && (!has_cond || (cond_known == 1 && loop_cond_stays(g, b))))
		a->trip = m > 0 ? m : 0;
	/* sequences exist only at compile time: a Loop over them is unrolled */
	if (ops_seq_loop_needs_unroll(g, c->node)) {
		DiagLoc l = ir_node_loc(g, c->node);
		if (a->trip >= 0 && a->trip <= CTRL_UNROLL_MAX_TRIP)
			return ctrl_loop_unroll(g, c->node, c->diags);
		diag_report(c->diags, DIAG_ERROR, DC_CONST_INPUT, &l, "a Loop over sequences or "
		            "optionals is unrolled: its trip count M and condition must be known at "
		            "compile time (--bind them), up to %d iterations", CTRL_UNROLL_MAX_TRIP);
		return -1;
	}
	/* a body that needs the iteration number (or loop-carried values) at compile
	 * time compiles as one copy per iteration, when the trip count is known */
	DiagSink tmp;
	int rc;
	diag_sink_init(&tmp, NULL);
	rc = ops_infer_region(g, b, &tmp);
	if (rc && diag_has_code(&tmp, DC_CONST_INPUT) && ctrl_can_unroll(g, c->node)) {
		diag_sink_free(&tmp);
		return ctrl_loop_unroll(g, c->node, c->diags);
	}
	for (int i = 0; i < tmp.n_items; i++)
		diag_report(c->diags, tmp.items[i].sev, tmp.items[i].code, NULL, "%s", tmp.items[i].text);
	if (rc && diag_has_code(&tmp, DC_CONST_INPUT)) {
		DiagLoc l = ir_node_loc(g, c->node);
		diag_report(c->diags, DIAG_NOTE, DC_CONST_INPUT, &l, "the body above needs values "
		            "known at compile time: the Loop is unrolled when its trip count M and "
		            "condition are (--bind them), up to %d iterations", CTRL_UNROLL_MAX_TRIP);
	}
	diag_sink_free(&tmp);
	if (rc)
		return -1;

	const Region *br = &g->regions[b];
	for (int k = 0; k < br->n_outputs; k++)
		if (check_body_output(c, 0, k))
			return -1;
	if (!is_scalar_of(&g->values[br->outputs[0]].type, DT_BOOL))
		return body_fail(c, 0, "the body's condition output must be a 1-element bool");
	for (int j = 0; j < n_carried; j++) {
		const Type *in = infer_in(c, 2 + j), *out = &g->values[br->outputs[1 + j]].type;
		char ib[128], ob[128];
		if (in->dtype != out->dtype)
			return body_fail(c, 0, "loop-carried value %d enters as %s and leaves the body "
			                 "as %s", j, dtype_name(in->dtype), dtype_name(out->dtype));
		if (!type_same_shape(in, out) && ctrl_can_unroll(g, c->node))
			return ctrl_loop_unroll(g, c->node, c->diags);   /* each copy has its shapes */
		if (!type_same_shape(in, out))
			return infer_unsupported(c, "loop-carried value %d changes shape across iterations "
			                   "(%s to %s): not supported", j, type_format(in, ib, sizeof ib),
			                   type_format(out, ob, sizeof ob));
	}

	if (n_scan > 0 && a->trip < 0 && !m_known) {
		int64_t *v;
		int nv;
		if (infer_has(c, 0))   /* reports the --bind hint */
			return infer_const_ints(c, 0, &v, &nv);
		return infer_unsupported(c, "a Loop without a trip count M cannot have scan outputs (their "
		                   "size is unbounded)");
	}
	for (int j = 0; j < n_carried; j++)
		if (infer_out(c, j))
			*infer_out(c, j) = plain(infer_in(c, 2 + j));
	for (int j = 0; j < n_scan; j++) {
		const Type *e = &g->values[br->outputs[1 + n_carried + j]].type;
		Type *o = infer_out(c, n_carried + j);
		if (!o)
			continue;
		if (e->rank + 1 > IR_MAX_RANK)
			return infer_unsupported(c, "scan output %d would have rank %d, above %d", j, e->rank + 1,
			                   IR_MAX_RANK);
		*o = type_make(e->dtype, e->rank + 1, NULL);
		o->dims[0] = a->trip >= 0 ? a->trip : (m > 0 ? m : 0);
		memcpy(&o->dims[1], e->dims, (size_t)e->rank * sizeof e->dims[0]);
		g->values[n->out[n_carried + j]].dynamic = a->trip < 0;
	}
	return 0;
}

/* ---- Scan ---- */

/* Reads a per-input attribute list of length n (default def), normalizing axes. */
static int scan_list(InferCtx *c, IntList *l, const char *name, int n, int64_t def)
{
	if (l->n >= 0 && l->n != n)
		return infer_fail_attr(c, name, "expected %d values, got %d", n, l->n);
	if (l->n < 0) {
		l->v = arena_array(&c->g->arena, (size_t)(n ? n : 1), sizeof *l->v);
		for (int i = 0; i < n; i++)
			l->v[i] = def;
		l->n = n;
	}
	return 0;
}

static int scan_infer(InferCtx *c)
{
	Graph *g = c->g;
	Node *n = infer_node(c);
	CtrlAttrs *a = n->attrs;
	RegionId b = n->bodies[0];
	int base = n->opset < 9 ? 1 : 0;   /* Scan-8: sequence_lens first */
	int n_scan_in = (int)a->num_scan_inputs;
	int n_state = n->n_in - base - n_scan_in;
	int n_scan_out = n->n_out - n_state;
	int64_t len = -1, batch = 1;

	if (n_state < 0)
		return infer_fail(c, -1, "num_scan_inputs is %d but the node has %d inputs", n_scan_in,
		                  n->n_in - base);
	if (n_scan_out < 0)
		return infer_fail(c, -1, "has %d state inputs but only %d outputs", n_state, n->n_out);
	if (g->regions[b].n_inputs != n_state + n_scan_in)
		return body_fail(c, 0, "the body has %d inputs, expected %d", g->regions[b].n_inputs,
		                 n_state + n_scan_in);
	if (g->regions[b].n_outputs != n->n_out)
		return body_fail(c, 0, "the body has %d outputs, expected %d", g->regions[b].n_outputs,
		                 n->n_out);
	for (int i = base; i < n->n_in; i++)
		if (!infer_has(c, i))
			return infer_fail(c, i, "required input is missing");
	if (base) {
		/* the batch dim leads every input and output */
		batch = infer_in(c, 1)->rank > 0 ? infer_in(c, 1)->dims[0] : -1;
		for (int i = 1; i < n->n_in; i++) {
			const Type *t = infer_in(c, i);
			if (t->rank < (i - 1 < n_state ? 1 : 2) || t->dims[0] != batch)
				return infer_fail(c, i, "expected the batch dim %lld first", (long long)batch);
		}
	}
	if (scan_list(c, &a->scan_input_axes, "scan_input_axes", n_scan_in, 0) ||
	    scan_list(c, &a->scan_input_directions, "scan_input_directions", n_scan_in, 0) ||
	    scan_list(c, &a->scan_output_axes, "scan_output_axes", n_scan_out, 0) ||
	    scan_list(c, &a->scan_output_directions, "scan_output_directions", n_scan_out, 0))
		return -1;

	for (int j = 0; j < n_state; j++) {
		Type t = plain(infer_in(c, base + j));
		if (base) {   /* drop the batch dim */
			memmove(t.dims, t.dims + 1, (size_t)(t.rank - 1) * sizeof t.dims[0]);
			t.rank--;
		}
		if (set_body_input(c, 0, j, &t))
			return -1;
	}
	for (int j = 0; j < n_scan_in; j++) {
		int slot = base + n_state + j;
		Type t = plain(infer_in(c, slot));
		int64_t axis;
		if (base) {
			memmove(t.dims, t.dims + 1, (size_t)(t.rank - 1) * sizeof t.dims[0]);
			t.rank--;
		}
		if (a->scan_input_directions.v[j] != 0 && a->scan_input_directions.v[j] != 1)
			return infer_fail_attr(c, "scan_input_directions", "expected 0 or 1, got %lld",
			                       (long long)a->scan_input_directions.v[j]);
		if (infer_normalize_axis(c, a->scan_input_axes.v[j], t.rank, &axis))
			return -1;
		if (t.rank == 0)
			return infer_fail(c, slot, "a scan input needs a sequence axis");
		a->scan_input_axes.v[j] = axis;
		if (len >= 0 && t.dims[axis] != len)
			return infer_fail(c, slot, "sequence length %lld differs from %lld",
			                  (long long)t.dims[axis], (long long)len);
		len = t.dims[axis];
		memmove(&t.dims[axis], &t.dims[axis + 1], (size_t)(t.rank - axis - 1) * sizeof t.dims[0]);
		t.rank--;
		if (set_body_input(c, 0, n_state + j, &t))
			return -1;
	}
	if (base && infer_has(c, 0)) {
		int64_t *sl;
		int ns;
		if (infer_const_ints(c, 0, &sl, &ns))
			return -1;
		for (int i = 0; i < ns; i++)
			if (sl[i] != len || ns != batch)
				return infer_unsupported(c, "sequence_lens other than the full length %lld are not "
				                   "supported", (long long)len);
	}
	if (ops_infer_region(g, b, c->diags))
		return -1;

	const Region *br = &g->regions[b];
	for (int k = 0; k < br->n_outputs; k++)
		if (check_body_output(c, 0, k))
			return -1;
	for (int j = 0; j < n_state; j++) {
		const Type *in = &g->values[br->inputs[j]].type, *out = &g->values[br->outputs[j]].type;
		char ib[128], ob[128];
		if (in->dtype != out->dtype || !type_same_shape(in, out))
			return infer_unsupported(c, "state %d enters the body as %s and leaves it as %s: a state "
			                   "must keep its type", j, type_format(in, ib, sizeof ib),
			                   type_format(out, ob, sizeof ob));
		if (infer_out(c, j))
			*infer_out(c, j) = plain(infer_in(c, base + j));
	}
	for (int j = 0; j < n_scan_out; j++) {
		const Type *e = &g->values[br->outputs[n_state + j]].type;
		Type t = plain(e);
		int64_t axis;
		if (e->rank + 1 + base > IR_MAX_RANK)
			return infer_unsupported(c, "scan output %d would have rank %d, above %d", j,
			                   e->rank + 1 + base, IR_MAX_RANK);
		if (a->scan_output_directions.v[j] != 0 && a->scan_output_directions.v[j] != 1)
			return infer_fail_attr(c, "scan_output_directions", "expected 0 or 1, got %lld",
			                       (long long)a->scan_output_directions.v[j]);
		if (infer_normalize_axis(c, a->scan_output_axes.v[j], e->rank + 1, &axis))
			return -1;
		a->scan_output_axes.v[j] = axis;
		memmove(&t.dims[axis + 1], &t.dims[axis], (size_t)(t.rank - axis) * sizeof t.dims[0]);
		t.dims[axis] = len;
		t.rank++;
		if (base) {
			memmove(&t.dims[1], &t.dims[0], (size_t)t.rank * sizeof t.dims[0]);
			t.dims[0] = batch;
			t.rank++;
		}
		if (infer_out(c, n_state + j))
			*infer_out(c, n_state + j) = t;
	}
	a->trip = len;
	a->batch = batch;
	return 0;
}

/* ---- workspace layout ---- */

static int64_t align64(int64_t x)
{
	return (x + 63) & ~(int64_t)63;
}

/* Product of dims before `axis` (rows of a slice along it). */
static int64_t outer_of(const Type *t, int skip, int64_t axis)
{
	int64_t o = 1;
	for (int64_t i = skip; i < skip + axis; i++)
		o *= t->dims[i];
	return o;
}

void ctrl_temp_layout(Graph *g, NodeId id, CtrlTemp *t)
{
	const Node *n = &g->nodes[id];
	const CtrlAttrs *a = n->attrs;
	const Region *br = &g->regions[n->bodies[0]];
	int64_t off = 0;

	memset(t, 0, sizeof *t);
	t->n_out = n->n_out;
	t->out_buf = arena_array(&g->arena, (size_t)(n->n_out ? n->n_out : 1), sizeof *t->out_buf);
	for (int k = 0; k < n->n_out; k++)
		t->out_buf[k] = -1;
	if (n->op == OP_IF) {
		for (int k = 0; k < n->n_out; k++) {
			int64_t bytes = 0;
			if (n->out[k] != IR_NONE)
				continue;
			for (int b = 0; b < 2; b++) {
				const Region *r = &g->regions[n->bodies[b]];
				int64_t x = k < r->n_outputs ? type_bytes(&g->values[r->outputs[k]].type) : 0;
				bytes = x > bytes ? x : bytes;
			}
			t->out_buf[k] = off;
			off += align64(bytes);
		}
		t->own_bytes = off;
		return;
	}
	int first_state = n->op == OP_LOOP ? 1 : 0;   /* body outputs: Loop's condition first */
	int base = n->op == OP_SCAN && n->opset < 9 ? 1 : 0;
	t->n_carried = n->op == OP_LOOP ? (n->n_in > 2 ? n->n_in - 2 : 0)
	               : n->n_in - base - (int)a->num_scan_inputs;
	for (int s = 0; s < 2; s++)
		t->carried[s] = arena_array(&g->arena, (size_t)(t->n_carried ? t->n_carried : 1),
		                            sizeof *t->carried[s]);
	for (int j = 0; j < t->n_carried; j++) {
		int64_t bytes = type_bytes(&g->values[br->outputs[first_state + j]].type);
		for (int s = 0; s < 2; s++) {
			t->carried[s][j] = off;
			off += align64(bytes);
		}
	}
	if (n->op == OP_SCAN) {
		t->n_scan_in = (int)a->num_scan_inputs;
		t->scan_in = arena_array(&g->arena, (size_t)t->n_scan_in, sizeof *t->scan_in);
		for (int j = 0; j < t->n_scan_in; j++) {
			const Type *in = &g->values[n->in[base + t->n_carried + j]].type;
			t->scan_in[j] = -1;
			if (outer_of(in, base, a->scan_input_axes.v[j]) != 1) {
				t->scan_in[j] = off;
				off += align64(type_bytes(&g->values[br->inputs[t->n_carried + j]].type));
			}
		}
	}
	for (int k = t->n_carried; k < n->n_out; k++) {
		const Type *e = &g->values[br->outputs[first_state + k]].type;
		bool scatter = false;
		if (n->op == OP_SCAN && n->out[k] != IR_NONE)
			scatter = outer_of(&g->values[n->out[k]].type, base,
			                   a->scan_output_axes.v[k - t->n_carried]) != 1;
		if (n->out[k] == IR_NONE || scatter) {
			t->out_buf[k] = off;
			off += align64(type_bytes(e));
		}
	}
	t->own_bytes = off;
}

static int no_lower(LowerCtx *c)
{
	(void)c;
	return -1;   /* no kernel: the code generator emits the bodies and the loop */
}

const OpImpl op_impl_if_else = { sizeof(CtrlAttrs), NULL, 0, if_import, if_infer, no_lower };

/* ---- BranchError: the If branch that could not be shaped (if_trap_branch) ---- */

static int branch_error_infer(InferCtx *c)
{
	const Node *n = infer_node(c);
	for (int k = 0; k < n->n_out; k++)
		IR_ASSERT(c->g->values[n->out[k]].type.dtype != DT_UNDEF);   /* typed when made */
	return 0;
}

static int branch_error_lower(LowerCtx *c)
{
	LOWER_CALL(c, ingot_branch_error, NULL, NULL);
	return 0;
}

const OpImpl op_impl_branch_error = { 0, NULL, 0, NULL, branch_error_infer, branch_error_lower };
const OpImpl op_impl_loop = { sizeof(CtrlAttrs), NULL, 0, loop_import, loop_infer, no_lower };
const OpImpl op_impl_scan = { sizeof(CtrlAttrs), scan_fields, COUNTOF(scan_fields), scan_import,
                              scan_infer, no_lower };
