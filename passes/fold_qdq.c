/* fold_qdq.c — QDQ models (ONNX Runtime's quantizer, most exporters) run in integers.
 * The patterns, with x, w, y 8-bit and every scale and zero point constant:
 *
 *   Q(Conv(DQ(x), DQ(w), [DQ(b)]) [-> Relu | Clip])        -> QLinearConv
 *   Q(MatMul(DQ(a), DQ(w)) [-> Relu | Clip])               -> QLinearMatMul
 *   Q(Gemm(DQ(a), DQ(w), [DQ(b)]) [-> Relu | Clip])        -> QLinearMatMul + bias
 *   Q(op(DQ(x))), op a MaxPool or a reshape/transpose, the same scale and zero
 *     point on both sides                                  -> op on the 8-bit x
 *   Q(Relu | Clip(DQ(y))), y from a node made here that alone reads it, the same
 *     scale and zero point                                 -> that node's clamp
 *   Q(Add | Mul(DQ(a), DQ(b))) [-> Relu | Clip]            -> QLinearAdd | QLinearMul
 *   Q(AveragePool | GlobalAveragePool(DQ(x)))              -> QLinearAveragePool |
 *                                                             QLinearGlobalAveragePool
 *   Q(Concat(DQ(x1), ...))                                 -> Concat of the 8-bit
 *     inputs, those with other parameters requantized by a QLinearLookup first
 *   Q(op(DQ(x))), op elementwise with scalar constants for its other inputs
 *     (Sigmoid, Tanh, HardSwish, Gelu, LeakyRelu, Relu, Clip...) -> QLinearLookup, a
 *     256-entry table computed at compile time by the model's own DQ, op and Q
 *   Q(DQ(x)), the same scale, zero point and dtype         -> x
 *   MatMul | Gemm(a, DQ(w)), a float, no Q after           -> MatMulW8 (weight-only)
 *
 * Everything but the weights is per tensor. Weights are per tensor or per output
 * channel (Conv axis 0; MatMul's B axis 1, Gemm's transposed B axis 0, transposed
 * here at compile time). A bias quantized
 * with scale x_scale * w_scale (what quantizers write) is used as it is; another
 * scale, or a float bias, is requantized to it. A folded Relu or Clip is exact:
 * QuantizeLinear is monotonic, so Q(clip(v, lo, hi)) = clamp(Q(v), Q(lo), Q(hi)),
 * which becomes the node's y_min / y_max (Relu: y_min = the zero point).
 *
 * The integer node runs where the QuantizeLinear ran, writes its output (names
 * survive) and lists every member's ONNX name. What no pattern takes keeps its
 * DequantizeLinear → float op → QuantizeLinear; DequantizeLinear of constant weights
 * is not folded before this pass has run (fold.c: ops_node_foldable), so it finds the
 * integer weights, and fold_constants folds the rest after it. Last, every 8-bit
 * value that a Q or an integer node writes, and every weight it reads, gets its
 * quantized type (Type.quant, printed !q(scale,zp) or !q(axis=A,n=N)). */
#include "passes.h"
#include "rewrite.h"
#include "op_attrs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The live node of op `op` that writes v, or IR_NONE. */
static NodeId producer_of(const Graph *g, ValueId v, Op op)
{
	NodeId p = v == IR_NONE ? IR_NONE : g->values[v].producer;
	if (p == IR_NONE || g->nodes[p].dead || g->nodes[p].op != op)
		return IR_NONE;
	return p;
}

static bool is_q8(DType t)
{
	return t == DT_U8 || t == DT_I8;
}

/* One Q or DQ node's parameters: x (DQ: its integer input; Q: its integer output),
 * the constant f32 scale and zero point (IR_NONE: absent, 0) of n values along
 * `axis` (n = 1: per tensor). */
typedef struct QParams {
	NodeId node;
	ValueId x, s, z;
	int64_t n, axis;
} QParams;

static bool qparams(Graph *g, NodeId id, QParams *q)
{
	const Node *n = &g->nodes[id];
	const QuantAttrs *a = ops_quant_attrs(g, id);
	ValueId x = n->op == OP_QUANTIZE_LINEAR ? n->out[0] : n->in[0];
	ValueId s = n->in[1], z = n->n_in > 2 ? n->in[2] : IR_NONE;
	memset(q, 0, sizeof *q);
	if (!a || a->block_size || a->precision || x == IR_NONE || !g->values[s].is_const ||
	    g->values[s].type.dtype != DT_F32 || (z != IR_NONE && !g->values[z].is_const) ||
	    g->values[s].type.rank > 1)
		return false;
	q->node = id;
	q->x = x;
	q->s = s;
	q->z = z;
	q->n = type_numel(&g->values[s].type);
	q->axis = -1;
	if (q->n != 1 || g->values[s].type.rank == 1) {
		int64_t ax = a->axis, r = g->values[x].type.rank;
		if (q->n != 1 || ax != 1) {      /* a 1-element vector scale is per tensor too */
			ax = ax < 0 ? ax + r : ax;
			if (ax < 0 || ax >= r)
				return false;
			q->axis = ax;
		}
		if (q->n == 1)
			q->axis = -1;
	}
	return true;
}

static float qp_scale(const Graph *g, const QParams *q, int64_t i)
{
	return ((const float *)ir_const_data(g, q->s))[q->n == 1 ? 0 : i];
}

