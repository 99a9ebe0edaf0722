/* plan_memory.c — static memory planning. Every intermediate tensor of the main
 * graph gets an offset in one arena; tensors whose lifetimes do not overlap share
 * memory (first fit over the live set, in execution order). Kernel scratch is
 * planned separately after the arena: the largest any single node needs.
 * NAME_WORKSPACE_SIZE = arena_bytes + scratch_bytes.
 *
 * Control flow: while an If/Loop/Scan runs, one block of its region's arena holds
 * the node's own buffers (control.h) and then the frame of its bodies, each body
 * planned the same way from offset 0 and shifted into the block. Outer values a
 * body reads stay live until the node is done. */
#include "passes.h"
#include "control.h"

#include <stdlib.h>
#include <string.h>

#define ALIGN 64

typedef struct Block {
	int64_t off, size, bytes;    /* size: padded */
	int die;                     /* index of the node after which it is free */
} Block;

/* State of one planning run; per value, the index of its last reader in its region. */
typedef struct Plan {
	Graph *g;
	int *last_use;
	int64_t scratch, naive;
} Plan;

static int64_t align_up(int64_t x) { return (x + ALIGN - 1) & ~(int64_t)(ALIGN - 1); }

int64_t plan_node_scratch(Graph *g, NodeId n)
{
	LowerCtx lc;
	memset(&lc, 0, sizeof lc);
	lc.g = g;
	lc.node = n;
	if (op_info(g->nodes[n].op)->impl->lower(&lc))
		return 0;
	return lc.kc.scratch_bytes;
}

static bool needs_arena(const Graph *g, ValueId v, RegionId r)
{
	const Value *val = &g->values[v];
	return !val->is_const && !val->is_output && !val->is_input && val->region == r;
}

/* Values of region `r` read inside body b (at any depth) stay live while the control
 * node at index i of r runs. */
static void mark_body_uses(Plan *P, RegionId b, RegionId r, int i)
{
	const Region *reg = &P->g->regions[b];
	for (int q = 0; q < reg->n_nodes; q++) {
		const Node *n = &P->g->nodes[reg->nodes[q]];
		if (n->dead)
			continue;
		for (int k = 0; k < n->n_in; k++)
			if (n->in[k] != IR_NONE && P->g->values[n->in[k]].region == r &&
			    P->last_use[n->in[k]] < i)
				P->last_use[n->in[k]] = i;
		for (int k = 0; k < n->n_bodies; k++)
			mark_body_uses(P, n->bodies[k], r, i);
	}
}

/* Moves everything planned inside region r (its intermediates, nested control
 * nodes' blocks and bodies) by delta bytes. */
static void shift_region(Graph *g, RegionId r, int64_t delta)
{
	const Region *reg = &g->regions[r];
	for (int i = 0; i < reg->n_nodes; i++) {
		Node *n = &g->nodes[reg->nodes[i]];
		if (n->dead)
			continue;
		for (int k = 0; k < n->n_out; k++)
			if (n->out[k] != IR_NONE && g->values[n->out[k]].arena_off >= 0)
				g->values[n->out[k]].arena_off += delta;
		if (n->n_bodies) {
			((CtrlAttrs *)n->attrs)->ws_off += delta;
			for (int b = 0; b < n->n_bodies; b++)
				shift_region(g, n->bodies[b], delta);
		}
	}
}

/* First fit of `size` bytes among the live blocks (sorted by offset); inserts it. */
static int64_t place(Block **live, int *n_live, int *cap_live, int64_t size, int64_t bytes, int die)
{
	int64_t off = 0;
	int pos;
	for (pos = 0; pos < *n_live; pos++) {
		if ((*live)[pos].off - off >= size)
			break;
		if ((*live)[pos].off + (*live)[pos].size > off)
			off = (*live)[pos].off + (*live)[pos].size;
	}
	vec_reserve((void **)live, cap_live, *n_live + 1, sizeof **live);
	memmove(&(*live)[pos + 1], &(*live)[pos], (size_t)(*n_live - pos) * sizeof **live);
	(*live)[pos].off = off;
	(*live)[pos].size = size;
	(*live)[pos].bytes = bytes;
	(*live)[pos].die = die;
	(*n_live)++;
	return off;
}

/* Plans region r's intermediates from offset 0 (a body's frame is shifted into its
 * node's block afterwards). Returns the bytes the frame needs; *peak gets the
 * largest sum of simultaneously live bytes. */
