/* test_quant_spectral.c — unit tests of the op groups quantize, dequantize,
 * dynamic_quantize, qlinear_conv, qlinear_matmul, matmul_integer, conv_integer,
 * dft, stft, window and mel: each case of cases.h (numpy references) is imported,
 * inferred and run through its kernel, once whole and once split in 3 tasks, with
 * constant-input slots passed as NULL (as generated code does) and slot arrays
 * exactly as long as the node's; then bad input must give a diagnostic. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opimpl.h"

typedef struct QsTensor {
	int dtype;                   /* 0: an omitted optional input */
	int rank;
	int64_t dims[IR_MAX_RANK];
	const double *f;             /* float dtypes */
	const int64_t *i;            /* integer dtypes */
	int is_const;                /* a compile-time constant (const_inputs slot) */
} QsTensor;

typedef struct QsAttr {
	const char *name;
	RawAttrKind kind;
	int64_t i;
	float f;
	int n;
	const int64_t *ints;
} QsAttr;

typedef struct QsCase {
	const char *name, *op;
	int opset;
	int n_in;
	QsTensor in[9];
	int n_attr;
	QsAttr attr[6];
	int n_out;
	QsTensor out[3];
	double rtol, atol;
} QsCase;

#include "cases.h"

#define MAX_IN 9
#define MAX_OUT 3

#include "../harness.h"

static void put(int dt, void *buf, int64_t k, double f, int64_t iv)
{
	switch (dt) {
	case DT_F32: ((float *)buf)[k] = (float)f; break;
	case DT_F64: ((double *)buf)[k] = f; break;
	case DT_F16: ((uint16_t *)buf)[k] = ingot_f32_to_f16((float)f); break;
	case DT_BF16: ((uint16_t *)buf)[k] = ingot_f32_to_bf16((float)f); break;
	case DT_I8: ((int8_t *)buf)[k] = (int8_t)iv; break;
	case DT_U8: ((uint8_t *)buf)[k] = (uint8_t)iv; break;
	case DT_I16: ((int16_t *)buf)[k] = (int16_t)iv; break;
	case DT_U16: ((uint16_t *)buf)[k] = (uint16_t)iv; break;
	case DT_I32: ((int32_t *)buf)[k] = (int32_t)iv; break;
	case DT_I64: ((int64_t *)buf)[k] = iv; break;
	default: abort();
	}
}

static double get_f(int dt, const void *buf, int64_t k)
{
	switch (dt) {
	case DT_F32: return ((const float *)buf)[k];
	case DT_F64: return ((const double *)buf)[k];
	case DT_F16: return ingot_f16_to_f32(((const uint16_t *)buf)[k]);
	case DT_BF16: return ingot_bf16_to_f32(((const uint16_t *)buf)[k]);
	default: abort();
	}
}

static int64_t get_i(int dt, const void *buf, int64_t k)
{
	switch (dt) {
	case DT_I8: return ((const int8_t *)buf)[k];
	case DT_U8: return ((const uint8_t *)buf)[k];
	case DT_I16: return ((const int16_t *)buf)[k];
	case DT_U16: return ((const uint16_t *)buf)[k];
	case DT_I32: return ((const int32_t *)buf)[k];
	case DT_I64: return ((const int64_t *)buf)[k];
	default: abort();
	}
}

static void *make_data(const QsTensor *t)
{
	Type ty = type_make((DType)t->dtype, t->rank, t->dims);
	int64_t cnt = type_numel(&ty);
	void *p = calloc(1, (size_t)type_bytes(&ty) + 1);
	for (int64_t k = 0; k < cnt; k++)
		put(t->dtype, p, k, t->f ? t->f[k] : 0.0, t->i ? t->i[k] : 0);
	return p;
}

/* Builds a graph with one node: inputs (constants where marked), attributes,
 * untyped outputs; imports and infers it. */
