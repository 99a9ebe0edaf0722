/* test_shape_ops.c — unit tests of the shape and data-movement op groups: builds
 * one node at a time by hand, infers it, runs its kernel on arange inputs and
 * compares with results derived with numpy. Also checks the diagnostics of bad input. */
#include "opimpl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness.h"

static Graph g;
static DiagSink d;
static void *vdata[512];             /* run-time data of the non-constant inputs */

#define L(...) ((const int64_t[]){ __VA_ARGS__ })
#define N(...) (int)(sizeof((const int64_t[]){ __VA_ARGS__ }) / sizeof(int64_t))

static void reset(void)
{
	for (int i = 0; i < COUNTOF(vdata); i++) {
		free(vdata[i]);
		vdata[i] = NULL;
	}
	ir_graph_free(&g);
	diag_sink_free(&d);
	ir_graph_init(&g, "test.onnx");
	diag_sink_init(&d, NULL);
}

static void set_elem(DType dt, void *buf, int64_t i, int64_t v)
{
	Scalar s = scalar_from_f64(dt, (double)v);
	size_t es = dtype_size(dt);
	memcpy((char *)buf + (size_t)i * es, s.bytes, es);
}

static int64_t get_elem(DType dt, const void *buf, int64_t i)
{
	Scalar s;
	size_t es = dtype_size(dt);
	memset(&s, 0, sizeof s);
	s.dtype = dt;
	memcpy(s.bytes, (const char *)buf + (size_t)i * es, es);
	return (int64_t)scalar_to_f64(&s);
}

/* A graph input whose run-time data is 0, 1, 2, ... (bool: i % 2). */
static ValueId input(DType dt, int rank, const int64_t *dims)
{
	Type t = type_make(dt, rank, dims);
	ValueId v = ir_value_new(&g, 0, "x", &t);
	int64_t n = type_numel(&t);
	IR_ASSERT(v < COUNTOF(vdata));
	vdata[v] = calloc(1, (size_t)type_bytes(&t) + 1);
	for (int64_t i = 0; i < n; i++)
		set_elem(dt, vdata[v], i, dt == DT_BOOL ? i % 2 : i);
	ir_region_add_input(&g, 0, v);
	return v;
}

/* A constant of the given values. */
static ValueId cst(DType dt, int rank, const int64_t *dims, const int64_t *vals)
{
	Type t = type_make(dt, rank, dims);
	int64_t n = type_numel(&t);
	void *buf = calloc(1, (size_t)type_bytes(&t) + 1);
	for (int64_t i = 0; i < n; i++)
		set_elem(dt, buf, i, vals[i]);
	ValueId v = ir_value_new_const(&g, 0, "c", &t, buf);
	free(buf);
	return v;
}

/* A 1-D i64 constant, stored bit-exactly (INT64_MIN/MAX do not survive a double). */
static ValueId ints(int n, const int64_t *vals)
{
	Type t = type_make(DT_I64, 1, L(n));
	return ir_value_new_const(&g, 0, "c", &t, vals);
}

/* Adds, imports and infers a node; -1 when import or infer reports an error. */
static NodeId add(Op op, int opset, const ValueId *in, int n_in, int n_out, const RawAttr *ra,
                  int n_ra)
{
	ValueId out[8];
	for (int i = 0; i < n_out; i++)
		out[i] = ir_value_new(&g, 0, "y", NULL);
	NodeId n = ir_node_new(&g, 0, op, opset, in, n_in, out, n_out, "node");
	if (ops_import_attrs(&g, n, ra, n_ra, &d) || ops_infer_node(&g, n, &d))
		return -1;
	return n;
}

/* Runs node n; outputs are freshly allocated and pre-filled with 0x55. */
static int run(NodeId id, void **outs)
{
	Node *n = &g.nodes[id];
	const void *in[8];
	for (int i = 0; i < n->n_in; i++)
		in[i] = n->in[i] == IR_NONE ? NULL
		        : g.values[n->in[i]].is_const ? ir_const_data(&g, n->in[i]) : vdata[n->in[i]];
	for (int i = 0; i < n->n_out; i++) {
		size_t b = (size_t)type_bytes(&g.values[n->out[i]].type);
		outs[i] = malloc(b + 1);
		memset(outs[i], 0x55, b + 1);
	}
	return ops_run_node(&g, id, in, outs);
}

