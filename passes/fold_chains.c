/* fold_chains.c — collapses chains of pure data-layout nodes. A chain of OPF_RESHAPE
 * nodes (Reshape/Flatten/Squeeze/Unsqueeze) becomes one Reshape to the final shape
 * (a new i64 shape constant, so 0 and -1 entries never refer to a dim of a bypassed
 * input); Transpose after Transpose (OPF_PERMUTE) becomes one Transpose with the
 * composed permutation, or nothing when that is the identity. The last node of a
 * chain is rewritten in place and keeps its output value (graph output names
 * survive); the bypassed node must have no other use. */
#include "passes.h"
#include "rewrite.h"
#include "op_attrs.h"

#include <string.h>

/* The node producing n's input 0 when it is live, of an op with OPF_* `flag`, and n
 * is the only reader of that value; else IR_NONE. */
static NodeId chain_parent(Graph *g, const Uses *u, NodeId id, unsigned flag)
{
	const Node *n = &g->nodes[id];
	if (n->n_in < 1 || n->in[0] == IR_NONE)
		return IR_NONE;
	const Value *x = &g->values[n->in[0]];
	if (x->producer == IR_NONE || x->dynamic || rw_sole_user(g, u, n->in[0]) != id)
		return IR_NONE;
	const Node *p = &g->nodes[x->producer];
	if (p->dead || p->region != n->region || !op_has(p->op, flag) || p->n_in < 1 ||
	    p->in[0] == IR_NONE || p->n_out != 1)
		return IR_NONE;
	return x->producer;
}

/* n := Reshape(src, [final dims]). */
static int fold_reshape(Graph *g, NodeId id, NodeId parent, DiagSink *d)
{
	Node *n = &g->nodes[id];
	const Type *y = &g->values[n->out[0]].type;
	int64_t dims[IR_MAX_RANK];
	bool has_zero = false;
	int opset = n->opset;
	for (int k = 0; k < y->rank; k++) {
		dims[k] = y->dims[k];
		has_zero |= dims[k] == 0;
	}
	/* a literal 0 dim needs allowzero (opset 14); the shape input needs opset 5 */
	if (opset < 5 || (has_zero && opset < 14))
		return 1;
	int64_t rank = y->rank;
	Type st = type_make(DT_I64, 1, &rank);
	char base[256];
	snprintf(base, sizeof base, "%.200s_shape", g->values[n->out[0]].name);
	ValueId shape = rw_const_new(g, n->region, base, &st, dims);
	n = &g->nodes[id];
	ValueId in[2] = { g->nodes[parent].in[0], shape };
	const int64_t allowzero = 1;
	if (rw_node_reset(g, id, OP_RESHAPE, in, 2, NULL, 0, d))
		return -1;
	if (has_zero)
		ops_set_list(g, &ops_reshape_attrs(g, id)->allowzero, &allowzero, 1);
	return 0;
}

/* The permutation of a Transpose node (the reversed default when absent). */
static void get_perm(Graph *g, NodeId id, int rank, int64_t *perm)
{
	const IntList *p = &ops_transpose_attrs(g, id)->perm;
	for (int k = 0; k < rank; k++)
		perm[k] = p->n == rank ? p->v[k] : rank - 1 - k;
}

/* Composes the parent's perm into n's; returns 1 when the result is the identity
 * and both nodes went away, 0 when n now reads the parent's input, -1 when the
 * identity could not be removed (n's output is a graph output fed by an input). */
static int fold_transpose(Graph *g, NodeId id, NodeId parent)
{
	Node *n = &g->nodes[id];
	int rank = g->values[n->out[0]].type.rank;
	int64_t p1[IR_MAX_RANK], p2[IR_MAX_RANK], c[IR_MAX_RANK];
	bool ident = true;
	get_perm(g, parent, rank, p1);
	get_perm(g, id, rank, p2);
	/* y[i] = t[p2[i]] = x[p1[p2[i]]] */
	for (int k = 0; k < rank; k++) {
		c[k] = p1[p2[k]];
		ident &= c[k] == k;
	}
	ValueId src = g->nodes[parent].in[0];
	if (ident) {
		n->dead = true;
		g->nodes[parent].dead = true;
		if (rw_redirect(g, n->out[0], src))
			return 1;
		n->dead = false;
		g->nodes[parent].dead = false;
		return -1;
	}
	IntList *perm = &ops_transpose_attrs(g, id)->perm;
	perm->v = arena_array(&g->arena, (size_t)rank, sizeof *perm->v);
	memcpy(perm->v, c, (size_t)rank * sizeof *c);
	perm->n = rank;
	n->in[0] = src;
	return 0;
}

int pass_fold_chains(Graph *g, PassCtx *ctx)
{
	Uses u = { 0 };
	int reshapes = 0, transposes = 0;
	rw_uses_compute(g, &u);
	for (RegionId r = 0; r < g->n_regions; r++) {
		for (int i = 0; i < g->regions[r].n_nodes; i++) {
			NodeId id = g->regions[r].nodes[i], parent;
			Node *n = &g->nodes[id];
			if (n->dead || n->n_out != 1 || n->out[0] == IR_NONE ||
			    g->values[n->out[0]].dynamic)
				continue;
			if (op_has(n->op, OPF_RESHAPE) &&
			    (parent = chain_parent(g, &u, id, OPF_RESHAPE)) != IR_NONE) {
				int rc = fold_reshape(g, id, parent, ctx->diags);
				if (rc < 0)
					return -1;
				if (rc > 0)
					continue;
				g->nodes[parent].dead = true;
				rw_origins_prepend(g, id, parent);
				rw_reinfer(g, id);
				reshapes++;
			} else if (op_has(n->op, OPF_PERMUTE) &&
			           (parent = chain_parent(g, &u, id, OPF_PERMUTE)) != IR_NONE) {
				int rc = fold_transpose(g, id, parent);
				if (rc < 0)
					continue;
				if (rc == 0) {
					g->nodes[parent].dead = true;
					rw_origins_prepend(g, id, parent);
					rw_reinfer(g, id);
				}
				transposes += rc ? 2 : 1;
			} else {
				continue;
			}
			rw_uses_compute(g, &u);
		}
	}
	rw_uses_free(&u);
	if (reshapes || transposes)
		snprintf(ctx->changed, sizeof ctx->changed,
		         "%d reshape-chain nodes and %d transposes removed", reshapes, transposes);
	return 0;
}
