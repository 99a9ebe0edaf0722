/* conv.c — op groups conv (Conv) and conv_transpose (ConvTranspose): import,
 * inference and lowering to runtime-stubs/kernels/conv.c. One function resolves
 * the geometry (kernel from W, strides, dilations, auto_pad, output_shape and
 * output_padding) into begin/end pads and output dims, for infer and lower alike.
 * ConvTranspose pads from output_shape or SAME follow the ONNX 1.12 spec and node
 * tests: SAME_UPPER puts the odd padding at the end, otherwise at the start; a
 * negative total (output_shape larger than the full result) is 0, the extra
 * outputs getting just the bias. Conv and ConvTranspose have no opset differences
 * that change semantics (1 and 11 differ only in shape inference details).
 * Fusion (passes/fuse_epilogue.c) adds an epilogue no ONNX model carries: an
 * activation with its parameters and a residual as a trailing input 3, which the
 * kernel adds after the bias and before the activation. */
#include "opimpl.h"
#include "op_attrs.h"

#include <string.h>

#include "conv.h"
#include "ewmath.h"

#define CONV_MAX_SP 6

enum { PAD_NOTSET, PAD_SAME_UPPER, PAD_SAME_LOWER, PAD_VALID };
static const char *const auto_pad_names[] = { "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID",
                                              NULL };

/* ConvAttrs and its EpilogueAttrs are in op_attrs.h */

static const AttrField conv_fields[] = {
	{ "auto_pad", AK_ENUM, offsetof(ConvAttrs, auto_pad), auto_pad_names },
	{ "group", AK_INT, offsetof(ConvAttrs, group), NULL },
	{ "dilations", AK_INTS, offsetof(ConvAttrs, dilations), NULL },
	{ "kernel_shape", AK_INTS, offsetof(ConvAttrs, kernel_shape), NULL },
	{ "pads", AK_INTS, offsetof(ConvAttrs, pads), NULL },
	{ "strides", AK_INTS, offsetof(ConvAttrs, strides), NULL },
	{ "activation", AK_ENUM, offsetof(ConvAttrs, ep.activation), op_act_names, .has_default = true, .def = 0 },
	{ "act_params", AK_FLOATS, offsetof(ConvAttrs, ep.act_params), NULL },
	{ "residual", AK_INT, offsetof(ConvAttrs, ep.residual), NULL, .has_default = true, .def = 0 },
	/* ConvTranspose only: its table is this one with two more fields */
	{ "output_padding", AK_INTS, offsetof(ConvAttrs, output_padding), NULL },
	{ "output_shape", AK_INTS, offsetof(ConvAttrs, output_shape), NULL },
};

static int conv_import(ImportCtx *c)
{
	ConvAttrs *a = c->attrs;
	const RawAttr *ap = import_find(c, "auto_pad");
	/* some exporters write auto_pad = "" for NOTSET */
	if (ap && ap->kind == RA_STRING && ap->s && !ap->s[0])
		a->auto_pad = PAD_NOTSET;
	else if (import_enum(c, "auto_pad", auto_pad_names, PAD_NOTSET, &a->auto_pad))
		return -1;
	if (import_int(c, "group", 1, &a->group) || import_ints(c, "dilations", &a->dilations) ||
	    import_ints(c, "kernel_shape", &a->kernel_shape) || import_ints(c, "pads", &a->pads) ||
	    import_ints(c, "strides", &a->strides))
		return -1;
	a->ep.act_params.n = -1;
	if (ir_node(c->g, c->node)->op == OP_CONV_TRANSPOSE &&
	    (import_ints(c, "output_padding", &a->output_padding) ||
	     import_ints(c, "output_shape", &a->output_shape)))
		return -1;
	if (ir_node(c->g, c->node)->op != OP_CONV_TRANSPOSE) {
		a->output_padding.n = -1;
		a->output_shape.n = -1;
	}
	return 0;
}

