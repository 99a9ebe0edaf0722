/* linear_attention.c — op group linear_attention: LinearAttention (opset 27), the
 * recurrent (linear-attention and state-space) decoder layer, one call of the
 * reference kernel ingot_linear_attention (runtime-stubs/kernels/rnn.h), which runs
 * the spec's recurrence step by step over the packed (batch, seq, heads * size) inputs:
 *     linear       S_t = S_{t-1} + k_t v_t^T
 *     gated        S_t = exp(g_t) S_{t-1} + k_t v_t^T                     (decay g)
 *     delta        S_t = S_{t-1} + beta_t k_t (v_t - S_{t-1}^T k_t)^T      (beta)
 *     gated_delta  both, the decay first (the default rule)
 *     o_t = scale * q_t^T S_t, scale 0 (the default) meaning 1 / sqrt(dk)
 * Inputs: query, key, value, past_state (batch, kv_heads, dk, dv), decay (batch, seq,
 * kv_heads or kv_heads * dk), beta (batch, seq, kv_heads or 1) and erase_gate (batch,
 * seq, kv_heads * dk: the delta rules read S^T (erase_gate * k_t), as the spec's
 * reference does). A rule's gate input must be given exactly when the rule uses it.
 * Query head hq reads kv head hq / (q_num_heads / kv_num_heads) (grouped-query).
 * chunk_size is a tuning hint with no effect on the result: ignored. The state
 * (present_state) has the inputs' type; a past_state of another type is refused. */
#include "opimpl.h"
#include "rnn.h"

#include <math.h>
#include <string.h>

typedef struct LinearAttentionAttrs {
	int64_t chunk_size;
	int64_t kv_num_heads, q_num_heads;   /* required */
	float scale;                         /* 0: 1 / sqrt(dk) */
	int64_t update_rule;                 /* index into la_rules */
} LinearAttentionAttrs;

static const char *const la_rules[] = { "linear", "gated", "delta", "gated_delta", NULL };
enum { LA_LINEAR, LA_GATED, LA_DELTA, LA_GATED_DELTA };

static const AttrField linear_attention_fields[] = {
	{ "chunk_size", AK_INT, offsetof(LinearAttentionAttrs, chunk_size), NULL },
	{ "kv_num_heads", AK_INT, offsetof(LinearAttentionAttrs, kv_num_heads), NULL },
	{ "q_num_heads", AK_INT, offsetof(LinearAttentionAttrs, q_num_heads), NULL },
	{ "scale", AK_FLOAT, offsetof(LinearAttentionAttrs, scale), NULL },
	{ "update_rule", AK_ENUM, offsetof(LinearAttentionAttrs, update_rule), la_rules },
};

static int linear_attention_import(ImportCtx *c)
{
	LinearAttentionAttrs *a = c->attrs;
	int rule;
	if (import_int(c, "chunk_size", 64, &a->chunk_size) ||
	    import_int(c, "kv_num_heads", 0, &a->kv_num_heads) ||
	    import_int(c, "q_num_heads", 0, &a->q_num_heads) ||
	    import_float(c, "scale", 0.0f, &a->scale) ||
	    import_enum(c, "update_rule", la_rules, LA_GATED_DELTA, &rule))
		return -1;
	a->update_rule = rule;
	if (a->q_num_heads <= 0 || a->q_num_heads > OPS_MAX_ATTR)
		return import_fail(c, "q_num_heads", "is required: a positive head count");
	if (a->kv_num_heads <= 0 || a->kv_num_heads > OPS_MAX_ATTR)
		return import_fail(c, "kv_num_heads", "is required: a positive head count");
	if (a->q_num_heads % a->kv_num_heads)
		return import_fail(c, "q_num_heads", "%lld is not a multiple of kv_num_heads %lld",
		                   (long long)a->q_num_heads, (long long)a->kv_num_heads);
	if (!isfinite(a->scale))
		return import_fail(c, "scale", "expected a finite value");
	return 0;
}

/* The sizes, from the inputs' static shapes. */
typedef struct LaGeom {
	int64_t batch, seq, dk, dv;
	bool gating, delta, decay_per_key, beta_shared;
} LaGeom;

/* Input `slot` is (batch, seq, last) for one of the allowed last dims. */
static int la_check_3d(InferCtx *c, int slot, const LaGeom *e, const int64_t *last, int n_last,
                       int64_t *got)
{
	const Type *t = infer_in(c, slot);
	if (infer_same_dtype(c, 0, slot))
		return -1;
	if (t->rank != 3 || t->dims[0] != e->batch || t->dims[1] != e->seq)
		return infer_fail(c, slot, "expected shape (%lld, %lld, ...) (batch, seq, heads * size)",
		                  (long long)e->batch, (long long)e->seq);
	for (int i = 0; i < n_last; i++)
		if (t->dims[2] == last[i]) {
			*got = last[i];
			return 0;
		}
	if (n_last == 1)
		return infer_fail(c, slot, "last dim is %lld, expected %lld", (long long)t->dims[2],
		                  (long long)last[0]);
	return infer_fail(c, slot, "last dim is %lld, expected %lld or %lld", (long long)t->dims[2],
	                  (long long)last[0], (long long)last[1]);
}

