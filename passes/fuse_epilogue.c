/* fuse_epilogue.c — folds what follows a Conv / ConvTranspose / Gemm / MatMul into
 * its kernel's store: first a residual Add of a tensor shaped like the output
 * (ResNet's skip connection; it becomes a trailing input), then one activation
 * (Relu, Clip with constant bounds, LeakyRelu, Sigmoid, HardSigmoid, HardSwish,
 * Tanh, Gelu). The kernels apply bias, residual, activation in that order,
 * rounding between steps as the separate ops do, so -O0 and -O2 agree. The fused
 * node takes over the last member's output value (graph output names survive),
 * runs where the residual Add ran (the skip tensor may be computed after the conv),
 * and lists every member's ONNX name. Each fused member must be the only reader of
 * the value before it. Float dtypes only. First, x * HardSigmoid(x) becomes
 * HardSwish(x) anywhere (see hard_swish_from_mul). */
#include "passes.h"
#include "rewrite.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ewtable.h"

static bool is_linear(Op op)
{
	return op == OP_CONV || op == OP_CONV_TRANSPOSE || op == OP_GEMM || op == OP_MATMUL;
}

/* The epilogue fields of a linear node (all three exist on each linear op). */
typedef struct Epi {
	int *activation;
	FloatList *params;
	int64_t *residual;
	const AttrField *act_field;
} Epi;

static bool get_epi(Graph *g, NodeId id, Epi *e)
{
	e->activation = rw_attr(g, id, "activation", AK_ENUM);
	e->params = rw_attr(g, id, "act_params", AK_FLOATS);
	e->residual = rw_attr(g, id, "residual", AK_INT);
	e->act_field = rw_attr_field(g->nodes[id].op, "activation", AK_ENUM);
	return e->activation && e->params && e->residual && e->act_field;
}

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

static bool fuse_residual(Graph *g, NodeId id, NodeId add, const Epi *e)
{
	Node *n = &g->nodes[id], *a = &g->nodes[add];
	ValueId y = n->out[0], in[4];
	if (a->op != OP_ADD || a->n_in != 2 || *e->activation || *e->residual)
		return false;
	ValueId r = a->in[0] == y ? a->in[1] : a->in[0];
	if (r == y || r == IR_NONE || !type_equal(&g->values[r].type, &g->values[y].type))
		return false;
	/* the residual goes after the optional bias/C slot (MatMul has none) */
	int slot = n->op == OP_MATMUL ? 2 : 3;
	for (int k = 0; k < slot; k++)
		in[k] = k < n->n_in ? n->in[k] : IR_NONE;
	in[slot] = r;
	rw_node_set_inputs(g, id, in, slot + 1);
	*e->residual = 1;
	rw_node_move_to(g, id, add);
	absorb(g, id, add);
	return true;
}

static void set_params(Graph *g, const Epi *e, const float *v, int n)
{
	e->params->n = n ? n : -1;       /* absent, not an empty list */
	e->params->v = n ? arena_array(&g->arena, (size_t)n, sizeof *v) : NULL;
	if (n)
		memcpy(e->params->v, v, (size_t)n * sizeof *v);
}

/* A float attribute list's first value, or def when absent. */
static float attr_f(Graph *g, NodeId id, const char *name, float def)
{
	const FloatList *l = rw_attr(g, id, name, AK_FLOATS);
	return l && l->n > 0 ? l->v[0] : def;
}

/* A Clip bound: a constant input (opset 11), else the attribute, else +-inf. False
 * when it is computed at run time or is not exactly a float. */
static bool clip_bound(Graph *g, NodeId id, int slot, const char *attr, float def, float *out)
{
	const Node *n = &g->nodes[id];
	if (slot < n->n_in && n->in[slot] != IR_NONE) {
		if (!g->values[n->in[slot]].is_const || type_numel(&g->values[n->in[slot]].type) != 1)
			return false;
		double v = rw_const_f64(g, n->in[slot], 0);
		*out = (float)v;
		return (double)*out == v || v != v;
	}
	*out = attr_f(g, id, attr, def);
	return true;
}

