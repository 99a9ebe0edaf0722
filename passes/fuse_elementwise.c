/* fuse_elementwise.c — chains of f32 elementwise ops become one FusedElementwise
 * node (compiler/ops/fused.c): one loop over the output instead of one per op, and
 * no intermediate tensors. Walking each region in order, every fusable node
 * (OPF_FUSE_STEP: unary activations and math, Add/Sub/Mul/Div/Pow, Clip with
 * constant bounds) gets a program: its own step, after the programs of the
 * producers it absorbs — a fusable producer whose output only this node reads and
 * has this node's output shape.
 * Other inputs (graph inputs, constants, broadcast operands) become the fused node's
 * inputs, at most INGOT_FE_MAX_IN of them, and a program holds at most
 * INGOT_FE_MAX_OPS steps. A node whose program has two or more steps turns into the
 * FusedElementwise node; the absorbed producers die. Each step calls the kernel the
 * op would call alone, so the results are the same bits. The fused node keeps the
 * ONNX names of all its members, in execution order. */
#include "passes.h"
#include "rewrite.h"
#include "op_attrs.h"

#include <stdlib.h>
#include <string.h>

#include "elementwise.h"
#include "fused.h"

#define REG_NONE 255

/* A program under construction: operands below INGOT_FE_MAX_IN name an input slot,
 * INGOT_FE_MAX_IN + k step k (renumbered to the kernel's registers at the end). */
typedef struct Prog {
	ValueId in[INGOT_FE_MAX_IN];
	int n_in;
	int64_t code[INGOT_FE_MAX_OPS], a[INGOT_FE_MAX_OPS], b[INGOT_FE_MAX_OPS];
	float par[INGOT_FE_MAX_OPS][3];
	int n_ops;
	NodeId members[INGOT_FE_MAX_OPS];
} Prog;

typedef struct Fuser {
	Graph *g;
	Uses u;
	Prog **prog;                 /* per value: the program computing it, or NULL */
	int *pos;                    /* per node: its index in its region */
} Fuser;

static bool is_f32(const Graph *g, ValueId v)
{
	return v != IR_NONE && g->values[v].type.dtype == DT_F32 && !g->values[v].dynamic;
}

/* A Clip bound: absent, or a 1-element f32 constant. */
static bool clip_bound(const Graph *g, const Node *n, int slot, float *v, bool *has)
{
	*has = false;
	if (slot >= n->n_in || n->in[slot] == IR_NONE)
		return true;
	ValueId c = n->in[slot];
	if (!g->values[c].is_const || type_numel(&g->values[c].type) != 1 || !is_f32(g, c))
		return false;
	memcpy(v, ir_const_data(g, c), sizeof *v);
	*has = true;
	return true;
}

/* Whether the kernel call takes the parameter struct `type` (ingot_unary_params...). */
static bool takes(const KernelCall *kc, const char *type)
{
	return kc->pdesc && strcmp(kc->pdesc->type, type) == 0;
}

/* Node id as one program step (OPF_FUSE_STEP): its code, its parameters, and which
 * inputs it reads (n_args: 1 or 2). False when it is not fusable. */
