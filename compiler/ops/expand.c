/* expand.c — building the expansion of a node that inference rewrites into ordinary
 * nodes (graph_rewrite.h lists which): one new node per call, named after the node
 * being rewritten and appended to its region, its output a new value "<node>.<what>"
 * unless the caller passes the node's own output. rw_place_after then moves the new
 * nodes right after the node and infers and folds them. */
#include "graph_rewrite.h"

#include <stdlib.h>

NodeId rw_add_node(InferCtx *c, Op op, const ValueId *in, int n_in, const ValueId *out,
                   int n_out, const RawAttr *raw, int n_raw)
{
	Graph *g = c->g;
	return rw_node_new(g, g->nodes[c->node].region, op, in, n_in, out, n_out,
	                   ir_node_name(g, c->node), raw, n_raw, c->diags);
}

ValueId rw_i64_const(InferCtx *c, const char *what, int n, const int64_t *v)
{
	Graph *g = c->g;
	int64_t len = n;
	Type t = type_make(DT_I64, 1, &len);
	return ir_value_new_const(g, g->nodes[c->node].region,
	                          arena_printf(&g->arena, "%s.%s", ir_node_name(g, c->node), what),
	                          &t, v);
}

ValueId rw_step(InferCtx *c, Op op, const ValueId *in, int n_in, ValueId out,
                const RawAttr *raw, int n_raw, const char *what)
{
	Graph *g = c->g;
	if (out == IR_NONE)
		out = ir_value_new(g, infer_node(c)->region,
		                   arena_printf(&g->arena, "%s.%s", ir_node_name(g, c->node), what), NULL);
	rw_add_node(c, op, in, n_in, &out, 1, raw, n_raw);
	return out;
}

ValueId rw_cast(InferCtx *c, ValueId v, DType to, const char *what)
{
	RawAttr r = rw_raw_int("to", to);
	return rw_step(c, OP_CAST, &v, 1, IR_NONE, &r, 1, what);
}

ValueId rw_reshape(InferCtx *c, ValueId v, int rank, const int64_t *dims, ValueId out,
                   const char *what)
{
	ValueId in[2] = { v, rw_i64_const(c, arena_printf(&c->g->arena, "%s_shape", what), rank,
	                                  dims) };
	return rw_step(c, OP_RESHAPE, in, 2, out, NULL, 0, what);
}

ValueId rw_float_const(InferCtx *c, DType t, int rank, const int64_t *dims, const double *v,
                       const char *what)
{
	Graph *g = c->g;
	Type ty = type_make(t == DT_F64 ? DT_F64 : DT_F32, rank, dims);
	int64_t n = type_numel(&ty);
	void *data = malloc((size_t)(type_bytes(&ty) ? type_bytes(&ty) : 1));
	if (!data)
		die("out of memory");
	for (int64_t i = 0; i < n; i++) {
		if (t == DT_F64)
			((double *)data)[i] = v[i];
		else
			((float *)data)[i] = (float)v[i];
	}
	const char *name = arena_printf(&g->arena, "%s.%s%s", ir_node_name(g, c->node), what,
	                                ty.dtype == t ? "" : "_f32");
	ValueId k = ir_value_new_const(g, infer_node(c)->region, name, &ty, data);
	free(data);
	return ty.dtype == t ? k : rw_cast(c, k, t, what);   /* f16 / bf16: folded */
}

int rw_never_lowered(LowerCtx *c)
{
	(void)c;
	return -1;
}

int rw_place_after(Graph *g, NodeId id, int first, DiagSink *d)
{
	RegionId r = g->nodes[id].region;
	Region *rr = &g->regions[r];
	int m = rr->n_nodes - first, pos = 0, rc = 0;
	NodeId *moved = malloc((size_t)(m ? m : 1) * sizeof *moved);
	if (!moved)
		die("out of memory");
	memcpy(moved, &rr->nodes[first], (size_t)m * sizeof *moved);
	while (rr->nodes[pos] != id)
		pos++;
	memmove(&rr->nodes[pos + 1 + m], &rr->nodes[pos + 1], (size_t)(first - pos - 1) * sizeof *moved);
	memcpy(&rr->nodes[pos + 1], moved, (size_t)m * sizeof *moved);

	/* infer the copies in order (the caller skips what was inserted after the node) */
	for (int i = 0; i < m && !rc; i++) {
		NodeId x = moved[i];
		if (g->nodes[x].dead)
			continue;
		rc = ops_infer_node(g, x, d);
		if (!rc && !g->nodes[x].dead && ops_node_foldable(g, x))
			rc = ops_fold_node(g, x, d);
	}
	free(moved);
	return rc;
}
