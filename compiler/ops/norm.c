/* norm.c — op groups batchnorm, instancenorm, layernorm and softmax (Softmax and
 * LogSoftmax): import with opset defaults, inference, lowering to
 * runtime-stubs/kernels/norm.c. Opset differences are settled at import so lower()
 * reads one canonical form: BatchNormalization's training flag (training_mode from
 * opset 14, before that implied by the optional outputs unless is_test) and
 * Softmax's pre-13 "coerce to 2-D at axis" semantics (coerce_2d). */
#include "opimpl.h"
#include "op_attrs.h"

#include <string.h>

#include "norm.h"

/* ---- BatchNormalization ---- */

/* BatchNormAttrs is in op_attrs.h */

static const AttrField batchnorm_fields[] = {
	{ "epsilon", AK_FLOAT, offsetof(BatchNormAttrs, epsilon), NULL },
	{ "momentum", AK_FLOAT, offsetof(BatchNormAttrs, momentum), NULL },
	{ "training_mode", AK_INT, offsetof(BatchNormAttrs, training_mode), NULL },
};

static int batchnorm_import(ImportCtx *c)
{
	BatchNormAttrs *a = c->attrs;
	const Node *n = ir_node(c->g, c->node);
	int64_t spatial, is_test, training;
	if (import_float(c, "epsilon", 1e-5f, &a->epsilon) ||
	    import_float(c, "momentum", 0.9f, &a->momentum) ||
	    import_int(c, "spatial", 1, &spatial) || import_int(c, "is_test", 0, &is_test) ||
	    import_int(c, "training_mode", 0, &training))
		return -1;
	if (n->opset < 9 && spatial == 0)
		return import_fail(c, "spatial", "spatial=0 (per-activation statistics) is not supported");
	if (n->opset >= 14) {
		a->training_mode = training != 0;
	} else {
		/* before 14 the optional outputs exist only in training mode */
		int outs = 0;
		for (int i = 1; i < n->n_out; i++)
			outs += n->out[i] != IR_NONE;
		a->training_mode = outs > 0 && !is_test;
	}
	return 0;
}

/* Checks input `slot` is a float [C] vector. */
static int check_channel_vec(InferCtx *c, int slot, int64_t ch)
{
	const Type *t = infer_in(c, slot);
	if (infer_check_dtype(c, slot, dtl_float))
		return -1;
	if (t->rank != 1 || t->dims[0] != ch) {
		char buf[96];
		return infer_fail(c, slot, "expected shape [%lld] (one value per channel), got %s",
		                  (long long)ch, type_format(t, buf, sizeof buf));
	}
	return 0;
}

static int batchnorm_infer(InferCtx *c)
{
	const Type *x = infer_in(c, 0);
	Type *o;
	if (infer_check_dtype(c, 0, dtl_float))
		return -1;
	if (x->rank < 2)
		return infer_fail(c, 0, "expected rank >= 2 (N x C x ...), got %d", x->rank);
	for (int i = 1; i <= 4; i++)
		if (check_channel_vec(c, i, x->dims[1]))
			return -1;
	*infer_out(c, 0) = *x;
	if ((o = infer_out(c, 1)) != NULL)
		*o = *infer_in(c, 3);
	if ((o = infer_out(c, 2)) != NULL)
		*o = *infer_in(c, 4);
	return 0;
}

static const ParamField batchnorm_pfields[] = {
#define PARAM_STRUCT ingot_batchnorm_params
	INGOT_BATCHNORM_FIELDS(PARAM_FIELD)
#undef PARAM_STRUCT
};
static const ParamDesc batchnorm_desc = PARAM_DESC(ingot_batchnorm_params, batchnorm_pfields);

static const Type *in_type(Graph *g, const Node *n, int slot)
{
	return &ir_value(g, n->in[slot])->type;
}

static bool has_out(const Node *n, int slot)
{
	return slot < n->n_out && n->out[slot] != IR_NONE;
}

