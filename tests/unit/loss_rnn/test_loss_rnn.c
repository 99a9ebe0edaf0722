/* test_loss_rnn.c — unit test of the loss, optimizer and RNN op groups: import →
 * infer → run one node on numpy reference cases (cases.h, from gen_cases.py) with
 * exact-length slot arrays (omitted inputs/outputs NULL), a check that tasks past 0
 * leave the outputs alone, and error cases that must give a diagnostic (or a kernel
 * status) and never crash. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "opimpl.h"
#include "../harness_float.h"

typedef struct TTensor {
	int dtype;                   /* 0: omitted */
	int rank;
	int64_t dims[8];
	const uint8_t *data;
	int bytes;
} TTensor;

typedef struct TAttr {
	const char *name;
	RawAttrKind kind;
	int64_t i;
	float f;
	const char *s;
	const float *floats;
	const char *const *strings;
	int n;
} TAttr;

typedef struct TCase {
	const char *name;
	Op op;
	int opset;
	int n_in;
	TTensor in[10];
	int n_out;
	TTensor out[6];
	int n_attr;
	TAttr attrs[10];
	double rtol, atol;
} TCase;

#include "cases.h"

/* Every output compares as floats (check_floats), whatever its dtype. */
static void compare(const TCase *tc, int k, const void *got)
{
	const TTensor *e = &tc->out[k];
	int64_t n = e->bytes / (int64_t)dtype_size((DType)e->dtype);
	check_floats(tc->name, k, e->dtype, got, e->data, n, tc->rtol, tc->atol);
}

static void to_raw(const TAttr *a, RawAttr *r)
{
	memset(r, 0, sizeof *r);
	r->name = a->name;
	r->kind = a->kind;
	r->i = a->i;
	r->f = a->f;
	r->s = a->s;
	r->floats = a->floats;
	r->strings = a->strings;
	r->n = a->n;
	r->tensor = IR_NONE;
	r->graph = IR_NONE;
}

