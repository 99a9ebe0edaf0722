/* pool.c — op groups pool (MaxPool, AveragePool) and global_pool (GlobalMaxPool,
 * GlobalAveragePool): import, inference and lowering to runtime-stubs/kernels/
 * pool.c. Output dims follow the spec formulas (floor, or ceil with ceil_mode,
 * where a last window starting inside the end padding is dropped as in PyTorch
 * and ONNX Runtime); auto_pad SAME_* and VALID resolve to explicit pads here.
 * Opset differences: storage_order and Indices from 8, ceil_mode and dilations
 * (MaxPool) from 10/11, int8/uint8 MaxPool from 12; count_include_pad from 7.
 * Attributes a model carries are honoured at any opset (their defaults are the
 * earlier behaviour). */
#include "op_attrs.h"
#include "opimpl.h"

#include <string.h>

#include "pool.h"

#define POOL_MAX_SP 6

enum { PAD_NOTSET, PAD_SAME_UPPER, PAD_SAME_LOWER, PAD_VALID };
static const char *const auto_pad_names[] = { "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID",
                                              NULL };

static const AttrField pool_fields[] = {
	{ "auto_pad", AK_ENUM, offsetof(PoolAttrs, auto_pad), auto_pad_names },
	{ "ceil_mode", AK_INT, offsetof(PoolAttrs, ceil_mode), NULL, .has_default = true, .def = 0 },
	{ "count_include_pad", AK_INT, offsetof(PoolAttrs, count_include_pad), NULL, .has_default = true, .def = 0 },
	{ "storage_order", AK_INT, offsetof(PoolAttrs, storage_order), NULL, .has_default = true, .def = 0 },
	{ "dilations", AK_INTS, offsetof(PoolAttrs, dilations), NULL },
	{ "kernel_shape", AK_INTS, offsetof(PoolAttrs, kernel_shape), NULL },
	{ "pads", AK_INTS, offsetof(PoolAttrs, pads), NULL },
	{ "strides", AK_INTS, offsetof(PoolAttrs, strides), NULL },
};

static int pool_import(ImportCtx *c)
{
	PoolAttrs *a = c->attrs;
	const RawAttr *ap = import_find(c, "auto_pad");
	/* some exporters write auto_pad = "" for NOTSET */
	if (ap && ap->kind == RA_STRING && ap->s && !ap->s[0])
		a->auto_pad = PAD_NOTSET;
	else if (import_enum(c, "auto_pad", auto_pad_names, PAD_NOTSET, &a->auto_pad))
		return -1;
	if (import_int(c, "ceil_mode", 0, &a->ceil_mode) ||
	    import_int(c, "count_include_pad", 0, &a->count_include_pad) ||
	    import_int(c, "storage_order", 0, &a->storage_order) ||
	    import_ints(c, "dilations", &a->dilations) ||
	    import_ints(c, "kernel_shape", &a->kernel_shape) || import_ints(c, "pads", &a->pads) ||
	    import_ints(c, "strides", &a->strides))
		return -1;
	if (a->kernel_shape.n <= 0)
		return import_fail(c, "kernel_shape", "required attribute is missing");
	a->ceil_mode = a->ceil_mode != 0;
	a->count_include_pad = a->count_include_pad != 0;
	a->storage_order = a->storage_order != 0;
	return 0;
}

typedef struct PoolGeom {
	int nsp;
	int64_t k[POOL_MAX_SP], s[POOL_MAX_SP], d[POOL_MAX_SP];
	int64_t pb[POOL_MAX_SP], pe[POOL_MAX_SP], out[POOL_MAX_SP];
} PoolGeom;

/* Shape arithmetic stays far from int64 overflow: inputs are bounded like any
 * planned tensor, attribute values (strides, pads, kernel...) by ATTR_MAX. */
#define SIZE_MAX_BYTES OPS_MAX_TENSOR_BYTES
#define ATTR_MAX OPS_MAX_ATTR

