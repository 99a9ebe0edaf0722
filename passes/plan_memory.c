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
 * Shared storage: an OPF_VIEW op (Reshape/Flatten/Squeeze/Unsqueeze/Identity) of an
 * intermediate is a view (alias) of its input, no copy is emitted; an OPF_INPLACE op
 * (unary, binary, Clip and FusedElementwise, whose kernels allow it) whose input has
 * its output's dtype and element count and dies at this node writes in place. Both
 * join the input's storage group, one allocation that lives until its last member
 * dies; Value.alias_of records the input it shares. A graph input, output or
 * constant never joins a group (inputs are read-only, outputs live in the caller's
 * buffers), so a view of one is still a copy. The checker proves, per tensor, that
 * tensors alive at the same time overlap only within one group, and that an in-place
 * write happens only once every earlier tensor of its group is dead.
 *
 * Control flow: while an If/Loop/Scan runs, one block of its region's arena holds
 * the node's own buffers (control.h) and then the frame of its bodies, each body
 * planned the same way from offset 0 and shifted into the block. Outer values a
 * body reads stay live until the node is done. */
#include "passes.h"
#include "control_export.h"

#include <stdlib.h>
#include <string.h>

#define ALIGN 64

/* State of one planning run; per value, the index of its last reader in its region,
 * the index of its producer, and the interval (storage group) it lives in. */