static int32_t qp_zp(const Graph *g, const QParams *q, int64_t i)
{
	return q->z == IR_NONE ? 0 : (int32_t)rw_const_f64(g, q->z, q->n == 1 ? 0 : i);
}

/* The same per-tensor scale and zero point (values, not ids) and the same dtype. */
static bool same_tensor_params(const Graph *g, const QParams *a, const QParams *b)
{
	return a->n == 1 && b->n == 1 && qp_scale(g, a, 0) == qp_scale(g, b, 0) &&
	       qp_zp(g, a, 0) == qp_zp(g, b, 0) &&
	       g->values[a->x].type.dtype == g->values[b->x].type.dtype;
}

/* A DequantizeLinear of an 8-bit value feeding slot v, per tensor when per_tensor. */
static bool dq_input(Graph *g, ValueId v, bool per_tensor, QParams *q)
{
	NodeId d = producer_of(g, v, OP_DEQUANTIZE_LINEAR);
	return d != IR_NONE && qparams(g, d, q) && is_q8(g->values[q->x].type.dtype) &&
	       (!per_tensor || q->n == 1);
}

/* The zero point as a value of x's dtype: the DQ's own, or a new constant 0. */
static ValueId zp_value(Graph *g, RegionId r, const QParams *q, const char *base)
{
	if (q->z != IR_NONE)
		return q->z;
	Type t = type_make(g->values[q->x].type.dtype, 0, NULL);
	uint8_t zero[8] = { 0 };
	return rw_const_new(g, r, base, &t, zero);
}

/* QuantizeLinear's formula on one float (round half to even, saturate). */
static int64_t quantize_one(double v, float scale, int32_t zp, DType dt)
{
	double lo = dt == DT_U8 ? 0 : -128, hi = dt == DT_U8 ? 255 : 127;
	double q = v != v ? lo : rint(v / (double)scale) + zp;
	if (v == INFINITY)
		q = hi;
	return (int64_t)(q < lo ? lo : q > hi ? hi : q);
}

/* An activation between the linear node and the Q: Relu or Clip with constant
 * bounds, as a clamp [lo, hi] in float. */
static bool activation_bounds(Graph *g, NodeId m, double *lo, double *hi)
{
	const Node *n = &g->nodes[m];
	*lo = -INFINITY;
	*hi = INFINITY;
	if (n->op == OP_RELU) {
		*lo = 0.0;
		return true;
	}
	if (n->op != OP_CLIP)
		return false;
	const ClipAttrs *a = ops_clip_attrs(g, m);
	for (int k = 1; k <= 2; k++) {
		double *b = k == 1 ? lo : hi;
		if (k < n->n_in && n->in[k] != IR_NONE) {
			if (!g->values[n->in[k]].is_const || type_numel(&g->values[n->in[k]].type) != 1)
				return false;
			*b = rw_const_f64(g, n->in[k], 0);
		} else {
			const FloatList *l = k == 1 ? &a->min : &a->max;
			if (l->n > 0)
				*b = l->v[0];
		}
	}
	return true;
}

/* The chain Q <- [act] <- linear node: fills the linear node, the activation
 * (IR_NONE: none) and its float bounds. Each link must be the sole reader. */
typedef struct Chain {
	QParams y;
	NodeId lin, act;
	double lo, hi;
} Chain;

static bool chain_of(Graph *g, const Uses *u, NodeId q, Chain *c)
{
	ValueId v = g->nodes[q].in[0];
	NodeId p = v == IR_NONE ? IR_NONE : g->values[v].producer;
	memset(c, 0, sizeof *c);
	if (!qparams(g, q, &c->y) || c->y.n != 1 || !is_q8(g->values[c->y.x].type.dtype) ||
	    g->values[v].type.dtype != DT_F32 || p == IR_NONE || g->nodes[p].dead ||
	    rw_sole_user(g, u, v) != q || g->nodes[p].region != g->nodes[q].region)
		return false;
	c->act = IR_NONE;
	c->lo = -INFINITY;
	c->hi = INFINITY;
	if (activation_bounds(g, p, &c->lo, &c->hi)) {
		ValueId a = g->nodes[p].in[0];
		c->act = p;
		p = g->values[a].producer;
		if (p == IR_NONE || g->nodes[p].dead || rw_sole_user(g, u, a) != c->act ||
		    g->nodes[p].region != g->nodes[q].region)
			return false;
	}
	c->lin = p;
	return g->nodes[p].n_out == 1;
}

/* The clamp of the chain's activation in the quantized domain. */
static void chain_clamp(const Graph *g, const Chain *c, int64_t *y_min, int64_t *y_max)
{
	DType dt = g->values[c->y.x].type.dtype;
	float s = qp_scale(g, &c->y, 0);
	int32_t z = qp_zp(g, &c->y, 0);
	*y_min = c->lo == -INFINITY ? Q_NO_MIN : quantize_one(c->lo, s, z, dt);
	*y_max = c->hi == INFINITY ? Q_NO_MAX : quantize_one(c->hi, s, z, dt);
}

/* The i32 bias of a folded node: b in bias slot v (DQ of i32, or a float constant)
 * at scale x_scale * w_scale[c] for c < m. IR_NONE when v is absent; false when it
 * is neither form. */