static int64_t plan_region(Plan *P, RegionId r, int64_t *peak)
{
	Graph *g = P->g;
	const Region *reg = &g->regions[r];
	Block *live = NULL;
	int n_live = 0, cap_live = 0;
	int64_t arena = 0, live_bytes = 0;

	*peak = 0;
	for (int i = 0; i < reg->n_nodes; i++) {
		const Node *n = &g->nodes[reg->nodes[i]];
		if (n->dead)
			continue;
		for (int k = 0; k < n->n_in; k++)
			if (n->in[k] != IR_NONE && g->values[n->in[k]].region == r)
				P->last_use[n->in[k]] = i;
		for (int b = 0; b < n->n_bodies; b++)
			mark_body_uses(P, n->bodies[b], r, i);
	}
	for (int i = 0; i < reg->n_nodes; i++) {
		NodeId id = reg->nodes[i];
		const Node *n = &g->nodes[id];
		if (n->dead)
			continue;
		int64_t s = plan_node_scratch(g, id);
		if (s > P->scratch)
			P->scratch = s;
		/* allocate outputs first fit; inputs are still live, so nothing overlaps them */
		for (int k = 0; k < n->n_out; k++) {
			ValueId v = n->out[k];
			if (v == IR_NONE || !needs_arena(g, v, r))
				continue;
			int64_t bytes = type_bytes(&g->values[v].type);
			if (P->last_use[v] < i)
				P->last_use[v] = i;   /* an unused output dies right after its node */
			int64_t off = place(&live, &n_live, &cap_live, align_up(bytes), bytes, P->last_use[v]);
			P->naive += bytes;
			live_bytes += bytes;
			g->values[v].arena_off = off;
			if (off + align_up(bytes) > arena)
				arena = off + align_up(bytes);
		}
		/* a control node's block: its own buffers, then its bodies' frames */
		if (n->n_bodies) {
			CtrlAttrs *a = n->attrs;
			CtrlTemp t;
			int64_t body = 0, body_peak = 0;
			ctrl_temp_layout(g, id, &t);
			for (int b = 0; b < n->n_bodies; b++) {
				int64_t x = plan_region(P, n->bodies[b], &body_peak);
				body = x > body ? x : body;
			}
			a->ws_bytes = align_up(t.own_bytes + body);
			a->ws_off = place(&live, &n_live, &cap_live, a->ws_bytes, t.own_bytes + body, i);
			for (int b = 0; b < n->n_bodies; b++)
				shift_region(g, n->bodies[b], a->ws_off + t.own_bytes);
			P->naive += t.own_bytes;
			live_bytes += t.own_bytes + body;
			if (a->ws_off + a->ws_bytes > arena)
				arena = a->ws_off + a->ws_bytes;
		}
		if (live_bytes > *peak)
			*peak = live_bytes;
		/* free what dies here */
		for (int q = 0; q < n_live;) {
			if (live[q].die <= i) {
				live_bytes -= live[q].bytes;
				memmove(&live[q], &live[q + 1], (size_t)(n_live - q - 1) * sizeof *live);
				n_live--;
			} else {
				q++;
			}
		}
	}
	free(live);
	return arena;
}

int pass_plan_memory(Graph *g, PassCtx *ctx)
{
	Plan P;
	int64_t arena, peak = 0;
	memset(&P, 0, sizeof P);
	P.g = g;
	P.last_use = malloc(((size_t)g->n_values + 1) * sizeof *P.last_use);
	if (!P.last_use)
		die("out of memory");
	for (ValueId v = 0; v < g->n_values; v++) {
		P.last_use[v] = -1;
		g->values[v].arena_off = -1;
	}
	arena = plan_region(&P, 0, &peak);
	free(P.last_use);
	int64_t scratch = P.scratch, naive = P.naive;
	g->arena_bytes = arena;
	g->naive_bytes = naive;
	g->peak_live_bytes = peak;
	g->scratch_bytes = align_up(scratch);
	snprintf(ctx->changed, sizeof ctx->changed,
	         "arena %lld bytes (naive %lld), scratch %lld bytes",
	         (long long)arena, (long long)naive, (long long)g->scratch_bytes);
	if (ctx->max_workspace > 0 && arena + g->scratch_bytes > ctx->max_workspace) {
		DiagLoc l = diag_loc_file(g->file);
		diag_report(ctx->diags, DIAG_ERROR, DC_LIMIT, &l,
		            "workspace of %lld bytes exceeds --max-workspace %lld",
		            (long long)(arena + g->scratch_bytes), (long long)ctx->max_workspace);
		return -1;
	}
	return 0;
}