/* Checks output `slot` of node n against dtype, dims and values. */
static void expect(NodeId n, void **outs, int slot, DType dt, int rank, const int64_t *dims,
                   const int64_t *vals)
{
	const Type *t = &g.values[g.nodes[n].out[slot]].type;
	CHECK(t->dtype == dt);
	CHECK(t->rank == rank);
	if (t->dtype != dt || t->rank != rank)
		return;
	for (int k = 0; k < rank; k++)
		CHECK(t->dims[k] == dims[k]);
	int64_t cnt = type_numel(t);
	for (int64_t i = 0; i < cnt; i++) {
		int64_t want = dt == DT_BOOL ? vals[i] % 2 : vals[i];
		if (get_elem(dt, outs[slot], i) != want) {
			fprintf(stderr, "  output %d element %lld: got %lld, want %lld\n", slot,
			        (long long)i, (long long)get_elem(dt, outs[slot], i), (long long)want);
			CHECK(get_elem(dt, outs[slot], i) == want);
			break;
		}
	}
	/* the byte past the end is untouched */
	CHECK(((unsigned char *)outs[slot])[type_bytes(t)] == 0x55);
}

static void free_outs(void **outs, int n)
{
	for (int i = 0; i < n; i++)
		free(outs[i]);
}

/* Runs a 1-output node and checks it. */
static void run_expect(NodeId n, DType dt, int rank, const int64_t *dims, const int64_t *vals)
{
	void *outs[1];
	CHECK(n >= 0);
	if (n < 0)
		return;
	CHECK(run(n, outs) == 0);
	expect(n, outs, 0, dt, rank, dims, vals);
	free_outs(outs, 1);
}

static RawAttr ai(const char *name, int64_t v)
{
	RawAttr a;
	memset(&a, 0, sizeof a);
	a.name = name;
	a.kind = RA_INT;
	a.i = v;
	return a;
}

static RawAttr ais(const char *name, const int64_t *v, int n)
{
	RawAttr a;
	memset(&a, 0, sizeof a);
	a.name = name;
	a.kind = RA_INTS;
	a.ints = v;
	a.n = n;
	return a;
}

static bool last_diag_has(const char *text)
{
	return d.n_items > 0 && strstr(d.items[d.n_items - 1].text, text) != NULL;
}

static const int64_t ar24[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17,
                                18, 19, 20, 21, 22, 23 };
static const DType all_sizes[] = { DT_I64, DT_F32, DT_I16, DT_U8, DT_BOOL, DT_F16, DT_BF16,
                                   DT_F64, DT_I32 };

static void test_reshape(void)
{
	for (int k = 0; k < COUNTOF(all_sizes); k++) {
		DType dt = all_sizes[k];
		reset();
		ValueId in[2] = { input(dt, 3, L(2, 3, 4)), ints(3, L(4, 0, -1)) };
		run_expect(add(OP_RESHAPE, 14, in, 2, 1, NULL, 0), dt, 3, L(4, 3, 2), ar24);
	}
	/* allowzero: a 0 is a literal zero dim */
	reset();
	{
		ValueId in[2] = { input(DT_F32, 3, L(0, 3, 4)), ints(3, L(3, 4, 0)) };
		RawAttr a = ai("allowzero", 1);
		run_expect(add(OP_RESHAPE, 14, in, 2, 1, &a, 1), DT_F32, 3, L(3, 4, 0), ar24);
	}
	/* opset 1-4: the shape is an attribute */
	reset();
	{
		ValueId in[1] = { input(DT_F32, 2, L(4, 6)) };
		RawAttr a = ais("shape", L(-1, 12), 2);
		run_expect(add(OP_RESHAPE, 4, in, 1, 1, &a, 1), DT_F32, 2, L(2, 12), ar24);
	}
	/* bad: 24 elements do not fit 5 x -1 */
	reset();
	{
		ValueId in[2] = { input(DT_F32, 1, L(24)), ints(2, L(5, -1)) };
		CHECK(add(OP_RESHAPE, 13, in, 2, 1, NULL, 0) < 0);
		CHECK(last_diag_has("cannot infer the -1 dim"));
	}
	/* bad: a shape that is a graph input asks for --bind */
	reset();
	{
		ValueId in[2] = { input(DT_F32, 1, L(24)), input(DT_I64, 1, L(2)) };
		CHECK(add(OP_RESHAPE, 13, in, 2, 1, NULL, 0) < 0);
		CHECK(diag_has_code(&d, DC_CONST_INPUT));
		CHECK(last_diag_has("--bind"));
	}
}

