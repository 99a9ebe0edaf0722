/* fuse_layernorm.c — layer normalization as exporters spell it before opset 17,
 *     m = ReduceMean(x, last axis); d = x - m; v = ReduceMean(d ^ 2, last axis)
 *     y = d / Sqrt(v + eps) [* gamma] [+ beta]
 * (PyTorch's nn.LayerNorm at opset < 17, with gamma and beta constant vectors over
 * the last axis), becomes one LayerNormalization(x, gamma, beta, axis -1, eps): one
 * pass over the rows instead of nine nodes and four temporaries. Not bit-exact:
 * the LayerNormalization kernel takes the mean and variance in double, so results
 * move by a few float ulps (they get more accurate). The last node of the pattern
 * becomes the LayerNormalization and keeps its output; the others must have no
 * other reader. */
#include "passes.h"
#include "rewrite.h"
#include "op_attrs.h"

/* A live node of op `op` producing v in region r, else IR_NONE. */
static NodeId producer(const Graph *g, ValueId v, Op op, RegionId r)
{
	NodeId p = v == IR_NONE ? IR_NONE : g->values[v].producer;
	if (p == IR_NONE || g->nodes[p].dead || g->nodes[p].op != op || g->nodes[p].region != r)
		return IR_NONE;
	return p;
}

/* A constant scalar (any rank, one element) of value v. */
static bool const_scalar(const Graph *g, ValueId v, double *out)
{
	if (v == IR_NONE || !g->values[v].is_const || type_numel(&g->values[v].type) != 1)
		return false;
	*out = rw_const_f64(g, v, 0);
	return true;
}

/* ReduceMean over exactly the last axis of its input, keepdims 1. */
static bool mean_last(Graph *g, NodeId id)
{
	const Node *n = &g->nodes[id];
	const int rank = g->values[n->in[0]].type.rank;
	const ReduceAttrs *ra = ops_reduce_attrs(g, id);
	int64_t axis;
	if (rank < 1 || ra->keepdims != 1)
		return false;
	if (n->n_in > 1 && n->in[1] != IR_NONE) {          /* opset 18: axes as an input */
		double a;
		if (!const_scalar(g, n->in[1], &a))
			return false;
		axis = (int64_t)a;
	} else if (ra->axes.n == 1) {
		axis = ra->axes.v[0];
	} else {
		return false;
	}
	return axis == -1 || axis == rank - 1;
}

/* A constant vector of the last dim's length, typed like y, as gamma or beta. */
static bool channel_vector(const Graph *g, ValueId c, const Type *y)
{
	const Type *t = &g->values[c].type;
	return g->values[c].is_const && t->dtype == y->dtype && t->rank == 1 &&
	       t->dims[0] == y->dims[y->rank - 1];
}

/* The other input of a binary node than v. */
static ValueId other(const Node *n, ValueId v)
{
	return n->in[0] == v ? n->in[1] : n->in[0];
}

static bool sole(Graph *g, const Uses *u, ValueId v, NodeId user)
{
	return rw_sole_user(g, u, v) == user;
}

