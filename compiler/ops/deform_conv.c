/* deform_conv.c — op group deform_conv (DeformConv, opsets 19 and 22): import,
 * inference and lowering to runtime-stubs/kernels/deform_conv.c. Only 2-D inputs
 * are supported, like the spec's reference implementation and ONNX Runtime: N-D
 * DeformConv is reported as unsupported. Opset 22 only adds bfloat16, which the
 * kernel handles like float16 (through float). The geometry is Conv's without
 * auto_pad: oh = (h + pad_t + pad_b - ((kh - 1) * dh + 1)) / sh + 1; offset and mask
 * must have exactly that output size. */
#include "opimpl.h"

#include <string.h>

#include "deform_conv.h"

typedef struct DeformConvAttrs {
	IntList dilations, kernel_shape, pads, strides;
	int64_t group, offset_group;
} DeformConvAttrs;

static const AttrField deform_conv_fields[] = {
	{ "dilations", AK_INTS, offsetof(DeformConvAttrs, dilations), NULL },
	{ "kernel_shape", AK_INTS, offsetof(DeformConvAttrs, kernel_shape), NULL },
	{ "pads", AK_INTS, offsetof(DeformConvAttrs, pads), NULL },
	{ "strides", AK_INTS, offsetof(DeformConvAttrs, strides), NULL },
	{ "group", AK_INT, offsetof(DeformConvAttrs, group), NULL },
	{ "offset_group", AK_INT, offsetof(DeformConvAttrs, offset_group), NULL },
};

static int deform_conv_import(ImportCtx *c)
{
	DeformConvAttrs *a = c->attrs;
	return import_ints(c, "dilations", &a->dilations) ||
	       import_ints(c, "kernel_shape", &a->kernel_shape) || import_ints(c, "pads", &a->pads) ||
	       import_ints(c, "strides", &a->strides) || import_int(c, "group", 1, &a->group) ||
	       import_int(c, "offset_group", 1, &a->offset_group) ? -1 : 0;
}

/* The resolved geometry: kernel, strides, dilations, begin/end pads, output size. */
typedef struct DcGeom { int64_t k[2], s[2], d[2], pads[4], out[2]; } DcGeom;

static int check_dims(InferCtx *c, int slot, const int64_t *want)
{
	const Type *t = infer_in(c, slot);
	char got[96];
	if (t->rank == 4 && t->dims[0] == want[0] && t->dims[1] == want[1] && t->dims[2] == want[2] &&
	    t->dims[3] == want[3])
		return 0;
	return infer_fail(c, slot, "expected [%lld, %lld, %lld, %lld], got %s", (long long)want[0],
	                  (long long)want[1], (long long)want[2], (long long)want[3],
	                  type_format(t, got, sizeof got));
}

static int deform_geom(InferCtx *c, DcGeom *g)
{
	const DeformConvAttrs *a = infer_node(c)->attrs;
	const Type *x = infer_in(c, 0), *w = infer_in(c, 1);
	memset(g, 0, sizeof *g);
	if (x->rank != 4)
		return x->rank >= 3 ? infer_unsupported(c, "DeformConv is supported for 2-D inputs "
		                                        "(rank 4) only, got rank %d", x->rank)
		                    : infer_fail(c, 0, "expected rank 4 (N, C, H, W), got %d", x->rank);
	if (w->rank != 4)
		return infer_fail(c, 1, "expected rank 4 (M, C / group, kH, kW), got %d", w->rank);
	if (a->group < 1 || a->group > OPS_MAX_ATTR)
		return infer_fail_attr(c, "group", "expected a positive value, got %lld", (long long)a->group);
	if (a->offset_group < 1 || a->offset_group > OPS_MAX_ATTR)
		return infer_fail_attr(c, "offset_group", "expected a positive value, got %lld",
		                       (long long)a->offset_group);
	if (w->dims[1] * a->group != x->dims[1])
		return infer_fail(c, 1, "expected dim 1 = %lld (channels / group), got %lld",
		                  (long long)(x->dims[1] / a->group), (long long)w->dims[1]);
	if (w->dims[0] % a->group)
		return infer_fail(c, 1, "output channels %lld not divisible by group %lld",
		                  (long long)w->dims[0], (long long)a->group);
	if (x->dims[1] % a->offset_group)
		return infer_fail(c, 0, "channels %lld not divisible by offset_group %lld",
		                  (long long)x->dims[1], (long long)a->offset_group);
	if (infer_spatial_list(c, "kernel_shape", &a->kernel_shape, 2, 0, 1, g->k) ||
	    infer_spatial_list(c, "strides", &a->strides, 2, 1, 1, g->s) ||
	    infer_spatial_list(c, "dilations", &a->dilations, 2, 1, 1, g->d) ||
	    infer_spatial_list(c, "pads", &a->pads, 4, 0, 0, g->pads))
		return -1;
	for (int i = 0; i < 2; i++) {
		if (a->kernel_shape.n > 0 && g->k[i] != w->dims[2 + i])
			return infer_fail_attr(c, "kernel_shape", "kernel_shape[%d] = %lld, but W has %lld", i,
			                       (long long)g->k[i], (long long)w->dims[2 + i]);
		g->k[i] = w->dims[2 + i];
		int64_t span = (g->k[i] - 1) * g->d[i] + 1, len = x->dims[2 + i] + g->pads[i] + g->pads[2 + i];
		if (g->k[i] < 1 || len < span)
			return infer_fail(c, 0, "spatial dim %d (%lld padded) is smaller than the kernel span %lld",
			                  i, (long long)len, (long long)span);
		g->out[i] = (len - span) / g->s[i] + 1;
	}
	return 0;
}

