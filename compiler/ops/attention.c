/* attention.c — op group attention: Attention (opsets 23, 24), rewritten by inference into
 * ordinary nodes along the spec's function body, so it needs no kernel of its own and
 * each target's MatMul and Softmax (the x86 fast paths among them) do the work:
 *     Q4, K4, V4 = the (batch, heads, seq, head_size) views (3-D: Reshape, Transpose)
 *     K*, V*     = Concat(past_key, K4), Concat(past_value, V4)   -> present_key/value
 *     S          = MatMul(Q4 * scale, Transpose(K*))
 *     S          = softcap * Tanh(S / softcap)                     (softcap > 0)
 *     S          = S + bias                                        (attn_mask, is_causal)
 *     P          = Softmax(S), in softmax_precision when it is set
 *     Y          = MatMul(P, V*)                                   (3-D: Transpose, Reshape)
 * qk_matmul_output is S after the MatMul (mode 0), after the softcap (1), after the bias
 * (2) or P (3). That is the order of the amended spec and of ONNX Runtime 1.30: the
 * softcap comes before the mask, so masked scores stay masked.
 *
 * f16 and bf16 inputs are computed in float (K*, V* cast once) and rounded once at
 * the end, as ONNX Runtime does; softmax_precision then only matters for double.
 *
 * Grouped-query attention copies neither K nor V: query head h reads kv head
 * h / (q_num_heads / kv_num_heads), so Q viewed as (batch, kv_heads, rep * q_seq,
 * head_size) times K*^T is one batched MatMul per kv head; the scores are viewed back
 * as (batch, q_heads, q_seq, total_seq) for the mask and the softmax.
 *
 * Masked positions (a false in a bool mask, is_causal) get the element type's lowest
 * finite value rather than -inf, as ONNX Runtime does. A row with every position
 * masked (its largest bias that lowest value or -inf) gets probabilities 0, so Y is 0
 * there and qk_matmul_output mode 3 shows 0, as in ORT (the spec's reference gives NaN):
 * P = Where(ReduceMax(bias, -1) <= lowest, 0, P).
 * is_causal masks key j for query i when j > i + past_sequence_length, as the spec's
 * reference does with a past, and ORT does.
 *
 * nonpad_kv_seqlen (opset 24, int64 of shape (batch)) keeps key j of batch b only when
 * j < nonpad_kv_seqlen[b]: Less(Range(total), Reshape(nonpad, (batch, 1, 1, 1))), a bool
 * mask joined to the others as a bool attn_mask is. ONNX Runtime refuses it together
 * with past_key / past_value (the spec says not to combine them), and so does ingot.
 * With is_causal the causal mask is then bottom-right per batch, as in the spec's
 * reference and ORT: key j for query i when j <= i + nonpad_kv_seqlen[b] - q_seq (the
 * queries are the last q_seq valid positions of a static cache).
 */
#include "graph_rewrite.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct AttentionAttrs {
	int64_t is_causal;
	int64_t kv_num_heads, q_num_heads;   /* 0: absent (4-D inputs carry them) */
	int64_t qk_matmul_output_mode;       /* 0..3, see above */
	int64_t softmax_precision;           /* a float dtype, 0: the inputs' type */
	float scale;                         /* 0: absent, 1 / sqrt(head_size) */
	float softcap;                       /* <= 0: none */
} AttentionAttrs;

static const AttrField attention_fields[] = {
	{ "is_causal", AK_INT, offsetof(AttentionAttrs, is_causal), NULL },
	{ "kv_num_heads", AK_INT, offsetof(AttentionAttrs, kv_num_heads), NULL },
	{ "q_num_heads", AK_INT, offsetof(AttentionAttrs, q_num_heads), NULL },
	{ "qk_matmul_output_mode", AK_INT, offsetof(AttentionAttrs, qk_matmul_output_mode), NULL },
	{ "scale", AK_FLOAT, offsetof(AttentionAttrs, scale), NULL },
	{ "softcap", AK_FLOAT, offsetof(AttentionAttrs, softcap), NULL },
	{ "softmax_precision", AK_INT, offsetof(AttentionAttrs, softmax_precision), NULL },
};