/* Matches the pattern ending at the Div `div`; on success rewrites it and returns 1. */
static int fuse_at(Graph *g, const Uses *u, NodeId div, DiagSink *dg)
{
	const Node *dn = &g->nodes[div];
	const RegionId r = dn->region;
	double two, eps;
	if (dn->n_in != 2 || dn->n_out != 1)
		return 0;
	const ValueId d = dn->in[0], s = dn->in[1];
	const NodeId sq = producer(g, s, OP_SQRT, r), sub = producer(g, d, OP_SUB, r);
	if (sq == IR_NONE || sub == IR_NONE || !sole(g, u, s, div))
		return 0;
	const ValueId e = g->nodes[sq].in[0];
	const NodeId add = producer(g, e, OP_ADD, r);
	if (add == IR_NONE || !sole(g, u, e, sq))
		return 0;
	ValueId v = g->nodes[add].in[0];
	NodeId var = producer(g, v, OP_REDUCE_MEAN, r);
	if (var == IR_NONE) {
		v = g->nodes[add].in[1];
		var = producer(g, v, OP_REDUCE_MEAN, r);
	}
	if (var == IR_NONE || !sole(g, u, v, add) || !const_scalar(g, other(&g->nodes[add], v), &eps) ||
	    !mean_last(g, var))
		return 0;
	const ValueId p = g->nodes[var].in[0];
	const NodeId pw = producer(g, p, OP_POW, r);
	if (pw == IR_NONE || !sole(g, u, p, var) || g->nodes[pw].in[0] != d ||
	    !const_scalar(g, g->nodes[pw].in[1], &two) || two != 2.0)
		return 0;
	const ValueId x = g->nodes[sub].in[0], m = g->nodes[sub].in[1];
	const NodeId mean = producer(g, m, OP_REDUCE_MEAN, r);
	if (mean == IR_NONE || g->nodes[mean].in[0] != x || !sole(g, u, m, sub) || !mean_last(g, mean))
		return 0;
	/* d feeds exactly the Pow and the Div */
	if (u->count[d] != 2)
		return 0;
	const Type *xt = &g->values[x].type;
	if (xt->dtype != DT_F32 || !type_equal(xt, &g->values[dn->out[0]].type) || xt->rank < 1 ||
	    g->values[x].dynamic)
		return 0;

	/* the optional affine part: * gamma, then + beta */
	NodeId last = div, mul = IR_NONE;
	ValueId gamma = IR_NONE, beta = IR_NONE, y = dn->out[0];
	NodeId next = rw_sole_user(g, u, y);
	if (next != IR_NONE && g->nodes[next].op == OP_MUL && g->nodes[next].region == r &&
	    channel_vector(g, other(&g->nodes[next], y), xt) &&
	    type_equal(&g->values[g->nodes[next].out[0]].type, xt)) {
		mul = last = next;
		gamma = other(&g->nodes[next], y);
		y = g->nodes[next].out[0];
		next = rw_sole_user(g, u, y);
		if (next != IR_NONE && g->nodes[next].op == OP_ADD && g->nodes[next].region == r &&
		    channel_vector(g, other(&g->nodes[next], y), xt) &&
		    type_equal(&g->values[g->nodes[next].out[0]].type, xt)) {
			last = next;
			beta = other(&g->nodes[next], y);
		}
	}
	if (gamma == IR_NONE) {            /* LayerNormalization needs a scale: ones */
		const int64_t len = xt->dims[xt->rank - 1];
		Type gt = type_make(DT_F32, 1, &len);
		float *ones = arena_array(&g->arena, (size_t)(len ? len : 1), sizeof *ones);
		for (int64_t k = 0; k < len; k++)
			ones[k] = 1.0f;
		gamma = rw_const_new(g, r, "layernorm_ones", &gt, ones);
	}

	ValueId in[3] = { x, gamma, beta };
	if (rw_node_reset(g, last, OP_LAYER_NORMALIZATION, in, beta == IR_NONE ? 2 : 3, NULL, 0, dg))
		return -1;
	ops_norm_attrs(g, last)->epsilon = (float)eps;      /* axis: the default -1 */
	/* the members before `last`, in the order they ran */
	const NodeId members[] = { mean, sub, pw, var, add, sq, div, mul };
	for (int k = (int)COUNTOF(members) - 1; k >= 0; k--)
		if (members[k] != IR_NONE && members[k] != last) {
			g->nodes[members[k]].dead = true;
			rw_origins_prepend(g, last, members[k]);
		}
	rw_reinfer(g, last);
	return 1;
}

int pass_fuse_layernorm(Graph *g, PassCtx *ctx)
{
	Uses u = { 0 };
	int fused = 0;
	rw_uses_compute(g, &u);
	for (RegionId r = 0; r < g->n_regions; r++)
		for (int i = 0; i < g->regions[r].n_nodes; i++) {
			const NodeId id = g->regions[r].nodes[i];
			int rc;
			if (g->nodes[id].dead || g->nodes[id].op != OP_DIV)
				continue;
			if ((rc = fuse_at(g, &u, id, ctx->diags)) < 0) {
				rw_uses_free(&u);
				return -1;
			}
			if (rc) {
				fused++;
				rw_uses_compute(g, &u);
			}
		}
	rw_uses_free(&u);
	if (fused)
		snprintf(ctx->changed, sizeof ctx->changed,
		         "%d decomposed layer norms fused into LayerNormalization", fused);
	return 0;
}
