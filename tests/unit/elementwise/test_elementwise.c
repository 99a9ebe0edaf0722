/* test_elementwise.c — unit tests of the elementwise op groups: each case builds a
 * one-node graph, imports attributes, infers types and runs the reference kernel,
 * comparing with values computed by numpy (comments give the expressions). */
#include "opimpl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "elementwise.h"

#include "../harness.h"

/* One input of a test node: type, data, and whether it is a graph constant. */
typedef struct TIn {
	DType dt;
	int rank;
	int64_t dims[IR_MAX_RANK];
	const void *data;
	bool is_const;
} TIn;

typedef struct Run {
	Graph g;
	DiagSink d;
	NodeId node;
	int rc;                 /* -1: import or infer failed; else the kernel's status */
	void *out[4];
	Type out_type[4];
} Run;

/* Builds, infers and runs a node. slot dt == DT_UNDEF means an omitted input. */
static void run(Run *r, Op op, int opset, const TIn *ins, int n_in, int n_out,
                const RawAttr *raw, int n_raw)
{
	ValueId in[8], out[4];
	const void *in_data[8];
	memset(r, 0, sizeof *r);
	ir_graph_init(&r->g, "test.onnx");
	diag_sink_init(&r->d, NULL);
	for (int i = 0; i < n_in; i++) {
		char name[16];
		in_data[i] = ins[i].data;
		if (ins[i].dt == DT_UNDEF) {
			in[i] = IR_NONE;
			continue;
		}
		Type t = type_make(ins[i].dt, ins[i].rank, ins[i].dims);
		snprintf(name, sizeof name, "x%d", i);
		in[i] = ins[i].is_const ? ir_value_new_const(&r->g, 0, name, &t, ins[i].data)
		                        : ir_value_new(&r->g, 0, name, &t);
		if (!ins[i].is_const)
			ir_region_add_input(&r->g, 0, in[i]);
	}
	for (int i = 0; i < n_out; i++) {
		char name[16];
		Type t = type_make(DT_UNDEF, 0, NULL);
		snprintf(name, sizeof name, "y%d", i);
		out[i] = ir_value_new(&r->g, 0, name, &t);
	}
	r->node = ir_node_new(&r->g, 0, op, opset, in, n_in, out, n_out, "n0");
	r->rc = -1;
	if (ops_import_attrs(&r->g, r->node, raw, n_raw, &r->d) ||
	    ops_infer_node(&r->g, r->node, &r->d))
		return;
	for (int i = 0; i < n_out; i++) {
		r->out_type[i] = r->g.values[out[i]].type;
		r->out[i] = calloc(1, (size_t)type_bytes(&r->out_type[i]) + 1);
	}
	r->rc = ops_run_node(&r->g, r->node, in_data, r->out);
}

static void done(Run *r)
{
	for (int i = 0; i < 4; i++)
		free(r->out[i]);
	diag_sink_free(&r->d);
	ir_graph_free(&r->g);
}

static bool has_code(Run *r, DiagCode code)
{
	return r->rc == -1 && diag_has_code(&r->d, code);
}

static bool near(double got, double want, double tol)
{
	if (isnan(want))
		return isnan(got);
	return fabs(got - want) <= tol * (1 + fabs(want));
}

static TIn tin(DType dt, int rank, const int64_t *dims, const void *data)
{
	TIn t;
	memset(&t, 0, sizeof t);
	t.dt = dt;
	t.rank = rank;
	if (rank)
		memcpy(t.dims, dims, (size_t)rank * sizeof *dims);
	t.data = data;
	return t;
}

static const int64_t D6[] = { 6 }, D3[] = { 3 }, D2x3[] = { 2, 3 }, D2x1[] = { 2, 1 },
	D1x3[] = { 1, 3 }, D4[] = { 4 }, D2[] = { 2 };

/* ---- unary ---- */

static void test_unary_f32(void)
{
	static const float x[6] = { -2, -0.5f, 0, 0.5f, 2, 3 };
	/* numpy in float32, e.g. ELU: where(x<0, exp(x)-1, x); SELU with the spec's constants */
	static const struct { Op op; float y[6]; } cases[] = {
		{ OP_ABS, { 2, 0.5f, 0, 0.5f, 2, 3 } },
		{ OP_CEIL, { -2, -0.0f, 0, 1, 2, 3 } },
		{ OP_ELU, { -0.864664733f, -0.393469334f, 0, 0.5f, 2, 3 } },
		{ OP_ERF, { -0.995322287f, -0.520499885f, 0, 0.520499885f, 0.995322287f, 0.999977887f } },
		{ OP_EXP, { 0.135335281f, 0.606530666f, 1, 1.64872122f, 7.38905573f, 20.085537f } },
		{ OP_FLOOR, { -2, -1, 0, 0, 2, 3 } },
		{ OP_HARD_SIGMOID, { 0.099999994f, 0.400000006f, 0.5f, 0.600000024f, 0.899999976f, 1 } },
		{ OP_HARD_SWISH, { -0.333333313f, -0.208333328f, 0, 0.291666657f, 1.66666675f, 3 } },
		{ OP_LEAKY_RELU, { -0.0199999996f, -0.00499999989f, 0, 0.5f, 2, 3 } },
		{ OP_NEG, { 2, 0.5f, -0.0f, -0.5f, -2, -3 } },
		{ OP_RELU, { 0, 0, 0, 0.5f, 2, 3 } },
		{ OP_SELU, { -1.52016652f, -0.691758215f, 0, 0.525350511f, 2.10140204f, 3.15210295f } },
		{ OP_SIGMOID, { 0.119202934f, 0.377540678f, 0.5f, 0.622459352f, 0.880797029f,
		                0.952574134f } },
		{ OP_SOFTPLUS, { 0.126928046f, 0.474076986f, 0.693147182f, 0.974076986f, 2.12692785f,
		                 3.04858732f } },
		{ OP_SOFTSIGN, { -0.666666687f, -0.333333343f, 0, 0.333333343f, 0.666666687f, 0.75f } },
		{ OP_TANH, { -0.964027584f, -0.462117195f, 0, 0.462117195f, 0.964027584f,
		             0.995054781f } },
	};
	for (int c = 0; c < COUNTOF(cases); c++) {
		Run r;
		TIn in = tin(DT_F32, 1, D6, x);
		run(&r, cases[c].op, 17, &in, 1, 1, NULL, 0);
		CHECK(r.rc == 0);
		if (r.rc == 0) {
			for (int i = 0; i < 6; i++)
				CHECK(near(((float *)r.out[0])[i], cases[c].y[i], 1e-6), "%s[%d] = %g, want %g",
				      ir_op_name(cases[c].op), i, (double)((float *)r.out[0])[i],
				      (double)cases[c].y[i]);
		}
		done(&r);
	}
	/* positive-domain ops; log, sqrt, reciprocal of [0.25, 0.5, 1, 2, 4, 9] */
	static const float p[6] = { 0.25f, 0.5f, 1, 2, 4, 9 };
	static const struct { Op op; float y[6]; } pos[] = {
		{ OP_SQRT, { 0.5f, 0.70710677f, 1, 1.4142135f, 2, 3 } },
		{ OP_LOG, { -1.3862944f, -0.6931472f, 0, 0.6931472f, 1.3862944f, 2.1972246f } },
		{ OP_RECIPROCAL, { 4, 2, 1, 0.5f, 0.25f, 0.11111111f } },
	};
	for (int c = 0; c < COUNTOF(pos); c++) {
		Run r;
		TIn in = tin(DT_F32, 1, D6, p);
		run(&r, pos[c].op, 13, &in, 1, 1, NULL, 0);
		CHECK(r.rc == 0);
		for (int i = 0; r.rc == 0 && i < 6; i++)
			CHECK(near(((float *)r.out[0])[i], pos[c].y[i], 1e-6));
		done(&r);
	}
}