static void run_case(const TCase *tc)
{
	Graph g;
	DiagSink d;
	ValueId in[10], out[6];
	RawAttr raw[10];
	const void **bin = calloc((size_t)tc->n_in, sizeof *bin);
	void **bout = calloc((size_t)tc->n_out, sizeof *bout), **bout2 = calloc((size_t)tc->n_out,
	                                                                         sizeof *bout2);
	void *scratch = NULL;
	ir_graph_init(&g, "test.onnx");
	diag_sink_init(&d, NULL);
	for (int i = 0; i < tc->n_in; i++) {
		const TTensor *t = &tc->in[i];
		Type ty = type_make((DType)t->dtype, t->rank, t->dims);
		char name[16];
		snprintf(name, sizeof name, "in%d", i);
		in[i] = t->dtype ? ir_value_new(&g, 0, name, &ty) : IR_NONE;
	}
	for (int i = 0; i < tc->n_out; i++) {
		char name[16];
		snprintf(name, sizeof name, "out%d", i);
		out[i] = tc->out[i].dtype ? ir_value_new(&g, 0, name, NULL) : IR_NONE;
	}
	for (int i = 0; i < tc->n_attr; i++)
		to_raw(&tc->attrs[i], &raw[i]);
	NodeId n = ir_node_new(&g, 0, tc->op, tc->opset, in, tc->n_in, out, tc->n_out, tc->name);
	if (ops_import_attrs(&g, n, raw, tc->n_attr, &d) || ops_infer_node(&g, n, &d)) {
		CHECK(0, "%s: import/infer failed", tc->name);
		diag_print_all(&d, stderr);
		goto done;
	}
	for (int i = 0; i < tc->n_out; i++) {
		const TTensor *e = &tc->out[i];
		if (!e->dtype)
			continue;
		Type want = type_make((DType)e->dtype, e->rank, e->dims);
		char b1[128], b2[128];
		CHECK(type_equal(&g.values[out[i]].type, &want), "%s: output %d type %s, expected %s",
		      tc->name, i, type_format(&g.values[out[i]].type, b1, sizeof b1),
		      type_format(&want, b2, sizeof b2));
	}
	for (int i = 0; i < tc->n_in; i++) {
		if (!tc->in[i].dtype)
			continue;
		void *b = malloc((size_t)tc->in[i].bytes + 1);
		memcpy(b, tc->in[i].data, (size_t)tc->in[i].bytes);
		bin[i] = b;
	}
	for (int i = 0; i < tc->n_out; i++)
		if (tc->out[i].dtype) {
			bout[i] = calloc(1, (size_t)tc->out[i].bytes + 1);
			bout2[i] = calloc(1, (size_t)tc->out[i].bytes + 1);
		}
	CHECK(ops_run_node(&g, n, bin, bout) == 0, "%s: kernel failed", tc->name);
	for (int i = 0; i < tc->n_out; i++)
		if (bout[i])
			compare(tc, i, bout[i]);

	/* the recurrence and the reductions run whole in task 0: other tasks write nothing */
	LowerCtx lc;
	memset(&lc, 0, sizeof lc);
	lc.g = &g;
	lc.node = n;
	CHECK(op_info(tc->op)->impl->lower(&lc) == 0, "%s: lower failed", tc->name);
	if (lc.kc.scratch_bytes > 0)
		scratch = calloc(1, (size_t)lc.kc.scratch_bytes);
	CHECK(lc.kc.fn(lc.kc.params, bin, bout2, scratch, 1, 2) == 0, "%s: task 1", tc->name);
	for (int i = 0; i < tc->n_out; i++)
		for (int k = 0; bout2[i] && k < tc->out[i].bytes; k++)
			if (((unsigned char *)bout2[i])[k]) {
				CHECK(0, "%s: task 1 of 2 wrote output %d", tc->name, i);
				break;
			}
	CHECK(lc.kc.fn(lc.kc.params, bin, bout2, scratch, 0, 2) == 0, "%s: task 0", tc->name);
	for (int i = 0; i < tc->n_out; i++)
		CHECK(!bout[i] || memcmp(bout[i], bout2[i], (size_t)tc->out[i].bytes) == 0,
		      "%s: output %d differs as task 0 of 2", tc->name, i);
done:
	for (int i = 0; i < tc->n_in; i++)
		free((void *)bin[i]);
	for (int i = 0; i < tc->n_out; i++) {
		free(bout[i]);
		free(bout2[i]);
	}
	free(bin);
	free(bout);
	free(bout2);
	free(scratch);
	diag_sink_free(&d);
	ir_graph_free(&g);
}

/* ---- error cases: each must fail with a diagnostic whose text contains `want` ---- */

typedef struct ErrIn { DType dt; int rank; int64_t dims[4]; } ErrIn;

static void expect_error(const char *what, Op op, int opset, const ErrIn *ins, int n_in, int n_out,
                         const RawAttr *raw, int n_raw, DiagCode code, const char *want)
{
	Graph g;
	DiagSink d;
	ValueId in[12], out[6];
	ir_graph_init(&g, "bad.onnx");
	diag_sink_init(&d, NULL);
	for (int i = 0; i < n_in; i++) {
		Type t = type_make(ins[i].dt, ins[i].rank, ins[i].dims);
		char name[16];
		snprintf(name, sizeof name, "x%d", i);
		in[i] = ins[i].dt ? ir_value_new(&g, 0, name, &t) : IR_NONE;
	}
	for (int i = 0; i < n_out; i++)
		out[i] = ir_value_new(&g, 0, "y", NULL);
	NodeId n = ir_node_new(&g, 0, op, opset, in, n_in, out, n_out, what);
	int rc = ops_import_attrs(&g, n, raw, n_raw, &d);
	if (rc == 0)
		rc = ops_infer_node(&g, n, &d);
	CHECK(rc != 0, "%s: expected an error", what);
	CHECK(d.n_errors > 0 && diag_has_code(&d, code), "%s: expected diagnostic code %d", what, code);
	bool found = false;
	for (int i = 0; i < d.n_items; i++)
		found = found || strstr(d.items[i].text, want) != NULL;
	CHECK(found, "%s: no diagnostic mentions '%s'", what, want);
	if (!found)
		diag_print_all(&d, stderr);
	diag_sink_free(&d);
	ir_graph_free(&g);
}