static bool node_step(Graph *g, NodeId id, int64_t *code, float par[3], int *n_args)
{
	const Node *n = &g->nodes[id];
	const OpImpl *impl = op_info(n->op)->impl;
	LowerCtx lc;
	if (n->dead || n->n_out != 1 || !is_f32(g, n->out[0]) || !is_f32(g, n->in[0]))
		return false;
	if (!op_has(n->op, OPF_FUSE_STEP))
		return false;
	memset(&lc, 0, sizeof lc);
	lc.g = g;
	lc.node = id;
	if (impl->lower(&lc))   /* exactly the parameters the op's own kernel gets */
		return false;
	memset(par, 0, 3 * sizeof *par);
	if (takes(&lc.kc, "ingot_unary_params")) {
		const ingot_unary_params *p = lc.kc.params;
		*code = p->op;
		par[0] = p->alpha;
		par[1] = p->beta;
		par[2] = p->gamma;
		*n_args = 1;
		return p->op != INGOT_EW_NOT;
	}
	if (takes(&lc.kc, "ingot_binary_params")) {
		const ingot_binary_params *p = lc.kc.params;
		*code = INGOT_FE_BINARY + p->op;
		*n_args = 2;
		return is_f32(g, n->in[1]) && (p->op == INGOT_EW_ADD || p->op == INGOT_EW_SUB ||
		       p->op == INGOT_EW_MUL || p->op == INGOT_EW_DIV || p->op == INGOT_EW_POW);
	}
	if (!takes(&lc.kc, "ingot_clip_params"))
		return false;
	const ingot_clip_params *p = lc.kc.params;
	bool has_lo = p->has_lo, has_hi = p->has_hi;
	float lo = (float)p->lo, hi = (float)p->hi;
	if (n->n_in > 1 && (!clip_bound(g, n, 1, &lo, &has_lo) || !clip_bound(g, n, 2, &hi, &has_hi)))
		return false;
	*code = INGOT_FE_CLIP;
	par[0] = lo;
	par[1] = hi;
	par[2] = (float)(has_lo | has_hi << 1);
	*n_args = 1;
	return true;
}

/* The operand reading value v in P: an existing or new input slot, or -1 (full). */
static int64_t add_input(Prog *P, ValueId v)
{
	for (int i = 0; i < P->n_in; i++)
		if (P->in[i] == v)
			return i;
	if (P->n_in == INGOT_FE_MAX_IN)
		return -1;
	P->in[P->n_in] = v;
	return P->n_in++;
}

/* Appends program Q (a producer's) to P; returns the operand of Q's result, or -1
 * when P would overflow (P is then unchanged). */
static int64_t append(Prog *P, const Prog *Q)
{
	Prog save = *P;
	int base = P->n_ops;
	if (P->n_ops + Q->n_ops >= INGOT_FE_MAX_OPS)   /* leave room for the node's own step */
		return -1;
	for (int k = 0; k < Q->n_ops; k++) {
		int64_t ops[2] = { Q->a[k], Q->b[k] };
		for (int j = 0; j < 2; j++) {
			if (ops[j] == REG_NONE)
				continue;
			if (ops[j] >= INGOT_FE_MAX_IN)
				ops[j] += base;
			else if ((ops[j] = add_input(P, Q->in[ops[j]])) < 0) {
				*P = save;
				return -1;
			}
		}
		P->code[base + k] = Q->code[k];
		P->a[base + k] = ops[0];
		P->b[base + k] = ops[1];
		memcpy(P->par[base + k], Q->par[k], sizeof P->par[k]);
		P->members[base + k] = Q->members[k];
	}
	P->n_ops += Q->n_ops;
	return INGOT_FE_MAX_IN + P->n_ops - 1;
}

/* The program of node id, absorbing what it can; NULL when id is not fusable. */
static Prog *build(Fuser *F, NodeId id)
{
	Graph *g = F->g;
	const Node *n = &g->nodes[id];
	int64_t code, ops[2] = { REG_NONE, REG_NONE };
	float par[3];
	int n_args;
	if (!node_step(g, id, &code, par, &n_args))
		return NULL;
	Prog *P = calloc(1, sizeof *P);
	if (!P)
		die("out of memory");
	for (int j = 0; j < n_args; j++) {
		ValueId x = n->in[j];
		const Prog *Q = F->prog[x];
		ops[j] = -1;
		if (Q && rw_sole_user(g, &F->u, x) == id && g->values[x].region == n->region &&
		    type_same_shape(&g->values[x].type, &g->values[n->out[0]].type))
			ops[j] = append(P, Q);
		if (ops[j] < 0 && (ops[j] = add_input(P, x)) < 0) {
			free(P);
			return NULL;
		}
	}
	P->code[P->n_ops] = code;
	P->a[P->n_ops] = ops[0];
	P->b[P->n_ops] = ops[1];
	memcpy(P->par[P->n_ops], par, sizeof par);
	P->members[P->n_ops++] = id;
	return P;
}

