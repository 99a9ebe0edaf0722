/* causal_conv.c — op group causal_conv: CausalConvWithState (opset 27), a stateful
 * causal depthwise 1-D convolution, rewritten by inference into its spec's Concat +
 * Conv + Slice pattern, so every target's Conv kernel (the depthwise fast paths among
 * them) runs it:
 *     P             = Concat(past_state or zeros (batch, channels, k - 1), input, axis 2)
 *     Y             = Conv(P, weight, bias, group = channels)    (valid padding)
 *     Y             = Swish(Y, alpha 1)                          (activation silu, swish)
 *     present_state = Slice(P, length .. length + k - 1, axis 2)  (its last k - 1 steps)
 * input is (batch, channels, length), weight (channels, 1, k), bias (channels),
 * past_state (batch, channels, k - 1). A kernel of size 1 has an empty carry state,
 * which ingot does not represent: it is refused. */
#include "graph_rewrite.h"

#include <stdlib.h>
#include <string.h>

typedef struct CausalConvAttrs {
	int64_t activation;   /* 0 none, 1 silu, 2 swish (the same function) */
} CausalConvAttrs;

static const char *const cc_acts[] = { "none", "silu", "swish", NULL };

static const AttrField causal_conv_fields[] = {
	{ "activation", AK_ENUM, offsetof(CausalConvAttrs, activation), cc_acts },
};

static int causal_conv_import(ImportCtx *c)
{
	CausalConvAttrs *a = c->attrs;
	int act;
	if (import_enum(c, "activation", cc_acts, 0, &act))
		return -1;
	a->activation = act;
	return 0;
}

static int causal_conv_infer(InferCtx *c)
{
	Graph *g = c->g;
	const CausalConvAttrs a = *(const CausalConvAttrs *)infer_node(c)->attrs;
	const Type x = *infer_in(c, 0), w = *infer_in(c, 1);
	const int first = g->regions[infer_node(c)->region].n_nodes;
	const Node *n = infer_node(c);
	const ValueId y = n->out[0], present = n->n_out > 1 ? n->out[1] : IR_NONE;
	if (infer_check_dtype(c, 0, dtl_float) || infer_same_dtype(c, 0, 1))
		return -1;
	if (x.rank != 3)
		return infer_fail(c, 0, "expected rank 3 (batch, channels, length), got %d", x.rank);
	const int64_t batch = x.dims[0], ch = x.dims[1], len = x.dims[2];
	if (w.rank != 3 || w.dims[0] != ch || w.dims[1] != 1)
		return infer_fail(c, 1, "expected shape (%lld, 1, k) (channels, 1, kernel size)",
		                  (long long)ch);
	const int64_t k = w.dims[2];
	if (k < 1)
		return infer_fail(c, 1, "kernel size is %lld, expected at least 1", (long long)k);
	if (k == 1)
		return infer_unsupported(c, "a kernel of size 1 (an empty carry state) is not supported");
	if (infer_has(c, 2)) {
		const Type *b = infer_in(c, 2);
		if (infer_same_dtype(c, 0, 2))
			return -1;
		if (b->rank != 1 || b->dims[0] != ch)
			return infer_fail(c, 2, "expected shape (%lld) (one bias per channel)", (long long)ch);
	}
	const int64_t sdims[3] = { batch, ch, k - 1 };
	if (infer_has(c, 3)) {
		const Type *p = infer_in(c, 3);
		if (infer_same_dtype(c, 0, 3))
			return -1;
		if (p->rank != 3 || memcmp(p->dims, sdims, sizeof sdims))
			return infer_fail(c, 3, "expected shape (%lld, %lld, %lld) (batch, channels, k - 1)",
			                  (long long)batch, (long long)ch, (long long)(k - 1));
	}
	for (int s = 0; s < 2; s++)
		if (infer_check_size(c, s))
			return -1;

	ValueId past;
	if (infer_has(c, 3)) {
		past = n->in[3];
	} else {
		const int64_t cnt = batch * ch * (k - 1);
		double *zeros = calloc((size_t)(cnt > 0 ? cnt : 1), sizeof *zeros);
		if (!zeros)
			die("out of memory");
		past = rw_float_const(c, x.dtype, 3, sdims, zeros, "zero_state");
		free(zeros);
	}
	n = infer_node(c);
	ValueId cat_in[2] = { past, n->in[0] };
	RawAttr ax = rw_raw_int("axis", 2);
	ValueId padded = rw_step(c, OP_CONCAT, cat_in, 2, IR_NONE, &ax, 1, "padded");
	n = infer_node(c);
	ValueId conv_in[3] = { padded, n->in[1], infer_has(c, 2) ? n->in[2] : IR_NONE };
	RawAttr grp = rw_raw_int("group", ch);
	ValueId conv = rw_step(c, OP_CONV, conv_in, infer_has(c, 2) ? 3 : 2,
	                       a.activation ? IR_NONE : y, &grp, 1, "conv");
	if (a.activation) {
		RawAttr al;
		memset(&al, 0, sizeof al);
		al.name = "alpha";
		al.kind = RA_FLOAT;
		al.f = 1.0f;
		rw_step(c, OP_SWISH, &conv, 1, y, &al, 1, "silu");
	}
	if (present != IR_NONE) {
		const int64_t st = len, en = len + k - 1, axis = 2;
		ValueId sl_in[4] = { padded, rw_i64_const(c, "state_start", 1, &st),
		                     rw_i64_const(c, "state_end", 1, &en),
		                     rw_i64_const(c, "state_axis", 1, &axis) };
		rw_step(c, OP_SLICE, sl_in, 4, present, NULL, 0, "present_state");
	}
	infer_node(c)->dead = true;
	return rw_place_after(g, c->node, first, c->diags);
}

const OpImpl op_impl_causal_conv = { sizeof(CausalConvAttrs), causal_conv_fields,
                                     COUNTOF(causal_conv_fields), causal_conv_import,
                                     causal_conv_infer, rw_never_lowered };
