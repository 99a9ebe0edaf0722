/* layout.c — which tensors the x86 targets keep in the blocked layout (channels in
 * blocks of one vector innermost, runtime-stubs/kernels/x86/pwconv.h): those between
 * the Convs that read and write it, so that no transform is ever needed.
 *   - A pointwise Conv (1x1, stride 1, no padding, one group, constant weights:
 *     ingot_x86_pwconv) reads and writes either layout.
 *   - A depthwise Conv (ingot_x86_dwconv, 2 spatial dims) reads the blocked one
 *     when its input comes from a pointwise Conv and is read by it alone, and then
 *     writes it too when its output is read only by pointwise Convs.
 * A pointwise Conv with a part-empty last vector of output channels (24 on
 * AVX-512) stays in ingot_x86_conv, which puts pixels on the lanes.
 * A tensor is blocked when its channels are a multiple of the vector width, it is
 * not a model or region input or output, every reader takes it as the Conv input
 * (slot 0, not a residual), its writer is a pointwise Conv without a residual (or
 * a blocked depthwise one) and each reader is a pointwise Conv or a blocked
 * depthwise one. Inverted-residual blocks (MobileNetV2/V3: expand 1x1, depthwise,
 * project 1x1) thus keep their wide inner tensors blocked. The decision is a
 * function of the graph, so the writer's and the readers' lowerings agree; weight
 * packing (prepack.c) asks it too. */
#include "x86_target.h"
#include "ukgen.h"

#include <string.h>

#include "conv.h"
#include "x86/dwconv.h"
#include "x86/pwconv.h"

enum { LK_OTHER, LK_PW, LK_DW };

/* How node n can take part, with *res set when it adds a residual. A pointwise
 * Conv whose output channels leave the last vector part empty stays out (it runs
 * faster in ingot_x86_conv, pixels on the lanes). */
static int layout_kind(const Target *t, Graph *g, NodeId n, bool *res)
{
	const SimdIsa *isa = ukgen_isa(t);
	KernelCall ref;
	bool packable;
	ingot_x86_conv_params q;
	*res = false;
	if (n == IR_NONE || g->nodes[n].dead || g->nodes[n].op != OP_CONV ||
	    cg_x86_kind(t, g, n, &ref, &packable) != X86_CONV)
		return LK_OTHER;
	memset(&q, 0, sizeof q);
	memcpy(&q, ref.params, sizeof(ingot_conv_params));
	*res = q.has_residual != 0;
	if (packable && ingot_x86_pw_ok(&q) && q.y_dims[1] % isa->lanes == 0)
		return LK_PW;
	if (q.nsp == 2 && ingot_x86_dw_ok(&q))
		return LK_DW;
	return LK_OTHER;
}

/* The conditions on the tensor itself; *readers gets its number of readers. */
static bool side_ok(const Graph *g, ValueId v, int lanes, int *readers)
{
	const Value *val = &g->values[v];
	int cnt = 0;
	if (val->is_input || val->is_output || val->is_const || val->producer == IR_NONE || val->seq ||
	    val->dynamic || val->type.dtype != DT_F32 || val->type.rank != 4 || val->type.dims[1] % lanes ||
	    g->nodes[val->producer].out[0] != v)
		return false;
	for (ValueId i = 0; i < g->n_values; i++)
		if (g->values[i].alias_of == v)
			return false;
	for (NodeId n = 0; n < g->n_nodes; n++) {
		const Node *nd = &g->nodes[n];
		if (nd->dead)
			continue;
		for (int s = 0; s < nd->n_in; s++)
			if (nd->in[s] == v) {
				if (s)
					return false;
				cnt++;
			}
	}
	*readers = cnt;
	return cnt > 0;
}

/* Whether every reader of v is a pointwise Conv. */
static bool read_by_pw(const Target *t, Graph *g, ValueId v)
{
	for (NodeId n = 0; n < g->n_nodes; n++) {
		bool res;
		if (g->nodes[n].dead || g->nodes[n].n_in < 1 || g->nodes[n].in[0] != v)
			continue;
		if (layout_kind(t, g, n, &res) != LK_PW)
			return false;
	}
	return true;
}

/* Whether depthwise Conv d reads its input blocked. */
static bool dw_blocked_in(const Target *t, Graph *g, NodeId d, int lanes)
{
	bool res;
	int readers;
	ValueId x;
	NodeId px;
	if (layout_kind(t, g, d, &res) != LK_DW || res)
		return false;
	x = g->nodes[d].in[0];
	if (!side_ok(g, x, lanes, &readers) || readers != 1)
		return false;
	px = g->values[x].producer;
	return layout_kind(t, g, px, &res) == LK_PW && !res;
}

/* Whether depthwise Conv d writes its output blocked: it reads blocked and only
 * pointwise Convs read its output. */
static bool dw_blocked_out(const Target *t, Graph *g, NodeId d, int lanes)
{
	int readers;
	return dw_blocked_in(t, g, d, lanes) && side_ok(g, g->nodes[d].out[0], lanes, &readers) &&
	       read_by_pw(t, g, g->nodes[d].out[0]);
}

static bool blocked(const Target *t, Graph *g, ValueId v, int lanes)
{
	bool res;
	int readers;
	NodeId p;
	int kind;
	if (v == IR_NONE || !side_ok(g, v, lanes, &readers))
		return false;
	p = g->values[v].producer;
	kind = layout_kind(t, g, p, &res);
	if (kind == LK_DW)
		return dw_blocked_out(t, g, p, lanes);
	if (kind != LK_PW || res)
		return false;
	for (NodeId n = 0; n < g->n_nodes; n++) {
		if (g->nodes[n].dead || g->nodes[n].n_in < 1 || g->nodes[n].in[0] != v)
			continue;
		kind = layout_kind(t, g, n, &res);
		if (kind != LK_PW && !(kind == LK_DW && dw_blocked_in(t, g, n, lanes)))
			return false;
	}
	return true;
}

int cg_x86_layout(const Target *t, Graph *g, NodeId n)
{
	const SimdIsa *isa = ukgen_isa(t);
	const Node *nd = &g->nodes[n];
	if (!isa || nd->op != OP_CONV || nd->n_in < 1 || nd->n_out < 1)
		return 0;
	return (blocked(t, g, nd->in[0], isa->lanes) ? 1 : 0) | (blocked(t, g, nd->out[0], isa->lanes) ? 2 : 0);
}

bool cg_x86_pwconv(const Target *t, Graph *g, NodeId n)
{
	const SimdIsa *isa = ukgen_isa(t);
	bool res;
	KernelCall ref;
	bool packable;
	int64_t p;
	if (!isa || layout_kind(t, g, n, &res) != LK_PW)
		return false;
	if (cg_x86_layout(t, g, n))
		return true;
	/* NCHW in and out: when the pixels leave the last vector mostly empty (7 x 7 = 3
	 * vectors + 1 lane; a 1 x 1 plane: 1 lane) while the channels fill theirs */
	if (cg_x86_kind(t, g, n, &ref, &packable) != X86_CONV)
		return false;
	p = ((const ingot_conv_params *)ref.params)->y_dims[2] * ((const ingot_conv_params *)ref.params)->y_dims[3];
	return p % isa->lanes != 0 && p % isa->lanes <= isa->lanes / 2;
}
