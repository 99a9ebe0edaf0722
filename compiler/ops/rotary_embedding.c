/* rotary_embedding.c — op group rotary_embedding: RotaryEmbedding (opset 23), rewritten
 * by inference into ordinary nodes along the spec's function body, so it needs no
 * kernel of its own:
 *     X4       = X as (batch, seq, heads, head_size) (3-D: Reshape) or as given (4-D:
 *                (batch, heads, seq, head_size))
 *     cos, sin = Gather(cache, position_ids) or the (batch, seq, R/2) caches, with a
 *                heads axis inserted so they broadcast over X4
 *     x1, x2   = the two halves of X4[..., :R] (interleaved: its even and odd elements)
 *     real     = cos * x1 - sin * x2,  imag = sin * x1 + cos * x2
 *     Y        = Concat(real, imag) (interleaved: the pairs interleaved again), then
 *                X4[..., R:] when only R = rotary_embedding_dim dims rotate
 * and back to X's shape. f16 and bf16 inputs are computed in float. */
#include "graph_rewrite.h"

#include <string.h>

typedef struct RotaryAttrs {
	int64_t interleaved;
	int64_t num_heads;              /* 0: absent (4-D X carries it) */
	int64_t rotary_embedding_dim;   /* 0: the head size */
} RotaryAttrs;

static const AttrField rotary_fields[] = {
	{ "interleaved", AK_INT, offsetof(RotaryAttrs, interleaved), NULL },
	{ "num_heads", AK_INT, offsetof(RotaryAttrs, num_heads), NULL },
	{ "rotary_embedding_dim", AK_INT, offsetof(RotaryAttrs, rotary_embedding_dim), NULL },
};

static int rotary_import(ImportCtx *c)
{
	RotaryAttrs *a = c->attrs;
	if (import_int(c, "interleaved", 0, &a->interleaved) ||
	    import_int(c, "num_heads", 0, &a->num_heads) ||
	    import_int(c, "rotary_embedding_dim", 0, &a->rotary_embedding_dim))
		return -1;
	if (a->interleaved != 0 && a->interleaved != 1)
		return import_fail(c, "interleaved", "expected 0 or 1, got %lld", (long long)a->interleaved);
	if (a->num_heads < 0 || a->num_heads > OPS_MAX_ATTR)
		return import_fail(c, "num_heads", "expected a positive head count, got %lld",
		                   (long long)a->num_heads);
	if (a->rotary_embedding_dim < 0 || a->rotary_embedding_dim > OPS_MAX_ATTR)
		return import_fail(c, "rotary_embedding_dim", "expected a positive size, got %lld",
		                   (long long)a->rotary_embedding_dim);
	return 0;
}

/* X4[..., start:end:step] on the last axis */
static ValueId last_slice(InferCtx *c, ValueId x, int64_t start, int64_t end, int64_t step,
                          const char *what)
{
	const int64_t axis = -1;
	ValueId in[5] = { x, rw_i64_const(c, arena_printf(&c->g->arena, "%s_start", what), 1, &start),
	                  rw_i64_const(c, arena_printf(&c->g->arena, "%s_end", what), 1, &end),
	                  rw_i64_const(c, arena_printf(&c->g->arena, "%s_axis", what), 1, &axis),
	                  rw_i64_const(c, arena_printf(&c->g->arena, "%s_step", what), 1, &step) };
	return rw_step(c, OP_SLICE, in, 5, IR_NONE, NULL, 0, what);
}

static ValueId bin(InferCtx *c, Op op, ValueId a, ValueId b, const char *what)
{
	ValueId in[2] = { a, b };
	return rw_step(c, op, in, 2, IR_NONE, NULL, 0, what);
}

static ValueId concat_last(InferCtx *c, ValueId a, ValueId b, ValueId out, const char *what)
{
	ValueId in[2] = { a, b };
	RawAttr r = rw_raw_int("axis", -1);
	return rw_step(c, OP_CONCAT, in, 2, out, &r, 1, what);
}

