/* fuse_epilogue.c — folds what follows an OPF_LINEAR node (Conv / ConvTranspose /
 * Gemm / MatMul) into its kernel's store: first a residual Add of a tensor shaped
 * like the output (ResNet's skip connection; it becomes a trailing input), then one
 * OPF_ACTIVATION op (Relu, Clip with constant bounds, LeakyRelu, Sigmoid,
 * HardSigmoid, HardSwish, Tanh, Gelu). The kernels apply bias, residual, activation
 * in that order, rounding between steps as the separate ops do, so -O0 and -O2
 * agree. The fused node takes over the last member's output value (graph output
 * names survive), runs where the residual Add ran (the skip tensor may be computed
 * after the conv), and lists every member's ONNX name. Each fused member must be the only reader of
 * the value before it. Float dtypes only. First, x * HardSigmoid(x) becomes
 * HardSwish(x) anywhere (see hard_swish_from_mul). */
#include "passes.h"
#include "rewrite.h"
#include "op_attrs.h"
#include "ewmath.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ewtable.h"

/* The node after the linear node's output when it alone reads it in the same region. */
static NodeId next_member(Graph *g, const Uses *u, NodeId id)
{
	NodeId next = rw_sole_user(g, u, g->nodes[id].out[0]);
	if (next == IR_NONE || g->nodes[next].region != g->nodes[id].region ||
	    g->nodes[next].n_out != 1 || g->nodes[next].out[0] == IR_NONE)
		return IR_NONE;
	const Type *y = &g->values[g->nodes[id].out[0]].type;
	const Type *z = &g->values[g->nodes[next].out[0]].type;
	if (z->dtype != y->dtype || !type_same_shape(z, y) || g->values[g->nodes[next].out[0]].dynamic)
		return IR_NONE;
	return next;
}

/* The fused node takes over member m's output and name list; m goes away. */
static void absorb(Graph *g, NodeId id, NodeId m)
{
	Node *n = &g->nodes[id];
	ValueId y = g->nodes[m].out[0];
	g->values[n->out[0]].producer = IR_NONE;
	n->out[0] = y;
	g->values[y].producer = id;
	g->values[y].producer_slot = 0;
	g->nodes[m].dead = true;
	rw_origins_append(g, id, m);
}

static bool fuse_residual(Graph *g, NodeId id, NodeId add, EpilogueAttrs *e)
{
	Node *n = &g->nodes[id], *a = &g->nodes[add];
	ValueId y = n->out[0], in[4];
	if (a->op != OP_ADD || a->n_in != 2 || e->activation || e->residual)
		return false;
	ValueId r = a->in[0] == y ? a->in[1] : a->in[0];
	if (r == y || r == IR_NONE || !type_equal(&g->values[r].type, &g->values[y].type))
		return false;
	/* the residual goes in the last slot, after the optional bias/C (MatMul has none) */
	int slot = op_info(n->op)->max_in - 1;
	for (int k = 0; k < slot; k++)
		in[k] = k < n->n_in ? n->in[k] : IR_NONE;
	in[slot] = r;
	rw_node_set_inputs(g, id, in, slot + 1);
	e->residual = 1;
	rw_node_move_to(g, id, add);
	absorb(g, id, add);
	return true;
}

static void set_params(Graph *g, EpilogueAttrs *e, const float *v, int n)
{
	e->act_params.n = n ? n : -1;       /* absent, not an empty list */
	e->act_params.v = n ? arena_array(&g->arena, (size_t)n, sizeof *v) : NULL;
	if (n)
		memcpy(e->act_params.v, v, (size_t)n * sizeof *v);
}

/* A float attribute list's first value, or def when absent. */
static float first(const FloatList *l, float def)
{
	return l->n > 0 ? l->v[0] : def;
}

/* A Clip bound: a constant input (opset 11), else the attribute, else +-inf. False
 * when it is computed at run time or is not exactly a float. */
