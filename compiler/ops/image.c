/* image.c — op groups resize (Resize 10-19), upsample (Upsample 1-10), grid_sample,
 * affine_grid, roi_align and nms (NonMaxSuppression): import, inference and lowering to
 * runtime-stubs/kernels/image.c. Resize and Upsample share one plan: whichever of
 * scales / sizes (attribute or input, an empty tensor meaning absent), axes and
 * keep_aspect_ratio_policy a node uses resolves to per-axis scales and output dims.
 * Opset differences: Resize-10 and Upsample use asymmetric coordinates and ONNX
 * Runtime's simple nearest rounding; Resize-11 adds roi, sizes and the transform
 * attributes; 18 adds antialias, axes, keep_aspect_ratio_policy; 19
 * half_pixel_symmetric. GridSample-20 renames the modes and allows N-D; RoiAlign-16
 * adds coordinate_transformation_mode (before: output_half_pixel). NMS output
 * rows are data-dependent: exact when every input is constant, else a dynamic
 * value bounded by batch * classes * min(boxes, max_output_boxes_per_class). */
#include "opimpl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "image.h"

/* Shapes stay far from int64 overflow (as pool.c). */
#define SIZE_MAX_BYTES OPS_MAX_TENSOR_BYTES
#define MAX_TAPS 4096

static const char *const interp_names[] = { "nearest", "linear", "cubic", NULL };
static const char *const ctm_names[] = { "half_pixel", "half_pixel_symmetric",
	"pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn",
	"tf_crop_and_resize", NULL };
/* "simple" is no ONNX value: it names Resize-10 / Upsample rounding in the IR text */
static const char *const nearest_names[] = { "round_prefer_floor", "round_prefer_ceil",
	"floor", "ceil", "simple", NULL };
enum { KAR_STRETCH, KAR_NOT_LARGER, KAR_NOT_SMALLER };
static const char *const kar_names[] = { "stretch", "not_larger", "not_smaller", NULL };

/* import_enum, but an empty string (some exporters write one) means the default. */
static int enum_attr(ImportCtx *c, const char *name, const char *const *names, int def, int *out)
{
	const RawAttr *a = import_find(c, name);
	if (a && a->kind == RA_STRING && a->s && !a->s[0]) {
		*out = def;
		return 0;
	}
	return import_enum(c, name, names, def, out);
}

/* Interpolation mode, with the older spellings (bilinear, trilinear, bicubic). */
static int interp_attr(ImportCtx *c, const char *name, int def, int *out)
{
	static const char *const alias[] = { "nearest", "bilinear", "bicubic", "trilinear", NULL };
	static const int alias_mode[] = { INGOT_INTERP_NEAREST, INGOT_INTERP_LINEAR,
	                                  INGOT_INTERP_CUBIC, INGOT_INTERP_LINEAR };
	const RawAttr *a = import_find(c, name);
	if (a && a->kind == RA_STRING && a->s)
		for (int i = 0; alias[i]; i++)
			if (strcmp(a->s, alias[i]) == 0) {
				*out = alias_mode[i];
				return 0;
			}
	return enum_attr(c, name, interp_names, def, out);
}

/* An optional input that is present and not empty (exporters write empty roi /
 * scales tensors for "absent"). */
static bool given(InferCtx *c, int slot)
{
	const Type *t = infer_in(c, slot);
	return t && type_numel(t) > 0;
}

static const Type *in_type(Graph *g, const Node *n, int slot)
{
	return &ir_value(g, n->in[slot])->type;
}

/* ---- Resize and Upsample: the shared plan ---- */

typedef struct ResizeAttrs {
	int mode;                  /* INGOT_INTERP_* */
	int ctm;                   /* INGOT_CTM_* */
	int nearest_mode;          /* INGOT_NEAREST_* */
	int keep_aspect_ratio_policy;
	int64_t antialias, exclude_outside;
	float cubic_coeff_a, extrapolation_value;
	IntList axes;              /* n = -1: all axes */
	FloatList scales;          /* Upsample before opset 9 (attribute) */
} ResizeAttrs;

static const AttrField resize_fields[] = {
	{ "mode", AK_ENUM, offsetof(ResizeAttrs, mode), interp_names },
	{ "coordinate_transformation_mode", AK_ENUM, offsetof(ResizeAttrs, ctm), ctm_names },
	{ "nearest_mode", AK_ENUM, offsetof(ResizeAttrs, nearest_mode), nearest_names },
	{ "keep_aspect_ratio_policy", AK_ENUM, offsetof(ResizeAttrs, keep_aspect_ratio_policy),
	  kar_names },
	{ "antialias", AK_INT, offsetof(ResizeAttrs, antialias), NULL },
	{ "exclude_outside", AK_INT, offsetof(ResizeAttrs, exclude_outside), NULL },
	{ "cubic_coeff_a", AK_FLOAT, offsetof(ResizeAttrs, cubic_coeff_a), NULL },
	{ "extrapolation_value", AK_FLOAT, offsetof(ResizeAttrs, extrapolation_value), NULL },
	{ "axes", AK_INTS, offsetof(ResizeAttrs, axes), NULL },
	{ "scales", AK_FLOATS, offsetof(ResizeAttrs, scales), NULL },
};

