/* arith.c — op groups unary_math, int_binary, prelu, hardmax, cumsum, det, einsum, trilu, eye_like, one_hot, cast_like: attributes, inference, lowering (placeholder). */
#include "opimpl.h"

static int not_implemented(InferCtx *c)
{
	DiagLoc l = ir_node_loc(c->g, c->node);
	diag_report(c->diags, DIAG_ERROR, DC_UNSUPPORTED, &l, "not implemented yet");
	return -1;
}

static int no_lower(LowerCtx *c)
{
	(void)c;
	return -1;
}

const OpImpl op_impl_unary_math = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_int_binary = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_prelu = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_hardmax = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_cumsum = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_det = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_einsum = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_trilu = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_eye_like = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_one_hot = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_cast_like = { 0, NULL, 0, NULL, not_implemented, no_lower };