static NodeId build(Graph *g, const char *op, int opset, const QsTensor *ins, int n_in,
                    const QsAttr *attrs, int n_attr, int n_out, DiagSink *d, int *rc)
{
	ValueId in[MAX_IN], out[MAX_OUT];
	RawAttr raw[8];
	char name[32];
	for (int i = 0; i < n_in; i++) {
		if (ins[i].dtype == 0) {
			in[i] = IR_NONE;
			continue;
		}
		Type t = type_make((DType)ins[i].dtype, ins[i].rank, ins[i].dims);
		snprintf(name, sizeof name, "x%d", i);
		if (ins[i].is_const) {
			void *data = make_data(&ins[i]);
			in[i] = ir_value_new_const(g, 0, name, &t, data);
			free(data);
		} else {
			in[i] = ir_value_new(g, 0, name, &t);
		}
	}
	for (int i = 0; i < n_out; i++) {
		snprintf(name, sizeof name, "y%d", i);
		out[i] = ir_value_new(g, 0, name, NULL);
	}
	Op o = ir_op_lookup(op);
	if (o == OP_COUNT)
		abort();
	NodeId n = ir_node_new(g, 0, o, opset, in, n_in, out, n_out, "node0");
	memset(raw, 0, sizeof raw);
	for (int i = 0; i < n_attr; i++) {
		raw[i].name = attrs[i].name;
		raw[i].kind = attrs[i].kind;
		raw[i].i = attrs[i].i;
		raw[i].f = attrs[i].f;
		raw[i].n = attrs[i].n;
		raw[i].ints = attrs[i].ints;
	}
	*rc = ops_import_attrs(g, n, raw, n_attr, d);
	if (*rc == 0)
		*rc = ops_infer_node(g, n, d);
	return n;
}

/* Runs the node's kernel split in n_tasks tasks (what a thread pool would do). */
static int run_tasks(Graph *g, NodeId n, const void *const *in, void *const *out, int n_tasks)
{
	LowerCtx lc;
	memset(&lc, 0, sizeof lc);
	lc.g = g;
	lc.node = n;
	if (op_info(g->nodes[n].op)->impl->lower(&lc) || !lc.kc.fn || lc.kc.scratch_bytes > 0)
		return -1;
	for (int t = 0; t < n_tasks; t++) {
		int rc = lc.kc.fn(lc.kc.params, in, out, NULL, t, n_tasks);
		if (rc)
			return rc;
	}
	return 0;
}

static void compare(const QsCase *c, int o, const void *got)
{
	const QsTensor *e = &c->out[o];
	Type want = type_make((DType)e->dtype, e->rank, e->dims);
	int64_t cnt = type_numel(&want), bad = 0;
	for (int64_t k = 0; k < cnt && bad < 5; k++) {
		if (e->f) {
			double x = get_f(e->dtype, got, k), r = e->f[k];
			if (!(fabs(x - r) <= c->atol + c->rtol * fabs(r))) {
				CHECK(0, "%s: out%d[%lld] = %.9g, expected %.9g", c->name, o, (long long)k, x, r);
				bad++;
			}
		} else {
			int64_t x = get_i(e->dtype, got, k);
			if (x != e->i[k]) {
				CHECK(0, "%s: out%d[%lld] = %lld, expected %lld", c->name, o, (long long)k,
				      (long long)x, (long long)e->i[k]);
				bad++;
			}
		}
	}
}

static void run_case(const QsCase *c)
{
	Graph g;
	DiagSink d;
	int rc;
	void *in[MAX_IN] = { NULL }, *out[MAX_OUT] = { NULL }, *out3[MAX_OUT] = { NULL };
	ir_graph_init(&g, "test.onnx");
	diag_sink_init(&d, stderr);
	NodeId n = build(&g, c->op, c->opset, c->in, c->n_in, c->attr, c->n_attr, c->n_out, &d, &rc);
	CHECK(rc == 0, "%s: import/infer failed", c->name);
	if (rc)
		goto done;
	for (int i = 0; i < c->n_in; i++)
		if (c->in[i].dtype && !c->in[i].is_const)   /* constants: NULL, as generated code */
			in[i] = make_data(&c->in[i]);
	for (int o = 0; o < c->n_out; o++) {
		const QsTensor *e = &c->out[o];
		const Type *got = &g.values[g.nodes[n].out[o]].type;
		Type want = type_make((DType)e->dtype, e->rank, e->dims);
		char b1[96], b2[96];
		CHECK(type_equal(got, &want), "%s: output %d inferred %s, expected %s", c->name, o,
		      type_format(got, b1, sizeof b1), type_format(&want, b2, sizeof b2));
		if (!type_equal(got, &want))
			goto done;
		out[o] = calloc(1, (size_t)type_bytes(got) + 1);
		out3[o] = calloc(1, (size_t)type_bytes(got) + 1);
	}
	{
		const void **inv = malloc((size_t)c->n_in * sizeof *inv);
		void **outv = malloc((size_t)c->n_out * sizeof *outv);
		void **outv3 = malloc((size_t)c->n_out * sizeof *outv3);
		for (int i = 0; i < c->n_in; i++)
			inv[i] = in[i];
		for (int o = 0; o < c->n_out; o++) {
			outv[o] = out[o];
			outv3[o] = out3[o];
		}
		rc = ops_run_node(&g, n, inv, outv);
		CHECK(rc == 0, "%s: kernel returned %d", c->name, rc);
		rc = run_tasks(&g, n, inv, outv3, 3);
		CHECK(rc == 0, "%s: kernel in 3 tasks returned %d", c->name, rc);
		free(inv);
		free(outv);
		free(outv3);
	}
	for (int o = 0; o < c->n_out; o++) {
		Type want = type_make((DType)c->out[o].dtype, c->out[o].rank, c->out[o].dims);
		compare(c, o, out[o]);
		CHECK(memcmp(out[o], out3[o], (size_t)type_bytes(&want)) == 0,
		      "%s: output %d differs when split in 3 tasks", c->name, o);
	}
done:
	for (int i = 0; i < MAX_IN; i++)
		free(in[i]);
	for (int o = 0; o < MAX_OUT; o++) {
		free(out[o]);
		free(out3[o]);
	}
	diag_sink_free(&d);
	ir_graph_free(&g);
}