static int resize_import(ImportCtx *c)
{
	ResizeAttrs *a = c->attrs;
	int old = ir_node(c->g, c->node)->opset < 11;
	if (interp_attr(c, "mode", INGOT_INTERP_NEAREST, &a->mode) ||
	    enum_attr(c, "coordinate_transformation_mode", ctm_names,
	              old ? INGOT_CTM_ASYMMETRIC : INGOT_CTM_HALF_PIXEL, &a->ctm) ||
	    enum_attr(c, "nearest_mode", nearest_names,
	              old ? INGOT_NEAREST_SIMPLE : INGOT_NEAREST_ROUND_PREFER_FLOOR,
	              &a->nearest_mode) ||
	    enum_attr(c, "keep_aspect_ratio_policy", kar_names, KAR_STRETCH,
	              &a->keep_aspect_ratio_policy) ||
	    import_int(c, "antialias", 0, &a->antialias) ||
	    import_int(c, "exclude_outside", 0, &a->exclude_outside) ||
	    import_float(c, "cubic_coeff_a", -0.75f, &a->cubic_coeff_a) ||
	    import_float(c, "extrapolation_value", 0.0f, &a->extrapolation_value) ||
	    import_ints(c, "axes", &a->axes))
		return -1;
	a->scales.n = -1;
	a->antialias = a->antialias != 0;
	a->exclude_outside = a->exclude_outside != 0;
	return 0;
}

static int upsample_import(ImportCtx *c)
{
	ResizeAttrs *a = c->attrs;
	float hs, ws;
	memset(a, 0, sizeof *a);
	a->ctm = INGOT_CTM_ASYMMETRIC;
	a->nearest_mode = INGOT_NEAREST_SIMPLE;
	a->cubic_coeff_a = -0.75f;
	a->axes.n = -1;
	if (interp_attr(c, "mode", INGOT_INTERP_NEAREST, &a->mode) ||
	    import_floats(c, "scales", &a->scales) ||
	    import_float(c, "height_scale", 0.0f, &hs) || import_float(c, "width_scale", 0.0f, &ws))
		return -1;
	if (a->mode == INGOT_INTERP_CUBIC)
		return import_fail(c, "mode", "Upsample supports nearest and linear, not cubic");
	if (a->scales.n < 0 && (hs > 0.0f || ws > 0.0f)) {   /* Upsample-1: 4-D only */
		a->scales.v = arena_array(&c->g->arena, 4, sizeof *a->scales.v);
		a->scales.n = 4;
		a->scales.v[0] = a->scales.v[1] = 1.0f;
		a->scales.v[2] = hs > 0.0f ? hs : 1.0f;
		a->scales.v[3] = ws > 0.0f ? ws : 1.0f;
	}
	return 0;
}

typedef struct ResizePlan {
	int rank;
	int64_t out[IR_MAX_RANK], taps[IR_MAX_RANK];
	double scale[IR_MAX_RANK], roi_lo[IR_MAX_RANK], roi_hi[IR_MAX_RANK];
	int64_t scratch;
} ResizePlan;

/* Taps per output coordinate of axis d (see INGOT_RESIZE_FIELDS). */
static int64_t resize_taps(const ResizeAttrs *a, const ResizePlan *pl, int d, int64_t in)
{
	double s = pl->scale[d];
	if (s == 1.0 && pl->out[d] == in && a->ctm != INGOT_CTM_TF_CROP_AND_RESIZE &&
	    a->ctm != INGOT_CTM_TF_HALF_PIXEL_FOR_NN)
		return 0;
	if (a->mode == INGOT_INTERP_NEAREST)
		return 1;
	if (!a->antialias || s >= 1.0)
		return a->mode == INGOT_INTERP_LINEAR ? 2 : 4;
	/* the antialiased filter widens by 1/scale (the reference's footprint) */
	double start = floor((a->mode == INGOT_INTERP_LINEAR ? -1.0 : -2.0) / s) + 1.0;
	double k = 2.0 - 2.0 * start;
	return k > MAX_TAPS ? -1 : (int64_t)k;
}