static bool clip_bound(Graph *g, NodeId id, int slot, const FloatList *attr, float def,
                       float *out)
{
	const Node *n = &g->nodes[id];
	if (slot < n->n_in && n->in[slot] != IR_NONE) {
		if (!g->values[n->in[slot]].is_const || type_numel(&g->values[n->in[slot]].type) != 1)
			return false;
		double v = rw_const_f64(g, n->in[slot], 0);
		*out = (float)v;
		return (double)*out == v || v != v;
	}
	*out = first(attr, def);
	return true;
}

/* The epilogue activation code (INGOT_EW_ACT_*) and parameters of node m, or
 * INGOT_EW_ACT_NONE when it is not one (OPF_ACTIVATION). Clip and Gelu are not unary
 * ops: Clip takes its bounds from constants, Gelu picks its code by `approximate`.
 * Every other activation is a unary op of ewtable.h that is an epilogue code too
 * (role UA); its parameters are its ONNX attributes, with the table's defaults. */
static int activation_of(Graph *g, NodeId m, float *p, int *np)
{
	const Node *n = &g->nodes[m];
	*np = 0;
	if (!op_has(n->op, OPF_ACTIVATION))
		return INGOT_EW_ACT_NONE;
	if (n->op == OP_CLIP) {
		const ClipAttrs *a = ops_clip_attrs(g, m);
		if (!clip_bound(g, m, 1, &a->min, -INFINITY, &p[0]) ||
		    !clip_bound(g, m, 2, &a->max, INFINITY, &p[1]))
			return INGOT_EW_ACT_NONE;
		*np = 2;
		return INGOT_EW_ACT_CLIP;
	}
	if (n->op == OP_GELU) {   /* approximate: 0 none, 1 tanh (an int list, see arith.c) */
		const IntList *a = &ops_math_attrs(g, m)->approximate;
		const int64_t v = a->n > 0 ? a->v[0] : 0;
		return v == 0 ? INGOT_EW_ACT_GELU : v == 1 ? INGOT_EW_ACT_GELU_TANH : INGOT_EW_ACT_NONE;
	}
	const UnaryAttrs *u = ops_unary_attrs(g, m);
	if (!u)
		return INGOT_EW_ACT_NONE;
#define EP_P0 0
#define EP_PHS 0
#define EP_PA(da) (p[0] = first(&u->alpha, da), 1)
#define EP_PAB(da, db) (p[0] = first(&u->alpha, da), p[1] = first(&u->beta, db), 2)
#define EP_PAG(da, dg) (p[0] = first(&u->alpha, da), p[1] = first(&u->gamma, dg), 2)
#define X(N, On, fn, R, U, A, PAR, S, V) INGOT_EW_IF_ACT_##R(INGOT_EW_IF_UNARY_##R( \
	if (n->op == OP_##N) { *np = EP_##PAR; return INGOT_EW_ACT_##N; }))
	INGOT_EW_TABLE(X)
#undef X
#undef EP_P0
#undef EP_PHS
#undef EP_PA
#undef EP_PAB
#undef EP_PAG
	return INGOT_EW_ACT_NONE;
}

static bool fuse_activation(Graph *g, NodeId id, NodeId m, EpilogueAttrs *e)
{
	float p[2];
	int np;
	int code = activation_of(g, m, p, &np);
	if (code == INGOT_EW_ACT_NONE || e->activation || g->nodes[m].in[0] != g->nodes[id].out[0])
		return false;
	e->activation = code;
	set_params(g, e, p, np);
	absorb(g, id, m);
	return true;
}

static bool float_dtype(DType dt)
{
	return dt == DT_F16 || dt == DT_F32 || dt == DT_F64 || dt == DT_BF16;
}

/* x * HardSigmoid(x) with HardSwish's alpha 1/6 and beta 0.5 (PyTorch exports
 * hardswish so before opset 14) is HardSwish(x), computed by the same expression:
 * node mul becomes a HardSwish whose origins are both. Then x has one reader, and a
 * Conv or Gemm producing it takes the HardSwish into its epilogue. */
static bool hard_swish_from_mul(Graph *g, const Uses *u, NodeId mul, DiagSink *d)
{
	Node *m = &g->nodes[mul];
	if (m->op != OP_MUL || m->n_in != 2 || m->n_out != 1 || m->out[0] == IR_NONE)
		return false;
	for (int k = 0; k < 2; k++) {
		ValueId x = m->in[k], h = m->in[1 - k];
		NodeId hs = h == IR_NONE ? IR_NONE : g->values[h].producer;
		if (x == IR_NONE || hs == IR_NONE || g->nodes[hs].dead || g->nodes[hs].op != OP_HARD_SIGMOID ||
		    g->nodes[hs].in[0] != x || rw_sole_user(g, u, h) != mul ||
		    !float_dtype(g->values[x].type.dtype) ||
		    !type_equal(&g->values[x].type, &g->values[m->out[0]].type) ||
		    first(&ops_unary_attrs(g, hs)->alpha, 0.2f) != 1.0f / 6.0f ||
		    first(&ops_unary_attrs(g, hs)->beta, 0.5f) != 0.5f)
			continue;
		if (rw_node_reset(g, mul, OP_HARD_SWISH, &x, 1, NULL, 0, d))
			return false;
		g->nodes[hs].dead = true;
		rw_origins_prepend(g, mul, hs);
		rw_reinfer(g, mul);
		return true;
	}
	return false;
}

int pass_fuse_epilogue(Graph *g, PassCtx *ctx)
{
	Uses u = { 0 };
	int fused = 0, residuals = 0, swishes = 0;
	rw_uses_compute(g, &u);
	for (RegionId r = 0; r < g->n_regions; r++)
		for (int i = 0; i < g->regions[r].n_nodes; i++)
			if (!g->nodes[g->regions[r].nodes[i]].dead &&
			    hard_swish_from_mul(g, &u, g->regions[r].nodes[i], ctx->diags)) {
				swishes++;
				rw_uses_compute(g, &u);
			}
	for (RegionId r = 0; r < g->n_regions; r++) {
		/* the list changes as residual fusions move nodes: index by a snapshot */
		int n_nodes = g->regions[r].n_nodes;
		NodeId *order = malloc((size_t)(n_nodes ? n_nodes : 1) * sizeof *order);
		if (!order)
			die("out of memory");
		if (n_nodes)
			memcpy(order, g->regions[r].nodes, (size_t)n_nodes * sizeof *order);
		for (int i = 0; i < n_nodes; i++) {
			NodeId id = order[i], m;
			EpilogueAttrs *e;
			if (g->nodes[id].dead || !op_has(g->nodes[id].op, OPF_LINEAR) || g->nodes[id].n_out != 1 ||
			    g->nodes[id].out[0] == IR_NONE ||
			    !float_dtype(g->values[g->nodes[id].out[0]].type.dtype) ||
			    !(e = ops_epilogue_attrs(g, id)))
				continue;
			bool changed = false;
			if ((m = next_member(g, &u, id)) != IR_NONE && fuse_residual(g, id, m, e)) {
				changed = true;
				residuals++;
				fused++;
				rw_uses_compute(g, &u);
			}
			if ((m = next_member(g, &u, id)) != IR_NONE && fuse_activation(g, id, m, e)) {
				changed = true;
				fused++;
			}
			if (changed) {
				rw_reinfer(g, id);
				rw_uses_compute(g, &u);
			}
		}
		free(order);
	}
	rw_uses_free(&u);
	if (fused || swishes)
		snprintf(ctx->changed, sizeof ctx->changed,
		         "%d nodes fused into conv/gemm epilogues (%d residual adds), %d x*HardSigmoid(x) "
		         "made HardSwish", fused, residuals, swishes);
	return 0;
}