static void test_flatten_squeeze(void)
{
	reset();
	{
		ValueId in[1] = { input(DT_U16, 3, L(2, 3, 4)) };
		RawAttr a = ai("axis", -1);
		run_expect(add(OP_FLATTEN, 13, in, 1, 1, &a, 1), DT_U16, 2, L(6, 4), ar24);
		RawAttr b = ai("axis", 0);
		run_expect(add(OP_FLATTEN, 13, in, 1, 1, &b, 1), DT_U16, 2, L(1, 24), ar24);
		run_expect(add(OP_FLATTEN, 13, in, 1, 1, NULL, 0), DT_U16, 2, L(2, 12), ar24);
		RawAttr e = ai("axis", 4);
		CHECK(add(OP_FLATTEN, 13, in, 1, 1, &e, 1) < 0);
	}
	reset();
	{
		ValueId x = input(DT_I8, 4, L(1, 3, 1, 4));
		ValueId in13[2] = { x, ints(1, L(-2)) };
		run_expect(add(OP_SQUEEZE, 13, in13, 2, 1, NULL, 0), DT_I8, 3, L(1, 3, 4), ar24);
		run_expect(add(OP_SQUEEZE, 13, &x, 1, 1, NULL, 0), DT_I8, 2, L(3, 4), ar24);
		RawAttr a = ais("axes", L(0), 1);
		run_expect(add(OP_SQUEEZE, 11, &x, 1, 1, &a, 1), DT_I8, 3, L(3, 1, 4), ar24);
		ValueId bad[2] = { x, ints(1, L(1)) };
		CHECK(add(OP_SQUEEZE, 13, bad, 2, 1, NULL, 0) < 0);
		CHECK(last_diag_has("cannot squeeze axis 1"));
	}
	reset();
	{
		ValueId x = input(DT_F32, 2, L(3, 4));
		ValueId in[2] = { x, ints(2, L(3, 0)) };
		run_expect(add(OP_UNSQUEEZE, 13, in, 2, 1, NULL, 0), DT_F32, 4, L(1, 3, 4, 1), ar24);
		RawAttr a = ais("axes", L(-1, 1), 2);
		run_expect(add(OP_UNSQUEEZE, 11, &x, 1, 1, &a, 1), DT_F32, 4, L(3, 1, 4, 1), ar24);
		ValueId dup[2] = { x, ints(2, L(1, -3)) };
		CHECK(add(OP_UNSQUEEZE, 13, dup, 2, 1, NULL, 0) < 0);
		CHECK(last_diag_has("twice"));
	}
}

static void test_transpose(void)
{
	static const int64_t t120[] = { 0, 12, 1, 13, 2, 14, 3, 15, 4, 16, 5, 17, 6, 18, 7, 19, 8,
	                                 20, 9, 21, 10, 22, 11, 23 };
	static const int64_t tdef[] = { 0, 12, 4, 16, 8, 20, 1, 13, 5, 17, 9, 21, 2, 14, 6, 18, 10,
	                                22, 3, 15, 7, 19, 11, 23 };
	for (int k = 0; k < COUNTOF(all_sizes); k++) {
		DType dt = all_sizes[k];
		reset();
		ValueId x = input(dt, 3, L(2, 3, 4));
		RawAttr a = ais("perm", L(1, 2, 0), 3);
		run_expect(add(OP_TRANSPOSE, 13, &x, 1, 1, &a, 1), dt, 3, L(3, 4, 2), t120);
		run_expect(add(OP_TRANSPOSE, 13, &x, 1, 1, NULL, 0), dt, 3, L(4, 3, 2), tdef);
		RawAttr b = ais("perm", L(0, 0, 1), 3);
		CHECK(add(OP_TRANSPOSE, 13, &x, 1, 1, &b, 1) < 0);
	}
	/* unit dims are dropped and contiguous dims merged: still the same result */
	reset();
	{
		ValueId x = input(DT_F32, 4, L(1, 2, 3, 4));
		RawAttr a = ais("perm", L(2, 3, 0, 1), 4);
		run_expect(add(OP_TRANSPOSE, 13, &x, 1, 1, &a, 1), DT_F32, 4, L(3, 4, 1, 2), t120);
	}
}