static int attention_import(ImportCtx *c)
{
	AttentionAttrs *a = c->attrs;
	if (import_int(c, "is_causal", 0, &a->is_causal) ||
	    import_int(c, "kv_num_heads", 0, &a->kv_num_heads) ||
	    import_int(c, "q_num_heads", 0, &a->q_num_heads) ||
	    import_int(c, "qk_matmul_output_mode", 0, &a->qk_matmul_output_mode) ||
	    import_float(c, "scale", 0.0f, &a->scale) || import_float(c, "softcap", 0.0f, &a->softcap) ||
	    import_int(c, "softmax_precision", 0, &a->softmax_precision))
		return -1;
	if (a->is_causal != 0 && a->is_causal != 1)
		return import_fail(c, "is_causal", "expected 0 or 1, got %lld", (long long)a->is_causal);
	if (a->qk_matmul_output_mode < 0 || a->qk_matmul_output_mode > 3)
		return import_fail(c, "qk_matmul_output_mode", "expected 0, 1, 2 or 3, got %lld",
		                   (long long)a->qk_matmul_output_mode);
	if (a->kv_num_heads < 0 || a->q_num_heads < 0 || a->q_num_heads > OPS_MAX_ATTR ||
	    a->kv_num_heads > OPS_MAX_ATTR)
		return import_fail(c, a->q_num_heads < 0 ? "q_num_heads" : "kv_num_heads",
		                   "expected a positive head count");
	if (!isfinite(a->scale) || !isfinite(a->softcap))
		return import_fail(c, isfinite(a->scale) ? "softcap" : "scale", "expected a finite value");
	if (a->softmax_precision != 0 && (!dtype_is_valid((int)a->softmax_precision) ||
	                                  !dtype_is_float((DType)a->softmax_precision)))
		return import_fail(c, "softmax_precision", "expected a floating-point type, got %lld",
		                   (long long)a->softmax_precision);
	return 0;
}

/* The sizes, from the inputs' static shapes. */
typedef struct Geom {
	int rank;                 /* of Q, K, V: 3 or 4 */
	int64_t batch, q_heads, kv_heads, q_seq, kv_seq, past, total, head, v_head;
} Geom;