static void test_unary_attrs_and_types(void)
{
	Run r;
	/* LeakyRelu alpha=0.1 on f64: [-2, 3] -> [-0.2, 3] */
	static const double xd[2] = { -2, 3 };
	RawAttr alpha = { .name = "alpha", .kind = RA_FLOAT, .f = 0.1f };
	TIn in = tin(DT_F64, 1, D2, xd);
	run(&r, OP_LEAKY_RELU, 16, &in, 1, 1, &alpha, 1);
	CHECK(r.rc == 0 && near(((double *)r.out[0])[0], -0.2, 1e-7) &&
	      ((double *)r.out[0])[1] == 3);
	done(&r);

	/* Exp on f16: exp([0, 1]) = [1, 2.71875 (f16)] */
	uint16_t h[2] = { ingot_f32_to_f16(0), ingot_f32_to_f16(1) };
	in = tin(DT_F16, 1, D2, h);
	run(&r, OP_EXP, 13, &in, 1, 1, NULL, 0);
	CHECK(r.rc == 0 && r.out_type[0].dtype == DT_F16);
	CHECK(r.rc == 0 && ingot_f16_to_f32(((uint16_t *)r.out[0])[0]) == 1.0f &&
	      near(ingot_f16_to_f32(((uint16_t *)r.out[0])[1]), 2.71828, 1e-3));
	done(&r);

	/* Abs on bf16 */
	uint16_t b[2] = { ingot_f32_to_bf16(-1.5f), ingot_f32_to_bf16(2) };
	in = tin(DT_BF16, 1, D2, b);
	run(&r, OP_ABS, 13, &in, 1, 1, NULL, 0);
	CHECK(r.rc == 0 && ingot_bf16_to_f32(((uint16_t *)r.out[0])[0]) == 1.5f);
	done(&r);

	/* Abs int8 [-128, -3, 5] -> [-128 (wraps, as numpy), 3, 5] */
	static const int8_t i8[3] = { -128, -3, 5 };
	in = tin(DT_I8, 1, D3, i8);
	run(&r, OP_ABS, 13, &in, 1, 1, NULL, 0);
	CHECK(r.rc == 0 && ((int8_t *)r.out[0])[0] == -128 && ((int8_t *)r.out[0])[1] == 3 &&
	      ((int8_t *)r.out[0])[2] == 5);
	done(&r);

	/* Neg int32 [INT32_MIN, -7, 7] -> [INT32_MIN, 7, -7]; Relu int64 */
	static const int32_t i32[3] = { INT32_MIN, -7, 7 };
	in = tin(DT_I32, 1, D3, i32);
	run(&r, OP_NEG, 13, &in, 1, 1, NULL, 0);
	CHECK(r.rc == 0 && ((int32_t *)r.out[0])[0] == INT32_MIN &&
	      ((int32_t *)r.out[0])[1] == 7 && ((int32_t *)r.out[0])[2] == -7);
	done(&r);
	static const int64_t i64[3] = { -5, 0, 9 };
	in = tin(DT_I64, 1, D3, i64);
	run(&r, OP_RELU, 14, &in, 1, 1, NULL, 0);
	CHECK(r.rc == 0 && ((int64_t *)r.out[0])[0] == 0 && ((int64_t *)r.out[0])[2] == 9);
	done(&r);

	/* Abs of uint16 is the identity */
	static const uint16_t u16[2] = { 65535, 3 };
	in = tin(DT_U16, 1, D2, u16);
	run(&r, OP_ABS, 13, &in, 1, 1, NULL, 0);
	CHECK(r.rc == 0 && ((uint16_t *)r.out[0])[0] == 65535);
	done(&r);

	/* Not on bool (any nonzero byte is true) */
	static const uint8_t bl[3] = { 0, 1, 7 };
	in = tin(DT_BOOL, 1, D3, bl);
	run(&r, OP_NOT, 1, &in, 1, 1, NULL, 0);
	CHECK(r.rc == 0 && r.out_type[0].dtype == DT_BOOL);
	CHECK(r.rc == 0 && ((uint8_t *)r.out[0])[0] == 1 && ((uint8_t *)r.out[0])[1] == 0 &&
	      ((uint8_t *)r.out[0])[2] == 0);
	done(&r);

	/* errors: Not on f32, Exp on int32, Neg on uint8 */
	static const float f1[1] = { 1 };
	in = tin(DT_F32, 1, D2, f1);
	run(&r, OP_NOT, 1, &in, 1, 1, NULL, 0);
	CHECK(has_code(&r, DC_TYPE));
	done(&r);
	in = tin(DT_I32, 1, D3, i32);
	run(&r, OP_EXP, 13, &in, 1, 1, NULL, 0);
	CHECK(has_code(&r, DC_TYPE));
	done(&r);
	in = tin(DT_U8, 1, D3, bl);
	run(&r, OP_NEG, 13, &in, 1, 1, NULL, 0);
	CHECK(has_code(&r, DC_TYPE));
	done(&r);
}

