/* plan_memory.c — static memory planning. Every intermediate tensor of the main
 * graph gets an offset in one arena; tensors whose lifetimes do not overlap share
 * memory. Offsets are assigned offline once all lifetimes are known: each tensor at
 * the lowest offset free of every tensor alive at the same time, taking them in
 * execution order and again largest first, keeping the smaller arena. Kernel scratch is
 * planned separately after the arena: the largest any single node needs, as the
 * target lowers it (PassCtx.node_scratch: a SIMD kernel may need other scratch
 * than the reference kernel).
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

/* State of one planning run; per value, the index of its last reader in its region. */
typedef struct Plan {
	Graph *g;
	const PassCtx *ctx;
	int *last_use;
	int64_t scratch, naive;
	bool verify;                 /* check the no-overlap invariant of every plan */
} Plan;

static int64_t align_up(int64_t x) { return (x + ALIGN - 1) & ~(int64_t)(ALIGN - 1); }

int64_t plan_node_scratch(const PassCtx *ctx, Graph *g, NodeId n)
{
	LowerCtx lc;
	if (ctx && ctx->node_scratch)
		return ctx->node_scratch(ctx->target, g, n);
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

/* One allocation of a region: a value, or a control node's block. Lifetimes are
 * node indices, both ends inclusive: a node's outputs start where its inputs end,
 * so the two never share memory (no in-place execution yet). */
typedef struct Interval {
	int start, end;
	int64_t size, bytes;         /* size: padded to ALIGN */
	ValueId v;                   /* the value, or IR_NONE for a control block */
	NodeId ctrl;                 /* the control node whose block this is */
	int64_t off;
} Interval;

static bool lifetimes_overlap(const Interval *a, const Interval *b)
{
	return a->start <= b->end && b->start <= a->end;
}

static int by_size_desc(const void *x, const void *y)
{
	const Interval *a = *(Interval *const *)x, *b = *(Interval *const *)y;
	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	return a->start != b->start ? a->start - b->start : (a->v > b->v) - (a->v < b->v);
}

static int by_start(const void *x, const void *y)
{
	const Interval *a = *(Interval *const *)x, *b = *(Interval *const *)y;
	return a->start != b->start ? a->start - b->start : (a->v > b->v) - (a->v < b->v);
}

static int by_off(const void *x, const void *y)
{
	const Interval *a = *(Interval *const *)x, *b = *(Interval *const *)y;
	return (a->off > b->off) - (a->off < b->off);
}

/* Places the intervals in the given order, each at the lowest offset that overlaps
 * no placed interval alive at the same time. Returns the arena size. */
static int64_t assign(Interval **order, int n)
{
	Interval **busy = malloc(((size_t)n + 1) * sizeof *busy);
	int64_t arena = 0;
	if (!busy)
		die("out of memory");
	for (int i = 0; i < n; i++) {
		Interval *it = order[i];
		int n_busy = 0;
		for (int k = 0; k < i; k++)
			if (lifetimes_overlap(order[k], it))
				busy[n_busy++] = order[k];
		qsort(busy, (size_t)n_busy, sizeof *busy, by_off);
		int64_t off = 0;
		for (int k = 0; k < n_busy; k++) {
			if (busy[k]->off - off >= it->size)
				break;
			if (busy[k]->off + busy[k]->size > off)
				off = busy[k]->off + busy[k]->size;
		}
		it->off = off;
		if (off + it->size > arena)
			arena = off + it->size;
	}
	free(busy);
	return arena;
}

/* Plans region r's intermediates from offset 0 (a body's frame is shifted into its
 * node's block afterwards). Two offline orders are tried, execution order and
 * largest first, and the smaller arena wins. Returns the bytes the frame needs;
 * *peak gets the largest sum of simultaneously live bytes. */
static int64_t plan_region(Plan *P, RegionId r, int64_t *peak)
{
	Graph *g = P->g;
	const Region *reg = &g->regions[r];
	Interval *iv = NULL;
	int n_iv = 0, cap_iv = 0;
	int64_t *own = calloc((size_t)reg->n_nodes + 1, sizeof *own);   /* control nodes' own bytes */

	if (!own)
		die("out of memory");
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
		int64_t s = plan_node_scratch(P->ctx, g, id);
		if (s > P->scratch)
			P->scratch = s;
		for (int k = 0; k < n->n_out; k++) {
			ValueId v = n->out[k];
			if (v == IR_NONE || !needs_arena(g, v, r))
				continue;
			int64_t bytes = type_bytes(&g->values[v].type);
			if (P->last_use[v] < i)
				P->last_use[v] = i;   /* an unused output dies right after its node */
			Interval *it = VEC_PUSH(iv, n_iv, cap_iv);
			*it = (Interval){ i, P->last_use[v], align_up(bytes), bytes, v, IR_NONE, 0 };
			P->naive += bytes;
		}
		/* a control node's block: its own buffers, then its bodies' frames */
		if (n->n_bodies) {
			CtrlTemp t;
			int64_t body = 0, body_peak = 0;
			ctrl_temp_layout(g, id, &t);
			for (int b = 0; b < n->n_bodies; b++) {
				int64_t x = plan_region(P, n->bodies[b], &body_peak);
				body = x > body ? x : body;
			}
			own[i] = t.own_bytes;
			Interval *it = VEC_PUSH(iv, n_iv, cap_iv);
			*it = (Interval){ i, i, align_up(t.own_bytes + body), t.own_bytes + body, IR_NONE, id, 0 };
			P->naive += t.own_bytes;
		}
	}
	/* the largest sum of bytes alive at once, over the schedule */
	for (int i = 0; i < reg->n_nodes; i++) {
		int64_t alive = 0;
		for (int k = 0; k < n_iv; k++)
			if (iv[k].start <= i && i <= iv[k].end)
				alive += iv[k].bytes;
		if (alive > *peak)
			*peak = alive;
	}
	Interval **order = malloc(((size_t)n_iv + 1) * sizeof *order);
	int64_t *first = malloc(((size_t)n_iv + 1) * sizeof *first);
	if (!order || !first)
		die("out of memory");
	for (int k = 0; k < n_iv; k++)
		order[k] = &iv[k];
	qsort(order, (size_t)n_iv, sizeof *order, by_start);
	int64_t arena = assign(order, n_iv);
	for (int k = 0; k < n_iv; k++)
		first[k] = iv[k].off;
	qsort(order, (size_t)n_iv, sizeof *order, by_size_desc);
	int64_t arena2 = assign(order, n_iv);
	if (arena2 < arena)
		arena = arena2;
	else
		for (int k = 0; k < n_iv; k++)
			iv[k].off = first[k];
	/* the plan's invariant, checked on every plan in debug and test builds: no two
	 * tensors alive at the same time share a byte */
	if (P->verify)
		for (int a = 0; a < n_iv; a++)
			for (int b = a + 1; b < n_iv; b++)
				if (lifetimes_overlap(&iv[a], &iv[b]) && iv[a].off < iv[b].off + iv[b].size &&
				    iv[b].off < iv[a].off + iv[a].size)
					die("memory plan overlaps live tensors in region %d", r);
	for (int k = 0; k < n_iv; k++) {
		if (iv[k].v != IR_NONE) {
			g->values[iv[k].v].arena_off = iv[k].off;
			continue;
		}
		Node *n = &g->nodes[iv[k].ctrl];
		CtrlAttrs *a = n->attrs;
		int i = iv[k].start;
		a->ws_bytes = iv[k].size;
		a->ws_off = iv[k].off;
		for (int b = 0; b < n->n_bodies; b++)
			shift_region(g, n->bodies[b], a->ws_off + own[i]);
	}
	free(order);
	free(first);
	free(iv);
	free(own);
	return arena;
}

int pass_plan_memory(Graph *g, PassCtx *ctx)
{
	Plan P;
	int64_t arena, peak = 0;
	memset(&P, 0, sizeof P);
	P.g = g;
	P.ctx = ctx;
	P.verify = ctx->verify;
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