typedef struct ConvGeom {
	int nsp;
	int64_t m;                           /* output channels */
	int64_t k[CONV_MAX_SP], s[CONV_MAX_SP], d[CONV_MAX_SP];
	int64_t pb[CONV_MAX_SP], pe[CONV_MAX_SP], out[CONV_MAX_SP];
} ConvGeom;

/* Shape arithmetic stays far from int64 overflow: inputs are bounded like any
 * planned tensor, attribute values (strides, pads, kernel...) by ATTR_MAX. */
#define SIZE_MAX_BYTES OPS_MAX_TENSOR_BYTES
#define ATTR_MAX OPS_MAX_ATTR

static int conv_geom(InferCtx *c, ConvGeom *g)
{
	const ConvAttrs *a = infer_node(c)->attrs;
	bool tr = infer_node(c)->op == OP_CONV_TRANSPOSE;
	const Type *x = infer_in(c, 0), *w = infer_in(c, 1);
	int64_t pads[2 * CONV_MAX_SP], opad[CONV_MAX_SP];
	memset(g, 0, sizeof *g);
	if (infer_check_size(c, 0) || infer_check_size(c, 1) || infer_check_size(c, 2))
		return -1;
	if (x->rank < 3 || x->rank > CONV_MAX_SP + 2)
		return infer_fail(c, 0, "expected rank 3 to %d (N, C, spatial...), got %d",
		                  CONV_MAX_SP + 2, x->rank);
	if (w->rank != x->rank)
		return infer_fail(c, 1, "expected rank %d (as X), got %d", x->rank, w->rank);
	g->nsp = x->rank - 2;
	if (a->group < 1 || a->group > ATTR_MAX)
		return infer_fail_attr(c, "group", "expected 1 to %lld, got %lld", (long long)ATTR_MAX,
		                       (long long)a->group);
	if (!tr) {
		if (w->dims[1] * a->group != x->dims[1])
			return infer_fail(c, 1, "expected dim 1 = %lld (channels / group), got %lld",
			                  (long long)(x->dims[1] / a->group), (long long)w->dims[1]);
		if (w->dims[0] % a->group)
			return infer_fail(c, 1, "output channels %lld not divisible by group %lld",
			                  (long long)w->dims[0], (long long)a->group);
		g->m = w->dims[0];
	} else {
		if (w->dims[0] != x->dims[1])
			return infer_fail(c, 1, "expected dim 0 = %lld (X's channels), got %lld",
			                  (long long)x->dims[1], (long long)w->dims[0]);
		if (x->dims[1] % a->group)
			return infer_fail(c, 0, "channels %lld not divisible by group %lld",
			                  (long long)x->dims[1], (long long)a->group);
		g->m = w->dims[1] * a->group;
	}
	for (int i = 0; i < g->nsp; i++) {
		g->k[i] = w->dims[2 + i];
		if (g->k[i] < 1)
			return infer_fail(c, 1, "kernel dim %d is %lld", i, (long long)g->k[i]);
	}
	if (a->kernel_shape.n > 0) {
		if (a->kernel_shape.n != g->nsp)
			return infer_fail_attr(c, "kernel_shape", "expected %d values, got %d", g->nsp,
			                       a->kernel_shape.n);
		for (int i = 0; i < g->nsp; i++)
			if (a->kernel_shape.v[i] != g->k[i])
				return infer_fail_attr(c, "kernel_shape", "value %lld differs from W's dim %lld",
				                       (long long)a->kernel_shape.v[i], (long long)g->k[i]);
	}
	if (infer_spatial_list(c, "strides", &a->strides, g->nsp, 1, 1, g->s) ||
	    infer_spatial_list(c, "dilations", &a->dilations, g->nsp, 1, 1, g->d) ||
	    infer_spatial_list(c, "pads", &a->pads, 2 * g->nsp, 0, 0, pads) ||
	    infer_spatial_list(c, "output_padding", &a->output_padding, g->nsp, 0, 0, opad))
		return -1;
	if (tr && a->output_shape.n >= 0 && a->output_shape.n != g->nsp &&
	    a->output_shape.n != g->nsp + 2)
		return infer_fail_attr(c, "output_shape", "expected %d values, got %d", g->nsp,
		                       a->output_shape.n);
	for (int i = 0; i < g->nsp; i++) {
		int64_t in = x->dims[2 + i], ek = (g->k[i] - 1) * g->d[i] + 1, total;
		g->pb[i] = pads[i];
		g->pe[i] = pads[g->nsp + i];
		if (a->auto_pad == PAD_VALID)
			g->pb[i] = g->pe[i] = 0;
		if (!tr) {
			if (a->auto_pad == PAD_SAME_UPPER || a->auto_pad == PAD_SAME_LOWER) {
				g->out[i] = (in + g->s[i] - 1) / g->s[i];
				total = (g->out[i] - 1) * g->s[i] + ek - in;
				total = total > 0 ? total : 0;
				g->pb[i] = a->auto_pad == PAD_SAME_UPPER ? total / 2 : total - total / 2;
				g->pe[i] = total - g->pb[i];
				continue;
			}
			if (in + g->pb[i] + g->pe[i] < ek)
				return infer_fail(c, 0, "spatial dim %d (%lld, padded %lld) is smaller than the "
				                  "dilated kernel (%lld)", i, (long long)in,
				                  (long long)(in + g->pb[i] + g->pe[i]), (long long)ek);
			g->out[i] = (in + g->pb[i] + g->pe[i] - ek) / g->s[i] + 1;
			continue;
		}
		int64_t full = g->s[i] * (in - 1) + opad[i] + ek;
		if (a->output_shape.n >= 0 || a->auto_pad == PAD_SAME_UPPER ||
		    a->auto_pad == PAD_SAME_LOWER) {
			g->out[i] = a->output_shape.n >= 0
			            ? a->output_shape.v[a->output_shape.n - g->nsp + i] : in * g->s[i];
			if (g->out[i] < 0 || g->out[i] > SIZE_MAX_BYTES)
				return infer_fail_attr(c, "output_shape", "invalid value %lld",
				                       (long long)g->out[i]);
			total = full - g->out[i];
			total = total > 0 ? total : 0;
			g->pb[i] = a->auto_pad == PAD_SAME_UPPER ? total / 2 : total - total / 2;
			g->pe[i] = total - g->pb[i];
			continue;
		}
		g->out[i] = full - g->pb[i] - g->pe[i];
		if (g->out[i] < 0)
			return infer_fail_attr(c, "pads", "pads exceed the output size in spatial dim %d", i);
	}
	return 0;
}