/* Resolves scales / sizes / axes / roi into a plan; 0 or -1 (diagnostic). */
static int resize_plan(InferCtx *c, ResizePlan *pl)
{
	Node *n = infer_node(c);
	const ResizeAttrs *a = n->attrs;
	const Type *x = infer_in(c, 0);
	bool up = n->op == OP_UPSAMPLE;
	int roi_slot = up || n->opset < 11 ? -1 : 1, scales_slot = roi_slot < 0 ? 1 : 2;
	int sizes_slot = roi_slot < 0 ? -1 : 3, naxes, ax[IR_MAX_RANK];
	double *sc = NULL, *roi = NULL;
	int64_t *sz = NULL;
	int n_sc = 0, n_sz = 0, n_roi = 0;
	memset(pl, 0, sizeof *pl);
	if (infer_check_dtype(c, 0, dtl_all) || infer_check_size(c, 0))
		return -1;
	if (x->rank < 1)
		return infer_fail(c, 0, "expected rank >= 1, got a scalar");
	if (x->dtype == DT_BOOL && a->mode != INGOT_INTERP_NEAREST)
		return infer_fail(c, 0, "bool tensors resize only with mode nearest");
	pl->rank = x->rank;
	if (a->axes.n > 0) {
		unsigned seen = 0;
		naxes = a->axes.n;
		if (naxes > x->rank)
			return infer_fail_attr(c, "axes", "%d axes for rank %d", naxes, x->rank);
		for (int i = 0; i < naxes; i++) {
			int64_t d;
			if (infer_normalize_axis(c, a->axes.v[i], x->rank, &d))
				return -1;
			if (seen & (1u << d))
				return infer_fail_attr(c, "axes", "axis %lld is repeated", (long long)a->axes.v[i]);
			seen |= 1u << d;
			ax[i] = (int)d;
		}
	} else {
		naxes = x->rank;
		for (int i = 0; i < naxes; i++)
			ax[i] = i;
	}

	bool has_sc = up && a->scales.n >= 0 ? true : given(c, scales_slot);
	bool has_sz = sizes_slot >= 0 && given(c, sizes_slot);
	if (has_sc && has_sz)
		return infer_fail(c, sizes_slot, "only one of scales and sizes may be given");
	if (!has_sc && !has_sz)
		return infer_fail(c, -1, "needs scales or sizes (both are absent or empty)");
	if (has_sc && up && a->scales.n >= 0) {
		n_sc = a->scales.n;
		sc = arena_array(&c->g->arena, (size_t)(n_sc ? n_sc : 1), sizeof *sc);
		for (int i = 0; i < n_sc; i++)
			sc[i] = a->scales.v[i];
	} else if (has_sc) {
		if (infer_check_dtype(c, scales_slot, dtl_float) ||
		    infer_const_f64s(c, scales_slot, &sc, &n_sc))
			return -1;
	} else {
		static const DType i64only[] = { DT_I64, DT_UNDEF };
		if (infer_check_dtype(c, sizes_slot, i64only) || infer_const_ints(c, sizes_slot, &sz, &n_sz))
			return -1;
	}
	if ((has_sc ? n_sc : n_sz) != naxes)
		return infer_fail(c, has_sc ? scales_slot : sizes_slot, "expected %d values (one per %s), got %d",
		                  naxes, a->axes.n > 0 ? "axis in axes" : "dim", has_sc ? n_sc : n_sz);
	for (int d = 0; d < x->rank; d++) {
		pl->scale[d] = 1.0;
		pl->out[d] = x->dims[d];
		pl->roi_lo[d] = 0.0;
		pl->roi_hi[d] = 1.0;
	}
	if (has_sc) {
		for (int i = 0; i < naxes; i++) {
			double s = sc[i], o = floor(s * (double)x->dims[ax[i]]);
			if (!(s > 0.0) || !isfinite(s) || !(o <= (double)SIZE_MAX_BYTES))
				return infer_fail(c, scales_slot, "scale %g is not a positive finite number "
				                  "giving a plannable size", s);
			pl->scale[ax[i]] = s;
			pl->out[ax[i]] = (int64_t)o;
		}
	} else {
		double lo = 0.0, hi = 0.0;
		for (int i = 0; i < naxes; i++) {
			int64_t in = x->dims[ax[i]];
			if (sz[i] < 0 || sz[i] > SIZE_MAX_BYTES)
				return infer_fail(c, sizes_slot, "size %lld is out of range", (long long)sz[i]);
			if (in == 0 && sz[i] > 0)
				return infer_fail(c, 0, "cannot resize empty dim %d to %lld", ax[i], (long long)sz[i]);
			double s = in ? (double)sz[i] / (double)in : 1.0;
			lo = i == 0 || s < lo ? s : lo;
			hi = i == 0 || s > hi ? s : hi;
			pl->scale[ax[i]] = s;
			pl->out[ax[i]] = sz[i];
		}
		if (a->keep_aspect_ratio_policy != KAR_STRETCH) {
			double s = a->keep_aspect_ratio_policy == KAR_NOT_LARGER ? lo : hi;
			for (int i = 0; i < naxes; i++) {
				pl->scale[ax[i]] = s;
				pl->out[ax[i]] = (int64_t)(s * (double)x->dims[ax[i]] + 0.5);
			}
		}
	}
	if (a->ctm == INGOT_CTM_TF_CROP_AND_RESIZE) {
		if (roi_slot < 0 || !given(c, roi_slot))
			return infer_fail(c, -1, "coordinate_transformation_mode tf_crop_and_resize needs "
			                  "the roi input");
		if (infer_check_dtype(c, roi_slot, dtl_float) || infer_const_f64s(c, roi_slot, &roi, &n_roi))
			return -1;
		if (n_roi != 2 * naxes)
			return infer_fail(c, roi_slot, "expected %d values (starts, then ends), got %d",
			                  2 * naxes, n_roi);
		for (int i = 0; i < naxes; i++) {
			if (!isfinite(roi[i]) || !isfinite(roi[naxes + i]))
				return infer_fail(c, roi_slot, "roi values must be finite");
			pl->roi_lo[ax[i]] = roi[i];
			pl->roi_hi[ax[i]] = roi[naxes + i];
		}
	}
	for (int d = 0; d < x->rank; d++) {
		pl->taps[d] = resize_taps(a, pl, d, x->dims[d]);
		if (pl->taps[d] < 0)
			return infer_fail_attr(c, "antialias", "downscaling by %g is too strong to antialias",
			                       1.0 / pl->scale[d]);
		pl->scratch += 16 * pl->out[d] * pl->taps[d];
	}
	if (pl->scratch > (int64_t)1 << 32)
		return infer_fail(c, -1, "interpolation tables would need %lld bytes",
		                  (long long)pl->scratch);
	return 0;
}