/* cos or sin for every (batch, seq) with a heads axis of 1 at `heads_axis` */
static ValueId angle(InferCtx *c, int slot, int64_t heads_axis, const char *what)
{
	ValueId v = infer_node(c)->in[slot];
	if (infer_has(c, 3)) {
		ValueId in[2] = { v, infer_node(c)->in[3] };
		v = rw_step(c, OP_GATHER, in, 2, IR_NONE, NULL, 0,
		              arena_printf(&c->g->arena, "%s_gathered", what));
	}
	ValueId in[2] = { v, rw_i64_const(c, arena_printf(&c->g->arena, "%s_axes", what), 1,
	                                    &heads_axis) };
	return rw_step(c, OP_UNSQUEEZE, in, 2, IR_NONE, NULL, 0, what);
}

/* The caches (and position_ids) against X's batch, seq and half rotary size. */
static int check_caches(InferCtx *c, int64_t batch, int64_t seq, int64_t half)
{
	const Type x = *infer_in(c, 0);
	const bool pos = infer_has(c, 3);
	if (pos) {
		const Type p = *infer_in(c, 3);
		if (p.dtype != DT_I64)
			return infer_fail(c, 3, "element type %s, expected i64", dtype_name(p.dtype));
		if (p.rank != 2 || p.dims[0] != batch || p.dims[1] != seq)
			return infer_fail(c, 3, "expected shape (%lld, %lld) (batch, sequence length)",
			                  (long long)batch, (long long)seq);
	}
	for (int s = 1; s <= 2; s++) {
		const Type t = *infer_in(c, s);
		if (t.dtype != x.dtype)
			return infer_fail(c, s, "element type %s differs from X's %s", dtype_name(t.dtype),
			                  dtype_name(x.dtype));
		if (pos && (t.rank != 2 || t.dims[1] != half))
			return infer_fail(c, s, "expected shape (max position + 1, %lld) with position_ids",
			                  (long long)half);
		if (!pos && (t.rank != 3 || t.dims[0] != batch || t.dims[1] != seq || t.dims[2] != half))
			return infer_fail(c, s, "expected shape (%lld, %lld, %lld) (batch, sequence length, "
			                  "rotary dim / 2) without position_ids", (long long)batch,
			                  (long long)seq, (long long)half);
	}
	return 0;
}

