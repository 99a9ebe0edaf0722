/* linalg.c — op groups gemm (Gemm) and matmul (MatMul): import, inference and
 * lowering to runtime-stubs/kernels/linalg.c. MatMul follows numpy (1-D operands
 * gain and lose a unit dim, batch dims broadcast); the kernel sees the broadcast
 * as zero batch strides. Gemm's optional C broadcasts to (M, N) as strides too.
 * Opset differences: C is required before opset 11; opsets 1-6 carry a
 * `broadcast` attribute, accepted and ignored (broadcasting is always allowed).
 * Fusion (passes/fuse_epilogue.c) adds an epilogue no ONNX model carries: an
 * activation with its parameters and a residual as a trailing input (MatMul 2,
 * Gemm 3), added after C and before the activation; float dtypes only. */
#include "opimpl.h"
#include "op_attrs.h"

#include <string.h>

#include "linalg.h"
#include "ewmath.h"

static const DType mm_dtypes[] = { DT_F16, DT_F32, DT_F64, DT_BF16, DT_I32, DT_I64,
                                   DT_U32, DT_U64, DT_UNDEF };

/* Shape arithmetic stays far from int64 overflow: operands are bounded like any
 * planned tensor. */
#define SIZE_MAX_BYTES ((int64_t)1 << 40)

static int check_size(InferCtx *c, int slot)
{
	const Type *t = infer_in(c, slot);
	if (!t)
		return 0;
	int64_t bytes = type_bytes(t);
	bool bad = bytes < 0 || bytes > SIZE_MAX_BYTES;
	for (int i = 0; i < t->rank; i++)
		bad |= t->dims[i] < 0 || t->dims[i] > SIZE_MAX_BYTES;
	if (bad) {
		char buf[128];
		return infer_fail(c, slot, "invalid or too large shape %s", type_format(t, buf, sizeof buf));
	}
	return 0;
}

/* ---- the fused epilogue, shared by MatMul and Gemm ---- */

/* The fields of EpilogueAttrs (op_attrs.h), never imported from ONNX, set by passes;
 * it is the first member of both attr structs. */
#define EPILOGUE_FIELDS(T) \
	{ "activation", AK_ENUM, offsetof(T, ep.activation), op_act_names, .has_default = true, .def = 0 }, \
	{ "act_params", AK_FLOATS, offsetof(T, ep.act_params), NULL }, \
	{ "residual", AK_INT, offsetof(T, ep.residual), NULL, .has_default = true, .def = 0 },

static const DType ep_dtypes[] = { DT_F16, DT_F32, DT_F64, DT_BF16, DT_UNDEF };

/* Parameters that fit the activation, a float dtype, and the residual (input
 * `slot`) present exactly when the flag says so, typed like Y. */
static int epilogue_infer(InferCtx *c, const EpilogueAttrs *e, int slot, const Type *y)
{
	const Type *r = infer_in(c, slot);
	int np = e->act_params.n < 0 ? 0 : e->act_params.n;
	if (e->activation < 0 || e->activation >= INGOT_EW_N_ACT)
		return infer_fail_attr(c, "activation", "unknown activation %d", e->activation);
	if (np != op_act_n_params[e->activation])
		return infer_fail_attr(c, "act_params", "%s takes %d parameters, got %d",
		                       op_act_names[e->activation], op_act_n_params[e->activation], np);
	if (e->residual != 0 && e->residual != 1)
		return infer_fail_attr(c, "residual", "expected 0 or 1, got %lld", (long long)e->residual);
	if ((e->activation || e->residual) && infer_check_dtype(c, 0, ep_dtypes))
		return -1;
	if (!e->residual) {
		if (r)
			return infer_fail(c, slot, "unexpected input (only a fused residual takes slot %d)",
			                  slot);
		return 0;
	}
	if (!r)
		return infer_fail(c, slot, "the fused residual is missing");
	if (r->dtype != y->dtype || !type_same_shape(r, y)) {
		char b1[96], b2[96];
		return infer_fail(c, slot, "residual %s differs from the output %s",
		                  type_format(r, b1, sizeof b1), type_format(y, b2, sizeof b2));
	}
	return 0;
}