static int resize_infer(InferCtx *c)
{
	ResizePlan pl;
	if (resize_plan(c, &pl))
		return -1;
	*infer_out(c, 0) = type_make(infer_in(c, 0)->dtype, pl.rank, pl.out);
	return 0;
}

static const ParamField resize_pfields[] = {
#define PARAM_STRUCT ingot_resize_params
	INGOT_RESIZE_FIELDS(PARAM_FIELD)
#undef PARAM_STRUCT
};
static const ParamDesc resize_desc = PARAM_DESC(ingot_resize_params, resize_pfields);

/* Re-runs an infer-side computation without reporting (lowering follows a
 * successful inference, so it cannot fail for a valid graph). */
static InferCtx quiet_ctx(LowerCtx *c, DiagSink *quiet)
{
	InferCtx ic = { c->g, c->node, quiet };
	diag_sink_init(quiet, NULL);
	return ic;
}

static int resize_lower(LowerCtx *c)
{
	Node *n = ir_node(c->g, c->node);
	const ResizeAttrs *a = n->attrs;
	DiagSink quiet;
	InferCtx ic = quiet_ctx(c, &quiet);
	ResizePlan pl;
	int rc = resize_plan(&ic, &pl);
	diag_sink_free(&quiet);
	if (rc)
		return -1;
	const Type *x = in_type(c->g, n, 0);
	ingot_resize_params *p = lower_params(c, &resize_desc);
	double *sc[8] = { &p->scale0, &p->scale1, &p->scale2, &p->scale3,
	                  &p->scale4, &p->scale5, &p->scale6, &p->scale7 };
	double *lo[8] = { &p->roi_lo0, &p->roi_lo1, &p->roi_lo2, &p->roi_lo3,
	                  &p->roi_lo4, &p->roi_lo5, &p->roi_lo6, &p->roi_lo7 };
	double *hi[8] = { &p->roi_hi0, &p->roi_hi1, &p->roi_hi2, &p->roi_hi3,
	                  &p->roi_hi4, &p->roi_hi5, &p->roi_hi6, &p->roi_hi7 };
	p->dtype = x->dtype;
	p->rank = x->rank;
	p->mode = a->mode;
	p->ctm = a->ctm;
	p->nearest = a->nearest_mode;
	p->exclude_outside = a->exclude_outside;
	p->antialias = a->mode != INGOT_INTERP_NEAREST && a->antialias;
	p->cubic_a = a->cubic_coeff_a;
	p->extrapolation = a->extrapolation_value;
	for (int d = 0; d < x->rank; d++) {
		p->x_dims[d] = x->dims[d];
		p->y_dims[d] = pl.out[d];
		p->taps[d] = pl.taps[d];
		*sc[d] = pl.scale[d];
		*lo[d] = pl.roi_lo[d];
		*hi[d] = pl.roi_hi[d];
	}
	LOWER_CALL(c, ingot_resize, &resize_desc, p);
	c->kc.split = true;   /* tasks own disjoint outputs; each fills its own scratch tables */
	c->kc.scratch_bytes = pl.scratch;
	return 0;
}