static bool bias_value(Graph *g, RegionId r, ValueId v, const QParams *x, const QParams *w,
                       int64_t m, const char *base, ValueId *out)
{
	QParams bq;
	NodeId d = v == IR_NONE ? IR_NONE : producer_of(g, v, OP_DEQUANTIZE_LINEAR);
	bool dq = d != IR_NONE && qparams(g, d, &bq) && g->values[bq.x].is_const &&
	          g->values[bq.x].type.dtype == DT_I32 && (bq.n == 1 || bq.n == m);
	*out = IR_NONE;
	if (v == IR_NONE)
		return true;
	if (!dq && (!g->values[v].is_const || g->values[v].type.dtype != DT_F32))
		return false;
	const Value *bv = &g->values[dq ? bq.x : v];
	if (type_numel(&bv->type) != m || bv->type.rank < 1 || bv->type.dims[bv->type.rank - 1] != m)
		return false;
	int32_t *b = malloc((size_t)(m ? m : 1) * sizeof *b);
	bool same = dq;
	if (!b)
		die("out of memory");
	for (int64_t c = 0; c < m; c++) {
		float want = qp_scale(g, x, 0) * qp_scale(g, w, c);
		double f;
		if (dq && qp_scale(g, &bq, c) == want && qp_zp(g, &bq, c) == 0) {
			b[c] = (int32_t)rw_const_f64(g, bq.x, c);
			continue;
		}
		same = false;
		f = dq ? (rw_const_f64(g, bq.x, c) - qp_zp(g, &bq, c)) * (double)qp_scale(g, &bq, c)
		       : rw_const_f64(g, v, c);
		double q = want > 0 ? rint(f / (double)want) : 0.0;
		b[c] = (int32_t)(q < -2147483648.0 ? -2147483648.0 : q > 2147483647.0 ? 2147483647.0 : q);
	}
	if (same && bv->type.rank == 1) {
		*out = bq.x;
	} else {
		Type t = type_make(DT_I32, 1, &m);
		*out = rw_const_new(g, r, base, &t, b);
	}
	free(b);
	return true;
}

/* The chain's float nodes go; the integer node q lists them first. */
static void finish(Graph *g, NodeId q, const Chain *c)
{
	if (c->act != IR_NONE) {
		g->nodes[c->act].dead = true;
		rw_origins_prepend(g, q, c->act);
	}
	g->nodes[c->lin].dead = true;
	rw_origins_prepend(g, q, c->lin);
	rw_reinfer(g, q);
}

static bool fold_conv(Graph *g, const Uses *u, NodeId q, DiagSink *d)
{
	Chain c;
	QParams x, w;
	if (!chain_of(g, u, q, &c) || g->nodes[c.lin].op != OP_CONV)
		return false;
	const Node *cv = &g->nodes[c.lin];
	ConvAttrs *ca = ops_conv_attrs(g, c.lin);
	RegionId r = g->nodes[q].region;
	if (ca->ep.activation || ca->ep.residual || !dq_input(g, cv->in[0], true, &x) ||
	    !dq_input(g, cv->in[1], false, &w) || !g->values[w.x].is_const ||
	    (w.n != 1 && w.axis != 0))
		return false;
	int64_t m = g->values[w.x].type.dims[0];
	ValueId bias;
	const char *base = ir_node_name(g, c.lin);
	if (!bias_value(g, r, cv->n_in > 2 ? cv->in[2] : IR_NONE, &x, &w, m, base, &bias))
		return false;
	ValueId in[9] = { x.x, x.s, zp_value(g, r, &x, base), w.x, w.s, zp_value(g, r, &w, base),
	                  c.y.s, zp_value(g, r, &c.y, base), bias };
	if (rw_node_reset(g, q, OP_QLINEAR_CONV, in, bias == IR_NONE ? 8 : 9, NULL, 0, d))
		die("fold_qdq: QLinearConv rejected its default attributes");
	QConvAttrs *qa = ops_qconv_attrs(g, q);      /* Conv's geometry, field for field */
	qa->auto_pad = ca->auto_pad;
	qa->group = ca->group;
	qa->dilations = ca->dilations;
	qa->kernel_shape = ca->kernel_shape;
	qa->pads = ca->pads;
	qa->strides = ca->strides;
	chain_clamp(g, &c, &qa->y_min, &qa->y_max);
	finish(g, q, &c);
	return true;
}

/* A new constant: the 8-bit matrix v ([N, K], Gemm's transposed B) as [K, N]. */
static ValueId transposed(Graph *g, RegionId r, const char *base, ValueId v)
{
	const Type *vt = &g->values[v].type;
	int64_t n = vt->dims[0], k = vt->dims[1], dims[2] = { k, n };
	const uint8_t *src = ir_const_data(g, v);
	uint8_t *t = malloc((size_t)(k * n > 0 ? k * n : 1));
	Type tt = type_make(vt->dtype, 2, dims);
	if (!t)
		die("out of memory");
	for (int64_t i = 0; i < n; i++)
		for (int64_t j = 0; j < k; j++)
			t[j * n + i] = src[i * k + j];
	ValueId out = rw_const_new(g, r, base, &tt, t);
	free(t);
	return out;
}