/* ---- binary ---- */

static void test_binary(void)
{
	Run r;
	TIn in[2];

	/* Add f32 [2,3] + [3] */
	static const float a[6] = { 1, 2, 3, 4, 5, 6 }, b3[3] = { 10, 20, 30 };
	in[0] = tin(DT_F32, 2, D2x3, a);
	in[1] = tin(DT_F32, 1, D3, b3);
	run(&r, OP_ADD, 14, in, 2, 1, NULL, 0);
	CHECK(r.rc == 0 && r.out_type[0].rank == 2 && r.out_type[0].dims[1] == 3);
	static const float add[6] = { 11, 22, 33, 14, 25, 36 };
	CHECK(r.rc == 0 && memcmp(r.out[0], add, sizeof add) == 0);
	done(&r);

	/* Sub int8 wraps: [-128, 127] - [1, -1] = [127, -128] */
	static const int8_t sa[2] = { -128, 127 }, sb[2] = { 1, -1 };
	in[0] = tin(DT_I8, 1, D2, sa);
	in[1] = tin(DT_I8, 1, D2, sb);
	run(&r, OP_SUB, 14, in, 2, 1, NULL, 0);
	CHECK(r.rc == 0 && ((int8_t *)r.out[0])[0] == 127 && ((int8_t *)r.out[0])[1] == -128);
	done(&r);

	/* Div int32 truncates toward zero: [-7, 7, 5, INT32_MIN] / [2, -2, 0, -1]
	 * = [-3, -3, 0 (defined), INT32_MIN (wraps)] */
	static const int32_t da[4] = { -7, 7, 5, INT32_MIN }, db[4] = { 2, -2, 0, -1 };
	in[0] = tin(DT_I32, 1, D4, da);
	in[1] = tin(DT_I32, 1, D4, db);
	run(&r, OP_DIV, 14, in, 2, 1, NULL, 0);
	{
		const int32_t *o = r.out[0];
		CHECK(r.rc == 0 && o[0] == -3 && o[1] == -3 && o[2] == 0 && o[3] == INT32_MIN);
	}
	done(&r);

	/* Div uint8 (test_div_uint8): [16, 6, 0] / [11, 5, 23] = [1, 1, 0] */
	static const uint8_t ua[3] = { 16, 6, 0 }, ub[3] = { 11, 5, 23 };
	in[0] = tin(DT_U8, 1, D3, ua);
	in[1] = tin(DT_U8, 1, D3, ub);
	run(&r, OP_DIV, 14, in, 2, 1, NULL, 0);
	CHECK(r.rc == 0 && ((uint8_t *)r.out[0])[0] == 1 && ((uint8_t *)r.out[0])[1] == 1 &&
	      ((uint8_t *)r.out[0])[2] == 0);
	done(&r);

	/* Mul uint16 wraps: 300 * 300 = 90000 mod 65536 = 24464 */
	static const uint16_t ma[1] = { 300 };
	in[0] = tin(DT_U16, 0, NULL, ma);
	in[1] = tin(DT_U16, 0, NULL, ma);
	run(&r, OP_MUL, 14, in, 2, 1, NULL, 0);
	CHECK(r.rc == 0 && r.out_type[0].rank == 0 && ((uint16_t *)r.out[0])[0] == 24464);
	done(&r);

	/* Pow int64: [1,2,3] ** [4,5,6] = [1, 32, 729]; 2 ** -1 = 0 */
	static const int64_t pa[4] = { 1, 2, 3, 2 }, pb[4] = { 4, 5, 6, -1 };
	in[0] = tin(DT_I64, 1, D4, pa);
	in[1] = tin(DT_I64, 1, D4, pb);
	run(&r, OP_POW, 15, in, 2, 1, NULL, 0);
	{
		const int64_t *o = r.out[0];
		CHECK(r.rc == 0 && o[0] == 1 && o[1] == 32 && o[2] == 729 && o[3] == 0);
	}
	done(&r);

	/* Pow int32 base, f32 exponent -> int32 [1, 32, 729] (test_pow_types_int32_float32) */
	static const int32_t pi[3] = { 1, 2, 3 };
	static const float pf[3] = { 4, 5, 6 };
	in[0] = tin(DT_I32, 1, D3, pi);
	in[1] = tin(DT_F32, 1, D3, pf);
	run(&r, OP_POW, 15, in, 2, 1, NULL, 0);
	CHECK(r.rc == 0 && r.out_type[0].dtype == DT_I32);
	CHECK(r.rc == 0 && ((int32_t *)r.out[0])[1] == 32 && ((int32_t *)r.out[0])[2] == 729);
	done(&r);

	/* Pow f32 base, uint64 exponent: [1.5, 2, -3] ** [2, 3, 3] = [2.25, 8, -27] */
	static const float pfa[3] = { 1.5f, 2, -3 };
	static const uint64_t pu[3] = { 2, 3, 3 };
	in[0] = tin(DT_F32, 1, D3, pfa);
	in[1] = tin(DT_U64, 1, D3, pu);
	run(&r, OP_POW, 15, in, 2, 1, NULL, 0);
	{
		const float *o = r.out[0];
		CHECK(r.rc == 0 && o[0] == 2.25f && o[1] == 8 && o[2] == -27);
	}
	done(&r);

	/* Greater f64 [2,1] vs [1,3] -> bool [2,3]: [[1,0,0],[1,1,0]] for a=[2,3], b=[1,2,3] */
	static const double ga[2] = { 2, 3 }, gb[3] = { 1, 2, 3 };
	in[0] = tin(DT_F64, 2, D2x1, ga);
	in[1] = tin(DT_F64, 2, D1x3, gb);
	run(&r, OP_GREATER, 13, in, 2, 1, NULL, 0);
	static const uint8_t gt[6] = { 1, 0, 0, 1, 1, 0 };
	CHECK(r.rc == 0 && r.out_type[0].dtype == DT_BOOL && r.out_type[0].dims[0] == 2 &&
	      r.out_type[0].dims[1] == 3);
	CHECK(r.rc == 0 && memcmp(r.out[0], gt, 6) == 0);
	done(&r);
	run(&r, OP_LESS_OR_EQUAL, 16, in, 2, 1, NULL, 0);
	static const uint8_t le[6] = { 0, 1, 1, 0, 0, 1 };
	CHECK(r.rc == 0 && memcmp(r.out[0], le, 6) == 0);
	done(&r);

	/* Equal on bool and And/Or/Xor: a=[0,0,1,1], b=[0,1,0,1] */
	static const uint8_t la[4] = { 0, 0, 1, 1 }, lb[4] = { 0, 1, 0, 1 };
	static const struct { Op op; uint8_t y[4]; } logic[] = {
		{ OP_EQUAL, { 1, 0, 0, 1 } }, { OP_AND, { 0, 0, 0, 1 } },
		{ OP_OR, { 0, 1, 1, 1 } }, { OP_XOR, { 0, 1, 1, 0 } },
	};
	in[0] = tin(DT_BOOL, 1, D4, la);
	in[1] = tin(DT_BOOL, 1, D4, lb);
	for (int c = 0; c < COUNTOF(logic); c++) {
		run(&r, logic[c].op, 13, in, 2, 1, NULL, 0);
		CHECK(r.rc == 0 && memcmp(r.out[0], logic[c].y, 4) == 0);
		done(&r);
	}

	/* Equal int16 broadcast scalar */
	static const int16_t ea[3] = { 5, -5, 5 }, eb[1] = { 5 };
	in[0] = tin(DT_I16, 1, D3, ea);
	in[1] = tin(DT_I16, 0, NULL, eb);
	run(&r, OP_EQUAL, 13, in, 2, 1, NULL, 0);
	CHECK(r.rc == 0 && ((uint8_t *)r.out[0])[0] == 1 && ((uint8_t *)r.out[0])[1] == 0);
	done(&r);

	/* legacy opset 6 broadcast: A [2,3,2] + B [3] with axis=1 */
	static const float la3[12] = { 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1 };
	static const int64_t D2x3x2[] = { 2, 3, 2 };
	RawAttr leg[2] = { { .name = "broadcast", .kind = RA_INT, .i = 1 },
	                   { .name = "axis", .kind = RA_INT, .i = 1 } };
	in[0] = tin(DT_F32, 3, D2x3x2, la3);
	in[1] = tin(DT_F32, 1, D3, b3);
	run(&r, OP_ADD, 6, in, 2, 1, leg, 2);
	static const float legy[12] = { 10, 10, 20, 20, 30, 30, 11, 11, 21, 21, 31, 31 };
	CHECK(r.rc == 0 && r.out_type[0].rank == 3 && memcmp(r.out[0], legy, sizeof legy) == 0);
	done(&r);
	/* legacy without axis: suffix match, A [2,3] + B [3] */
	in[0] = tin(DT_F32, 2, D2x3, a);
	run(&r, OP_MUL, 6, in, 2, 1, leg, 1);
	CHECK(r.rc == 0 && ((float *)r.out[0])[5] == 180);
	done(&r);
	/* legacy axis that does not fit: error */
	in[0] = tin(DT_F32, 3, D2x3x2, la3);
	leg[1].i = 2;
	run(&r, OP_ADD, 6, in, 2, 1, leg, 2);
	CHECK(r.rc == -1 && r.d.n_errors > 0);
	done(&r);

	/* errors: mixed dtypes, incompatible shapes, And on ints */
	in[0] = tin(DT_F32, 1, D3, b3);
	in[1] = tin(DT_I32, 1, D3, pi);
	run(&r, OP_ADD, 14, in, 2, 1, NULL, 0);
	CHECK(has_code(&r, DC_TYPE));
	done(&r);
	in[0] = tin(DT_F32, 2, D2x3, a);
	in[1] = tin(DT_F32, 1, D2, a);
	run(&r, OP_MUL, 14, in, 2, 1, NULL, 0);
	CHECK(has_code(&r, DC_SHAPE));
	done(&r);
	in[0] = tin(DT_I32, 1, D3, pi);
	in[1] = tin(DT_I32, 1, D3, pi);
	run(&r, OP_AND, 7, in, 2, 1, NULL, 0);
	CHECK(has_code(&r, DC_TYPE));
	done(&r);
}