static int la_geom(InferCtx *c, const LinearAttentionAttrs *a, LaGeom *e)
{
	const Type *q = infer_in(c, 0), *v = infer_in(c, 2);
	const int64_t hq = a->q_num_heads, hkv = a->kv_num_heads;
	static const char *const names[3] = { "query", "key", "value" };
	int64_t got;
	memset(e, 0, sizeof *e);
	if (infer_check_dtype(c, 0, dtl_float))
		return -1;
	for (int s = 0; s < 3; s++) {
		const Type *t = infer_in(c, s);
		if (t->rank != 3)
			return infer_fail(c, s, "%s must be rank 3 (batch, seq, heads * size), got %d",
			                  names[s], t->rank);
		if (infer_check_size(c, s))
			return -1;
	}
	e->batch = q->dims[0];
	e->seq = q->dims[1];
	if (q->dims[2] % hq)
		return infer_fail(c, 0, "hidden size %lld is not a multiple of q_num_heads %lld",
		                  (long long)q->dims[2], (long long)hq);
	e->dk = q->dims[2] / hq;
	if (v->rank == 3 && v->dims[2] % hkv)
		return infer_fail(c, 2, "hidden size %lld is not a multiple of kv_num_heads %lld",
		                  (long long)v->dims[2], (long long)hkv);
	e->dv = v->dims[2] / hkv;
	if (e->dk == 0 || e->dv == 0)
		return infer_fail(c, e->dk ? 2 : 0, "head size is 0");
	const int64_t kd = hkv * e->dk;
	if (la_check_3d(c, 1, e, &kd, 1, &got) || la_check_3d(c, 2, e, &v->dims[2], 1, &got))
		return -1;
	e->gating = a->update_rule == LA_GATED || a->update_rule == LA_GATED_DELTA;
	e->delta = a->update_rule == LA_DELTA || a->update_rule == LA_GATED_DELTA;
	if (infer_has(c, 4) != e->gating)
		return infer_fail(c, 4, "update_rule '%s' %s the decay input", la_rules[a->update_rule],
		                  e->gating ? "requires" : "forbids");
	if (infer_has(c, 5) != e->delta)
		return infer_fail(c, 5, "update_rule '%s' %s the beta input", la_rules[a->update_rule],
		                  e->delta ? "requires" : "forbids");
	if (infer_has(c, 6) && !e->delta)
		return infer_fail(c, 6, "update_rule '%s' forbids the erase_gate input",
		                  la_rules[a->update_rule]);
	if (e->gating) {
		const int64_t last[2] = { hkv, kd };
		if (la_check_3d(c, 4, e, last, 2, &got))
			return -1;
		e->decay_per_key = got == kd && kd != hkv;
	}
	if (e->delta) {
		const int64_t last[2] = { hkv, 1 };
		if (la_check_3d(c, 5, e, last, hkv == 1 ? 1 : 2, &got))
			return -1;
		e->beta_shared = got == 1 && hkv != 1;
	}
	if (infer_has(c, 6) && la_check_3d(c, 6, e, &kd, 1, &got))
		return -1;
	if (infer_has(c, 3)) {
		const Type *p = infer_in(c, 3);
		const int64_t want[4] = { e->batch, hkv, e->dk, e->dv };
		if (p->dtype != q->dtype)
			return infer_unsupported(c, "a past_state of type %s with %s inputs is not supported",
			                         dtype_name(p->dtype), dtype_name(q->dtype));
		if (p->rank != 4 || memcmp(p->dims, want, sizeof want))
			return infer_fail(c, 3, "expected shape (%lld, %lld, %lld, %lld) (batch, kv heads, "
			                  "dk, dv)", (long long)want[0], (long long)want[1],
			                  (long long)want[2], (long long)want[3]);
	}
	return 0;
}

static int linear_attention_infer(InferCtx *c)
{
	const LinearAttentionAttrs *a = infer_node(c)->attrs;
	const DType t = infer_in(c, 0)->dtype;
	LaGeom e;
	if (la_geom(c, a, &e))
		return -1;
	const int64_t y[3] = { e.batch, e.seq, a->q_num_heads * e.dv };
	const int64_t st[4] = { e.batch, a->kv_num_heads, e.dk, e.dv };
	if (ops_set_out(c, 0, t, 3, y))
		return -1;
	if (infer_out(c, 1) && ops_set_out(c, 1, t, 4, st))
		return -1;
	return 0;
}

#define PARAM_STRUCT ingot_linear_attention_params
static const ParamField la_pfields[] = { INGOT_LINEAR_ATTENTION_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc la_desc = PARAM_DESC(ingot_linear_attention_params, la_pfields);

static int linear_attention_lower(LowerCtx *c)
{
	const Node *n = &c->g->nodes[c->node];
	const LinearAttentionAttrs *a = n->attrs;
	InferCtx ic = { c->g, c->node, NULL };
	LaGeom e;
	if (la_geom(&ic, a, &e))
		return -1;
	ingot_linear_attention_params *p = lower_params(c, &la_desc);
	p->dtype = ir_value(c->g, n->in[0])->type.dtype;
	p->batch = e.batch;
	p->seq = e.seq;
	p->q_heads = a->q_num_heads;
	p->kv_heads = a->kv_num_heads;
	p->dk = e.dk;
	p->dv = e.dv;
	p->gating = e.gating;
	p->delta = e.delta;
	p->decay_per_key = e.decay_per_key;
	p->beta_shared = e.beta_shared;
	p->has_past = infer_has(&ic, 3);
	p->has_erase = infer_has(&ic, 6);
	p->n_out = n->n_out > 1 && n->out[1] != IR_NONE ? 2 : 1;
	p->scale = a->scale != 0.0f ? (double)a->scale : 1.0 / sqrt((double)e.dk);
	LOWER_CALL(c, ingot_linear_attention, &la_desc, p);
	c->kc.scratch_bytes = ingot_linear_attention_scratch_bytes(e.dk, e.dv);
	return 0;
}

const OpImpl op_impl_linear_attention = { sizeof(LinearAttentionAttrs), linear_attention_fields,
                                          COUNTOF(linear_attention_fields),
                                          linear_attention_import, linear_attention_infer,
                                          linear_attention_lower };
