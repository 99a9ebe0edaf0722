/* sequence.c — op groups sequence and sequence_map: Sequence*, SplitToSequence,
 * ConcatFromSequence, Optional*, resolved while inference runs.
 *
 * A sequence's length is known at compile time, so a sequence is just the ordered
 * list of the tensor values it holds (Value.seq, a SeqVal); an optional that holds
 * a value is that value, and an empty one is a SeqVal marked `none`. The ops here
 * never reach codegen: SequenceConstruct/Insert/Erase/Empty and Optional build a new
 * list and die; SequenceLength and OptionalHasElement become constants; SequenceAt
 * and OptionalGetElement become an Identity of the element; SplitToSequence and
 * ConcatFromSequence become Split/Concat nodes; SequenceMap becomes one copy of its
 * body per element. Positions must be constants after folding (a Loop over a
 * sequence is unrolled, so its iteration number is). Graph inputs and outputs that
 * are sequences are one tensor per element (the frontend and ops_seq_finish). */
#include "control.h"
#include "graph_rewrite.h"

#include <stdlib.h>
#include <string.h>

typedef struct SeqAttrs {
	int64_t dtype;       /* SequenceEmpty: element type; Optional: the `type` attribute's
	                        element type (0 when absent) */
	int64_t axis;        /* SplitToSequence, ConcatFromSequence */
	int64_t keepdims;    /* SplitToSequence */
	int64_t new_axis;    /* ConcatFromSequence */
} SeqAttrs;

static const AttrField seq_fields[] = {
	{ "dtype", AK_INT, offsetof(SeqAttrs, dtype), NULL },
	{ "axis", AK_INT, offsetof(SeqAttrs, axis), NULL },
	{ "keepdims", AK_INT, offsetof(SeqAttrs, keepdims), NULL },
	{ "new_axis", AK_INT, offsetof(SeqAttrs, new_axis), NULL },
};

static int seq_import(ImportCtx *c)
{
	SeqAttrs *a = c->attrs;
	Op op = c->g->nodes[c->node].op;
	if (op == OP_SEQUENCE_EMPTY && import_int(c, "dtype", DT_F32, &a->dtype))
		return -1;
	if (op == OP_OPTIONAL && import_int(c, "type", 0, &a->dtype))
		return -1;
	if ((op == OP_SPLIT_TO_SEQUENCE || op == OP_CONCAT_FROM_SEQUENCE) &&
	    import_int(c, "axis", 0, &a->axis))
		return -1;
	if (op == OP_CONCAT_FROM_SEQUENCE && !import_find(c, "axis"))
		return import_fail(c, "axis", "required attribute is missing");
	if (op == OP_SPLIT_TO_SEQUENCE && import_int(c, "keepdims", 1, &a->keepdims))
		return -1;
	if (op == OP_CONCAT_FROM_SEQUENCE && import_int(c, "new_axis", 0, &a->new_axis))
		return -1;
	if ((op == OP_SEQUENCE_EMPTY || (op == OP_OPTIONAL && a->dtype)) &&
	    (!dtype_is_valid((int)a->dtype) || dtype_size((DType)a->dtype) == 0))
		return import_fail(c, op == OP_OPTIONAL ? "type" : "dtype", "element type %lld is not "
		                   "supported", (long long)a->dtype);
	return 0;
}

/* ---- helpers ---- */

const SeqVal *ops_seq_of(const Graph *g, ValueId v)
{
	return v == IR_NONE ? NULL : g->values[v].seq;
}

/* The node's work is done at compile time: it dies, its outputs stay as values. */
static int resolved(InferCtx *c)
{
	Node *n = infer_node(c);
	n->dead = true;
	for (int i = 0; i < n->n_out; i++)
		if (n->out[i] != IR_NONE)
			c->g->values[n->out[i]].producer = IR_NONE;
	return 0;
}

