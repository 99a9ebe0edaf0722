/* norm.c — op groups batchnorm, instancenorm, layernorm, softmax: attributes, inference, lowering (placeholder). */
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

const OpImpl op_impl_batchnorm = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_instancenorm = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_layernorm = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_softmax = { 0, NULL, 0, NULL, not_implemented, no_lower };
