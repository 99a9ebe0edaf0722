/* roi_pool.c — op group max_roi_pool (MaxRoiPool, opsets 1 and 22): import,
 * inference and lowering to runtime-stubs/kernels/roi_pool.c. Opset 22 only adds
 * bfloat16. pooled_shape is required; spatial_scale defaults to 1. */
#include "opimpl.h"

#include "roi_pool.h"

typedef struct MaxRoiPoolAttrs {
	IntList pooled_shape;       /* [pooled_h, pooled_w] */
	float spatial_scale;        /* rois are multiplied by it before rounding */
} MaxRoiPoolAttrs;

static const AttrField max_roi_pool_fields[] = {
	{ "pooled_shape", AK_INTS, offsetof(MaxRoiPoolAttrs, pooled_shape), NULL },
	{ "spatial_scale", AK_FLOAT, offsetof(MaxRoiPoolAttrs, spatial_scale), NULL },
};

static int max_roi_pool_import(ImportCtx *c)
{
	MaxRoiPoolAttrs *a = c->attrs;
	if (import_ints(c, "pooled_shape", &a->pooled_shape) ||
	    import_float(c, "spatial_scale", 1.0f, &a->spatial_scale))
		return -1;
	if (a->pooled_shape.n != 2)
		return import_fail(c, "pooled_shape", a->pooled_shape.n < 0 ? "the attribute is required"
		                   : "expected 2 values (height, width)");
	for (int i = 0; i < 2; i++)
		if (a->pooled_shape.v[i] < 1 || a->pooled_shape.v[i] > OPS_MAX_ATTR)
			return import_fail(c, "pooled_shape", "expected values in 1..%lld, got %lld",
			                   (long long)OPS_MAX_ATTR, (long long)a->pooled_shape.v[i]);
	return 0;
}

static int max_roi_pool_infer(InferCtx *c)
{
	const MaxRoiPoolAttrs *a = infer_node(c)->attrs;
	const Type *x = infer_in(c, 0), *r = infer_in(c, 1);
	char buf[96];
	if (infer_check_dtype(c, 0, dtl_float) || infer_same_dtype(c, 0, 1) || infer_check_size(c, 0) ||
	    infer_check_size(c, 1))
		return -1;
	if (x->rank != 4)
		return infer_fail(c, 0, "expected rank 4 (N, C, H, W), got %d", x->rank);
	if (r->rank != 2 || r->dims[1] != 5)
		return infer_fail(c, 1, "expected rois [num_rois, 5], got %s", type_format(r, buf, sizeof buf));
	int64_t dims[4] = { r->dims[0], x->dims[1], a->pooled_shape.v[0], a->pooled_shape.v[1] };
	*infer_out(c, 0) = type_make(x->dtype, 4, dims);
	return 0;
}

#define PARAM_STRUCT ingot_roi_pool_params
static const ParamField roi_pool_pfields[] = { INGOT_ROI_POOL_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc roi_pool_desc = PARAM_DESC(ingot_roi_pool_params, roi_pool_pfields);

static int max_roi_pool_lower(LowerCtx *c)
{
	const MaxRoiPoolAttrs *a = c->g->nodes[c->node].attrs;
	const Type *x = lower_in(c, 0), *r = lower_in(c, 1);
	if (!x || !r || x->rank != 4)
		return -1;
	ingot_roi_pool_params *p = lower_params(c, &roi_pool_desc);
	p->dtype = x->dtype;
	p->n = x->dims[0];
	p->c = x->dims[1];
	p->h = x->dims[2];
	p->w = x->dims[3];
	p->n_rois = r->dims[0];
	p->ph = a->pooled_shape.v[0];
	p->pw = a->pooled_shape.v[1];
	p->spatial_scale = a->spatial_scale;
	LOWER_CALL(c, ingot_roi_pool, &roi_pool_desc, p);
	c->kc.split = true;   /* tasks own whole regions */
	return 0;
}

const OpImpl op_impl_max_roi_pool = { sizeof(MaxRoiPoolAttrs), max_roi_pool_fields,
                                      COUNTOF(max_roi_pool_fields), max_roi_pool_import,
                                      max_roi_pool_infer, max_roi_pool_lower };