/* MatMul(DQ(a), DQ(w)) and Gemm(DQ(a), DQ(w), [bias]) with w a constant matrix. */
static bool fold_matmul(Graph *g, const Uses *u, NodeId q, DiagSink *d)
{
	Chain c;
	QParams a, w;
	if (!chain_of(g, u, q, &c))
		return false;
	const Node *mm = &g->nodes[c.lin];
	bool gemm = mm->op == OP_GEMM;
	RegionId r = g->nodes[q].region;
	EpilogueAttrs *ep = ops_epilogue_attrs(g, c.lin);
	if ((mm->op != OP_MATMUL && !gemm) || !ep || ep->activation || ep->residual ||
	    !dq_input(g, mm->in[0], true, &a) || !dq_input(g, mm->in[1], false, &w) ||
	    !g->values[w.x].is_const || g->values[w.x].type.rank != 2)
		return false;
	const GemmAttrs *ga = gemm ? ops_gemm_attrs(g, c.lin) : NULL;
	bool tb = ga && ga->trans_b;
	if (ga && (ga->trans_a || ga->alpha != 1.0f || (mm->n_in > 2 && mm->in[2] != IR_NONE &&
	                                                ga->beta != 1.0f)))
		return false;
	const Type *wt = &g->values[w.x].type;
	int64_t n = wt->dims[tb ? 0 : 1];
	if (w.n != 1 && w.axis != (tb ? 0 : 1))
		return false;
	const char *base = ir_node_name(g, c.lin);
	ValueId bias = IR_NONE, wq = w.x;
	if (gemm && !bias_value(g, r, mm->n_in > 2 ? mm->in[2] : IR_NONE, &a, &w, n, base, &bias))
		return false;
	if (tb)
		wq = transposed(g, r, base, w.x);
	ValueId in[9] = { a.x, a.s, zp_value(g, r, &a, base), wq, w.s, zp_value(g, r, &w, base),
	                  c.y.s, zp_value(g, r, &c.y, base), bias };
	/* an imported QLinearMatMul has 8 inputs; the bias slot is set after the import */
	if (rw_node_reset(g, q, OP_QLINEAR_MATMUL, in, 8, NULL, 0, d))
		die("fold_qdq: QLinearMatMul rejected its attributes");
	if (bias != IR_NONE)
		rw_node_set_inputs(g, q, in, 9);
	QmmAttrs *qa = ops_qmm_attrs(g, q);
	chain_clamp(g, &c, &qa->y_min, &qa->y_max);
	finish(g, q, &c);
	return true;
}

/* The Q node q becomes `op` on inputs in, with the attributes and opset of the float
 * node p it replaces (no import: they are typed already); p goes. */
static void take_over(Graph *g, NodeId q, NodeId p, Op op, const ValueId *in, int n_in)
{
	rw_node_set_inputs(g, q, in, n_in);
	g->nodes[q].op = op;
	g->nodes[q].attrs = g->nodes[p].attrs;
	g->nodes[q].opset = g->nodes[p].opset;
	g->nodes[p].dead = true;
	rw_origins_prepend(g, q, p);
	rw_reinfer(g, q);
}

/* Ops that move or select 8-bit values without arithmetic: with the same scale and
 * zero point on both sides they run on the integers (MaxPool: max commutes with a
 * monotonic map; the rest copy). */
static bool moves_values(const Graph *g, NodeId p)
{
	Op op = g->nodes[p].op;
	if (op == OP_MAX_POOL)
		return g->nodes[p].n_out == 1 || g->nodes[p].out[1] == IR_NONE;
	return op == OP_RESHAPE || op == OP_FLATTEN || op == OP_SQUEEZE || op == OP_UNSQUEEZE ||
	       op == OP_TRANSPOSE;
}

static bool fold_move(Graph *g, const Uses *u, NodeId q)
{
	QParams y, x;
	ValueId v = g->nodes[q].in[0];
	NodeId p = g->values[v].producer;
	if (!qparams(g, q, &y) || p == IR_NONE || g->nodes[p].dead || !moves_values(g, p) ||
	    rw_sole_user(g, u, v) != q || !dq_input(g, g->nodes[p].in[0], true, &x) ||
	    !same_tensor_params(g, &x, &y) || g->values[v].type.dtype != DT_F32)
		return false;
	const Node *pn = &g->nodes[p];
	ValueId in[4];
	int n_in = pn->n_in < 4 ? pn->n_in : 4;
	for (int i = 0; i < n_in; i++)
		in[i] = pn->in[i];
	in[0] = x.x;
	take_over(g, q, p, pn->op, in, n_in);
	return true;
}

/* Q(Relu | Clip(DQ(y))), same params, y written by a QLinear node here that alone
 * feeds the DQ: the clamp joins that node's. */