const OpImpl op_impl_resize = {
	sizeof(ResizeAttrs), resize_fields, COUNTOF(resize_fields),
	resize_import, resize_infer, resize_lower
};

const OpImpl op_impl_upsample = {
	sizeof(ResizeAttrs), resize_fields, COUNTOF(resize_fields),
	upsample_import, resize_infer, resize_lower
};

/* ---- GridSample ---- */

static const char *const gs_padding_names[] = { "zeros", "border", "reflection", NULL };

typedef struct GridSampleAttrs {
	int mode;                  /* INGOT_INTERP_* (bilinear/bicubic before opset 20) */
	int padding_mode;          /* INGOT_GS_* */
	int64_t align_corners;
} GridSampleAttrs;

static const AttrField grid_sample_fields[] = {
	{ "mode", AK_ENUM, offsetof(GridSampleAttrs, mode), interp_names },
	{ "padding_mode", AK_ENUM, offsetof(GridSampleAttrs, padding_mode), gs_padding_names },
	{ "align_corners", AK_INT, offsetof(GridSampleAttrs, align_corners), NULL },
};

static int grid_sample_import(ImportCtx *c)
{
	GridSampleAttrs *a = c->attrs;
	if (interp_attr(c, "mode", INGOT_INTERP_LINEAR, &a->mode) ||
	    enum_attr(c, "padding_mode", gs_padding_names, INGOT_GS_ZEROS, &a->padding_mode) ||
	    import_int(c, "align_corners", 0, &a->align_corners))
		return -1;
	a->align_corners = a->align_corners != 0;
	return 0;
}

static int grid_sample_infer(InferCtx *c)
{
	const Type *x = infer_in(c, 0), *g = infer_in(c, 1);
	char b1[96], b2[96];
	if (infer_check_dtype(c, 0, dtl_numeric) || infer_check_dtype(c, 1, dtl_float) ||
	    infer_check_size(c, 0) || infer_check_size(c, 1))
		return -1;
	if (x->rank < 3)
		return infer_fail(c, 0, "expected rank >= 3 (N, C, spatial...), got %d", x->rank);
	int nsp = x->rank - 2;
	if (g->rank != x->rank || g->dims[0] != x->dims[0] || g->dims[g->rank - 1] != nsp)
		return infer_fail(c, 1, "expected grid [%lld, out spatial..., %d] for X %s, got %s",
		                  (long long)x->dims[0], nsp, type_format(x, b1, sizeof b1),
		                  type_format(g, b2, sizeof b2));
	for (int d = 0; d < nsp; d++)
		if (x->dims[2 + d] == 0 && type_numel(g) > 0)
			return infer_fail(c, 0, "cannot sample an empty spatial dim");
	Type *y = infer_out(c, 0);
	*y = type_make(x->dtype, x->rank, x->dims);
	for (int d = 0; d < nsp; d++)
		y->dims[2 + d] = g->dims[1 + d];
	return 0;
}

static const ParamField grid_sample_pfields[] = {
#define PARAM_STRUCT ingot_grid_sample_params
	INGOT_GRID_SAMPLE_FIELDS(PARAM_FIELD)
#undef PARAM_STRUCT
};
static const ParamDesc grid_sample_desc = PARAM_DESC(ingot_grid_sample_params, grid_sample_pfields);

static int grid_sample_lower(LowerCtx *c)
{
	Node *n = ir_node(c->g, c->node);
	const GridSampleAttrs *a = n->attrs;
	const Type *x = in_type(c->g, n, 0), *y = &ir_value(c->g, n->out[0])->type;
	ingot_grid_sample_params *p = lower_params(c, &grid_sample_desc);
	p->dtype = x->dtype;
	p->g_dtype = in_type(c->g, n, 1)->dtype;
	p->nsp = x->rank - 2;
	p->mode = a->mode;
	p->padding = a->padding_mode;
	p->align_corners = a->align_corners;
	for (int d = 0; d < x->rank; d++) {
		p->x_dims[d] = x->dims[d];
		p->y_dims[d] = y->dims[d];
	}
	LOWER_CALL(c, ingot_grid_sample, &grid_sample_desc, p);
	return 0;
}

const OpImpl op_impl_grid_sample = {
	sizeof(GridSampleAttrs), grid_sample_fields, COUNTOF(grid_sample_fields),
	grid_sample_import, grid_sample_infer, grid_sample_lower
};

/* ---- AffineGrid (opset 20): the sampling grid GridSample reads ---- */

typedef struct AffineGridAttrs {
	int64_t align_corners;     /* 0 or 1 */
} AffineGridAttrs;

static const AttrField affine_grid_fields[] = {
	{ "align_corners", AK_INT, offsetof(AffineGridAttrs, align_corners), NULL },
};