/* The kernel's epilogue fields (HardSwish is HardSigmoid(1/6, 0.5) times x, as the
 * unary kernel computes it). */
static void epilogue_lower(const EpilogueAttrs *e, int64_t *act, float *al, float *be, int64_t *res)
{
	*act = e->activation;
	*al = e->act_params.n > 0 ? e->act_params.v[0] : 0.0f;
	*be = e->act_params.n > 1 ? e->act_params.v[1] : 0.0f;
	if (e->activation == INGOT_LINALG_ACT_HARD_SWISH) {
		*al = 1.0f / 6.0f;
		*be = 0.5f;
	}
	*res = e->residual != 0;
}

/* ---- MatMul ---- */

/* MatmulAttrs is in op_attrs.h */

static const AttrField matmul_fields[] = { EPILOGUE_FIELDS(MatmulAttrs) };

static int matmul_import(ImportCtx *c)
{
	MatmulAttrs *a = c->attrs;
	a->ep.act_params.n = -1;
	return 0;
}

typedef struct MatmulShape {
	int64_t m, n, k;
	int nb;                              /* broadcast batch rank */
	int64_t bdims[IR_MAX_RANK], a_bstr[IR_MAX_RANK], b_bstr[IR_MAX_RANK];
	Type y;
} MatmulShape;

/* Element strides of one operand's batch dims (rank r, matrix of `mat` elements),
 * right-aligned against nb output batch dims; broadcast dims get 0. */
static void batch_strides(const Type *t, int r, int64_t mat, int nb, int64_t *str)
{
	int64_t s = mat;
	for (int d = nb - 1; d >= 0; d--) {
		int td = d - (nb - r);
		if (td < 0) {
			str[d] = 0;
			continue;
		}
		str[d] = t->dims[td] == 1 ? 0 : s;
		s *= t->dims[td];
	}
}

static int matmul_shape(InferCtx *c, MatmulShape *s)
{
	const Type *a = infer_in(c, 0), *b = infer_in(c, 1);
	int ab, bb;
	int64_t k2;
	memset(s, 0, sizeof *s);
	if (check_size(c, 0) || check_size(c, 1))
		return -1;
	if (a->rank < 1)
		return infer_fail(c, 0, "expected rank >= 1, got a scalar");
	if (b->rank < 1)
		return infer_fail(c, 1, "expected rank >= 1, got a scalar");
	if (a->rank == 1) {
		s->m = 1;
		s->k = a->dims[0];
		ab = 0;
	} else {
		s->m = a->dims[a->rank - 2];
		s->k = a->dims[a->rank - 1];
		ab = a->rank - 2;
	}
	if (b->rank == 1) {
		k2 = b->dims[0];
		s->n = 1;
		bb = 0;
	} else {
		k2 = b->dims[b->rank - 2];
		s->n = b->dims[b->rank - 1];
		bb = b->rank - 2;
	}
	if (k2 != s->k)
		return infer_fail(c, 1, "inner dims differ: A has %lld columns, B has %lld rows",
		                  (long long)s->k, (long long)k2);
	s->nb = ab > bb ? ab : bb;
	for (int d = 0; d < s->nb; d++) {
		int da = d - (s->nb - ab), db = d - (s->nb - bb);
		int64_t x = da >= 0 ? a->dims[da] : 1, y = db >= 0 ? b->dims[db] : 1;
		if (x != y && x != 1 && y != 1)
			return infer_fail(c, 1, "batch dim %d (%lld) does not broadcast with A's (%lld)",
			                  d, (long long)y, (long long)x);
		s->bdims[d] = x == 1 ? y : x;
	}
	batch_strides(a, ab, s->m * s->k, s->nb, s->a_bstr);
	batch_strides(b, bb, s->k * s->n, s->nb, s->b_bstr);
	s->y = type_make(a->dtype, 0, NULL);
	for (int d = 0; d < s->nb; d++)
		s->y.dims[s->y.rank++] = s->bdims[d];
	if (a->rank > 1)
		s->y.dims[s->y.rank++] = s->m;
	if (b->rank > 1)
		s->y.dims[s->y.rank++] = s->n;
	return 0;
}