static bool fold_clamp(Graph *g, const Uses *u, NodeId q)
{
	QParams y, x;
	Chain c;
	if (!chain_of(g, u, q, &c) || c.act == IR_NONE || c.lin == IR_NONE ||
	    g->nodes[c.lin].op != OP_DEQUANTIZE_LINEAR || !qparams(g, c.lin, &x) ||
	    !qparams(g, q, &y) || !same_tensor_params(g, &x, &y))
		return false;
	NodeId prod = g->values[x.x].producer;
	int64_t *mn, *mx, lo, hi;
	if (prod == IR_NONE || g->nodes[prod].dead || rw_sole_user(g, u, x.x) != c.lin ||
	    g->values[x.x].is_output)
		return false;
	if (ops_qconv_attrs(g, prod) && g->nodes[prod].op == OP_QLINEAR_CONV) {
		mn = &ops_qconv_attrs(g, prod)->y_min;
		mx = &ops_qconv_attrs(g, prod)->y_max;
	} else if (ops_qmm_attrs(g, prod) && g->nodes[prod].op == OP_QLINEAR_MATMUL) {
		mn = &ops_qmm_attrs(g, prod)->y_min;
		mx = &ops_qmm_attrs(g, prod)->y_max;
	} else if (ops_qbinary_attrs(g, prod)) {
		mn = &ops_qbinary_attrs(g, prod)->y_min;
		mx = &ops_qbinary_attrs(g, prod)->y_max;
	} else {
		return false;
	}
	chain_clamp(g, &c, &lo, &hi);
	*mn = lo > *mn ? lo : *mn;
	*mx = hi < *mx ? hi : *mx;
	/* the producer writes q's output; the DQ, the activation and q go */
	ValueId out = g->nodes[q].out[0];
	g->values[x.x].producer = IR_NONE;
	g->nodes[prod].out[0] = out;
	g->values[out].producer = prod;
	g->values[out].producer_slot = 0;
	rw_origins_append(g, prod, c.lin);
	rw_origins_append(g, prod, c.act);
	rw_origins_append(g, prod, q);
	g->nodes[c.lin].dead = g->nodes[c.act].dead = g->nodes[q].dead = true;
	return true;
}

/* Type.quant of value v from the Q/DQ parameters q. */
static void set_quant(Graph *g, ValueId v, const QParams *q)
{
	Quant *t = arena_alloc(&g->arena, sizeof *t);
	float *s = arena_array(&g->arena, (size_t)q->n, sizeof *s);
	int32_t *z = arena_array(&g->arena, (size_t)q->n, sizeof *z);
	for (int64_t i = 0; i < q->n; i++) {
		s[i] = qp_scale(g, q, i);
		z[i] = qp_zp(g, q, i);
	}
	t->axis = (int)q->axis;
	t->n = (int)q->n;
	t->scale = s;
	t->zero_point = z;
	g->values[v].type.quant = t;
}

/* A copy of node `like` (same op, opset and attributes) on inputs in, writing a new
 * value, inferred and folded; IR_NONE when it fails. */
static ValueId eval_copy(Graph *g, RegionId r, NodeId like, const ValueId *in, int n_in,
                         const char *name, DiagSink *quiet)
{
	ValueId out = ir_value_new(g, r, name, NULL);
	NodeId id = ir_node_new(g, r, g->nodes[like].op, g->nodes[like].opset, in, n_in, &out, 1,
	                        ir_node_name(g, like));
	g->nodes[id].attrs = g->nodes[like].attrs;
	if (ops_infer_node(g, id, quiet) || ops_fold_node(g, id, quiet) || !g->values[out].is_const) {
		g->nodes[id].dead = true;
		return IR_NONE;
	}
	return out;
}

/* The table of QLinearLookup: DQ(x) [-> op] -> Q evaluated at compile time, through
 * the model's own nodes (their kernels and attributes), on all 256 values of x's
 * dtype; entry b is the result for the input whose byte is b. op (IR_NONE: none)
 * reads x in `slot`; its other inputs are scalar constants. IR_NONE on failure. */
static ValueId lookup_table(Graph *g, RegionId r, const QParams *x, NodeId op, int slot,
                            const QParams *y, const char *tag)
{
	uint8_t bytes[256];
	int64_t n = 256;
	DiagSink quiet;
	const char *base = arena_printf(&g->arena, "%s.%s", ir_node_name(g, y->node), tag);
	for (int i = 0; i < 256; i++)
		bytes[i] = (uint8_t)i;
	Type t = type_make(g->values[x->x].type.dtype, 1, &n);
	ValueId v = rw_const_new(g, r, base, &t, bytes);
	diag_sink_init(&quiet, NULL);
	ValueId dq_in[3] = { v, x->s, x->z };
	v = eval_copy(g, r, x->node, dq_in, x->z != IR_NONE ? 3 : 2,
	              arena_printf(&g->arena, "%s.dq", base), &quiet);
	if (v != IR_NONE && op != IR_NONE) {
		ValueId in[8];
		int n_in = g->nodes[op].n_in;
		IR_ASSERT(n_in <= 8);
		memcpy(in, g->nodes[op].in, (size_t)n_in * sizeof *in);
		in[slot] = v;
		v = eval_copy(g, r, op, in, n_in, arena_printf(&g->arena, "%s.op", base), &quiet);
	}
	if (v != IR_NONE) {
		const Node *qn = &g->nodes[y->node];
		ValueId q_in[3] = { v, qn->in[1], qn->n_in > 2 ? qn->in[2] : IR_NONE };
		v = eval_copy(g, r, y->node, q_in, q_in[2] != IR_NONE ? 3 : 2, base, &quiet);
	}
	diag_sink_free(&quiet);
	if (v != IR_NONE && (type_numel(&g->values[v].type) != 256 ||
	                     g->values[v].type.dtype != g->values[y->x].type.dtype))
		v = IR_NONE;
	return v;
}

/* Q(op(DQ(x))), op elementwise on x with scalar constants for its other inputs
 * (Sigmoid, Tanh, HardSwish, Gelu, LeakyRelu, Clip, Add of a scalar...), x and the
 * output per tensor: a 256-entry table. */
