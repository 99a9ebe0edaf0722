/* quantize.c — post-training int8 quantization of a float graph, the way ONNX
 * Runtime's QDQ quantizer writes it; fold_qdq (the first pass of -O1/-O2) then turns
 * the patterns into integer nodes. The driver (compiler/driver/calibrate.c) plans,
 * calibrates the planned activations on an instrumented build, and applies:
 *
 *   quant_prepare  the float simplifications quantization must see first (a
 *                  BatchNormalization folded into its Conv, MatMul+Add as Gemm)
 *   quant_plan     which nodes run in int8 and which activations need a range;
 *                  the rest stay float, each with its reason
 *   quant_apply    weights: per output channel, symmetric int8 in [-127, 127], zero
 *                  point 0, behind a DequantizeLinear; activations: a QuantizeLinear /
 *                  DequantizeLinear pair per tensor (u8 asymmetric, or s8 symmetric)
 *                  right after the value's producer, whose output keeps its name
 *
 * Quantized: Conv, MatMul and Gemm with constant weights (a Relu or a constant Clip
 * that alone reads the output joins them: the pair goes after it), Add and Concat of
 * activations, AveragePool and GlobalAveragePool (their own ranges on every input and
 * output), and the ops that only move values (MaxPool, Reshape, Flatten, Transpose,
 * Squeeze, Unsqueeze) when their input is quantized, at their input's parameters, so
 * fold_qdq runs them on the 8-bit values. Everything else (Softmax, LayerNorm, ...)
 * stays float and reads the dequantized values. The bias stays a float constant:
 * fold_qdq quantizes it to int32 at x_scale * w_scale[c]. */
#include "passes.h"
#include "rewrite.h"
#include "op_attrs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool is_f32_act(const Graph *g, ValueId v)
{
	return v != IR_NONE && !g->values[v].is_const && g->values[v].type.dtype == DT_F32 &&
	       !g->values[v].dynamic;
}

static bool is_f32_const(const Graph *g, ValueId v, int min_rank, int max_rank)
{
	return v != IR_NONE && g->values[v].is_const && g->values[v].type.dtype == DT_F32 &&
	       g->values[v].type.rank >= min_rank && g->values[v].type.rank <= max_rank;
}

bool quant_keep_matches(const Graph *g, NodeId id, const char *const *keep, int n_keep)
{
	const Node *n = &g->nodes[id];
	for (int k = 0; k < n_keep; k++) {
		if (strcmp(keep[k], ir_op_name(n->op)) == 0)
			return true;
		for (int o = 0; o < n->n_origins; o++)
			if (n->origins[o] && strcmp(keep[k], n->origins[o]) == 0)
				return true;
	}
	return false;
}

int quant_prepare(Graph *g, PassCtx *ctx)
{
	/* fold_constants marks DequantizeLinear of constants foldable; the weights this
	 * pass puts behind one must wait for fold_qdq, so the flag comes back */
	bool folded = g->qdq_folded;
	static const char *const prep[] = { "fold_constants", "remove_identity", "dce", "fold_chains",
	                                    "matmul_add_to_gemm", "fold_batchnorm", "dce" };
	int rc = pass_run(g, ctx, prep, COUNTOF(prep));
	g->qdq_folded = folded;
	return rc;
}

/* The Relu or constant-bound Clip that alone reads node id's output, or IR_NONE. */
static NodeId folded_act(Graph *g, const Uses *u, NodeId id, const char *const *keep, int n_keep)
{
	ValueId y = g->nodes[id].out[0];
	NodeId a = rw_sole_user(g, u, y);
	if (a == IR_NONE || g->values[y].is_output || quant_keep_matches(g, a, keep, n_keep))
		return IR_NONE;
	if (g->nodes[a].op == OP_RELU)
		return a;
	if (g->nodes[a].op != OP_CLIP)
		return IR_NONE;
	for (int k = 1; k < g->nodes[a].n_in; k++)
		if (g->nodes[a].in[k] != IR_NONE && (!g->values[g->nodes[a].in[k]].is_const ||
		                                     type_numel(&g->values[g->nodes[a].in[k]].type) != 1))
			return IR_NONE;
	return a;
}

