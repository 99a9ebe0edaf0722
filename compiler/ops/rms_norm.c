/* rms_norm.c — op group rms_norm: RMSNormalization (opset 23), rewritten by
 * inference into ordinary nodes as the spec's function body spells it, so it needs
 * no kernel of its own:
 *     XU = Cast(X, stash_type)             (when X's type differs)
 *     InvRMS = Reciprocal(Sqrt(ReduceMean(XU * XU, axes axis..rank-1) + epsilon))
 *     Y = Cast(XU * InvRMS, X's type) * scale
 * Scale broadcasts over the normalized dims. The new nodes keep the node's name for
 * diagnostics; the last one writes the node's output. */
#include "graph_rewrite.h"
#include "op_attrs.h"

#include <string.h>

/* One binary (or unary, b = IR_NONE) node of the expansion. */
static ValueId step(InferCtx *c, Op op, ValueId a, ValueId b, ValueId out, const char *what)
{
	ValueId in[2] = { a, b };
	return rw_step(c, op, in, b == IR_NONE ? 1 : 2, out, NULL, 0, what);
}

static int rms_norm_infer(InferCtx *c)
{
	Graph *g = c->g;
	const NormAttrs *a = infer_node(c)->attrs;
	const Type x = *infer_in(c, 0), *s = infer_in(c, 1);
	const DType stash = (DType)a->stash_type;
	const int first = g->regions[infer_node(c)->region].n_nodes;
	const ValueId y = infer_node(c)->out[0], scale = infer_node(c)->in[1];
	int64_t axis, axes[IR_MAX_RANK];
	if (infer_check_dtype(c, 0, dtl_float) || infer_check_dtype(c, 1, dtl_float) ||
	    infer_normalize_axis(c, a->axis, x.rank, &axis))
		return -1;
	if (s->dtype != x.dtype)
		return infer_fail(c, 1, "scale must have X's element type");
	if (s->rank > x.rank - axis)
		return infer_fail(c, 1, "scale has rank %d, more than the %lld normalized dims", s->rank,
		                  (long long)(x.rank - axis));
	for (int i = 0; i < s->rank; i++) {
		int64_t d = x.dims[x.rank - s->rank + i];
		if (s->dims[i] != 1 && s->dims[i] != d)
			return infer_fail(c, 1, "scale dim %d is %lld, expected 1 or %lld", i,
			                  (long long)s->dims[i], (long long)d);
	}
	if (stash != DT_F32 && stash != DT_F64)
		return infer_fail_attr(c, "stash_type", "only float and double are supported");
	for (int64_t k = axis; k < x.rank; k++)
		axes[k - axis] = k;

	ValueId xu = infer_node(c)->in[0];
	if (stash != x.dtype)
		xu = rw_cast(c, xu, stash, "stashed");
	ValueId sq = step(c, OP_MUL, xu, xu, IR_NONE, "squared");
	RawAttr ra[2] = { rw_raw_ints("axes", axes, (int)(x.rank - axis)),
	                  rw_raw_int("keepdims", 1) };
	ValueId ms = rw_step(c, OP_REDUCE_MEAN, &sq, 1, IR_NONE, ra, 2, "mean_square");
	Type et = type_make(stash, 0, NULL);
	const double e64 = a->epsilon;
	const float e32 = a->epsilon;
	ValueId eps = ir_value_new_const(g, infer_node(c)->region,
	                                 arena_printf(&g->arena, "%s.epsilon", ir_node_name(g, c->node)),
	                                 &et, stash == DT_F64 ? (const void *)&e64 : (const void *)&e32);
	ValueId rms = step(c, OP_SQRT, step(c, OP_ADD, ms, eps, IR_NONE, "plus_epsilon"), IR_NONE,
	                   IR_NONE, "rms");
	ValueId inv = step(c, OP_RECIPROCAL, rms, IR_NONE, IR_NONE, "inv_rms");
	ValueId nrm = step(c, OP_MUL, xu, inv, IR_NONE, "normalized");
	if (stash != x.dtype)
		nrm = rw_cast(c, nrm, x.dtype, "normalized_cast");
	step(c, OP_MUL, nrm, scale, y, "scaled");
	infer_node(c)->dead = true;
	return rw_place_after(g, c->node, first, c->diags);
}

/* the attributes are LayerNormalization's (NormAttrs, op_attrs.h; imported by norm.c) */
const OpImpl op_impl_rms_norm = { sizeof(NormAttrs), norm_attr_fields, COUNTOF(norm_attr_fields),
                                  norm_attrs_import, rms_norm_infer, rw_never_lowered };