static int geom_infer(InferCtx *c, const AttentionAttrs *a, const Type *q, const Type *k,
                      const Type *v, Geom *e)
{
	memset(e, 0, sizeof *e);
	e->rank = q->rank;
	if (q->rank != 3 && q->rank != 4)
		return infer_fail(c, 0, "expected rank 3 or 4, got %d", q->rank);
	for (int s = 1; s <= 2; s++) {
		const Type *t = s == 1 ? k : v;
		if (t->rank != q->rank)
			return infer_fail(c, s, "expected rank %d (Q's), got %d", q->rank, t->rank);
		if (t->dims[0] != q->dims[0])
			return infer_fail(c, s, "batch is %lld, Q's is %lld", (long long)t->dims[0],
			                  (long long)q->dims[0]);
	}
	e->batch = q->dims[0];
	if (q->rank == 3) {
		if (a->q_num_heads <= 0 || a->kv_num_heads <= 0)
			return infer_fail_attr(c, a->q_num_heads <= 0 ? "q_num_heads" : "kv_num_heads",
			                       "is required with 3-D inputs");
		e->q_heads = a->q_num_heads;
		e->kv_heads = a->kv_num_heads;
		const int64_t hid[3] = { q->dims[2], k->dims[2], v->dims[2] };
		for (int s = 0; s < 3; s++) {
			int64_t h = s ? e->kv_heads : e->q_heads;
			if (hid[s] % h)
				return infer_fail(c, s, "hidden size %lld is not a multiple of %s %lld",
				                  (long long)hid[s], s ? "kv_num_heads" : "q_num_heads",
				                  (long long)h);
		}
		e->q_seq = q->dims[1];
		e->kv_seq = k->dims[1];
		e->head = hid[0] / e->q_heads;
		if (hid[1] / e->kv_heads != e->head)
			return infer_fail(c, 1, "head size %lld differs from Q's %lld",
			                  (long long)(hid[1] / e->kv_heads), (long long)e->head);
		e->v_head = hid[2] / e->kv_heads;
		if (v->dims[1] != e->kv_seq)
			return infer_fail(c, 2, "sequence length %lld differs from K's %lld",
			                  (long long)v->dims[1], (long long)e->kv_seq);
	} else {
		e->q_heads = q->dims[1];
		e->kv_heads = k->dims[1];
		if ((a->q_num_heads && a->q_num_heads != e->q_heads) ||
		    (a->kv_num_heads && a->kv_num_heads != e->kv_heads))
			return infer_fail_attr(c, a->q_num_heads && a->q_num_heads != e->q_heads ?
			                       "q_num_heads" : "kv_num_heads",
			                       "differs from the head count of the 4-D inputs");
		if (v->dims[1] != e->kv_heads)
			return infer_fail(c, 2, "has %lld heads, K has %lld", (long long)v->dims[1],
			                  (long long)e->kv_heads);
		e->q_seq = q->dims[2];
		e->kv_seq = k->dims[2];
		e->head = q->dims[3];
		if (k->dims[3] != e->head)
			return infer_fail(c, 1, "head size %lld differs from Q's %lld",
			                  (long long)k->dims[3], (long long)e->head);
		if (v->dims[2] != e->kv_seq)
			return infer_fail(c, 2, "sequence length %lld differs from K's %lld",
			                  (long long)v->dims[2], (long long)e->kv_seq);
		e->v_head = v->dims[3];
	}
	if (e->head == 0)
		return infer_fail(c, 0, "head size is 0");
	if (e->kv_heads == 0 || e->q_heads % e->kv_heads)
		return infer_fail(c, 1, "%lld kv heads do not divide the %lld query heads",
		                  (long long)e->kv_heads, (long long)e->q_heads);
	return 0;
}

/* past_key / past_value: (batch, kv_heads, past, head_size / v_head_size), both or none. */
static int geom_past(InferCtx *c, Geom *e)
{
	if (infer_has(c, 4) != infer_has(c, 5))
		return infer_fail(c, infer_has(c, 4) ? 5 : 4,
		                  "past_key and past_value must be given together");
	if (infer_has(c, 4)) {
		const Type pk = *infer_in(c, 4), pv = *infer_in(c, 5);
		e->past = pk.rank == 4 ? pk.dims[2] : -1;
		for (int s = 4; s <= 5; s++) {
			const Type *t = s == 4 ? &pk : &pv;
			const int64_t want[4] = { e->batch, e->kv_heads, e->past, s == 4 ? e->head : e->v_head };
			if (t->rank != 4 || memcmp(t->dims, want, sizeof want))
				return infer_fail(c, s, "expected shape (%lld, %lld, %lld, %lld) (batch, kv heads, "
				                  "past length, head size)", (long long)want[0], (long long)want[1],
				                  (long long)(e->past < 0 ? 0 : e->past), (long long)want[3]);
		}
	}
	e->total = e->past + e->kv_seq;
	return 0;
}

