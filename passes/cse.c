/* cse.c — common-subexpression elimination. First identical constants (same type,
 * same bytes, same region) become one; then, in execution order, a node with the
 * same op, opset, inputs and attributes (compared field by field through the op's
 * attribute table) as an earlier node of its region is dropped and its outputs'
 * uses read the earlier node's outputs. Nodes with bodies and random ops (OPF_RANDOM,
 * and OPF_RANDOM_TRAINING's Dropout even when not training) are never merged; a
 * node whose output is a graph output stays, so the output keeps its name. */
#include "passes.h"
#include "rewrite.h"

#include <stdlib.h>
#include <string.h>

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h;
}

static uint64_t hash_bytes(const uint8_t *p, int64_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (int64_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

/* An open-addressing table of candidate ids keyed by a hash. */
typedef struct Table {
	int32_t *ids;            /* -1: empty */
	uint64_t *keys;
	size_t mask;
} Table;

static void table_init(Table *t, int n)
{
	size_t cap = 16;
	while (cap < (size_t)n * 2 + 16)
		cap *= 2;
	t->ids = malloc(cap * sizeof *t->ids);
	t->keys = malloc(cap * sizeof *t->keys);
	if (!t->ids || !t->keys)
		die("out of memory");
	memset(t->ids, 0xff, cap * sizeof *t->ids);
	t->mask = cap - 1;
}

static void table_free(Table *t)
{
	free(t->ids);
	free(t->keys);
}

/* Visits candidates with key h: returns the first id for which same() holds, after
 * inserting `id` when none does. */
typedef bool (*SameFn)(Graph *g, int32_t a, int32_t b);
static int32_t table_find_or_add(Table *t, Graph *g, uint64_t h, int32_t id, SameFn same)
{
	size_t i = (size_t)h & t->mask;
	for (; t->ids[i] >= 0; i = (i + 1) & t->mask)
		if (t->keys[i] == h && same(g, t->ids[i], id))
			return t->ids[i];
	t->ids[i] = id;
	t->keys[i] = h;
	return id;
}

/* ---- constants ---- */

static bool same_const(Graph *g, int32_t a, int32_t b)
{
	const Value *va = &g->values[a], *vb = &g->values[b];
	return va->region == vb->region && type_equal(&va->type, &vb->type) &&
	       memcmp(ir_const_data(g, a), ir_const_data(g, b), (size_t)type_bytes(&va->type)) == 0;
}

/* repl[v]: the value that replaces v (IR_NONE: none). Uses are redirected through it
 * as the walk reaches them, not by a scan of every node per merge (rw_replace_uses),
 * which made merging k duplicates cost k times the graph. */
static ValueId *repl_new(const Graph *g)
{
	ValueId *repl = malloc(((size_t)g->n_values + 1) * sizeof *repl);
	if (!repl)
		die("out of memory");
	for (int v = 0; v <= g->n_values; v++)
		repl[v] = IR_NONE;
	return repl;
}

static void repl_inputs(Node *n, const ValueId *repl)
{
	for (int k = 0; k < n->n_in; k++)
		if (n->in[k] != IR_NONE && repl[n->in[k]] != IR_NONE)
			n->in[k] = repl[n->in[k]];
}

/* Redirects every input of every live node through repl (the final sweep: nodes of a
 * region walked before the merge that replaced their input). */
static void repl_apply(Graph *g, const ValueId *repl)
{
	for (NodeId id = 0; id < g->n_nodes; id++)
		if (!g->nodes[id].dead)
			repl_inputs(&g->nodes[id], repl);
}

static int merge_constants(Graph *g)
{
	Table t;
	int merged = 0;
	unsigned char *seen = calloc((size_t)g->n_values + 1, 1);
	ValueId *repl = repl_new(g);
	if (!seen)
		die("out of memory");
	table_init(&t, g->n_values);
	for (RegionId r = 0; r < g->n_regions; r++) {
		const Region *reg = &g->regions[r];
		for (int i = 0; i < reg->n_nodes; i++) {
			Node *n = &g->nodes[reg->nodes[i]];
			if (n->dead)
				continue;
			for (int k = 0; k < n->n_in; k++) {
				ValueId v = n->in[k];
				if (v == IR_NONE || !g->values[v].is_const || g->values[v].is_output)
					continue;
				if (seen[v])
					continue;
				seen[v] = 1;
				const Value *cv = &g->values[v];
				uint64_t h = mix(hash_bytes(ir_const_data(g, v), type_bytes(&cv->type)),
				                 (uint64_t)cv->type.dtype * 131u + (uint64_t)cv->type.rank);
				for (int d = 0; d < cv->type.rank; d++)
					h = mix(h, (uint64_t)cv->type.dims[d]);
				ValueId keep = table_find_or_add(&t, g, h, v, same_const);
				if (keep != v) {
					repl[v] = keep;
					merged++;
				}
			}
		}
	}
	if (merged)
		repl_apply(g, repl);
	table_free(&t);
	free(seen);
	free(repl);
	return merged;
}

/* ---- nodes ---- */

static bool same_node(Graph *g, int32_t a, int32_t b)
{
	const Node *na = &g->nodes[a], *nb = &g->nodes[b];
	if (na->op != nb->op || na->opset != nb->opset || na->region != nb->region ||
	    na->n_in != nb->n_in || na->n_out != nb->n_out)
		return false;
	if (memcmp(na->in, nb->in, (size_t)na->n_in * sizeof *na->in))
		return false;
	for (int k = 0; k < na->n_out; k++) {
		/* each used output of b needs its counterpart in a */
		if ((na->out[k] == IR_NONE) != (nb->out[k] == IR_NONE))
			return false;
		if (na->out[k] != IR_NONE &&
		    !type_equal(&g->values[na->out[k]].type, &g->values[nb->out[k]].type))
			return false;
	}
	return rw_attrs_equal(na->op, na->attrs, nb->attrs);
}

static bool mergeable(const Graph *g, NodeId id)
{
	const Node *n = &g->nodes[id];
	if (n->dead || n->n_bodies || op_has(n->op, OPF_RANDOM | OPF_RANDOM_TRAINING))
		return false;   /* two random nodes draw different numbers */
	for (int k = 0; k < n->n_out; k++)
		if (n->out[k] != IR_NONE && g->values[n->out[k]].is_output)
			return false;
	return true;
}

static int merge_nodes(Graph *g)
{
	Table t;
	int merged = 0;
	ValueId *repl = repl_new(g);
	table_init(&t, g->n_nodes);
	for (RegionId r = 0; r < g->n_regions; r++) {
		for (int i = 0; i < g->regions[r].n_nodes; i++) {
			NodeId id = g->regions[r].nodes[i];
			Node *n = &g->nodes[id];
			if (n->dead)
				continue;
			repl_inputs(n, repl);   /* a node whose inputs were merged may now match */
			if (!mergeable(g, id))
				continue;
			uint64_t h = mix(mix((uint64_t)n->op, (uint64_t)n->opset), (uint64_t)r);
			for (int k = 0; k < n->n_in; k++)
				h = mix(h, (uint64_t)(uint32_t)n->in[k]);
			NodeId keep = table_find_or_add(&t, g, h, id, same_node);
			if (keep == id)
				continue;
			n->dead = true;
			for (int k = 0; k < n->n_out; k++)
				if (n->out[k] != IR_NONE)
					repl[n->out[k]] = g->nodes[keep].out[k];
			rw_origins_append(g, keep, id);
			merged++;
		}
	}
	if (merged)
		repl_apply(g, repl);
	table_free(&t);
	free(repl);
	return merged;
}

int pass_cse(Graph *g, PassCtx *ctx)
{
	int consts = merge_constants(g);
	int nodes = merge_nodes(g);
	if (consts || nodes)
		snprintf(ctx->changed, sizeof ctx->changed, "%d duplicate nodes removed, %d constants merged",
		         nodes, consts);
	return 0;
}