/* ---- error cases: a diagnostic (with `expect` in it), never a crash ---- */

#define T(dt, r, ...) { dt, r, { __VA_ARGS__ }, NULL, NULL, 0 }
#define A_INT(name, v) { name, RA_INT, v, 0, 0, NULL }

static const int64_t one_i64[] = { 1 }, neg1_i64[] = { -1 }, zero_i64[] = { 0 };
#define K(dt, r, data, ...) { dt, r, { __VA_ARGS__ }, NULL, data, 1 }

static void expect_error(const char *what, const char *op, int opset, const QsTensor *ins,
                         int n_in, const QsAttr *attrs, int n_attr, int n_out, const char *expect)
{
	Graph g;
	DiagSink d;
	int rc;
	ir_graph_init(&g, "bad.onnx");
	diag_sink_init(&d, NULL);
	build(&g, op, opset, ins, n_in, attrs, n_attr, n_out, &d, &rc);
	CHECK(rc != 0 && d.n_errors > 0, "%s: accepted", what);
	if (d.n_items > 0) {
		CHECK(strstr(d.items[0].text, expect) != NULL, "%s: message '%s' lacks '%s'", what,
		      d.items[0].text, expect);
		CHECK(strstr(d.items[0].text, "node0") != NULL, "%s: message '%s' lacks the node name",
		      what, d.items[0].text);
	}
	diag_sink_free(&d);
	ir_graph_free(&g);
}

