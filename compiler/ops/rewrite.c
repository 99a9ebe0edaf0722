/* rewrite.c — helpers for the ops that inference rewrites into ordinary nodes as their
 * spec's function body spells them (RMSNormalization, Attention, RotaryEmbedding): one
 * new node per call, named after the node being rewritten, its output a new value
 * "<node>.<what>" unless the caller passes the node's own output. The caller places
 * the new nodes with ctrl_place_after (control.h), which infers and folds them. */
#include "control.h"

#include <float.h>
#include <stdlib.h>

ValueId ctrl_step(InferCtx *c, Op op, const ValueId *in, int n_in, ValueId out,
                  const RawAttr *raw, int n_raw, const char *what)
{
	Graph *g = c->g;
	if (out == IR_NONE)
		out = ir_value_new(g, infer_node(c)->region,
		                   arena_printf(&g->arena, "%s.%s", ir_node_name(g, c->node), what), NULL);
	ctrl_add_node(c, op, in, n_in, &out, 1, raw, n_raw);
	return out;
}

ValueId ctrl_cast(InferCtx *c, ValueId v, DType to, const char *what)
{
	RawAttr r = ctrl_attr_int("to", to);
	return ctrl_step(c, OP_CAST, &v, 1, IR_NONE, &r, 1, what);
}

ValueId ctrl_reshape(InferCtx *c, ValueId v, int rank, const int64_t *dims, ValueId out,
                     const char *what)
{
	ValueId in[2] = { v, ctrl_i64_const(c, arena_printf(&c->g->arena, "%s_shape", what), rank,
	                                    dims) };
	return ctrl_step(c, OP_RESHAPE, in, 2, out, NULL, 0, what);
}

ValueId ctrl_float_const(InferCtx *c, DType t, int rank, const int64_t *dims, const double *v,
                         const char *what)
{
	Graph *g = c->g;
	Type ty = type_make(t == DT_F64 ? DT_F64 : DT_F32, rank, dims);
	int64_t n = type_numel(&ty);
	void *data = malloc((size_t)(type_bytes(&ty) ? type_bytes(&ty) : 1));
	if (!data)
		die("out of memory");
	for (int64_t i = 0; i < n; i++) {
		if (t == DT_F64)
			((double *)data)[i] = v[i];
		else
			((float *)data)[i] = (float)v[i];
	}
	const char *name = arena_printf(&g->arena, "%s.%s%s", ir_node_name(g, c->node), what,
	                                ty.dtype == t ? "" : "_f32");
	ValueId k = ir_value_new_const(g, infer_node(c)->region, name, &ty, data);
	free(data);
	return ty.dtype == t ? k : ctrl_cast(c, k, t, what);   /* f16 / bf16: folded */
}

double ctrl_lowest(DType t)
{
	switch (t) {
	case DT_F16: return -65504.0;
	case DT_BF16: return -3.3895313892515355e38;       /* 0xff7f: the largest finite bf16 */
	case DT_F64: return -DBL_MAX;
	default: return -FLT_MAX;
	}
}

int ctrl_never_lowered(LowerCtx *c)
{
	(void)c;
	return -1;
}