/* Output 0 becomes the constant scalar `bytes` of type dt. */
static int make_const(InferCtx *c, DType dt, const void *bytes)
{
	ValueId out = infer_node(c)->out[0];
	c->g->values[out].type = type_make(dt, 0, NULL);
	ir_value_set_const(c->g, out, bytes);
	return resolved(c);
}

/* The node becomes Identity(v): a tensor element handed on. */
static int become_identity(InferCtx *c, ValueId v)
{
	Graph *g = c->g;
	Node *n = infer_node(c);
	if (ops_seq_of(g, v)) {          /* a sequence inside an optional or a sequence */
		const SeqVal *s = ops_seq_of(g, v);
		ops_seq_set(g, n->out[0], s->none, s->n, s->elems, (DType)s->dtype);
		return resolved(c);
	}
	n->op = OP_IDENTITY;
	n->in[0] = v;
	n->n_in = 1;
	n->attrs = arena_alloc(&g->arena, op_info(OP_IDENTITY)->impl->attr_size);
	if (ops_import_attrs(g, c->node, NULL, 0, c->diags))
		return -1;
	return op_info(OP_IDENTITY)->impl->infer(c);
}

/* Input `slot` must be a sequence (not an empty optional, not a tensor). */
static const SeqVal *need_seq(InferCtx *c, int slot)
{
	const SeqVal *s = ops_seq_of(c->g, infer_node(c)->in[slot]);
	if (!s || s->none) {
		infer_fail(c, slot, "expected a sequence, got %s", s ? "an empty optional" : "a tensor");
		return NULL;
	}
	return s;
}

/* Reads the constant position at `slot` (absent: def) and checks lo <= pos <= hi
 * after adding n to a negative one. */
static int position(InferCtx *c, int slot, int n, int64_t def, int64_t lo, int64_t hi,
                    int64_t *pos)
{
	int64_t *v;
	int nv;
	*pos = def;
	if (!infer_has(c, slot))
		return 0;
	if (infer_const_ints(c, slot, &v, &nv))
		return -1;
	if (nv != 1)
		return infer_fail(c, slot, "expected one position, got %d values", nv);
	*pos = v[0] < 0 ? v[0] + n : v[0];
	if (*pos < lo || *pos > hi)
		return infer_fail(c, slot, "position %lld is out of range for a sequence of %d",
		                  (long long)v[0], n);
	return 0;
}

static int check_elem(InferCtx *c, int slot, DType dt)
{
	const Value *v = &c->g->values[infer_node(c)->in[slot]];
	if (v->seq)
		return infer_unsupported(c, "sequences of sequences are not supported");
	if (dt != DT_UNDEF && v->type.dtype != dt)
		return infer_fail(c, slot, "element type %s, the sequence holds %s",
		                  dtype_name(v->type.dtype), dtype_name(dt));
	return 0;
}

/* ---- SplitToSequence, ConcatFromSequence: Split and Concat nodes ---- */

