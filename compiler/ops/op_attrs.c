/* op_attrs.c — the accessors of op_attrs.h: a node's typed attributes when its op
 * belongs to the group that imports them. An op's group (ops.h) fixes which struct
 * its attributes are, so the check compares the group's OpImpl. */
#include "op_attrs.h"

#include "opimpl.h"

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

GemmAttrs *ops_gemm_attrs(Graph *g, NodeId id)
{
	return of_group(g, id, &op_impl_gemm);
}

MatmulAttrs *ops_matmul_attrs(Graph *g, NodeId id)
{
	return of_group(g, id, &op_impl_matmul);
}

BatchNormAttrs *ops_batchnorm_attrs(Graph *g, NodeId id)
{
	return of_group(g, id, &op_impl_batchnorm);
}

NormAttrs *ops_norm_attrs(Graph *g, NodeId id)
{
	NormAttrs *a = of_group(g, id, &op_impl_layernorm);
	return a ? a : of_group(g, id, &op_impl_rms_norm);
}

ReduceAttrs *ops_reduce_attrs(Graph *g, NodeId id)
{
	return of_group(g, id, &op_impl_reduce);
}

ReshapeAttrs *ops_reshape_attrs(Graph *g, NodeId id)
{
	return of_group(g, id, &op_impl_reshape);
}

TransposeAttrs *ops_transpose_attrs(Graph *g, NodeId id)
{
	return of_group(g, id, &op_impl_transpose);
}

UnaryAttrs *ops_unary_attrs(Graph *g, NodeId id)
{
	return of_group(g, id, &op_impl_unary);
}

ClipAttrs *ops_clip_attrs(Graph *g, NodeId id)
{
	return of_group(g, id, &op_impl_clip);
}

MathAttrs *ops_math_attrs(Graph *g, NodeId id)
{
	return of_group(g, id, &op_impl_unary_math);
}

FusedAttrs *ops_fused_attrs(Graph *g, NodeId id)
{
	return of_group(g, id, &op_impl_fused_elementwise);
}