/* Runs a lowered node split over n_tasks tasks, to check that tasks tile the output. */
static int run_tasks(Graph *g, NodeId id, const void *const *in, void *const *out, int n_tasks)
{
	LowerCtx lc;
	memset(&lc, 0, sizeof lc);
	lc.g = g;
	lc.node = id;
	if (op_info(g->nodes[id].op)->impl->lower(&lc))
		return -1;
	for (int t = 0; t < n_tasks; t++) {
		int rc = lc.kc.fn(lc.kc.params, in, out, NULL, t, n_tasks);
		if (rc)
			return rc;
	}
	return 0;
}

static void test_broadcast_large(void)
{
	/* [3,1,70] - [5,1]: output [3,5,70], runs of 70 cross chunk and task borders */
	enum { A = 3 * 70, B = 5, N = 3 * 5 * 70 };
	static float xa[A], xb[B], y[N];
	static const int64_t da[] = { 3, 1, 70 }, db[] = { 5, 1 };
	for (int i = 0; i < A; i++)
		xa[i] = (float)i;
	for (int i = 0; i < B; i++)
		xb[i] = (float)(1000 * i);
	for (int n_tasks = 1; n_tasks <= 4; n_tasks += 3) {
		Run r;
		TIn in[2] = { tin(DT_F32, 3, da, xa), tin(DT_F32, 2, db, xb) };
		run(&r, OP_SUB, 14, in, 2, 1, NULL, 0);
		CHECK(r.rc == 0 && type_numel(&r.out_type[0]) == N);
		const void *ins[2] = { xa, xb };
		void *outs[1] = { y };
		memset(y, 0, sizeof y);
		CHECK(run_tasks(&r.g, r.node, ins, outs, n_tasks) == 0);
		int bad = 0;
		for (int i = 0; i < 3; i++)
			for (int j = 0; j < 5; j++)
				for (int k = 0; k < 70; k++)
					bad += y[(i * 5 + j) * 70 + k] != xa[i * 70 + k] - xb[j];
		CHECK(bad == 0);
		done(&r);
	}
}