/* Turns node id into the FusedElementwise of P; its members die. */
static void rewrite(Fuser *F, NodeId id, const Prog *P)
{
	Graph *g = F->g;
	IntList prog = { arena_array(&g->arena, (size_t)P->n_ops * 3, sizeof(int64_t)), 3 * P->n_ops };
	FloatList params = { arena_array(&g->arena, (size_t)P->n_ops * 3, sizeof(float)), 3 * P->n_ops };
	for (int k = 0; k < P->n_ops; k++) {
		int64_t ops[2] = { P->a[k], P->b[k] };
		for (int j = 0; j < 2; j++)   /* to the kernel's registers: inputs, then steps */
			if (ops[j] != REG_NONE && ops[j] >= INGOT_FE_MAX_IN)
				ops[j] = ops[j] - INGOT_FE_MAX_IN + P->n_in;
		prog.v[3 * k] = P->code[k];
		prog.v[3 * k + 1] = ops[0];
		prog.v[3 * k + 2] = ops[1];
		memcpy(&params.v[3 * k], P->par[k], sizeof P->par[k]);
	}
	NodeId members[INGOT_FE_MAX_OPS];
	int n_origins = 0;
	for (int k = 0; k < P->n_ops; k++) {   /* in execution order */
		int j = k;
		for (; j > 0 && F->pos[members[j - 1]] > F->pos[P->members[k]]; j--)
			members[j] = members[j - 1];
		members[j] = P->members[k];
	}
	for (int k = 0; k < P->n_ops; k++)
		n_origins += g->nodes[members[k]].n_origins;
	const char **origins = arena_array(&g->arena, (size_t)(n_origins ? n_origins : 1), sizeof *origins);
	n_origins = 0;
	for (int k = 0; k < P->n_ops; k++) {
		const Node *m = &g->nodes[members[k]];
		for (int i = 0; i < m->n_origins; i++)
			origins[n_origins++] = m->origins[i];
		if (members[k] != id)
			g->nodes[members[k]].dead = true;
	}
	Node *n = &g->nodes[id];
	n->op = OP_FUSED_ELEMENTWISE;
	n->attrs = arena_alloc(&g->arena, op_info(n->op)->impl->attr_size);
	ops_fused_attrs(g, id)->prog = prog;
	ops_fused_attrs(g, id)->params = params;
	n->origins = origins;
	n->n_origins = n_origins;
	n->origins_cap = 0;
	rw_node_set_inputs(g, id, P->in, P->n_in);
	rw_reinfer(g, id);
}

int pass_fuse_elementwise(Graph *g, PassCtx *ctx)
{
	Fuser F;
	int fused = 0, members = 0;
	memset(&F, 0, sizeof F);
	F.g = g;
	rw_uses_compute(g, &F.u);
	F.prog = calloc((size_t)g->n_values + 1, sizeof *F.prog);
	F.pos = calloc((size_t)g->n_nodes + 1, sizeof *F.pos);
	if (!F.prog || !F.pos)
		die("out of memory");
	for (RegionId r = 0; r < g->n_regions; r++) {
		const Region *reg = &g->regions[r];
		for (int i = 0; i < reg->n_nodes; i++)
			F.pos[reg->nodes[i]] = i;
		for (int i = 0; i < reg->n_nodes; i++) {
			NodeId id = reg->nodes[i];
			Prog *P = build(&F, id);
			if (P)
				F.prog[g->nodes[id].out[0]] = P;
		}
		/* the last node of each chain (its program read by no other program) */
		for (int i = reg->n_nodes - 1; i >= 0; i--) {
			NodeId id = reg->nodes[i];
			const Node *n = &g->nodes[id];
			Prog *P = n->dead || n->n_out != 1 || n->out[0] == IR_NONE ? NULL : F.prog[n->out[0]];
			if (!P || P->n_ops < 2)
				continue;
			rewrite(&F, id, P);
			fused++;
			members += P->n_ops;
		}
	}
	for (ValueId v = 0; v < g->n_values; v++)
		free(F.prog[v]);
	free(F.prog);
	free(F.pos);
	rw_uses_free(&F.u);
	if (fused)
		snprintf(ctx->changed, sizeof ctx->changed, "%d elementwise nodes fused into %d loops",
		         members, fused);
	return 0;
}