/* Why a compute node cannot run in int8 (NULL: it can). */
static const char *compute_blocker(Graph *g, NodeId id)
{
	const Node *n = &g->nodes[id];
	switch (n->op) {
	case OP_CONV: {
		const ConvAttrs *a = ops_conv_attrs(g, id);
		if (!is_f32_act(g, n->in[0]))
			return "its input is not a float activation";
		if (!is_f32_const(g, n->in[1], 3, 5))
			return "its weights are not a float constant";
		if (n->n_in > 2 && n->in[2] != IR_NONE && !is_f32_const(g, n->in[2], 1, 1))
			return "its bias is not a float constant";
		if (a->ep.activation || a->ep.residual)
			return "it has a fused epilogue";
		return NULL;
	}
	case OP_MATMUL:
		if (!is_f32_act(g, n->in[0]))
			return "its input is not a float activation";
		if (!is_f32_const(g, n->in[1], 2, 2))
			return "B is not a constant matrix (no int8 kernel for two activations)";
		return NULL;
	case OP_GEMM: {
		const GemmAttrs *a = ops_gemm_attrs(g, id);
		bool has_c = n->n_in > 2 && n->in[2] != IR_NONE;
		if (!is_f32_act(g, n->in[0]) || !is_f32_const(g, n->in[1], 2, 2))
			return "B is not a constant matrix (no int8 kernel for two activations)";
		if (a->trans_a || a->alpha != 1.0f || (has_c && a->beta != 1.0f))
			return "transA, alpha or beta is not the default";
		if (has_c && !is_f32_const(g, n->in[2], 1, 2))
			return "C is not a float constant";
		return NULL;
	}
	case OP_ADD:
		if (!is_f32_act(g, n->in[0]) || !is_f32_act(g, n->in[1]))
			return "an operand is a constant or not float";
		return NULL;
	case OP_CONCAT:
		for (int k = 0; k < n->n_in; k++)
			if (!is_f32_act(g, n->in[k]))
				return "an operand is a constant or not float";
		return NULL;
	case OP_AVERAGE_POOL:
	case OP_GLOBAL_AVERAGE_POOL:
		return is_f32_act(g, n->in[0]) ? NULL : "its input is not a float activation";
	default:
		return "";
	}
}

static bool moves_values(const Node *n)
{
	switch (n->op) {
	case OP_MAX_POOL:
		return n->n_out == 1 || n->out[1] == IR_NONE;
	case OP_RESHAPE: case OP_FLATTEN: case OP_TRANSPOSE: case OP_SQUEEZE: case OP_UNSQUEEZE:
		return true;
	default:
		return false;
	}
}

void quant_plan(Graph *g, const char *const *keep, int n_keep, QuantPlan *p)
{
	const Region *main = &g->regions[0];
	Uses u = { 0 };
	memset(p, 0, sizeof *p);
	p->n_values = g->n_values;
	p->n_nodes = g->n_nodes;
	p->range_of = malloc((size_t)(g->n_values + 1) * sizeof *p->range_of);
	p->why_float = calloc((size_t)g->n_nodes + 1, sizeof *p->why_float);
	p->out_of = malloc((size_t)(g->n_nodes + 1) * sizeof *p->out_of);
	if (!p->range_of || !p->why_float || !p->out_of)
		die("out of memory");
	for (int i = 0; i < g->n_values; i++)
		p->range_of[i] = IR_NONE;
	for (int i = 0; i < g->n_nodes; i++)
		p->out_of[i] = IR_NONE;
	rw_uses_compute(g, &u);
	bool *folded = calloc((size_t)g->n_nodes + 1, sizeof *folded);
	if (!folded)
		die("out of memory");
	for (int i = 0; i < main->n_nodes; i++) {
		NodeId id = main->nodes[i];
		const Node *n = &g->nodes[id];
		if (n->dead || folded[id])
			continue;
		if (quant_keep_matches(g, id, keep, n_keep)) {
			p->why_float[id] = "--keep-float";
			continue;
		}
		if (moves_values(n)) {
			ValueId x = n->in[0], y = n->out[0];
			if (x != IR_NONE && p->range_of[x] != IR_NONE && is_f32_act(g, y)) {
				p->range_of[y] = p->range_of[x];
				p->out_of[id] = y;
			} else {
				p->why_float[id] = "its input stays float";
			}
			continue;
		}
		const char *why = compute_blocker(g, id);
		if (why) {
			p->why_float[id] = why[0] ? why : "no int8 kernel for this op";
			continue;
		}
		int n_act = n->op == OP_ADD ? 2 : n->op == OP_CONCAT ? n->n_in : 1;
		for (int k = 0; k < n_act; k++)
			if (p->range_of[n->in[k]] == IR_NONE)
				p->range_of[n->in[k]] = n->in[k];
		ValueId y = n->out[0];
		if (n->op != OP_CONCAT && n->op != OP_AVERAGE_POOL && n->op != OP_GLOBAL_AVERAGE_POOL) {
			NodeId a = folded_act(g, &u, id, keep, n_keep);
			if (a != IR_NONE && is_f32_act(g, g->nodes[a].out[0])) {
				folded[a] = true;
				p->why_float[a] = NULL;
				p->out_of[a] = g->nodes[a].out[0];
				y = g->nodes[a].out[0];
			}
		}
		if (is_f32_act(g, y)) {
			p->range_of[y] = y;
			p->out_of[id] = y;
		}
	}
	free(folded);
	rw_uses_free(&u);
}