/* Runs a node that infers fine on the given data; the kernel must return `want_rc`. */
static void expect_status(const char *what, Op op, int opset, const ErrIn *ins, const void *const *data,
                          int n_in, int n_out, const RawAttr *raw, int n_raw, int want_rc)
{
	Graph g;
	DiagSink d;
	ValueId in[12], out[6];
	void *bufs[6] = { NULL };
	ir_graph_init(&g, "bad.onnx");
	diag_sink_init(&d, NULL);
	for (int i = 0; i < n_in; i++) {
		Type t = type_make(ins[i].dt, ins[i].rank, ins[i].dims);
		in[i] = ins[i].dt ? ir_value_new(&g, 0, "x", &t) : IR_NONE;
	}
	for (int i = 0; i < n_out; i++)
		out[i] = ir_value_new(&g, 0, "y", NULL);
	NodeId n = ir_node_new(&g, 0, op, opset, in, n_in, out, n_out, what);
	if (ops_import_attrs(&g, n, raw, n_raw, &d) || ops_infer_node(&g, n, &d)) {
		CHECK(0, "%s: infer failed", what);
		diag_print_all(&d, stderr);
	} else {
		for (int i = 0; i < n_out; i++)
			bufs[i] = calloc(1, (size_t)type_bytes(&g.values[out[i]].type) + 1);
		int rc = ops_run_node(&g, n, data, bufs);
		CHECK(rc == want_rc, "%s: kernel returned %d, expected %d", what, rc, want_rc);
		for (int i = 0; i < n_out; i++)
			free(bufs[i]);
	}
	diag_sink_free(&d);
	ir_graph_free(&g);
}

static RawAttr attr_s(const char *name, const char *s)
{
	RawAttr r = { name, RA_STRING, 0, 0, s, NULL, NULL, NULL, 0, IR_NONE, IR_NONE };
	return r;
}

static RawAttr attr_i(const char *name, int64_t i)
{
	RawAttr r = { name, RA_INT, i, 0, NULL, NULL, NULL, NULL, 0, IR_NONE, IR_NONE };
	return r;
}

static RawAttr attr_f(const char *name, float f)
{
	RawAttr r = { name, RA_FLOAT, 0, f, NULL, NULL, NULL, NULL, 0, IR_NONE, IR_NONE };
	return r;
}

