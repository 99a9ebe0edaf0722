/* loss.c — op groups sce_loss (SoftmaxCrossEntropyLoss), nll_loss
 * (NegativeLogLikelihoodLoss) and the ai.onnx.preview.training optimizers adagrad,
 * adam and momentum: import, inference and lowering to runtime-stubs/kernels/loss.c.
 * The losses share one kernel (SCE is NLL over a log-softmax); opsets 12 and 13
 * differ only in the types they allow. The optimizers take variadic groups of
 * tensors (X..., G..., accumulators...) and update each element independently. */
#include "opimpl.h"

#include <string.h>

#include "loss.h"

/* ---- SoftmaxCrossEntropyLoss, NegativeLogLikelihoodLoss ---- */

static const char *const reduction_names[] = { "none", "sum", "mean", NULL };

typedef struct LossAttrs {
	int reduction;               /* INGOT_LOSS_* (same order as reduction_names) */
	IntList ignore_index;        /* n = -1: absent, else one value */
} LossAttrs;

static const AttrField loss_fields[] = {
	{ "reduction", AK_ENUM, offsetof(LossAttrs, reduction), reduction_names },
	{ "ignore_index", AK_INTS, offsetof(LossAttrs, ignore_index), NULL },
};

static int loss_import(ImportCtx *c)
{
	LossAttrs *a = c->attrs;
	if (import_enum(c, "reduction", reduction_names, INGOT_LOSS_MEAN, &a->reduction) ||
	    import_ints(c, "ignore_index", &a->ignore_index))
		return -1;
	if (a->ignore_index.n == 0 || a->ignore_index.n > 1)
		return import_fail(c, "ignore_index", "expected one int, got %d values",
		                   a->ignore_index.n);
	return 0;
}

static const DType loss_dtypes[] = { DT_F16, DT_F32, DT_F64, DT_BF16, DT_UNDEF };
static const DType label_dtypes[] = { DT_I32, DT_I64, DT_UNDEF };

static int loss_infer(InferCtx *c)
{
	Node *n = infer_node(c);
	const LossAttrs *a = n->attrs;
	const Type *x = infer_in(c, 0), *lab = infer_in(c, 1), *w = infer_in(c, 2);
	if (infer_check_dtype(c, 0, loss_dtypes) || infer_check_dtype(c, 1, label_dtypes) ||
	    infer_same_dtype(c, 0, 2))
		return -1;
	if (x->rank < 2)
		return infer_fail(c, 0, "expected rank >= 2 (N, C, D...), got %d", x->rank);
	if (x->dims[1] < 1)
		return infer_fail(c, 0, "expected at least one class (dim 1), got %lld",
		                  (long long)x->dims[1]);
	bool ok = lab->rank == x->rank - 1 && lab->dims[0] == x->dims[0];
	for (int i = 1; ok && i < lab->rank; i++)
		ok = lab->dims[i] == x->dims[i + 1];
	if (!ok) {
		char bx[128], bl[128];
		return infer_fail(c, 1, "expected the shape of scores %s without dim 1, got %s",
		                  type_format(x, bx, sizeof bx), type_format(lab, bl, sizeof bl));
	}
	if (w && (w->rank != 1 || w->dims[0] != x->dims[1]))
		return infer_fail(c, 2, "expected shape [%lld] (one weight per class)",
		                  (long long)x->dims[1]);
	Type *y = infer_out(c, 0), *lp = infer_out(c, 1);
	if (y)
		*y = a->reduction == INGOT_LOSS_NONE ? type_make(x->dtype, lab->rank, lab->dims)
		                                     : type_make(x->dtype, 0, NULL);
	if (lp) {
		if (n->op != OP_SOFTMAX_CROSS_ENTROPY_LOSS)
			return infer_fail(c, -1, "has 2 outputs, expected 1");
		*lp = type_make(x->dtype, x->rank, x->dims);
	}
	return 0;
}

static const ParamField nll_pfields[] = {
#define PARAM_STRUCT ingot_nll_params
	INGOT_NLL_FIELDS(PARAM_FIELD)
#undef PARAM_STRUCT
};
static const ParamDesc nll_desc = PARAM_DESC(ingot_nll_params, nll_pfields);

