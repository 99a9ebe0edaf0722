/* indexing.c — op groups gather_elements, gather_nd, scatter_elements, scatter_nd, compress, nonzero, unique, reverse_sequence, arg, topk, depth_space, tfidf: attributes, inference, lowering (placeholder). */
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

const OpImpl op_impl_gather_elements = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_gather_nd = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_scatter_elements = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_scatter_nd = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_compress = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_nonzero = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_unique = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_reverse_sequence = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_arg = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_topk = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_depth_space = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_tfidf = { 0, NULL, 0, NULL, not_implemented, no_lower };