static int split_infer(InferCtx *c)
{
	Graph *g = c->g;
	const SeqAttrs *a = infer_node(c)->attrs;
	Type x = *infer_in(c, 0);
	ValueId in = infer_node(c)->in[0], seq = infer_node(c)->out[0];
	int64_t axis, *sizes = NULL;
	int n = 0, first = g->regions[infer_node(c)->region].n_nodes;
	bool squeeze = false;

	if (infer_normalize_axis(c, a->axis, x.rank, &axis))
		return -1;
	if (infer_has(c, 1)) {
		int64_t *v;
		int nv;
		if (infer_const_ints(c, 1, &v, &nv))
			return -1;
		if (infer_in(c, 1)->rank == 0) {         /* a chunk length: the last may be shorter */
			if (v[0] <= 0)
				return infer_fail(c, 1, "expected a positive chunk length, got %lld",
				                  (long long)v[0]);
			n = (int)((x.dims[axis] + v[0] - 1) / v[0]);
			sizes = arena_array(&g->arena, (size_t)(n ? n : 1), sizeof *sizes);
			for (int i = 0; i < n; i++)
				sizes[i] = i < n - 1 || x.dims[axis] % v[0] == 0 ? v[0] : x.dims[axis] % v[0];
		} else {
			int64_t sum = 0;
			for (int i = 0; i < nv; i++) {
				if (v[i] < 0 || v[i] > x.dims[axis])
					return infer_fail(c, 1, "split length %lld is out of range",
					                  (long long)v[i]);
				sum += v[i];
			}
			if (sum != x.dims[axis])
				return infer_fail(c, 1, "split lengths add up to %lld, the axis has %lld",
				                  (long long)sum, (long long)x.dims[axis]);
			n = nv;
			sizes = v;
		}
	} else {
		n = (int)x.dims[axis];
		squeeze = a->keepdims == 0;
		sizes = arena_array(&g->arena, (size_t)(n ? n : 1), sizeof *sizes);
		for (int i = 0; i < n; i++)
			sizes[i] = 1;
	}
	if (n == 0 || n > 4096)
		return infer_unsupported(c, "SplitToSequence into %d parts is not supported", n);
	ValueId *parts = arena_array(&g->arena, (size_t)n, sizeof *parts);
	ValueId *elems = arena_array(&g->arena, (size_t)n, sizeof *elems);
	for (int i = 0; i < n; i++)
		parts[i] = ir_value_new(g, g->nodes[c->node].region,
		                        arena_printf(&g->arena, "%s.%d", g->values[seq].name, i), NULL);
	RawAttr ax = raw_attr_int("axis", axis);
	ValueId sin[2] = { in, rw_i64_const(c, "split", n, sizes) };
	rw_add_node(c, OP_SPLIT, sin, 2, parts, n, &ax, 1);
	for (int i = 0; i < n; i++) {
		elems[i] = parts[i];
		if (!squeeze)
			continue;
		ValueId qin[2] = { parts[i], rw_i64_const(c, "axes", 1, &axis) };
		elems[i] = ir_value_new(g, g->nodes[c->node].region,
		                        arena_printf(&g->arena, "%s.sq", g->values[parts[i]].name), NULL);
		rw_add_node(c, OP_SQUEEZE, qin, 2, &elems[i], 1, NULL, 0);
	}
	resolved(c);
	if (rw_place_after(g, c->node, first, c->diags))
		return -1;
	ops_seq_set(g, seq, false, n, elems, x.dtype);
	return 0;
}

static int concat_infer(InferCtx *c)
{
	Graph *g = c->g;
	const SeqAttrs *a = infer_node(c)->attrs;
	const SeqVal *s = need_seq(c, 0);
	ValueId out = infer_node(c)->out[0];
	int first = g->regions[infer_node(c)->region].n_nodes;
	if (!s)
		return -1;
	if (s->n == 0)
		return infer_fail(c, 0, "ConcatFromSequence of an empty sequence");
	int rank = g->values[s->elems[0]].type.rank + (a->new_axis ? 1 : 0);
	int64_t axis;
	if (infer_normalize_axis(c, a->axis, rank, &axis))
		return -1;
	const ValueId *parts = s->elems;
	if (a->new_axis) {
		ValueId *u = arena_array(&g->arena, (size_t)s->n, sizeof *u);
		for (int i = 0; i < s->n; i++) {
			ValueId in[2] = { s->elems[i], rw_i64_const(c, "axes", 1, &axis) };
			u[i] = ir_value_new(g, g->nodes[c->node].region,
			                    arena_printf(&g->arena, "%s.unsq%d", g->values[out].name, i), NULL);
			rw_add_node(c, OP_UNSQUEEZE, in, 2, &u[i], 1, NULL, 0);
		}
		parts = u;
	}
	RawAttr ax = raw_attr_int("axis", axis);
	rw_add_node(c, OP_CONCAT, parts, s->n, &out, 1, &ax, 1);
	infer_node(c)->dead = true;
	return rw_place_after(g, c->node, first, c->diags);
}

