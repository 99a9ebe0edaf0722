/* rnn.c — op group rnn (RNN, GRU, LSTM): import, inference and lowering to
 * runtime-stubs/kernels/rnn.c. Import canonicalizes the activation list: defaults
 * filled in, one entry per function and direction (a bidirectional node that lists
 * one direction's functions, and their alphas/betas, uses them for both), names
 * matched without regard to case. Alphas and betas are consumed in list order by
 * the functions that take them (ONNX Runtime's reading of the spec); a function
 * left without one gets its ONNX operator's default.
 * Opset differences: `output_sequence` (opset 1) changes nothing and is ignored;
 * GRU's linear_before_reset arrived in 3, `layout` in 14, bf16 in 22. */
#include "opimpl.h"

#include <string.h>

#include "rnn.h"

#define RNN_MAX_ACTS 6               /* 3 functions (LSTM) x 2 directions */

enum { DIR_FORWARD, DIR_REVERSE, DIR_BIDIRECTIONAL };
static const char *const direction_names[] = { "forward", "reverse", "bidirectional", NULL };
/* indices are the INGOT_RNN_* activation values */
static const char *const act_names[] = { "none", "Relu", "Tanh", "Sigmoid", "Affine", "LeakyRelu",
                                         "ThresholdedRelu", "ScaledTanh", "HardSigmoid", "Elu",
                                         "Softsign", "Softplus", NULL };

typedef struct RnnAttrs {
	int direction;                   /* DIR_* */
	IntList hidden_size;             /* absent: R's last dim */
	int64_t layout;
	FloatList clip;                  /* absent: no clipping */
	int acts[RNN_MAX_ACTS];          /* INGOT_RNN_*; per direction, 0 past the used ones */
	FloatList activation_alpha, activation_beta;
	int64_t linear_before_reset;     /* GRU */
	int64_t input_forget;            /* LSTM */
} RnnAttrs;

/* One table for the three ops: linear_before_reset is GRU's, input_forget LSTM's. */
static const AttrField rnn_fields[] = {
	{ "direction", AK_ENUM, offsetof(RnnAttrs, direction), direction_names },
	{ "hidden_size", AK_INTS, offsetof(RnnAttrs, hidden_size), NULL },
	{ "layout", AK_INT, offsetof(RnnAttrs, layout), NULL },
	{ "clip", AK_FLOATS, offsetof(RnnAttrs, clip), NULL },
	{ "act0", AK_ENUM, offsetof(RnnAttrs, acts[0]), act_names },
	{ "act1", AK_ENUM, offsetof(RnnAttrs, acts[1]), act_names },
	{ "act2", AK_ENUM, offsetof(RnnAttrs, acts[2]), act_names },
	{ "act3", AK_ENUM, offsetof(RnnAttrs, acts[3]), act_names },
	{ "act4", AK_ENUM, offsetof(RnnAttrs, acts[4]), act_names },
	{ "act5", AK_ENUM, offsetof(RnnAttrs, acts[5]), act_names },
	{ "activation_alpha", AK_FLOATS, offsetof(RnnAttrs, activation_alpha), NULL },
	{ "activation_beta", AK_FLOATS, offsetof(RnnAttrs, activation_beta), NULL },
	{ "linear_before_reset", AK_INT, offsetof(RnnAttrs, linear_before_reset), NULL },
	{ "input_forget", AK_INT, offsetof(RnnAttrs, input_forget), NULL },
};

/* Gates per direction (rows of W / hidden) and activation functions per direction. */
static int n_gates(Op op) { return op == OP_LSTM ? 4 : op == OP_GRU ? 3 : 1; }
static int n_funcs(Op op) { return op == OP_LSTM ? 3 : op == OP_GRU ? 2 : 1; }

static int act_lookup(const char *s)
{
	for (int i = 1; act_names[i]; i++) {
		const char *a = act_names[i], *b = s;
		while (*a && *b && (*a | 0x20) == (*b | 0x20))
			a++, b++;
		if (!*a && !*b)
			return i;
	}
	return -1;
}

