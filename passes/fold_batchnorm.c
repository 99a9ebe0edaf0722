/* fold_batchnorm.c — folds an inference BatchNormalization into the linear node
 * before it: Conv, ConvTranspose (group 1), Gemm, or a 2-D MatMul (which becomes
 * a Gemm), with constant weights and bias and no other reader of its output.
 *   y = (conv(x, W) + b - mean) * s + B,  s = scale / sqrt(var + epsilon)
 *     = conv(x, W * s) + ((b - mean) * s + B)
 * computed in double (as the BatchNormalization kernel does) into new constants.
 * The fused node takes over BN's output value, so a graph output keeps its name,
 * and lists BN's ONNX name among its origins. f32 and f64 only: folding rounds the
 * new weights once, which lower precisions would notice. */
#include "passes.h"
#include "rewrite.h"
#include "op_attrs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct Fold {
	NodeId bn, lin;              /* the BatchNormalization and the linear node */
	int64_t ch;                  /* channels */
	double *s, *t;               /* per channel: y = lin * s + t (t still lacks b * s) */
} Fold;

static bool is_const(const Graph *g, const Node *n, int slot)
{
	return slot < n->n_in && n->in[slot] != IR_NONE && g->values[n->in[slot]].is_const;
}

/* Whether node id carries no fused epilogue (activation "none", no residual). */
static bool plain_epilogue(Graph *g, NodeId id)
{
	const EpilogueAttrs *e = ops_epilogue_attrs(g, id);
	return !e || (e->activation == 0 && e->residual == 0);
}

/* The linear node BN can fold into, or IR_NONE. */
static NodeId foldable(Graph *g, const Uses *u, NodeId bn_id)
{
	const Node *bn = &g->nodes[bn_id];
	if (ops_batchnorm_attrs(g, bn_id)->training_mode || bn->n_in < 5)
		return IR_NONE;
	for (int k = 1; k < bn->n_out; k++)
		if (bn->out[k] != IR_NONE && u->count[bn->out[k]] > 0)
			return IR_NONE;
	for (int k = 1; k < 5; k++)
		if (!is_const(g, bn, k))
			return IR_NONE;
	const Value *x = &g->values[bn->in[0]];
	if ((x->type.dtype != DT_F32 && x->type.dtype != DT_F64) || x->producer == IR_NONE ||
	    rw_sole_user(g, u, bn->in[0]) != bn_id)
		return IR_NONE;
	NodeId id = x->producer;
	const Node *n = &g->nodes[id];
	if (n->dead || n->region != bn->region || n->n_out != 1 || !plain_epilogue(g, id) ||
	    !is_const(g, n, 1) || (n->n_in > 2 && n->in[2] != IR_NONE && !is_const(g, n, 2)) ||
	    !op_has(n->op, OPF_LINEAR))
		return IR_NONE;
	switch (n->op) {     /* each linear op's own weight layout */
	case OP_CONV:
		return id;
	case OP_CONV_TRANSPOSE:
		return ops_conv_attrs(g, id)->group == 1 ? id : IR_NONE;
	case OP_GEMM:
		return x->type.rank == 2 ? id : IR_NONE;
	case OP_MATMUL:
		return x->type.rank == 2 && g->values[n->in[0]].type.rank == 2 &&
		       g->values[n->in[1]].type.rank == 2 ? id : IR_NONE;
	default:
		return IR_NONE;
	}
}

/* Scaled weights: element e of W belongs to output channel chan(e). */
static ValueId scaled_weights(Graph *g, const Fold *f, ValueId w, int64_t plane, int64_t period)
{
	const Value *wv = &g->values[w];
	Type t = wv->type;
	int64_t n = type_numel(&t);
	void *buf = malloc((size_t)(type_bytes(&t) > 0 ? type_bytes(&t) : 1));
	char base[256];
	if (!buf)
		die("out of memory");
	/* output channel of element e: (e / plane) % period */
	for (int64_t e = 0; e < n; e++)
		rw_store_f64(t.dtype, buf, e, rw_const_f64(g, w, e) * f->s[(e / plane) % period]);
	snprintf(base, sizeof base, "%.200s_bn", wv->name);
	ValueId out = rw_const_new(g, g->nodes[f->lin].region, base, &t, buf);
	free(buf);
	return out;
}

/* New bias [ch] (or [rows, ch] for a Gemm C with rows): (beta * b - mean) * s + B. */
static ValueId folded_bias(Graph *g, const Fold *f, ValueId b, double beta, int64_t rows,
                           DType dt)
{
	int64_t dims[2] = { rows, f->ch };
	Type t = rows > 1 ? type_make(dt, 2, dims) : type_make(dt, 1, &f->ch);
	void *buf = malloc((size_t)(rows * f->ch) * dtype_size(dt));
	const Type *bt = b != IR_NONE ? &g->values[b].type : NULL;
	char base[256];
	if (!buf)
		die("out of memory");
	for (int64_t i = 0; i < rows; i++)
		for (int64_t j = 0; j < f->ch; j++) {
			double bv = 0;
			if (bt) {   /* b broadcasts to [rows, ch] (rank 0, 1 or 2) */
				int64_t bi = bt->rank == 2 && bt->dims[0] > 1 ? i : 0;
				int64_t bj = bt->rank >= 1 && bt->dims[bt->rank - 1] > 1 ? j : 0;
				int64_t bcols = bt->rank >= 1 ? bt->dims[bt->rank - 1] : 1;
				bv = beta * rw_const_f64(g, b, bi * bcols + bj);
			}
			rw_store_f64(dt, buf, i * f->ch + j, bv * f->s[j] + f->t[j]);
		}
	snprintf(base, sizeof base, "%.200s_bias",
	         g->values[g->nodes[f->bn].out[0]].name);
	ValueId out = rw_const_new(g, g->nodes[f->lin].region, base, &t, buf);
	free(buf);
	return out;
}

