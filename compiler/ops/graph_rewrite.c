/* graph_rewrite.c — editing the graph, for the passes and for the expansions that
 * inference runs (graph_rewrite.h): use counts, redirecting uses, constants, in-place
 * node edits, moving nodes and killing regions. Graph output names are the model's
 * API, so a value that is a region output is never renamed away: its data is
 * re-routed to it instead (rw_redirect). */
#include "graph_rewrite.h"

#include <stdlib.h>
#include <string.h>

void rw_uses_compute(const Graph *g, Uses *u)
{
	free(u->count);
	free(u->user);
	u->n = g->n_values;
	u->count = calloc((size_t)u->n + 1, sizeof *u->count);
	u->user = malloc(((size_t)u->n + 1) * sizeof *u->user);
	if (!u->count || !u->user)
		die("out of memory");
	for (int i = 0; i < u->n; i++)
		u->user[i] = IR_NONE;
	for (RegionId r = 0; r < g->n_regions; r++) {
		const Region *reg = &g->regions[r];
		for (int i = 0; i < reg->n_nodes; i++) {
			const Node *n = &g->nodes[reg->nodes[i]];
			if (n->dead)
				continue;
			for (int k = 0; k < n->n_in; k++)
				if (n->in[k] != IR_NONE) {
					u->count[n->in[k]]++;
					u->user[n->in[k]] = reg->nodes[i];
				}
		}
		for (int i = 0; i < reg->n_outputs; i++)
			u->count[reg->outputs[i]]++;
	}
}

void rw_uses_free(Uses *u)
{
	free(u->count);
	free(u->user);
	memset(u, 0, sizeof *u);
}

NodeId rw_sole_user(const Graph *g, const Uses *u, ValueId v)
{
	if (v < 0 || v >= u->n || u->count[v] != 1 || g->values[v].is_output)
		return IR_NONE;
	return u->user[v];
}

int rw_replace_uses(Graph *g, ValueId old, ValueId new_v)
{
	int changed = 0;
	for (NodeId id = 0; id < g->n_nodes; id++) {
		Node *n = &g->nodes[id];
		if (n->dead)
			continue;
		for (int k = 0; k < n->n_in; k++)
			if (n->in[k] == old) {
				n->in[k] = new_v;
				changed++;
			}
	}
	return changed;
}

bool rw_redirect(Graph *g, ValueId from, ValueId to)
{
	Value *f = &g->values[from], *t = &g->values[to];
	if (!f->is_output) {
		rw_replace_uses(g, from, to);
		return true;
	}
	/* `from` names a region output: `to`'s producer writes it under that name */
	if (t->producer == IR_NONE || t->is_output || t->is_input || t->is_const || t->dynamic ||
	    f->dynamic || t->region != f->region || !type_equal(&t->type, &f->type))
		return false;
	Node *p = &g->nodes[t->producer];
	if (p->dead || p->region != f->region)
		return false;
	p->out[t->producer_slot] = from;
	f->producer = t->producer;
	f->producer_slot = t->producer_slot;
	t->producer = IR_NONE;
	rw_replace_uses(g, to, from);
	return true;
}

/* Joins src's origins to dst's, before them (first) or after. Appending to a node's
 * own array reuses its room, and new arrays double: a node that absorbs k duplicates
 * one at a time (cse) costs O(k) arena, not O(k^2). */
static void join_origins(Graph *g, NodeId dst, NodeId src, bool first)
{
	Node *d = &g->nodes[dst];
	const Node *s = &g->nodes[src];
	if (!s->n_origins)
		return;
	int total = d->n_origins + s->n_origins;
	if (!first && d->origins_cap >= total) {
		memcpy(d->origins + d->n_origins, s->origins, (size_t)s->n_origins * sizeof *d->origins);
		d->n_origins = total;
		return;
	}
	int cap = total < 4 ? 4 : total * 2;
	const char **o = arena_array(&g->arena, (size_t)cap, sizeof *o);
	int at_d = first ? s->n_origins : 0, at_s = first ? 0 : d->n_origins;
	if (d->n_origins)
		memcpy(o + at_d, d->origins, (size_t)d->n_origins * sizeof *o);
	memcpy(o + at_s, s->origins, (size_t)s->n_origins * sizeof *o);
	d->origins = o;
	d->n_origins = total;
	d->origins_cap = cap;
}

void rw_origins_append(Graph *g, NodeId dst, NodeId src)
{
	join_origins(g, dst, src, false);
}

void rw_origins_prepend(Graph *g, NodeId dst, NodeId src)
{
	join_origins(g, dst, src, true);
}

static bool name_taken(const Graph *g, const char *name)
{
	for (int i = 0; i < g->n_values; i++)
		if (strcmp(g->values[i].name, name) == 0)
			return true;
	return false;
}

ValueId rw_const_new(Graph *g, RegionId r, const char *base, const Type *t, const void *data)
{
	char name[256];
	snprintf(name, sizeof name, "%s", base);
	for (int k = 1; name_taken(g, name); k++)
		snprintf(name, sizeof name, "%.200s_%d", base, k);
	return ir_value_new_const(g, r, name, t, data);
}