static void double_list(ImportCtx *c, FloatList *l)
{
	if (l->n <= 0)
		return;
	float *v = arena_array(&c->g->arena, (size_t)l->n * 2, sizeof *v);
	memcpy(v, l->v, (size_t)l->n * sizeof *v);
	memcpy(v + l->n, l->v, (size_t)l->n * sizeof *v);
	l->v = v;
	l->n *= 2;
}

static int rnn_import(ImportCtx *c)
{
	RnnAttrs *a = c->attrs;
	Op op = ir_node(c->g, c->node)->op;
	int per = n_funcs(op), n_raw_acts;
	const RawAttr *ra;
	if (import_enum(c, "direction", direction_names, DIR_FORWARD, &a->direction) ||
	    import_ints(c, "hidden_size", &a->hidden_size) ||
	    import_int(c, "layout", 0, &a->layout) || import_floats(c, "clip", &a->clip) ||
	    import_floats(c, "activation_alpha", &a->activation_alpha) ||
	    import_floats(c, "activation_beta", &a->activation_beta) ||
	    import_int(c, "linear_before_reset", 0, &a->linear_before_reset) ||
	    import_int(c, "input_forget", 0, &a->input_forget))
		return -1;
	if (a->hidden_size.n == 0 || a->hidden_size.n > 1)
		return import_fail(c, "hidden_size", "expected one int, got %d values", a->hidden_size.n);
	if (a->clip.n == 0 || a->clip.n > 1)
		return import_fail(c, "clip", "expected one float, got %d values", a->clip.n);
	if (a->layout != 0 && a->layout != 1)
		return import_fail(c, "layout", "expected 0 or 1, got %lld", (long long)a->layout);
	a->linear_before_reset = a->linear_before_reset != 0;
	a->input_forget = a->input_forget != 0;

	int dirs = a->direction == DIR_BIDIRECTIONAL ? 2 : 1;
	/* defaults: RNN Tanh; GRU Sigmoid, Tanh; LSTM Sigmoid, Tanh, Tanh */
	for (int d = 0; d < dirs; d++)
		for (int k = 0; k < per; k++)
			a->acts[d * per + k] = per == 1 || k > 0 ? INGOT_RNN_TANH : INGOT_RNN_SIGMOID;
	ra = import_find(c, "activations");
	if (!ra)
		return 0;
	if (ra->kind != RA_STRINGS && ra->kind != RA_STRING)
		return import_fail(c, "activations", "expected strings");
	n_raw_acts = ra->kind == RA_STRING ? 1 : ra->n;
	if (n_raw_acts != per * dirs && n_raw_acts != per)
		return import_fail(c, "activations", "expected %d names (%d per direction), got %d",
		                   per * dirs, per, n_raw_acts);
	for (int i = 0; i < per * dirs; i++) {
		const char *s = ra->kind == RA_STRING ? ra->s : ra->strings[i % n_raw_acts];
		int v = s ? act_lookup(s) : -1;
		if (v < 0)
			return import_fail(c, "activations", "unsupported activation '%s'", s ? s : "");
		a->acts[i] = v;
	}
	if (n_raw_acts != per * dirs) {  /* one direction's list: its alphas/betas serve both */
		double_list(c, &a->activation_alpha);
		double_list(c, &a->activation_beta);
	}
	return 0;
}

/* Alpha and beta of every listed function (see the file comment). */
static void resolve_alpha_beta(const RnnAttrs *a, float *alpha, float *beta)
{
	int ia = 0, ib = 0;
	for (int i = 0; i < RNN_MAX_ACTS; i++) {
		float da = 0.0f, db = 0.0f;
		bool use_a = true, use_b = false;
		switch (a->acts[i]) {
		case INGOT_RNN_AFFINE: da = 1.0f; use_b = true; break;
		case INGOT_RNN_LEAKY_RELU: da = 0.01f; break;
		case INGOT_RNN_THRESHOLDED_RELU: case INGOT_RNN_ELU: da = 1.0f; break;
		case INGOT_RNN_SCALED_TANH: da = 1.0f; db = 1.0f; use_b = true; break;
		case INGOT_RNN_HARD_SIGMOID: da = 0.2f; db = 0.5f; use_b = true; break;
		default: use_a = false; break;
		}
		alpha[i] = use_a && ia < a->activation_alpha.n ? a->activation_alpha.v[ia++] : da;
		beta[i] = use_b && ib < a->activation_beta.n ? a->activation_beta.v[ib++] : db;
	}
}