static int rotary_infer(InferCtx *c)
{
	Graph *g = c->g;
	const RotaryAttrs a = *(const RotaryAttrs *)infer_node(c)->attrs;
	const Type x = *infer_in(c, 0);
	const int first = g->regions[infer_node(c)->region].n_nodes;
	const ValueId y = infer_node(c)->out[0];
	int64_t batch, seq, heads, head;

	if (infer_check_dtype(c, 0, dtl_float) || infer_check_size(c, 0))
		return -1;
	if (x.rank == 3) {
		if (a.num_heads <= 0)
			return infer_fail_attr(c, "num_heads", "is required with a 3-D input");
		if (x.dims[2] % a.num_heads)
			return infer_fail(c, 0, "hidden size %lld is not a multiple of num_heads %lld",
			                  (long long)x.dims[2], (long long)a.num_heads);
		batch = x.dims[0], seq = x.dims[1], heads = a.num_heads, head = x.dims[2] / heads;
	} else if (x.rank == 4) {
		batch = x.dims[0], heads = x.dims[1], seq = x.dims[2], head = x.dims[3];
		if (a.num_heads && a.num_heads != heads)
			return infer_fail_attr(c, "num_heads", "is %lld, the 4-D input has %lld heads",
			                       (long long)a.num_heads, (long long)heads);
	} else {
		return infer_fail(c, 0, "expected rank 3 or 4, got %d", x.rank);
	}
	const int64_t rot = a.rotary_embedding_dim ? a.rotary_embedding_dim : head;
	if (rot > head || rot % 2)
		return infer_fail_attr(c, "rotary_embedding_dim",
		                       "%lld rotated dims: expected an even number up to the head size %lld",
		                       (long long)rot, (long long)head);
	if (check_caches(c, batch, seq, rot / 2))
		return -1;

	/* the 4-D view and the angles broadcast over its heads axis; f16 and bf16 are
	 * computed in float and rounded once, as ONNX Runtime does */
	const DType t = x.dtype, ct = t == DT_F16 || t == DT_BF16 ? DT_F32 : t;
	ValueId x4 = infer_node(c)->in[0];
	const int64_t split[4] = { batch, seq, heads, head };
	if (x.rank == 3)
		x4 = rw_reshape(c, x4, 4, split, IR_NONE, "x_heads");
	const int64_t heads_axis = x.rank == 3 ? 2 : 1;
	ValueId cos = angle(c, 1, heads_axis, "cos"), sin = angle(c, 2, heads_axis, "sin");
	if (ct != t) {
		x4 = rw_cast(c, x4, ct, "x_float");
		cos = rw_cast(c, cos, ct, "cos_float");
		sin = rw_cast(c, sin, ct, "sin_float");
	}

	ValueId x1, x2;
	if (a.interleaved) {
		x1 = last_slice(c, x4, 0, rot, 2, "x_even");
		x2 = last_slice(c, x4, 1, rot, 2, "x_odd");
	} else {
		x1 = last_slice(c, x4, 0, rot / 2, 1, "x_first");
		x2 = last_slice(c, x4, rot / 2, rot, 1, "x_second");
	}
	ValueId re = bin(c, OP_SUB, bin(c, OP_MUL, cos, x1, "cos_x1"), bin(c, OP_MUL, sin, x2, "sin_x2"),
	                 "real");
	ValueId im = bin(c, OP_ADD, bin(c, OP_MUL, sin, x1, "sin_x1"), bin(c, OP_MUL, cos, x2, "cos_x2"),
	                 "imag");
	/* the last step writes Y: which one it is */
	const bool whole = rot == head, cast = ct != t;
	const int last = x.rank == 3 ? 3 : cast ? 2 : !whole ? 1 : 0;
	ValueId r;
	if (a.interleaved) {
		const int64_t minus1 = -1;
		ValueId pair[2];
		for (int i = 0; i < 2; i++) {
			ValueId in[2] = { i ? im : re,
			                  rw_i64_const(c, i ? "imag_axes" : "real_axes", 1, &minus1) };
			pair[i] = rw_step(c, OP_UNSQUEEZE, in, 2, IR_NONE, NULL, 0, i ? "imag_pair" : "real_pair");
		}
		int64_t flat[4];
		memcpy(flat, x.rank == 3 ? split : x.dims, sizeof flat);
		flat[3] = rot;
		r = rw_reshape(c, concat_last(c, pair[0], pair[1], IR_NONE, "pairs"), 4, flat,
		                 last == 0 ? y : IR_NONE, "rotated");
	} else {
		r = concat_last(c, re, im, last == 0 ? y : IR_NONE, "rotated");
	}
	if (!whole)
		r = concat_last(c, r, last_slice(c, x4, rot, head, 1, "x_pass"), last == 1 ? y : IR_NONE,
		                "joined");
	if (cast) {
		RawAttr to = rw_raw_int("to", t);
		r = rw_step(c, OP_CAST, &r, 1, last == 2 ? y : IR_NONE, &to, 1, "rounded");
	}
	if (x.rank == 3)
		rw_reshape(c, r, 3, x.dims, y, "y");
	infer_node(c)->dead = true;
	return rw_place_after(g, c->node, first, c->diags);
}

const OpImpl op_impl_rotary_embedding = { sizeof(RotaryAttrs), rotary_fields,
                                          COUNTOF(rotary_fields), rotary_import, rotary_infer,
                                          rw_never_lowered };