static void test_slice(void)
{
	static const int64_t s1[] = { 9, 10, 1, 2, 21, 22, 13, 14 };
	static const int64_t s2[] = { 5, 6, 9, 10, 17, 18, 21, 22 };
	static const int64_t s3[] = { 15, 12, 19, 16, 23, 20, 3, 0, 7, 4, 11, 8 };
	for (int k = 0; k < COUNTOF(all_sizes); k++) {
		DType dt = all_sizes[k];
		reset();
		ValueId x = input(dt, 3, L(2, 3, 4));
		/* x[:, 10:-10:-2, 1:3] */
		ValueId in[5] = { x, ints(2, L(10, 1)), ints(2, L(-10, 3)), ints(2, L(1, -1)),
		                  ints(2, L(-2, 1)) };
		run_expect(add(OP_SLICE, 13, in, 5, 1, NULL, 0), dt, 3, L(2, 2, 2), s1);
		/* x[::-1, :, ::-3], steps with default axes */
		ValueId in3[5] = { x, ints(3, L(-1, 0, INT64_MAX)), ints(3, L(INT64_MIN, 100, -100)),
		                   IR_NONE, ints(3, L(-1, 1, -3)) };
		run_expect(add(OP_SLICE, 13, in3, 5, 1, NULL, 0), dt, 3, L(2, 3, 2), s3);
	}
	reset();
	{
		/* opset 1 attributes: x[:, 1:1000, -3:-1] */
		ValueId x = input(DT_I32, 3, L(2, 3, 4));
		RawAttr a[3] = { ais("starts", L(1, -3), 2), ais("ends", L(1000, -1), 2),
		                 ais("axes", L(1, 2), 2) };
		run_expect(add(OP_SLICE, 1, &x, 1, 1, a, 3), DT_I32, 3, L(2, 2, 2), s2);
		/* out-of-range start gives an empty axis */
		ValueId in[4] = { x, ints(1, L(1000)), ints(1, L(1000)), ints(1, L(1)) };
		run_expect(add(OP_SLICE, 13, in, 4, 1, NULL, 0), DT_I32, 3, L(2, 0, 4), s2);
		ValueId z[5] = { x, ints(1, L(0)), ints(1, L(1)), ints(1, L(0)), ints(1, L(0)) };
		CHECK(add(OP_SLICE, 13, z, 5, 1, NULL, 0) < 0);
		CHECK(last_diag_has("step is zero"));
	}
}

static void test_concat_split(void)
{
	static const int64_t cat[] = { 0, 1, 2, 100, 101, 102, 200, 3, 4, 5, 103, 104, 105, 201 };
	reset();
	{
		ValueId in[3] = { cst(DT_I64, 2, L(2, 3), L(0, 1, 2, 3, 4, 5)),
		                  cst(DT_I64, 2, L(2, 3), L(100, 101, 102, 103, 104, 105)),
		                  cst(DT_I64, 2, L(2, 1), L(200, 201)) };
		RawAttr a = ai("axis", -1);
		run_expect(add(OP_CONCAT, 13, in, 3, 1, &a, 1), DT_I64, 2, L(2, 7), cat);
		RawAttr b = ai("axis", 0);
		CHECK(add(OP_CONCAT, 13, in, 3, 1, &b, 1) < 0);
		CHECK(add(OP_CONCAT, 13, in, 3, 1, NULL, 0) < 0);   /* axis is required */
	}
	reset();
	{
		ValueId x = input(DT_F16, 2, L(2, 3));
		ValueId in[2] = { x, ints(2, L(1, 2)) };
		RawAttr a = ai("axis", 1);
		void *outs[2];
		NodeId n = add(OP_SPLIT, 13, in, 2, 2, &a, 1);
		CHECK(n >= 0 && run(n, outs) == 0);
		if (n >= 0) {
			expect(n, outs, 0, DT_F16, 2, L(2, 1), L(0, 3));
			expect(n, outs, 1, DT_F16, 2, L(2, 2), L(1, 2, 4, 5));
			free_outs(outs, 2);
		}
		/* opset 11, equal parts along the default axis 0 */
		n = add(OP_SPLIT, 11, &x, 1, 2, NULL, 0);
		CHECK(n >= 0 && run(n, outs) == 0);
		if (n >= 0) {
			expect(n, outs, 0, DT_F16, 2, L(1, 3), L(0, 1, 2));
			expect(n, outs, 1, DT_F16, 2, L(1, 3), L(3, 4, 5));
			free_outs(outs, 2);
		}
		CHECK(add(OP_SPLIT, 11, &x, 1, 3, NULL, 0) < 0);     /* 2 rows into 3 parts */
		ValueId bad[2] = { x, ints(2, L(1, 1)) };
		CHECK(add(OP_SPLIT, 13, bad, 2, 2, &a, 1) < 0);
	}
}

