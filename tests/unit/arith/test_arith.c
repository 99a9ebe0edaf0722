/* test_arith.c — unit test of the arith op groups (unary_math, int_binary, bitwise,
 * prelu, hardmax, cumsum, det, einsum, trilu, eye_like, one_hot, cast_like): import →
 * infer → run one node on numpy reference cases (cases.h, from gen_cases.py), also
 * split into 3 tasks, plus error cases that must give a diagnostic and never crash. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "opimpl.h"
#include "../harness_float.h"

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
	const char *s;
} TAttr;

typedef struct TCase {
	const char *name;
	Op op;
	int opset;
	int n_in;
	TTensor in[4];
	int n_out;
	TTensor out[1];
	int n_attr;
	TAttr attrs[3];
	double rtol, atol;
} TCase;

#include "cases.h"

/* Compares a float result with the rule of `ingot check`; other types bytewise. */
static void compare(const TCase *tc, const void *got)
{
	const TTensor *e = &tc->out[0];
	check_output(tc->name, -1, e->dtype, got, e->data, e->bytes, tc->rtol, tc->atol);
}

static void fill_raw(RawAttr *raw, const TAttr *a)
{
	memset(raw, 0, sizeof *raw);
	raw->name = a->name;
	raw->kind = a->kind;
	raw->i = a->i;
	raw->f = a->f;
	raw->s = a->s;
}

static void run_case(const TCase *tc)
{
	Graph g;
	DiagSink d;
	ValueId in[4], out[1];
	RawAttr raw[3];
	const void *bufs_in[4];
	void *got, *split;
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
	out[0] = ir_value_new(&g, 0, "out0", NULL);
	for (int i = 0; i < tc->n_attr; i++)
		fill_raw(&raw[i], &tc->attrs[i]);
	NodeId n = ir_node_new(&g, 0, tc->op, tc->opset, in, tc->n_in, out, 1, tc->name);
	if (ops_import_attrs(&g, n, raw, tc->n_attr, &d) || ops_infer_node(&g, n, &d)) {
		CHECK(0, "%s: import/infer failed", tc->name);
		diag_print_all(&d, stderr);
		goto done;
	}
	const TTensor *e = &tc->out[0];
	Type want = type_make((DType)e->dtype, e->rank, e->dims);
	char b1[128], b2[128];
	CHECK(type_equal(&g.values[out[0]].type, &want), "%s: output type %s, expected %s",
	      tc->name, type_format(&g.values[out[0]].type, b1, sizeof b1),
	      type_format(&want, b2, sizeof b2));
	for (int i = 0; i < tc->n_in; i++) {
		void *b = malloc((size_t)tc->in[i].bytes + 1);
		memcpy(b, tc->in[i].data, (size_t)tc->in[i].bytes);
		bufs_in[i] = b;
	}
	got = calloc(1, (size_t)e->bytes + 1);
	split = calloc(1, (size_t)e->bytes + 1);
	void *bufs_out[1] = { got };
	CHECK(ops_run_node(&g, n, bufs_in, bufs_out) == 0, "%s: kernel failed", tc->name);
	compare(tc, got);

	/* the same call split into 3 tasks gives identical bytes; compile-time inputs are
	 * NULL there, as in generated code */
	LowerCtx lc;
	memset(&lc, 0, sizeof lc);
	lc.g = &g;
	lc.node = n;
	CHECK(op_info(tc->op)->impl->lower(&lc) == 0, "%s: lower failed", tc->name);
	void *scratch = lc.kc.scratch_bytes > 0 ? calloc(1, (size_t)lc.kc.scratch_bytes) : NULL;
	const void *gen_in[4];
	for (int i = 0; i < tc->n_in; i++)
		gen_in[i] = (op_info(tc->op)->const_inputs >> i) & 1 ? NULL : bufs_in[i];
	void *split_out[1] = { split };
	for (int t = 0; t < 3; t++)
		CHECK(lc.kc.fn(lc.kc.params, gen_in, split_out, scratch, t, 3) == 0, "%s: task %d",
		      tc->name, t);
	CHECK(memcmp(got, split, (size_t)e->bytes) == 0, "%s: output differs when split into tasks",
	      tc->name);
	free(scratch);
	for (int i = 0; i < tc->n_in; i++)
		free((void *)bufs_in[i]);
	free(got);
	free(split);
done:
	diag_sink_free(&d);
	ir_graph_free(&g);
}