/* The activation name and parameters of node m, or NULL when it is not one. */
static const char *activation_of(Graph *g, NodeId m, float *p, int *np)
{
	const Node *n = &g->nodes[m];
	*np = 0;
	switch (n->op) {
	case OP_RELU: return "relu";
	case OP_SIGMOID: return "sigmoid";
	case OP_TANH: return "tanh";
	case OP_HARD_SWISH: return "hard_swish";
	case OP_LEAKY_RELU:
		p[0] = attr_f(g, m, "alpha", 0.01f);
		*np = 1;
		return "leaky_relu";
	case OP_HARD_SIGMOID:
		p[0] = attr_f(g, m, "alpha", 0.2f);
		p[1] = attr_f(g, m, "beta", 0.5f);
		*np = 2;
		return "hard_sigmoid";
	case OP_CLIP:
		if (!clip_bound(g, m, 1, "min", -INFINITY, &p[0]) ||
		    !clip_bound(g, m, 2, "max", INFINITY, &p[1]))
			return NULL;
		*np = 2;
		return "clip";
	case OP_GELU: {      /* approximate: 0 none, 1 tanh (an int list, see arith.c) */
		const IntList *a = rw_attr(g, m, "approximate", AK_INTS);
		const int64_t v = a && a->n > 0 ? a->v[0] : 0;
		return v == 0 ? "gelu" : v == 1 ? "gelu_tanh" : NULL;
	}
	default:
		break;
	}
	/* any other activation of ewtable.h (a unary op that is an epilogue code too):
	 * its fn name, its ONNX attributes with their defaults */
#define EP_P0 0
#define EP_PHS 0
#define EP_PA(da) (p[0] = attr_f(g, m, "alpha", da), 1)
#define EP_PAB(da, db) (p[0] = attr_f(g, m, "alpha", da), p[1] = attr_f(g, m, "beta", db), 2)
#define EP_PAG(da, dg) (p[0] = attr_f(g, m, "alpha", da), p[1] = attr_f(g, m, "gamma", dg), 2)
#define X(N, On, fn, R, U, A, PAR, S, V) INGOT_EW_IF_ACT_##R(INGOT_EW_IF_UNARY_##R( \
	if (n->op == OP_##N) { *np = EP_##PAR; return #fn; }))
	INGOT_EW_TABLE(X)
#undef X
#undef EP_P0
#undef EP_PHS
#undef EP_PA
#undef EP_PAB
#undef EP_PAG
	return NULL;
}

static bool fuse_activation(Graph *g, NodeId id, NodeId m, const Epi *e)
{
	float p[2];
	int np;
	const char *name = activation_of(g, m, p, &np);
	int code = name ? rw_enum_index(e->act_field, name) : -1;
	if (code <= 0 || *e->activation || g->nodes[m].in[0] != g->nodes[id].out[0])
		return false;
	*e->activation = code;
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
		    attr_f(g, hs, "alpha", 0.2f) != 1.0f / 6.0f || attr_f(g, hs, "beta", 0.5f) != 0.5f)
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
			Epi e;
			if (g->nodes[id].dead || !is_linear(g->nodes[id].op) || g->nodes[id].n_out != 1 ||
			    g->nodes[id].out[0] == IR_NONE ||
			    !float_dtype(g->values[g->nodes[id].out[0]].type.dtype) || !get_epi(g, id, &e))
				continue;
			bool changed = false;
			if ((m = next_member(g, &u, id)) != IR_NONE && fuse_residual(g, id, m, &e)) {
				changed = true;
				residuals++;
				fused++;
				rw_uses_compute(g, &u);
			}
			if ((m = next_member(g, &u, id)) != IR_NONE && fuse_activation(g, id, m, &e)) {
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