static int matmul_infer(InferCtx *c)
{
	MatmulShape s;
	if (infer_check_dtype(c, 0, mm_dtypes) || infer_same_dtype(c, 0, 1) ||
	    matmul_shape(c, &s))
		return -1;
	*infer_out(c, 0) = s.y;
	return epilogue_infer(c, &((const MatmulAttrs *)infer_node(c)->attrs)->ep, 2, &s.y);
}

static const ParamField matmul_pfields[] = {
#define PARAM_STRUCT ingot_matmul_params
	INGOT_MATMUL_FIELDS(PARAM_FIELD)
#undef PARAM_STRUCT
};
static const ParamDesc matmul_desc = PARAM_DESC(ingot_matmul_params, matmul_pfields);

static int matmul_lower(LowerCtx *c)
{
	InferCtx ic = { c->g, c->node, NULL };
	DiagSink quiet;
	MatmulShape s;
	int rc;
	diag_sink_init(&quiet, NULL);
	ic.diags = &quiet;
	rc = matmul_shape(&ic, &s);
	diag_sink_free(&quiet);
	if (rc)
		return -1;
	ingot_matmul_params *p = lower_params(c, &matmul_desc);
	p->dtype = ir_value(c->g, ir_node(c->g, c->node)->in[0])->type.dtype;
	p->m = s.m;
	p->n = s.n;
	p->k = s.k;
	p->nb = s.nb;
	for (int d = 0; d < s.nb; d++) {
		p->bdims[d] = s.bdims[d];
		p->a_bstr[d] = s.a_bstr[d];
		p->b_bstr[d] = s.b_bstr[d];
	}
	epilogue_lower(&((const MatmulAttrs *)ir_node(c->g, c->node)->attrs)->ep, &p->act,
	               &p->act_alpha, &p->act_beta, &p->has_residual);
	LOWER_CALL(c, ingot_matmul, &matmul_desc, p);
	c->kc.split = true;   /* tasks own disjoint outputs */
	return 0;
}

const OpImpl op_impl_matmul = {
	sizeof(MatmulAttrs), matmul_fields, COUNTOF(matmul_fields),
	matmul_import, matmul_infer, matmul_lower
};

/* ---- Gemm ---- */

/* GemmAttrs is in op_attrs.h */

static const AttrField gemm_fields[] = {
	{ "alpha", AK_FLOAT, offsetof(GemmAttrs, alpha), NULL },
	{ "beta", AK_FLOAT, offsetof(GemmAttrs, beta), NULL },
	{ "transA", AK_INT, offsetof(GemmAttrs, trans_a), NULL },
	{ "transB", AK_INT, offsetof(GemmAttrs, trans_b), NULL },
	EPILOGUE_FIELDS(GemmAttrs)
};

static int gemm_import(ImportCtx *c)
{
	GemmAttrs *a = c->attrs;
	int64_t bc;
	if (import_float(c, "alpha", 1.0f, &a->alpha) || import_float(c, "beta", 1.0f, &a->beta) ||
	    import_int(c, "transA", 0, &a->trans_a) || import_int(c, "transB", 0, &a->trans_b) ||
	    import_int(c, "broadcast", 0, &bc))
		return -1;
	a->trans_a = a->trans_a != 0;
	a->trans_b = a->trans_b != 0;
	a->ep.act_params.n = -1;
	return 0;
}

/* M, N, K and C's strides (0 along broadcast dims, both 0 without C). */
typedef struct GemmShape { int64_t m, n, k, c_rs, c_cs; } GemmShape;

