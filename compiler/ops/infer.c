/* infer.c — static shape and type inference over the graph, in execution order.
 * With `fold`, a node whose inputs are all constants is evaluated right away, so
 * shape computations (Shape → Gather → Concat → Reshape) resolve to constants
 * before the nodes that consume them are inferred. Control-flow nodes infer their
 * bodies themselves (control.c) through ops_infer_region. */
#include "opimpl.h"

#include <string.h>

/* Largest tensor ingot will plan: 2^40 bytes. Beyond that a shape is surely bogus. */
#define MAX_TENSOR_BYTES ((int64_t)1 << 40)

static int check_arity(Graph *g, NodeId id, DiagSink *d)
{
	Node *n = &g->nodes[id];
	const OpInfo *info = op_info(n->op);
	DiagLoc l = ir_node_loc(g, id);
	int n_in = n->n_in;
	while (n_in > 0 && n->in[n_in - 1] == IR_NONE)
		n_in--;
	if (n_in < info->min_in || (info->max_in >= 0 && n_in > info->max_in)) {
		diag_report(d, DIAG_ERROR, DC_SHAPE, &l, "expected %d to %d inputs, got %d",
		            info->min_in, info->max_in, n_in);
		return -1;
	}
	for (int i = 0; i < info->min_in; i++)
		if (n->in[i] == IR_NONE) {
			l.slot_kind = "input";
			l.slot = i;
			diag_report(d, DIAG_ERROR, DC_SHAPE, &l, "required input is missing");
			return -1;
		}
	if (n->n_out < info->min_out || (info->max_out >= 0 && n->n_out > info->max_out)) {
		diag_report(d, DIAG_ERROR, DC_SHAPE, &l, "expected %d to %d outputs, got %d",
		            info->min_out, info->max_out, n->n_out);
		return -1;
	}
	for (int i = 0; i < n->n_in; i++) {
		if (n->in[i] == IR_NONE)
			continue;
		const Value *v = &g->values[n->in[i]];
		if (v->type.dtype == DT_UNDEF || dtype_size(v->type.dtype) == 0) {
			l.slot_kind = "input";
			l.slot = i;
			l.tensor = v->name;
			diag_report(d, DIAG_ERROR, DC_TYPE, &l, "element type %s is not supported",
			            dtype_name(v->type.dtype));
			return -1;
		}
	}
	return 0;
}

int ops_infer_node(Graph *g, NodeId id, DiagSink *d)
{
	InferCtx c = { g, id, d };
	Node *n = &g->nodes[id];
	bool done = false;
	if (check_arity(g, id, d) || ops_seq_guard(g, id, d, &done))
		return -1;
	if (done)
		return 0;
	if (op_info(n->op)->impl->infer(&c))
		return -1;
	n = &g->nodes[id];   /* infer may add nodes (Loop unrolling): the array can move */
	for (int i = 0; i < n->n_out; i++) {
		if (n->out[i] == IR_NONE)
			continue;
		Value *v = &g->values[n->out[i]];
		int64_t bytes = type_bytes(&v->type);
		if (v->type.dtype == DT_UNDEF)
			die("%s: infer left output %d untyped", ir_op_name(n->op), i);
		for (int k = 0; k < v->type.rank; k++)
			if (v->type.dims[k] < 0)
				bytes = -1;
		if (bytes < 0 || bytes > MAX_TENSOR_BYTES) {
			DiagLoc l = ir_node_loc(g, id);
			char buf[128];
			l.slot_kind = "output";
			l.slot = i;
			l.tensor = v->name;
			diag_report(d, DIAG_ERROR, DC_SHAPE, &l, "invalid or too large shape %s",
			            type_format(&v->type, buf, sizeof buf));
			return -1;
		}
	}
	return 0;
}

static int infer_region(Graph *g, RegionId r, DiagSink *d, bool fold)
{
	/* re-read the region each step: an If inlined by its infer() inserts its (already
	 * inferred) branch right after itself, which grows the node list */
	for (int i = 0; i < g->regions[r].n_nodes; i++) {
		NodeId id = g->regions[r].nodes[i];
		int before = g->regions[r].n_nodes;
		if (g->nodes[id].dead)
			continue;
		if (ops_infer_node(g, id, d))
			return -1;
		if (g->nodes[id].dead) {
			/* the nodes it inserted are inferred; those that produced a branch's
			 * outputs could not fold inside it (a body output needs a producer) and
			 * may fold now, so shapes computed in a branch stay compile-time */
			int added = g->regions[r].n_nodes - before;
			for (int k = 1; fold && k <= added; k++) {
				NodeId q = g->regions[r].nodes[i + k];
				if (ops_node_foldable(g, q) && ops_fold_node(g, q, d))
					return -1;
			}
			i += added;
			continue;
		}
		if (fold && ops_node_foldable(g, id) && ops_fold_node(g, id, d))
			return -1;
	}
	return 0;
}

int ops_infer_region(Graph *g, RegionId r, DiagSink *d)
{
	return infer_region(g, r, d, true);
}

int ops_infer_graph(Graph *g, DiagSink *d, bool fold)
{
	if (infer_region(g, 0, d, fold))
		return -1;
	return ops_seq_finish(g, d);
}