/* attn_mask: bool or Q's type, broadcastable to (batch, q_heads, q_seq, total). */
static int check_mask(InferCtx *c, const Type *q, const Geom *e)
{
	const Type m = *infer_in(c, 3);
	const int64_t full[4] = { e->batch, e->q_heads, e->q_seq, e->total };
	if (m.dtype != DT_BOOL && m.dtype != q->dtype)
		return infer_fail(c, 3, "element type %s is neither bool nor Q's %s", dtype_name(m.dtype),
		                  dtype_name(q->dtype));
	if (m.rank < 1 || m.rank > 4)
		return infer_fail(c, 3, "expected rank 1 to 4, got %d", m.rank);
	if (m.dims[m.rank - 1] != e->total)
		return infer_fail(c, 3, "last dim is %lld, expected the total sequence length %lld",
		                  (long long)m.dims[m.rank - 1], (long long)e->total);
	for (int i = 0; i < m.rank; i++) {
		int64_t d = m.dims[i], f = full[4 - m.rank + i];
		if (d != 1 && d != f)
			return infer_fail(c, 3, "dim %d is %lld, expected 1 or %lld (broadcast to batch, "
			                  "heads, q length, total length)", i, (long long)d, (long long)f);
	}
	return 0;
}

/* nonpad_kv_seqlen: int64 of shape (batch), never with a past. */
static int check_nonpad(InferCtx *c, const Geom *e)
{
	static const DType i64_only[] = { DT_I64, DT_UNDEF };
	const Type *t = infer_in(c, 6);
	if (infer_check_dtype(c, 6, i64_only))
		return -1;
	if (t->rank != 1 || t->dims[0] != e->batch)
		return infer_fail(c, 6, "expected shape (%lld) (one length per batch)",
		                  (long long)e->batch);
	if (infer_has(c, 4))
		return infer_fail(c, 6, "cannot be used together with past_key and past_value");
	return 0;
}

static ValueId node2(InferCtx *c, Op op, ValueId a, ValueId b, ValueId out, const char *what)
{
	ValueId in[2] = { a, b };
	return rw_step(c, op, in, b == IR_NONE ? 1 : 2, out, NULL, 0, what);
}

static ValueId transpose(InferCtx *c, ValueId v, const int64_t *perm, ValueId out, const char *what)
{
	RawAttr r = rw_raw_ints("perm", perm, 4);
	return rw_step(c, OP_TRANSPOSE, &v, 1, out, &r, 1, what);
}

static const int64_t swap12[4] = { 0, 2, 1, 3 };

/* The (batch, heads, seq, size) view of input slot s (3-D: split the hidden dim). */
static ValueId to_4d(InferCtx *c, const Geom *e, int s, int64_t heads, int64_t seq, int64_t size,
                     const char *what)
{
	ValueId v = infer_node(c)->in[s];
	if (e->rank == 4)
		return v;
	const int64_t split[4] = { e->batch, seq, heads, size };
	v = rw_reshape(c, v, 4, split, IR_NONE, arena_printf(&c->g->arena, "%s_split", what));
	return transpose(c, v, swap12, IR_NONE, what);
}

/* K* or V*: the past joined to the new keys / values, written to output `slot` when wanted. */
static ValueId with_past(InferCtx *c, ValueId cur, int in_slot, int out_slot, const char *what)
{
	const Node *n = infer_node(c);
	ValueId out = n->n_out > out_slot ? n->out[out_slot] : IR_NONE;
	if (infer_has(c, in_slot)) {
		ValueId in[2] = { n->in[in_slot], cur };
		RawAttr r = rw_raw_int("axis", 2);
		return rw_step(c, OP_CONCAT, in, 2, out, &r, 1, what);
	}
	if (out != IR_NONE)
		node2(c, OP_IDENTITY, cur, IR_NONE, out, what);
	return cur;
}

/* The most negative finite value of float type t: masked scores, as ONNX Runtime uses. */
static double lowest(DType t)
{
	switch (t) {
	case DT_F16: return -65504.0;
	case DT_BF16: return -3.3895313892515355e38;       /* 0xff7f: the largest finite bf16 */
	case DT_F64: return -DBL_MAX;
	default: return -FLT_MAX;
	}
}

