/* matmul_add_to_gemm.c — MatMul(A, B) followed by Add(·, bias), with A and B 2-D,
 * B constant and the bias a constant that broadcasts to [M, N] without growing it,
 * becomes Gemm(A, B, bias): one kernel call, the bias added in the product's store.
 * The Gemm computes fl(acc + bias), exactly what MatMul then Add compute, for f32,
 * f64 and integers (not f16/bf16, where the separate MatMul rounds in between).
 * The MatMul node becomes the Gemm and takes over the Add's output value. */
#include "passes.h"
#include "rewrite.h"
#include "op_attrs.h"

static bool exact_dtype(DType dt)
{
	return dt == DT_F32 || dt == DT_F64 || dt == DT_I32 || dt == DT_I64 || dt == DT_U32 ||
	       dt == DT_U64;
}

/* The Add that alone reads MatMul id's output with a usable bias, and the bias. */
static NodeId match(Graph *g, const Uses *u, NodeId id, ValueId *bias)
{
	const Node *mm = &g->nodes[id];
	const EpilogueAttrs *e = ops_epilogue_attrs(g, id);
	if (e->activation || e->residual || mm->n_in != 2 || mm->n_out != 1)
		return IR_NONE;
	const Type *a = &g->values[mm->in[0]].type, *b = &g->values[mm->in[1]].type;
	const Type *y = &g->values[mm->out[0]].type;
	if (a->rank != 2 || b->rank != 2 || !g->values[mm->in[1]].is_const ||
	    !exact_dtype(y->dtype))
		return IR_NONE;
	NodeId add = rw_sole_user(g, u, mm->out[0]);
	if (add == IR_NONE || g->nodes[add].op != OP_ADD || g->nodes[add].region != mm->region)
		return IR_NONE;
	const Node *an = &g->nodes[add];
	ValueId c = an->in[0] == mm->out[0] ? an->in[1] : an->in[0];
	if (c == mm->out[0] || !g->values[c].is_const)
		return IR_NONE;
	const Type *ct = &g->values[c].type, *z = &g->values[an->out[0]].type;
	/* the Add must not broadcast the product itself (rank <= 2, same output dims) */
	if (ct->rank > 2 || ct->dtype != y->dtype || z->dtype != y->dtype ||
	    !type_same_shape(z, y))
		return IR_NONE;
	*bias = c;
	return add;
}

int pass_matmul_add_to_gemm(Graph *g, PassCtx *ctx)
{
	Uses u = { 0 };
	int fused = 0;
	rw_uses_compute(g, &u);
	for (RegionId r = 0; r < g->n_regions; r++) {
		for (int i = 0; i < g->regions[r].n_nodes; i++) {
			NodeId id = g->regions[r].nodes[i], add;
			ValueId bias;
			if (g->nodes[id].dead || g->nodes[id].op != OP_MATMUL ||
			    (add = match(g, &u, id, &bias)) == IR_NONE)
				continue;
			ValueId in[3] = { g->nodes[id].in[0], g->nodes[id].in[1], bias };
			ValueId y = g->nodes[add].out[0];
			if (rw_node_reset(g, id, OP_GEMM, in, 3, NULL, 0, ctx->diags)) {
				rw_uses_free(&u);
				return -1;
			}
			Node *n = &g->nodes[id];
			g->values[n->out[0]].producer = IR_NONE;
			n->out[0] = y;
			g->values[y].producer = id;
			g->values[y].producer_slot = 0;
			g->nodes[add].dead = true;
			rw_origins_append(g, id, add);
			rw_reinfer(g, id);
			fused++;
			rw_uses_compute(g, &u);
		}
	}
	rw_uses_free(&u);
	if (fused)
		snprintf(ctx->changed, sizeof ctx->changed, "%d MatMul+Add pairs fused into Gemm", fused);
	return 0;
}
