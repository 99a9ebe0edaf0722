/* reduce.c — op group reduce (ReduceSum/Mean/Max/Min/Prod): import, inference and
 * lowering to runtime-stubs/kernels/reduce.c. The axes are an attribute up to opset
 * 17 (ReduceSum up to 12) and the optional input 1 after; both forms are accepted at
 * any opset and resolve, in one function, to a mask of reduced dims. An axes input
 * must be a compile-time constant, except an empty one, whose value its shape gives. */
#include "opimpl.h"
#include "op_attrs.h"

#include <string.h>

#include "reduce.h"

/* ReduceAttrs is in op_attrs.h */

static const AttrField reduce_fields[] = {
	{ "axes", AK_INTS, offsetof(ReduceAttrs, axes), NULL },
	{ "keepdims", AK_INT, offsetof(ReduceAttrs, keepdims), NULL },
	{ "noop_with_empty_axes", AK_INT, offsetof(ReduceAttrs, noop_with_empty_axes), NULL },
};

static int reduce_import(ImportCtx *c)
{
	ReduceAttrs *a = c->attrs;
	if (import_ints(c, "axes", &a->axes) || import_int(c, "keepdims", 1, &a->keepdims) ||
	    import_int(c, "noop_with_empty_axes", 0, &a->noop_with_empty_axes))
		return -1;
	a->keepdims = a->keepdims != 0;
	a->noop_with_empty_axes = a->noop_with_empty_axes != 0;
	return 0;
}

static const DType axes_dtypes[] = { DT_I32, DT_I64, DT_UNDEF };

/* Bit d of *mask set when dim d of input 0 is reduced; 0 or -1 (diagnostic). */
static int reduce_mask(InferCtx *c, unsigned *mask)
{
	const ReduceAttrs *a = infer_node(c)->attrs;
	const Type *x = infer_in(c, 0);
	int64_t *axes = NULL;
	int n_axes = 0;
	*mask = 0;
	if (infer_has(c, 1)) {
		const Type *t = infer_in(c, 1);
		if (a->axes.n >= 0)
			return infer_fail(c, 1, "axes given both as an attribute and as an input");
		if (t->rank > 1)
			return infer_fail(c, 1, "expected a 1-D axes tensor, got rank %d", t->rank);
		if (infer_check_dtype(c, 1, axes_dtypes))
			return -1;
		if (type_numel(t) > 0 && infer_const_ints(c, 1, &axes, &n_axes))
			return -1;
	} else if (a->axes.n > 0) {
		axes = a->axes.v;
		n_axes = a->axes.n;
	}
	if (n_axes == 0) {
		if (!a->noop_with_empty_axes)
			*mask = (1u << x->rank) - 1u;
		return 0;
	}
	for (int i = 0; i < n_axes; i++) {
		int64_t ax;
		if (infer_normalize_axis(c, axes[i], x->rank, &ax))
			return -1;
		if (x->rank == 0)
			continue;                /* a scalar: axis 0/-1 reduces nothing */
		if (*mask & (1u << ax))
			return infer_fail(c, -1, "axis %lld repeated in axes", (long long)axes[i]);
		*mask |= 1u << ax;
	}
	return 0;
}

static int reduce_infer(InferCtx *c)
{
	const ReduceAttrs *a = infer_node(c)->attrs;
	const Type *x = infer_in(c, 0);
	Type *y = infer_out(c, 0);
	unsigned mask;
	Op op = infer_node(c)->op;
	bool minmax_bool = x->dtype == DT_BOOL && infer_node(c)->opset >= 20 &&
	                   (op == OP_REDUCE_MAX || op == OP_REDUCE_MIN);   /* any / all */
	if ((!minmax_bool && infer_check_dtype(c, 0, dtl_numeric)) || reduce_mask(c, &mask))
		return -1;
	*y = type_make(x->dtype, 0, NULL);
	for (int d = 0; d < x->rank; d++) {
		if (!(mask & (1u << d)))
			y->dims[y->rank++] = x->dims[d];
		else if (a->keepdims)
			y->dims[y->rank++] = 1;
	}
	return 0;
}

static const ParamField reduce_pfields[] = {
#define PARAM_STRUCT ingot_reduce_params
	INGOT_REDUCE_FIELDS(PARAM_FIELD)
#undef PARAM_STRUCT
};
static const ParamDesc reduce_desc = PARAM_DESC(ingot_reduce_params, reduce_pfields);

static int reduce_lower(LowerCtx *c)
{
	Node *n = ir_node(c->g, c->node);
	const Type *x = &ir_value(c->g, n->in[0])->type;
	InferCtx ic = { c->g, c->node, NULL };
	DiagSink quiet;
	unsigned mask;
	int rc;
	diag_sink_init(&quiet, NULL);
	ic.diags = &quiet;
	rc = reduce_mask(&ic, &mask);
	diag_sink_free(&quiet);
	if (rc)
		return -1;
	ingot_reduce_params *p = lower_params(c, &reduce_desc);
	p->dtype = x->dtype;
	switch (n->op) {
	case OP_REDUCE_SUM: p->mode = INGOT_REDUCE_SUM; break;
	case OP_REDUCE_MEAN: p->mode = INGOT_REDUCE_MEAN; break;
	case OP_REDUCE_MAX: p->mode = INGOT_REDUCE_MAX; break;
	case OP_REDUCE_MIN: p->mode = INGOT_REDUCE_MIN; break;
	case OP_REDUCE_PROD: p->mode = INGOT_REDUCE_PROD; break;
	case OP_REDUCE_SUM_SQUARE: p->mode = INGOT_REDUCE_SUM_SQUARE; break;
	case OP_REDUCE_L1: p->mode = INGOT_REDUCE_L1; break;
	case OP_REDUCE_L2: p->mode = INGOT_REDUCE_L2; break;
	case OP_REDUCE_LOG_SUM: p->mode = INGOT_REDUCE_LOG_SUM; break;
	case OP_REDUCE_LOG_SUM_EXP: p->mode = INGOT_REDUCE_LOG_SUM_EXP; break;
	default: return -1;
	}
	/* collapse: size-1 dims drop, neighbours with the same fate merge */
	for (int d = 0; d < x->rank; d++) {
		int64_t r = (mask >> d) & 1u;
		if (x->dims[d] == 1)
			continue;
		if (p->rank > 0 && ((p->rmask >> (p->rank - 1)) & 1) == r) {
			p->dims[p->rank - 1] *= x->dims[d];
		} else {
			p->dims[p->rank] = x->dims[d];
			p->rmask |= r << p->rank;
			p->rank++;
		}
	}
	LOWER_CALL(c, ingot_reduce, &reduce_desc, p);
	c->kc.split = true;   /* tasks own disjoint outputs */
	return 0;
}

const OpImpl op_impl_reduce = {
	sizeof(ReduceAttrs), reduce_fields, COUNTOF(reduce_fields),
	reduce_import, reduce_infer, reduce_lower
};