static bool fold_lookup(Graph *g, const Uses *u, NodeId q, DiagSink *d)
{
	QParams y, x;
	ValueId v = g->nodes[q].in[0];
	NodeId p = g->values[v].producer;
	int slot = -1;
	if (!qparams(g, q, &y) || y.n != 1 || !is_q8(g->values[y.x].type.dtype) || p == IR_NONE ||
	    g->nodes[p].dead || !op_has(g->nodes[p].op, OPF_FUSE_STEP) || g->nodes[p].n_out != 1 ||
	    g->nodes[p].n_in > 8 || rw_sole_user(g, u, v) != q || g->values[v].type.dtype != DT_F32 ||
	    g->nodes[p].region != g->nodes[q].region)
		return false;
	for (int i = 0; i < g->nodes[p].n_in; i++) {
		ValueId in = g->nodes[p].in[i];
		if (in == IR_NONE)
			continue;
		if (g->values[in].is_const) {
			if (type_numel(&g->values[in].type) != 1)
				return false;
		} else if (slot >= 0) {
			return false;
		} else {
			slot = i;
		}
	}
	if (slot < 0 || !dq_input(g, g->nodes[p].in[slot], true, &x) ||
	    type_numel(&g->values[v].type) != type_numel(&g->values[x.x].type))
		return false;
	ValueId t = lookup_table(g, g->nodes[q].region, &x, p, slot, &y, "lut");
	if (t == IR_NONE)
		return false;
	ValueId in[2] = { x.x, t };
	if (rw_node_reset(g, q, OP_QLINEAR_LOOKUP, in, 2, NULL, 0, d))
		die("fold_qdq: QLinearLookup rejected its attributes");
	g->nodes[p].dead = true;
	rw_origins_prepend(g, q, p);
	rw_reinfer(g, q);
	set_quant(g, g->nodes[q].out[0], &y);
	return true;
}

/* Q(Add | Mul(DQ(a), DQ(b))) [-> Relu | Clip], all per tensor -> QLinearAdd | QLinearMul. */
static bool fold_binary(Graph *g, const Uses *u, NodeId q, DiagSink *d)
{
	Chain c;
	QParams a, b;
	if (!chain_of(g, u, q, &c))
		return false;
	const Node *bn = &g->nodes[c.lin];
	RegionId r = g->nodes[q].region;
	if ((bn->op != OP_ADD && bn->op != OP_MUL) || bn->opset < 7 ||   /* no legacy broadcast */
	    !dq_input(g, bn->in[0], true, &a) || !dq_input(g, bn->in[1], true, &b))
		return false;
	const char *base = ir_node_name(g, c.lin);
	Op op = bn->op == OP_ADD ? OP_QLINEAR_ADD : OP_QLINEAR_MUL;
	ValueId in[8] = { a.x, a.s, zp_value(g, r, &a, base), b.x, b.s, zp_value(g, r, &b, base),
	                  c.y.s, zp_value(g, r, &c.y, base) };
	if (rw_node_reset(g, q, op, in, 8, NULL, 0, d))
		die("fold_qdq: %s rejected its attributes", ir_op_name(op));
	QmmAttrs *qa = ops_qbinary_attrs(g, q);
	chain_clamp(g, &c, &qa->y_min, &qa->y_max);
	finish(g, q, &c);
	return true;
}

/* Q(AveragePool | GlobalAveragePool(DQ(x))), per tensor, the same 8-bit dtype on both
 * sides -> QLinearAveragePool | QLinearGlobalAveragePool (any two scales). */
static bool fold_avg_pool(Graph *g, const Uses *u, NodeId q)
{
	QParams y, x;
	ValueId v = g->nodes[q].in[0];
	NodeId p = g->values[v].producer;
	if (!qparams(g, q, &y) || y.n != 1 || p == IR_NONE || g->nodes[p].dead ||
	    (g->nodes[p].op != OP_AVERAGE_POOL && g->nodes[p].op != OP_GLOBAL_AVERAGE_POOL) ||
	    rw_sole_user(g, u, v) != q || !dq_input(g, g->nodes[p].in[0], true, &x) ||
	    g->values[x.x].type.dtype != g->values[y.x].type.dtype ||
	    g->values[v].type.dtype != DT_F32)
		return false;
	RegionId r = g->nodes[q].region;
	const char *base = ir_node_name(g, p);
	ValueId in[5] = { x.x, x.s, zp_value(g, r, &x, base), y.s, zp_value(g, r, &y, base) };
	/* the same pool attributes: the quantized ops share the pool groups */
	take_over(g, q, p, g->nodes[p].op == OP_AVERAGE_POOL ? OP_QLINEAR_AVERAGE_POOL
	                                                     : OP_QLINEAR_GLOBAL_AVERAGE_POOL, in, 5);
	return true;
}

/* Q(Concat(DQ(x1), ..., DQ(xn))), per tensor, one 8-bit dtype: a Concat of the 8-bit
 * inputs, each input whose scale or zero point differs from the output's requantized
 * first through a QLinearLookup. */