double rw_const_f64(const Graph *g, ValueId v, int64_t i)
{
	const void *p = ir_const_data(g, v);
	DType dt = g->values[v].type.dtype;
	IR_ASSERT(p != NULL);
	if (!dtype_is_float(dt) && !dtype_is_int(dt) && dt != DT_BOOL)
		die("rw_const_f64: dtype %s", dtype_name(dt));
	return ingot_ld_num(dt, p, i);
}

void rw_store_f64(DType dt, void *buf, int64_t i, double v)
{
	if (!dtype_is_float(dt))
		die("rw_store_f64: dtype %s", dtype_name(dt));
	ingot_stf(dt, buf, i, v);
}

void rw_node_set_inputs(Graph *g, NodeId id, const ValueId *in, int n_in)
{
	ValueId *a = arena_array(&g->arena, (size_t)(n_in ? n_in : 1), sizeof *a);
	if (n_in)
		memcpy(a, in, (size_t)n_in * sizeof *a);
	g->nodes[id].in = a;
	g->nodes[id].n_in = n_in;
}

int rw_node_reset(Graph *g, NodeId id, Op op, const ValueId *in, int n_in, const RawAttr *raw,
                  int n_raw, DiagSink *d)
{
	const OpImpl *impl = op_info(op)->impl;
	rw_node_set_inputs(g, id, in, n_in);
	g->nodes[id].op = op;
	g->nodes[id].attrs = impl->attr_size ? arena_alloc(&g->arena, impl->attr_size) : NULL;
	return ops_import_attrs(g, id, raw, n_raw, d);
}

void rw_reinfer(Graph *g, NodeId id)
{
	Node *n = &g->nodes[id];
	Type before[8];
	DiagSink quiet;
	int n_out = n->n_out < 8 ? n->n_out : 8, rc;
	for (int i = 0; i < n_out; i++)
		if (n->out[i] != IR_NONE)
			before[i] = g->values[n->out[i]].type;
	diag_sink_init(&quiet, NULL);
	rc = ops_infer_node(g, id, &quiet);
	diag_sink_free(&quiet);
	if (rc)
		die("rewritten %s node '%s' no longer infers", ir_op_name(n->op), ir_node_name(g, id));
	for (int i = 0; i < n_out; i++) {
		const Type *t;
		if (n->out[i] == IR_NONE)
			continue;
		t = &g->values[n->out[i]].type;
		if (t->dtype != before[i].dtype || !type_same_shape(t, &before[i]))
			die("rewritten %s node '%s' changed the type of output %d", ir_op_name(n->op),
			    ir_node_name(g, id), i);
	}
}

/* The positions of nodes id and at in their (common) region's list. */
static Region *node_slots(Graph *g, NodeId id, NodeId at, int *from, int *to)
{
	Region *reg = &g->regions[g->nodes[id].region];
	IR_ASSERT(g->nodes[at].region == g->nodes[id].region);
	*from = *to = -1;
	for (int i = 0; i < reg->n_nodes; i++) {
		if (reg->nodes[i] == id)
			*from = i;
		if (reg->nodes[i] == at)
			*to = i;
	}
	return reg;
}

void rw_node_move_to(Graph *g, NodeId id, NodeId at)
{
	int from, to;
	Region *reg = node_slots(g, id, at, &from, &to);
	IR_ASSERT(from >= 0 && to >= from);
	memmove(reg->nodes + from, reg->nodes + from + 1, (size_t)(to - from) * sizeof *reg->nodes);
	reg->nodes[to] = id;
}

void rw_node_move_before(Graph *g, NodeId id, NodeId at)
{
	int from, to;
	Region *reg = node_slots(g, id, at, &from, &to);
	IR_ASSERT(to >= 0 && from > to);
	memmove(reg->nodes + to + 1, reg->nodes + to, (size_t)(from - to) * sizeof *reg->nodes);
	reg->nodes[to] = id;
}

NodeId rw_node_new(Graph *g, RegionId r, Op op, const ValueId *in, int n_in, const ValueId *out,
                   int n_out, const char *origin, const RawAttr *raw, int n_raw, DiagSink *d)
{
	NodeId id = ir_node_new(g, r, op, 13, in, n_in, out, n_out, origin);
	if (ops_import_attrs(g, id, raw, n_raw, d))
		die("%s rejected its attributes", ir_op_name(op));
	return id;
}

void rw_region_kill(Graph *g, RegionId r)
{
	Region *reg = &g->regions[r];
	for (int i = 0; i < reg->n_nodes; i++) {
		Node *n = &g->nodes[reg->nodes[i]];
		n->dead = true;
		for (int b = 0; b < n->n_bodies; b++)
			rw_region_kill(g, n->bodies[b]);
	}
	for (int i = 0; i < reg->n_outputs; i++)
		g->values[reg->outputs[i]].is_output = false;
	reg->n_outputs = 0;
}