/* Long contiguous runs computed in place (f32, i64) and through chunk buffers (f16),
 * split over tasks; variadic results ping-pong between buffers across chunks. */
static void test_long_runs(void)
{
	enum { N = 1000 };
	static float fa[N], fb[N], fc[N], fy[N];
	static int64_t ia[N], ib[N], iy[N];
	static uint16_t ha[N], hy[N];
	static const int64_t dn[] = { N };
	for (int i = 0; i < N; i++) {
		fa[i] = (float)i;
		fb[i] = (float)(2 * i);
		fc[i] = (float)(N - i);
		ia[i] = i - 500;
		ib[i] = 3 * (i % 7);
		ha[i] = ingot_f32_to_f16((float)(i % 50));
	}
	Run r;
	TIn in[3] = { tin(DT_F32, 1, dn, fa), tin(DT_F32, 1, dn, fb), tin(DT_F32, 1, dn, fc) };
	const void *ins[3] = { fa, fb, fc };
	void *outs[1] = { fy };
	int bad = 0;

	run(&r, OP_MUL, 14, in, 2, 1, NULL, 0);
	CHECK(run_tasks(&r.g, r.node, ins, outs, 3) == 0);
	for (int i = 0; i < N; i++)
		bad += fy[i] != fa[i] * fb[i];
	done(&r);
	run(&r, OP_SUM, 13, in, 3, 1, NULL, 0);      /* sum = 3 i + N - i */
	CHECK(run_tasks(&r.g, r.node, ins, outs, 2) == 0);
	for (int i = 0; i < N; i++)
		bad += fy[i] != (float)(2 * i + N);
	done(&r);
	run(&r, OP_MEAN, 13, in, 3, 1, NULL, 0);
	CHECK(run_tasks(&r.g, r.node, ins, outs, 1) == 0);
	for (int i = 0; i < N; i++)
		bad += !near(fy[i], (2.0 * i + N) / 3, 1e-6);
	done(&r);
	CHECK(bad == 0);

	/* Min of i64 with a broadcast scalar: min(i - 500, 3 (i % 7), 0) */
	static const int64_t zero[1] = { 0 };
	in[0] = tin(DT_I64, 1, dn, ia);
	in[1] = tin(DT_I64, 1, dn, ib);
	in[2] = tin(DT_I64, 0, NULL, zero);
	const void *iins[3] = { ia, ib, zero };
	void *iouts[1] = { iy };
	run(&r, OP_MIN, 13, in, 3, 1, NULL, 0);
	CHECK(run_tasks(&r.g, r.node, iins, iouts, 3) == 0);
	bad = 0;
	for (int i = 0; i < N; i++) {
		int64_t m = ia[i] < ib[i] ? ia[i] : ib[i];
		bad += iy[i] != (m < 0 ? m : 0);
	}
	CHECK(bad == 0);
	done(&r);

	/* Relu on f16 through chunk buffers: values stay exact */
	in[0] = tin(DT_F16, 1, dn, ha);
	const void *hins[1] = { ha };
	void *houts[1] = { hy };
	run(&r, OP_RELU, 14, in, 1, 1, NULL, 0);
	CHECK(run_tasks(&r.g, r.node, hins, houts, 3) == 0);
	CHECK(memcmp(ha, hy, sizeof ha) == 0);
	done(&r);
}

/* ---- variadic ---- */

static void test_variadic(void)
{
	Run r;
	TIn in[3];
	/* Max int16 of [3] , [2,1], scalar: max([1,5,-3], [[4],[0]], 2) = [[4,5,4],[2,5,2]] */
	static const int16_t m0[3] = { 1, 5, -3 }, m1[2] = { 4, 0 }, m2[1] = { 2 };
	in[0] = tin(DT_I16, 1, D3, m0);
	in[1] = tin(DT_I16, 2, D2x1, m1);
	in[2] = tin(DT_I16, 0, NULL, m2);
	run(&r, OP_MAX, 13, in, 3, 1, NULL, 0);
	static const int16_t mx[6] = { 4, 5, 4, 2, 5, 2 };
	CHECK(r.rc == 0 && r.out_type[0].rank == 2 && memcmp(r.out[0], mx, sizeof mx) == 0);
	done(&r);
	run(&r, OP_MIN, 13, in, 3, 1, NULL, 0);
	static const int16_t mn[6] = { 1, 2, -3, 0, 0, -3 };
	CHECK(r.rc == 0 && memcmp(r.out[0], mn, sizeof mn) == 0);
	done(&r);

	/* Max/Min uint64 near the top */
	static const uint64_t u0[2] = { UINT64_MAX, 1 }, u1[2] = { 2, 3 };
	in[0] = tin(DT_U64, 1, D2, u0);
	in[1] = tin(DT_U64, 1, D2, u1);
	run(&r, OP_MAX, 13, in, 2, 1, NULL, 0);
	CHECK(r.rc == 0 && ((uint64_t *)r.out[0])[0] == UINT64_MAX && ((uint64_t *)r.out[0])[1] == 3);
	done(&r);

	/* Mean f32 [3,2,1] & [1,2,3] -> [2,2,2]; Sum f64 one input is a copy */
	static const float f0[3] = { 3, 2, 1 }, f1[3] = { 1, 2, 3 };
	in[0] = tin(DT_F32, 1, D3, f0);
	in[1] = tin(DT_F32, 1, D3, f1);
	run(&r, OP_MEAN, 13, in, 2, 1, NULL, 0);
	CHECK(r.rc == 0 && ((float *)r.out[0])[0] == 2 && ((float *)r.out[0])[2] == 2);
	done(&r);
	static const double s0[3] = { 1.5, 2.5, -1 };
	in[0] = tin(DT_F64, 1, D3, s0);
	run(&r, OP_SUM, 13, in, 1, 1, NULL, 0);
	CHECK(r.rc == 0 && memcmp(r.out[0], s0, sizeof s0) == 0);
	done(&r);

	/* Max f16 propagates NaN: max([nan, 1], [0, 2]) = [nan, 2] */
	uint16_t h0[2] = { 0x7e00, ingot_f32_to_f16(1) }, h1[2] = { 0, ingot_f32_to_f16(2) };
	in[0] = tin(DT_F16, 1, D2, h0);
	in[1] = tin(DT_F16, 1, D2, h1);
	run(&r, OP_MAX, 13, in, 2, 1, NULL, 0);
	CHECK(r.rc == 0 && isnan(ingot_f16_to_f32(((uint16_t *)r.out[0])[0])) &&
	      ingot_f16_to_f32(((uint16_t *)r.out[0])[1]) == 2);
	done(&r);

	/* errors: Sum of ints, mixed dtypes */
	in[0] = tin(DT_I16, 1, D3, m0);
	run(&r, OP_SUM, 13, in, 1, 1, NULL, 0);
	CHECK(has_code(&r, DC_TYPE));
	done(&r);
	in[1] = tin(DT_F32, 1, D3, f0);
	run(&r, OP_MAX, 13, in, 2, 1, NULL, 0);
	CHECK(has_code(&r, DC_TYPE));
	done(&r);
}