static const DType rnn_dtypes[] = { DT_F16, DT_F32, DT_F64, DT_BF16, DT_UNDEF };

/* Checks input `slot` (when present) has exactly the given dims. */
static int check_dims(InferCtx *c, int slot, const char *what, int rank, const int64_t *dims)
{
	const Type *t = infer_in(c, slot);
	char got[128];
	if (!t)
		return 0;
	if (infer_same_dtype(c, 0, slot))
		return -1;
	bool ok = t->rank == rank;
	for (int i = 0; ok && i < rank; i++)
		ok = t->dims[i] == dims[i];
	if (ok)
		return 0;
	char want[128];
	Type w = type_make(t->dtype, rank, dims);
	return infer_fail(c, slot, "expected %s shape %s, got %s", what,
	                  type_format(&w, want, sizeof want), type_format(t, got, sizeof got));
}

typedef struct RnnGeom { int64_t seq, batch, input, hidden, dirs, gates; } RnnGeom;

static int rnn_geom(InferCtx *c, RnnGeom *g)
{
	Node *n = infer_node(c);
	const RnnAttrs *a = n->attrs;
	const Type *x = infer_in(c, 0), *w = infer_in(c, 1), *r = infer_in(c, 2);
	const DType lens_dtypes[] = { DT_I32, DT_UNDEF };
	if (infer_check_dtype(c, 0, rnn_dtypes) || infer_same_dtype(c, 0, 1) ||
	    infer_same_dtype(c, 0, 2) || infer_check_dtype(c, 4, lens_dtypes))
		return -1;
	if (n->op != OP_LSTM)
		for (int i = 6; i < n->n_in; i++)
			if (infer_has(c, i))
				return infer_fail(c, i, "only LSTM has inputs initial_c and P");
	if (x->rank != 3)
		return infer_fail(c, 0, "expected rank 3, got %d", x->rank);
	if (w->rank != 3)
		return infer_fail(c, 1, "expected rank 3 (directions, gates * hidden, input), got %d",
		                  w->rank);
	if (r->rank != 3)
		return infer_fail(c, 2, "expected rank 3 (directions, gates * hidden, hidden), got %d",
		                  r->rank);
	g->seq = x->dims[a->layout ? 1 : 0];
	g->batch = x->dims[a->layout ? 0 : 1];
	g->input = x->dims[2];
	g->dirs = a->direction == DIR_BIDIRECTIONAL ? 2 : 1;
	g->gates = n_gates(n->op);
	g->hidden = a->hidden_size.n == 1 ? a->hidden_size.v[0] : r->dims[2];
	if (g->hidden < 1 || g->hidden > ((int64_t)1 << 30))
		return infer_fail_attr(c, "hidden_size", "invalid value %lld", (long long)g->hidden);
	if (a->clip.n == 1 && !(a->clip.v[0] > 0.0f))
		return infer_fail_attr(c, "clip", "expected a positive threshold, got %g",
		                       (double)a->clip.v[0]);
	int64_t gh = g->gates * g->hidden;
	int64_t wd[3] = { g->dirs, gh, g->input }, rd[3] = { g->dirs, gh, g->hidden };
	int64_t bd[2] = { g->dirs, 2 * gh }, pd[2] = { g->dirs, 3 * g->hidden };
	int64_t sd[3] = { g->dirs, g->batch, g->hidden };
	if (a->layout) {
		sd[0] = g->batch;
		sd[1] = g->dirs;
	}
	if (check_dims(c, 1, "W", 3, wd) || check_dims(c, 2, "R", 3, rd) ||
	    check_dims(c, 3, "B", 2, bd) || check_dims(c, 5, "initial_h", 3, sd) ||
	    check_dims(c, 6, "initial_c", 3, sd) || check_dims(c, 7, "P", 2, pd))
		return -1;
	const Type *lens = infer_in(c, 4);
	if (lens && (lens->rank != 1 || lens->dims[0] != g->batch))
		return infer_fail(c, 4, "expected shape [%lld] (one length per batch entry)",
		                  (long long)g->batch);
	return 0;
}