static void error_cases(void)
{
	{
		QsTensor in[] = { T(DT_I8, 1, 4), T(DT_F32, 0, 0) };
		expect_error("quantize i8 input", "QuantizeLinear", 13, in, 2, NULL, 0, 1, "not supported");
	}
	{
		QsTensor in[] = { T(DT_F32, 2, 3, 4), T(DT_F32, 1, 5) };
		expect_error("quantize axis length", "QuantizeLinear", 13, in, 2, NULL, 0, 1,
		             "1-D scale of 4 values");
	}
	{
		QsTensor in[] = { T(DT_F32, 2, 3, 4), T(DT_F32, 1, 3) };
		expect_error("quantize per-axis at opset 10", "QuantizeLinear", 10, in, 2, NULL, 0, 1,
		             "opset 13");
	}
	{
		QsTensor in[] = { T(DT_F32, 2, 3, 4), T(DT_F32, 1, 3) };
		QsAttr at[] = { A_INT("axis", 5) };
		expect_error("quantize bad axis", "QuantizeLinear", 13, in, 2, at, 1, 1, "out of range");
	}
	{
		QsTensor in[] = { T(DT_F32, 2, 3, 4), T(DT_F32, 0, 0), T(DT_U8, 1, 2) };
		expect_error("quantize zp shape", "QuantizeLinear", 13, in, 3, NULL, 0, 1,
		             "shape of the scale");
	}
	{
		QsTensor in[] = { T(DT_F32, 2, 3, 4), T(DT_F32, 0, 0) };
		QsAttr at[] = { A_INT("output_dtype", 24) };      /* FLOAT8E8M0: a scale type only */
		expect_error("quantize float8e8m0", "QuantizeLinear", 24, in, 2, at, 1, 1, "f8e8m0");
	}
	{
		QsTensor in[] = { T(DT_F32, 2, 3, 4), T(DT_F32, 0, 0), T(DT_U8, 0, 0) };
		QsAttr at[] = { A_INT("output_dtype", DT_I8) };
		expect_error("quantize output_dtype mismatch", "QuantizeLinear", 21, in, 3, at, 1, 1,
		             "zero point's type");
	}
	{
		QsTensor in[] = { T(DT_F32, 2, 4, 6), T(DT_F32, 2, 4, 2) };
		QsAttr at[] = { A_INT("block_size", 2) };
		expect_error("quantize block shape", "QuantizeLinear", 21, in, 2, at, 1, 1, "block_size 2");
	}
	{
		QsTensor in[] = { T(DT_U8, 1, 4), T(DT_F32, 0, 0), T(DT_I8, 0, 0) };
		expect_error("dequantize zp type", "DequantizeLinear", 13, in, 3, NULL, 0, 1,
		             "expected element type u8");
	}
	{
		QsTensor in[] = { T(DT_F32, 1, 4), T(DT_F32, 0, 0) };
		expect_error("dequantize float input", "DequantizeLinear", 13, in, 2, NULL, 0, 1,
		             "not supported");
	}
	{
		QsTensor in[] = { T(DT_F64, 1, 4) };
		expect_error("dynamicquantize f64", "DynamicQuantizeLinear", 11, in, 1, NULL, 0, 3,
		             "not supported");
	}
	{
		QsTensor in[] = { T(DT_U8, 2, 4, 3), T(DT_U8, 2, 4, 2) };
		expect_error("matmulinteger k", "MatMulInteger", 10, in, 2, NULL, 0, 1, "expected 3 rows");
	}
	{
		QsTensor in[] = { T(DT_U8, 2, 4, 3), T(DT_U8, 2, 3, 2), T(DT_U8, 1, 3) };
		expect_error("matmulinteger zp", "MatMulInteger", 10, in, 3, NULL, 0, 1,
		             "one per row of A");
	}
	{
		QsTensor in[] = { T(DT_F32, 2, 4, 3), T(DT_U8, 2, 3, 2) };
		expect_error("matmulinteger float", "MatMulInteger", 10, in, 2, NULL, 0, 1, "not supported");
	}
	{
		QsTensor in[] = { T(DT_U8, 2, 2, 4), T(DT_F32, 0, 0), T(DT_U8, 0, 0), T(DT_U8, 2, 4, 3),
		                  T(DT_F32, 0, 0), T(DT_U8, 0, 0), T(DT_F32, 0, 0), T(DT_I32, 0, 0) };
		expect_error("qlinearmatmul y zp", "QLinearMatMul", 10, in, 8, NULL, 0, 1, "not supported");
	}
	{
		QsTensor in[] = { T(DT_U8, 4, 1, 2, 5, 5), T(DT_U8, 4, 3, 3, 3, 3) };
		expect_error("convinteger channels", "ConvInteger", 10, in, 2, NULL, 0, 1, "expected dim 1");
	}
	{
		QsTensor in[] = { T(DT_U8, 4, 1, 2, 5, 5), T(DT_U8, 4, 3, 2, 3, 3), T(DT_U8, 1, 2) };
		expect_error("convinteger x zp", "ConvInteger", 10, in, 3, NULL, 0, 1, "expected a scalar");
	}
	{
		QsTensor in[] = { T(DT_U8, 4, 1, 2, 5, 5), T(DT_F32, 0, 0), T(DT_U8, 0, 0),
		                  T(DT_U8, 4, 3, 2, 3, 3), T(DT_F32, 1, 2), T(DT_U8, 0, 0),
		                  T(DT_F32, 0, 0), T(DT_U8, 0, 0) };
		expect_error("qlinearconv w scale", "QLinearConv", 10, in, 8, NULL, 0, 1,
		             "one per output channel");
	}
	{
		QsTensor in[] = { T(DT_U8, 4, 1, 2, 5, 5), T(DT_F32, 0, 0), T(DT_U8, 0, 0),
		                  T(DT_U8, 4, 3, 2, 3, 3), T(DT_F32, 0, 0), T(DT_U8, 0, 0),
		                  T(DT_F32, 0, 0), T(DT_U8, 0, 0), T(DT_F32, 1, 3) };
		expect_error("qlinearconv bias", "QLinearConv", 10, in, 9, NULL, 0, 1, "expected i32[3]");
	}
	{
		QsTensor in[] = { T(DT_F32, 3, 1, 10, 1) };
		QsAttr at[] = { A_INT("axis", -1) };
		expect_error("dft last axis", "DFT", 17, in, 1, at, 1, 1, "re/im");
	}
	{
		QsTensor in[] = { T(DT_F32, 3, 1, 10, 3) };
		expect_error("dft last dim", "DFT", 17, in, 1, NULL, 0, 1, "real or complex");
	}
	{
		QsTensor in[] = { T(DT_F32, 3, 1, 10, 1), T(DT_I64, 0, 0) };
		expect_error("dft runtime length", "DFT", 17, in, 2, NULL, 0, 1, "--bind x1");
	}
	{
		QsTensor in[] = { T(DT_F32, 3, 1, 10, 1), K(DT_I64, 0, zero_i64, 0) };
		expect_error("dft zero length", "DFT", 17, in, 2, NULL, 0, 1, "dft_length in [1");
	}
	{
		QsTensor in[] = { T(DT_I32, 3, 1, 10, 1) };
		expect_error("dft int", "DFT", 17, in, 1, NULL, 0, 1, "not supported");
	}
	{
		QsTensor in[] = { T(DT_F32, 3, 1, 20, 1), K(DT_I64, 0, one_i64, 0) };
		expect_error("stft no length", "STFT", 17, in, 2, NULL, 0, 1, "window or a frame_length");
	}
	{
		QsTensor in[] = { T(DT_F32, 3, 1, 20, 1), K(DT_I64, 0, one_i64, 0), T(DT_F32, 1, 8),
		                  K(DT_I64, 0, one_i64, 0) };
		expect_error("stft window length", "STFT", 17, in, 4, NULL, 0, 1, "frame_length");
	}
	{
		QsTensor in[] = { T(DT_F32, 3, 1, 4, 1), K(DT_I64, 0, one_i64, 0), T(DT_F32, 1, 8) };
		expect_error("stft long frame", "STFT", 17, in, 3, NULL, 0, 1, "exceeds");
	}
	{
		QsTensor in[] = { K(DT_I64, 0, neg1_i64, 0) };
		expect_error("window negative", "HannWindow", 17, in, 1, NULL, 0, 1, "size in [0");
	}
	{
		QsTensor in[] = { T(DT_I64, 0, 0) };
		expect_error("window runtime size", "BlackmanWindow", 17, in, 1, NULL, 0, 1, "--bind");
	}
	{
		QsTensor in[] = { K(DT_I64, 0, one_i64, 0) };
		QsAttr at[] = { A_INT("output_datatype", DT_BOOL) };
		expect_error("window bool", "HammingWindow", 17, in, 1, at, 1, 1, "numeric type");
	}
	{
		QsTensor in[] = { K(DT_I64, 0, one_i64, 0), K(DT_I64, 0, one_i64, 0),
		                  K(DT_I64, 0, one_i64, 0), K(DT_I64, 0, one_i64, 0),
		                  K(DT_I64, 0, one_i64, 0) };
		expect_error("mel int edges", "MelWeightMatrix", 17, in, 5, NULL, 0, 1, "not supported");
	}
}