/* ---- cast ---- */

static void test_cast(void)
{
	Run r;
	TIn in;
	RawAttr to = { .name = "to", .kind = RA_INT };
	static const float x[6] = { -1.7f, 2.9f, 0.5f, 3e10f, -3e10f, 0 };

	/* f32 -> i32: truncation; out-of-range saturates to int64 then wraps like numpy's
	 * int64 path: 3e10 -> 30000001024 mod 2^32 = -64771072 */
	to.i = DT_I32;
	in = tin(DT_F32, 1, D6, x);
	run(&r, OP_CAST, 13, &in, 1, 1, &to, 1);
	{
		const int32_t *o = r.out[0];
		CHECK(r.rc == 0 && r.out_type[0].dtype == DT_I32);
		CHECK(r.rc == 0 && o[0] == -1 && o[1] == 2 && o[2] == 0 && o[5] == 0);
	}
	done(&r);

	/* f32 -> u8: -1.7 -> -1 -> 255 */
	to.i = DT_U8;
	run(&r, OP_CAST, 13, &in, 1, 1, &to, 1);
	CHECK(r.rc == 0 && ((uint8_t *)r.out[0])[0] == 255 && ((uint8_t *)r.out[0])[1] == 2);
	done(&r);

	/* f32 -> bool: nonzero, 0.5 is true */
	to.i = DT_BOOL;
	run(&r, OP_CAST, 13, &in, 1, 1, &to, 1);
	static const uint8_t bl[6] = { 1, 1, 1, 1, 1, 0 };
	CHECK(r.rc == 0 && memcmp(r.out[0], bl, 6) == 0);
	done(&r);

	/* f32 -> f16 -> f64, f32 -> bf16 (round to nearest even) */
	to.i = DT_F16;
	run(&r, OP_CAST, 13, &in, 1, 1, &to, 1);
	CHECK(r.rc == 0 && ((uint16_t *)r.out[0])[3] == 0x7c00);   /* 3e10 overflows to inf */
	CHECK(r.rc == 0 && near(ingot_f16_to_f32(((uint16_t *)r.out[0])[0]), -1.7, 1e-3));
	uint16_t h[6];
	if (r.rc == 0)
		memcpy(h, r.out[0], sizeof h);
	done(&r);
	to.i = DT_F64;
	in = tin(DT_F16, 1, D6, h);
	run(&r, OP_CAST, 13, &in, 1, 1, &to, 1);
	CHECK(r.rc == 0 && ((double *)r.out[0])[0] == -1.7001953125 && isinf(((double *)r.out[0])[3]));
	done(&r);
	to.i = DT_BF16;
	in = tin(DT_F32, 1, D6, x);
	run(&r, OP_CAST, 13, &in, 1, 1, &to, 1);
	CHECK(r.rc == 0 && ((uint16_t *)r.out[0])[1] == ingot_f32_to_bf16(2.9f));
	done(&r);

	/* f64 -> i64 saturates, NaN -> 0 */
	static const double xd[3] = { 1e30, -1e30, NAN };
	to.i = DT_I64;
	in = tin(DT_F64, 1, D3, xd);
	run(&r, OP_CAST, 13, &in, 1, 1, &to, 1);
	{
		const int64_t *o = r.out[0];
		CHECK(r.rc == 0 && o[0] == INT64_MAX && o[1] == INT64_MIN && o[2] == 0);
	}
	done(&r);

	/* i64 -> i8 wraps; bool -> f32; u64 -> f64 */
	static const int64_t xi[3] = { 300, -129, 5 };
	to.i = DT_I8;
	in = tin(DT_I64, 1, D3, xi);
	run(&r, OP_CAST, 13, &in, 1, 1, &to, 1);
	CHECK(r.rc == 0 && ((int8_t *)r.out[0])[0] == 44 && ((int8_t *)r.out[0])[1] == 127);
	done(&r);
	static const uint8_t xb[2] = { 0, 1 };
	to.i = DT_F32;
	in = tin(DT_BOOL, 1, D2, xb);
	run(&r, OP_CAST, 13, &in, 1, 1, &to, 1);
	CHECK(r.rc == 0 && ((float *)r.out[0])[0] == 0 && ((float *)r.out[0])[1] == 1);
	done(&r);
	static const uint64_t xu[1] = { UINT64_MAX };
	to.i = DT_F64;
	in = tin(DT_U64, 1, D2, xu);
	in.dims[0] = 1;
	run(&r, OP_CAST, 13, &in, 1, 1, &to, 1);
	CHECK(r.rc == 0 && ((double *)r.out[0])[0] == 18446744073709551616.0);
	done(&r);

	/* opset 1 spells the type as a string */
	RawAttr tos = { .name = "to", .kind = RA_STRING, .s = "INT16" };
	in = tin(DT_F32, 1, D6, x);
	run(&r, OP_CAST, 1, &in, 1, 1, &tos, 1);
	CHECK(r.rc == 0 && r.out_type[0].dtype == DT_I16 && ((int16_t *)r.out[0])[1] == 2);
	done(&r);

	/* to STRING: numpy's astype(str) text in INGOT_STRING_CAP slots; errors: bad `to`,
	 * missing `to` */
	to.i = DT_STRING;
	run(&r, OP_CAST, 13, &in, 1, 1, &to, 1);
	{
		const char *o = r.out[0];
		CHECK(r.rc == 0 && r.out_type[0].dtype == DT_STRING);
		CHECK(r.rc == 0 && strcmp(o, "-1.7") == 0 && strcmp(o + 3 * INGOT_STRING_CAP,
		      "30000000000.0") == 0 && strcmp(o + 5 * INGOT_STRING_CAP, "0.0") == 0);
	}
	done(&r);
	to.i = 99;
	run(&r, OP_CAST, 13, &in, 1, 1, &to, 1);
	CHECK(r.rc == -1 && r.d.n_errors == 1);
	done(&r);
	run(&r, OP_CAST, 13, &in, 1, 1, NULL, 0);
	CHECK(r.rc == -1 && r.d.n_errors == 1);
	done(&r);
}

