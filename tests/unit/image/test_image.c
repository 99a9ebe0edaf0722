/* test_image.c — unit test of the image op groups (Resize, Upsample, GridSample,
 * AffineGrid, RoiAlign, NonMaxSuppression, MaxUnpool, LRN, LpPool, LpNormalization, MVN,
 * GroupNormalization, Col2Im): import → infer → run one node on the reference cases
 * of cases.h (gen_cases.py), also split into 3 tasks; dynamic NMS rows; error
 * cases that must give a diagnostic, and index inputs out of range (INGOT_ERANGE). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image.h"
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
	int absent;
} TTensor;

typedef struct TAttr {
	const char *name;
	RawAttrKind kind;
	int64_t i;
	float f;
	const char *s;
	const int64_t *ints;
	const float *floats;
	int n;
} TAttr;

typedef struct TCase {
	const char *name;
	Op op;
	int opset;
	int n_in;
	TTensor in[5];
	TTensor out;
	int n_attr;
	TAttr attrs[8];
	double rtol, atol;
} TCase;

#include "cases.h"

/* Floats with the rule of `ingot check`; everything else bytewise. */
static void compare(const TCase *tc, const void *got, int64_t bytes)
{
	check_output(tc->name, -1, tc->out.dtype, got, tc->out.data, bytes, tc->rtol, tc->atol);
}

typedef struct Built {
	Graph g;
	DiagSink d;
	NodeId n;
	ValueId in[5], out;
} Built;

static int build(Built *b, const TCase *tc)
{
	RawAttr raw[8];
	ir_graph_init(&b->g, "test.onnx");
	diag_sink_init(&b->d, NULL);
	for (int i = 0; i < tc->n_in; i++) {
		const TTensor *t = &tc->in[i];
		Type ty = type_make((DType)t->dtype, t->rank, t->dims);
		char name[16];
		snprintf(name, sizeof name, "in%d", i);
		if (t->absent) {
			b->in[i] = IR_NONE;
		} else if (t->is_const) {
			b->in[i] = ir_value_new_const(&b->g, 0, name, &ty, t->data);
		} else {
			b->in[i] = ir_value_new(&b->g, 0, name, &ty);
			ir_region_add_input(&b->g, 0, b->in[i]);
		}
	}
	b->out = ir_value_new(&b->g, 0, "out", NULL);
	for (int i = 0; i < tc->n_attr; i++) {
		const TAttr *a = &tc->attrs[i];
		memset(&raw[i], 0, sizeof raw[i]);
		raw[i].name = a->name;
		raw[i].kind = a->kind;
		raw[i].i = a->i;
		raw[i].f = a->f;
		raw[i].s = a->s;
		raw[i].ints = a->ints;
		raw[i].floats = a->floats;
		raw[i].n = a->n;
	}
	b->n = ir_node_new(&b->g, 0, tc->op, tc->opset, b->in, tc->n_in, &b->out, 1, tc->name);
	if (ops_import_attrs(&b->g, b->n, raw, tc->n_attr, &b->d) ||
	    ops_infer_node(&b->g, b->n, &b->d)) {
		CHECK(0, "%s: import/infer failed", tc->name);
		diag_print_all(&b->d, stderr);
		return -1;
	}
	return 0;
}