static const DType conv_dtypes[] = { DT_F16, DT_F32, DT_F64, DT_UNDEF };

/* The fused epilogue: parameters that fit the activation, a float dtype, and the
 * residual (input 3) present exactly when the flag says so, typed like Y. */
static int epilogue_infer(InferCtx *c, const Type *y)
{
	const EpilogueAttrs *a = &((const ConvAttrs *)infer_node(c)->attrs)->ep;
	const Type *r = infer_in(c, 3);
	int np = a->act_params.n < 0 ? 0 : a->act_params.n;
	if (a->activation < 0 || a->activation >= INGOT_EW_N_ACT)
		return infer_fail_attr(c, "activation", "unknown activation %d", a->activation);
	if (np != op_act_n_params[a->activation])
		return infer_fail_attr(c, "act_params", "%s takes %d parameters, got %d",
		                       op_act_names[a->activation], op_act_n_params[a->activation], np);
	if (a->residual != 0 && a->residual != 1)
		return infer_fail_attr(c, "residual", "expected 0 or 1, got %lld", (long long)a->residual);
	if (!a->residual) {
		if (r)
			return infer_fail(c, 3, "unexpected input (only a fused residual takes slot 3)");
		return 0;
	}
	if (!r)
		return infer_fail(c, 3, "the fused residual is missing");
	if (r->dtype != y->dtype || !type_same_shape(r, y)) {
		char b1[96], b2[96];
		return infer_fail(c, 3, "residual %s differs from the output %s",
		                  type_format(r, b1, sizeof b1), type_format(y, b2, sizeof b2));
	}
	return 0;
}