/* ---- the list ops ---- */

static int seq_infer(InferCtx *c)
{
	Graph *g = c->g;
	Node *n = infer_node(c);
	const SeqAttrs *a = n->attrs;
	ValueId out = n->out[0];
	const SeqVal *s;
	ValueId *e;
	int64_t pos;

	switch (n->op) {
	case OP_SEQUENCE_EMPTY:
		ops_seq_set(g, out, false, 0, NULL, (DType)a->dtype);
		return resolved(c);
	case OP_SEQUENCE_CONSTRUCT:
		for (int i = 0; i < n->n_in; i++)
			if (check_elem(c, i, g->values[n->in[0]].type.dtype))
				return -1;
		ops_seq_set(g, out, false, n->n_in, n->in, g->values[n->in[0]].type.dtype);
		return resolved(c);
	case OP_SEQUENCE_INSERT:
		if (!(s = need_seq(c, 0)) || check_elem(c, 1, s->n ? (DType)s->dtype : DT_UNDEF) ||
		    position(c, 2, s->n, s->n, 0, s->n, &pos))
			return -1;
		e = arena_array(&g->arena, (size_t)s->n + 1, sizeof *e);
		memcpy(e, s->elems, (size_t)pos * sizeof *e);
		e[pos] = n->in[1];
		memcpy(e + pos + 1, s->elems + pos, (size_t)(s->n - pos) * sizeof *e);
		ops_seq_set(g, out, false, s->n + 1, e, g->values[n->in[1]].type.dtype);
		return resolved(c);
	case OP_SEQUENCE_ERASE:
		if (!(s = need_seq(c, 0)))
			return -1;
		if (s->n == 0)
			return infer_fail(c, 0, "SequenceErase of an empty sequence");
		if (position(c, 1, s->n, s->n - 1, 0, s->n - 1, &pos))
			return -1;
		e = arena_array(&g->arena, (size_t)s->n, sizeof *e);
		memcpy(e, s->elems, (size_t)pos * sizeof *e);
		memcpy(e + pos, s->elems + pos + 1, (size_t)(s->n - pos - 1) * sizeof *e);
		ops_seq_set(g, out, false, s->n - 1, e, (DType)s->dtype);
		return resolved(c);
	case OP_SEQUENCE_AT:
		if (!(s = need_seq(c, 0)) || position(c, 1, s->n, 0, 0, s->n - 1, &pos))
			return -1;
		return become_identity(c, s->elems[pos]);
	case OP_SEQUENCE_LENGTH: {
		if (!(s = need_seq(c, 0)))
			return -1;
		int64_t len = s->n;
		return make_const(c, DT_I64, &len);
	}
	case OP_OPTIONAL:
		if (!infer_has(c, 0)) {
			if (!a->dtype)
				return infer_fail_attr(c, "type", "an Optional without input needs its type");
			ops_seq_set(g, out, true, 0, NULL, (DType)a->dtype);
			return resolved(c);
		}
		return become_identity(c, n->in[0]);   /* a present optional is its value */
	case OP_OPTIONAL_HAS_ELEMENT: {
		s = ops_seq_of(g, infer_has(c, 0) ? n->in[0] : IR_NONE);
		uint8_t has = infer_has(c, 0) && !(s && s->none);
		return make_const(c, DT_BOOL, &has);
	}
	case OP_OPTIONAL_GET_ELEMENT:
		s = ops_seq_of(g, n->in[0]);
		if (s && s->none)
			return infer_fail(c, 0, "OptionalGetElement of an empty optional");
		return become_identity(c, n->in[0]);
	case OP_SPLIT_TO_SEQUENCE:
		return split_infer(c);
	case OP_CONCAT_FROM_SEQUENCE:
		return concat_infer(c);
	default:
		die("sequence group: unexpected op %s", ir_op_name(n->op));
	}
}

/* ---- SequenceMap: one copy of the body per element ---- */