/* A mel matrix whose upper edge lies past Nyquist folds into an index error, never
 * a write out of bounds. */
static void mel_out_of_range(void)
{
	static const double hz[] = { 0.0, 9000.0 };
	static const int64_t nm[] = { 4 }, dl[] = { 16 }, sr[] = { 8000 };
	QsTensor ins[] = { K(DT_I32, 0, nm, 0), K(DT_I32, 0, dl, 0), K(DT_I32, 0, sr, 0),
	                   { DT_F32, 0, { 0 }, &hz[0], NULL, 1 }, { DT_F32, 0, { 0 }, &hz[1], NULL, 1 } };
	Graph g;
	DiagSink d;
	int rc;
	ir_graph_init(&g, "t.onnx");
	diag_sink_init(&d, NULL);
	NodeId n = build(&g, "MelWeightMatrix", 17, ins, 5, NULL, 0, 1, &d, &rc);
	CHECK(rc == 0, "mel past nyquist: infer failed");
	if (rc == 0) {
		float *y = calloc(9 * 4 + 1, sizeof *y);
		void *out[1] = { y };
		const void *in[5] = { NULL, NULL, NULL, NULL, NULL };
		CHECK(ops_run_node(&g, n, in, out) == INGOT_ERANGE, "mel past nyquist: not ERANGE");
		free(y);
	}
	diag_sink_free(&d);
	ir_graph_free(&g);
}

int main(void)
{
	for (int i = 0; i < COUNTOF(qs_cases); i++)
		run_case(&qs_cases[i]);
	error_cases();
	mel_out_of_range();
	printf("quant_spectral: %d cases\n", COUNTOF(qs_cases));
	return harness_done("quant_spectral");
}