static int batchnorm_lower(LowerCtx *c)
{
	Node *n = ir_node(c->g, c->node);
	const BatchNormAttrs *a = n->attrs;
	const Type *x = in_type(c->g, n, 0);
	ingot_batchnorm_params *p = lower_params(c, &batchnorm_desc);
	p->dtype = x->dtype;
	p->s_dtype = in_type(c->g, n, 1)->dtype;
	p->b_dtype = in_type(c->g, n, 2)->dtype;
	p->m_dtype = in_type(c->g, n, 3)->dtype;
	p->v_dtype = in_type(c->g, n, 4)->dtype;
	p->n = x->dims[0];
	p->c = x->dims[1];
	p->inner = 1;
	for (int d = 2; d < x->rank; d++)
		p->inner *= x->dims[d];
	p->training = a->training_mode;
	p->has_rmean = has_out(n, 1);
	p->has_rvar = has_out(n, 2);
	p->epsilon = a->epsilon;
	p->momentum = a->momentum;
	LOWER_CALL(c, ingot_batchnorm, &batchnorm_desc, p);
	c->kc.split = true;   /* tasks own disjoint outputs */
	return 0;
}

const OpImpl op_impl_batchnorm = {
	sizeof(BatchNormAttrs), batchnorm_fields, COUNTOF(batchnorm_fields),
	batchnorm_import, batchnorm_infer, batchnorm_lower
};

/* ---- InstanceNormalization ---- */

typedef struct EpsAttrs {
	float epsilon;
} EpsAttrs;

static const AttrField instancenorm_fields[] = {
	{ "epsilon", AK_FLOAT, offsetof(EpsAttrs, epsilon), NULL },
};

static int instancenorm_import(ImportCtx *c)
{
	EpsAttrs *a = c->attrs;
	return import_float(c, "epsilon", 1e-5f, &a->epsilon);
}

static int instancenorm_infer(InferCtx *c)
{
	const Type *x = infer_in(c, 0);
	if (infer_check_dtype(c, 0, dtl_float))
		return -1;
	if (x->rank < 2)
		return infer_fail(c, 0, "expected rank >= 2 (N x C x ...), got %d", x->rank);
	for (int i = 1; i <= 2; i++)
		if (check_channel_vec(c, i, x->dims[1]) || infer_same_dtype(c, 0, i))
			return -1;
	*infer_out(c, 0) = *x;
	return 0;
}

static const ParamField instancenorm_pfields[] = {
#define PARAM_STRUCT ingot_instancenorm_params
	INGOT_INSTANCENORM_FIELDS(PARAM_FIELD)
#undef PARAM_STRUCT
};
static const ParamDesc instancenorm_desc =
	PARAM_DESC(ingot_instancenorm_params, instancenorm_pfields);

static int instancenorm_lower(LowerCtx *c)
{
	Node *n = ir_node(c->g, c->node);
	const EpsAttrs *a = n->attrs;
	const Type *x = in_type(c->g, n, 0);
	ingot_instancenorm_params *p = lower_params(c, &instancenorm_desc);
	p->dtype = x->dtype;
	p->n = x->dims[0];
	p->c = x->dims[1];
	p->inner = 1;
	for (int d = 2; d < x->rank; d++)
		p->inner *= x->dims[d];
	p->epsilon = a->epsilon;
	LOWER_CALL(c, ingot_instancenorm, &instancenorm_desc, p);
	c->kc.split = true;   /* tasks own disjoint outputs */
	return 0;
}

const OpImpl op_impl_instancenorm = {
	sizeof(EpsAttrs), instancenorm_fields, COUNTOF(instancenorm_fields),
	instancenorm_import, instancenorm_infer, instancenorm_lower
};

/* ---- LayerNormalization ---- */

const AttrField norm_attr_fields[3] = {
	{ "axis", AK_INT, offsetof(NormAttrs, axis), NULL },
	{ "epsilon", AK_FLOAT, offsetof(NormAttrs, epsilon), NULL },
	{ "stash_type", AK_INT, offsetof(NormAttrs, stash_type), NULL },
};