/* Most nodes the copies of one SequenceMap body may add. */
#define MAP_MAX_NODES 100000

static int map_import(ImportCtx *c)
{
	CtrlAttrs *a = c->attrs;
	Node *n = &c->g->nodes[c->node];
	const RawAttr *b = import_find(c, "body");
	a->trip = -1;
	a->ws_off = -1;
	a->scan_input_axes.n = a->scan_input_directions.n = -1;
	a->scan_output_axes.n = a->scan_output_directions.n = -1;
	if (!b)
		return import_fail(c, "body", "required subgraph attribute is missing");
	if (b->kind != RA_GRAPH || b->graph == IR_NONE)
		return import_fail(c, "body", "expected a graph");
	n->bodies = arena_array(&c->g->arena, 1, sizeof *n->bodies);
	n->bodies[0] = b->graph;
	n->n_bodies = 1;
	return 0;
}

static int map_infer(InferCtx *c)
{
	Graph *g = c->g;
	Node *n = infer_node(c);
	RegionId b = n->bodies[0], r = n->region;
	int n_in = n->n_in, n_out = n->n_out, len = -1;
	int first = g->regions[r].n_nodes;
	const SeqVal *s = need_seq(c, 0);

	if (!s)
		return -1;
	len = s->n;
	for (int k = 1; k < n_in; k++) {
		const SeqVal *sk = ops_seq_of(g, n->in[k]);
		if (sk && sk->none)
			return infer_fail(c, k, "expected a sequence or a tensor, got an empty optional");
		if (sk && sk->n != len)
			return infer_fail(c, k, "a sequence of %d, input 0 has %d", sk->n, len);
	}
	if ((int64_t)len * (g->regions[b].n_nodes + 1) > MAP_MAX_NODES)
		return infer_unsupported(c, "SequenceMap over %d elements would copy its body into "
		                         "more than %d nodes", len, MAP_MAX_NODES);
	if (g->regions[b].n_inputs != n_in || g->regions[b].n_outputs != n_out)
		return infer_fail(c, -1, "the body has %d inputs and %d outputs, the node %d and %d",
		                  g->regions[b].n_inputs, g->regions[b].n_outputs, n_in, n_out);
	ValueId *ins = arena_array(&g->arena, (size_t)n_in, sizeof *ins);
	ValueId *outs = arena_array(&g->arena, (size_t)n_out, sizeof *outs);
	ValueId *elems = arena_array(&g->arena, (size_t)(n_out * (len ? len : 1)), sizeof *elems);
	for (int i = 0; i < len; i++) {
		for (int k = 0; k < n_in; k++) {
			const SeqVal *sk = ops_seq_of(g, g->nodes[c->node].in[k]);
			ins[k] = sk ? sk->elems[i] : g->nodes[c->node].in[k];
		}
		ctrl_body_copy(g, b, r, ins, outs, arena_printf(&g->arena, ".map%d", i));
		for (int j = 0; j < n_out; j++)
			elems[j * len + i] = outs[j];
	}
	rw_region_kill(g, b);
	resolved(c);
	if (rw_place_after(g, c->node, first, c->diags))
		return -1;
	for (int j = 0; j < n_out; j++) {
		ValueId o = g->nodes[c->node].out[j];
		DType dt = len ? g->values[elems[j * len]].type.dtype : DT_F32;
		if (o != IR_NONE)
			ops_seq_set(g, o, false, len, elems + j * len, dt);
	}
	return 0;
}

static int no_lower(LowerCtx *c)
{
	(void)c;
	return -1;   /* resolved by inference: never reaches codegen */
}

const OpImpl op_impl_sequence = { sizeof(SeqAttrs), seq_fields, COUNTOF(seq_fields), seq_import,
                                  seq_infer, no_lower };
const OpImpl op_impl_sequence_map = { sizeof(CtrlAttrs), NULL, 0, map_import, map_infer, no_lower };
