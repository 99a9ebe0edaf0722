/* image.c — op groups resize, upsample, grid_sample, roi_align, nms, max_unpool, lrn, lp_pool, lp_norm, mvn, group_norm, col2im: attributes, inference, lowering (placeholder). */
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

const OpImpl op_impl_resize = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_upsample = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_grid_sample = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_roi_align = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_nms = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_max_unpool = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_lrn = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_lp_pool = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_lp_norm = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_mvn = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_group_norm = { 0, NULL, 0, NULL, not_implemented, no_lower };
const OpImpl op_impl_col2im = { 0, NULL, 0, NULL, not_implemented, no_lower };
