/* test_norm_reduce.c — unit test of the batchnorm, instancenorm, layernorm, softmax and
 * reduce op groups: import → infer → run one node on numpy reference cases (cases.h,
 * from gen_cases.py), also split into 3 tasks, plus error cases that must give a
 * diagnostic and never crash. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "opimpl.h"
#include "../harness_float.h"
#include "reduce.h"

typedef struct TTensor {
	int dtype;
	int rank;
	int64_t dims[8];
	const uint8_t *data;
	int bytes;
	int is_const;
} TTensor;

typedef struct TAttr {
	const char *name;
	RawAttrKind kind;
	int64_t i;
	float f;
	const int64_t *ints;
	int n;
} TAttr;

typedef struct TCase {
	const char *name;
	Op op;
	int opset;
	int n_in;
	TTensor in[5];
	int n_out;
	TTensor out[3];
	int n_attr;
	TAttr attrs[4];
	double rtol, atol;
} TCase;

/* A reduce kernel mode run directly (its op is not in the op table yet). */
typedef struct TKernelCase {
	int mode;
	int64_t rmask;
	TTensor x, y;
	double rtol, atol;
} TKernelCase;

#include "cases.h"

/* Compares a float result with the rule of `ingot check`; integers bytewise. */
static void compare_tensor(const char *name, int k, const TTensor *e, double rtol, double atol,
                           const void *got)
{
	check_output(name, k, e->dtype, got, e->data, e->bytes, rtol, atol);
}

static void compare(const TCase *tc, int k, const void *got)
{
	compare_tensor(tc->name, k, &tc->out[k], tc->rtol, tc->atol, got);
}

static void run_kernel_case(int idx, const TKernelCase *kc)
{
	ingot_reduce_params p;
	char name[64];
	void *x = malloc((size_t)kc->x.bytes + 1), *y = calloc(1, (size_t)kc->y.bytes + 1);
	const void *in[1] = { x };
	void *out[1] = { y };
	memset(&p, 0, sizeof p);
	p.dtype = kc->x.dtype;
	p.mode = kc->mode;
	p.rank = kc->x.rank;
	memcpy(p.dims, kc->x.dims, sizeof p.dims);
	p.rmask = kc->rmask;
	memcpy(x, kc->x.data, (size_t)kc->x.bytes);
	snprintf(name, sizeof name, "kernel case %d (mode %d, dtype %d)", idx, kc->mode, kc->x.dtype);
	CHECK(ingot_reduce(&p, in, out, NULL, 0, 1) == 0, "%s: kernel failed", name);
	compare_tensor(name, 0, &kc->y, kc->rtol, kc->atol, y);
	free(x);
	free(y);
}