int norm_attrs_import(ImportCtx *c)
{
	NormAttrs *a = c->attrs;
	if (import_int(c, "axis", -1, &a->axis) || import_float(c, "epsilon", 1e-5f, &a->epsilon) ||
	    import_int(c, "stash_type", DT_F32, &a->stash_type))
		return -1;
	if (!dtype_is_valid((int)a->stash_type) || !dtype_is_float((DType)a->stash_type))
		return import_fail(c, "stash_type", "expected a floating-point type, got %lld",
		                   (long long)a->stash_type);
	return 0;
}

/* Element strides of scale/bias `t` over the normalized dims x[axis..] (0 where it
 * broadcasts); false if t does not broadcast to them. */
static bool layernorm_strides(const Type *t, const Type *x, int axis, int64_t *str)
{
	int off = x->rank - t->rank;     /* x dim of t's dim i is off + i */
	int64_t s = 1;
	for (int i = axis; i < x->rank; i++)
		str[i - axis] = 0;
	for (int i = 0; i < -off; i++)       /* dims beyond x's rank must be 1 */
		if (t->dims[i] != 1)
			return false;
	for (int i = t->rank - 1; i >= 0 && off + i >= 0; i--) {
		int xd = off + i;
		if (t->dims[i] != 1 && (t->dims[i] != x->dims[xd] || xd < axis))
			return false;
		if (xd >= axis)
			str[xd - axis] = t->dims[i] == 1 ? 0 : s;
		s *= t->dims[i];
	}
	return true;
}

static int layernorm_infer(InferCtx *c)
{
	const NormAttrs *a = infer_node(c)->attrs;
	const Type *x = infer_in(c, 0);
	int64_t axis, str[IR_MAX_RANK];
	Type *o;
	if (infer_check_dtype(c, 0, dtl_float))
		return -1;
	if (x->rank < 1)
		return infer_fail(c, 0, "expected rank >= 1, got a scalar");
	if (infer_normalize_axis(c, a->axis, x->rank, &axis))
		return -1;
	for (int i = 1; i <= 2; i++) {
		if (!infer_has(c, i))
			continue;
		if (infer_same_dtype(c, 0, i))
			return -1;
		if (!layernorm_strides(infer_in(c, i), x, (int)axis, str)) {
			char b1[96], b2[96];
			return infer_fail(c, i, "shape %s does not broadcast to the normalized dims of %s "
			                  "(axis %lld)", type_format(infer_in(c, i), b1, sizeof b1),
			                  type_format(x, b2, sizeof b2), (long long)axis);
		}
	}
	*infer_out(c, 0) = *x;
	for (int i = 1; i <= 2; i++) {
		if ((o = infer_out(c, i)) == NULL)
			continue;
		*o = *x;
		o->dtype = (DType)a->stash_type;
		for (int d = (int)axis; d < x->rank; d++)
			o->dims[d] = 1;
	}
	return 0;
}

static const ParamField layernorm_pfields[] = {
#define PARAM_STRUCT ingot_layernorm_params
	INGOT_LAYERNORM_FIELDS(PARAM_FIELD)
#undef PARAM_STRUCT
};
static const ParamDesc layernorm_desc = PARAM_DESC(ingot_layernorm_params, layernorm_pfields);

