/* test_nn.c — unit tests of the op groups gemm, matmul, conv, conv_transpose, pool
 * and global_pool: each case of nn_cases.h (numpy references) is imported, inferred
 * and run through its reference kernel, once whole and once split in 3 tasks; then
 * bad shapes, dtypes and attributes must give diagnostics, never a crash. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opimpl.h"

typedef struct NnTensor {
	int dtype;
	int rank;
	int64_t dims[IR_MAX_RANK];
	const double *f;             /* float dtypes */
	const int64_t *i;            /* integer dtypes */
} NnTensor;

typedef struct NnAttr {
	const char *name;
	RawAttrKind kind;
	int64_t i;
	float f;
	const char *s;
	int n;
	const int64_t *ints;
} NnAttr;

typedef struct NnCase {
	const char *name, *op;
	int opset;
	int n_in;
	NnTensor in[3];
	int n_attr;
	NnAttr attr[8];
	int n_out;
	NnTensor out[2];
	double rtol, atol;
} NnCase;

#include "nn_cases.h"

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
	case DT_I32: ((int32_t *)buf)[k] = (int32_t)iv; break;
	case DT_U32: ((uint32_t *)buf)[k] = (uint32_t)iv; break;
	case DT_I64: ((int64_t *)buf)[k] = iv; break;
	case DT_U64: ((uint64_t *)buf)[k] = (uint64_t)iv; break;
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
	case DT_I32: return ((const int32_t *)buf)[k];
	case DT_U32: return ((const uint32_t *)buf)[k];
	case DT_I64: return ((const int64_t *)buf)[k];
	case DT_U64: return (int64_t)((const uint64_t *)buf)[k];
	default: abort();
	}
}

