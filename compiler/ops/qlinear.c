/* qlinear.c — op groups qlinear_conv (QLinearConv), conv_integer (ConvInteger),
 * qlinear_matmul (QLinearMatMul) and matmul_integer (MatMulInteger): the integer
 * products on 8-bit operands; and ingot's own qlinear_binary (QLinearAdd, QLinearMul)
 * qlinear_lookup (QLinearLookup) and matmul_w8 (MatMulW8, weight-only int8), which
 * passes/fold_qdq.c makes from QDQ patterns (not ONNX ops: never read from a model). Inference checks the operands, their scale and zero
 * point shapes (per tensor, per output channel / row / column) and resolves the
 * geometry: conv attributes into begin pads and output dims (this file's own
 * compact copy of Conv's rules, without ConvTranspose), matmul into numpy
 * broadcast batch strides. Lowering targets runtime-stubs/kernels/quant.c. */
#include "opimpl.h"
#include "op_attrs.h"

#include <string.h>

#include "quant.h"

#define QC_MAX_SP 6

/* y_min / y_max (op_attrs.h) print only when they clamp */
#define Q_CLAMP_FIELDS(S) \
	{ "y_min", AK_INT, offsetof(S, y_min), NULL, .has_default = true, .def = Q_NO_MIN }, \
	{ "y_max", AK_INT, offsetof(S, y_max), NULL, .has_default = true, .def = Q_NO_MAX }
/* attribute values (strides, pads, kernel...) stay far from int64 overflow */
#define ATTR_MAX ((int64_t)1 << 24)

static const DType q8_dtypes[] = { DT_U8, DT_I8, DT_UNDEF };
static const DType qs_dtypes[] = { DT_F32, DT_F16, DT_BF16, DT_UNDEF };
static const DType qs32_dtypes[] = { DT_F32, DT_UNDEF };

/* A scale / zero point slot that must hold one value. */
static int want_one(InferCtx *c, int slot)
{
	const Type *t = infer_in(c, slot);
	if (t && (t->rank > 1 || type_numel(t) != 1))
		return infer_fail(c, slot, "expected a scalar (per-tensor quantization), got rank %d "
		                  "with %lld values", t->rank, (long long)type_numel(t));
	return 0;
}

/* A slot holding one value or a 1-D vector of n (per channel / row / column);
 * sets *layout to INGOT_QV_NONE / ONE / VEC. */
static int want_vec(InferCtx *c, int slot, int64_t n, const char *what, int64_t *layout)
{
	const Type *t = infer_in(c, slot);
	*layout = INGOT_QV_NONE;
	if (!t)
		return 0;
	if (t->rank <= 1 && type_numel(t) == 1) {
		*layout = INGOT_QV_ONE;
		return 0;
	}
	if (t->rank == 1 && t->dims[0] == n) {
		*layout = INGOT_QV_VEC;
		return 0;
	}
	return infer_fail(c, slot, "expected a scalar or %lld values (one per %s), got rank %d "
	                  "with %lld values", (long long)n, what, t->rank, (long long)type_numel(t));
}

/* ---- matmul geometry (numpy matmul: 1-D operands promoted, batch dims broadcast) ---- */

typedef struct MmGeom {
	int64_t m, n, k;
	int nb;
	int64_t bdims[IR_MAX_RANK], a_bstr[IR_MAX_RANK], b_bstr[IR_MAX_RANK];
	int y_rank;
	int64_t y_dims[IR_MAX_RANK];
} MmGeom;