static bool fold_concat(Graph *g, const Uses *u, NodeId q, DiagSink *d)
{
	QParams y;
	ValueId v = g->nodes[q].in[0];
	NodeId p = g->values[v].producer;
	if (!qparams(g, q, &y) || y.n != 1 || !is_q8(g->values[y.x].type.dtype) || p == IR_NONE ||
	    g->nodes[p].dead || g->nodes[p].op != OP_CONCAT || rw_sole_user(g, u, v) != q ||
	    g->values[v].type.dtype != DT_F32 || g->nodes[p].region != g->nodes[q].region)
		return false;
	int n = g->nodes[p].n_in;
	QParams *x = malloc((size_t)n * sizeof *x);
	ValueId *in = arena_array(&g->arena, (size_t)n, sizeof *in);
	RegionId r = g->nodes[q].region;
	bool ok = x != NULL;
	if (!x)
		die("out of memory");
	for (int i = 0; i < n && ok; i++)
		ok = dq_input(g, g->nodes[p].in[i], true, &x[i]) &&
		     g->values[x[i].x].type.dtype == g->values[y.x].type.dtype;
	ValueId *tab = arena_array(&g->arena, (size_t)n, sizeof *tab);
	for (int i = 0; i < n && ok; i++) {     /* every table first: failing changes nothing */
		tab[i] = IR_NONE;
		if (!same_tensor_params(g, &x[i], &y))
			ok = (tab[i] = lookup_table(g, r, &x[i], IR_NONE, 0, &y,
			                            arena_printf(&g->arena, "requant%d_lut", i))) != IR_NONE;
	}
	for (int i = 0; i < n && ok; i++) {
		in[i] = x[i].x;
		if (tab[i] == IR_NONE)
			continue;
		ValueId lin[2] = { x[i].x, tab[i] };
		DiagSink quiet;
		in[i] = ir_value_new(g, r, arena_printf(&g->arena, "%s.requant%d",
		                                        ir_node_name(g, q), i), NULL);
		NodeId l = rw_node_new(g, r, OP_QLINEAR_LOOKUP, lin, 2, &in[i], 1,
		                       ir_node_name(g, p), NULL, 0, d);
		diag_sink_init(&quiet, NULL);
		if (ops_infer_node(g, l, &quiet))
			die("fold_qdq: a requantizing QLinearLookup does not infer");
		diag_sink_free(&quiet);
		set_quant(g, in[i], &y);
		rw_node_move_before(g, l, q);
	}
	free(x);
	if (!ok)
		return false;
	take_over(g, q, p, OP_CONCAT, in, n);
	set_quant(g, g->nodes[q].out[0], &y);
	return true;
}

/* Weight-only int8: MatMul(a, DQ(w)) or Gemm(a, DQ(w), [c]) with a float, w an 8-bit
 * constant matrix with zero point 0, per tensor or per output column -> MatMulW8
 * (Gemm: transA = 0, alpha = beta = 1, c a constant f32 [N]; transB transposed here).
 * The float path multiplies by the dequantized weights; MatMulW8 sums a * w and scales
 * the sum once per column, so the two differ by float rounding. */
static bool fold_w8(Graph *g, NodeId mm, DiagSink *d)
{
	const Node *n = &g->nodes[mm];
	QParams w;
	bool gemm = n->op == OP_GEMM;
	EpilogueAttrs *ep = ops_epilogue_attrs(g, mm);
	if ((n->op != OP_MATMUL && !gemm) || !ep || ep->activation || ep->residual ||
	    g->values[n->in[0]].type.dtype != DT_F32 || !dq_input(g, n->in[1], false, &w) ||
	    !g->values[w.x].is_const || g->values[w.x].type.rank != 2 ||
	    g->values[n->out[0]].type.dtype != DT_F32)
		return false;
	const GemmAttrs *ga = gemm ? ops_gemm_attrs(g, mm) : NULL;
	bool tb = ga && ga->trans_b;
	ValueId c = gemm && n->n_in > 2 ? n->in[2] : IR_NONE;
	const Type *wt = &g->values[w.x].type;
	int64_t cols = wt->dims[tb ? 0 : 1];
	if (ga && (ga->trans_a || ga->alpha != 1.0f || (c != IR_NONE && ga->beta != 1.0f)))
		return false;
	if ((w.n != 1 && w.axis != (tb ? 0 : 1)) ||
	    (c != IR_NONE && (!g->values[c].is_const || g->values[c].type.dtype != DT_F32 ||
	                      g->values[c].type.rank != 1 || g->values[c].type.dims[0] != cols)))
		return false;
	for (int64_t i = 0; i < w.n; i++)
		if (qp_zp(g, &w, i) != 0)
			return false;
	RegionId r = n->region;
	const char *base = ir_node_name(g, mm);
	ValueId wq = w.x;
	if (tb)
		wq = transposed(g, r, base, w.x);
	ValueId in[4] = { g->nodes[mm].in[0], wq, w.s, c };
	if (rw_node_reset(g, mm, OP_MATMUL_W8, in, c != IR_NONE ? 4 : 3, NULL, 0, d))
		die("fold_qdq: MatMulW8 rejected its attributes");
	rw_reinfer(g, mm);
	w.axis = w.n == 1 ? -1 : 1;      /* per column of the [K, N] matrix it now is */
	set_quant(g, wq, &w);
	return true;
}

/* Q(DQ(x)) with the same parameters is x. */
static bool fold_pair(Graph *g, NodeId q)
{
	QParams y, x;
	if (!qparams(g, q, &y) || !dq_input(g, g->nodes[q].in[0], true, &x) ||
	    !same_tensor_params(g, &x, &y))
		return false;
	if (!rw_redirect(g, g->nodes[q].out[0], x.x))
		return false;
	g->nodes[q].dead = true;
	return true;
}

/* The (value, scale, zero point) slots of an integer node's operands; value slot -1
 * is output 0. Slot 3 of QLinearConv / QLinearMatMul is the weight, per tensor or per
 * output channel (axis 0 / 1). QLinearLookup and the Concat fold_concat makes are
 * annotated where they are made. */