static void loss_errors(void)
{
	ErrIn x = { DT_F32, 3, { 2, 3, 4 } }, lab = { DT_I64, 2, { 2, 4 } };
	ErrIn bad_lab[2] = { x, { DT_I64, 2, { 2, 3 } } };
	expect_error("nll_label_shape", OP_NEGATIVE_LOG_LIKELIHOOD_LOSS, 13, bad_lab, 2, 1, NULL, 0,
	             DC_SHAPE, "without dim 1");
	ErrIn int_x[2] = { { DT_I32, 3, { 2, 3, 4 } }, lab };
	expect_error("sce_int_scores", OP_SOFTMAX_CROSS_ENTROPY_LOSS, 13, int_x, 2, 1, NULL, 0,
	             DC_TYPE, "not supported");
	ErrIn f_lab[2] = { x, { DT_F32, 2, { 2, 4 } } };
	expect_error("nll_float_labels", OP_NEGATIVE_LOG_LIKELIHOOD_LOSS, 13, f_lab, 2, 1, NULL, 0,
	             DC_TYPE, "f32");
	ErrIn bad_w[3] = { x, lab, { DT_F32, 1, { 4 } } };
	expect_error("nll_weights", OP_NEGATIVE_LOG_LIKELIHOOD_LOSS, 13, bad_w, 3, 1, NULL, 0,
	             DC_SHAPE, "one weight per class");
	ErrIn ok[2] = { x, lab };
	expect_error("nll_two_outputs", OP_NEGATIVE_LOG_LIKELIHOOD_LOSS, 13, ok, 2, 2, NULL, 0,
	             DC_SHAPE, "expected 1");
	RawAttr avg = attr_s("reduction", "avg");
	expect_error("sce_reduction", OP_SOFTMAX_CROSS_ENTROPY_LOSS, 13, ok, 2, 1, &avg, 1,
	             DC_PARSE, "avg");
	ErrIn vec[2] = { { DT_F32, 1, { 3 } }, { DT_I64, 0, { 0 } } };
	expect_error("sce_rank1", OP_SOFTMAX_CROSS_ENTROPY_LOSS, 13, vec, 2, 1, NULL, 0,
	             DC_SHAPE, "rank");

	/* a label outside [0, C) that is not ignore_index stops the kernel */
	static const float xs[6] = { 1, 2, 3, 4, 5, 6 };
	static const int64_t labs[2] = { 1, 3 };
	const void *data[2] = { xs, labs };
	ErrIn small[2] = { { DT_F32, 2, { 2, 3 } }, { DT_I64, 1, { 2 } } };
	expect_status("nll_label_range", OP_NEGATIVE_LOG_LIKELIHOOD_LOSS, 13, small, data, 2, 1,
	              NULL, 0, INGOT_ERANGE);
	RawAttr ii3 = attr_i("ignore_index", 3);
	expect_status("nll_label_ignored", OP_SOFTMAX_CROSS_ENTROPY_LOSS, 13, small, data, 2, 1,
	              &ii3, 1, INGOT_OK);
}

static void optim_errors(void)
{
	ErrIn r = { DT_F32, 0, { 0 } }, t = { DT_I64, 0, { 0 } }, v3 = { DT_F32, 1, { 3 } };
	ErrIn four[4] = { r, t, v3, v3 };
	expect_error("adagrad_arity", OP_ADAGRAD, 1, four, 4, 2, NULL, 0, DC_SHAPE,
	             "per optimized tensor");
	ErrIn five[5] = { r, t, v3, v3, v3 };
	RawAttr mom[3] = { attr_f("alpha", 0.9f), attr_f("beta", 0.1f), attr_f("norm_coefficient", 0) };
	expect_error("momentum_no_mode", OP_MOMENTUM, 1, five, 5, 2, mom, 3, DC_PARSE, "required");
	ErrIn six[6] = { r, t, v3, v3, v3, { DT_F32, 1, { 2 } } };
	expect_error("adam_shape", OP_ADAM, 1, six, 6, 3, NULL, 0, DC_SHAPE, "expected the shape");
	ErrIn f16[5] = { r, t, { DT_F16, 1, { 3 } }, { DT_F16, 1, { 3 } }, { DT_F16, 1, { 3 } } };
	expect_error("adagrad_f16", OP_ADAGRAD, 1, f16, 5, 2, NULL, 0, DC_TYPE, "f16");
	ErrIn tf[5] = { r, { DT_F32, 0, { 0 } }, v3, v3, v3 };
	expect_error("adagrad_t_float", OP_ADAGRAD, 1, tf, 5, 2, NULL, 0, DC_TYPE, "f32");
	ErrIn rv[5] = { { DT_F32, 1, { 2 } }, t, v3, v3, v3 };
	expect_error("adagrad_r_vector", OP_ADAGRAD, 1, rv, 5, 2, NULL, 0, DC_SHAPE, "scalar");
}