static int gemm_shape(InferCtx *c, GemmShape *s)
{
	const GemmAttrs *at = infer_node(c)->attrs;
	const Type *a = infer_in(c, 0), *b = infer_in(c, 1), *ct = infer_in(c, 2);
	int64_t k2;
	memset(s, 0, sizeof *s);
	if (check_size(c, 0) || check_size(c, 1) || check_size(c, 2))
		return -1;
	if (a->rank != 2)
		return infer_fail(c, 0, "expected rank 2, got %d", a->rank);
	if (b->rank != 2)
		return infer_fail(c, 1, "expected rank 2, got %d", b->rank);
	s->m = a->dims[at->trans_a ? 1 : 0];
	s->k = a->dims[at->trans_a ? 0 : 1];
	k2 = b->dims[at->trans_b ? 1 : 0];
	s->n = b->dims[at->trans_b ? 0 : 1];
	if (k2 != s->k)
		return infer_fail(c, 1, "inner dims differ: op(A) has %lld columns, op(B) has %lld rows",
		                  (long long)s->k, (long long)k2);
	if (!ct) {
		if (infer_node(c)->opset < 11)
			return infer_fail(c, 2, "input C is required before opset 11");
		return 0;
	}
	if (ct->rank > 2)
		return infer_fail(c, 2, "expected rank <= 2, got %d", ct->rank);
	int64_t cm = ct->rank == 2 ? ct->dims[0] : 1;
	int64_t cn = ct->rank >= 1 ? ct->dims[ct->rank - 1] : 1;
	if ((cm != 1 && cm != s->m) || (cn != 1 && cn != s->n)) {
		char buf[64];
		return infer_fail(c, 2, "%s does not broadcast to (%lld, %lld)",
		                  type_format(ct, buf, sizeof buf), (long long)s->m, (long long)s->n);
	}
	s->c_rs = cm == 1 ? 0 : cn;
	s->c_cs = cn == 1 ? 0 : 1;
	return 0;
}

static int gemm_infer(InferCtx *c)
{
	GemmShape s;
	if (infer_check_dtype(c, 0, mm_dtypes) || infer_same_dtype(c, 0, 1) ||
	    infer_same_dtype(c, 0, 2) || gemm_shape(c, &s))
		return -1;
	int64_t dims[2] = { s.m, s.n };
	*infer_out(c, 0) = type_make(infer_in(c, 0)->dtype, 2, dims);
	return epilogue_infer(c, &((const GemmAttrs *)infer_node(c)->attrs)->ep, 3,
	                      infer_out(c, 0));
}

static const ParamField gemm_pfields[] = {
#define PARAM_STRUCT ingot_gemm_params
	INGOT_GEMM_FIELDS(PARAM_FIELD)
#undef PARAM_STRUCT
};
static const ParamDesc gemm_desc = PARAM_DESC(ingot_gemm_params, gemm_pfields);

static int gemm_lower(LowerCtx *c)
{
	const GemmAttrs *at = ir_node(c->g, c->node)->attrs;
	InferCtx ic = { c->g, c->node, NULL };
	DiagSink quiet;
	GemmShape s;
	int rc;
	diag_sink_init(&quiet, NULL);
	ic.diags = &quiet;
	rc = gemm_shape(&ic, &s);
	diag_sink_free(&quiet);
	if (rc)
		return -1;
	ingot_gemm_params *p = lower_params(c, &gemm_desc);
	p->dtype = ir_value(c->g, ir_node(c->g, c->node)->in[0])->type.dtype;
	p->m = s.m;
	p->n = s.n;
	p->k = s.k;
	p->trans_a = at->trans_a;
	p->trans_b = at->trans_b;
	p->alpha = at->alpha;
	p->beta = at->beta;
	p->has_c = infer_has(&ic, 2);
	p->c_rs = s.c_rs;
	p->c_cs = s.c_cs;
	epilogue_lower(&at->ep, &p->act, &p->act_alpha, &p->act_beta, &p->has_residual);
	LOWER_CALL(c, ingot_gemm, &gemm_desc, p);
	c->kc.split = true;   /* tasks own disjoint outputs */
	return 0;
}

const OpImpl op_impl_gemm = {
	sizeof(GemmAttrs), gemm_fields, COUNTOF(gemm_fields),
	gemm_import, gemm_infer, gemm_lower
};
