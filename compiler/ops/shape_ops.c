/* shape_ops.c — op groups concat, constant_of_shape, expand, gather, pad, range, reshape, shape, slice, split, tile, transpose: attributes, inference, lowering (placeholder). */
#include "opimpl.h"

static int not_implemented(InferCtx *c)
{
	return infer_fail(c, -1, "not implemented yet");
}

static int no_lower(LowerCtx *c)
{
	(void)c;
	return -1;
}

const OpImpl op_impl_concat = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_constant_of_shape = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_expand = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_gather = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_pad = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_range = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_reshape = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_shape = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_slice = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_split = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_tile = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_transpose = { 0, NULL, 0, NULL, not_implemented, no_lower };
