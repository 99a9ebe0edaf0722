/* control_unroll.c — unrolling a Loop with a static trip count into its region,
 * one copy of the body per iteration. Inference uses it when the body cannot be
 * compiled once for all iterations because some compile-time input (a Slice's
 * starts, a Reshape's shape) depends on the iteration number or on loop-carried
 * values: in the copies these are constants and fold away. The scan outputs become
 * a Concat of the iterations' elements; the Loop's output values keep their names.
 * SequenceMap copies its body the same way (ctrl_body_copy). */
#include "control.h"
#include "graph_rewrite.h"

#include <stdlib.h>
#include <string.h>

/* Beyond this many node copies the loop stays a loop (its body must then compile
 * as one function). */
#define UNROLL_MAX_NODES 20000

typedef struct Unroll {
	Graph *g;
	ValueId *map;          /* per source value (ids below n_map): its copy, or IR_NONE */
	int n_map;
	const char *suffix;    /* appended to copied names: ".it3" */
} Unroll;

static ValueId mapped(const Unroll *u, ValueId v)
{
	if (v == IR_NONE || v >= u->n_map || u->map[v] == IR_NONE)
		return v;   /* an outer value or a constant: shared by every copy */
	return u->map[v];
}

static ValueId copy_value(Unroll *u, ValueId v, RegionId r)
{
	Graph *g = u->g;
	char *name = arena_printf(&g->arena, "%s%s", g->values[v].name, u->suffix);
	Type t = g->values[v].type;
	ValueId nv = ir_value_new(g, r, name, &t);
	g->values[nv].dynamic = g->values[v].dynamic;
	if (v < u->n_map)
		u->map[v] = nv;
	return nv;
}

static RegionId copy_region(Unroll *u, RegionId src, RegionId parent);

/* Appends a copy of node src to region r (nested bodies copied too). */
static NodeId copy_node(Unroll *u, NodeId src, RegionId r)
{
	Graph *g = u->g;
	Node s = g->nodes[src];            /* by value: g->nodes may move below */
	ValueId *in = arena_array(&g->arena, (size_t)(s.n_in ? s.n_in : 1), sizeof *in);
	ValueId *out = arena_array(&g->arena, (size_t)(s.n_out ? s.n_out : 1), sizeof *out);
	RegionId *bodies = NULL;
	for (int k = 0; k < s.n_in; k++)
		in[k] = mapped(u, s.in[k]);
	if (s.n_bodies) {
		bodies = arena_array(&g->arena, (size_t)s.n_bodies, sizeof *bodies);
		for (int b = 0; b < s.n_bodies; b++)
			bodies[b] = copy_region(u, s.bodies[b], r);
	}
	for (int k = 0; k < s.n_out; k++)
		out[k] = s.out[k] == IR_NONE ? IR_NONE : copy_value(u, s.out[k], r);
	NodeId id = ir_node_new(g, r, s.op, s.opset, in, s.n_in, out, s.n_out, NULL);
	Node *n = &g->nodes[id];
	size_t asz = op_info(s.op)->impl->attr_size;
	if (asz)
		memcpy(n->attrs, s.attrs, asz);
	n->origins = s.origins;       /* arena strings, never changed in place */
	n->n_origins = s.n_origins;
	n->bodies = bodies;
	n->n_bodies = s.n_bodies;
	if (s.n_bodies)
		((CtrlAttrs *)n->attrs)->ws_off = -1;
	return id;
}

static RegionId copy_region(Unroll *u, RegionId src, RegionId parent)
{
	Graph *g = u->g;
	RegionId nr = ir_region_new(g, parent, arena_printf(&g->arena, "%s%s",
	                                                    g->regions[src].name, u->suffix));
	for (int i = 0; i < g->regions[src].n_inputs; i++)
		ir_region_add_input(g, nr, copy_value(u, g->regions[src].inputs[i], nr));
	for (int i = 0; i < g->regions[src].n_nodes; i++) {
		NodeId id = g->regions[src].nodes[i];
		if (!g->nodes[id].dead)
			copy_node(u, id, nr);
	}
	for (int i = 0; i < g->regions[src].n_outputs; i++)
		ir_region_add_output(g, nr, mapped(u, g->regions[src].outputs[i]));
	return nr;
}

static int live_nodes(const Graph *g, RegionId r)
{
	int n = 0;
	for (int i = 0; i < g->regions[r].n_nodes; i++) {
		const Node *nd = &g->nodes[g->regions[r].nodes[i]];
		if (nd->dead)
			continue;
		n++;
		for (int b = 0; b < nd->n_bodies; b++)
			n += live_nodes(g, nd->bodies[b]);
	}
	return n;
}

bool ctrl_can_unroll(const Graph *g, NodeId id)
{
	const Node *n = &g->nodes[id];
	const CtrlAttrs *a = n->attrs;
	if (n->op != OP_LOOP || a->trip < 1 || a->trip > CTRL_UNROLL_MAX_TRIP)
		return false;
	return a->trip * (live_nodes(g, n->bodies[0]) + 2) <= UNROLL_MAX_NODES;
}

/* Appends one copy of body b's live nodes to region r, its inputs standing for
 * `inputs` (one per body input); the copies of its outputs go to `outputs`. */