/* Builds a graph with one node: inputs from the case, attributes, untyped outputs. */
static NodeId build(Graph *g, const char *op, int opset, const NnTensor *ins, int n_in,
                    const NnAttr *attrs, int n_attr, int n_out, DiagSink *d, int *rc)
{
	ValueId in[3], out[2];
	RawAttr raw[8];
	char name[32];
	for (int i = 0; i < n_in; i++) {
		if (ins[i].dtype == 0) {
			in[i] = IR_NONE;
			continue;
		}
		Type t = type_make((DType)ins[i].dtype, ins[i].rank, ins[i].dims);
		snprintf(name, sizeof name, "x%d", i);
		in[i] = ir_value_new(g, 0, name, &t);
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
		raw[i].s = attrs[i].s;
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

static void run_case(const NnCase *c)
{
	Graph g;
	DiagSink d;
	int rc;
	void *in[3] = { NULL, NULL, NULL }, *out[2] = { NULL, NULL }, *out3[2] = { NULL, NULL };
	ir_graph_init(&g, "test.onnx");
	diag_sink_init(&d, stderr);
	NodeId n = build(&g, c->op, c->opset, c->in, c->n_in, c->attr, c->n_attr, c->n_out, &d, &rc);
	CHECK(rc == 0, "%s: import/infer failed", c->name);
	if (rc)
		goto done;
	for (int i = 0; i < c->n_in; i++) {
		const NnTensor *t = &c->in[i];
		Type ty = type_make((DType)t->dtype, t->rank, t->dims);
		int64_t cnt = type_numel(&ty);
		in[i] = calloc(1, (size_t)type_bytes(&ty) + 1);
		for (int64_t k = 0; k < cnt; k++)
			put(t->dtype, in[i], k, t->f ? t->f[k] : 0.0, t->i ? t->i[k] : 0);
	}
	for (int o = 0; o < c->n_out; o++) {
		const NnTensor *e = &c->out[o];
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
		/* exactly as long as the node's slots, as generated code passes them, so an
		 * out-of-bounds read of an absent optional slot shows under ASan */
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
		const NnTensor *e = &c->out[o];
		Type want = type_make((DType)e->dtype, e->rank, e->dims);
		int64_t cnt = type_numel(&want), bad = 0;
		for (int64_t k = 0; k < cnt && bad < 5; k++) {
			if (e->f) {
				double x = get_f(e->dtype, out[o], k), r = e->f[k];
				if (!(fabs(x - r) <= c->atol + c->rtol * fabs(r))) {
					CHECK(0, "%s: out%d[%lld] = %.9g, expected %.9g", c->name, o, (long long)k, x, r);
					bad++;
				}
			} else {
				int64_t x = get_i(e->dtype, out[o], k);
				if (x != e->i[k]) {
					CHECK(0, "%s: out%d[%lld] = %lld, expected %lld", c->name, o, (long long)k,
					      (long long)x, (long long)e->i[k]);
					bad++;
				}
			}
		}
		CHECK(memcmp(out[o], out3[o], (size_t)type_bytes(&want)) == 0,
		      "%s: output %d differs when split in 3 tasks", c->name, o);
	}
done:
	for (int i = 0; i < 3; i++)
		free(in[i]);
	for (int o = 0; o < 2; o++) {
		free(out[o]);
		free(out3[o]);
	}
	diag_sink_free(&d);
	ir_graph_free(&g);
}

/* ---- error cases: a diagnostic (with `expect` in it), never a crash ---- */

#define T(dt, r, ...) { dt, r, { __VA_ARGS__ }, NULL, NULL }
#define A_INTS(name, arr) { name, RA_INTS, 0, 0, NULL, COUNTOF(arr), arr }
#define A_STR(name, s) { name, RA_STRING, 0, 0, s, 0, NULL }
#define A_INT(name, v) { name, RA_INT, v, 0, NULL, 0, NULL }

static void expect_error(const char *what, const char *op, int opset, const NnTensor *ins,
                         int n_in, const NnAttr *attrs, int n_attr, int n_out, const char *expect)
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
	static const int64_t p1[] = { 1, 1 }, k33[] = { 3, 3 }, k9[] = { 9, 9 }, os3[] = { 5, 5, 5 };
	static const int64_t s0[] = { 0, 1 }, sbig[] = { 1, INT64_C(1) << 60 };
	{
		NnTensor in[] = { T(DT_F32, 2, 2, 3), T(DT_F32, 2, 4, 5) };
		expect_error("matmul inner dims", "MatMul", 13, in, 2, NULL, 0, 1, "inner dims differ");
	}
	{
		NnTensor in[] = { T(DT_F32, 3, 2, 2, 3), T(DT_F32, 3, 3, 3, 4) };
		expect_error("matmul batch", "MatMul", 13, in, 2, NULL, 0, 1, "does not broadcast");
	}
	{
		NnTensor in[] = { T(DT_F32, 2, INT64_C(1) << 50, 3), T(DT_F32, 2, 3, INT64_C(1) << 50) };
		expect_error("matmul huge", "MatMul", 13, in, 2, NULL, 0, 1, "too large shape");
	}
	{
		NnTensor in[] = { T(DT_F32, 2, 0, INT64_C(1) << 62), T(DT_F32, 2, INT64_C(1) << 62, 2) };
		expect_error("matmul huge empty", "MatMul", 13, in, 2, NULL, 0, 1, "too large shape");
	}
	{
		NnTensor in[] = { T(DT_I8, 2, 2, 3), T(DT_I8, 2, 3, 2) };
		expect_error("matmul i8", "MatMul", 13, in, 2, NULL, 0, 1, "not supported");
	}
	{
		NnTensor in[] = { T(DT_F32, 2, 2, 3), T(DT_F64, 2, 3, 2) };
		expect_error("matmul mixed", "MatMul", 13, in, 2, NULL, 0, 1, "expected element type f32");
	}
	{
		NnTensor in[] = { T(DT_F32, 2, 2, 3), T(DT_F32, 2, 3, 4) };
		expect_error("gemm without C at opset 9", "Gemm", 9, in, 2, NULL, 0, 1, "required");
	}
	{
		NnTensor in[] = { T(DT_F32, 2, 2, 3), T(DT_F32, 2, 3, 4), T(DT_F32, 1, 3) };
		expect_error("gemm C shape", "Gemm", 13, in, 3, NULL, 0, 1, "does not broadcast");
	}
	{
		NnTensor in[] = { T(DT_F32, 3, 1, 2, 3), T(DT_F32, 2, 3, 4) };
		expect_error("gemm rank", "Gemm", 13, in, 2, NULL, 0, 1, "expected rank 2");
	}
	{
		NnTensor in[] = { T(DT_F32, 4, 1, 3, 5, 5), T(DT_F32, 4, 2, 2, 3, 3) };
		expect_error("conv channels", "Conv", 11, in, 2, NULL, 0, 1, "expected dim 1");
	}
	{
		NnTensor in[] = { T(DT_I32, 4, 1, 2, 5, 5), T(DT_I32, 4, 2, 2, 3, 3) };
		expect_error("conv i32", "Conv", 11, in, 2, NULL, 0, 1, "not supported");
	}
	{
		NnTensor in[] = { T(DT_F32, 4, 1, 2, 5, 5), T(DT_F32, 4, 2, 2, 3, 3), T(DT_F32, 1, 3) };
		expect_error("conv bias", "Conv", 11, in, 3, NULL, 0, 1, "expected shape [2]");
	}
	{
		NnTensor in[] = { T(DT_F32, 4, 1, 2, 5, 5), T(DT_F32, 4, 2, 2, 3, 3) };
		NnAttr at[] = { A_INTS("pads", p1) };
		expect_error("conv pads length", "Conv", 11, in, 2, at, 1, 1, "expected 4 values");
	}
	{
		NnTensor in[] = { T(DT_F32, 4, 1, 2, 5, 5), T(DT_F32, 4, 2, 2, 3, 3) };
		NnAttr at[] = { A_INTS("strides", s0) };
		expect_error("conv zero stride", "Conv", 11, in, 2, at, 1, 1, "below 1");
	}
	{
		NnTensor in[] = { T(DT_F32, 4, 1, 2, 5, 5), T(DT_F32, 4, 2, 2, 3, 3) };
		NnAttr at[] = { A_INTS("dilations", sbig) };
		expect_error("conv huge dilation", "Conv", 11, in, 2, at, 1, 1, "too large");
	}
	{
		NnTensor in[] = { T(DT_F32, 4, 1, 2, 5, 5), T(DT_F32, 4, 2, 2, 3, 3) };
		NnAttr at[] = { A_INT("group", INT64_C(1) << 62) };
		expect_error("conv huge group", "Conv", 11, in, 2, at, 1, 1, "expected 1 to");
	}
	{
		NnTensor in[] = { T(DT_F32, 4, 1, 2, 2, 2), T(DT_F32, 4, 2, 2, 3, 3) };
		expect_error("conv kernel too big", "Conv", 11, in, 2, NULL, 0, 1, "smaller than");
	}
	{
		NnTensor in[] = { T(DT_F32, 4, 1, 2, 5, 5), T(DT_F32, 4, 2, 2, 3, 3) };
		NnAttr at[] = { A_STR("auto_pad", "SAME") };
		expect_error("conv auto_pad", "Conv", 11, in, 2, at, 1, 1, "unsupported value 'SAME'");
	}
	{
		NnTensor in[] = { T(DT_F32, 2, 5, 5), T(DT_F32, 2, 3, 3) };
		expect_error("conv rank 2", "Conv", 11, in, 2, NULL, 0, 1, "expected rank 3");
	}
	{
		NnTensor in[] = { T(DT_F32, 4, 1, 2, 3, 3), T(DT_F32, 4, 3, 2, 3, 3) };
		expect_error("convtranspose channels", "ConvTranspose", 11, in, 2, NULL, 0, 1,
		             "expected dim 0 = 2");
	}
	{
		NnTensor in[] = { T(DT_F32, 4, 1, 2, 3, 3), T(DT_F32, 4, 2, 2, 3, 3) };
		NnAttr at[] = { A_INTS("output_shape", os3) };
		expect_error("convtranspose output_shape", "ConvTranspose", 11, in, 2, at, 1, 1,
		             "expected 2 values");
	}
	{
		NnTensor in[] = { T(DT_F32, 4, 1, 2, 5, 5) };
		expect_error("maxpool no kernel", "MaxPool", 12, in, 1, NULL, 0, 1, "kernel_shape");
	}
	{
		NnTensor in[] = { T(DT_F32, 4, 1, 2, 5, 5) };
		NnAttr at[] = { A_INTS("kernel_shape", k9) };
		expect_error("maxpool kernel too big", "MaxPool", 12, in, 1, at, 1, 2, "smaller than");
	}
	{
		NnTensor in[] = { T(DT_U8, 4, 1, 2, 5, 5) };
		NnAttr at[] = { A_INTS("kernel_shape", k33) };
		expect_error("averagepool u8", "AveragePool", 11, in, 1, at, 1, 1, "not supported");
	}
	{
		NnTensor in[] = { T(DT_F32, 4, 1, 2, 5, 5) };
		NnAttr at[] = { A_INTS("kernel_shape", k33), A_INT("ceil_mode", 1), A_STR("auto_pad", 0) };
		at[2].kind = RA_INT;
		expect_error("pool auto_pad kind", "AveragePool", 11, in, 1, at, 3, 1, "expected string");
	}
	{
		NnTensor in[] = { T(DT_I32, 4, 1, 2, 5, 5) };
		expect_error("globalavg i32", "GlobalAveragePool", 1, in, 1, NULL, 0, 1, "not supported");
	}
}

/* auto_pad = "" is NOTSET (some exporters write it) */
static void empty_auto_pad(void)
{
	Graph g;
	DiagSink d;
	int rc;
	NnTensor in[] = { T(DT_F32, 4, 1, 2, 5, 5), T(DT_F32, 4, 2, 2, 3, 3) };
	NnAttr at[] = { A_STR("auto_pad", "") };
	ir_graph_init(&g, "t.onnx");
	diag_sink_init(&d, stderr);
	NodeId n = build(&g, "Conv", 11, in, 2, at, 1, 1, &d, &rc);
	CHECK(rc == 0, "auto_pad \"\": rejected");
	if (rc == 0)
		CHECK(g.values[g.nodes[n].out[0]].type.dims[3] == 3, "auto_pad \"\": wrong shape");
	diag_sink_free(&d);
	ir_graph_free(&g);
}

int main(void)
{
	int n = COUNTOF(nn_cases);
	for (int i = 0; i < n; i++)
		run_case(&nn_cases[i]);
	error_cases();
	empty_auto_pad();
	printf("nn: %d cases\n", n);
	return harness_done("nn");
}