static void run_case(const TCase *tc)
{
	Graph g;
	DiagSink d;
	ValueId in[5], out[3];
	RawAttr raw[4];
	const void *bufs_in[5];
	void *bufs_out[3], *split_out[3];
	ir_graph_init(&g, "test.onnx");
	diag_sink_init(&d, NULL);
	for (int i = 0; i < tc->n_in; i++) {
		const TTensor *t = &tc->in[i];
		Type ty = type_make((DType)t->dtype, t->rank, t->dims);
		char name[16];
		snprintf(name, sizeof name, "in%d", i);
		if (t->is_const) {
			in[i] = ir_value_new_const(&g, 0, name, &ty, t->data);
		} else {
			in[i] = ir_value_new(&g, 0, name, &ty);
			ir_region_add_input(&g, 0, in[i]);
		}
	}
	for (int i = 0; i < tc->n_out; i++) {
		char name[16];
		snprintf(name, sizeof name, "out%d", i);
		out[i] = ir_value_new(&g, 0, name, NULL);
	}
	for (int i = 0; i < tc->n_attr; i++) {
		memset(&raw[i], 0, sizeof raw[i]);
		raw[i].name = tc->attrs[i].name;
		raw[i].kind = tc->attrs[i].kind;
		raw[i].i = tc->attrs[i].i;
		raw[i].f = tc->attrs[i].f;
		raw[i].ints = tc->attrs[i].ints;
		raw[i].n = tc->attrs[i].n;
	}
	NodeId n = ir_node_new(&g, 0, tc->op, tc->opset, in, tc->n_in, out, tc->n_out, tc->name);
	if (ops_import_attrs(&g, n, raw, tc->n_attr, &d) || ops_infer_node(&g, n, &d)) {
		CHECK(0, "%s: import/infer failed", tc->name);
		diag_print_all(&d, stderr);
		goto done;
	}
	for (int i = 0; i < tc->n_out; i++) {
		const TTensor *e = &tc->out[i];
		Type want = type_make((DType)e->dtype, e->rank, e->dims);
		char b1[128], b2[128];
		CHECK(type_equal(&g.values[out[i]].type, &want), "%s: output %d type %s, expected %s",
		      tc->name, i, type_format(&g.values[out[i]].type, b1, sizeof b1),
		      type_format(&want, b2, sizeof b2));
	}
	for (int i = 0; i < tc->n_in; i++) {
		void *b = malloc((size_t)tc->in[i].bytes + 1);
		memcpy(b, tc->in[i].data, (size_t)tc->in[i].bytes);
		bufs_in[i] = b;
	}
	for (int i = 0; i < tc->n_out; i++) {
		bufs_out[i] = calloc(1, (size_t)tc->out[i].bytes + 1);
		split_out[i] = calloc(1, (size_t)tc->out[i].bytes + 1);
	}
	CHECK(ops_run_node(&g, n, bufs_in, bufs_out) == 0, "%s: kernel failed", tc->name);
	for (int i = 0; i < tc->n_out; i++)
		compare(tc, i, bufs_out[i]);

	/* the same call split into 3 tasks gives identical bytes */
	LowerCtx lc;
	memset(&lc, 0, sizeof lc);
	lc.g = &g;
	lc.node = n;
	CHECK(op_info(tc->op)->impl->lower(&lc) == 0, "%s: lower failed", tc->name);
	for (int t = 0; t < 3; t++)
		CHECK(lc.kc.fn(lc.kc.params, bufs_in, split_out, NULL, t, 3) == 0, "%s: task %d", tc->name, t);
	for (int i = 0; i < tc->n_out; i++)
		CHECK(memcmp(bufs_out[i], split_out[i], (size_t)tc->out[i].bytes) == 0,
		      "%s: output %d differs when split into tasks", tc->name, i);
	for (int i = 0; i < tc->n_in; i++)
		free((void *)bufs_in[i]);
	for (int i = 0; i < tc->n_out; i++) {
		free(bufs_out[i]);
		free(split_out[i]);
	}
done:
	diag_sink_free(&d);
	ir_graph_free(&g);
}

/* ---- error cases: each must fail with a diagnostic whose text contains `want` ---- */

typedef struct ErrIn { DType dt; int rank; int64_t dims[4]; bool is_const; const int64_t *ints; } ErrIn;

