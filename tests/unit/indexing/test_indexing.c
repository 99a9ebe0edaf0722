/* test_indexing.c — unit test of the indexing op groups (compiler/ops/indexing.c,
 * indexing_order.c, runtime-stubs/kernels/indexing.c): import → infer → run one node
 * on numpy reference cases (cases.h, from gen_cases.py), also split into 3 tasks;
 * data-dependent outputs report their actual dims through the extra out[] slots;
 * error cases must give a diagnostic, and bad run-time indices INGOT_ERANGE with the
 * output untouched. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "indexing.h"
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
	const char *s;
	const int64_t *ints;
	const float *floats;
	int n;
} TAttr;

typedef struct TCase {
	const char *name;
	Op op;
	int opset;
	int dyn;                 /* outputs are data-dependent: compare actual dims */
	int n_in;
	TTensor in[3];
	int n_out;
	TTensor out[4];
	int n_attr;
	TAttr attrs[9];
} TCase;

#include "cases.h"

/* Floats with the rule of `ingot check` (NaN equals NaN), everything else bytewise. */
static void compare(const char *name, int k, const TTensor *e, const void *got)
{
	check_output(name, k, e->dtype, got, e->data, e->bytes, 1e-3, 1e-7);
}

static void make_raw(const TCase *tc, RawAttr *raw)
{
	for (int i = 0; i < tc->n_attr; i++) {
		memset(&raw[i], 0, sizeof raw[i]);
		raw[i].name = tc->attrs[i].name;
		raw[i].kind = tc->attrs[i].kind;
		raw[i].i = tc->attrs[i].i;
		raw[i].s = tc->attrs[i].s;
		raw[i].ints = tc->attrs[i].ints;
		raw[i].floats = tc->attrs[i].floats;
		raw[i].n = tc->attrs[i].n;
	}
}

