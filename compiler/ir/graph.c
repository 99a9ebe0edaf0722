/* graph.c — building the IR: regions, values, nodes and the constant blob. */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

#define BLOB_ALIGN 64

void ir_graph_init(Graph *g, const char *file)
{
	memset(g, 0, sizeof *g);
	arena_init(&g->arena);
	g->file = file ? arena_strdup(&g->arena, file) : "";
	g->opset = 17;
	ir_region_new(g, IR_NONE, "main");
}

void ir_graph_free(Graph *g)
{
	for (int i = 0; i < g->n_regions; i++) {
		free(g->regions[i].nodes);
		free(g->regions[i].inputs);
		free(g->regions[i].outputs);
	}
	free(g->regions);
	free(g->values);
	free(g->nodes);
	free(g->blob);
	arena_free(&g->arena);
	memset(g, 0, sizeof *g);
}

RegionId ir_region_new(Graph *g, RegionId parent, const char *name)
{
	Region *r = VEC_PUSH(g->regions, g->n_regions, g->cap_regions);
	memset(r, 0, sizeof *r);
	r->parent = parent;
	r->name = arena_strdup(&g->arena, name ? name : "");
	return g->n_regions - 1;
}

ValueId ir_value_new(Graph *g, RegionId r, const char *name, const Type *t)
{
	Value *v = VEC_PUSH(g->values, g->n_values, g->cap_values);
	memset(v, 0, sizeof *v);
	v->name = arena_strdup(&g->arena, name ? name : "");
	if (t)
		v->type = *t;
	v->region = r;
	v->producer = IR_NONE;
	v->arena_off = -1;
	v->alias_of = IR_NONE;
	return g->n_values - 1;
}

int64_t ir_blob_add(Graph *g, const void *data, int64_t bytes)
{
	int64_t off = (g->blob_size + BLOB_ALIGN - 1) & ~(int64_t)(BLOB_ALIGN - 1);
	int64_t end;
	if (bytes < 0 || !size_add(off, bytes, &end))
		die("constant blob overflow");
	if (end == 0)
		end = 1;   /* an empty constant still gets a distinct, valid address */
	if (end > g->blob_cap) {
		int64_t cap = g->blob_cap ? g->blob_cap : 4096;
		while (cap < end)
			cap *= 2;
		uint8_t *p = realloc(g->blob, (size_t)cap);
		if (!p)
			die("out of memory (%lld byte blob)", (long long)cap);
		g->blob = p;
		g->blob_cap = cap;
	}
	if (off > g->blob_size)
		memset(g->blob + g->blob_size, 0, (size_t)(off - g->blob_size));
	if (bytes && data)
		memcpy(g->blob + off, data, (size_t)bytes);
	else if (bytes)
		memset(g->blob + off, 0, (size_t)bytes);
	g->blob_size = end;
	return off;
}

void ir_value_set_const(Graph *g, ValueId id, const void *data)
{
	int64_t bytes = type_bytes(&g->values[id].type);
	IR_ASSERT(bytes >= 0);
	int64_t off = ir_blob_add(g, data, bytes);   /* may move g->blob, not values */
	g->values[id].is_const = true;
	g->values[id].const_off = off;
}

ValueId ir_value_new_const(Graph *g, RegionId r, const char *name, const Type *t, const void *data)
{
	ValueId v = ir_value_new(g, r, name, t);
	ir_value_set_const(g, v, data);
	return v;
}

ValueId ir_value_find(const Graph *g, RegionId r, const char *name)
{
	while (r != IR_NONE) {
		for (int i = g->n_values - 1; i >= 0; i--)
			if (g->values[i].region == r && strcmp(g->values[i].name, name) == 0)
				return i;
		r = g->regions[r].parent;
	}
	return IR_NONE;
}