typedef struct Plan {
	Graph *g;
	const PassCtx *ctx;
	int *last_use, *def, *group;
	int64_t scratch, naive;
	bool share;                  /* views and in-place ops share their input's storage */
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

/* One allocation of a region: a storage group of values, or a control node's
 * block. Lifetimes are node indices, both ends inclusive: a node's outputs start
 * where its inputs end, so the two never share memory unless they are one group. */
typedef struct Interval {
	int start, end;
	int64_t size, bytes;         /* size: padded to ALIGN */
	ValueId v;                   /* the group's first value, or IR_NONE for a control block */
	NodeId ctrl;                 /* the control node whose block this is */
	int64_t off;
	int group;                   /* plan_check: the storage a tensor is (its root value) */
	unsigned mark;               /* TimeIndex: the last query that found it */
} Interval;

/* Intervals indexed by lifetime: a segment tree over node indices 0..size-1, each
 * interval kept at the O(log n) tree nodes whose ranges tile its lifetime, with the
 * count of intervals kept in each subtree. Finding the k intervals alive at some
 * point of [s, e] visits O((k + 1) log n) tree nodes, so the planner and its checker
 * take O(n log n) on a chain of n nodes, where comparing every pair took O(n^2). */
typedef struct TimeIndex {
	int size;                    /* leaves: a power of two */
	Interval ***at;              /* per tree node (heap order, root 1): its intervals */
	int *n_at, *cap_at, *in_sub;
	unsigned stamp;
} TimeIndex;

static void ti_init(TimeIndex *t, int n_time)
{
	memset(t, 0, sizeof *t);
	t->size = 1;
	while (t->size < n_time)
		t->size *= 2;
	t->at = calloc(2 * (size_t)t->size, sizeof *t->at);
	t->n_at = calloc(2 * (size_t)t->size, sizeof *t->n_at);
	t->cap_at = calloc(2 * (size_t)t->size, sizeof *t->cap_at);
	t->in_sub = calloc(2 * (size_t)t->size, sizeof *t->in_sub);
	if (!t->at || !t->n_at || !t->cap_at || !t->in_sub)
		die("out of memory");
}

static void ti_free(TimeIndex *t)
{
	for (int i = 0; i < 2 * t->size; i++)
		free(t->at[i]);
	free(t->at);
	free(t->n_at);
	free(t->cap_at);
	free(t->in_sub);
}

static void ti_add_at(TimeIndex *t, int node, int lo, int hi, Interval *iv)
{
	if (iv->end < lo || hi < iv->start)
		return;
	t->in_sub[node]++;
	if (iv->start <= lo && hi <= iv->end) {
		*VEC_PUSH(t->at[node], t->n_at[node], t->cap_at[node]) = iv;
		return;
	}
	int mid = lo + (hi - lo) / 2;
	ti_add_at(t, 2 * node, lo, mid, iv);
	ti_add_at(t, 2 * node + 1, mid + 1, hi, iv);
}

static void ti_add(TimeIndex *t, Interval *iv)
{
	iv->mark = 0;   /* found by no query of this index yet (stamps start at 1) */
	ti_add_at(t, 1, 0, t->size - 1, iv);
}

static void ti_find_at(TimeIndex *t, int node, int lo, int hi, int s, int e, Interval ***out, int *n,
                       int *cap)
{
	if (!t->in_sub[node] || e < lo || hi < s)
		return;
	for (int i = 0; i < t->n_at[node]; i++) {
		Interval *iv = t->at[node][i];
		if (iv->mark != t->stamp) {
			iv->mark = t->stamp;
			*VEC_PUSH(*out, *n, *cap) = iv;
		}
	}
	if (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		ti_find_at(t, 2 * node, lo, mid, s, e, out, n, cap);
		ti_find_at(t, 2 * node + 1, mid + 1, hi, s, e, out, n, cap);
	}
}

/* The added intervals alive at some point of [s, e], into *out (a vector); their count. */
static int ti_find(TimeIndex *t, int s, int e, Interval ***out, int *cap)
{
	int n = 0;
	t->stamp++;
	ti_find_at(t, 1, 0, t->size - 1, s, e, out, &n, cap);
	return n;
}

static int by_size_desc(const void *x, const void *y)
{
	const Interval *a = *(Interval *const *)x, *b = *(Interval *const *)y;
	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	return a->start != b->start ? a->start - b->start : (a->v > b->v) - (a->v < b->v);
}

/* Bytes times lifetime, largest first: the long-lived big tensors settle low. */
static int by_area_desc(const void *x, const void *y)
{
	const Interval *a = *(Interval *const *)x, *b = *(Interval *const *)y;
	int64_t ka = a->size * (a->end - a->start + 1), kb = b->size * (b->end - b->start + 1);
	if (ka != kb)
		return ka > kb ? -1 : 1;
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
 * no placed interval alive at the same time (lifetimes within 0..n_time-1). Returns
 * the arena size. */
static int64_t assign(Interval **order, int n, int n_time)
{
	Interval **busy = NULL;
	int cap_busy = 0;
	int64_t arena = 0;
	TimeIndex placed;
	ti_init(&placed, n_time);
	for (int i = 0; i < n; i++) {
		Interval *it = order[i];
		int n_busy = ti_find(&placed, it->start, it->end, &busy, &cap_busy);
		if (n_busy > 1)   /* (busy is NULL while nothing was found yet) */
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
		ti_add(&placed, it);
	}
	free(busy);
	ti_free(&placed);
	return arena;
}

bool plan_node_is_alias(const Graph *g, NodeId id)
{
	const Node *n = &g->nodes[id];
	return op_has(n->op, OPF_VIEW) && n->n_out == 1 && n->out[0] != IR_NONE &&
	       g->values[n->out[0]].alias_of == n->in[0];
}

/* The input output `v` of the node at index i shares storage with, or IR_NONE. */
static ValueId share_with(Plan *P, RegionId r, const Interval *iv, const Node *n, int i,
                          ValueId v)
{
	Graph *g = P->g;
	const Value *out = &g->values[v];
	if (!P->share || out->dynamic || n->n_out != 1)
		return IR_NONE;
	for (int k = 0; k < n->n_in; k++) {
		ValueId x = n->in[k];
		if (x == IR_NONE || !needs_arena(g, x, r) || g->values[x].dynamic ||
		    P->group[x] < 0 || type_bytes(&g->values[x].type) != type_bytes(&out->type))
			continue;
		if (op_has(n->op, OPF_VIEW))
			return k == 0 ? x : IR_NONE;
		if (op_has(n->op, OPF_INPLACE) && g->values[x].type.dtype == out->type.dtype &&
		    type_numel(&g->values[x].type) == type_numel(&out->type) &&
		    iv[P->group[x]].end <= i)
			return x;
	}
	return IR_NONE;
}

/* ---- the checker: the plan's invariants, from the final graph alone ---- */

typedef struct Check {
	const Graph *g;
	Interval *t;
	int n, cap;
	char *err;
	size_t err_cap;
	ValueId *root;               /* storage_root's answers so far (IR_NONE: not yet) */
} Check;

/* The value whose storage v is (following alias_of), remembered for every value on
 * the way: a chain of n in-place nodes costs O(n), not O(n^2). */
static ValueId storage_root(Check *C, ValueId v)
{
	const Graph *g = C->g;
	ValueId r = v;
	for (int guard = 0; g->values[r].alias_of != IR_NONE && C->root[r] == IR_NONE && guard < g->n_values;
	     guard++)
		r = g->values[r].alias_of;
	if (C->root[r] != IR_NONE)
		r = C->root[r];
	for (ValueId x = v; x != r && C->root[x] == IR_NONE; x = g->values[x].alias_of) {
		C->root[x] = r;
		if (g->values[x].alias_of == IR_NONE)
			break;
	}
	C->root[r] = r;
	return r;
}

static int check_fail(Check *C, const char *what, const Interval *a, const Interval *b)
{
	const Graph *g = C->g;
	snprintf(C->err, C->err_cap, "%s: '%s' and '%s'", what,
	         a->v != IR_NONE ? g->values[a->v].name : "(control-flow block)",
	         b->v != IR_NONE ? g->values[b->v].name : "(control-flow block)");
	return -1;
}

/* Checks region r (and its bodies), per tensor, never per group, so that the grouping
 * is checked too: tensors alive at the same time may share bytes only when they are
 * one storage, at the same offset, and a tensor written in place (not a view) starts
 * no earlier than the last read of every earlier tensor of its storage. */
static int check_region(Check *C, RegionId r)
{
	const Graph *g = C->g;
	const Region *reg = &g->regions[r];
	Plan P;
	memset(&P, 0, sizeof P);
	P.g = (Graph *)g;
	P.last_use = malloc(((size_t)g->n_values + 1) * sizeof *P.last_use);
	if (!P.last_use)
		die("out of memory");
	for (ValueId v = 0; v < g->n_values; v++)
		P.last_use[v] = -1;
	for (int i = 0; i < reg->n_nodes; i++) {   /* lifetimes, as plan_region computes them */
		const Node *n = &g->nodes[reg->nodes[i]];
		for (int k = 0; k < n->n_out && !n->dead; k++)
			if (n->out[k] != IR_NONE)
				P.last_use[n->out[k]] = i;
	}
	for (int i = 0; i < reg->n_nodes; i++) {
		const Node *n = &g->nodes[reg->nodes[i]];
		if (n->dead)
			continue;
		for (int k = 0; k < n->n_in; k++)
			if (n->in[k] != IR_NONE && g->values[n->in[k]].region == r && !g->values[n->in[k]].is_input &&
			    !g->values[n->in[k]].is_const)
				P.last_use[n->in[k]] = i;
		for (int b = 0; b < n->n_bodies; b++)
			mark_body_uses(&P, n->bodies[b], r, i);
	}
	C->n = 0;
	for (int i = 0; i < reg->n_nodes; i++) {
		const Node *n = &g->nodes[reg->nodes[i]];
		if (n->dead)
			continue;
		for (int k = 0; k < n->n_out; k++) {
			ValueId v = n->out[k];
			if (v == IR_NONE || !needs_arena(g, v, r))
				continue;
			int64_t bytes = type_bytes(&g->values[v].type);
			*VEC_PUSH(C->t, C->n, C->cap) = (Interval){ i, P.last_use[v], bytes, bytes, v, IR_NONE,
			                                          g->values[v].arena_off, storage_root(C, v), 0 };
			if (g->values[v].arena_off < 0 || (r == 0 && g->values[v].arena_off + bytes > g->arena_bytes)) {
				snprintf(C->err, C->err_cap, "'%s' lies outside the arena", g->values[v].name);
				free(P.last_use);
				return -1;
			}
		}
		if (n->n_bodies) {
			const CtrlAttrs *a = n->attrs;
			*VEC_PUSH(C->t, C->n, C->cap) = (Interval){ i, i, a->ws_bytes, a->ws_bytes, IR_NONE,
			                                          reg->nodes[i], a->ws_off, -1 - i, 0 };
		}
	}
	free(P.last_use);
	/* every pair alive at the same time, found by a sweep in order of start: each
	 * tensor against the earlier-starting ones alive during its lifetime */
	Interval **by = malloc(((size_t)C->n + 1) * sizeof *by), **alive = NULL;
	int cap_alive = 0, rc = 0;
	TimeIndex seen;
	if (!by)
		die("out of memory");
	for (int a = 0; a < C->n; a++)
		by[a] = &C->t[a];
	qsort(by, (size_t)C->n, sizeof *by, by_start);
	ti_init(&seen, reg->n_nodes);
	for (int b = 0; b < C->n && !rc; b++) {
		int n_alive = ti_find(&seen, by[b]->start, by[b]->end, &alive, &cap_alive);
		for (int k = 0; k < n_alive && !rc; k++) {
			/* the pair in the order the tensors were listed, as messages name them */
			Interval *ta = alive[k] < by[b] ? alive[k] : by[b], *tb = ta == by[b] ? alive[k] : by[b];
			if (ta->off >= tb->off + tb->size || tb->off >= ta->off + ta->size)
				continue;
			if (ta->group != tb->group || ta->v == IR_NONE || ta->off != tb->off) {
				rc = check_fail(C, "live tensors overlap", ta, tb);
				break;
			}
			/* one storage: the later one is a view, or written after the earlier died */
			const Interval *lo = ta->start <= tb->start ? ta : tb, *hi = lo == ta ? tb : ta;
			if (!op_has(g->nodes[g->values[hi->v].producer].op, OPF_VIEW) && lo->end > hi->start)
				rc = check_fail(C, "written in place while still read", hi, lo);
		}
		ti_add(&seen, by[b]);
	}
	free(by);
	free(alive);
	ti_free(&seen);
	if (rc)
		return rc;
	for (int i = 0; i < reg->n_nodes; i++) {
		const Node *n = &g->nodes[reg->nodes[i]];
		for (int b = 0; b < n->n_bodies && !n->dead; b++)
			if (check_region(C, n->bodies[b]))
				return -1;
	}
	return 0;
}

int plan_check(const Graph *g, char *err, size_t cap)
{
	Check C;
	memset(&C, 0, sizeof C);
	C.g = g;
	C.err = err;
	C.err_cap = cap;
	C.root = malloc(((size_t)g->n_values + 1) * sizeof *C.root);
	if (!C.root)
		die("out of memory");
	for (ValueId v = 0; v < g->n_values; v++)
		C.root[v] = IR_NONE;
	int rc = check_region(&C, 0);
	free(C.t);
	free(C.root);
	return rc;
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
			P->def[v] = i;
			P->naive += bytes;
			ValueId x = share_with(P, r, iv, n, i, v);
			if (x != IR_NONE) {   /* a view, or in place: x's group lives on */
				Interval *it = &iv[P->group[x]];
				g->values[v].alias_of = x;
				P->group[v] = P->group[x];
				if (it->end < P->last_use[v])
					it->end = P->last_use[v];
				continue;
			}
			P->group[v] = n_iv;
			Interval *it = VEC_PUSH(iv, n_iv, cap_iv);
			*it = (Interval){ i, P->last_use[v], align_up(bytes), bytes, v, IR_NONE, 0, 0, 0 };
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
			*it = (Interval){ i, i, align_up(t.own_bytes + body), t.own_bytes + body, IR_NONE, id, 0, 0, 0 };
			P->naive += t.own_bytes;
		}
	}
	/* the largest sum of bytes alive at once, over the schedule (each interval adds
	 * its bytes at its start and takes them away after its end) */
	int64_t *delta = calloc((size_t)reg->n_nodes + 2, sizeof *delta), alive = 0;
	if (!delta)
		die("out of memory");
	for (int k = 0; k < n_iv; k++) {
		delta[iv[k].start] += iv[k].bytes;
		delta[iv[k].end + 1] -= iv[k].bytes;
	}
	for (int i = 0; i < reg->n_nodes; i++) {
		alive += delta[i];
		if (alive > *peak)
			*peak = alive;
	}
	free(delta);
	Interval **order = malloc(((size_t)n_iv + 1) * sizeof *order);
	int64_t *first = malloc(((size_t)n_iv + 1) * sizeof *first);
	if (!order || !first)
		die("out of memory");
	for (int k = 0; k < n_iv; k++)
		order[k] = &iv[k];
	/* each order in turn; the first smallest arena wins */
	static int (*const orders[])(const void *, const void *) = { by_start, by_size_desc,
	                                                              by_area_desc };
	int64_t arena = -1;
	for (int o = 0; o < COUNTOF(orders); o++) {
		qsort(order, (size_t)n_iv, sizeof *order, orders[o]);
		int64_t a = assign(order, n_iv, reg->n_nodes);
		if (arena < 0 || a < arena) {
			arena = a;
			for (int k = 0; k < n_iv; k++)
				first[k] = iv[k].off;
		}
	}
	for (int k = 0; k < n_iv; k++)
		iv[k].off = first[k];
	for (int i = 0; i < reg->n_nodes; i++) {   /* every member of a group at its offset */
		const Node *n = &g->nodes[reg->nodes[i]];
		for (int k = 0; k < n->n_out && !n->dead; k++)
			if (n->out[k] != IR_NONE && needs_arena(g, n->out[k], r))
				g->values[n->out[k]].arena_off = iv[P->group[n->out[k]]].off;
	}
	for (int k = 0; k < n_iv; k++) {
		if (iv[k].v != IR_NONE)
			continue;
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

/* Plans the whole graph, with shared storage or without; sets g's plan figures and
 * returns the arena size. */
static int64_t plan_all(Graph *g, const PassCtx *ctx, bool share)
{
	Plan P;
	int64_t arena, peak = 0;
	memset(&P, 0, sizeof P);
	P.g = g;
	P.ctx = ctx;
	P.share = share;
	P.last_use = malloc(((size_t)g->n_values + 1) * sizeof *P.last_use);
	P.def = malloc(((size_t)g->n_values + 1) * sizeof *P.def);
	P.group = malloc(((size_t)g->n_values + 1) * sizeof *P.group);
	if (!P.last_use || !P.def || !P.group)
		die("out of memory");
	for (ValueId v = 0; v < g->n_values; v++) {
		P.last_use[v] = P.def[v] = P.group[v] = -1;
		g->values[v].arena_off = -1;
		g->values[v].alias_of = IR_NONE;
	}
	arena = plan_region(&P, 0, &peak);
	g->arena_bytes = arena;
	/* the plan's invariants, checked on every plan in debug and test builds */
	char err[512];
	if (ctx->verify && plan_check(g, err, sizeof err))
		die("memory plan is wrong: %s", err);
	free(P.last_use);
	free(P.def);
	free(P.group);
	g->naive_bytes = P.naive;
	g->peak_live_bytes = peak;
	g->scratch_bytes = align_up(P.scratch);
	return arena;
}

int pass_plan_memory(Graph *g, PassCtx *ctx)
{
	/* Shared storage shortens the peak, but its longer-lived groups can fragment the
	 * offline placement: when the plan is above its peak, the plan without sharing is
	 * tried too, and the smaller arena wins (sharing on a tie). */
	int64_t arena = plan_all(g, ctx, true);
	if (arena > g->peak_live_bytes && plan_all(g, ctx, false) >= arena)
		plan_all(g, ctx, true);
	arena = g->arena_bytes;
	int64_t naive = g->naive_bytes;
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
