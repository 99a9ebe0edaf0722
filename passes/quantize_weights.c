/* quantize_weights.c — weight-only int8 (`--quantize weights-int8`): the constant f32
 * weight matrix of every MatMul and Gemm becomes int8, symmetric per output column
 * (scale = max |w| / 127 over the column, zero point 0, values in [-127, 127]),
 * behind a DequantizeLinear; fold_qdq, which runs next, turns MatMul(a, DQ(w)) into
 * MatMulW8, whose kernel reads the int8 weights and scales each column's sum once.
 * Activations stay f32. The weights are made as --quantize int8 makes them
 * (quant_weight, quantize.c). A weight read by nodes of other kinds stays as it is for them;
 * matrices under 64 elements are left alone (no saving worth the rounding). */
#include "passes.h"
#include "rewrite.h"
#include "op_attrs.h"

#include <string.h>

/* Node id's weight slot 1 becomes DQ(int8 copy): returns false when it does not qualify. */
static bool quantize_one(Graph *g, NodeId id, DiagSink *d)
{
	const Node *n = &g->nodes[id];
	ValueId wv = n->in[1];
	bool tb = n->op == OP_GEMM && ops_gemm_attrs(g, id)->trans_b;
	if ((n->op != OP_MATMUL && n->op != OP_GEMM) || !g->values[wv].is_const ||
	    g->values[wv].type.dtype != DT_F32 || g->values[wv].type.rank != 2 ||
	    type_numel(&g->values[wv].type) < 64 || g->values[n->in[0]].is_const)
		return false;
	ValueId out = quant_weight(g, n->region, wv, tb ? 0 : 1, 127, d);   /* per output column */
	if (out == IR_NONE)
		die("quantize_weights: the weight's DequantizeLinear does not infer");
	ValueId nin[4];
	memcpy(nin, g->nodes[id].in, (size_t)g->nodes[id].n_in * sizeof *nin);
	nin[1] = out;
	rw_node_set_inputs(g, id, nin, g->nodes[id].n_in);
	return true;
}

int pass_quantize_weights(Graph *g, PassCtx *ctx)
{
	int done = 0;
	for (RegionId r = 0; r < g->n_regions; r++)
		for (int i = 0; i < g->regions[r].n_nodes; i++) {
			NodeId id = g->regions[r].nodes[i];
			if (!g->nodes[id].dead && quantize_one(g, id, ctx->diags)) {
				done++;
				i++;            /* the DequantizeLinear now sits at the region's front */
			}
		}
	if (done)
		snprintf(ctx->changed, sizeof ctx->changed, "%d weight matrices to int8", done);
	return 0;
}