static int affine_grid_import(ImportCtx *c)
{
	AffineGridAttrs *a = c->attrs;
	if (import_int(c, "align_corners", 0, &a->align_corners))
		return -1;
	a->align_corners = a->align_corners != 0;
	return 0;
}

/* theta [N, 2, 3] with size (N, C, H, W) gives [N, H, W, 2]; theta [N, 3, 4] with
 * size (N, C, D, H, W) gives [N, D, H, W, 3]. size must be a constant. */
static int affine_grid_infer(InferCtx *c)
{
	const Type *th = infer_in(c, 0);
	char b[96];
	int64_t *size;
	int n;
	if (infer_check_dtype(c, 0, dtl_float) || infer_const_ints(c, 1, &size, &n))
		return -1;
	if (infer_in(c, 1)->rank != 1 || (n != 4 && n != 5))
		return infer_fail(c, 1, "expected (N, C, H, W) or (N, C, D, H, W), got %d values", n);
	int nsp = n - 2;
	if (th->rank != 3 || th->dims[1] != nsp || th->dims[2] != nsp + 1 || th->dims[0] != size[0])
		return infer_fail(c, 0, "expected theta [%lld, %d, %d] for a size of %d values, got %s",
		                  (long long)size[0], nsp, nsp + 1, n, type_format(th, b, sizeof b));
	Type *y = infer_out(c, 0);
	*y = type_make(th->dtype, nsp + 2, NULL);
	y->dims[0] = size[0];
	for (int d = 0; d < nsp; d++) {
		if (size[2 + d] < 0)
			return infer_fail(c, 1, "size %lld is negative", (long long)size[2 + d]);
		y->dims[1 + d] = size[2 + d];
	}
	y->dims[nsp + 1] = nsp;
	return infer_check_size(c, 0);
}

static const ParamField affine_grid_pfields[] = {
#define PARAM_STRUCT ingot_affine_grid_params
	INGOT_AFFINE_GRID_FIELDS(PARAM_FIELD)
#undef PARAM_STRUCT
};
static const ParamDesc affine_grid_desc = PARAM_DESC(ingot_affine_grid_params, affine_grid_pfields);

static int affine_grid_lower(LowerCtx *c)
{
	Node *n = ir_node(c->g, c->node);
	const AffineGridAttrs *a = n->attrs;
	const Type *y = &ir_value(c->g, n->out[0])->type;
	ingot_affine_grid_params *p = lower_params(c, &affine_grid_desc);
	p->dtype = y->dtype;
	p->nsp = y->rank - 2;
	p->n = y->dims[0];
	for (int d = 0; d < p->nsp; d++)
		p->sp[d] = y->dims[1 + d];
	p->align_corners = a->align_corners;
	LOWER_CALL(c, ingot_affine_grid, &affine_grid_desc, p);
	c->kc.split = true;   /* tasks own disjoint grid points */
	return 0;
}

const OpImpl op_impl_affine_grid = {
	sizeof(AffineGridAttrs), affine_grid_fields, COUNTOF(affine_grid_fields),
	affine_grid_import, affine_grid_infer, affine_grid_lower
};

/* ---- RoiAlign ---- */

static const char *const roi_mode_names[] = { "avg", "max", NULL };
static const char *const roi_ctm_names[] = { "output_half_pixel", "half_pixel", NULL };

typedef struct RoiAlignAttrs {
	int mode;                  /* 0 avg, 1 max */
	int ctm;                   /* 0 output_half_pixel, 1 half_pixel */
	int64_t output_height, output_width, sampling_ratio;
	float spatial_scale;
} RoiAlignAttrs;

static const AttrField roi_align_fields[] = {
	{ "mode", AK_ENUM, offsetof(RoiAlignAttrs, mode), roi_mode_names },
	{ "coordinate_transformation_mode", AK_ENUM, offsetof(RoiAlignAttrs, ctm), roi_ctm_names },
	{ "output_height", AK_INT, offsetof(RoiAlignAttrs, output_height), NULL },
	{ "output_width", AK_INT, offsetof(RoiAlignAttrs, output_width), NULL },
	{ "sampling_ratio", AK_INT, offsetof(RoiAlignAttrs, sampling_ratio), NULL },
	{ "spatial_scale", AK_FLOAT, offsetof(RoiAlignAttrs, spatial_scale), NULL },
};