static const int qslots_linear[][3] = { { 0, 1, 2 }, { 3, 4, 5 }, { -1, 6, 7 } };
static const int qslots_pool[][3] = { { 0, 1, 2 }, { -1, 3, 4 } };

static void annotate_node(Graph *g, NodeId id)
{
	const Node *n = &g->nodes[id];
	const int (*slots)[3] = qslots_linear;
	int n_slots = 3;
	if (n->op == OP_QUANTIZE_LINEAR || n->op == OP_DEQUANTIZE_LINEAR) {
		QParams q;
		if (qparams(g, id, &q) && is_q8(g->values[q.x].type.dtype))
			set_quant(g, q.x, &q);
		return;
	}
	if (n->op == OP_QLINEAR_AVERAGE_POOL || n->op == OP_QLINEAR_GLOBAL_AVERAGE_POOL) {
		slots = qslots_pool;
		n_slots = 2;
	} else if (n->op != OP_QLINEAR_CONV && n->op != OP_QLINEAR_MATMUL &&
	           n->op != OP_QLINEAR_ADD && n->op != OP_QLINEAR_MUL) {
		return;
	}
	for (int k = 0; k < n_slots; k++) {
		QParams q;
		int vs = slots[k][0], ss = slots[k][1], zs = slots[k][2];
		ValueId v = vs < 0 ? n->out[0] : n->in[vs];
		bool weight = vs == 3 && (n->op == OP_QLINEAR_CONV || n->op == OP_QLINEAR_MATMUL);
		memset(&q, 0, sizeof q);
		if (ss >= n->n_in || zs >= n->n_in || n->in[ss] == IR_NONE || n->in[zs] == IR_NONE)
			continue;
		q.s = n->in[ss];
		q.z = n->in[zs];
		q.n = type_numel(&g->values[q.s].type);
		q.axis = q.n == 1 || !weight ? -1 : n->op == OP_QLINEAR_CONV ? 0 : 1;
		if (v != IR_NONE && g->values[q.s].is_const && g->values[q.z].is_const &&
		    g->values[q.s].type.dtype == DT_F32)
			set_quant(g, v, &q);
	}
}

/* The values a data-moving node writes carry its input's quantized type. */
static void annotate_moves(Graph *g, NodeId id)
{
	const Node *n = &g->nodes[id];
	if (!moves_values(g, id) || n->out[0] == IR_NONE || !is_q8(g->values[n->in[0]].type.dtype))
		return;
	g->values[n->out[0]].type.quant = g->values[n->in[0]].type.quant;
}

int pass_fold_qdq(Graph *g, PassCtx *ctx)
{
	Uses u = { 0 };
	int conv = 0, mm = 0, moves = 0, clamps = 0, pairs = 0, bin = 0, pools = 0, cats = 0, luts = 0;
	int w8 = 0;
	rw_uses_compute(g, &u);
	for (RegionId r = 0; r < g->n_regions; r++)
		for (int i = 0; i < g->regions[r].n_nodes; i++) {
			NodeId q = g->regions[r].nodes[i];
			bool done = false;
			if (g->nodes[q].dead || g->nodes[q].op != OP_QUANTIZE_LINEAR)
				continue;
			if (fold_conv(g, &u, q, ctx->diags))
				done = true, conv++;
			else if (fold_matmul(g, &u, q, ctx->diags))
				done = true, mm++;
			else if (fold_move(g, &u, q))
				done = true, moves++;
			else if (fold_clamp(g, &u, q))
				done = true, clamps++;
			else if (fold_binary(g, &u, q, ctx->diags))
				done = true, bin++;
			else if (fold_avg_pool(g, &u, q))
				done = true, pools++;
			else if (fold_concat(g, &u, q, ctx->diags))
				done = true, cats++;
			else if (fold_lookup(g, &u, q, ctx->diags))
				done = true, luts++;
			else if (fold_pair(g, q))
				done = true, pairs++;
			if (done || u.n != g->n_values)
				rw_uses_compute(g, &u);
		}
	rw_uses_free(&u);
	for (RegionId r = 0; r < g->n_regions; r++)
		for (int i = 0; i < g->regions[r].n_nodes; i++) {
			NodeId id = g->regions[r].nodes[i];
			if (!g->nodes[id].dead && fold_w8(g, id, ctx->diags))
				w8++;
		}
	g->qdq_folded = true;
	for (RegionId r = 0; r < g->n_regions; r++)
		for (int i = 0; i < g->regions[r].n_nodes; i++)
			if (!g->nodes[g->regions[r].nodes[i]].dead)
				annotate_node(g, g->regions[r].nodes[i]);
	for (RegionId r = 0; r < g->n_regions; r++)
		for (int i = 0; i < g->regions[r].n_nodes; i++)
			if (!g->nodes[g->regions[r].nodes[i]].dead)
				annotate_moves(g, g->regions[r].nodes[i]);
	if (conv + mm + moves + clamps + pairs + bin + pools + cats + luts + w8)
		snprintf(ctx->changed, sizeof ctx->changed,
		         "%d QLinearConv, %d QLinearMatMul, %d QLinearAdd/Mul, %d average pools, "
		         "%d Concat, %d lookup tables, %d ops on 8-bit values, %d clamps, "
		         "%d Q(DQ) pairs removed, %d MatMulW8", conv, mm, bin, pools, cats, luts, moves,
		         clamps, pairs, w8);
	return 0;
}