/* ---- clip ---- */

static void test_clip(void)
{
	Run r;
	TIn in[3];
	static const float x[6] = { -3, -1, 0, 1, 3, NAN };

	/* opset 6: attributes min=-1.5, max=2 */
	RawAttr mm[2] = { { .name = "min", .kind = RA_FLOAT, .f = -1.5f },
	                  { .name = "max", .kind = RA_FLOAT, .f = 2 } };
	in[0] = tin(DT_F32, 1, D6, x);
	run(&r, OP_CLIP, 6, in, 1, 1, mm, 2);
	{
		const float *o = r.out[0];
		CHECK(r.rc == 0 && o[0] == -1.5f && o[1] == -1 && o[3] == 1 && o[4] == 2 && isnan(o[5]));
	}
	done(&r);
	/* opset 6 with only max */
	run(&r, OP_CLIP, 6, in, 1, 1, mm + 1, 1);
	CHECK(r.rc == 0 && ((float *)r.out[0])[0] == -3 && ((float *)r.out[0])[4] == 2);
	done(&r);

	/* opset 13 int8 with a run-time min input only (test_clip_default_int8_min) */
	static const int8_t xi[4] = { -100, -1, 0, 100 }, lo[1] = { 0 }, hi[1] = { 50 };
	in[0] = tin(DT_I8, 1, D4, xi);
	in[1] = tin(DT_I8, 0, NULL, lo);
	run(&r, OP_CLIP, 13, in, 2, 1, NULL, 0);
	{
		const int8_t *o = r.out[0];
		CHECK(r.rc == 0 && o[0] == 0 && o[1] == 0 && o[2] == 0 && o[3] == 100);
	}
	done(&r);
	/* omitted min, constant max */
	in[1] = tin(DT_UNDEF, 0, NULL, NULL);
	in[2] = tin(DT_I8, 0, NULL, hi);
	in[2].is_const = true;
	run(&r, OP_CLIP, 13, in, 3, 1, NULL, 0);
	CHECK(r.rc == 0 && ((int8_t *)r.out[0])[0] == -100 && ((int8_t *)r.out[0])[3] == 50);
	done(&r);
	/* min > max gives max everywhere (numpy.clip) */
	static const int8_t lo2[1] = { 60 };
	in[1] = tin(DT_I8, 0, NULL, lo2);
	run(&r, OP_CLIP, 13, in, 3, 1, NULL, 0);
	CHECK(r.rc == 0 && ((int8_t *)r.out[0])[0] == 50 && ((int8_t *)r.out[0])[2] == 50);
	done(&r);
	/* uint64 clip with bounds beyond double precision */
	static const uint64_t xu[2] = { UINT64_MAX, 0 }, hu[1] = { UINT64_MAX - 1 };
	in[0] = tin(DT_U64, 1, D2, xu);
	in[1] = tin(DT_UNDEF, 0, NULL, NULL);
	in[2] = tin(DT_U64, 0, NULL, hu);
	run(&r, OP_CLIP, 13, in, 3, 1, NULL, 0);
	CHECK(r.rc == 0 && ((uint64_t *)r.out[0])[0] == UINT64_MAX - 1);
	done(&r);

	/* errors: bound of another dtype, non-scalar bound, input on opset 6 */
	in[0] = tin(DT_F32, 1, D6, x);
	in[1] = tin(DT_I8, 0, NULL, lo);
	run(&r, OP_CLIP, 13, in, 2, 1, NULL, 0);
	CHECK(has_code(&r, DC_TYPE));
	done(&r);
	in[1] = tin(DT_F32, 1, D2, x);
	run(&r, OP_CLIP, 13, in, 2, 1, NULL, 0);
	CHECK(has_code(&r, DC_SHAPE));
	done(&r);
	in[1] = tin(DT_F32, 0, NULL, x);
	run(&r, OP_CLIP, 6, in, 2, 1, NULL, 0);
	CHECK(r.rc == -1 && r.d.n_errors == 1);
	done(&r);
}

/* ---- identity, dropout ---- */