void quant_plan_free(QuantPlan *p)
{
	free(p->range_of);
	free(p->why_float);
	free(p->out_of);
	memset(p, 0, sizeof *p);
}

/* A fresh value name from base and a suffix. */
static ValueId new_value(Graph *g, RegionId r, const char *base, const char *suffix, const Type *t)
{
	char name[300];
	snprintf(name, sizeof name, "%.200s%s", base, suffix);
	for (int k = 1; ir_value_find(g, r, name) != IR_NONE; k++)
		snprintf(name, sizeof name, "%.200s%s_%d", base, suffix, k);
	return ir_value_new(g, r, name, t);
}

/* Moves the nodes appended from index `first` to the front of region r (they read
 * only graph inputs and constants) and infers them there. */
static int place_first(Graph *g, RegionId r, int first, DiagSink *d)
{
	Region *rr = &g->regions[r];
	int m = rr->n_nodes - first, rc = 0;
	NodeId *moved = malloc((size_t)(m ? m : 1) * sizeof *moved);
	if (!moved)
		die("out of memory");
	memcpy(moved, &rr->nodes[first], (size_t)m * sizeof *moved);
	memmove(&rr->nodes[m], &rr->nodes[0], (size_t)first * sizeof *moved);
	memcpy(&rr->nodes[0], moved, (size_t)m * sizeof *moved);
	for (int i = 0; i < m && !rc; i++)
		rc = ops_infer_node(g, moved[i], d);
	free(moved);
	return rc;
}

ValueId quant_weight(Graph *g, RegionId r, ValueId w, int axis, int qmax, DiagSink *d)
{
	const Type *wt = &g->values[w].type;
	int64_t n = wt->dims[axis], inner = 1, outer = 1, numel = type_numel(wt);
	for (int k = axis + 1; k < wt->rank; k++)
		inner *= wt->dims[k];
	for (int k = 0; k < axis; k++)
		outer *= wt->dims[k];
	const float *src = ir_const_data(g, w);
	float *scale = calloc((size_t)(n ? n : 1), sizeof *scale);
	int8_t *q = malloc((size_t)(numel ? numel : 1)), *zp = calloc((size_t)(n ? n : 1), 1);
	if (!scale || !q || !zp)
		die("out of memory");
	for (int64_t o = 0; o < outer; o++)
		for (int64_t c = 0; c < n; c++)
			for (int64_t i = 0; i < inner; i++) {
				float a = fabsf(src[(o * n + c) * inner + i]);
				scale[c] = a > scale[c] ? a : scale[c];
			}
	for (int64_t c = 0; c < n; c++)
		scale[c] = scale[c] > 0 && isfinite(scale[c]) ? scale[c] / (float)qmax : 1.0f;
	for (int64_t o = 0; o < outer; o++)
		for (int64_t c = 0; c < n; c++)
			for (int64_t i = 0; i < inner; i++) {
				int64_t at = (o * n + c) * inner + i;
				double v = rint((double)src[at] / (double)scale[c]);
				q[at] = (int8_t)(v < -qmax ? -qmax : v > qmax ? qmax : v != v ? 0 : v);
			}
	char base[260];
	snprintf(base, sizeof base, "%.200s_quantized", g->values[w].name);
	Type qt = *wt, vt = type_make(DT_F32, 1, &n), zt = type_make(DT_I8, 1, &n);
	qt.dtype = DT_I8;
	qt.quant = NULL;
	ValueId in[3];
	in[0] = rw_const_new(g, r, base, &qt, q);
	in[1] = rw_const_new(g, r, base, &vt, scale);
	in[2] = rw_const_new(g, r, base, &zt, zp);
	free(scale);
	free(q);
	free(zp);
	Type ft = g->values[w].type;
	ValueId out = new_value(g, r, g->values[w].name, "_dequantized", &ft);
	int first = g->regions[r].n_nodes;
	NodeId dq = rw_node_new(g, r, OP_DEQUANTIZE_LINEAR, in, 3, &out, 1, base, NULL, 0, d);
	ops_quant_attrs(g, dq)->axis = axis;
	if (place_first(g, r, first, d))
		return IR_NONE;
	return out;
}

void quant_params(const QuantConfig *c, float lo, float hi, float *scale, int32_t *zp)
{
	lo = lo < 0 ? lo : 0;
	hi = hi > 0 ? hi : 0;
	if (c->s8_acts) {
		float a = -lo > hi ? -lo : hi;
		*scale = a > 0 ? a / 127.0f : 1.0f;
		*zp = 0;
		return;
	}
	*scale = hi > lo ? (hi - lo) / 255.0f : 1.0f;
	double z = rint(-(double)lo / (double)*scale);
	*zp = (int32_t)(z < 0 ? 0 : z > 255 ? 255 : z);
}