static int pool_geom(InferCtx *c, PoolGeom *g)
{
	const PoolAttrs *a = infer_node(c)->attrs;
	const Type *x = infer_in(c, 0);
	int64_t pads[2 * POOL_MAX_SP];
	memset(g, 0, sizeof *g);
	if (infer_check_size(c, 0))
		return -1;
	if (x->rank < 3 || x->rank > POOL_MAX_SP + 2)
		return infer_fail(c, 0, "expected rank 3 to %d (N, C, spatial...), got %d",
		                  POOL_MAX_SP + 2, x->rank);
	g->nsp = x->rank - 2;
	if (infer_spatial_list(c, "kernel_shape", &a->kernel_shape, g->nsp, 1, 1, g->k) ||
	    infer_spatial_list(c, "strides", &a->strides, g->nsp, 1, 1, g->s) ||
	    infer_spatial_list(c, "dilations", &a->dilations, g->nsp, 1, 1, g->d) ||
	    infer_spatial_list(c, "pads", &a->pads, 2 * g->nsp, 0, 0, pads))
		return -1;
	for (int i = 0; i < g->nsp; i++) {
		int64_t in = x->dims[2 + i], ek = (g->k[i] - 1) * g->d[i] + 1, total, num;
		if (a->auto_pad == PAD_SAME_UPPER || a->auto_pad == PAD_SAME_LOWER) {
			g->out[i] = (in + g->s[i] - 1) / g->s[i];
			total = (g->out[i] - 1) * g->s[i] + ek - in;
			total = total > 0 ? total : 0;
			g->pb[i] = a->auto_pad == PAD_SAME_UPPER ? total / 2 : total - total / 2;
			g->pe[i] = total - g->pb[i];
			continue;
		}
		if (a->auto_pad == PAD_NOTSET) {
			g->pb[i] = pads[i];
			g->pe[i] = pads[g->nsp + i];
		}
		num = in + g->pb[i] + g->pe[i] - ek;
		if (num < 0)
			return infer_fail(c, 0, "spatial dim %d (%lld, padded %lld) is smaller than the "
			                  "dilated kernel (%lld)", i, (long long)in,
			                  (long long)(in + g->pb[i] + g->pe[i]), (long long)ek);
		g->out[i] = (a->ceil_mode ? num + g->s[i] - 1 : num) / g->s[i] + 1;
		if (a->ceil_mode && (g->out[i] - 1) * g->s[i] >= in + g->pb[i])
			g->out[i]--;                 /* the last window would start in the end pad */
	}
	return 0;
}

static const DType avg_dtypes[] = { DT_F16, DT_F32, DT_F64, DT_UNDEF };
static const DType max_dtypes[] = { DT_F16, DT_F32, DT_F64, DT_I8, DT_U8, DT_UNDEF };
static const DType q8_dtypes[] = { DT_I8, DT_U8, DT_UNDEF };
static const DType f32_dtypes[] = { DT_F32, DT_UNDEF };

static bool quantized(Op op)
{
	return op == OP_QLINEAR_AVERAGE_POOL || op == OP_QLINEAR_GLOBAL_AVERAGE_POOL;
}

/* QLinearAveragePool, QLinearGlobalAveragePool (ingot's own, passes/fold_qdq.c): 8-bit
 * x, then x_scale, x_zp, y_scale, y_zp, all scalars, y of x's dtype. */
static int quant_inputs(InferCtx *c)
{
	if (infer_check_dtype(c, 0, q8_dtypes))
		return -1;
	for (int s = 1; s <= 4; s++) {
		const Type *t = infer_in(c, s);
		if (!t)
			return infer_fail(c, s, "is required");
		if (infer_check_dtype(c, s, s & 1 ? f32_dtypes : q8_dtypes) ||
		    (!(s & 1) && infer_same_dtype(c, 0, s)))
			return -1;
		if (type_numel(t) != 1 || t->rank > 1)
			return infer_fail(c, s, "expected a scalar, got %lld values",
			                  (long long)type_numel(t));
	}
	return 0;
}

static int pool_infer(InferCtx *c)
{
	const Type *x = infer_in(c, 0);
	Type *y = infer_out(c, 0), *ind = infer_out(c, 1);
	PoolGeom g;
	Op op = infer_node(c)->op;
	if ((quantized(op) ? quant_inputs(c)
	                   : infer_check_dtype(c, 0, op == OP_MAX_POOL ? max_dtypes : avg_dtypes)) ||
	    pool_geom(c, &g))
		return -1;
	if (y) {
		*y = type_make(x->dtype, x->rank, x->dims);
		for (int i = 0; i < g.nsp; i++)
			y->dims[2 + i] = g.out[i];
	}
	if (ind) {
		*ind = type_make(DT_I64, x->rank, x->dims);
		for (int i = 0; i < g.nsp; i++)
			ind->dims[2 + i] = g.out[i];
	}
	return 0;
}