static void run_case(const TCase *tc)
{
	Built b;
	const void *bufs_in[5];
	int64_t dims[INGOT_MAX_RANK], split_dims[INGOT_MAX_RANK];
	if (build(&b, tc))
		goto done;
	const Value *ov = &b.g.values[b.out];
	Type want = type_make((DType)tc->out.dtype, tc->out.rank, tc->out.dims);
	char b1[128], b2[128];
	if (ov->dynamic) {
		/* data-dependent rows: the type is the bound, the kernel reports the rows */
		CHECK(ov->type.rank == want.rank && ov->type.dims[0] >= want.dims[0],
		      "%s: bound %s below %s", tc->name, type_format(&ov->type, b1, sizeof b1),
		      type_format(&want, b2, sizeof b2));
	} else {
		CHECK(type_equal(&ov->type, &want), "%s: output type %s, expected %s", tc->name,
		      type_format(&ov->type, b1, sizeof b1), type_format(&want, b2, sizeof b2));
	}
	int64_t obytes = type_bytes(&ov->type);
	for (int i = 0; i < tc->n_in; i++) {
		void *p = NULL;
		if (!tc->in[i].absent) {
			p = malloc((size_t)tc->in[i].bytes + 1);
			memcpy(p, tc->in[i].data, (size_t)tc->in[i].bytes);
		}
		bufs_in[i] = p;
	}
	void *y = calloc(1, (size_t)obytes + 1), *ys = calloc(1, (size_t)obytes + 1);
	void *outs[2] = { y, dims }, *souts[2] = { ys, split_dims };
	memset(dims, 0xff, sizeof dims);
	CHECK(ops_run_node(&b.g, b.n, bufs_in, outs) == 0, "%s: kernel failed", tc->name);
	if (ov->dynamic) {
		CHECK(dims[0] == tc->out.dims[0] && dims[1] == tc->out.dims[1],
		      "%s: reported dims [%lld, %lld], expected [%lld, %lld]", tc->name,
		      (long long)dims[0], (long long)dims[1], (long long)tc->out.dims[0],
		      (long long)tc->out.dims[1]);
	}
	compare(tc, y, tc->out.bytes);

	/* the same call split into 3 tasks (each with its own scratch) gives the same bytes */
	LowerCtx lc;
	memset(&lc, 0, sizeof lc);
	lc.g = &b.g;
	lc.node = b.n;
	CHECK(op_info(tc->op)->impl->lower(&lc) == 0, "%s: lower failed", tc->name);
	for (int t = 0; t < 3; t++) {
		void *scratch = lc.kc.scratch_bytes ? calloc(1, (size_t)lc.kc.scratch_bytes) : NULL;
		CHECK(lc.kc.fn(lc.kc.params, bufs_in, souts, scratch, t, 3) == 0, "%s: task %d",
		      tc->name, t);
		free(scratch);
	}
	CHECK(memcmp(y, ys, (size_t)tc->out.bytes) == 0, "%s: output differs when split into tasks",
	      tc->name);
	for (int i = 0; i < tc->n_in; i++)
		free((void *)bufs_in[i]);
	free(y);
	free(ys);
done:
	diag_sink_free(&b.d);
	ir_graph_free(&b.g);
}

/* ---- error cases: each must fail with a diagnostic whose text contains `want` ---- */

typedef struct ErrIn {
	DType dt;
	int rank;
	int64_t dims[4];
	bool is_const;
	const void *data;
	bool absent;
} ErrIn;

