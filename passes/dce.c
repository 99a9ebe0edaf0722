/* dce.c — dead-code elimination: a node is live when one of its outputs is a region
 * output or feeds a live node; everything else is marked dead. A live control node
 * keeps its bodies, whose nodes count as readers of the outer values they use; the
 * bodies of a dead one die with it. */
#include "passes.h"
#include "control_export.h"
#include "graph_rewrite.h"

#include <stdlib.h>

static int dce_region(Graph *g, RegionId r, unsigned char *live)
{
	const Region *reg = &g->regions[r];
	int removed = 0;
	for (int i = 0; i < reg->n_outputs; i++)
		live[reg->outputs[i]] = 1;
	for (int i = reg->n_nodes - 1; i >= 0; i--) {
		Node *n = &g->nodes[reg->nodes[i]];
		bool used = false;
		if (n->dead)
			continue;
		for (int k = 0; k < n->n_out; k++)
			if (n->out[k] != IR_NONE && live[n->out[k]])
				used = true;
		if (!used) {
			n->dead = true;
			for (int b = 0; b < n->n_bodies; b++)
				rw_region_kill(g, n->bodies[b]);
			removed++;
			continue;
		}
		/* a body reads outer values while its node runs: before the node's inputs */
		for (int b = 0; b < n->n_bodies; b++)
			removed += dce_region(g, n->bodies[b], live);
		for (int k = 0; k < n->n_in; k++)
			if (n->in[k] != IR_NONE)
				live[n->in[k]] = 1;
	}
	return removed;
}

int pass_dce(Graph *g, PassCtx *ctx)
{
	unsigned char *live = calloc((size_t)g->n_values + 1, 1);
	int removed;
	if (!live)
		die("out of memory");
	removed = dce_region(g, 0, live);
	free(live);
	if (removed)
		snprintf(ctx->changed, sizeof ctx->changed, "%d nodes removed", removed);
	return 0;
}
