/* plan_memory.c — static memory planning. Every intermediate tensor of the main
 * graph gets an offset in one arena; tensors whose lifetimes do not overlap share
 * memory (first fit over the live set, in execution order). Kernel scratch is
 * planned separately after the arena: the largest any single node needs.
 * NAME_WORKSPACE_SIZE = arena_bytes + scratch_bytes. */
#include "passes.h"
#include "opimpl.h"

#include <stdlib.h>
#include <string.h>

#define ALIGN 64

typedef struct Block { int64_t off, size, bytes; ValueId v; } Block;  /* size: padded */

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

static bool needs_arena(const Graph *g, ValueId v)
{
	const Value *val = &g->values[v];
	return !val->is_const && !val->is_output && !val->is_input && val->region == 0;
}

int pass_plan_memory(Graph *g, PassCtx *ctx)
{
	const Region *reg = &g->regions[0];
	int *last_use = malloc(((size_t)g->n_values + 1) * sizeof *last_use);
	Block *live = NULL;
	int n_live = 0, cap_live = 0;
	int64_t arena = 0, scratch = 0, naive = 0, live_bytes = 0, peak = 0;
	if (!last_use)
		die("out of memory");
	for (ValueId v = 0; v < g->n_values; v++) {
		last_use[v] = -1;
		g->values[v].arena_off = -1;
	}
	for (int i = 0; i < reg->n_nodes; i++) {
		const Node *n = &g->nodes[reg->nodes[i]];
		if (n->dead)
			continue;
		for (int k = 0; k < n->n_in; k++)
			if (n->in[k] != IR_NONE)
				last_use[n->in[k]] = i;
	}
	for (int i = 0; i < reg->n_nodes; i++) {
		NodeId id = reg->nodes[i];
		const Node *n = &g->nodes[id];
		if (n->dead)
			continue;
		int64_t s = plan_node_scratch(g, id);
		if (s > scratch)
			scratch = s;
		/* allocate outputs first fit; inputs are still live, so nothing overlaps them */
		for (int k = 0; k < n->n_out; k++) {
			ValueId v = n->out[k];
			if (v == IR_NONE || !needs_arena(g, v))
				continue;
			int64_t bytes = type_bytes(&g->values[v].type);
			int64_t size = align_up(bytes);
			int64_t off = 0;
			int pos = 0;
			naive += bytes;
			live_bytes += bytes;
			for (pos = 0; pos < n_live; pos++) {
				if (live[pos].off - off >= size)
					break;
				if (live[pos].off + live[pos].size > off)
					off = live[pos].off + live[pos].size;
			}
			vec_reserve((void **)&live, &cap_live, n_live + 1, sizeof *live);
			memmove(&live[pos + 1], &live[pos], (size_t)(n_live - pos) * sizeof *live);
			live[pos].off = off;
			live[pos].size = size;
			live[pos].bytes = bytes;
			live[pos].v = v;
			n_live++;
			g->values[v].arena_off = off;
			if (off + size > arena)
				arena = off + size;
			if (last_use[v] < i)
				last_use[v] = i;   /* an unused output dies right after its node */
		}
		if (live_bytes > peak)
			peak = live_bytes;
		/* free what dies here */
		for (int q = 0; q < n_live;) {
			if (last_use[live[q].v] <= i) {
				live_bytes -= live[q].bytes;
				memmove(&live[q], &live[q + 1], (size_t)(n_live - q - 1) * sizeof *live);
				n_live--;
			} else {
				q++;
			}
		}
	}
	free(live);
	free(last_use);
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