static int roi_align_import(ImportCtx *c)
{
	RoiAlignAttrs *a = c->attrs;
	int def_ctm = ir_node(c->g, c->node)->opset >= 16;
	if (enum_attr(c, "mode", roi_mode_names, 0, &a->mode) ||
	    enum_attr(c, "coordinate_transformation_mode", roi_ctm_names, def_ctm, &a->ctm) ||
	    import_int(c, "output_height", 1, &a->output_height) ||
	    import_int(c, "output_width", 1, &a->output_width) ||
	    import_int(c, "sampling_ratio", 0, &a->sampling_ratio) ||
	    import_float(c, "spatial_scale", 1.0f, &a->spatial_scale))
		return -1;
	if (a->output_height < 1 || a->output_width < 1 || a->output_height > 1 << 20 ||
	    a->output_width > 1 << 20)
		return import_fail(c, a->output_height < 1 ? "output_height" : "output_width",
		                   "expected a value in 1..%d", 1 << 20);
	if (a->sampling_ratio < 0 || a->sampling_ratio > 1 << 16)
		return import_fail(c, "sampling_ratio", "expected a value in 0..%d, got %lld", 1 << 16,
		                   (long long)a->sampling_ratio);
	return 0;
}

static int roi_align_infer(InferCtx *c)
{
	const RoiAlignAttrs *a = infer_node(c)->attrs;
	const Type *x = infer_in(c, 0), *r = infer_in(c, 1), *b = infer_in(c, 2);
	static const DType i64only[] = { DT_I64, DT_UNDEF };
	char buf[96];
	if (infer_check_dtype(c, 0, dtl_float) || infer_same_dtype(c, 0, 1) ||
	    infer_check_dtype(c, 2, i64only) || infer_check_size(c, 0) || infer_check_size(c, 1))
		return -1;
	if (x->rank != 4)
		return infer_fail(c, 0, "expected rank 4 (N, C, H, W), got %d", x->rank);
	if (r->rank != 2 || r->dims[1] != 4)
		return infer_fail(c, 1, "expected rois [num_rois, 4], got %s", type_format(r, buf, sizeof buf));
	if (b->rank != 1 || b->dims[0] != r->dims[0])
		return infer_fail(c, 2, "expected batch_indices [%lld], got %s", (long long)r->dims[0],
		                  type_format(b, buf, sizeof buf));
	if ((x->dims[2] == 0 || x->dims[3] == 0) && r->dims[0] > 0)
		return infer_fail(c, 0, "cannot pool from an empty image");
	int64_t dims[4] = { r->dims[0], x->dims[1], a->output_height, a->output_width };
	*infer_out(c, 0) = type_make(x->dtype, 4, dims);
	return 0;
}

static const ParamField roi_align_pfields[] = {
#define PARAM_STRUCT ingot_roi_align_params
	INGOT_ROI_ALIGN_FIELDS(PARAM_FIELD)
#undef PARAM_STRUCT
};
static const ParamDesc roi_align_desc = PARAM_DESC(ingot_roi_align_params, roi_align_pfields);

static int roi_align_lower(LowerCtx *c)
{
	Node *n = ir_node(c->g, c->node);
	const RoiAlignAttrs *a = n->attrs;
	const Type *x = in_type(c->g, n, 0);
	ingot_roi_align_params *p = lower_params(c, &roi_align_desc);
	p->dtype = x->dtype;
	p->max = a->mode == 1;
	p->half_pixel = a->ctm == 1;
	p->n = x->dims[0];
	p->c = x->dims[1];
	p->h = x->dims[2];
	p->w = x->dims[3];
	p->n_rois = in_type(c->g, n, 1)->dims[0];
	p->out_h = a->output_height;
	p->out_w = a->output_width;
	p->sampling_ratio = a->sampling_ratio;
	p->spatial_scale = a->spatial_scale;
	LOWER_CALL(c, ingot_roi_align, &roi_align_desc, p);
	return 0;
}

const OpImpl op_impl_roi_align = {
	sizeof(RoiAlignAttrs), roi_align_fields, COUNTOF(roi_align_fields),
	roi_align_import, roi_align_infer, roi_align_lower
};

/* ---- NonMaxSuppression ---- */

typedef struct NmsAttrs {
	int64_t center_point_box;
} NmsAttrs;

static const AttrField nms_fields[] = {
	{ "center_point_box", AK_INT, offsetof(NmsAttrs, center_point_box), NULL },
};

static int nms_import(ImportCtx *c)
{
	NmsAttrs *a = c->attrs;
	if (import_int(c, "center_point_box", 0, &a->center_point_box))
		return -1;
	if (a->center_point_box != 0 && a->center_point_box != 1)
		return import_fail(c, "center_point_box", "expected 0 or 1, got %lld",
		                   (long long)a->center_point_box);
	return 0;
}

static const ParamField nms_pfields[] = {
#define PARAM_STRUCT ingot_nms_params
	INGOT_NMS_FIELDS(PARAM_FIELD)
#undef PARAM_STRUCT
};
static const ParamDesc nms_desc = PARAM_DESC(ingot_nms_params, nms_pfields);