static int loss_lower(LowerCtx *c)
{
	Node *n = ir_node(c->g, c->node);
	const LossAttrs *a = n->attrs;
	const Type *x = &ir_value(c->g, n->in[0])->type, *lab = &ir_value(c->g, n->in[1])->type;
	ingot_nll_params *p = lower_params(c, &nll_desc);
	p->dtype = x->dtype;
	p->label_dtype = lab->dtype;
	p->softmax = n->op == OP_SOFTMAX_CROSS_ENTROPY_LOSS;
	p->reduction = a->reduction;
	p->n = x->dims[0];
	p->c = x->dims[1];
	p->d = 1;
	for (int i = 2; i < x->rank; i++)
		p->d *= x->dims[i];
	p->has_weight = n->n_in > 2 && n->in[2] != IR_NONE;
	p->has_ii = a->ignore_index.n == 1;
	p->ignore_index = p->has_ii ? a->ignore_index.v[0] : 0;
	p->has_log_prob = n->n_out > 1 && n->out[1] != IR_NONE;
	LOWER_CALL(c, ingot_nll, &nll_desc, p);
	return 0;
}

const OpImpl op_impl_sce_loss = {
	sizeof(LossAttrs), loss_fields, COUNTOF(loss_fields), loss_import, loss_infer, loss_lower
};
const OpImpl op_impl_nll_loss = {
	sizeof(LossAttrs), loss_fields, COUNTOF(loss_fields), loss_import, loss_infer, loss_lower
};

/* ---- Adagrad, Adam, Momentum (domain ai.onnx.preview.training, version 1) ---- */

static const char *const momentum_modes[] = { "standard", "nesterov", NULL };

typedef struct OptimAttrs {
	float alpha, beta, epsilon, decay_factor, norm_coefficient, norm_coefficient_post;
	int mode;                    /* Momentum: index into momentum_modes */
} OptimAttrs;

static const AttrField adagrad_fields[] = {
	{ "decay_factor", AK_FLOAT, offsetof(OptimAttrs, decay_factor), NULL },
	{ "epsilon", AK_FLOAT, offsetof(OptimAttrs, epsilon), NULL },
	{ "norm_coefficient", AK_FLOAT, offsetof(OptimAttrs, norm_coefficient), NULL },
};
static const AttrField adam_fields[] = {
	{ "alpha", AK_FLOAT, offsetof(OptimAttrs, alpha), NULL },
	{ "beta", AK_FLOAT, offsetof(OptimAttrs, beta), NULL },
	{ "epsilon", AK_FLOAT, offsetof(OptimAttrs, epsilon), NULL },
	{ "norm_coefficient", AK_FLOAT, offsetof(OptimAttrs, norm_coefficient), NULL },
	{ "norm_coefficient_post", AK_FLOAT, offsetof(OptimAttrs, norm_coefficient_post), NULL },
};
static const AttrField momentum_fields[] = {
	{ "alpha", AK_FLOAT, offsetof(OptimAttrs, alpha), NULL },
	{ "beta", AK_FLOAT, offsetof(OptimAttrs, beta), NULL },
	{ "mode", AK_ENUM, offsetof(OptimAttrs, mode), momentum_modes },
	{ "norm_coefficient", AK_FLOAT, offsetof(OptimAttrs, norm_coefficient), NULL },
};

static int require(ImportCtx *c, const char *name)
{
	return import_find(c, name) ? 0 : import_fail(c, name, "required attribute is missing");
}

static int optim_import(ImportCtx *c)
{
	OptimAttrs *a = c->attrs;
	switch (ir_node(c->g, c->node)->op) {
	case OP_ADAGRAD:
		return import_float(c, "decay_factor", 0.0f, &a->decay_factor) ||
		       import_float(c, "epsilon", 1e-6f, &a->epsilon) ||
		       import_float(c, "norm_coefficient", 0.0f, &a->norm_coefficient) ? -1 : 0;
	case OP_ADAM:
		return import_float(c, "alpha", 0.9f, &a->alpha) ||
		       import_float(c, "beta", 0.999f, &a->beta) ||
		       import_float(c, "epsilon", 1e-6f, &a->epsilon) ||
		       import_float(c, "norm_coefficient", 0.0f, &a->norm_coefficient) ||
		       import_float(c, "norm_coefficient_post", 0.0f, &a->norm_coefficient_post)
		       ? -1 : 0;
	default:                     /* Momentum: every attribute is required */
		return require(c, "alpha") || require(c, "beta") || require(c, "mode") ||
		       require(c, "norm_coefficient") ||
		       import_float(c, "alpha", 0.0f, &a->alpha) ||
		       import_float(c, "beta", 0.0f, &a->beta) ||
		       import_enum(c, "mode", momentum_modes, 0, &a->mode) ||
		       import_float(c, "norm_coefficient", 0.0f, &a->norm_coefficient) ? -1 : 0;
	}
}

/* Accumulators per optimized tensor: Adagrad H, Momentum V, Adam V and H. */
static int n_states(Op op)
{
	return op == OP_ADAM ? 2 : 1;
}

#define OPTIM_MAX_TENSORS (2 * INGOT_MAX_RANK)   /* the kernel's numel[] */