static void copy_body(Unroll *u, RegionId b, RegionId r, const ValueId *inputs, ValueId *outputs)
{
	Graph *g = u->g;
	for (int i = 0; i < u->n_map; i++)
		u->map[i] = IR_NONE;
	for (int i = 0; i < g->regions[b].n_inputs; i++)
		u->map[g->regions[b].inputs[i]] = inputs[i];
	for (int i = 0; i < g->regions[b].n_nodes; i++) {
		NodeId src = g->regions[b].nodes[i];
		if (!g->nodes[src].dead)
			copy_node(u, src, r);
	}
	for (int i = 0; i < g->regions[b].n_outputs; i++)
		outputs[i] = mapped(u, g->regions[b].outputs[i]);
}

void ctrl_body_copy(Graph *g, RegionId b, RegionId r, const ValueId *inputs, ValueId *outputs,
                    const char *suffix)
{
	Unroll u;
	memset(&u, 0, sizeof u);
	u.g = g;
	u.n_map = g->n_values;
	u.suffix = suffix;
	u.map = malloc((size_t)(u.n_map ? u.n_map : 1) * sizeof *u.map);
	if (!u.map)
		die("out of memory");
	copy_body(&u, b, r, inputs, outputs);
	free(u.map);
}

int ctrl_loop_unroll(Graph *g, NodeId id, DiagSink *d)
{
	Node *n = &g->nodes[id];
	const CtrlAttrs *a = n->attrs;
	RegionId r = n->region, b = n->bodies[0];
	int n_carried = n->n_in > 2 ? n->n_in - 2 : 0, n_scan = n->n_out - n_carried;
	int64_t trip = a->trip;
	const char *origin = ir_node_name(g, id);
	Unroll u;
	int first, rc;

	memset(&u, 0, sizeof u);
	u.g = g;
	u.n_map = g->n_values;
	u.map = malloc((size_t)u.n_map * sizeof *u.map);
	ValueId *cur = calloc((size_t)(n_carried ? n_carried : 1), sizeof *cur);
	ValueId *ins = calloc((size_t)(2 + n_carried), sizeof *ins);
	ValueId *outs = calloc((size_t)(1 + n->n_out), sizeof *outs);
	int64_t n_elems = n_scan * trip;
	ValueId *elems = calloc((size_t)(n_elems > 0 ? n_elems : 1), sizeof *elems);
	if (!u.map || !cur || !elems || !ins || !outs)
		die("out of memory");
	for (int j = 0; j < n_carried; j++)
		cur[j] = n->in[2 + j];
	first = g->regions[r].n_nodes;

	for (int64_t t = 0; t < trip; t++) {
		const Region *br = &g->regions[b];
		uint8_t yes = 1;
		u.suffix = arena_printf(&g->arena, ".it%lld", (long long)t);
		ValueId iv = br->inputs[0], cv = br->inputs[1];
		Type it = g->values[iv].type, ct = g->values[cv].type;   /* g->values may move */
		ins[0] = ir_value_new_const(g, r, arena_printf(&g->arena, "%s%s", g->values[iv].name,
		                            u.suffix), &it, &t);
		ins[1] = ir_value_new_const(g, r, arena_printf(&g->arena, "%s%s", g->values[cv].name,
		                            u.suffix), &ct, &yes);
		for (int j = 0; j < n_carried; j++)
			ins[2 + j] = cur[j];
		copy_body(&u, b, r, ins, outs);
		for (int j = 0; j < n_carried; j++)
			cur[j] = outs[1 + j];
		for (int k = 0; k < n_scan; k++)
			elems[k * trip + t] = outs[1 + n_carried + k];
	}
	/* g->nodes moves as nodes are added: index it afresh each time */
	for (int j = 0; j < n_carried; j++) {
		ValueId out = g->nodes[id].out[j];
		if (out != IR_NONE)
			rw_node_new(g, r, OP_IDENTITY, &cur[j], 1, &out, 1, origin, NULL, 0, d);
	}
	for (int k = 0; k < n_scan; k++) {
		ValueId out = g->nodes[id].out[n_carried + k];
		if (out == IR_NONE)
			continue;
		if (trip == 0) {   /* no iteration: an empty tensor of the inferred type */
			ir_value_set_const(g, out, NULL);
			g->values[out].producer = IR_NONE;
			continue;
		}
		int64_t zero = 0, one = 1;
		Type at = type_make(DT_I64, 1, &one);
		ValueId axes = ir_value_new_const(g, r, arena_printf(&g->arena, "%s.axes", origin), &at,
		                                  &zero);
		ValueId *parts = arena_array(&g->arena, (size_t)trip, sizeof *parts);
		for (int64_t t = 0; t < trip; t++) {
			ValueId in[2] = { elems[k * trip + t], axes };
			parts[t] = ir_value_new(g, r, arena_printf(&g->arena, "%s.unsq%lld",
			                        g->values[in[0]].name, (long long)t), NULL);
			rw_node_new(g, r, OP_UNSQUEEZE, in, 2, &parts[t], 1, origin, NULL, 0, d);
		}
		RawAttr ax = raw_attr_int("axis", 0);
		rw_node_new(g, r, OP_CONCAT, parts, (int)trip, &out, 1, origin, &ax, 1, d);
	}

	g->nodes[id].dead = true;
	rw_region_kill(g, b);
	rc = rw_place_after(g, id, first, d);
	free(u.map);
	free(cur);
	free(ins);
	free(outs);
	free(elems);
	return rc;
}