/* The QuantizeLinear / DequantizeLinear pair on activation v, at the range of v's
 * range value (index into lo/hi by value id). */
static int quantize_act(Graph *g, const QuantConfig *c, ValueId v, float lo, float hi, DiagSink *d)
{
	RegionId r = g->values[v].region;
	float scale;
	int32_t zp;
	quant_params(c, lo, hi, &scale, &zp);
	DType qd = c->s8_acts ? DT_I8 : DT_U8;
	uint8_t zb = (uint8_t)zp;
	Type st = type_make(DT_F32, 0, NULL), zt = type_make(qd, 0, NULL), qt = g->values[v].type;
	qt.dtype = qd;
	char base[260];
	snprintf(base, sizeof base, "%.200s_quantized", g->values[v].name);
	ValueId s = rw_const_new(g, r, base, &st, &scale), z = rw_const_new(g, r, base, &zt, &zb);
	ValueId vq = new_value(g, r, g->values[v].name, "_quantized", &qt);
	NodeId p = g->values[v].producer;
	int first = g->regions[r].n_nodes;
	char qname[280], dqname[280];
	snprintf(qname, sizeof qname, "%.200s_QuantizeLinear", g->values[v].name);
	snprintf(dqname, sizeof dqname, "%.200s_DequantizeLinear", g->values[v].name);
	if (p == IR_NONE) {                /* a graph input: its readers take the pair's output */
		Type ft = g->values[v].type;
		ValueId vd = new_value(g, r, g->values[v].name, "_dequantized", &ft);
		rw_replace_uses(g, v, vd);
		ValueId qin[3] = { v, s, z }, dqin[3] = { vq, s, z };
		rw_node_new(g, r, OP_QUANTIZE_LINEAR, qin, 3, &vq, 1, qname, NULL, 0, d);
		rw_node_new(g, r, OP_DEQUANTIZE_LINEAR, dqin, 3, &vd, 1, dqname, NULL, 0, d);
		return place_first(g, r, first, d);
	}
	/* the producer writes a new value; the pair's DequantizeLinear writes v, so v's
	 * readers (and a graph output's name) stay as they are */
	Type ft = g->values[v].type;
	int slot = g->values[v].producer_slot;
	ValueId pre = new_value(g, r, g->values[v].name, "_float", &ft);
	g->nodes[p].out[slot] = pre;
	g->values[pre].producer = p;
	g->values[pre].producer_slot = slot;
	ValueId qin[3] = { pre, s, z }, dqin[3] = { vq, s, z };
	rw_node_new(g, r, OP_QUANTIZE_LINEAR, qin, 3, &vq, 1, qname, NULL, 0, d);
	rw_node_new(g, r, OP_DEQUANTIZE_LINEAR, dqin, 3, &v, 1, dqname, NULL, 0, d);
	return rw_place_after(g, p, first, d);
}

int quant_apply(Graph *g, const QuantConfig *c, const QuantPlan *p, const float *lo, const float *hi,
                DiagSink *d)
{
	const Region *main = &g->regions[0];
	int n_main = main->n_nodes;
	NodeId *order = malloc((size_t)(n_main ? n_main : 1) * sizeof *order);
	if (!order)
		die("out of memory");
	memcpy(order, main->nodes, (size_t)n_main * sizeof *order);
	/* weights first: the activation pairs move nodes around */
	for (int i = 0; i < n_main; i++) {
		NodeId id = order[i];
		if (g->nodes[id].dead || id >= p->n_nodes || p->why_float[id] || p->out_of[id] == IR_NONE)
			continue;
		Op op = g->nodes[id].op;
		int axis = -1;
		if (op == OP_CONV)
			axis = 0;
		else if (op == OP_MATMUL)
			axis = 1;
		else if (op == OP_GEMM)
			axis = ops_gemm_attrs(g, id)->trans_b ? 0 : 1;
		if (axis < 0)
			continue;
		ValueId wd = quant_weight(g, g->nodes[id].region, g->nodes[id].in[1], axis,
		                          c->reduce_range ? 64 : 127, d);
		if (wd == IR_NONE) {
			free(order);
			return -1;
		}
		g->nodes[id].in[1] = wd;
	}
	free(order);
	for (ValueId v = 0; v < p->n_values; v++) {
		ValueId r = p->range_of[v];
		if (r == IR_NONE)
			continue;
		if (quantize_act(g, c, v, lo[r], hi[r], d))
			return -1;
	}
	return 0;
}