static const ParamField pool_pfields[] = {
#define PARAM_STRUCT ingot_pool_params
	INGOT_POOL_FIELDS(PARAM_FIELD)
#undef PARAM_STRUCT
};
static const ParamDesc pool_desc = PARAM_DESC(ingot_pool_params, pool_pfields);

static int pool_lower(LowerCtx *c)
{
	Node *n = ir_node(c->g, c->node);
	const PoolAttrs *a = n->attrs;
	InferCtx ic = { c->g, c->node, NULL };
	DiagSink quiet;
	PoolGeom g;
	int rc;
	diag_sink_init(&quiet, NULL);
	ic.diags = &quiet;
	rc = pool_geom(&ic, &g);
	diag_sink_free(&quiet);
	if (rc)
		return -1;
	const Type *x = &ir_value(c->g, n->in[0])->type;
	ingot_pool_params *p = lower_params(c, &pool_desc);
	p->dtype = x->dtype;
	p->kind = n->op == OP_MAX_POOL ? INGOT_POOL_MAX
	        : quantized(n->op) ? INGOT_POOL_QAVG : INGOT_POOL_AVG;
	p->nsp = g.nsp;
	p->count_include_pad = a->count_include_pad;
	p->storage_order = a->storage_order;
	p->has_indices = n->n_out > 1 && n->out[1] != IR_NONE;
	for (int i = 0; i < x->rank; i++)
		p->x_dims[i] = p->y_dims[i] = x->dims[i];
	for (int i = 0; i < g.nsp; i++) {
		p->y_dims[2 + i] = g.out[i];
		p->kernel[i] = g.k[i];
		p->strides[i] = g.s[i];
		p->dilations[i] = g.d[i];
		p->pads[i] = g.pb[i];
		p->pads[g.nsp + i] = g.pe[i];
	}
	LOWER_CALL(c, ingot_pool, &pool_desc, p);
	c->kc.split = true;   /* tasks own disjoint outputs */
	return 0;
}

const OpImpl op_impl_pool = {
	sizeof(PoolAttrs), pool_fields, COUNTOF(pool_fields),
	pool_import, pool_infer, pool_lower
};

/* ---- GlobalAveragePool, GlobalMaxPool ---- */

static int global_pool_infer(InferCtx *c)
{
	const Type *x = infer_in(c, 0);
	Type *y = infer_out(c, 0);
	if ((quantized(infer_node(c)->op) ? quant_inputs(c) : infer_check_dtype(c, 0, avg_dtypes)) ||
	    infer_check_size(c, 0))
		return -1;
	if (x->rank < 2)
		return infer_fail(c, 0, "expected rank >= 2 (N, C, spatial...), got %d", x->rank);
	*y = type_make(x->dtype, x->rank, x->dims);
	for (int i = 2; i < x->rank; i++)
		y->dims[i] = 1;
	return 0;
}

static const ParamField global_pool_pfields[] = {
#define PARAM_STRUCT ingot_global_pool_params
	INGOT_GLOBAL_POOL_FIELDS(PARAM_FIELD)
#undef PARAM_STRUCT
};
static const ParamDesc global_pool_desc =
	PARAM_DESC(ingot_global_pool_params, global_pool_pfields);

static int global_pool_lower(LowerCtx *c)
{
	Node *n = ir_node(c->g, c->node);
	const Type *x = &ir_value(c->g, n->in[0])->type;
	ingot_global_pool_params *p = lower_params(c, &global_pool_desc);
	p->dtype = x->dtype;
	p->kind = n->op == OP_GLOBAL_MAX_POOL ? INGOT_POOL_MAX
	        : quantized(n->op) ? INGOT_POOL_QAVG : INGOT_POOL_AVG;
	p->planes = x->dims[0] * x->dims[1];
	p->size = 1;
	for (int i = 2; i < x->rank; i++)
		p->size *= x->dims[i];
	LOWER_CALL(c, ingot_global_pool, &global_pool_desc, p);
	c->kc.split = true;   /* tasks own disjoint outputs */
	return 0;
}

const OpImpl op_impl_global_pool = { 0, NULL, 0, NULL, global_pool_infer, global_pool_lower };