/* ---- error cases: each must fail with a diagnostic whose text contains `want` ---- */

typedef struct ErrIn { DType dt; int rank; int64_t dims[4]; bool is_const; const void *data; } ErrIn;

static void expect_error(const char *what, Op op, int opset, const ErrIn *ins, int n_in,
                         const TAttr *attrs, int n_attr, DiagCode code, const char *want)
{
	Graph g;
	DiagSink d;
	ValueId in[6], out;
	RawAttr raw[3];
	ir_graph_init(&g, "bad.onnx");
	diag_sink_init(&d, NULL);
	for (int i = 0; i < n_in; i++) {
		Type t = type_make(ins[i].dt, ins[i].rank, ins[i].dims);
		char name[16];
		snprintf(name, sizeof name, "x%d", i);
		if (ins[i].is_const)
			in[i] = ir_value_new_const(&g, 0, name, &t, ins[i].data);
		else
			in[i] = ir_value_new(&g, 0, name, &t);
	}
	out = ir_value_new(&g, 0, "y", NULL);
	for (int i = 0; i < n_attr; i++)
		fill_raw(&raw[i], &attrs[i]);
	NodeId n = ir_node_new(&g, 0, op, opset, in, n_in, &out, 1, what);
	int rc = ops_import_attrs(&g, n, raw, n_attr, &d);
	if (rc == 0)
		rc = ops_infer_node(&g, n, &d);
	CHECK(rc != 0, "%s: expected an error", what);
	CHECK(d.n_errors > 0 && diag_has_code(&d, code), "%s: expected diagnostic code %d", what, code);
	bool found = false;
	for (int i = 0; i < d.n_items; i++)
		found = found || strstr(d.items[i].text, want) != NULL;
	CHECK(found, "%s: no diagnostic mentions '%s'", what, want);
	if (!found || d.n_errors == 0)
		diag_print_all(&d, stderr);
	diag_sink_free(&d);
	ir_graph_free(&g);
}

