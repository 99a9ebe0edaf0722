/* fold_constants.c — constant folding: every node whose inputs are all constant is
 * evaluated by the reference kernels (the ones the C target emits) and replaced by
 * its results. Shape inference already folds as it goes; this pass catches what
 * later rewrites made constant, and the DequantizeLinear of constants that inference
 * leaves for fold_qdq. */
#include "passes.h"
#include "opimpl.h"

int pass_fold_constants(Graph *g, PassCtx *ctx)
{
	int folded = 0;
	g->qdq_folded = true;    /* fold_qdq runs before this pass when in the pipeline */
	for (RegionId r = 0; r < g->n_regions; r++) {
		const Region *reg = &g->regions[r];
		for (int i = 0; i < reg->n_nodes; i++) {
			NodeId id = reg->nodes[i];
			if (!ops_node_foldable(g, id))
				continue;
			if (ops_fold_node(g, id, ctx->diags))
				return -1;
			if (g->nodes[id].dead)
				folded++;
		}
	}
	if (folded)
		snprintf(ctx->changed, sizeof ctx->changed, "%d nodes folded", folded);
	return 0;
}