static void nms_fill(Graph *g, const Node *n, ingot_nms_params *p)
{
	const Type *bx = in_type(g, n, 0), *sc = in_type(g, n, 1);
	p->batch = bx->dims[0];
	p->n_boxes = bx->dims[1];
	p->n_classes = sc->dims[1];
	p->center_point_box = ((const NmsAttrs *)n->attrs)->center_point_box;
	p->has_max = n->n_in > 2 && n->in[2] != IR_NONE;
	p->has_iou = n->n_in > 3 && n->in[3] != IR_NONE;
	p->has_score = n->n_in > 4 && n->in[4] != IR_NONE;
}

static int nms_infer(InferCtx *c)
{
	Node *n = infer_node(c);
	const Type *bx = infer_in(c, 0), *sc = infer_in(c, 1);
	static const DType f32only[] = { DT_F32, DT_UNDEF };
	static const DType i64only[] = { DT_I64, DT_UNDEF };
	char buf[96];
	if (infer_check_dtype(c, 0, f32only) || infer_check_dtype(c, 1, f32only) ||
	    infer_check_dtype(c, 2, i64only) || infer_check_dtype(c, 3, f32only) ||
	    infer_check_dtype(c, 4, f32only) || infer_check_size(c, 0) || infer_check_size(c, 1))
		return -1;
	if (bx->rank != 3 || bx->dims[2] != 4)
		return infer_fail(c, 0, "expected boxes [batch, boxes, 4], got %s", type_format(bx, buf, sizeof buf));
	if (sc->rank != 3 || sc->dims[0] != bx->dims[0] || sc->dims[2] != bx->dims[1])
		return infer_fail(c, 1, "expected scores [%lld, classes, %lld], got %s",
		                  (long long)bx->dims[0], (long long)bx->dims[1],
		                  type_format(sc, buf, sizeof buf));
	for (int s = 2; s < 5; s++)
		if (infer_has(c, s) && type_numel(infer_in(c, s)) != 1)
			return infer_fail(c, s, "expected one value, got %s",
			                  type_format(infer_in(c, s), buf, sizeof buf));
	/* rows bound: batch * classes * min(boxes, max_output_boxes_per_class) */
	int64_t per = bx->dims[1], bound;
	const void *mo = infer_const(c, 2);
	bool all_const = true;
	if (!infer_has(c, 2)) {
		per = 0;
	} else if (mo) {
		int64_t m;
		memcpy(&m, mo, sizeof m);
		per = m < 0 ? 0 : m < per ? m : per;
	}
	if (!size_mul(bx->dims[0], sc->dims[1], &bound) || !size_mul(bound, per, &bound) ||
	    bound > SIZE_MAX_BYTES)
		return infer_fail(c, 1, "too many candidate boxes");
	for (int s = 0; s < n->n_in; s++)
		all_const &= n->in[s] == IR_NONE || infer_const(c, s) != NULL;
	Value *out = ir_value(c->g, n->out[0]);
	out->dynamic = bound > 0 && !all_const;
	if (bound > 0 && all_const) {
		/* every input known: run the kernel now for the exact row count */
		ingot_nms_params p;
		int64_t dims[INGOT_MAX_RANK];
		const void *in[5] = { NULL, NULL, NULL, NULL, NULL };
		memset(&p, 0, sizeof p);
		nms_fill(c->g, n, &p);
		p.max_rows = bound;
		p.dynamic = 1;
		for (int s = 0; s < n->n_in && s < 5; s++)
			in[s] = infer_const(c, s);
		int64_t *rows = malloc((size_t)bound * 3 * sizeof *rows);
		int64_t *scratch = malloc((size_t)(2 * p.n_boxes + 1) * sizeof *scratch);
		void *o[2] = { rows, dims };
		if (!rows || !scratch)
			die("out of memory");
		int rc = ingot_nms(&p, in, o, scratch, 0, 1);
		free(rows);
		free(scratch);
		if (rc)
			return infer_fail(c, -1, "constant evaluation failed");
		bound = dims[0];
	}
	int64_t od[2] = { bound, 3 };
	out->type = type_make(DT_I64, 2, od);
	return 0;
}

static int nms_lower(LowerCtx *c)
{
	Node *n = ir_node(c->g, c->node);
	const Value *out = ir_value(c->g, n->out[0]);
	ingot_nms_params *p = lower_params(c, &nms_desc);
	nms_fill(c->g, n, p);
	p->max_rows = out->type.dims[0];
	p->dynamic = out->dynamic;
	LOWER_CALL(c, ingot_nms, &nms_desc, p);
	c->kc.scratch_bytes = 16 * p->n_boxes;
	return 0;
}

const OpImpl op_impl_nms = {
	sizeof(NmsAttrs), nms_fields, COUNTOF(nms_fields), nms_import, nms_infer, nms_lower
};
