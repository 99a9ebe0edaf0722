/* sequence_flow.c — sequences crossing node and graph boundaries during inference:
 * Identity passes them on, other tensor ops reject them, a Loop that carries or
 * builds one is unrolled, an If whose run-time condition picks between sequences
 * of the same length gets one output per element, and the main graph's sequence
 * outputs become one output per element (NAME.0, NAME.1, ...). See sequence.c. */
#include "graph_rewrite.h"

#include <stdlib.h>
#include <string.h>

void ops_seq_set(Graph *g, ValueId v, bool none, int n, const ValueId *elems, DType dt)
{
	SeqVal *s = arena_alloc(&g->arena, sizeof *s);
	ValueId *e = arena_array(&g->arena, (size_t)(n ? n : 1), sizeof *e);
	if (n)
		memcpy(e, elems, (size_t)n * sizeof *e);
	s->none = none;
	s->n = n;
	s->elems = e;
	s->dtype = dt;
	g->values[v].type = type_make(dt, 0, NULL);
	g->values[v].seq = s;
}

static const char *describe(const Graph *g, ValueId v, char *buf, size_t cap)
{
	const SeqVal *s = ops_seq_of(g, v);
	if (!s)
		snprintf(buf, cap, "a tensor");
	else if (s->none)
		snprintf(buf, cap, "an empty optional");
	else
		snprintf(buf, cap, "a sequence of %d", s->n);
	return buf;
}

int ops_seq_guard(Graph *g, NodeId id, DiagSink *d, bool *done)
{
	Node *n = &g->nodes[id];
	const OpImpl *impl = op_info(n->op)->impl;
	int slot = -1;
	char buf[64];
	for (int k = 0; k < n->n_in && slot < 0; k++)
		if (ops_seq_of(g, n->in[k]))
			slot = k;
	if (slot < 0 || impl == &op_impl_sequence || impl == &op_impl_sequence_map || n->op == OP_LOOP)
		return 0;
	if (n->op == OP_IDENTITY) {
		const SeqVal *s = ops_seq_of(g, n->in[0]);
		ops_seq_set(g, n->out[0], s->none, s->n, s->elems, (DType)s->dtype);
		g->values[n->out[0]].producer = IR_NONE;
		n->dead = true;
		*done = true;
		return 0;
	}
	DiagLoc l = ir_node_loc(g, id);
	l.slot_kind = "input";
	l.slot = slot;
	l.tensor = g->values[n->in[slot]].name;
	diag_report(d, DIAG_ERROR, DC_TYPE, &l, "expected a tensor, got %s",
	             describe(g, n->in[slot], buf, sizeof buf));
	return -1;
}

/* Whether region r (or a region nested in it) has a sequence op. */
static bool region_has_seq_ops(const Graph *g, RegionId r)
{
	const Region *reg = &g->regions[r];
	for (int i = 0; i < reg->n_nodes; i++) {
		const Node *n = &g->nodes[reg->nodes[i]];
		const OpImpl *impl = op_info(n->op)->impl;
		if (n->dead)
			continue;
		if (impl == &op_impl_sequence || impl == &op_impl_sequence_map)
			return true;
		for (int b = 0; b < n->n_bodies; b++)
			if (region_has_seq_ops(g, n->bodies[b]))
				return true;
	}
	return false;
}

bool ops_seq_loop_needs_unroll(const Graph *g, NodeId id)
{
	const Node *n = &g->nodes[id];
	for (int k = 0; k < n->n_in; k++)
		if (ops_seq_of(g, n->in[k]))
			return true;
	return region_has_seq_ops(g, n->bodies[0]);
}

/* A new value of region r named `name`, computed there as Identity(v). */
static ValueId identity_of(Graph *g, RegionId r, ValueId v, const char *name, const char *origin,
                           DiagSink *d)
{
	ValueId o = ir_value_new(g, r, name, NULL);
	NodeId id = rw_node_new(g, r, OP_IDENTITY, &v, 1, &o, 1, origin, NULL, 0, d);
	if (ops_infer_node(g, id, d))
		return IR_NONE;
	return o;
}

/* Sequence elements must be tensors (no sequences of sequences). */
static int check_flat(const Graph *g, ValueId v, DiagSink *d, const DiagLoc *l)
{
	const SeqVal *s = ops_seq_of(g, v);
	for (int i = 0; s && i < s->n; i++)
		if (ops_seq_of(g, s->elems[i])) {
			diag_report(d, DIAG_ERROR, DC_UNSUPPORTED, l, "sequences of sequences are not "
			            "supported");
			return -1;
		}
	return 0;
}

