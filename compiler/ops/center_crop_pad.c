/* center_crop_pad.c — op group center_crop_pad: CenterCropPad (opset 18), rewritten
 * by inference into ordinary nodes, so it needs no kernel of its own.
 *
 * With the input's static shape and the constant `shape` input, every axis listed in
 * `axes` (default: all, in order) is either cropped or padded to its target size,
 * centred. Where the difference is odd the extra element is taken from (crop) or
 * added at (pad) the end, as the spec's function body does: its offsets are
 * floor(difference / 2). The node becomes a Slice of the cropped axes (starts and
 * ends constant) followed by a Pad of the padded axes (constant 0), or an Identity
 * when no axis changes; the new nodes keep the node's name for diagnostics.
 */
#include "graph_rewrite.h"

#include <string.h>

typedef struct CropPadAttrs {
	IntList axes;               /* as written (may be negative); n = -1: all axes */
} CropPadAttrs;

static const AttrField crop_pad_fields[] = {
	{ "axes", AK_INTS, offsetof(CropPadAttrs, axes), NULL },
};

static int crop_pad_import(ImportCtx *c)
{
	CropPadAttrs *a = c->attrs;
	return import_ints(c, "axes", &a->axes);
}

/* The node's output comes from a new node `op` on `in` (plus constants); it dies. */
static ValueId add_step(InferCtx *c, Op op, ValueId *in, int n_in, bool last)
{
	Graph *g = c->g;
	ValueId out = infer_node(c)->out[0];
	if (!last)
		out = ir_value_new(g, infer_node(c)->region,
		                   arena_printf(&g->arena, "%s.cropped", g->values[out].name), NULL);
	rw_add_node(c, op, in, n_in, &out, 1, NULL, 0);
	return out;
}

static int crop_pad_infer(InferCtx *c)
{
	Graph *g = c->g;
	const CropPadAttrs *a = infer_node(c)->attrs;
	const Type x = *infer_in(c, 0);
	int64_t *shape, axes[IR_MAX_RANK], starts[IR_MAX_RANK], ends[IR_MAX_RANK];
	int64_t pads[2 * IR_MAX_RANK] = { 0 }, crop_axes[IR_MAX_RANK];
	int n, n_crop = 0, n_pad = 0, first = g->regions[infer_node(c)->region].n_nodes;
	bool seen[IR_MAX_RANK] = { false };

	if (infer_check_dtype(c, 0, dtl_all) || infer_const_ints(c, 1, &shape, &n))
		return -1;
	if (infer_in(c, 1)->rank != 1)
		return infer_fail(c, 1, "expected a 1-D shape, got rank %d", infer_in(c, 1)->rank);
	int n_axes = a->axes.n < 0 ? x.rank : a->axes.n;
	if (n != n_axes)
		return infer_fail(c, 1, "expected %d sizes (one per axis in %s), got %d", n_axes,
		                  a->axes.n < 0 ? "the input's rank" : "axes", n);
	for (int i = 0; i < n_axes; i++) {
		int64_t ax = a->axes.n < 0 ? i : a->axes.v[i];
		if (infer_normalize_axis(c, ax, x.rank, &axes[i]))
			return -1;
		if (seen[axes[i]])
			return infer_fail_attr(c, "axes", "axis %lld is listed twice", (long long)ax);
		seen[axes[i]] = true;
		if (shape[i] < 0)
			return infer_fail(c, 1, "size %lld for axis %lld is negative",
			                  (long long)shape[i], (long long)ax);
	}
	for (int i = 0; i < n_axes; i++) {
		int64_t dim = x.dims[axes[i]], diff = dim - shape[i];
		if (diff > 0) {                           /* crop: drop the odd element at the end */
			crop_axes[n_crop] = axes[i];
			starts[n_crop] = diff / 2;
			ends[n_crop++] = diff / 2 + shape[i];
		} else if (diff < 0) {                    /* pad: add the odd element at the end */
			pads[axes[i]] = -diff / 2;
			pads[x.rank + axes[i]] = -diff - -diff / 2;
			n_pad++;
		}
	}

	ValueId cur = infer_node(c)->in[0];
	if (n_crop) {
		ValueId in[4] = { cur, rw_i64_const(c, "starts", n_crop, starts),
		                  rw_i64_const(c, "ends", n_crop, ends),
		                  rw_i64_const(c, "axes", n_crop, crop_axes) };
		cur = add_step(c, OP_SLICE, in, 4, n_pad == 0);
	}
	if (n_pad) {
		ValueId in[2] = { cur, rw_i64_const(c, "pads", 2 * x.rank, pads) };
		add_step(c, OP_PAD, in, 2, true);
	}
	if (!n_crop && !n_pad)
		add_step(c, OP_IDENTITY, &cur, 1, true);
	infer_node(c)->dead = true;
	return rw_place_after(g, c->node, first, c->diags);
}

const OpImpl op_impl_center_crop_pad = { sizeof(CropPadAttrs), crop_pad_fields,
                                         COUNTOF(crop_pad_fields), crop_pad_import,
                                         crop_pad_infer, rw_never_lowered };
