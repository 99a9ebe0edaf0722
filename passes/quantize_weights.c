/* quantize_weights.c — weight-only int8 (`--quantize weights-int8`): the constant f32
 * weight matrix of every MatMul and Gemm becomes int8, symmetric per output column
 * (scale = max |w| / 127 over the column, zero point 0, values in [-127, 127]),
 * behind a DequantizeLinear; fold_qdq, which runs next, turns MatMul(a, DQ(w)) into
 * MatMulW8, whose kernel reads the int8 weights and scales each column's sum once.
 * Activations stay f32. A weight read by nodes of other kinds stays as it is for them;
 * matrices under 64 elements are left alone (no saving worth the rounding). */
#include "passes.h"
#include "rewrite.h"
#include "op_attrs.h"

#include <math.h>
#include <stdlib.h>
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
	const float *w = ir_const_data(g, wv);
	int64_t rows = g->values[wv].type.dims[0], cols = g->values[wv].type.dims[1];
	int64_t n_out = tb ? rows : cols;           /* one scale per output column */
	float *s = malloc((size_t)n_out * sizeof *s);
	int8_t *q = malloc((size_t)(rows * cols));
	if (!s || !q)
		die("out of memory");
	for (int64_t c = 0; c < n_out; c++) {
		float mx = 0.0f;
		for (int64_t k = 0; k < (tb ? cols : rows); k++) {
			float v = fabsf(tb ? w[c * cols + k] : w[k * cols + c]);
			mx = v > mx ? v : mx;
		}
		s[c] = mx > 0.0f && isfinite(mx) ? mx / 127.0f : 1.0f;
	}
	for (int64_t i = 0; i < rows; i++)
		for (int64_t j = 0; j < cols; j++) {
			double v = rint((double)w[i * cols + j] / (double)s[tb ? i : j]);
			q[i * cols + j] = (int8_t)(v < -127 ? -127 : v > 127 ? 127 : v != v ? 0 : v);
		}
	RegionId r = n->region;
	const char *base = g->values[wv].name;
	Type qt = type_make(DT_I8, 2, g->values[wv].type.dims);
	Type st = type_make(DT_F32, 1, &n_out);
	ValueId in[2] = { rw_const_new(g, r, base, &qt, q), rw_const_new(g, r, base, &st, s) };
	free(s);
	free(q);
	ValueId out = ir_value_new(g, r, arena_printf(&g->arena, "%s.int8", base), NULL);
	NodeId dq = rw_node_new(g, r, OP_DEQUANTIZE_LINEAR, in, 2, &out, 1, ir_node_name(g, id),
	                        NULL, 0, d);
	ops_quant_attrs(g, dq)->axis = tb ? 0 : 1;     /* per output column */
	DiagSink quiet;
	diag_sink_init(&quiet, NULL);
	if (ops_infer_node(g, dq, &quiet))
		die("quantize_weights: the weight's DequantizeLinear does not infer");
	diag_sink_free(&quiet);
	rw_node_move_before(g, dq, id);
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
				i++;            /* the DequantizeLinear now sits before the node */
			}
		}
	if (done)
		snprintf(ctx->changed, sizeof ctx->changed, "%d weight matrices to int8", done);
	return 0;
}
