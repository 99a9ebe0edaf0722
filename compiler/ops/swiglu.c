/* swiglu.c — op group swiglu: SwiGLU (opset 28), rewritten by inference into its
 * spec's function body, so every target's Swish and Mul kernels run it:
 *     Y = Mul(Swish(A, alpha), B)
 * A (the gate) and B (the value) must have the same shape: the spec applies no
 * broadcasting. alpha defaults to 1. */
#include "graph_rewrite.h"

#include <math.h>
#include <string.h>

typedef struct SwigluAttrs {
	float alpha;
} SwigluAttrs;

static const AttrField swiglu_fields[] = {
	{ "alpha", AK_FLOAT, offsetof(SwigluAttrs, alpha), NULL },
};

static int swiglu_import(ImportCtx *c)
{
	SwigluAttrs *a = c->attrs;
	if (import_float(c, "alpha", 1.0f, &a->alpha))
		return -1;
	if (!isfinite(a->alpha))
		return import_fail(c, "alpha", "expected a finite value");
	return 0;
}

static int swiglu_infer(InferCtx *c)
{
	Graph *g = c->g;
	const SwigluAttrs a = *(const SwigluAttrs *)infer_node(c)->attrs;
	const Type *ta = infer_in(c, 0), *tb = infer_in(c, 1);
	const int first = g->regions[infer_node(c)->region].n_nodes;
	if (infer_check_dtype(c, 0, dtl_float) || infer_same_dtype(c, 0, 1))
		return -1;
	if (tb->rank != ta->rank || memcmp(tb->dims, ta->dims, sizeof(int64_t) * (size_t)ta->rank))
		return infer_fail(c, 1, "expected A's shape (SwiGLU does not broadcast)");
	const ValueId in_a = infer_node(c)->in[0], in_b = infer_node(c)->in[1];
	const ValueId y = infer_node(c)->out[0];
	RawAttr ra;
	memset(&ra, 0, sizeof ra);
	ra.name = "alpha";
	ra.kind = RA_FLOAT;
	ra.f = a.alpha;
	ValueId gate = rw_step(c, OP_SWISH, &in_a, 1, IR_NONE, &ra, 1, "gate");
	ValueId in[2] = { gate, in_b };
	rw_step(c, OP_MUL, in, 2, y, NULL, 0, "y");
	infer_node(c)->dead = true;
	return rw_place_after(g, c->node, first, c->diags);
}

const OpImpl op_impl_swiglu = { sizeof(SwigluAttrs), swiglu_fields, COUNTOF(swiglu_fields),
                                swiglu_import, swiglu_infer, rw_never_lowered };