/* The additive bias (broadcast to the scores), or IR_NONE when nothing is masked. */
static ValueId mask_bias(InferCtx *c, const AttentionAttrs *a, DType t, DType ct, const Geom *e)
{
	ValueId m = infer_has(c, 3) ? infer_node(c)->in[3] : IR_NONE;
	bool is_bool = m != IR_NONE && c->g->values[m].type.dtype == DT_BOOL;
	bool nonpad = infer_has(c, 6);
	if (m != IR_NONE && !is_bool && ct != t)
		m = rw_cast(c, m, ct, "mask_float");
	if (!a->is_causal && !is_bool && !nonpad)
		return m;
	double zero = 0, low = lowest(t);   /* t's: qk_matmul_output shows it in t */
	ValueId vz = rw_float_const(c, ct, 0, NULL, &zero, "zero");
	ValueId vl = rw_float_const(c, ct, 0, NULL, &low, "lowest");
	ValueId keep = is_bool ? m : IR_NONE;       /* bool: where the scores stay */
	ValueId len = IR_NONE, vpos = IR_NONE;      /* nonpad: (batch, 1, 1, 1), j < total */
	if (nonpad) {
		/* key j of batch b stays when j < nonpad_kv_seqlen[b] */
		int64_t *pos = malloc((size_t)(e->total > 0 ? e->total : 1) * sizeof *pos);
		if (!pos)
			die("out of memory");
		for (int64_t j = 0; j < e->total; j++)
			pos[j] = j;
		vpos = rw_i64_const(c, "kv_positions", (int)e->total, pos);
		free(pos);
		const int64_t per_batch[4] = { e->batch, 1, 1, 1 };
		len = rw_reshape(c, infer_node(c)->in[6], 4, per_batch, IR_NONE, "nonpad_4d");
		ValueId np = node2(c, OP_LESS, vpos, len, IR_NONE, "nonpad_keep");
		keep = keep == IR_NONE ? np : node2(c, OP_AND, keep, np, IR_NONE, "keep_nonpad");
	}
	if (a->is_causal && nonpad) {
		/* bottom-right per batch: key j for query i when j < i + 1 + nonpad[b] - q_seq */
		int64_t *lim = malloc((size_t)(e->q_seq > 0 ? e->q_seq : 1) * sizeof *lim);
		if (!lim)
			die("out of memory");
		for (int64_t i = 0; i < e->q_seq; i++)
			lim[i] = i + 1 - e->q_seq;
		const int64_t col[2] = { e->q_seq, 1 };
		ValueId vlim = rw_reshape(c, rw_i64_const(c, "causal_rows", (int)e->q_seq, lim), 2, col,
		                          IR_NONE, "causal_rows_col");
		free(lim);
		ValueId bound = node2(c, OP_ADD, vlim, len, IR_NONE, "causal_bound");
		ValueId causal = node2(c, OP_LESS, vpos, bound, IR_NONE, "causal_keep");
		keep = node2(c, OP_AND, keep, causal, IR_NONE, "keep");
	} else if (a->is_causal) {
		const int64_t dims[2] = { e->q_seq, e->total };
		const int64_t n = e->q_seq * e->total;
		uint8_t *allow = malloc((size_t)(n > 0 ? n : 1));
		if (!allow)
			die("out of memory");
		for (int64_t i = 0; i < e->q_seq; i++)
			for (int64_t j = 0; j < e->total; j++)
				allow[i * e->total + j] = j <= i + e->past;
		Type bt = type_make(DT_BOOL, 2, dims);
		Graph *g = c->g;
		ValueId causal = ir_value_new_const(g, infer_node(c)->region,
		                                    arena_printf(&g->arena, "%s.causal",
		                                                 ir_node_name(g, c->node)), &bt, allow);
		free(allow);
		keep = keep == IR_NONE ? causal : node2(c, OP_AND, keep, causal, IR_NONE, "keep");
	}
	if (m != IR_NONE && !is_bool) {                 /* a float mask, overlaid as ORT does */
		ValueId in[3] = { keep, m, vl };
		return rw_step(c, OP_WHERE, in, 3, IR_NONE, NULL, 0, "bias");
	}
	ValueId in[3] = { keep, vz, vl };
	return rw_step(c, OP_WHERE, in, 3, IR_NONE, NULL, 0, "bias");
}