static void expect_error(const char *what, Op op, int opset, const ErrIn *ins, int n_in, int n_out,
                         const RawAttr *raw, int n_raw, DiagCode code, const char *want)
{
	Graph g;
	DiagSink d;
	ValueId in[5], out[3];
	ir_graph_init(&g, "bad.onnx");
	diag_sink_init(&d, NULL);
	for (int i = 0; i < n_in; i++) {
		Type t = type_make(ins[i].dt, ins[i].rank, ins[i].dims);
		char name[16];
		snprintf(name, sizeof name, "x%d", i);
		if (ins[i].is_const)
			in[i] = ir_value_new_const(&g, 0, name, &t, ins[i].ints);
		else
			in[i] = ir_value_new(&g, 0, name, &t);
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

static void error_cases(void)
{
	static const int64_t ax_dup[] = { 1, -2 }, ax_big[] = { 3 }, ax_in[] = { 0 };
	RawAttr dup = { "axes", RA_INTS, 0, 0, NULL, ax_dup, NULL, NULL, 2, 0, 0 };
	RawAttr big = { "axes", RA_INTS, 0, 0, NULL, ax_big, NULL, NULL, 1, 0, 0 };
	RawAttr axis5 = { "axis", RA_INT, 5, 0, NULL, NULL, NULL, NULL, 0, 0, 0 };
	RawAttr stash = { "stash_type", RA_INT, 6, 0, NULL, NULL, NULL, NULL, 0, 0, 0 };
	RawAttr spatial0 = { "spatial", RA_INT, 0, 0, NULL, NULL, NULL, NULL, 0, 0, 0 };
	ErrIn x3 = { DT_F32, 3, { 2, 3, 4 }, false, NULL };
	ErrIn xi = { DT_I32, 3, { 2, 3, 4 }, false, NULL };
	ErrIn c3 = { DT_F32, 1, { 3 }, false, NULL }, c4 = { DT_F32, 1, { 4 }, false, NULL };
	ErrIn axes_rt = { DT_I64, 1, { 1 }, false, NULL };
	ErrIn axes_c = { DT_I64, 1, { 1 }, true, ax_in };
	ErrIn axes_f = { DT_F32, 1, { 1 }, false, NULL };

	expect_error("reduce_dup_axes", OP_REDUCE_SUM, 11, &x3, 1, 1, &dup, 1, DC_SHAPE, "repeated");
	expect_error("reduce_axis_range", OP_REDUCE_MAX, 13, &x3, 1, 1, &big, 1, DC_SHAPE, "out of range");
	ErrIn rt[2] = { x3, axes_rt };
	expect_error("reduce_axes_runtime", OP_REDUCE_SUM, 13, rt, 2, 1, NULL, 0, DC_CONST_INPUT, "--bind");
	ErrIn both[2] = { x3, axes_c };
	expect_error("reduce_axes_twice", OP_REDUCE_MEAN, 18, both, 2, 1, &big, 1, DC_SHAPE, "both");
	ErrIn fax[2] = { x3, axes_f };
	expect_error("reduce_axes_float", OP_REDUCE_SUM, 13, fax, 2, 1, NULL, 0, DC_TYPE, "f32");
	ErrIn bs[2] = { { DT_BOOL, 1, { 3 }, false, NULL } };
	expect_error("reduce_bool", OP_REDUCE_SUM, 13, bs, 1, 1, NULL, 0, DC_TYPE, "bool");

	expect_error("softmax_int", OP_SOFTMAX, 13, &xi, 1, 1, NULL, 0, DC_TYPE, "i32");
	expect_error("softmax_axis", OP_LOG_SOFTMAX, 13, &x3, 1, 1, &axis5, 1, DC_SHAPE, "out of range");
	ErrIn sc[1] = { { DT_F32, 0, { 0 }, false, NULL } };
	expect_error("softmax_scalar", OP_SOFTMAX, 13, sc, 1, 1, NULL, 0, DC_SHAPE, "rank");

	ErrIn bn_bad[5] = { x3, c3, c3, c4, c3 };
	expect_error("bn_channels", OP_BATCH_NORMALIZATION, 15, bn_bad, 5, 1, NULL, 0, DC_SHAPE, "[3]");
	ErrIn bn_rank[5] = { c3, c3, c3, c3, c3 };
	expect_error("bn_rank1", OP_BATCH_NORMALIZATION, 15, bn_rank, 5, 1, NULL, 0, DC_SHAPE, "rank");
	ErrIn bn_int[5] = { xi, c3, c3, c3, c3 };
	expect_error("bn_int", OP_BATCH_NORMALIZATION, 15, bn_int, 5, 1, NULL, 0, DC_TYPE, "i32");
	ErrIn bn_ok[5] = { x3, c3, c3, c3, c3 };
	expect_error("bn_spatial0", OP_BATCH_NORMALIZATION, 7, bn_ok, 5, 1, &spatial0, 1, DC_PARSE,
	             "spatial");

	ErrIn in_bad[3] = { x3, c4, c3 };
	expect_error("instancenorm_channels", OP_INSTANCE_NORMALIZATION, 6, in_bad, 3, 1, NULL, 0,
	             DC_SHAPE, "per channel");
	ErrIn in_mix[3] = { x3, { DT_F64, 1, { 3 }, false, NULL }, c3 };
	expect_error("instancenorm_dtype", OP_INSTANCE_NORMALIZATION, 6, in_mix, 3, 1, NULL, 0,
	             DC_TYPE, "f64");

	ErrIn ln_bad[2] = { x3, c3 };
	expect_error("layernorm_scale", OP_LAYER_NORMALIZATION, 17, ln_bad, 2, 1, NULL, 0, DC_SHAPE,
	             "broadcast");
	ErrIn ln_ok[2] = { x3, c4 };
	expect_error("layernorm_stash", OP_LAYER_NORMALIZATION, 17, ln_ok, 2, 1, &stash, 1, DC_PARSE,
	             "stash_type");
	expect_error("layernorm_axis", OP_LAYER_NORMALIZATION, 17, ln_ok, 2, 1, &axis5, 1, DC_SHAPE,
	             "out of range");
}

int main(void)
{
	for (int i = 0; i < COUNTOF(cases); i++)
		run_case(&cases[i]);
	for (int i = 0; i < COUNTOF(kcases); i++)
		run_kernel_case(i, &kcases[i]);
	error_cases();
	printf("norm_reduce: %d reference cases, %d kernel cases, error cases\n", COUNTOF(cases),
	       COUNTOF(kcases));
	return harness_done("norm_reduce");
}