NodeId ir_node_new(Graph *g, RegionId r, Op op, int opset, const ValueId *in, int n_in,
                   const ValueId *out, int n_out, const char *origin)
{
	Node *n = VEC_PUSH(g->nodes, g->n_nodes, g->cap_nodes);
	NodeId id = g->n_nodes - 1;
	memset(n, 0, sizeof *n);
	n->op = op;
	n->opset = opset;
	n->region = r;
	n->n_in = n_in;
	n->in = arena_array(&g->arena, (size_t)(n_in ? n_in : 1), sizeof *n->in);
	if (n_in)
		memcpy(n->in, in, (size_t)n_in * sizeof *in);
	n->n_out = n_out;
	n->out = arena_array(&g->arena, (size_t)(n_out ? n_out : 1), sizeof *n->out);
	if (n_out)
		memcpy(n->out, out, (size_t)n_out * sizeof *out);
	for (int i = 0; i < n_out; i++) {
		if (out[i] == IR_NONE)
			continue;
		g->values[out[i]].producer = id;
		g->values[out[i]].producer_slot = i;
	}
	if (origin) {
		n->origins = arena_alloc(&g->arena, sizeof *n->origins);
		n->origins[0] = arena_strdup(&g->arena, origin);
		n->n_origins = 1;
	}
	size_t attr_size = ir_op_attrs(op).attr_size;
	if (attr_size)
		n->attrs = arena_alloc(&g->arena, attr_size);
	Region *reg = &g->regions[r];
	*VEC_PUSH(reg->nodes, reg->n_nodes, reg->cap_nodes) = id;
	return id;
}

void ir_region_add_input(Graph *g, RegionId r, ValueId v)
{
	Region *reg = &g->regions[r];
	*VEC_PUSH(reg->inputs, reg->n_inputs, reg->cap_inputs) = v;
	g->values[v].is_input = true;
}

void ir_region_add_output(Graph *g, RegionId r, ValueId v)
{
	Region *reg = &g->regions[r];
	*VEC_PUSH(reg->outputs, reg->n_outputs, reg->cap_outputs) = v;
	g->values[v].is_output = true;
}

/* The ONNX names of the ops, from the op table (ops.h) */
static const char *const op_names[] = {
#define X(e, name, ...) #name,
	IR_OPS(X)
#undef X
};
_Static_assert(sizeof op_names / sizeof op_names[0] == OP_COUNT, "op names and Op enum disagree");

const char *ir_op_name(Op op)
{
	return (unsigned)op < OP_COUNT ? op_names[op] : "?";
}

/* The implementation group of each op (the table's third column) */
static const char *const op_groups[] = {
#define X(e, name, group, ...) #group,
	IR_OPS(X)
#undef X
};
_Static_assert(sizeof op_groups / sizeof op_groups[0] == OP_COUNT, "op groups and Op enum disagree");

const char *ir_op_group(Op op)
{
	return (unsigned)op < OP_COUNT ? op_groups[op] : "?";
}

/* The names' lengths, so that a lookup compares a name's bytes only with the few op
 * names of its length (the import looks up every node's op: a strcmp of each of the
 * ~210 names was 2% of compiling 10^5 nodes). */
static const unsigned char op_name_lens[] = {
#define X(e, name, ...) sizeof #name - 1,
	IR_OPS(X)
#undef X
};

Op ir_op_lookup(const char *name)
{
	size_t n = strlen(name);
	for (int i = 0; i < OP_COUNT; i++)
		if (op_name_lens[i] == n && op_names[i][0] == name[0] && memcmp(op_names[i], name, n) == 0)
			return (Op)i;
	return OP_COUNT;
}

const char *ir_node_name(const Graph *g, NodeId n)
{
	const Node *node = &g->nodes[n];
	return node->n_origins ? node->origins[0] : "";
}

DiagLoc ir_node_loc(const Graph *g, NodeId n)
{
	DiagLoc l = diag_loc_file(g->file);
	l.node = ir_node_name(g, n);
	l.op_type = ir_op_name(g->nodes[n].op);
	if (g->nodes[n].region != 0)
		l.graph = g->regions[g->nodes[n].region].name;
	return l;
}