static int mm_geom(InferCtx *c, int sa, int sb, MmGeom *g)
{
	const Type *a = infer_in(c, sa), *b = infer_in(c, sb);
	int ra = a->rank, rb = b->rank, na, nbb;
	memset(g, 0, sizeof *g);
	if (ra < 1)
		return infer_fail(c, sa, "expected rank >= 1, got a scalar");
	if (rb < 1)
		return infer_fail(c, sb, "expected rank >= 1, got a scalar");
	g->m = ra == 1 ? 1 : a->dims[ra - 2];
	g->k = a->dims[ra - 1];
	g->n = rb == 1 ? 1 : b->dims[rb - 1];
	int64_t kb = rb == 1 ? b->dims[0] : b->dims[rb - 2];
	if (kb != g->k)
		return infer_fail(c, sb, "expected %lld rows (the columns of input %d), got %lld",
		                  (long long)g->k, sa, (long long)kb);
	na = ra > 2 ? ra - 2 : 0;
	nbb = rb > 2 ? rb - 2 : 0;
	g->nb = na > nbb ? na : nbb;
	int64_t sa_acc = g->m * g->k, sb_acc = g->k * g->n;
	for (int d = g->nb - 1; d >= 0; d--) {
		int ia = d - (g->nb - na), ib = d - (g->nb - nbb);
		int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
		if (da != db && da != 1 && db != 1)
			return infer_fail(c, sb, "batch dim %lld does not broadcast with input %d's %lld",
			                  (long long)db, sa, (long long)da);
		g->bdims[d] = da > db ? da : db;
		if (da == 0 || db == 0)
			g->bdims[d] = 0;
		g->a_bstr[d] = da == 1 ? 0 : sa_acc;
		g->b_bstr[d] = db == 1 ? 0 : sb_acc;
		sa_acc *= da;
		sb_acc *= db;
	}
	for (int d = 0; d < g->nb; d++)
		g->y_dims[g->y_rank++] = g->bdims[d];
	if (ra > 1)
		g->y_dims[g->y_rank++] = g->m;
	if (rb > 1)
		g->y_dims[g->y_rank++] = g->n;
	return 0;
}

/* MatMulInteger's zero points: one value, a vector (per row of A / column of B), or
 * the operand's own batch shape with a 1 for K ([.., M, 1] / [.., 1, N]). */
static int mm_zp(InferCtx *c, int slot, int op_slot, bool is_a, const MmGeom *g, int64_t *layout)
{
	const Type *z = infer_in(c, slot), *o = infer_in(c, op_slot);
	int64_t n = is_a ? g->m : g->n;
	if (!z) {
		*layout = INGOT_QV_NONE;
		return 0;
	}
	if (z->rank >= 2 && z->rank == o->rank) {
		bool ok = true;
		for (int i = 0; ok && i < z->rank - 2; i++)
			ok = z->dims[i] == o->dims[i];
		ok = ok && (is_a ? z->dims[z->rank - 2] == g->m && z->dims[z->rank - 1] == 1
		                 : z->dims[z->rank - 2] == 1 && z->dims[z->rank - 1] == g->n);
		if (ok && type_numel(z) != 1) {
			*layout = INGOT_QV_BATCH;
			return 0;
		}
	}
	if (z->rank <= 1 || type_numel(z) == 1)
		return want_vec(c, slot, n, is_a ? "row of A" : "column of B", layout);
	return infer_fail(c, slot, "expected a scalar, %lld values or the batch shape of input %d "
	                  "with %s, got rank %d", (long long)n, op_slot,
	                  is_a ? "[.., M, 1]" : "[.., 1, N]", z->rank);
}

static int mmi_infer(InferCtx *c)
{
	MmGeom g;
	int64_t lz;
	if (infer_check_dtype(c, 0, q8_dtypes) || infer_check_dtype(c, 1, q8_dtypes) ||
	    infer_same_dtype(c, 0, 2) || infer_same_dtype(c, 1, 3) || mm_geom(c, 0, 1, &g) ||
	    mm_zp(c, 2, 0, true, &g, &lz) || mm_zp(c, 3, 1, false, &g, &lz))
		return -1;
	*infer_out(c, 0) = type_make(DT_I32, g.y_rank, g.y_dims);
	return 0;
}