static const DType optim_dtypes[] = { DT_F32, DT_F64, DT_UNDEF };

static int optim_infer(InferCtx *c)
{
	Node *n = infer_node(c);
	int k = n_states(n->op), per = 2 + k, cnt = (n->n_in - 2) / per;
	const DType t_dtypes[] = { DT_I64, DT_UNDEF };
	if (n->n_in < 2 + per || (n->n_in - 2) % per)
		return infer_fail(c, -1, "expected R, T and %d inputs per optimized tensor, got %d "
		                  "inputs", per, n->n_in);
	if (cnt > OPTIM_MAX_TENSORS)
		return infer_fail(c, -1, "at most %d tensors per node are supported, got %d",
		                  OPTIM_MAX_TENSORS, cnt);
	if (n->n_out > (1 + k) * cnt)
		return infer_fail(c, -1, "expected at most %d outputs, got %d", (1 + k) * cnt, n->n_out);
	for (int i = 0; i < n->n_in; i++)
		if (!infer_has(c, i))
			return infer_fail(c, i, "required input is missing");
	if (infer_check_dtype(c, 0, optim_dtypes) || infer_check_dtype(c, 1, t_dtypes))
		return -1;
	if (type_numel(infer_in(c, 0)) != 1 || type_numel(infer_in(c, 1)) != 1)
		return infer_fail(c, type_numel(infer_in(c, 0)) != 1 ? 0 : 1, "expected a scalar");
	for (int i = 0; i < cnt; i++) {
		const Type *x = infer_in(c, 2 + i);
		if (infer_check_dtype(c, 2 + i, optim_dtypes) || infer_same_dtype(c, 2, 2 + i))
			return -1;
		for (int s = 1; s < per; s++) {
			int slot = 2 + s * cnt + i;
			char bx[128], bs[128];
			if (infer_same_dtype(c, 2, slot))
				return -1;
			if (!type_same_shape(x, infer_in(c, slot)))
				return infer_fail(c, slot, "expected the shape of input %d %s, got %s", 2 + i,
				                  type_format(x, bx, sizeof bx),
				                  type_format(infer_in(c, slot), bs, sizeof bs));
		}
		for (int s = 0; s <= k; s++) {
			Type *y = infer_out(c, s * cnt + i);
			if (y)
				*y = type_make(x->dtype, x->rank, x->dims);
		}
	}
	return 0;
}

static const ParamField optim_pfields[] = {
#define PARAM_STRUCT ingot_optim_params
	INGOT_OPTIM_FIELDS(PARAM_FIELD)
#undef PARAM_STRUCT
};
static const ParamDesc optim_desc = PARAM_DESC(ingot_optim_params, optim_pfields);

static int optim_lower(LowerCtx *c)
{
	Node *n = ir_node(c->g, c->node);
	const OptimAttrs *a = n->attrs;
	int cnt = (n->n_in - 2) / (2 + n_states(n->op));
	if (cnt < 1 || cnt > OPTIM_MAX_TENSORS)
		return -1;
	ingot_optim_params *p = lower_params(c, &optim_desc);
	p->algo = n->op == OP_ADAGRAD ? INGOT_OPTIM_ADAGRAD : n->op == OP_ADAM ? INGOT_OPTIM_ADAM
	          : a->mode ? INGOT_OPTIM_NESTEROV : INGOT_OPTIM_MOMENTUM;
	p->dtype = ir_value(c->g, n->in[2])->type.dtype;
	p->r_dtype = ir_value(c->g, n->in[0])->type.dtype;
	p->n = cnt;
	p->n_out = n->n_out;
	p->alpha = a->alpha;
	p->beta = a->beta;
	p->epsilon = a->epsilon;
	p->decay_factor = a->decay_factor;
	p->norm_coefficient = a->norm_coefficient;
	p->norm_coefficient_post = a->norm_coefficient_post;
	for (int i = 0; i < cnt; i++)
		p->numel[i] = type_numel(&ir_value(c->g, n->in[2 + i])->type);
	LOWER_CALL(c, ingot_optim, &optim_desc, p);
	return 0;
}

const OpImpl op_impl_adagrad = {
	sizeof(OptimAttrs), adagrad_fields, COUNTOF(adagrad_fields),
	optim_import, optim_infer, optim_lower
};
const OpImpl op_impl_adam = {
	sizeof(OptimAttrs), adam_fields, COUNTOF(adam_fields), optim_import, optim_infer, optim_lower
};
const OpImpl op_impl_momentum = {
	sizeof(OptimAttrs), momentum_fields, COUNTOF(momentum_fields),
	optim_import, optim_infer, optim_lower
};
