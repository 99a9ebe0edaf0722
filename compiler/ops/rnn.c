/* rnn.c — op groups rnn: attributes, inference, lowering (placeholder). */
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

const OpImpl op_impl_rnn = { 0, NULL, 0, NULL, not_implemented, no_lower };