static int attention_infer(InferCtx *c)
{
	Graph *g = c->g;
	const AttentionAttrs a = *(const AttentionAttrs *)infer_node(c)->attrs;
	const Type q = *infer_in(c, 0), k = *infer_in(c, 1), v = *infer_in(c, 2);
	const int first = g->regions[infer_node(c)->region].n_nodes;
	const int n_out = infer_node(c)->n_out;
	const ValueId y = infer_node(c)->out[0];
	const ValueId qk_out = n_out > 3 ? infer_node(c)->out[3] : IR_NONE;
	Geom e;

	if (infer_check_dtype(c, 0, dtl_float) || infer_same_dtype(c, 0, 1) ||
	    infer_same_dtype(c, 0, 2) || geom_infer(c, &a, &q, &k, &v, &e))
		return -1;
	for (int s = 4; s <= 5; s++)
		if (infer_has(c, s) && infer_same_dtype(c, 0, s))
			return -1;
	if (geom_past(c, &e) || (infer_has(c, 3) && check_mask(c, &q, &e)) ||
	    (infer_has(c, 6) && check_nonpad(c, &e)))
		return -1;
	for (int s = 0; s < 3; s++)
		if (infer_check_size(c, s))
			return -1;
	/* f16 and bf16 are computed in float and rounded once, as ONNX Runtime does */
	const DType t = q.dtype, ct = t == DT_F16 || t == DT_BF16 ? DT_F32 : t;
	const int64_t rep = e.q_heads / e.kv_heads;
	const int64_t s4[4] = { e.batch, e.q_heads, e.q_seq, e.total };
	const int64_t grouped[4] = { e.batch, e.kv_heads, rep * e.q_seq, e.total };
	const int64_t q_grouped[4] = { e.batch, e.kv_heads, rep * e.q_seq, e.head };
	const int64_t y4[4] = { e.batch, e.q_heads, e.q_seq, e.v_head };

	/* Q scaled, K* and V* */
	ValueId q4 = to_4d(c, &e, 0, e.q_heads, e.q_seq, e.head, "q");
	ValueId k4 = to_4d(c, &e, 1, e.kv_heads, e.kv_seq, e.head, "k");
	ValueId v4 = to_4d(c, &e, 2, e.kv_heads, e.kv_seq, e.v_head, "v");
	k4 = with_past(c, k4, 4, 1, "present_key");
	v4 = with_past(c, v4, 5, 2, "present_value");
	if (ct != t) {
		q4 = rw_cast(c, q4, ct, "q_float");
		k4 = rw_cast(c, k4, ct, "k_float");
		v4 = rw_cast(c, v4, ct, "v_float");
	}
	double scale = a.scale != 0.0f ? a.scale : 1.0 / sqrt((double)e.head);
	ValueId qs = node2(c, OP_MUL, q4, rw_float_const(c, ct, 0, NULL, &scale, "scale"), IR_NONE,
	                   "q_scaled");
	if (rep > 1)
		qs = rw_reshape(c, qs, 4, q_grouped, IR_NONE, "q_grouped");
	static const int64_t swap23[4] = { 0, 1, 3, 2 };
	ValueId kt = transpose(c, k4, swap23, IR_NONE, "k_transposed");

	/* the scores, their softcap and bias, the probabilities */
	ValueId sc = node2(c, OP_MATMUL, qs, kt, IR_NONE, "qk");
	if (rep > 1)
		sc = rw_reshape(c, sc, 4, s4, IR_NONE, "qk_heads");
	ValueId stage[4] = { sc, IR_NONE, IR_NONE, IR_NONE };
	if (a.softcap > 0) {
		double cap = a.softcap;
		ValueId vc = rw_float_const(c, ct, 0, NULL, &cap, "softcap");
		sc = node2(c, OP_DIV, sc, vc, IR_NONE, "qk_div_cap");
		sc = node2(c, OP_TANH, sc, IR_NONE, IR_NONE, "qk_tanh");
		sc = node2(c, OP_MUL, sc, vc, IR_NONE, "qk_capped");
	}
	stage[1] = sc;
	ValueId bias = mask_bias(c, &a, t, ct, &e);
	if (bias != IR_NONE)
		sc = node2(c, OP_ADD, sc, bias, IR_NONE, "qk_biased");
	stage[2] = sc;
	DType sp = a.softmax_precision ? (DType)a.softmax_precision : ct;
	if (sp != ct)
		sc = rw_cast(c, sc, sp, "qk_precise");
	RawAttr ax = rw_raw_int("axis", -1);
	ValueId p = rw_step(c, OP_SOFTMAX, &sc, 1, IR_NONE, &ax, 1, "probs");
	if (sp != ct)
		p = rw_cast(c, p, ct, "probs_cast");
	if (bias != IR_NONE) {
		/* a row whose every key is masked gives probabilities 0, as ONNX Runtime does:
		 * the row's largest bias is t's lowest (a false in a bool mask) or -inf */
		static const int64_t last_axis[1] = { -1 };
		RawAttr red[2] = { rw_raw_ints("axes", last_axis, 1), rw_raw_int("keepdims", 1) };
		double zero = 0, low = lowest(t);
		ValueId top = rw_step(c, OP_REDUCE_MAX, &bias, 1, IR_NONE, red, 2, "bias_row_max");
		ValueId vl = rw_float_const(c, ct, 0, NULL, &low, "row_lowest");
		ValueId dead = node2(c, OP_LESS_OR_EQUAL, top, vl, IR_NONE, "row_masked");
		ValueId in[3] = { dead, rw_float_const(c, ct, 0, NULL, &zero, "row_zero"), p };
		p = rw_step(c, OP_WHERE, in, 3, IR_NONE, NULL, 0, "probs_unmasked");
	}
	stage[3] = p;
	if (qk_out != IR_NONE) {
		ValueId st = stage[a.qk_matmul_output_mode];
		if (ct != t) {
			RawAttr to = rw_raw_int("to", t);
			rw_step(c, OP_CAST, &st, 1, qk_out, &to, 1, "qk_output");
		} else {
			node2(c, OP_IDENTITY, st, IR_NONE, qk_out, "qk_output");
		}
	}

	/* Y = P V*, back in the input layout and type; the last step writes Y */
	const bool cast = ct != t;
	const int last = e.rank == 3 ? 3 : cast ? 2 : rep > 1 ? 1 : 0;
	if (rep > 1)
		p = rw_reshape(c, p, 4, grouped, IR_NONE, "probs_grouped");
	ValueId o = node2(c, OP_MATMUL, p, v4, last == 0 ? y : IR_NONE, "pv");
	if (rep > 1)
		o = rw_reshape(c, o, 4, y4, last == 1 ? y : IR_NONE, "pv_heads");
	if (cast) {
		RawAttr to = rw_raw_int("to", t);
		o = rw_step(c, OP_CAST, &o, 1, last == 2 ? y : IR_NONE, &to, 1, "pv_rounded");
	}
	if (e.rank == 3) {
		o = transpose(c, o, swap12, IR_NONE, "y_heads_last");
		const int64_t y3[3] = { e.batch, e.q_seq, e.q_heads * e.v_head };
		rw_reshape(c, o, 3, y3, y, "y");
	}
	infer_node(c)->dead = true;
	return rw_place_after(g, c->node, first, c->diags);
}

const OpImpl op_impl_attention = { sizeof(AttentionAttrs), attention_fields,
                                   COUNTOF(attention_fields), attention_import, attention_infer,
                                   rw_never_lowered };
