/* remove_identity.c — removes nodes that copy their input unchanged: an
 * OPF_NOOP_SAME_TYPE op (Identity, Cast, Reshape/Flatten/Squeeze/Unsqueeze) whose
 * output has its input's type, inference Dropout (OPF_RANDOM_TRAINING, mask unused)
 * and Transpose (OPF_PERMUTE) with the identity permutation. Uses of
 * the output read the input instead; a graph output keeps its name (its data is
 * re-routed to it, or the node stays when that cannot be done). */
#include "passes.h"
#include "rewrite.h"
#include "op_attrs.h"

/* Dropout (OPF_RANDOM_TRAINING) is a copy unless it may train with a ratio > 0 (a
 * training_mode computed at run time leaves the decision to the kernel, so such a
 * node stays). */
static bool dropout_is_copy(const Graph *g, const Node *n, const Uses *u)
{
	if (n->n_out > 1 && n->out[1] != IR_NONE && u->count[n->out[1]] > 0)
		return false;                        /* the mask is used */
	return !ops_dropout_training(g, (NodeId)(n - g->nodes));
}

static bool identity_perm(Graph *g, NodeId id, int rank)
{
	const IntList *perm = &ops_transpose_attrs(g, id)->perm;
	if (perm->n < 0)                         /* the default reverses the dims */
		return rank <= 1;
	for (int k = 0; k < perm->n; k++)
		if (perm->v[k] != k)
			return false;
	return true;
}

/* Whether node id copies input 0 to output 0 unchanged. */
static bool is_copy(Graph *g, NodeId id, const Uses *u)
{
	const Node *n = &g->nodes[id];
	if (n->n_out < 1 || n->out[0] == IR_NONE || n->n_in < 1 || n->in[0] == IR_NONE ||
	    n->n_bodies)
		return false;
	const Type *x = &g->values[n->in[0]].type, *y = &g->values[n->out[0]].type;
	if (g->values[n->in[0]].dynamic || g->values[n->out[0]].dynamic || !type_equal(x, y))
		return false;
	if (op_has(n->op, OPF_NOOP_SAME_TYPE))
		return n->n_out == 1;
	if (op_has(n->op, OPF_RANDOM_TRAINING))
		return dropout_is_copy(g, n, u);
	if (op_has(n->op, OPF_PERMUTE))
		return identity_perm(g, id, x->rank);
	return false;
}

int pass_remove_identity(Graph *g, PassCtx *ctx)
{
	Uses u = { 0 };
	int removed = 0, kept = 0;
	rw_uses_compute(g, &u);
	for (RegionId r = 0; r < g->n_regions; r++) {
		for (int i = 0; i < g->regions[r].n_nodes; i++) {
			NodeId id = g->regions[r].nodes[i];
			Node *n = &g->nodes[id];
			if (n->dead || !is_copy(g, id, &u))
				continue;
			n->dead = true;
			if (!rw_redirect(g, n->out[0], n->in[0])) {
				n->dead = false;             /* a graph output fed by an input: keep the copy */
				kept++;
				continue;
			}
			removed++;
			rw_uses_compute(g, &u);
		}
	}
	rw_uses_free(&u);
	if (removed)
		snprintf(ctx->changed, sizeof ctx->changed, "%d no-op nodes removed%s", removed,
		         kept ? " (some kept for graph outputs)" : "");
	return 0;
}
