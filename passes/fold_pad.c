/* fold_pad.c — folds a constant Pad into the Conv or MaxPool after it, as that node's
 * own padding: detectors pad explicitly before a stride-2 convolution (TensorFlow's
 * "SAME" exported as Pad + VALID Conv), which costs a full copy of the tensor.
 *   Conv(Pad(x, zeros on H, W), pads p) = Conv(x, pads p + the Pad's)
 *   MaxPool(Pad(x, -inf on H, W), pads p) = MaxPool(x, pads p + the Pad's)
 * both exactly: a zero contributes 0 * w = +-0 to a sum that starts from the bias
 * or a first product, and -inf is what MaxPool's own padding reads. Only when:
 *   - Pad is constant mode with that value, on float data, pads only the spatial axes,
 *     and none of its pads is negative (a crop);
 *   - its output feeds only this node, as input 0;
 *   - the node pads explicitly (auto_pad NOTSET) and, MaxPool, rounds down (ceil_mode
 *     0, whose rule for a last window in the end pad would see the difference) and
 *     has no Indices output (those count the padded positions);
 *   - each side's padding stays shorter than the dilated kernel (what the
 *     kernels' windows assume: every window touches the input). */
#include "passes.h"
#include "rewrite.h"
#include "op_attrs.h"
#include "opimpl.h"
#include "shape.h"     /* INGOT_PAD_CONSTANT */

#include <math.h>
#include <stdio.h>
#include <string.h>

#define CONV_SP 3     /* spatial axes folded at most */

/* The Pad node feeding node id's input 0 that folds into it, or IR_NONE. */
static NodeId foldable(Graph *g, const Uses *u, NodeId id, int64_t add[2 * CONV_SP])
{
	const Node *n = &g->nodes[id];
	const ValueId x = n->in[0];
	const Value *xv = &g->values[x];
	const IntList *pads, *dil, *ks;
	int auto_pad, nsp;
	if (xv->producer == IR_NONE || g->nodes[xv->producer].op != OP_PAD || rw_sole_user(g, u, x) != id)
		return IR_NONE;
	for (int k = 1; k < n->n_in; k++)   /* input 0 only */
		if (n->in[k] == x)
			return IR_NONE;
	const NodeId pid = xv->producer;
	const Node *pn = &g->nodes[pid];
	const PadAttrs *pa = ops_pad_attrs(g, pid);
	const Type *t = &g->values[pn->in[0]].type;
	if (pn->dead || pn->region != n->region || !pa || pa->mode != INGOT_PAD_CONSTANT ||
	    (t->dtype != DT_F32 && t->dtype != DT_F64) || t->rank < 3 || t->rank > 2 + CONV_SP ||
	    pa->pads.n != 2 * t->rank)
		return IR_NONE;
	nsp = t->rank - 2;
	const double v = scalar_to_f64(&pa->value);
	if (n->op == OP_CONV) {
		const ConvAttrs *ca = ops_conv_attrs(g, id);
		if (v != 0.0)
			return IR_NONE;
		auto_pad = ca->auto_pad;
		pads = &ca->pads;
		dil = &ca->dilations;
		ks = NULL;
	} else {
		const PoolAttrs *qa = ops_pool_attrs(g, id);
		if (!(isinf(v) && v < 0) || qa->ceil_mode ||
		    (n->n_out > 1 && n->out[1] != IR_NONE && u->count[n->out[1]] > 0))
			return IR_NONE;
		auto_pad = qa->auto_pad;
		pads = &qa->pads;
		dil = &qa->dilations;
		ks = &qa->kernel_shape;
	}
	if (auto_pad != 0 /* NOTSET */ || (pads->n > 0 && pads->n != 2 * nsp))
		return IR_NONE;
	for (int a = 0; a < 2; a++)   /* batch and channels stay */
		if (pa->pads.v[a] || pa->pads.v[t->rank + a])
			return IR_NONE;
	for (int i = 0; i < nsp; i++) {
		int64_t k = ks ? (ks->n == nsp ? ks->v[i] : 0)
		               : g->values[n->in[1]].type.dims[2 + i];
		int64_t d = dil->n == nsp ? dil->v[i] : 1, ek = (k - 1) * d + 1;
		for (int side = 0; side < 2; side++) {
			int64_t p = pa->pads.v[side * t->rank + 2 + i];
			int64_t own = pads->n > 0 ? pads->v[side * nsp + i] : 0;
			if (p < 0 || k < 1 || own + p >= ek)
				return IR_NONE;
			add[side * nsp + i] = own + p;
		}
	}
	return pid;
}

int pass_fold_pad(Graph *g, PassCtx *ctx)
{
	Uses u = { 0 };
	int folded = 0;
	rw_uses_compute(g, &u);
	for (RegionId r = 0; r < g->n_regions; r++)
		for (int i = 0; i < g->regions[r].n_nodes; i++) {
			const NodeId id = g->regions[r].nodes[i];
			int64_t pads[2 * CONV_SP];
			Node *n = &g->nodes[id];
			if (n->dead || (n->op != OP_CONV && n->op != OP_MAX_POOL))
				continue;
			const NodeId pid = foldable(g, &u, id, pads);
			if (pid == IR_NONE)
				continue;
			const int nsp = g->values[n->in[0]].type.rank - 2;
			ValueId in[4];
			for (int k = 0; k < n->n_in && k < 4; k++)
				in[k] = n->in[k];
			in[0] = g->nodes[pid].in[0];
			ops_set_list(g, n->op == OP_CONV ? &ops_conv_attrs(g, id)->pads : &ops_pool_attrs(g, id)->pads,
			             pads, 2 * nsp);
			rw_node_set_inputs(g, id, in, g->nodes[id].n_in);
			g->nodes[pid].dead = true;
			rw_origins_prepend(g, id, pid);
			rw_reinfer(g, id);
			folded++;
			rw_uses_compute(g, &u);
		}
	rw_uses_free(&u);
	if (folded)
		snprintf(ctx->changed, sizeof ctx->changed, "%d Pad nodes folded into the padding of the "
		         "Conv/MaxPool after them", folded);
	return 0;
}