static int rnn_infer(InferCtx *c)
{
	Node *n = infer_node(c);
	const RnnAttrs *a = n->attrs;
	DType dt = infer_in(c, 0)->dtype;
	RnnGeom g;
	if (rnn_geom(c, &g))
		return -1;
	if (n->n_out > 2 && n->out[2] != IR_NONE && n->op != OP_LSTM)
		return infer_fail(c, -1, "only LSTM has output Y_c");
	Type *y = infer_out(c, 0), *yh = infer_out(c, 1), *yc = infer_out(c, 2);
	int64_t yd[4] = { g.seq, g.dirs, g.batch, g.hidden };
	int64_t sd[3] = { g.dirs, g.batch, g.hidden };
	if (a->layout) {
		yd[0] = g.batch;
		yd[1] = g.seq;
		yd[2] = g.dirs;
		sd[0] = g.batch;
		sd[1] = g.dirs;
	}
	if (y)
		*y = type_make(dt, 4, yd);
	if (yh)
		*yh = type_make(dt, 3, sd);
	if (yc)
		*yc = type_make(dt, 3, sd);
	return 0;
}

static const ParamField rnn_pfields[] = {
#define PARAM_STRUCT ingot_rnn_params
	INGOT_RNN_FIELDS(PARAM_FIELD)
#undef PARAM_STRUCT
};
static const ParamDesc rnn_desc = PARAM_DESC(ingot_rnn_params, rnn_pfields);

static int rnn_lower(LowerCtx *c)
{
	Node *n = ir_node(c->g, c->node);
	const RnnAttrs *a = n->attrs;
	InferCtx ic = { c->g, c->node, NULL };
	DiagSink quiet;
	RnnGeom g;
	float alpha[RNN_MAX_ACTS], beta[RNN_MAX_ACTS];
	int rc;
	diag_sink_init(&quiet, NULL);
	ic.diags = &quiet;
	rc = rnn_geom(&ic, &g);
	diag_sink_free(&quiet);
	if (rc)
		return -1;
	ingot_rnn_params *p = lower_params(c, &rnn_desc);
	p->kind = n->op == OP_LSTM ? INGOT_RNN_LSTM : n->op == OP_GRU ? INGOT_RNN_GRU
	          : INGOT_RNN_SIMPLE;
	p->dtype = ir_value(c->g, n->in[0])->type.dtype;
	p->seq = g.seq;
	p->batch = g.batch;
	p->input = g.input;
	p->hidden = g.hidden;
	p->dirs = g.dirs;
	p->reverse = a->direction == DIR_REVERSE;
	p->layout = a->layout;
	p->has_b = infer_has(&ic, 3);
	p->has_lens = infer_has(&ic, 4);
	p->has_h0 = infer_has(&ic, 5);
	p->has_c0 = infer_has(&ic, 6);
	p->has_p = infer_has(&ic, 7);
	p->n_out = n->n_out;
	p->input_forget = n->op == OP_LSTM && a->input_forget;
	p->linear_before_reset = n->op == OP_GRU && a->linear_before_reset;
	p->has_clip = a->clip.n == 1;
	p->clip = p->has_clip ? a->clip.v[0] : 0.0f;
	p->per_dir = n_funcs(n->op);
	resolve_alpha_beta(a, alpha, beta);
	for (int i = 0; i < RNN_MAX_ACTS; i++)
		p->acts[i] = a->acts[i];
	p->a0 = alpha[0]; p->a1 = alpha[1]; p->a2 = alpha[2];
	p->a3 = alpha[3]; p->a4 = alpha[4]; p->a5 = alpha[5];
	p->b0 = beta[0]; p->b1 = beta[1]; p->b2 = beta[2];
	p->b3 = beta[3]; p->b4 = beta[4]; p->b5 = beta[5];
	LOWER_CALL(c, ingot_rnn, &rnn_desc, p);
	c->kc.scratch_bytes = ingot_rnn_scratch_bytes(g.gates, g.input, g.hidden);
	return 0;
}

const OpImpl op_impl_rnn = {
	sizeof(RnnAttrs), rnn_fields, COUNTOF(rnn_fields), rnn_import, rnn_infer, rnn_lower
};
