/* flex_attention.c — op group flex_attention: FlexAttention (ai.onnx.preview, version 1),
 * scaled dot-product attention with two optional one-input, one-output subgraphs,
 * rewritten by inference into ordinary nodes with the subgraphs' nodes inlined:
 *     S = MatMul(Q, Transpose(K)) * scale        (scale 0, the default: 1 / sqrt(head))
 *     S = score_mod(S)                           (when given)
 *     P = Softmax(S, axis -1)
 *     P = prob_mod(P)                            (when given)
 *     Y = MatMul(P, V)
 * Q, K, V are rank 4: (batch, heads, seq, size). Query head h reads kv head
 * h / (q_heads / kv_heads) (grouped-query: Q viewed as (batch, kv_heads, rep * q_seq,
 * size), as attention.c does). The work runs in softmax_precision when it is set, else in
 * float for f16 and bf16 inputs and in the inputs' type otherwise, as the spec's
 * reference does; Y is rounded to V's type once. A subgraph's one input is the score
 * (or probability) tensor; its nodes move into the node's region, reading that value. */
#include "graph_rewrite.h"

#include <math.h>
#include <string.h>

typedef struct FlexAttentionAttrs {
	float scale;                 /* 0: 1 / sqrt(head size) */
	int64_t softmax_precision;   /* 0: see above */
} FlexAttentionAttrs;

static const AttrField flex_attention_fields[] = {
	{ "scale", AK_FLOAT, offsetof(FlexAttentionAttrs, scale), NULL },
	{ "softmax_precision", AK_INT, offsetof(FlexAttentionAttrs, softmax_precision), NULL },
};

/* bodies[0] score_mod, bodies[1] prob_mod: IR_NONE when absent */
static int flex_attention_import(ImportCtx *c)
{
	FlexAttentionAttrs *a = c->attrs;
	Node *n = &c->g->nodes[c->node];
	static const char *const mods[2] = { "score_mod", "prob_mod" };
	if (import_float(c, "scale", 0.0f, &a->scale) ||
	    import_int(c, "softmax_precision", 0, &a->softmax_precision))
		return -1;
	if (!isfinite(a->scale))
		return import_fail(c, "scale", "expected a finite value");
	if (a->softmax_precision != 0 && a->softmax_precision != DT_F32 &&
	    a->softmax_precision != DT_F16 && a->softmax_precision != DT_F64)
		return import_fail(c, "softmax_precision", "expected float, float16 or double, got %lld",
		                   (long long)a->softmax_precision);
	n->bodies = arena_array(&c->g->arena, 2, sizeof *n->bodies);
	n->n_bodies = 2;
	for (int i = 0; i < 2; i++) {
		const RawAttr *r = import_find(c, mods[i]);
		n->bodies[i] = IR_NONE;
		if (!r)
			continue;
		if (r->kind != RA_GRAPH || r->graph == IR_NONE)
			return import_fail(c, mods[i], "expected a graph");
		n->bodies[i] = r->graph;
	}
	return 0;
}

/* Moves the nodes of body `slot` after the nodes appended so far, reading x (of type
 * *xt) for the body's input; returns the body's output (x itself for an identity body).
 * The body is inferred first, at *xt, so that a result of another type or shape is
 * reported as the subgraph's. */
static ValueId inline_mod(InferCtx *c, int slot, ValueId x, const Type *xt)
{
	Graph *g = c->g;
	RegionId b = infer_node(c)->bodies[slot], r = infer_node(c)->region;
	Region *br = &g->regions[b];
	static const char *const mods[2] = { "score_mod", "prob_mod" };
	if (br->n_inputs != 1 || br->n_outputs != 1) {
		infer_fail_attr(c, mods[slot], "expected a graph of one input and one output, got %d "
		                "and %d", br->n_inputs, br->n_outputs);
		return IR_NONE;
	}
	ValueId in = br->inputs[0];
	g->values[in].type = *xt;
	if (ops_infer_region(g, b, c->diags))
		return IR_NONE;
	br = &g->regions[b];
	const Type *ot = &g->values[br->outputs[0]].type;
	if (ot->dtype != xt->dtype || ot->rank != xt->rank ||
	    memcmp(ot->dims, xt->dims, sizeof(int64_t) * (size_t)xt->rank)) {
		infer_fail_attr(c, mods[slot], "must return the (%lld, %lld, %lld, %lld) %s tensor it "
		                "is given", (long long)xt->dims[0], (long long)xt->dims[1],
		                (long long)xt->dims[2], (long long)xt->dims[3], dtype_name(xt->dtype));
		return IR_NONE;
	}
	ValueId out = br->outputs[0];
	g->values[out].is_output = false;
	br->n_outputs = 0;
	if (out == in)
		return x;
	rw_replace_uses(g, in, x);
	for (ValueId v = 0; v < g->n_values; v++)
		if (g->values[v].region == b && v != in)
			g->values[v].region = r;
	for (int i = 0; i < br->n_nodes; i++) {
		NodeId id = br->nodes[i];
		Region *rr = &g->regions[r];
		*VEC_PUSH(rr->nodes, rr->n_nodes, rr->cap_nodes) = id;
		g->nodes[id].region = r;
		for (int q = 0; q < g->nodes[id].n_bodies; q++)
			g->regions[g->nodes[id].bodies[q]].parent = r;
	}
	g->regions[b].n_nodes = 0;
	return out;
}