static int fold(Graph *g, Fold *f, DiagSink *d)
{
	Node *bn = &g->nodes[f->bn];
	const float eps = ops_batchnorm_attrs(g, f->bn)->epsilon;
	ValueId x = bn->in[0], y = bn->out[0];
	DType dt = g->values[x].type.dtype;
	f->ch = g->values[x].type.dims[1];
	f->s = malloc((size_t)(f->ch ? f->ch : 1) * sizeof *f->s);
	f->t = malloc((size_t)(f->ch ? f->ch : 1) * sizeof *f->t);
	if (!f->s || !f->t)
		die("out of memory");
	for (int64_t c = 0; c < f->ch; c++) {
		double var = rw_const_f64(g, bn->in[4], c);
		f->s[c] = rw_const_f64(g, bn->in[1], c) / sqrt(var + (double)eps);
		f->t[c] = rw_const_f64(g, bn->in[2], c) - rw_const_f64(g, bn->in[3], c) * f->s[c];
	}
	Node *n = &g->nodes[f->lin];
	ValueId w = n->in[1], b = n->n_in > 2 ? n->in[2] : IR_NONE, a = n->in[0];
	const Type *wt = &g->values[w].type;
	int rc = 0;
	if (n->op == OP_CONV || n->op == OP_CONV_TRANSPOSE) {
		int64_t kplane = 1;
		for (int k = 2; k < wt->rank; k++)
			kplane *= wt->dims[k];
		/* Conv W is (M, C/g, k...), ConvTranspose W (C, M, k...) */
		ValueId nw = n->op == OP_CONV ? scaled_weights(g, f, w, type_numel(wt) / f->ch, f->ch)
		                              : scaled_weights(g, f, w, kplane, f->ch);
		ValueId nb = folded_bias(g, f, b, 1.0, 1, dt);
		ValueId in[3] = { a, nw, nb };
		rw_node_set_inputs(g, f->lin, in, 3);
	} else {
		/* Gemm / MatMul: Y = alpha * op(A) @ op(B) + beta * C, channels are columns */
		const GemmAttrs *ga = ops_gemm_attrs(g, f->lin);    /* NULL for a MatMul */
		bool trans_b = ga && ga->trans_b;
		double bscale = ga ? (double)ga->beta : 1.0;
		int64_t rows = 1;
		if (b != IR_NONE && g->values[b].type.rank == 2 && g->values[b].type.dims[0] > 1)
			rows = g->values[b].type.dims[0];
		/* B is (K, N), or (N, K) transposed: the channel of element e */
		ValueId nw = trans_b ? scaled_weights(g, f, w, wt->dims[1], f->ch)
		                     : scaled_weights(g, f, w, 1, f->ch);
		ValueId nb = folded_bias(g, f, b, bscale, rows, dt);
		ValueId in[3] = { a, nw, nb };
		if (g->nodes[f->lin].op == OP_MATMUL) {
			rc = rw_node_reset(g, f->lin, OP_GEMM, in, 3, NULL, 0, d);
		} else {
			rw_node_set_inputs(g, f->lin, in, 3);
			ops_gemm_attrs(g, f->lin)->beta = 1.0f;
		}
	}
	free(f->s);
	free(f->t);
	if (rc)
		return -1;
	/* the fused node writes BN's output */
	n = &g->nodes[f->lin];
	g->values[n->out[0]].producer = IR_NONE;
	n->out[0] = y;
	g->values[y].producer = f->lin;
	g->values[y].producer_slot = 0;
	g->nodes[f->bn].dead = true;
	rw_origins_append(g, f->lin, f->bn);
	rw_reinfer(g, f->lin);
	return 0;
}

int pass_fold_batchnorm(Graph *g, PassCtx *ctx)
{
	Uses u = { 0 };
	int folded = 0;
	rw_uses_compute(g, &u);
	for (RegionId r = 0; r < g->n_regions; r++) {
		for (int i = 0; i < g->regions[r].n_nodes; i++) {
			NodeId id = g->regions[r].nodes[i];
			Fold f;
			if (g->nodes[id].dead || g->nodes[id].op != OP_BATCH_NORMALIZATION)
				continue;
			memset(&f, 0, sizeof f);
			f.bn = id;
			f.lin = foldable(g, &u, id);
			if (f.lin == IR_NONE)
				continue;
			if (fold(g, &f, ctx->diags)) {
				rw_uses_free(&u);
				return -1;
			}
			folded++;
			rw_uses_compute(g, &u);
		}
	}
	rw_uses_free(&u);
	if (folded)
		snprintf(ctx->changed, sizeof ctx->changed, "%d BatchNormalization nodes folded", folded);
	return 0;
}
