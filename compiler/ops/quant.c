/* quant.c — op groups quantize, dequantize, dynamic_quantize, qlinear_conv, qlinear_matmul, matmul_integer, conv_integer: attributes, inference, lowering (placeholder). */
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

const OpImpl op_impl_quantize = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_dequantize = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_dynamic_quantize = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_qlinear_conv = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_qlinear_matmul = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_matmul_integer = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_conv_integer = { 0, NULL, 0, NULL, not_implemented, no_lower };