static int qmm_infer(InferCtx *c)
{
	MmGeom g;
	int64_t l;
	const Type *ys = infer_in(c, 6);
	if (infer_check_dtype(c, 0, q8_dtypes) || infer_check_dtype(c, 3, q8_dtypes) ||
	    infer_check_dtype(c, 7, q8_dtypes) || infer_check_dtype(c, 1, qs_dtypes) ||
	    infer_same_dtype(c, 1, 4) || infer_same_dtype(c, 1, 6) ||
	    infer_same_dtype(c, 0, 2) || infer_same_dtype(c, 3, 5) || mm_geom(c, 0, 3, &g) ||
	    want_vec(c, 1, g.m, "row of a", &l) || want_vec(c, 2, g.m, "row of a", &l) ||
	    want_vec(c, 4, g.n, "column of b", &l) || want_vec(c, 5, g.n, "column of b", &l) ||
	    want_vec(c, 6, g.m, "row of a", &l) || want_vec(c, 7, g.m, "row of a", &l))
		return -1;
	(void)ys;
	const Type *b = infer_in(c, 8);
	if (b && (b->dtype != DT_I32 || b->rank != 1 || b->dims[0] != g.n))
		return infer_fail(c, 8, "expected i32[%lld] (one per column)", (long long)g.n);
	*infer_out(c, 0) = type_make(infer_in(c, 7)->dtype, g.y_rank, g.y_dims);
	return 0;
}

static const AttrField qmm_fields[] = { Q_CLAMP_FIELDS(QmmAttrs) };

static int qmm_import(ImportCtx *c)
{
	QmmAttrs *a = c->attrs;
	const Node *n = ir_node(c->g, c->node);
	a->y_min = Q_NO_MIN;
	a->y_max = Q_NO_MAX;
	if (n->op == OP_QLINEAR_MATMUL && n->n_in > 8) {   /* slot 8 is fold_qdq's bias */
		DiagLoc l = ir_node_loc(c->g, c->node);
		diag_report(c->diags, DIAG_ERROR, DC_PARSE, &l,
		            "QLinearMatMul takes at most 8 inputs, got %d", n->n_in);
		return -1;
	}
	return 0;
}

