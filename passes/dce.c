/* dce.c — dead-code elimination: a node is live when one of its outputs is a region
 * output or feeds a live node; everything else is marked dead. */
#include "passes.h"

#include <stdlib.h>

int pass_dce(Graph *g, PassCtx *ctx)
{
	unsigned char *live = calloc((size_t)g->n_values + 1, 1);
	int removed = 0;
	if (!live)
		die("out of memory");
	for (RegionId r = g->n_regions - 1; r >= 0; r--) {
		const Region *reg = &g->regions[r];
		for (int i = 0; i < reg->n_outputs; i++)
			live[reg->outputs[i]] = 1;
		for (int i = reg->n_nodes - 1; i >= 0; i--) {
			Node *n = &g->nodes[reg->nodes[i]];
			bool used = n->n_bodies > 0;
			if (n->dead)
				continue;
			for (int k = 0; k < n->n_out; k++)
				if (n->out[k] != IR_NONE && live[n->out[k]])
					used = true;
			if (!used) {
				n->dead = true;
				removed++;
				continue;
			}
			for (int k = 0; k < n->n_in; k++)
				if (n->in[k] != IR_NONE)
					live[n->in[k]] = 1;
		}
	}
	free(live);
	if (removed)
		snprintf(ctx->changed, sizeof ctx->changed, "%d nodes removed", removed);
	return 0;
}
