/* op_attrs.c — the accessors of op_attrs.h: a node's typed attributes when its op
 * belongs to the group that imports them; the epilogue activations' names. An op's group (ops.h) fixes which struct
 * its attributes are, so the check compares the group's OpImpl. */
#include "op_attrs.h"

#include "opimpl.h"

#include "ewtable.h"

#define X(N, On, fn, R, U, A, PAR, S, V) INGOT_EW_IF_ACT_##R([A] = #fn,)
const char *const op_act_names[INGOT_EW_N_ACT + 1] = { "none", INGOT_EW_TABLE(X) };
#undef X
#define X(N, On, fn, R, U, A, PAR, S, V) INGOT_EW_IF_ACT_##R([A] = INGOT_EW_NPAR_##PAR,)
const int op_act_n_params[INGOT_EW_N_ACT] = { 0, INGOT_EW_TABLE(X) };
#undef X

/* Node id's attributes when its op belongs to group impl, else NULL. */
static void *of_group(Graph *g, NodeId id, const OpImpl *impl)
{
	const Node *n = ir_node(g, id);
	return op_info(n->op)->impl == impl ? n->attrs : NULL;
}

EpilogueAttrs *ops_epilogue_attrs(Graph *g, NodeId id)
{
	ConvAttrs *c = ops_conv_attrs(g, id);
	GemmAttrs *ge = ops_gemm_attrs(g, id);
	MatmulAttrs *m = ops_matmul_attrs(g, id);
	return c ? &c->ep : ge ? &ge->ep : m ? &m->ep : NULL;
}

ConvAttrs *ops_conv_attrs(Graph *g, NodeId id)
{
	ConvAttrs *a = of_group(g, id, &op_impl_conv);
	return a ? a : of_group(g, id, &op_impl_conv_transpose);
}

/* The accessors of the structs that one group imports: (struct, accessor, group). */
#define ONE_GROUP(X) \
	X(GemmAttrs, gemm, gemm) X(MatmulAttrs, matmul, matmul) X(BatchNormAttrs, batchnorm, batchnorm) \
	X(ReduceAttrs, reduce, reduce) X(ReshapeAttrs, reshape, reshape) \
	X(TransposeAttrs, transpose, transpose) X(UnaryAttrs, unary, unary) X(ClipAttrs, clip, clip) \
	X(MathAttrs, math, unary_math) X(FusedAttrs, fused, fused_elementwise) \
	X(QmmAttrs, qbinary, qlinear_binary) X(PadAttrs, pad, pad) X(PoolAttrs, pool, pool)
#define X(T, name, group) \
	T *ops_##name##_attrs(Graph *g, NodeId id) { return of_group(g, id, &op_impl_##group); }
ONE_GROUP(X)
#undef X

/* The accessors of the structs that two groups import: (struct, accessor, group, group). */
#define TWO_GROUPS(X) \
	X(NormAttrs, norm, layernorm, rms_norm) X(QConvAttrs, qconv, qlinear_conv, conv_integer) \
	X(QmmAttrs, qmm, qlinear_matmul, matmul_integer) X(QuantAttrs, quant, quantize, dequantize)
#define X(T, name, g1, g2) \
	T *ops_##name##_attrs(Graph *g, NodeId id) \
	{ \
		T *a = of_group(g, id, &op_impl_##g1); \
		return a ? a : of_group(g, id, &op_impl_##g2); \
	}
TWO_GROUPS(X)
#undef X
