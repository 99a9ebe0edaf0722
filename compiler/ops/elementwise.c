/* elementwise.c — op groups unary, binary, variadic, cast, clip, identity, where: attributes, inference, lowering (placeholder). */
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

const OpImpl op_impl_unary = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_binary = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_variadic = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_cast = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_clip = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_identity = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_where = { 0, NULL, 0, NULL, not_implemented, no_lower };