static int deform_conv_infer(InferCtx *c)
{
	const DeformConvAttrs *a = infer_node(c)->attrs;
	const Type *x = infer_in(c, 0), *w = infer_in(c, 1);
	DcGeom g;
	if (infer_check_dtype(c, 0, dtl_float) || infer_same_dtype(c, 0, 1) || infer_same_dtype(c, 0, 2) ||
	    (infer_has(c, 3) && infer_same_dtype(c, 0, 3)) || (infer_has(c, 4) && infer_same_dtype(c, 0, 4)))
		return -1;
	for (int i = 0; i < 5; i++)
		if (infer_has(c, i) && infer_check_size(c, i))
			return -1;
	if (deform_geom(c, &g))
		return -1;
	int64_t taps = g.k[0] * g.k[1];
	int64_t off[4] = { x->dims[0], a->offset_group * taps * 2, g.out[0], g.out[1] };
	if (check_dims(c, 2, off))
		return -1;
	if (infer_has(c, 3)) {
		const Type *b = infer_in(c, 3);
		if (b->rank != 1 || b->dims[0] != w->dims[0])
			return infer_fail(c, 3, "expected B [%lld]", (long long)w->dims[0]);
	}
	off[1] = a->offset_group * taps;
	if (infer_has(c, 4) && check_dims(c, 4, off))
		return -1;
	int64_t y[4] = { x->dims[0], w->dims[0], g.out[0], g.out[1] };
	*infer_out(c, 0) = type_make(x->dtype, 4, y);
	return 0;
}

#define PARAM_STRUCT ingot_deform_conv_params
static const ParamField deform_conv_pfields[] = { INGOT_DEFORM_CONV_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc deform_conv_desc = PARAM_DESC(ingot_deform_conv_params, deform_conv_pfields);

static int deform_conv_lower(LowerCtx *c)
{
	const Node *n = &c->g->nodes[c->node];
	const DeformConvAttrs *a = n->attrs;
	const Type *x = lower_in(c, 0), *w = lower_in(c, 1), *y = lower_out(c, 0);
	if (!x || !w || !y || x->rank != 4)
		return -1;
	ingot_deform_conv_params *p = lower_params(c, &deform_conv_desc);
	p->dtype = x->dtype;
	p->n = x->dims[0];
	p->c = x->dims[1];
	p->h = x->dims[2];
	p->w = x->dims[3];
	p->oc = w->dims[0];
	p->kh = w->dims[2];
	p->kw = w->dims[3];
	p->oh = y->dims[2];
	p->ow = y->dims[3];
	p->group = a->group;
	p->offset_group = a->offset_group;
	p->sh = a->strides.n == 2 ? a->strides.v[0] : 1;
	p->sw = a->strides.n == 2 ? a->strides.v[1] : 1;
	p->dh = a->dilations.n == 2 ? a->dilations.v[0] : 1;
	p->dw = a->dilations.n == 2 ? a->dilations.v[1] : 1;
	p->pad_t = a->pads.n == 4 ? a->pads.v[0] : 0;
	p->pad_l = a->pads.n == 4 ? a->pads.v[1] : 0;
	p->n_in = n->n_in;
	LOWER_CALL(c, ingot_deform_conv, &deform_conv_desc, p);
	c->kc.split = true;   /* tasks own whole output planes */
	return 0;
}

const OpImpl op_impl_deform_conv = { sizeof(DeformConvAttrs), deform_conv_fields,
                                     COUNTOF(deform_conv_fields), deform_conv_import,
                                     deform_conv_infer, deform_conv_lower };