static void error_cases(void)
{
	static const int64_t one = 1, three_vals[3] = { 0, 1, 2 };
	static const float depth0 = 0.0f;
	ErrIn f34 = { DT_F32, 2, { 3, 4 }, false, NULL }, f33 = { DT_F32, 2, { 3, 3 }, false, NULL };
	ErrIn i34 = { DT_I32, 2, { 3, 4 }, false, NULL }, u34 = { DT_U8, 2, { 3, 4 }, false, NULL };
	ErrIn f3 = { DT_F32, 1, { 3 }, false, NULL }, f5 = { DT_F32, 1, { 5 }, false, NULL };
	ErrIn axis_rt = { DT_I64, 0, { 0 }, false, NULL }, axis_c = { DT_I64, 0, { 0 }, true, &one };
	ErrIn axis_f = { DT_F32, 0, { 0 }, true, &depth0 };
	TAttr eq_bad = { "equation", RA_STRING, 0, 0, "ij,jk->ik;" };
	TAttr eq_mm = { "equation", RA_STRING, 0, 0, "ij,jk->ik" };
	TAttr eq_out = { "equation", RA_STRING, 0, 0, "ij->iz" };
	TAttr eq_dots = { "equation", RA_STRING, 0, 0, "i..j->ij" };
	TAttr eq_five = { "equation", RA_STRING, 0, 0, "a,a,a,a,a->a" };
	TAttr dir_up = { "direction", RA_STRING, 0, 0, "UP" };
	TAttr fmod2 = { "fmod", RA_INT, 2, 0, NULL };
	TAttr axis9 = { "axis", RA_INT, 9, 0, NULL };
	TAttr gelu_bad = { "approximate", RA_STRING, 0, 0, "erf" };

	expect_error("sin_int", OP_SIN, 7, &i34, 1, NULL, 0, DC_TYPE, "i32");
	expect_error("gelu_approx", OP_GELU, 20, &f34, 1, &gelu_bad, 1, DC_PARSE, "erf");
	ErrIn mix[2] = { f34, i34 };
	expect_error("mod_mixed", OP_MOD, 13, mix, 2, NULL, 0, DC_TYPE, "expected element type f32");
	expect_error("mod_fmod2", OP_MOD, 13, mix, 2, &fmod2, 1, DC_PARSE, "fmod");
	ErrIn bc[2] = { f34, f3 };
	expect_error("mod_bcast", OP_MOD, 13, bc, 2, NULL, 0, DC_SHAPE, "broadcastable");
	ErrIn ii[2] = { i34, i34 }, uu[2] = { u34, u34 };
	TAttr left = { "direction", RA_STRING, 0, 0, "LEFT" };
	expect_error("bitshift_signed", OP_BIT_SHIFT, 11, ii, 2, &left, 1, DC_TYPE, "i32");
	expect_error("bitshift_dir", OP_BIT_SHIFT, 11, uu, 2, &dir_up, 1, DC_PARSE, "UP");
	expect_error("bitshift_nodir", OP_BIT_SHIFT, 11, uu, 2, NULL, 0, DC_PARSE, "direction");
	ErrIn ff[2] = { f34, f34 }, bb[2] = { { DT_BOOL, 2, { 3, 4 }, false, NULL }, u34 };
	ErrIn iu[2] = { i34, u34 }, ibc[2] = { i34, { DT_I32, 1, { 3 }, false, NULL } };
	expect_error("bitwise_and_float", OP_BITWISE_AND, 18, ff, 2, NULL, 0, DC_TYPE, "f32");
	expect_error("bitwise_or_bool", OP_BITWISE_OR, 18, bb, 2, NULL, 0, DC_TYPE, "bool");
	expect_error("bitwise_xor_mixed", OP_BITWISE_XOR, 18, iu, 2, NULL, 0, DC_TYPE,
	             "expected element type i32");
	expect_error("bitwise_and_bcast", OP_BITWISE_AND, 18, ibc, 2, NULL, 0, DC_SHAPE,
	             "broadcastable");
	expect_error("bitwise_not_float", OP_BITWISE_NOT, 18, &f34, 1, NULL, 0, DC_TYPE, "f32");
	expect_error("prelu_slope", OP_PRELU, 16, bc, 2, NULL, 0, DC_SHAPE, "slope");
	ErrIn big_slope[2] = { f3, f34 };
	expect_error("prelu_slope_bigger", OP_PRELU, 16, big_slope, 2, NULL, 0, DC_SHAPE, "slope");
	expect_error("hardmax_axis", OP_HARDMAX, 13, &f34, 1, &axis9, 1, DC_SHAPE, "out of range");
	expect_error("hardmax_int", OP_HARDMAX, 13, &i34, 1, NULL, 0, DC_TYPE, "i32");
	ErrIn cs_rt[2] = { f34, axis_rt };
	expect_error("cumsum_axis_runtime", OP_CUM_SUM, 14, cs_rt, 2, NULL, 0, DC_CONST_INPUT, "--bind");
	ErrIn cs_f[2] = { f34, axis_f };
	expect_error("cumsum_axis_float", OP_CUM_SUM, 14, cs_f, 2, NULL, 0, DC_TYPE, "f32");
	ErrIn cs_bool[2] = { { DT_BOOL, 1, { 3 }, false, NULL }, axis_c };
	expect_error("cumsum_bool", OP_CUM_SUM, 14, cs_bool, 2, NULL, 0, DC_TYPE, "bool");
	expect_error("det_square", OP_DET, 11, &f34, 1, NULL, 0, DC_SHAPE, "square");
	expect_error("det_rank", OP_DET, 11, &f3, 1, NULL, 0, DC_SHAPE, "rank");
	expect_error("det_int", OP_DET, 11, &i34, 1, NULL, 0, DC_TYPE, "i32");
	ErrIn mm[2] = { f34, f33 };
	expect_error("einsum_syntax", OP_EINSUM, 12, mm, 2, &eq_bad, 1, DC_PARSE, "unexpected");
	expect_error("einsum_dots", OP_EINSUM, 12, &f34, 1, &eq_dots, 1, DC_PARSE, "ellipsis");
	expect_error("einsum_extent", OP_EINSUM, 12, mm, 2, &eq_mm, 1, DC_SHAPE, "extent");
	expect_error("einsum_terms", OP_EINSUM, 12, &f34, 1, &eq_mm, 1, DC_SHAPE, "input terms");
	expect_error("einsum_rank", OP_EINSUM, 12, &f3, 1, &eq_out, 1, DC_SHAPE, "rank 1");
	expect_error("einsum_out_label", OP_EINSUM, 12, &f34, 1, &eq_out, 1, DC_SHAPE, "'z'");
	ErrIn five[5] = { f5, f5, f5, f5, f5 };
	expect_error("einsum_operands", OP_EINSUM, 12, five, 5, &eq_five, 1, DC_UNSUPPORTED,
	             "at most 4");
	ErrIn mixed[2] = { f34, { DT_F64, 2, { 4, 3 }, false, NULL } };
	expect_error("einsum_dtype", OP_EINSUM, 12, mixed, 2, &eq_mm, 1, DC_TYPE, "f64");
	expect_error("trilu_rank", OP_TRILU, 14, &f3, 1, NULL, 0, DC_SHAPE, "rank");
	ErrIn tk_rt[2] = { f34, axis_rt };
	expect_error("trilu_k_runtime", OP_TRILU, 14, tk_rt, 2, NULL, 0, DC_CONST_INPUT, "--bind");
	expect_error("eyelike_rank", OP_EYE_LIKE, 9, &f3, 1, NULL, 0, DC_SHAPE, "2-D");
	ErrIn oh3[3] = { i34, { DT_I64, 0, { 0 }, true, &one },
	                 { DT_I64, 1, { 3 }, false, NULL } };
	expect_error("onehot_values", OP_ONE_HOT, 11, oh3, 3, NULL, 0, DC_SHAPE, "off_value");
	ErrIn oh0[3] = { i34, { DT_F32, 0, { 0 }, true, &depth0 }, { DT_F32, 1, { 2 }, false, NULL } };
	expect_error("onehot_depth0", OP_ONE_HOT, 11, oh0, 3, NULL, 0, DC_SHAPE, "positive");
	ErrIn ohrt[3] = { i34, axis_rt, { DT_F32, 1, { 2 }, false, NULL } };
	expect_error("onehot_depth_runtime", OP_ONE_HOT, 11, ohrt, 3, NULL, 0, DC_CONST_INPUT, "--bind");
	ErrIn ohax[3] = { i34, { DT_I64, 1, { 1 }, true, &one }, { DT_F32, 1, { 2 }, false, NULL } };
	expect_error("onehot_axis", OP_ONE_HOT, 11, ohax, 3, &axis9, 1, DC_SHAPE, "out of range");
	ErrIn ohlong[3] = { i34, { DT_I64, 1, { 3 }, true, three_vals },
	                    { DT_F32, 1, { 2 }, false, NULL } };
	expect_error("onehot_depth_list", OP_ONE_HOT, 11, ohlong, 3, NULL, 0, DC_SHAPE, "scalar");
}

int main(void)
{
	for (int i = 0; i < COUNTOF(cases); i++)
		run_case(&cases[i]);
	error_cases();
	printf("arith: %d reference cases, error cases\n", COUNTOF(cases));
	return harness_done("arith");
}