static void test_gather(void)
{
	static const int64_t want[] = { 8, 9, 10, 11, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 20, 21,
	                                22, 23, 12, 13, 14, 15, 16, 17, 18, 19, 12, 13, 14, 15 };
	static const DType idx[] = { DT_I32, DT_I64 };
	for (int k = 0; k < 2; k++) {
		reset();
		ValueId in[2] = { input(DT_BF16, 3, L(2, 3, 4)),
		                  cst(idx[k], 2, L(2, 2), L(-1, 0, 1, -3)) };
		RawAttr a = ai("axis", 1);
		run_expect(add(OP_GATHER, 13, in, 2, 1, &a, 1), DT_BF16, 4, L(2, 2, 2, 4), want);
		/* out of range at run time: ERANGE, output untouched */
		ValueId bad[2] = { in[0], cst(idx[k], 1, L(2), L(0, 3)) };
		NodeId n = add(OP_GATHER, 13, bad, 2, 1, &a, 1);
		void *outs[1];
		CHECK(n >= 0);
		if (n >= 0) {
			CHECK(run(n, outs) == INGOT_ERANGE);
			CHECK(((unsigned char *)outs[0])[0] == 0x55);
			free_outs(outs, 1);
		}
		ValueId fl[2] = { in[0], cst(DT_F32, 1, L(1), L(0)) };
		CHECK(add(OP_GATHER, 13, fl, 2, 1, &a, 1) < 0);
	}
}

static void test_pad(void)
{
	static const int64_t pc[] = { 7, 7, 7, 7, 7, 7, 7, 7, 0, 1, 2, 7, 7, 7, 3, 4, 5, 7 };
	static const int64_t pr[] = { 5, 4, 3, 4, 5, 4, 3, 2, 1, 0, 1, 2, 1, 0,
	                              5, 4, 3, 4, 5, 4, 3, 2, 1, 0, 1, 2, 1, 0 };
	static const int64_t pe[] = { 0, 0, 0, 0, 1, 2, 2, 3, 3, 3, 3, 4, 5, 5, 3, 3, 3, 3, 4, 5, 5 };
	static const int64_t pn[] = { 1, 2, 9, 4, 5, 9 };
	static const DType dts[] = { DT_F32, DT_I64, DT_U8, DT_F16, DT_I16 };
	for (int k = 0; k < COUNTOF(dts); k++) {
		DType dt = dts[k];
		reset();
		ValueId x = input(dt, 2, L(2, 3));
		ValueId in[3] = { x, ints(4, L(1, 2, 0, 1)), cst(dt, 0, NULL, L(7)) };
		run_expect(add(OP_PAD, 13, in, 3, 1, NULL, 0), dt, 2, L(3, 6), pc);
		const char *modes[] = { "reflect", "edge" };
		RawAttr m = { .name = "mode", .kind = RA_STRING, .s = modes[0] };
		ValueId inr[2] = { x, ints(4, L(1, 2, 1, 2)) };
		run_expect(add(OP_PAD, 13, inr, 2, 1, &m, 1), dt, 2, L(4, 7), pr);
		m.s = modes[1];
		ValueId ine[2] = { x, ints(4, L(0, 3, 1, 1)) };
		run_expect(add(OP_PAD, 11, ine, 2, 1, &m, 1), dt, 2, L(3, 7), pe);
		/* opset 2 attributes, negative pad crops */
		RawAttr a[2] = { ais("pads", L(0, -1, 0, 1), 4),
		                 { .name = "value", .kind = RA_FLOAT, .f = 9.0f } };
		run_expect(add(OP_PAD, 2, &x, 1, 1, a, 2), dt, 2, L(2, 3), pn);
		/* opset 18 axes */
		ValueId ina[4] = { x, ints(2, L(2, 1)), cst(dt, 0, NULL, L(7)), ints(1, L(-1)) };
		static const int64_t pa[] = { 7, 7, 0, 1, 2, 7, 7, 7, 3, 4, 5, 7 };
		run_expect(add(OP_PAD, 18, ina, 4, 1, NULL, 0), dt, 2, L(2, 6), pa);
		ValueId bad[2] = { x, ints(3, L(1, 1, 1)) };
		CHECK(add(OP_PAD, 13, bad, 2, 1, NULL, 0) < 0);
		CHECK(last_diag_has("expected 4 pads"));
	}
}