int ops_seq_if_expand(Graph *g, NodeId id, DiagSink *d)
{
	Node *n = &g->nodes[id];
	RegionId bt = n->bodies[0], be = n->bodies[1], r = n->region;
	int n_out = n->n_out, cap = 0, m = 0, ct = 0, mt = 0, ce = 0, me = 0;
	ValueId *outs = NULL, *tv = NULL, *ev = NULL;
	ValueId *old_t = malloc((size_t)n_out * sizeof *old_t), *old_e = malloc((size_t)n_out * sizeof *old_e);
	ValueId *old_o = malloc((size_t)n_out * sizeof *old_o);
	DiagLoc l = ir_node_loc(g, id);
	bool any = false;
	int rc = -1;
	char a[64], b[64];

	if (!old_t || !old_e || !old_o)
		die("out of memory");
	for (int k = 0; k < n_out; k++) {
		old_t[k] = g->regions[bt].outputs[k];
		old_e[k] = g->regions[be].outputs[k];
		old_o[k] = n->out[k];
		any |= ops_seq_of(g, old_t[k]) || ops_seq_of(g, old_e[k]);
	}
	if (!any) {
		rc = 0;
		goto out;
	}
	for (int k = 0; k < n_out; k++) {
		const SeqVal *st = ops_seq_of(g, old_t[k]), *se = ops_seq_of(g, old_e[k]);
		const char *oname = old_o[k] != IR_NONE ? g->values[old_o[k]].name
		                    : arena_printf(&g->arena, "%s.out%d", ir_node_name(g, id), k);
		if (!st && !se) {
			*VEC_PUSH(outs, m, cap) = old_o[k];
			*VEC_PUSH(tv, mt, ct) = old_t[k];
			*VEC_PUSH(ev, me, ce) = old_e[k];
			continue;
		}
		if (!st || !se || st->none != se->none || st->n != se->n) {
			diag_report(d, DIAG_ERROR, DC_CONST_INPUT, &l, "output %d is %s in the then branch "
			            "and %s in the else branch: the condition must be known at compile time "
			            "(--bind it)", k, describe(g, old_t[k], a, sizeof a),
			            describe(g, old_e[k], b, sizeof b));
			goto out;
		}
		if (check_flat(g, old_t[k], d, &l) || check_flat(g, old_e[k], d, &l))
			goto out;
		ValueId *elems = arena_array(&g->arena, (size_t)(st->n ? st->n : 1), sizeof *elems);
		for (int j = 0; j < st->n; j++) {
			ValueId t = identity_of(g, bt, st->elems[j], arena_printf(&g->arena, "%s.then%d",
			                        oname, j), ir_node_name(g, id), d);
			ValueId e = identity_of(g, be, se->elems[j], arena_printf(&g->arena, "%s.else%d",
			                        oname, j), ir_node_name(g, id), d);
			if (t == IR_NONE || e == IR_NONE)
				goto out;
			elems[j] = ir_value_new(g, r, arena_printf(&g->arena, "%s.%d", oname, j), NULL);
			*VEC_PUSH(outs, m, cap) = elems[j];
			*VEC_PUSH(tv, mt, ct) = t;
			*VEC_PUSH(ev, me, ce) = e;
		}
		if (old_o[k] != IR_NONE)
			ops_seq_set(g, old_o[k], st->none, st->n, elems, (DType)st->dtype);
	}
	/* the If and its branches now pair tensor outputs only */
	n = &g->nodes[id];
	n->out = arena_array(&g->arena, (size_t)(m ? m : 1), sizeof *n->out);
	memcpy(n->out, outs, (size_t)m * sizeof *outs);
	n->n_out = m;
	for (int k = 0; k < m; k++) {
		g->values[outs[k]].producer = id;
		g->values[outs[k]].producer_slot = k;
	}
	for (int k = 0; k < n_out; k++) {
		g->values[old_t[k]].is_output = g->values[old_e[k]].is_output = false;
		if (old_o[k] != IR_NONE && ops_seq_of(g, old_o[k]))
			g->values[old_o[k]].producer = IR_NONE;
	}
	g->regions[bt].n_outputs = g->regions[be].n_outputs = 0;
	for (int k = 0; k < m; k++) {
		ir_region_add_output(g, bt, tv[k]);
		ir_region_add_output(g, be, ev[k]);
	}
	rc = 0;
out:
	free(outs);
	free(tv);
	free(ev);
	free(old_t);
	free(old_e);
	free(old_o);
	return rc;
}

int ops_seq_finish(Graph *g, DiagSink *d)
{
	Region *main = &g->regions[0];
	int n = main->n_outputs;
	bool any = false;
	for (int i = 0; i < n; i++)
		any |= ops_seq_of(g, main->outputs[i]) != NULL;
	if (!any)
		return 0;
	ValueId *old = malloc((size_t)n * sizeof *old);
	if (!old)
		die("out of memory");
	memcpy(old, main->outputs, (size_t)n * sizeof *old);
	g->regions[0].n_outputs = 0;
	for (int i = 0; i < n; i++) {
		ValueId v = old[i];
		const SeqVal *s = ops_seq_of(g, v);
		if (!s) {
			ir_region_add_output(g, 0, v);
			continue;
		}
		DiagLoc l = diag_loc_file(g->file);
		l.slot_kind = "output";
		l.tensor = g->values[v].name;
		g->values[v].is_output = false;
		if (check_flat(g, v, d, &l)) {
			free(old);
			return -1;
		}
		/* an empty optional output is no output at all; a sequence, one per element */
		for (int j = 0; j < s->n; j++) {
			const char *name = g->values[v].name;
			ValueId o = identity_of(g, 0, s->elems[j], arena_printf(&g->arena, "%s.%d", name, j),
			                        name, d);
			if (o == IR_NONE) {
				free(old);
				return -1;
			}
			ir_region_add_output(g, 0, o);
		}
	}
	free(old);
	return 0;
}