static void expect_error(const char *what, Op op, int opset, const ErrIn *ins, int n_in,
                         const RawAttr *raw, int n_raw, DiagCode code, const char *want)
{
	Graph g;
	DiagSink d;
	ValueId in[5], out;
	ir_graph_init(&g, "bad.onnx");
	diag_sink_init(&d, NULL);
	for (int i = 0; i < n_in; i++) {
		Type t = type_make(ins[i].dt, ins[i].rank, ins[i].dims);
		char name[16];
		snprintf(name, sizeof name, "x%d", i);
		if (ins[i].absent)
			in[i] = IR_NONE;
		else if (ins[i].is_const)
			in[i] = ir_value_new_const(&g, 0, name, &t, ins[i].data);
		else
			in[i] = ir_value_new(&g, 0, name, &t);
	}
	out = ir_value_new(&g, 0, "y", NULL);
	NodeId n = ir_node_new(&g, 0, op, opset, in, n_in, &out, 1, what);
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

static RawAttr attr_s(const char *name, const char *s)
{
	RawAttr a;
	memset(&a, 0, sizeof a);
	a.name = name;
	a.kind = RA_STRING;
	a.s = s;
	return a;
}

static RawAttr attr_i(const char *name, int64_t v)
{
	RawAttr a;
	memset(&a, 0, sizeof a);
	a.name = name;
	a.kind = RA_INT;
	a.i = v;
	return a;
}

static RawAttr attr_ints(const char *name, const int64_t *v, int n)
{
	RawAttr a;
	memset(&a, 0, sizeof a);
	a.name = name;
	a.kind = RA_INTS;
	a.ints = v;
	a.n = n;
	return a;
}

static void error_cases(void)
{
	static const float sc4[] = { 1, 1, 2, 2 }, sc3[] = { 1, 2, 2 }, roi4[] = { 0, 0, 1, 1 };
	static const int64_t sz4[] = { 1, 1, 4, 4 }, ax_dup[] = { 1, -3 }, img[] = { 4, 4 };
	static const int64_t blk[] = { 2, 2 }, ks[] = { 2, 2 };
	ErrIn x4 = { DT_F32, 4, { 1, 1, 2, 2 }, false, NULL, false };
	ErrIn absent = { DT_F32, 0, { 0 }, false, NULL, true };
	ErrIn scales = { DT_F32, 1, { 4 }, true, sc4, false };
	ErrIn scales3 = { DT_F32, 1, { 3 }, true, sc3, false };
	ErrIn scales_rt = { DT_F32, 1, { 4 }, false, NULL, false };
	ErrIn sizes = { DT_I64, 1, { 4 }, true, sz4, false };
	ErrIn empty = { DT_F32, 1, { 0 }, true, sc4, false };
	RawAttr linear = attr_s("mode", "linear"), bad_mode = attr_s("mode", "lanczos");
	RawAttr crop = attr_s("coordinate_transformation_mode", "tf_crop_and_resize");
	RawAttr dup = attr_ints("axes", ax_dup, 2);

	ErrIn none[3] = { x4, absent, absent };
	expect_error("resize_no_scales_sizes", OP_RESIZE, 13, none, 3, NULL, 0, DC_SHAPE, "scales or sizes");
	ErrIn empties[4] = { x4, empty, empty, { DT_I64, 1, { 0 }, true, sz4, false } };
	expect_error("resize_all_empty", OP_RESIZE, 13, empties, 4, NULL, 0, DC_SHAPE, "scales or sizes");
	ErrIn both[4] = { x4, absent, scales, sizes };
	expect_error("resize_both", OP_RESIZE, 13, both, 4, NULL, 0, DC_SHAPE, "only one");
	ErrIn rt[3] = { x4, absent, scales_rt };
	expect_error("resize_scales_runtime", OP_RESIZE, 13, rt, 3, NULL, 0, DC_CONST_INPUT, "--bind");
	ErrIn short_sc[3] = { x4, absent, scales3 };
	expect_error("resize_scales_length", OP_RESIZE, 13, short_sc, 3, NULL, 0, DC_SHAPE, "expected 4");
	ErrIn xb[3] = { { DT_BOOL, 4, { 1, 1, 2, 2 }, false, NULL, false }, absent, scales };
	expect_error("resize_bool_linear", OP_RESIZE, 13, xb, 3, &linear, 1, DC_SHAPE, "nearest");
	ErrIn ok[3] = { x4, absent, scales };
	expect_error("resize_crop_no_roi", OP_RESIZE, 13, ok, 3, &crop, 1, DC_SHAPE, "roi");
	ErrIn short_roi[3] = { x4, { DT_F32, 1, { 4 }, true, roi4, false }, scales };
	expect_error("resize_roi_length", OP_RESIZE, 13, short_roi, 3, &crop, 1, DC_SHAPE, "expected 8");
	expect_error("resize_bad_mode", OP_RESIZE, 13, ok, 3, &bad_mode, 1, DC_PARSE, "lanczos");
	ErrIn ok2[4] = { x4, absent, absent, { DT_I64, 1, { 2 }, true, sz4, false } };
	expect_error("resize_axes_dup", OP_RESIZE, 18, ok2, 4, &dup, 1, DC_SHAPE, "repeated");
	ErrIn up_rt[2] = { x4, scales_rt };
	expect_error("upsample_scales_runtime", OP_UPSAMPLE, 9, up_rt, 2, NULL, 0, DC_CONST_INPUT, "--bind");

	ErrIn gs[2] = { x4, { DT_F32, 4, { 1, 3, 3, 3 }, false, NULL, false } };
	expect_error("gridsample_grid_shape", OP_GRID_SAMPLE, 16, gs, 2, NULL, 0, DC_SHAPE, "grid");
	ErrIn gsi[2] = { x4, { DT_I32, 4, { 1, 3, 3, 2 }, false, NULL, false } };
	expect_error("gridsample_grid_int", OP_GRID_SAMPLE, 16, gsi, 2, NULL, 0, DC_TYPE, "i32");

	static const int64_t ag4[] = { 2, 1, 3, 4 }, ag5[] = { 2, 1, 2, 3, 4 }, ag3[] = { 2, 3, 4 };
	static const int64_t ag4n3[] = { 3, 1, 3, 4 };
	ErrIn th2 = { DT_F32, 3, { 2, 2, 3 }, false, NULL, false };
	ErrIn ag_3d[2] = { th2, { DT_I64, 1, { 5 }, true, ag5, false } };
	expect_error("affinegrid_theta_3d", OP_AFFINE_GRID, 20, ag_3d, 2, NULL, 0, DC_SHAPE,
	             "expected theta [2, 3, 4]");
	ErrIn ag_n[2] = { th2, { DT_I64, 1, { 4 }, true, ag4n3, false } };
	expect_error("affinegrid_batch", OP_AFFINE_GRID, 20, ag_n, 2, NULL, 0, DC_SHAPE,
	             "expected theta [3, 2, 3]");
	ErrIn ag_len[2] = { th2, { DT_I64, 1, { 3 }, true, ag3, false } };
	expect_error("affinegrid_size_len", OP_AFFINE_GRID, 20, ag_len, 2, NULL, 0, DC_SHAPE,
	             "(N, C, H, W)");
	ErrIn ag_rt[2] = { th2, { DT_I64, 1, { 4 }, false, NULL, false } };
	expect_error("affinegrid_size_runtime", OP_AFFINE_GRID, 20, ag_rt, 2, NULL, 0,
	             DC_CONST_INPUT, "--bind");
	ErrIn ag_int[2] = { { DT_I32, 3, { 2, 2, 3 }, false, NULL, false },
	                    { DT_I64, 1, { 4 }, true, ag4, false } };
	expect_error("affinegrid_theta_int", OP_AFFINE_GRID, 20, ag_int, 2, NULL, 0, DC_TYPE, "i32");

	ErrIn ra[3] = { x4, { DT_F32, 2, { 3, 5 }, false, NULL, false },
	                { DT_I64, 1, { 3 }, false, NULL, false } };
	expect_error("roialign_rois_shape", OP_ROI_ALIGN, 16, ra, 3, NULL, 0, DC_SHAPE, "rois");
	ErrIn rb[3] = { x4, { DT_F32, 2, { 3, 4 }, false, NULL, false },
	                { DT_I64, 1, { 2 }, false, NULL, false } };
	expect_error("roialign_batch_len", OP_ROI_ALIGN, 16, rb, 3, NULL, 0, DC_SHAPE, "batch_indices");

	ErrIn nb[2] = { { DT_F32, 3, { 1, 4, 5 }, false, NULL, false },
	                { DT_F32, 3, { 1, 1, 4 }, false, NULL, false } };
	expect_error("nms_boxes_shape", OP_NON_MAX_SUPPRESSION, 11, nb, 2, NULL, 0, DC_SHAPE, "boxes");
	ErrIn ns[2] = { { DT_F32, 3, { 1, 4, 4 }, false, NULL, false },
	                { DT_F32, 3, { 1, 1, 5 }, false, NULL, false } };
	expect_error("nms_scores_shape", OP_NON_MAX_SUPPRESSION, 11, ns, 2, NULL, 0, DC_SHAPE, "scores");

	RawAttr kshape = attr_ints("kernel_shape", ks, 2);
	ErrIn mu[2] = { x4, { DT_I64, 4, { 1, 1, 2, 3 }, false, NULL, false } };
	expect_error("maxunpool_indices_shape", OP_MAX_UNPOOL, 11, mu, 2, &kshape, 1, DC_SHAPE, "shape");
	expect_error("maxunpool_no_kernel", OP_MAX_UNPOOL, 11, mu, 2, NULL, 0, DC_PARSE, "kernel_shape");

	ErrIn ci[3] = { { DT_F32, 3, { 1, 8, 8 }, false, NULL, false },
	                { DT_I64, 1, { 2 }, true, img, false }, { DT_I64, 1, { 2 }, true, blk, false } };
	expect_error("col2im_positions", OP_COL2IM, 18, ci, 3, NULL, 0, DC_SHAPE, "block positions");
	ErrIn ci_rt[3] = { { DT_F32, 3, { 1, 8, 9 }, false, NULL, false },
	                   { DT_I64, 1, { 2 }, false, NULL, false }, { DT_I64, 1, { 2 }, true, blk, false } };
	expect_error("col2im_image_runtime", OP_COL2IM, 18, ci_rt, 3, NULL, 0, DC_CONST_INPUT, "--bind");

	RawAttr groups = attr_i("num_groups", 3);
	ErrIn gn[3] = { { DT_F32, 3, { 1, 4, 2 }, false, NULL, false },
	                { DT_F32, 1, { 3 }, false, NULL, false }, { DT_F32, 1, { 3 }, false, NULL, false } };
	expect_error("groupnorm_groups", OP_GROUP_NORMALIZATION, 18, gn, 3, &groups, 1, DC_SHAPE,
	             "num_groups");
	expect_error("groupnorm_no_groups", OP_GROUP_NORMALIZATION, 18, gn, 3, NULL, 0, DC_PARSE,
	             "num_groups");

	RawAttr p3 = attr_i("p", 3);
	expect_error("lpnorm_p3", OP_LP_NORMALIZATION, 1, &x4, 1, &p3, 1, DC_PARSE, "1 or 2");
	ErrIn xi = { DT_I32, 4, { 1, 1, 2, 2 }, false, NULL, false };
	expect_error("lrn_int", OP_LRN, 13, &xi, 1, &groups, 0, DC_PARSE, "size");
	RawAttr sz = attr_i("size", 3);
	expect_error("lrn_int_dtype", OP_LRN, 13, &xi, 1, &sz, 1, DC_TYPE, "i32");
	ErrIn x3 = { DT_F32, 3, { 2, 3, 4 }, false, NULL, false };
	expect_error("mvn_default_axes_rank3", OP_MEAN_VARIANCE_NORMALIZATION, 13, &x3, 1, NULL, 0,
	             DC_SHAPE, "out of range");
	RawAttr k5 = attr_ints("kernel_shape", sz4 + 2, 2);
	expect_error("lppool_kernel_too_big", OP_LP_POOL, 11, &x4, 1, &k5, 1, DC_SHAPE, "kernel");
}

/* Index inputs out of range stop the kernel with INGOT_ERANGE. */
static void range_cases(void)
{
	/* RoiAlign with a batch index beyond N */
	{
		ingot_roi_align_params p;
		float x[4] = { 1, 2, 3, 4 }, rois[4] = { 0, 0, 1, 1 }, y[1];
		int64_t bi[1] = { 1 };
		const void *in[3] = { x, rois, bi };
		void *out[1] = { y };
		memset(&p, 0, sizeof p);
		p.dtype = INGOT_DT_F32;
		p.n = p.c = 1;
		p.h = p.w = 2;
		p.n_rois = p.out_h = p.out_w = 1;
		p.spatial_scale = 1.0f;
		CHECK(ingot_roi_align(&p, in, out, NULL, 0, 1) == INGOT_ERANGE, "roi_align: expected ERANGE");
		bi[0] = 0;
		CHECK(ingot_roi_align(&p, in, out, NULL, 0, 1) == INGOT_OK, "roi_align: expected OK");
	}
	/* MaxUnpool with an index beyond the unpooled tensor */
	{
		Built b;
		static const uint8_t xd[16], id0[32];
		static const int64_t ks[] = { 2, 2 };
		TCase tc;
		memset(&tc, 0, sizeof tc);
		tc.name = "maxunpool_range";
		tc.op = OP_MAX_UNPOOL;
		tc.opset = 11;
		tc.n_in = 2;
		tc.in[0] = (TTensor){ DT_F32, 4, { 1, 1, 2, 2 }, xd, 16, 0, 0 };
		tc.in[1] = (TTensor){ DT_I64, 4, { 1, 1, 2, 2 }, id0, 32, 0, 0 };
		tc.n_attr = 1;
		tc.attrs[0] = (TAttr){ "kernel_shape", RA_INTS, 0, 0, NULL, ks, NULL, 2 };
		if (build(&b, &tc) == 0) {
			float x[4] = { 1, 2, 3, 4 }, y[9];
			int64_t ind[4] = { 0, 1, 9, 2 };
			const void *in[2] = { x, ind };
			void *out[1] = { y };
			CHECK(b.g.values[b.out].type.dims[2] == 3, "maxunpool: expected 3x3 output");
			CHECK(ops_run_node(&b.g, b.n, in, out) == INGOT_ERANGE, "maxunpool: expected ERANGE");
			ind[2] = -1;
			CHECK(ops_run_node(&b.g, b.n, in, out) == INGOT_ERANGE, "maxunpool: negative index");
			ind[2] = 8;
			CHECK(ops_run_node(&b.g, b.n, in, out) == INGOT_OK && y[8] == 3.0f && y[4] == 0.0f,
			      "maxunpool: expected OK");
		}
		diag_sink_free(&b.d);
		ir_graph_free(&b.g);
	}
}

int main(void)
{
	for (int i = 0; i < COUNTOF(cases); i++)
		run_case(&cases[i]);
	error_cases();
	range_cases();
	printf("image: %d reference cases, error and range cases\n", COUNTOF(cases));
	return harness_done("image");
}