static void test_expand_tile(void)
{
	static const int64_t ex[] = { 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2,
	                              0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2 };
	static const int64_t ti[] = { 0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5,
	                              0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5 };
	reset();
	{
		ValueId x = input(DT_U32, 2, L(3, 1));
		ValueId in[2] = { x, ints(3, L(2, 1, 6)) };
		run_expect(add(OP_EXPAND, 13, in, 2, 1, NULL, 0), DT_U32, 3, L(2, 3, 6), ex);
		ValueId bad[2] = { x, ints(2, L(4, 1)) };
		CHECK(add(OP_EXPAND, 13, bad, 2, 1, NULL, 0) < 0);
		ValueId y = input(DT_BOOL, 2, L(2, 3));
		ValueId tin[2] = { y, ints(2, L(2, 2)) };
		run_expect(add(OP_TILE, 13, tin, 2, 1, NULL, 0), DT_BOOL, 2, L(4, 6), ti);
		ValueId tbad[2] = { y, ints(1, L(2)) };
		CHECK(add(OP_TILE, 13, tbad, 2, 1, NULL, 0) < 0);
	}
}

static void test_shape_size_const_range(void)
{
	reset();
	{
		ValueId x = input(DT_F32, 4, L(2, 3, 4, 5));
		run_expect(add(OP_SHAPE, 13, &x, 1, 1, NULL, 0), DT_I64, 1, L(4), L(2, 3, 4, 5));
		RawAttr a[2] = { ai("start", -3), ai("end", 100) };
		run_expect(add(OP_SHAPE, 15, &x, 1, 1, a, 2), DT_I64, 1, L(3), L(3, 4, 5));
		RawAttr b[2] = { ai("start", 3), ai("end", 1) };
		run_expect(add(OP_SHAPE, 15, &x, 1, 1, b, 2), DT_I64, 1, L(0), L(0));
		run_expect(add(OP_SIZE, 13, &x, 1, 1, NULL, 0), DT_I64, 0, NULL, L(120));
	}
	reset();
	{
		ValueId v = cst(DT_I32, 1, L(1), L(-5));
		RawAttr a = { .name = "value", .kind = RA_TENSOR, .tensor = v };
		ValueId s = ints(2, L(2, 3));
		run_expect(add(OP_CONSTANT_OF_SHAPE, 9, &s, 1, 1, &a, 1), DT_I32, 2, L(2, 3),
		           L(-5, -5, -5, -5, -5, -5));
		run_expect(add(OP_CONSTANT_OF_SHAPE, 9, &s, 1, 1, NULL, 0), DT_F32, 2, L(2, 3),
		           L(0, 0, 0, 0, 0, 0));
		ValueId z = ints(1, L(0));
		run_expect(add(OP_CONSTANT_OF_SHAPE, 9, &z, 1, 1, &a, 1), DT_I32, 1, L(0), L(0));
		ValueId neg = ints(1, L(-1));
		CHECK(add(OP_CONSTANT_OF_SHAPE, 9, &neg, 1, 1, NULL, 0) < 0);
	}
	reset();
	{
		ValueId in[3] = { cst(DT_I32, 0, NULL, L(10)), cst(DT_I32, 0, NULL, L(4)),
		                  cst(DT_I32, 0, NULL, L(-3)) };
		run_expect(add(OP_RANGE, 11, in, 3, 1, NULL, 0), DT_I32, 1, L(2), L(10, 7));
		ValueId e[3] = { in[0], in[1], cst(DT_I32, 0, NULL, L(3)) };
		run_expect(add(OP_RANGE, 11, e, 3, 1, NULL, 0), DT_I32, 1, L(0), L(0));
		ValueId z[3] = { in[0], in[1], cst(DT_I32, 0, NULL, L(0)) };
		CHECK(add(OP_RANGE, 11, z, 3, 1, NULL, 0) < 0);
		ValueId i16[3] = { cst(DT_I16, 0, NULL, L(-2)), cst(DT_I16, 0, NULL, L(3)),
		                   cst(DT_I16, 0, NULL, L(2)) };
		run_expect(add(OP_RANGE, 11, i16, 3, 1, NULL, 0), DT_I16, 1, L(3), L(-2, 0, 2));
		ValueId nc[3] = { in[0], input(DT_I32, 0, NULL), in[2] };
		CHECK(add(OP_RANGE, 11, nc, 3, 1, NULL, 0) < 0);
		CHECK(diag_has_code(&d, DC_CONST_INPUT));
	}
	reset();
	{
		float st = 1.0f, li = 2.0f, de = 0.3f;
		Type t = type_make(DT_F32, 0, NULL);
		ValueId in[3] = { ir_value_new_const(&g, 0, "s", &t, &st),
		                  ir_value_new_const(&g, 0, "l", &t, &li),
		                  ir_value_new_const(&g, 0, "d", &t, &de) };
		NodeId n = add(OP_RANGE, 11, in, 3, 1, NULL, 0);
		void *outs[1];
		CHECK(n >= 0);
		if (n >= 0) {
			CHECK(g.values[g.nodes[n].out[0]].type.dims[0] == 4);
			CHECK(run(n, outs) == 0);
			float *o = outs[0];
			CHECK(o[0] == 1.0f && o[1] > 1.2999f && o[1] < 1.3001f && o[3] > 1.8999f &&
			      o[3] < 1.9001f);
			free_outs(outs, 1);
		}
	}
	reset();
	{
		/* f16 and bf16 (opset 11 allows them): 1.5 to 3 by 0.25, every value exact */
		static const uint16_t args[2][3] = { { 0x3E00, 0x4200, 0x3400 },
		                                     { 0x3FC0, 0x4040, 0x3E80 } };
		static const uint16_t want[2][6] = { { 0x3E00, 0x3F00, 0x4000, 0x4080, 0x4100, 0x4180 },
		                                     { 0x3FC0, 0x3FE0, 0x4000, 0x4010, 0x4020, 0x4030 } };
		for (int k = 0; k < 2; k++) {
			Type t = type_make(k ? DT_BF16 : DT_F16, 0, NULL);
			ValueId in[3] = { ir_value_new_const(&g, 0, "s", &t, &args[k][0]),
			                  ir_value_new_const(&g, 0, "l", &t, &args[k][1]),
			                  ir_value_new_const(&g, 0, "d", &t, &args[k][2]) };
			NodeId n = add(OP_RANGE, 11, in, 3, 1, NULL, 0);
			void *outs[1];
			CHECK(n >= 0);
			if (n >= 0) {
				CHECK(g.values[g.nodes[n].out[0]].type.dims[0] == 6);
				CHECK(run(n, outs) == 0);
				CHECK(memcmp(outs[0], want[k], sizeof want[k]) == 0);
				free_outs(outs, 1);
			}
		}
	}
}

int main(void)
{
	ir_graph_init(&g, "test.onnx");
	diag_sink_init(&d, NULL);
	test_reshape();
	test_flatten_squeeze();
	test_transpose();
	test_slice();
	test_concat_split();
	test_gather();
	test_pad();
	test_expand_tile();
	test_shape_size_const_range();
	reset();
	ir_graph_free(&g);
	diag_sink_free(&d);
	return harness_done("shape_ops");
}