static int conv_infer(InferCtx *c)
{
	const Type *x = infer_in(c, 0), *b = infer_in(c, 2);
	ConvGeom g;
	if (infer_check_dtype(c, 0, conv_dtypes) || infer_same_dtype(c, 0, 1) ||
	    infer_same_dtype(c, 0, 2) || conv_geom(c, &g))
		return -1;
	if (b && (b->rank != 1 || b->dims[0] != g.m))
		return infer_fail(c, 2, "expected shape [%lld] (output channels), got rank %d dim %lld",
		                  (long long)g.m, b->rank, (long long)(b->rank ? b->dims[0] : 0));
	Type *y = infer_out(c, 0);
	*y = type_make(x->dtype, x->rank, x->dims);
	y->dims[1] = g.m;
	for (int i = 0; i < g.nsp; i++)
		y->dims[2 + i] = g.out[i];
	return epilogue_infer(c, y);
}

static const ParamField conv_pfields[] = {
#define PARAM_STRUCT ingot_conv_params
	INGOT_CONV_FIELDS(PARAM_FIELD)
#undef PARAM_STRUCT
};
static const ParamDesc conv_desc = PARAM_DESC(ingot_conv_params, conv_pfields);

static int conv_lower(LowerCtx *c)
{
	Node *n = ir_node(c->g, c->node);
	const ConvAttrs *a = n->attrs;
	InferCtx ic = { c->g, c->node, NULL };
	DiagSink quiet;
	ConvGeom g;
	int rc;
	diag_sink_init(&quiet, NULL);
	ic.diags = &quiet;
	rc = conv_geom(&ic, &g);
	diag_sink_free(&quiet);
	if (rc || n->out[0] == IR_NONE)
		return -1;
	const Type *x = &ir_value(c->g, n->in[0])->type, *w = &ir_value(c->g, n->in[1])->type;
	const Type *y = &ir_value(c->g, n->out[0])->type;
	ingot_conv_params *p = lower_params(c, &conv_desc);
	p->dtype = x->dtype;
	p->transposed = n->op == OP_CONV_TRANSPOSE;
	p->nsp = g.nsp;
	p->group = a->group;
	p->has_bias = n->n_in > 2 && n->in[2] != IR_NONE;
	for (int i = 0; i < x->rank; i++) {
		p->x_dims[i] = x->dims[i];
		p->w_dims[i] = w->dims[i];
		p->y_dims[i] = y->dims[i];
	}
	for (int i = 0; i < g.nsp; i++) {
		p->strides[i] = g.s[i];
		p->dilations[i] = g.d[i];
		p->pads[i] = g.pb[i];
	}
	p->act = a->ep.activation;
	p->act_alpha = a->ep.act_params.n > 0 ? a->ep.act_params.v[0] : 0.0f;
	p->act_beta = a->ep.act_params.n > 1 ? a->ep.act_params.v[1] : 0.0f;
	if (a->ep.activation == INGOT_CONV_ACT_HARD_SWISH) {   /* as the unary kernel's HardSwish */
		p->act_alpha = 1.0f / 6.0f;
		p->act_beta = 0.5f;
	}
	p->has_residual = a->ep.residual != 0;
	LOWER_CALL(c, ingot_conv, &conv_desc, p);
	c->kc.split = true;   /* tasks own disjoint outputs */
	return 0;
}

const OpImpl op_impl_conv = {
	sizeof(ConvAttrs), conv_fields, COUNTOF(conv_fields) - 2,
	conv_import, conv_infer, conv_lower
};
const OpImpl op_impl_conv_transpose = {
	sizeof(ConvAttrs), conv_fields, COUNTOF(conv_fields),
	conv_import, conv_infer, conv_lower
};