static void run_case(const TCase *tc)
{
	Graph g;
	DiagSink d;
	ValueId in[3], out[4];
	RawAttr raw[9];
	const void *bufs_in[8];
	void *bufs_out[8], *split_out[8];
	int64_t dims[4][INGOT_MAX_RANK], split_dims[4][INGOT_MAX_RANK];
	int n_dyn = 0, dyn_of[4];
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
	make_raw(tc, raw);
	NodeId n = ir_node_new(&g, 0, tc->op, tc->opset, in, tc->n_in, out, tc->n_out, tc->name);
	if (ops_import_attrs(&g, n, raw, tc->n_attr, &d) || ops_infer_node(&g, n, &d)) {
		CHECK(0, "%s: import/infer failed", tc->name);
		diag_print_all(&d, stderr);
		goto done;
	}
	for (int i = 0; i < tc->n_out; i++) {
		const TTensor *e = &tc->out[i];
		const Value *v = &g.values[out[i]];
		Type want = type_make((DType)e->dtype, e->rank, e->dims);
		char b1[128], b2[128];
		dyn_of[i] = -1;
		if (v->dynamic) {
			CHECK(tc->dyn, "%s: output %d is dynamic, expected static", tc->name, i);
			CHECK(v->type.dtype == want.dtype && v->type.rank == want.rank,
			      "%s: output %d type %s, expected %s", tc->name, i,
			      type_format(&v->type, b1, sizeof b1), type_format(&want, b2, sizeof b2));
			dyn_of[i] = n_dyn++;
			continue;
		}
		CHECK(type_equal(&v->type, &want), "%s: output %d type %s, expected %s", tc->name, i,
		      type_format(&v->type, b1, sizeof b1), type_format(&want, b2, sizeof b2));
	}
	CHECK(!tc->dyn || n_dyn > 0, "%s: expected a dynamic output", tc->name);
	Node *node = &g.nodes[n];
	for (int i = 0; i < node->n_in; i++) {
		if (i < tc->n_in) {
			void *b = malloc((size_t)tc->in[i].bytes + 1);
			memcpy(b, tc->in[i].data, (size_t)tc->in[i].bytes);
			bufs_in[i] = b;
		} else {
			bufs_in[i] = ir_const_data(&g, node->in[i]);   /* the compiled TfIdf pool */
		}
	}
	memset(bufs_out, 0, sizeof bufs_out);
	memset(split_out, 0, sizeof split_out);
	for (int i = 0; i < tc->n_out; i++) {
		int64_t bytes = type_bytes(&g.values[out[i]].type);
		bufs_out[i] = calloc(1, (size_t)bytes + 1);
		split_out[i] = calloc(1, (size_t)bytes + 1);
		if (dyn_of[i] >= 0) {
			bufs_out[tc->n_out + dyn_of[i]] = dims[dyn_of[i]];
			split_out[tc->n_out + dyn_of[i]] = split_dims[dyn_of[i]];
			memset(dims[dyn_of[i]], 0xff, sizeof dims[0]);
		}
	}
	CHECK(ops_run_node(&g, n, bufs_in, bufs_out) == 0, "%s: kernel failed", tc->name);
	for (int i = 0; i < tc->n_out; i++) {
		if (dyn_of[i] >= 0) {
			const int64_t *got = dims[dyn_of[i]];
			int ok = 1;
			for (int k = 0; k < tc->out[i].rank; k++)
				ok = ok && got[k] == tc->out[i].dims[k];
			CHECK(ok, "%s: output %d actual dims [%lld, %lld, ...] differ from the expected",
			      tc->name, i, (long long)got[0], (long long)got[1]);
		}
		compare(tc->name, i, &tc->out[i], bufs_out[i]);
	}

	/* the same call split into 3 tasks gives identical bytes */
	LowerCtx lc;
	memset(&lc, 0, sizeof lc);
	lc.g = &g;
	lc.node = n;
	CHECK(op_info(tc->op)->impl->lower(&lc) == 0, "%s: lower failed", tc->name);
	void *scratch = lc.kc.scratch_bytes ? calloc(1, (size_t)lc.kc.scratch_bytes) : NULL;
	for (int t = 0; t < 3; t++)
		CHECK(lc.kc.fn(lc.kc.params, bufs_in, split_out, scratch, t, 3) == 0, "%s: task %d",
		      tc->name, t);
	free(scratch);
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

typedef struct ErrIn { DType dt; int rank; int64_t dims[4]; const void *data; } ErrIn;

static void expect_error(const char *what, Op op, int opset, const ErrIn *ins, int n_in, int n_out,
                         const RawAttr *raw, int n_raw, DiagCode code, const char *want)
{
	Graph g;
	DiagSink d;
	ValueId in[4], out[4];
	ir_graph_init(&g, "bad.onnx");
	diag_sink_init(&d, NULL);
	for (int i = 0; i < n_in; i++) {
		Type t = type_make(ins[i].dt, ins[i].rank, ins[i].dims);
		char name[16];
		snprintf(name, sizeof name, "x%d", i);
		in[i] = ins[i].data ? ir_value_new_const(&g, 0, name, &t, ins[i].data)
		                    : ir_value_new(&g, 0, name, &t);
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

static RawAttr ra_int(const char *name, int64_t v)
{
	RawAttr r;
	memset(&r, 0, sizeof r);
	r.name = name;
	r.kind = RA_INT;
	r.i = v;
	return r;
}

static void error_cases(void)
{
	static const int64_t k9[] = { 9 }, k2[] = { 2 };
	static const uint8_t cond5[] = { 1, 0, 1, 1, 1 };
	ErrIn x34 = { DT_F32, 2, { 3, 4 }, NULL }, i3 = { DT_I64, 1, { 3 }, NULL };
	ErrIn i24 = { DT_I64, 2, { 2, 4 }, NULL }, i25 = { DT_I64, 2, { 2, 5 }, NULL };
	ErrIn f24 = { DT_F32, 2, { 2, 4 }, NULL }, d24 = { DT_F64, 2, { 2, 4 }, NULL };
	RawAttr axis1 = ra_int("axis", 1), axis3 = ra_int("axis", 3), bs2 = ra_int("blocksize", 2);

	ErrIn ge_rank[2] = { x34, i3 };
	expect_error("gather_elements_rank", OP_GATHER_ELEMENTS, 13, ge_rank, 2, 1, NULL, 0, DC_SHAPE,
	             "rank 2");
	ErrIn ge_big[2] = { x34, i25 };
	expect_error("gather_elements_dim", OP_GATHER_ELEMENTS, 13, ge_big, 2, 1, NULL, 0, DC_SHAPE,
	             "larger");
	ErrIn ge_ft[2] = { x34, f24 };
	expect_error("gather_elements_float_idx", OP_GATHER_ELEMENTS, 13, ge_ft, 2, 1, NULL, 0, DC_TYPE,
	             "f32");
	expect_error("gather_elements_axis", OP_GATHER_ELEMENTS, 13, ge_big, 2, 1, &axis3, 1, DC_SHAPE,
	             "out of range");
	ErrIn se_upd[3] = { x34, i24, d24 };
	expect_error("scatter_updates_dtype", OP_SCATTER_ELEMENTS, 13, se_upd, 3, 1, NULL, 0, DC_TYPE,
	             "f64");
	ErrIn se_shape[3] = { x34, i24, { DT_F32, 2, { 2, 3 }, NULL } };
	expect_error("scatter_updates_shape", OP_SCATTER_ELEMENTS, 16, se_shape, 3, 1, NULL, 0,
	             DC_SHAPE, "[2,4]");
	RawAttr red = ra_int("reduction", 0);
	red.kind = RA_STRING;
	red.s = "mean";
	ErrIn se_ok[3] = { x34, i24, f24 };
	expect_error("scatter_bad_reduction", OP_SCATTER_ELEMENTS, 18, se_ok, 3, 1, &red, 1, DC_PARSE,
	             "mean");
	ErrIn nd_big[2] = { x34, { DT_I64, 2, { 2, 3 }, NULL } };
	expect_error("gather_nd_last_dim", OP_GATHER_ND, 13, nd_big, 2, 1, NULL, 0, DC_SHAPE, "[1, 2]");
	RawAttr bd2 = ra_int("batch_dims", 2);
	ErrIn nd_ok[2] = { x34, { DT_I64, 2, { 3, 1 }, NULL } };
	expect_error("gather_nd_batch_dims", OP_GATHER_ND, 13, nd_ok, 2, 1, &bd2, 1, DC_SHAPE,
	             "batch_dims");
	ErrIn snd[3] = { x34, { DT_I64, 2, { 2, 1 }, NULL }, { DT_F32, 1, { 2 }, NULL } };
	expect_error("scatter_nd_updates", OP_SCATTER_ND, 16, snd, 3, 1, NULL, 0, DC_SHAPE, "[2,4]");
	ErrIn cmp_long[2] = { x34, { DT_BOOL, 1, { 5 }, cond5 } };
	expect_error("compress_long_cond", OP_COMPRESS, 11, cmp_long, 2, 1, &axis1, 1, DC_SHAPE,
	             "more than");
	ErrIn cmp_f[2] = { x34, { DT_F32, 1, { 3 }, NULL } };
	expect_error("compress_float_cond", OP_COMPRESS, 11, cmp_f, 2, 1, NULL, 0, DC_TYPE, "f32");
	ErrIn tk_big[2] = { x34, { DT_I64, 1, { 1 }, k9 } };
	expect_error("topk_k_too_big", OP_TOP_K, 11, tk_big, 2, 2, NULL, 0, DC_SHAPE, "k = 9");
	ErrIn tk_rt[2] = { x34, { DT_I64, 1, { 1 }, NULL } };
	expect_error("topk_k_runtime", OP_TOP_K, 11, tk_rt, 2, 2, NULL, 0, DC_CONST_INPUT, "--bind");
	expect_error("topk_opset1_no_k", OP_TOP_K, 1, &x34, 1, 2, NULL, 0, DC_SHAPE, "k");
	ErrIn tk_bool[2] = { { DT_BOOL, 1, { 3 }, NULL }, { DT_I64, 1, { 1 }, k2 } };
	expect_error("topk_bool", OP_TOP_K, 11, tk_bool, 2, 2, NULL, 0, DC_TYPE, "bool");
	ErrIn am_empty = { DT_F32, 2, { 3, 0 }, NULL };
	expect_error("argmax_empty_axis", OP_ARG_MAX, 13, &am_empty, 1, 1, &axis1, 1, DC_SHAPE, "empty");
	ErrIn am_scalar = { DT_F32, 0, { 0 }, NULL };
	expect_error("argmin_scalar", OP_ARG_MIN, 13, &am_scalar, 1, 1, NULL, 0, DC_SHAPE, "scalar");
	ErrIn d2s = { DT_F32, 4, { 1, 6, 2, 2 }, NULL };
	expect_error("d2s_channels", OP_DEPTH_TO_SPACE, 13, &d2s, 1, 1, &bs2, 1, DC_SHAPE, "multiple");
	ErrIn s2d = { DT_F32, 4, { 1, 6, 3, 2 }, NULL };
	expect_error("s2d_height", OP_SPACE_TO_DEPTH, 13, &s2d, 1, 1, &bs2, 1, DC_SHAPE, "multiples");
	expect_error("d2s_no_blocksize", OP_DEPTH_TO_SPACE, 13, &d2s, 1, 1, NULL, 0, DC_PARSE,
	             "missing");
	ErrIn rs[2] = { x34, { DT_I64, 1, { 3 }, NULL } };
	expect_error("revseq_lens_shape", OP_REVERSE_SEQUENCE, 10, rs, 2, 1, NULL, 0, DC_SHAPE, "[4]");
	RawAttr same[2] = { ra_int("batch_axis", 0), ra_int("time_axis", 0) };
	expect_error("revseq_axes", OP_REVERSE_SEQUENCE, 10, rs, 2, 1, same, 2, DC_PARSE, "0 and 1");
	{
		static const char *const strs[] = { "a", "b" };
		static const int64_t counts[] = { 0 }, idx[] = { 0, 1 };
		RawAttr tf[4];
		memset(tf, 0, sizeof tf);
		tf[0].name = "pool_strings"; tf[0].kind = RA_STRINGS; tf[0].strings = strs; tf[0].n = 2;
		tf[1].name = "ngram_counts"; tf[1].kind = RA_INTS; tf[1].ints = counts; tf[1].n = 1;
		tf[2].name = "ngram_indexes"; tf[2].kind = RA_INTS; tf[2].ints = idx; tf[2].n = 2;
		tf[3] = ra_int("max_gram_length", 1);
		ErrIn xs = { DT_I64, 1, { 4 }, NULL };
		expect_error("tfidf_strings", OP_TF_IDF_VECTORIZER, 9, &xs, 1, 1, tf, 4, DC_UNSUPPORTED,
		             "string");
		tf[0].name = "pool_int64s"; tf[0].kind = RA_INTS; tf[0].ints = idx; tf[0].n = 2;
		tf[1].n = 1;
		static const int64_t bad_counts[] = { 0, 3 };
		tf[1].ints = bad_counts;
		tf[1].n = 2;
		tf[3] = ra_int("max_gram_length", 2);
		expect_error("tfidf_counts", OP_TF_IDF_VECTORIZER, 9, &xs, 1, 1, tf, 4, DC_PARSE,
		             "ngram_counts");
		ErrIn two[2] = { xs, { DT_I64, 1, { 2 }, idx } };
		tf[1].ints = counts;
		tf[1].n = 1;
		tf[3] = ra_int("max_gram_length", 1);
		expect_error("tfidf_two_inputs", OP_TF_IDF_VECTORIZER, 9, two, 2, 1, tf, 4, DC_PARSE,
		             "one input");
		ErrIn xf = { DT_F32, 1, { 4 }, NULL };
		tf[1].ints = counts;
		tf[1].n = 1;
		tf[3] = ra_int("max_gram_length", 1);
		expect_error("tfidf_float_input", OP_TF_IDF_VECTORIZER, 9, &xf, 1, 1, tf, 4, DC_TYPE, "f32");
	}
}

/* Runs a node on a non-constant out-of-range index: INGOT_ERANGE, output untouched. */
static void expect_erange(const char *what, Op op, int opset, const ErrIn *ins, int n_in,
                          const void *const *data, const RawAttr *raw, int n_raw)
{
	Graph g;
	DiagSink d;
	ValueId in[4], out;
	uint8_t buf[256];
	void *outs[1] = { buf };
	ir_graph_init(&g, "erange.onnx");
	diag_sink_init(&d, NULL);
	for (int i = 0; i < n_in; i++) {
		Type t = type_make(ins[i].dt, ins[i].rank, ins[i].dims);
		char name[16];
		snprintf(name, sizeof name, "x%d", i);
		in[i] = ir_value_new(&g, 0, name, &t);
	}
	out = ir_value_new(&g, 0, "y", NULL);
	NodeId n = ir_node_new(&g, 0, op, opset, in, n_in, &out, 1, what);
	if (ops_import_attrs(&g, n, raw, n_raw, &d) || ops_infer_node(&g, n, &d)) {
		CHECK(0, "%s: infer failed", what);
		diag_print_all(&d, stderr);
	} else {
		CHECK(type_bytes(&g.values[out].type) <= (int64_t)sizeof buf, "%s: too big", what);
		memset(buf, 0xab, sizeof buf);
		for (int t = 0; t < 2; t++)
			CHECK(ops_run_node(&g, n, data, outs) == INGOT_ERANGE, "%s: expected ERANGE", what);
		bool untouched = true;
		for (size_t i = 0; i < sizeof buf; i++)
			untouched = untouched && buf[i] == 0xab;
		CHECK(untouched, "%s: output written despite a bad index", what);
	}
	diag_sink_free(&d);
	ir_graph_free(&g);
}

static void erange_cases(void)
{
	static const float x[12] = { 0 };
	static const int64_t bad_hi[2 * 4] = { 0, 1, 2, 3, 4, 0, 0, 0 };   /* 4 in an axis of 3 */
	static const int32_t bad_lo[2] = { 0, -4 };                         /* -4 in an axis of 3 */
	static const int64_t lens_bad[4] = { 1, 2, 4, 0 };                  /* 4 > 3 time steps */
	ErrIn x34 = { DT_F32, 2, { 3, 4 }, NULL };
	ErrIn ge[2] = { x34, { DT_I64, 2, { 2, 4 }, NULL } };
	const void *ge_d[2] = { x, bad_hi };
	expect_erange("gather_elements_erange", OP_GATHER_ELEMENTS, 13, ge, 2, ge_d, NULL, 0);
	ErrIn se[3] = { x34, { DT_I64, 2, { 2, 4 }, NULL }, { DT_F32, 2, { 2, 4 }, NULL } };
	const void *se_d[3] = { x, bad_hi, x };
	expect_erange("scatter_elements_erange", OP_SCATTER_ELEMENTS, 16, se, 3, se_d, NULL, 0);
	ErrIn gnd[2] = { x34, { DT_I32, 2, { 2, 1 }, NULL } };
	const void *gnd_d[2] = { x, bad_lo };
	expect_erange("gather_nd_erange", OP_GATHER_ND, 13, gnd, 2, gnd_d, NULL, 0);
	ErrIn snd[3] = { x34, { DT_I32, 2, { 2, 1 }, NULL }, { DT_F32, 2, { 2, 4 }, NULL } };
	const void *snd_d[3] = { x, bad_lo, x };
	expect_erange("scatter_nd_erange", OP_SCATTER_ND, 13, snd, 3, snd_d, NULL, 0);
	ErrIn rs[2] = { { DT_F32, 2, { 3, 4 }, NULL }, { DT_I64, 1, { 4 }, NULL } };
	const void *rs_d[2] = { x, lens_bad };
	expect_erange("revseq_erange", OP_REVERSE_SEQUENCE, 10, rs, 2, rs_d, NULL, 0);
}

int main(void)
{
	for (int i = 0; i < COUNTOF(cases); i++)
		run_case(&cases[i]);
	error_cases();
	erange_cases();
	printf("indexing: %d reference cases, error and out-of-range cases\n", COUNTOF(cases));
	return harness_done("indexing");
}