static void test_identity(void)
{
	Run r;
	TIn in[3];
	static const int64_t xi[3] = { 1, -2, 3 };
	in[0] = tin(DT_I64, 1, D3, xi);
	run(&r, OP_IDENTITY, 16, in, 1, 1, NULL, 0);
	CHECK(r.rc == 0 && memcmp(r.out[0], xi, sizeof xi) == 0);
	done(&r);

	/* Dropout-13 with mask: y = x, mask all true */
	static const float x[3] = { 1, 2, 3 };
	in[0] = tin(DT_F32, 1, D3, x);
	run(&r, OP_DROPOUT, 13, in, 1, 2, NULL, 0);
	CHECK(r.rc == 0 && memcmp(r.out[0], x, sizeof x) == 0 && r.out_type[1].dtype == DT_BOOL);
	CHECK(r.rc == 0 && ((uint8_t *)r.out[1])[0] == 1 && ((uint8_t *)r.out[1])[2] == 1);
	done(&r);

	/* Dropout-7: mask has the input's type: ones */
	RawAttr ratio = { .name = "ratio", .kind = RA_FLOAT, .f = 0.2f };
	run(&r, OP_DROPOUT, 7, in, 1, 2, &ratio, 1);
	CHECK(r.rc == 0 && r.out_type[1].dtype == DT_F32 && ((float *)r.out[1])[1] == 1.0f);
	done(&r);

	/* Dropout-6 with is_test=0 (training) and ratio 0.2: random, y = x / 0.8 or 0 */
	run(&r, OP_DROPOUT, 6, in, 1, 1, &ratio, 1);
	CHECK(r.rc == 0);
	for (int i = 0; r.rc == 0 && i < 3; i++)
		CHECK(((float *)r.out[0])[i] == 0 || ((float *)r.out[0])[i] == x[i] * 1.25f);
	done(&r);

	/* Dropout-13 training_mode constant true, ratio absent (0.5): y = mask ? 2x : 0 */
	static const uint8_t t1[1] = { 1 };
	static const float r0[1] = { 0 }, r3[1] = { 0.3f }, r15[1] = { 1.5f };
	in[1] = tin(DT_UNDEF, 0, NULL, NULL);
	in[2] = tin(DT_BOOL, 0, NULL, t1);
	in[2].is_const = true;
	run(&r, OP_DROPOUT, 13, in, 3, 2, NULL, 0);
	CHECK(r.rc == 0);
	for (int i = 0; r.rc == 0 && i < 3; i++)
		CHECK(((float *)r.out[0])[i] == (((uint8_t *)r.out[1])[i] ? 2 * x[i] : 0.0f));
	done(&r);

	/* run-time training_mode true with run-time ratio 0: identity with a true mask
	 * (test_training_dropout_zero_ratio_mask); ratio 0.3: y = mask ? x / 0.7 : 0;
	 * ratio 1.5 at run time: the kernel refuses */
	in[1] = tin(DT_F32, 0, NULL, r0);
	in[2].is_const = false;
	run(&r, OP_DROPOUT, 13, in, 3, 2, NULL, 0);
	CHECK(r.rc == 0 && memcmp(r.out[0], x, sizeof x) == 0 && ((uint8_t *)r.out[1])[1] == 1);
	done(&r);
	in[1].data = r3;
	run(&r, OP_DROPOUT, 13, in, 3, 2, NULL, 0);
	CHECK(r.rc == 0);
	for (int i = 0; r.rc == 0 && i < 3; i++) {
		float y = ((float *)r.out[0])[i], want = (float)((double)x[i] / (1.0 - (double)r3[0]));
		CHECK(y == (((uint8_t *)r.out[1])[i] ? want : 0.0f));
	}
	done(&r);
	in[1].data = r15;
	run(&r, OP_DROPOUT, 13, in, 3, 1, NULL, 0);
	CHECK(r.rc == INGOT_EINVAL);
	done(&r);

	/* errors: training_mode not bool; ratio input on opset 7 */
	in[2] = tin(DT_F32, 0, NULL, r0);
	run(&r, OP_DROPOUT, 13, in, 3, 1, NULL, 0);
	CHECK(has_code(&r, DC_TYPE));
	done(&r);
	run(&r, OP_DROPOUT, 7, in, 2, 1, NULL, 0);
	CHECK(r.rc == -1 && r.d.n_errors == 1);
	done(&r);
}

/* ---- where ---- */

static void test_where(void)
{
	Run r;
	TIn in[3];
	/* where([[1],[0]], [1,2,3], 9) -> [[1,2,3],[9,9,9]] in int64 */
	static const uint8_t c[2] = { 1, 0 };
	static const int64_t x[3] = { 1, 2, 3 }, y[1] = { 9 };
	in[0] = tin(DT_BOOL, 2, D2x1, c);
	in[1] = tin(DT_I64, 1, D3, x);
	in[2] = tin(DT_I64, 0, NULL, y);
	run(&r, OP_WHERE, 16, in, 3, 1, NULL, 0);
	static const int64_t want[6] = { 1, 2, 3, 9, 9, 9 };
	CHECK(r.rc == 0 && r.out_type[0].dtype == DT_I64 && r.out_type[0].rank == 2 &&
	      memcmp(r.out[0], want, sizeof want) == 0);
	done(&r);

	/* f16 and bool payloads */
	static const uint16_t hx[3] = { 1, 2, 3 }, hy[3] = { 7, 8, 9 };
	static const uint8_t c3[3] = { 0, 1, 0 };
	in[0] = tin(DT_BOOL, 1, D3, c3);
	in[1] = tin(DT_F16, 1, D3, hx);
	in[2] = tin(DT_F16, 1, D3, hy);
	run(&r, OP_WHERE, 16, in, 3, 1, NULL, 0);
	static const uint16_t hw[3] = { 7, 2, 9 };
	CHECK(r.rc == 0 && memcmp(r.out[0], hw, sizeof hw) == 0);
	done(&r);
	in[1] = tin(DT_BOOL, 1, D3, c);
	in[2] = tin(DT_BOOL, 1, D3, c3);
	run(&r, OP_WHERE, 16, in, 3, 1, NULL, 0);
	CHECK(r.rc == 0 && ((uint8_t *)r.out[0])[0] == 0 && ((uint8_t *)r.out[0])[1] == 0);
	done(&r);

	/* errors: float condition, mismatched payloads */
	in[0] = tin(DT_F16, 1, D3, hx);
	run(&r, OP_WHERE, 16, in, 3, 1, NULL, 0);
	CHECK(has_code(&r, DC_TYPE));
	done(&r);
	in[0] = tin(DT_BOOL, 1, D3, c3);
	in[1] = tin(DT_I64, 1, D3, x);
	run(&r, OP_WHERE, 16, in, 3, 1, NULL, 0);
	CHECK(has_code(&r, DC_TYPE));
	done(&r);
}

int main(void)
{
	test_unary_f32();
	test_unary_attrs_and_types();
	test_binary();
	test_broadcast_large();
	test_long_runs();
	test_variadic();
	test_cast();
	test_clip();
	test_identity();
	test_where();
	return harness_done("elementwise");
}