static ValueId step2(InferCtx *c, Op op, ValueId a, ValueId b, const char *what)
{
	ValueId in[2] = { a, b };
	return rw_step(c, op, in, b == IR_NONE ? 1 : 2, IR_NONE, NULL, 0, what);
}

static int flex_attention_infer(InferCtx *c)
{
	Graph *g = c->g;
	const FlexAttentionAttrs a = *(const FlexAttentionAttrs *)infer_node(c)->attrs;
	const Type q = *infer_in(c, 0), k = *infer_in(c, 1), v = *infer_in(c, 2);
	const int first = g->regions[infer_node(c)->region].n_nodes;
	const ValueId y = infer_node(c)->out[0];
	if (infer_check_dtype(c, 0, dtl_float) || infer_same_dtype(c, 0, 1) ||
	    infer_same_dtype(c, 0, 2))
		return -1;
	for (int s = 0; s < 3; s++) {
		const Type *t = infer_in(c, s);
		if (t->rank != 4)
			return infer_fail(c, s, "expected rank 4 (batch, heads, seq, size), got %d", t->rank);
		if (t->dims[0] != q.dims[0])
			return infer_fail(c, s, "batch is %lld, Q's is %lld", (long long)t->dims[0],
			                  (long long)q.dims[0]);
		if (infer_check_size(c, s))
			return -1;
	}
	const int64_t batch = q.dims[0], hq = q.dims[1], lq = q.dims[2], e = q.dims[3];
	const int64_t hkv = k.dims[1], s = k.dims[2], ev = v.dims[3];
	if (k.dims[3] != e)
		return infer_fail(c, 1, "head size %lld differs from Q's %lld", (long long)k.dims[3],
		                  (long long)e);
	if (v.dims[1] != hkv || v.dims[2] != s)
		return infer_fail(c, 2, "expected (%lld, %lld, %lld, v head size) (K's heads and length)",
		                  (long long)batch, (long long)hkv, (long long)s);
	if (e == 0 || hkv == 0 || hq % hkv)
		return infer_fail(c, 1, "%lld kv heads do not divide the %lld query heads",
		                  (long long)hkv, (long long)hq);
	const DType t = q.dtype;
	const DType ct = a.softmax_precision ? (DType)a.softmax_precision
	                 : t == DT_F16 || t == DT_BF16 ? DT_F32 : t;
	const int64_t rep = hq / hkv;
	const int64_t q_grouped[4] = { batch, hkv, rep * lq, e };
	const int64_t s4[4] = { batch, hq, lq, s }, grouped[4] = { batch, hkv, rep * lq, s };
	const int64_t y4[4] = { batch, hq, lq, ev };

	ValueId vq = infer_node(c)->in[0], vk = infer_node(c)->in[1], vv = infer_node(c)->in[2];
	if (ct != t) {
		vq = rw_cast(c, vq, ct, "q_cast");
		vk = rw_cast(c, vk, ct, "k_cast");
		vv = rw_cast(c, vv, ct, "v_cast");
	}
	if (rep > 1)
		vq = rw_reshape(c, vq, 4, q_grouped, IR_NONE, "q_grouped");
	static const int64_t swap23[4] = { 0, 1, 3, 2 };
	RawAttr perm = rw_raw_ints("perm", swap23, 4);
	ValueId kt = rw_step(c, OP_TRANSPOSE, &vk, 1, IR_NONE, &perm, 1, "k_transposed");
	ValueId sc = step2(c, OP_MATMUL, vq, kt, "qk");
	if (rep > 1)
		sc = rw_reshape(c, sc, 4, s4, IR_NONE, "qk_heads");
	double scale = a.scale != 0.0f ? a.scale : 1.0 / sqrt((double)e);
	sc = step2(c, OP_MUL, sc, rw_float_const(c, ct, 0, NULL, &scale, "scale"), "scores");
	const Type st = type_make(ct, 4, s4);
	if (infer_node(c)->bodies[0] != IR_NONE && (sc = inline_mod(c, 0, sc, &st)) == IR_NONE)
		return -1;
	RawAttr ax = rw_raw_int("axis", -1);
	ValueId p = rw_step(c, OP_SOFTMAX, &sc, 1, IR_NONE, &ax, 1, "probs");
	if (infer_node(c)->bodies[1] != IR_NONE && (p = inline_mod(c, 1, p, &st)) == IR_NONE)
		return -1;
	if (rep > 1)
		p = rw_reshape(c, p, 4, grouped, IR_NONE, "probs_grouped");
	const bool cast = ct != v.dtype;
	ValueId pv_in[2] = { p, vv };
	ValueId o = rw_step(c, OP_MATMUL, pv_in, 2, rep > 1 || cast ? IR_NONE : y, NULL, 0, "pv");
	if (rep > 1)
		o = rw_reshape(c, o, 4, y4, cast ? IR_NONE : y, "pv_heads");
	if (cast) {
		RawAttr to = rw_raw_int("to", v.dtype);
		rw_step(c, OP_CAST, &o, 1, y, &to, 1, "y");
	}
	infer_node(c)->dead = true;
	return rw_place_after(g, c->node, first, c->diags);
}

const OpImpl op_impl_flex_attention = { sizeof(FlexAttentionAttrs), flex_attention_fields,
                                        COUNTOF(flex_attention_fields), flex_attention_import,
                                        flex_attention_infer, rw_never_lowered };