#define PARAM_STRUCT ingot_qmatmul_params
static const ParamField qmatmul_pfields[] = { INGOT_QMATMUL_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc qmatmul_desc = PARAM_DESC(ingot_qmatmul_params, qmatmul_pfields);

static int qmm_lower(LowerCtx *c)
{
	Node *n = ir_node(c->g, c->node);
	bool ql = n->op == OP_QLINEAR_MATMUL;
	InferCtx ic = { c->g, c->node, NULL };
	DiagSink quiet;
	MmGeom g;
	int64_t l;
	int rc;
	ingot_qmatmul_params *p = lower_params(c, &qmatmul_desc);
	diag_sink_init(&quiet, NULL);
	ic.diags = &quiet;
	rc = mm_geom(&ic, 0, ql ? 3 : 1, &g);
	if (!rc && ql) {
		rc = want_vec(&ic, 2, g.m, "", &p->a_zp) || want_vec(&ic, 5, g.n, "", &p->b_zp) ||
		     want_vec(&ic, 1, g.m, "", &p->a_s) || want_vec(&ic, 4, g.n, "", &p->b_s) ||
		     want_vec(&ic, 6, g.m, "", &p->y_s) || want_vec(&ic, 7, g.m, "", &p->y_zp);
	} else if (!rc) {
		rc = mm_zp(&ic, 2, 0, true, &g, &p->a_zp) || mm_zp(&ic, 3, 1, false, &g, &p->b_zp);
	}
	diag_sink_free(&quiet);
	(void)l;
	if (rc || n->out[0] == IR_NONE)
		return -1;
	p->a_dtype = ir_value(c->g, n->in[0])->type.dtype;
	p->b_dtype = ir_value(c->g, n->in[ql ? 3 : 1])->type.dtype;
	p->y_dtype = ir_value(c->g, n->out[0])->type.dtype;
	p->s_dtype = ql ? ir_value(c->g, n->in[1])->type.dtype : DT_F32;
	p->qlinear = ql;
	p->has_bias = ql && n->n_in > 8 && n->in[8] != IR_NONE;
	p->y_lo = ((const QmmAttrs *)n->attrs)->y_min;
	p->y_hi = ((const QmmAttrs *)n->attrs)->y_max;
	p->m = g.m;
	p->n = g.n;
	p->k = g.k;
	p->nb = g.nb;
	for (int d = 0; d < g.nb; d++) {
		p->bdims[d] = g.bdims[d];
		p->a_bstr[d] = g.a_bstr[d];
		p->b_bstr[d] = g.b_bstr[d];
	}
	LOWER_CALL(c, ingot_qmatmul, &qmatmul_desc, p);
	return 0;
}

/* ---- conv geometry ---- */

enum { PAD_NOTSET, PAD_SAME_UPPER, PAD_SAME_LOWER, PAD_VALID };
static const char *const auto_pad_names[] = { "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID",
                                              NULL };

static const AttrField qconv_fields[] = {
	{ "auto_pad", AK_ENUM, offsetof(QConvAttrs, auto_pad), auto_pad_names },
	{ "group", AK_INT, offsetof(QConvAttrs, group), NULL },
	{ "dilations", AK_INTS, offsetof(QConvAttrs, dilations), NULL },
	{ "kernel_shape", AK_INTS, offsetof(QConvAttrs, kernel_shape), NULL },
	{ "pads", AK_INTS, offsetof(QConvAttrs, pads), NULL },
	{ "strides", AK_INTS, offsetof(QConvAttrs, strides), NULL },
	Q_CLAMP_FIELDS(QConvAttrs),
};

static int qconv_import(ImportCtx *c)
{
	QConvAttrs *a = c->attrs;
	const RawAttr *ap = import_find(c, "auto_pad");
	a->y_min = Q_NO_MIN;
	a->y_max = Q_NO_MAX;
	if (ap && ap->kind == RA_STRING && ap->s && !ap->s[0])   /* "" means NOTSET */
		a->auto_pad = PAD_NOTSET;
	else if (import_enum(c, "auto_pad", auto_pad_names, PAD_NOTSET, &a->auto_pad))
		return -1;
	return import_int(c, "group", 1, &a->group) || import_ints(c, "dilations", &a->dilations) ||
	       import_ints(c, "kernel_shape", &a->kernel_shape) || import_ints(c, "pads", &a->pads) ||
	       import_ints(c, "strides", &a->strides) ? -1 : 0;
}

typedef struct QGeom {
	int nsp;
	int64_t m;
	int64_t s[QC_MAX_SP], d[QC_MAX_SP], pb[QC_MAX_SP], out[QC_MAX_SP];
} QGeom;

/* n values of an optional list (default def when absent or empty), each in [lo, ATTR_MAX]. */
static int qlist(InferCtx *c, const char *name, const IntList *l, int n, int64_t def, int64_t lo,
                 int64_t *v)
{
	if (l->n <= 0) {
		for (int i = 0; i < n; i++)
			v[i] = def;
		return 0;
	}
	if (l->n != n)
		return infer_fail_attr(c, name, "expected %d values, got %d", n, l->n);
	for (int i = 0; i < n; i++) {
		if (l->v[i] < lo || l->v[i] > ATTR_MAX)
			return infer_fail_attr(c, name, "value %lld is out of range [%lld, %lld]",
			                       (long long)l->v[i], (long long)lo, (long long)ATTR_MAX);
		v[i] = l->v[i];
	}
	return 0;
}

static int qconv_geom(InferCtx *c, int xs, int ws, QGeom *g)
{
	const QConvAttrs *a = infer_node(c)->attrs;
	const Type *x = infer_in(c, xs), *w = infer_in(c, ws);
	int64_t pads[2 * QC_MAX_SP], k;
	memset(g, 0, sizeof *g);
	if (x->rank < 3 || x->rank > QC_MAX_SP + 2)
		return infer_fail(c, xs, "expected rank 3 to %d (N, C, spatial...), got %d",
		                  QC_MAX_SP + 2, x->rank);
	if (w->rank != x->rank)
		return infer_fail(c, ws, "expected rank %d (as x), got %d", x->rank, w->rank);
	g->nsp = x->rank - 2;
	if (a->group < 1 || a->group > ATTR_MAX)
		return infer_fail_attr(c, "group", "expected 1 to %lld, got %lld", (long long)ATTR_MAX,
		                       (long long)a->group);
	if (w->dims[1] * a->group != x->dims[1])
		return infer_fail(c, ws, "expected dim 1 = %lld (channels / group), got %lld",
		                  (long long)(x->dims[1] / a->group), (long long)w->dims[1]);
	if (w->dims[0] % a->group)
		return infer_fail(c, ws, "output channels %lld not divisible by group %lld",
		                  (long long)w->dims[0], (long long)a->group);
	g->m = w->dims[0];
	if (a->kernel_shape.n > 0 && a->kernel_shape.n != g->nsp)
		return infer_fail_attr(c, "kernel_shape", "expected %d values, got %d", g->nsp,
		                       a->kernel_shape.n);
	for (int i = 0; i < g->nsp; i++) {
		if (w->dims[2 + i] < 1)
			return infer_fail(c, ws, "kernel dim %d is %lld", i, (long long)w->dims[2 + i]);
		if (a->kernel_shape.n > 0 && a->kernel_shape.v[i] != w->dims[2 + i])
			return infer_fail_attr(c, "kernel_shape", "value %lld differs from w's dim %lld",
			                       (long long)a->kernel_shape.v[i], (long long)w->dims[2 + i]);
	}
	if (qlist(c, "strides", &a->strides, g->nsp, 1, 1, g->s) ||
	    qlist(c, "dilations", &a->dilations, g->nsp, 1, 1, g->d) ||
	    qlist(c, "pads", &a->pads, 2 * g->nsp, 0, 0, pads))
		return -1;
	for (int i = 0; i < g->nsp; i++) {
		int64_t in = x->dims[2 + i], pe = pads[g->nsp + i], total;
		k = (w->dims[2 + i] - 1) * g->d[i] + 1;
		g->pb[i] = a->auto_pad == PAD_VALID ? 0 : pads[i];
		pe = a->auto_pad == PAD_VALID ? 0 : pe;
		if (a->auto_pad == PAD_SAME_UPPER || a->auto_pad == PAD_SAME_LOWER) {
			g->out[i] = (in + g->s[i] - 1) / g->s[i];
			total = (g->out[i] - 1) * g->s[i] + k - in;
			total = total > 0 ? total : 0;
			g->pb[i] = a->auto_pad == PAD_SAME_UPPER ? total / 2 : total - total / 2;
			continue;
		}
		if (in + g->pb[i] + pe < k)
			return infer_fail(c, xs, "spatial dim %d (%lld, padded %lld) is smaller than the "
			                  "dilated kernel (%lld)", i, (long long)in,
			                  (long long)(in + g->pb[i] + pe), (long long)k);
		g->out[i] = (in + g->pb[i] + pe - k) / g->s[i] + 1;
	}
	return 0;
}

static void qconv_out(InferCtx *c, int xs, const QGeom *g, DType dt)
{
	const Type *x = infer_in(c, xs);
	Type *y = infer_out(c, 0);
	*y = type_make(dt, x->rank, x->dims);
	y->dims[1] = g->m;
	for (int i = 0; i < g->nsp; i++)
		y->dims[2 + i] = g->out[i];
}

static int convi_infer(InferCtx *c)
{
	QGeom g;
	int64_t l;
	if (infer_check_dtype(c, 0, q8_dtypes) || infer_check_dtype(c, 1, q8_dtypes) ||
	    infer_same_dtype(c, 0, 2) || infer_same_dtype(c, 1, 3) || qconv_geom(c, 0, 1, &g) ||
	    want_one(c, 2) || want_vec(c, 3, g.m, "output channel", &l))
		return -1;
	qconv_out(c, 0, &g, DT_I32);
	return 0;
}

static int qconv_infer(InferCtx *c)
{
	QGeom g;
	int64_t l;
	const Type *b = infer_in(c, 8);
	if (infer_check_dtype(c, 0, q8_dtypes) || infer_check_dtype(c, 3, q8_dtypes) ||
	    infer_check_dtype(c, 7, q8_dtypes) || infer_check_dtype(c, 1, qs32_dtypes) ||
	    infer_check_dtype(c, 4, qs32_dtypes) || infer_check_dtype(c, 6, qs32_dtypes) ||
	    infer_same_dtype(c, 0, 2) || infer_same_dtype(c, 3, 5) || qconv_geom(c, 0, 3, &g) ||
	    want_one(c, 1) || want_one(c, 2) || want_one(c, 6) || want_one(c, 7) ||
	    want_vec(c, 4, g.m, "output channel", &l) || want_vec(c, 5, g.m, "output channel", &l))
		return -1;
	if (b && (b->dtype != DT_I32 || b->rank != 1 || b->dims[0] != g.m))
		return infer_fail(c, 8, "expected i32[%lld] (one per output channel)", (long long)g.m);
	qconv_out(c, 0, &g, infer_in(c, 7)->dtype);
	return 0;
}

#define PARAM_STRUCT ingot_qconv_params
static const ParamField qconv_pfields[] = { INGOT_QCONV_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc qconv_desc = PARAM_DESC(ingot_qconv_params, qconv_pfields);

static int qconv_lower(LowerCtx *c)
{
	Node *n = ir_node(c->g, c->node);
	bool ql = n->op == OP_QLINEAR_CONV;
	int ws = ql ? 3 : 1;
	InferCtx ic = { c->g, c->node, NULL };
	DiagSink quiet;
	QGeom g;
	int64_t wzp = INGOT_QV_NONE, wsc = INGOT_QV_ONE;
	int rc;
	diag_sink_init(&quiet, NULL);
	ic.diags = &quiet;
	rc = qconv_geom(&ic, 0, ws, &g) || want_vec(&ic, ql ? 5 : 3, g.m, "", &wzp) ||
	     (ql && want_vec(&ic, 4, g.m, "", &wsc));
	diag_sink_free(&quiet);
	if (rc || n->out[0] == IR_NONE)
		return -1;
	const Type *x = &ir_value(c->g, n->in[0])->type, *w = &ir_value(c->g, n->in[ws])->type;
	const Type *y = &ir_value(c->g, n->out[0])->type;
	ingot_qconv_params *p = lower_params(c, &qconv_desc);
	p->x_dtype = x->dtype;
	p->w_dtype = w->dtype;
	p->y_dtype = y->dtype;
	p->qlinear = ql;
	p->nsp = g.nsp;
	p->group = ((const QConvAttrs *)n->attrs)->group;
	p->has_xzp = n->n_in > 2 && n->in[2] != IR_NONE;
	/* the kernel reads 1 value, or one per output channel */
	p->w_zp = wzp == INGOT_QV_NONE ? 0 : wzp == INGOT_QV_ONE ? 1 : g.m;
	p->w_s = wsc == INGOT_QV_VEC ? g.m : 1;
	p->has_bias = ql && n->n_in > 8 && n->in[8] != IR_NONE;
	p->y_lo = ((const QConvAttrs *)n->attrs)->y_min;
	p->y_hi = ((const QConvAttrs *)n->attrs)->y_max;
	for (int i = 0; i < x->rank; i++) {
		p->x_dims[i] = x->dims[i];
		p->w_dims[i] = w->dims[i];
		p->y_dims[i] = y->dims[i];
	}
	for (int i = 0; i < g.nsp; i++) {
		p->strides[i] = g.s[i];
		p->dilations[i] = g.d[i];
		p->pads[i] = g.pb[i];
	}
	LOWER_CALL(c, ingot_qconv, &qconv_desc, p);
	return 0;
}

const OpImpl op_impl_qlinear_conv = {
	sizeof(QConvAttrs), qconv_fields, COUNTOF(qconv_fields), qconv_import, qconv_infer,
	qconv_lower
};
const OpImpl op_impl_conv_integer = {
	sizeof(QConvAttrs), qconv_fields, COUNTOF(qconv_fields), qconv_import, convi_infer,
	qconv_lower
};
const OpImpl op_impl_qlinear_matmul = {
	sizeof(QmmAttrs), qmm_fields, COUNTOF(qmm_fields), qmm_import, qmm_infer, qmm_lower
};
const OpImpl op_impl_matmul_integer = {
	sizeof(QmmAttrs), qmm_fields, COUNTOF(qmm_fields), qmm_import, mmi_infer, qmm_lower
};

/* ---- QLinearAdd, QLinearMul: (A, a_scale, azp, B, b_scale, bzp, y_scale, yzp) ---- */

static int qbin_infer(InferCtx *c)
{
	const Type *a = infer_in(c, 0), *b = infer_in(c, 3);
	Type y;
	for (int s = 0; s < 8; s++)
		if (!infer_has(c, s))
			return infer_fail(c, s, "is required");
	if (infer_check_dtype(c, 0, q8_dtypes) || infer_check_dtype(c, 3, q8_dtypes) ||
	    infer_check_dtype(c, 7, q8_dtypes) || infer_check_dtype(c, 1, qs32_dtypes) ||
	    infer_check_dtype(c, 4, qs32_dtypes) || infer_check_dtype(c, 6, qs32_dtypes) ||
	    infer_same_dtype(c, 0, 2) || infer_same_dtype(c, 3, 5))
		return -1;
	for (int s = 1; s < 8; s++)
		if (s != 3 && want_one(c, s))
			return -1;
	if (!type_broadcast(a, b, &y))
		return infer_fail(c, 3, "does not broadcast with input 0");
	y.dtype = infer_in(c, 7)->dtype;
	*infer_out(c, 0) = y;
	return 0;
}

#define PARAM_STRUCT ingot_qbinary_params
static const ParamField qbinary_pfields[] = { INGOT_QBINARY_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc qbinary_desc = PARAM_DESC(ingot_qbinary_params, qbinary_pfields);

static int qbin_lower(LowerCtx *c)
{
	Node *n = ir_node(c->g, c->node);
	const Type *a = lower_in(c, 0), *b = lower_in(c, 3), *y = lower_out(c, 0);
	if (!a || !b || !y)
		return -1;
	ingot_qbinary_params *p = lower_params(c, &qbinary_desc);
	p->op = n->op == OP_QLINEAR_MUL ? INGOT_QB_MUL : INGOT_QB_ADD;
	p->a_dtype = a->dtype;
	p->b_dtype = b->dtype;
	p->y_dtype = y->dtype;
	p->n = type_numel(y);
	p->rank = y->rank;
	memcpy(p->dims, y->dims, sizeof p->dims);
	ops_bcast_strides(y, a, p->sa);
	ops_bcast_strides(y, b, p->sb);
	p->y_lo = ((const QmmAttrs *)n->attrs)->y_min;
	p->y_hi = ((const QmmAttrs *)n->attrs)->y_max;
	LOWER_CALL(c, ingot_qbinary, &qbinary_desc, p);
	c->kc.split = true;   /* tasks own disjoint outputs */
	return 0;
}

/* ---- QLinearLookup: (x, table[256]) ---- */

static int qlookup_infer(InferCtx *c)
{
	const Type *x = infer_in(c, 0), *t = infer_in(c, 1);
	if (infer_check_dtype(c, 0, q8_dtypes) || infer_check_dtype(c, 1, q8_dtypes))
		return -1;
	if (t->rank != 1 || t->dims[0] != 256)
		return infer_fail(c, 1, "expected a table of 256 values, got rank %d with %lld",
		                  t->rank, (long long)type_numel(t));
	*infer_out(c, 0) = type_make(t->dtype, x->rank, x->dims);
	return 0;
}

#define PARAM_STRUCT ingot_qlookup_params
static const ParamField qlookup_pfields[] = { INGOT_QLOOKUP_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc qlookup_desc = PARAM_DESC(ingot_qlookup_params, qlookup_pfields);

static int qlookup_lower(LowerCtx *c)
{
	const Type *y = lower_out(c, 0);
	if (!y)
		return -1;
	ingot_qlookup_params *p = lower_params(c, &qlookup_desc);
	p->n = type_numel(y);
	LOWER_CALL(c, ingot_qlookup, &qlookup_desc, p);
	c->kc.split = true;   /* tasks own disjoint outputs */
	return 0;
}

static int qclamp_import(ImportCtx *c)
{
	QmmAttrs *a = c->attrs;
	a->y_min = Q_NO_MIN;
	a->y_max = Q_NO_MAX;
	return 0;
}

const OpImpl op_impl_qlinear_binary = {
	sizeof(QmmAttrs), qmm_fields, COUNTOF(qmm_fields), qclamp_import, qbin_infer, qbin_lower
};
const OpImpl op_impl_qlinear_lookup = { 0, NULL, 0, NULL, qlookup_infer, qlookup_lower };

/* ---- MatMulW8: (A f32 [..., K], B 8-bit [K, N], scale f32 [1 | N], [bias f32 [N]]) ---- */

static int mmw8_infer(InferCtx *c)
{
	const Type *a = infer_in(c, 0), *w = infer_in(c, 1), *s = infer_in(c, 2), *b = infer_in(c, 3);
	if (infer_check_dtype(c, 0, qs32_dtypes) || infer_check_dtype(c, 1, q8_dtypes) ||
	    infer_check_dtype(c, 2, qs32_dtypes) || (b && infer_check_dtype(c, 3, qs32_dtypes)))
		return -1;
	if (a->rank < 1 || w->rank != 2 || a->dims[a->rank - 1] != w->dims[0])
		return infer_fail(c, 1, "expected [%lld, N] (A's last dim rows)",
		                  (long long)(a->rank ? a->dims[a->rank - 1] : 0));
	int64_t n = w->dims[1];
	if (s->rank > 1 || (type_numel(s) != 1 && type_numel(s) != n))
		return infer_fail(c, 2, "expected 1 or %lld values (one per column)", (long long)n);
	if (b && (b->rank != 1 || b->dims[0] != n))
		return infer_fail(c, 3, "expected f32[%lld] (one per column)", (long long)n);
	Type y = type_make(DT_F32, a->rank, a->dims);
	y.dims[a->rank - 1] = n;
	*infer_out(c, 0) = y;
	return 0;
}

#define PARAM_STRUCT ingot_matmul_w8_params
static const ParamField mmw8_pfields[] = { INGOT_MATMUL_W8_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc mmw8_desc = PARAM_DESC(ingot_matmul_w8_params, mmw8_pfields);

static int mmw8_lower(LowerCtx *c)
{
	const Type *a = lower_in(c, 0), *w = lower_in(c, 1), *s = lower_in(c, 2);
	if (!a || !w || !s || !lower_out(c, 0))
		return -1;
	ingot_matmul_w8_params *p = lower_params(c, &mmw8_desc);
	p->w_dtype = w->dtype;
	p->k = w->dims[0];
	p->n = w->dims[1];
	p->m = p->k ? type_numel(a) / p->k : 0;
	p->s_n = type_numel(s);
	p->has_bias = lower_in(c, 3) != NULL;
	LOWER_CALL(c, ingot_matmul_w8, &mmw8_desc, p);
	c->kc.split = true;   /* tasks own disjoint columns */
	return 0;
}

const OpImpl op_impl_matmul_w8 = { 0, NULL, 0, NULL, mmw8_infer, mmw8_lower };