static void rnn_errors(void)
{
	ErrIn x = { DT_F32, 3, { 4, 2, 3 } };
	ErrIn w = { DT_F32, 3, { 1, 5, 3 } }, r = { DT_F32, 3, { 1, 5, 5 } };
	ErrIn none = { DT_UNDEF, 0, { 0 } };
	RawAttr h5 = attr_i("hidden_size", 5);
	ErrIn bad_w[3] = { x, { DT_F32, 3, { 1, 5, 4 } }, r };
	expect_error("rnn_w_dims", OP_RNN, 14, bad_w, 3, 2, &h5, 1, DC_SHAPE, "expected W shape");
	ErrIn gw = { DT_F32, 3, { 1, 15, 3 } }, gr = { DT_F32, 3, { 1, 15, 5 } };
	ErrIn gru_c[7] = { x, gw, gr, none, none, none, { DT_F32, 3, { 1, 2, 5 } } };
	expect_error("gru_initial_c", OP_GRU, 14, gru_c, 7, 2, &h5, 1, DC_SHAPE, "only LSTM");
	ErrIn ok[3] = { x, w, r };
	const char *swish[1] = { "Swish" };
	RawAttr acts = { "activations", RA_STRINGS, 0, 0, NULL, NULL, NULL, swish, 1, IR_NONE, IR_NONE };
	expect_error("rnn_activation", OP_RNN, 14, ok, 3, 2, &acts, 1, DC_PARSE, "Swish");
	const char *three[3] = { "Tanh", "Tanh", "Tanh" };
	RawAttr acts3 = { "activations", RA_STRINGS, 0, 0, NULL, NULL, NULL, three, 3, IR_NONE, IR_NONE };
	expect_error("rnn_activation_count", OP_RNN, 14, ok, 3, 2, &acts3, 1, DC_PARSE, "expected 1");
	RawAttr h4 = attr_i("hidden_size", 4);
	ErrIn lw = { DT_F32, 3, { 1, 20, 3 } }, lr = { DT_F32, 3, { 1, 20, 5 } };
	ErrIn lstm[3] = { x, lw, lr };
	expect_error("lstm_hidden_size", OP_LSTM, 14, lstm, 3, 3, &h4, 1, DC_SHAPE, "expected W shape");
	RawAttr bidi = attr_s("direction", "bidirectional");
	expect_error("lstm_directions", OP_LSTM, 14, lstm, 3, 3, &bidi, 1, DC_SHAPE, "[2,20,3]");
	ErrIn xi[3] = { { DT_I32, 3, { 4, 2, 3 } }, w, r };
	expect_error("rnn_int", OP_RNN, 14, xi, 3, 2, NULL, 0, DC_TYPE, "i32");
	RawAttr clip = attr_f("clip", -1.0f);
	expect_error("rnn_clip", OP_RNN, 14, ok, 3, 2, &clip, 1, DC_SHAPE, "positive");
	ErrIn gru[3] = { x, gw, gr };
	expect_error("gru_y_c", OP_GRU, 14, gru, 3, 3, NULL, 0, DC_SHAPE, "only LSTM has output");
	ErrIn lens64[5] = { x, w, r, none, { DT_I64, 1, { 2 } } };
	expect_error("rnn_lens_i64", OP_RNN, 14, lens64, 5, 2, NULL, 0, DC_TYPE, "i64");
	ErrIn lens3[5] = { x, w, r, none, { DT_I32, 1, { 3 } } };
	expect_error("rnn_lens_shape", OP_RNN, 14, lens3, 5, 2, NULL, 0, DC_SHAPE, "one length");
	RawAttr layout2 = attr_i("layout", 2);
	expect_error("rnn_layout", OP_RNN, 14, ok, 3, 2, &layout2, 1, DC_PARSE, "layout");

	/* a sequence length beyond seq_length stops the kernel before it writes */
	static float zeros[64];
	static const int32_t lens[2] = { 2, 5 };
	const void *data[5] = { zeros, zeros, zeros, NULL, lens };
	ErrIn lens_ok[5] = { x, w, r, none, { DT_I32, 1, { 2 } } };
	expect_status("rnn_lens_range", OP_RNN, 14, lens_ok, data, 5, 2, NULL, 0, INGOT_ERANGE);
}

int main(void)
{
	for (int i = 0; i < COUNTOF(cases); i++)
		run_case(&cases[i]);
	loss_errors();
	optim_errors();
	rnn_errors();
	printf("loss_rnn: %d reference cases, error cases\n", COUNTOF(cases));
	return harness_done("loss_rnn");
}