static int layernorm_lower(LowerCtx *c)
{
	Node *n = ir_node(c->g, c->node);
	const NormAttrs *a = n->attrs;
	const Type *x = in_type(c->g, n, 0);
	int64_t axis = a->axis < 0 ? a->axis + x->rank : a->axis;
	if (axis < 0 || axis >= x->rank)
		return -1;
	ingot_layernorm_params *p = lower_params(c, &layernorm_desc);
	p->dtype = x->dtype;
	p->stash = a->stash_type;
	p->outer = 1;
	p->inner = 1;
	for (int d = 0; d < x->rank; d++)
		*(d < axis ? &p->outer : &p->inner) *= x->dims[d];
	p->nrank = x->rank - axis;
	for (int d = (int)axis; d < x->rank; d++)
		p->ndims[d - axis] = x->dims[d];
	if (!layernorm_strides(in_type(c->g, n, 1), x, (int)axis, p->s_str))
		return -1;
	p->has_bias = n->n_in > 2 && n->in[2] != IR_NONE;
	if (p->has_bias && !layernorm_strides(in_type(c->g, n, 2), x, (int)axis, p->b_str))
		return -1;
	p->has_mean = has_out(n, 1);
	p->has_inv = has_out(n, 2);
	p->epsilon = a->epsilon;
	LOWER_CALL(c, ingot_layernorm, &layernorm_desc, p);
	c->kc.split = true;   /* tasks own disjoint outputs */
	return 0;
}

const OpImpl op_impl_layernorm = {
	sizeof(NormAttrs), norm_attr_fields, COUNTOF(norm_attr_fields),
	norm_attrs_import, layernorm_infer, layernorm_lower
};

/* ---- Softmax, LogSoftmax ---- */

typedef struct SoftmaxAttrs {
	int64_t axis;
	int64_t coerce_2d;       /* opset < 13: normalize over all dims from axis on */
} SoftmaxAttrs;

static const AttrField softmax_fields[] = {
	{ "axis", AK_INT, offsetof(SoftmaxAttrs, axis), NULL },
	{ "coerce_2d", AK_INT, offsetof(SoftmaxAttrs, coerce_2d), NULL },
};

static int softmax_import(ImportCtx *c)
{
	SoftmaxAttrs *a = c->attrs;
	a->coerce_2d = ir_node(c->g, c->node)->opset < 13;
	return import_int(c, "axis", a->coerce_2d ? 1 : -1, &a->axis);
}

static int softmax_infer(InferCtx *c)
{
	const SoftmaxAttrs *a = infer_node(c)->attrs;
	const Type *x = infer_in(c, 0);
	int64_t axis;
	if (infer_check_dtype(c, 0, dtl_float))
		return -1;
	if (x->rank < 1)
		return infer_fail(c, 0, "expected rank >= 1, got a scalar");
	if (infer_normalize_axis(c, a->axis, x->rank, &axis))
		return -1;
	*infer_out(c, 0) = *x;
	return 0;
}

static const ParamField softmax_pfields[] = {
#define PARAM_STRUCT ingot_softmax_params
	INGOT_SOFTMAX_FIELDS(PARAM_FIELD)
#undef PARAM_STRUCT
};
static const ParamDesc softmax_desc = PARAM_DESC(ingot_softmax_params, softmax_pfields);

static int softmax_lower(LowerCtx *c)
{
	Node *n = ir_node(c->g, c->node);
	const SoftmaxAttrs *a = n->attrs;
	const Type *x = in_type(c->g, n, 0);
	int64_t axis = a->axis < 0 ? a->axis + x->rank : a->axis;
	if (axis < 0 || axis >= x->rank)
		return -1;
	ingot_softmax_params *p = lower_params(c, &softmax_desc);
	p->dtype = x->dtype;
	p->outer = 1;
	p->n = 1;
	p->inner = 1;
	for (int d = 0; d < x->rank; d++) {
		if (d < axis)
			p->outer *= x->dims[d];
		else if (d == axis || a->coerce_2d)
			p->n *= x->dims[d];
		else
			p->inner *= x->dims[d];
	}
	p->log = n->op == OP_LOG_SOFTMAX;
	LOWER_CALL(c, ingot_softmax, &softmax_desc, p);
	c->kc.split = true;   /* tasks own disjoint outputs */
	return 0;
}

const OpImpl op_impl_softmax = {
	sizeof(SoftmaxAttrs), softmax_fields, COUNTOF(softmax_fields),
	softmax_import, softmax_infer, softmax_lower
};
