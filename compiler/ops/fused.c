/* fused.c — op group fused_elementwise: FusedElementwise, the node fuse_elementwise
 * makes of a chain of f32 elementwise ops (passes/fuse_elementwise.c). Not an ONNX
 * op: a model naming it is rejected at import; the text IR carries it as
 *   %y = FusedElementwise(%x, %c) {prog=[15,0,255, 34,0,2], params=[...]} : f32[...]
 * prog holds three ints per step (code, a, b: see runtime-stubs/kernels/fused.h, b
 * 255 when unused), params three floats per step. Inference checks the program and
 * broadcasts the inputs; lowering sets up ingot_fused_elementwise. */
#include "opimpl.h"
#include "op_attrs.h"

#include <string.h>

#include "elementwise.h"
#include "fused.h"

/* FusedAttrs is in op_attrs.h */

static const AttrField fused_fields[] = {
	{ "prog", AK_INTS, offsetof(FusedAttrs, prog), NULL },
	{ "params", AK_FLOATS, offsetof(FusedAttrs, params), NULL },
};

/* Only the pass makes it (the IR parser fills the attributes directly); the frontend
 * rejects it as an unsupported op before attributes are imported, and so does this. */
static int fused_import(ImportCtx *c)
{
	DiagLoc l = ir_node_loc(c->g, c->node);
	diag_report(c->diags, DIAG_ERROR, DC_UNSUPPORTED, &l, "unsupported op 'FusedElementwise'");
	return -1;
}

/* A step code the kernel knows: f32 unary ops, the f32 arithmetic binary ops, Clip. */
static bool known_code(int64_t code)
{
	if (code >= 0 && code < INGOT_EW_N_UNARY)
		return code != INGOT_EW_NOT;
	switch (code - INGOT_FE_BINARY) {
	case INGOT_EW_ADD: case INGOT_EW_SUB: case INGOT_EW_MUL: case INGOT_EW_DIV: case INGOT_EW_POW:
		return true;
	default:
		return code == INGOT_FE_CLIP;
	}
}

/* What is wrong with the program of a node with n_in inputs (into msg), or false. */
static bool bad_prog(const FusedAttrs *a, int n_in, char *msg, size_t cap)
{
	int n_ops = a->prog.n / 3;
	if (n_in < 1 || n_in > INGOT_FE_MAX_IN) {
		snprintf(msg, cap, "expected 1 to %d inputs, got %d", INGOT_FE_MAX_IN, n_in);
		return true;
	}
	if (a->prog.n < 3 || a->prog.n % 3 || n_ops > INGOT_FE_MAX_OPS) {
		snprintf(msg, cap, "prog: expected 1 to %d steps of 3 ints, got %d ints", INGOT_FE_MAX_OPS,
		         a->prog.n);
		return true;
	}
	if (a->params.n != 3 * n_ops) {
		snprintf(msg, cap, "params: expected %d floats (3 per step), got %d", 3 * n_ops, a->params.n);
		return true;
	}
	for (int k = 0; k < n_ops; k++) {
		int64_t code = a->prog.v[3 * k], ra = a->prog.v[3 * k + 1], rb = a->prog.v[3 * k + 2];
		bool binary = code >= INGOT_FE_BINARY && code < INGOT_FE_CLIP;
		if (!known_code(code)) {
			snprintf(msg, cap, "prog: step %d: unknown op code %lld", k, (long long)code);
			return true;
		}
		if (ra < 0 || ra >= n_in + k || (binary ? rb < 0 || rb >= n_in + k : rb != 255)) {
			snprintf(msg, cap, "prog: step %d: operand out of range", k);
			return true;
		}
	}
	return false;
}

static int fused_infer(InferCtx *c)
{
	const Node *n = infer_node(c);
	int n_in = n->n_in;
	char msg[160];
	static const DType f32[] = { DT_F32, DT_UNDEF };
	if (bad_prog(n->attrs, n_in, msg, sizeof msg))
		return infer_fail(c, -1, "%s", msg);
	Type r = *infer_in(c, 0);
	for (int i = 0; i < n_in; i++) {
		Type t;
		if (!infer_has(c, i) || infer_check_dtype(c, i, f32))
			return infer_has(c, i) ? -1 : infer_fail(c, i, "an input cannot be omitted");
		if (!type_broadcast(&r, infer_in(c, i), &t))
			return infer_fail(c, i, "shape is not broadcastable with the others");
		r = t;
	}
	*infer_out(c, 0) = type_make(DT_F32, r.rank, r.dims);
	return 0;
}

/* ONNX names of the step codes: ewtable.h's unary rows, then the binary codes. */
static const char *step_name(int64_t code)
{
#define X(N, On, fn, R, U, A, PAR, S, V) INGOT_EW_IF_UNARY_##R([U] = #On,)
	static const char *const unary[INGOT_EW_N_UNARY] = { INGOT_EW_TABLE(X) };
#undef X
	if (code >= 0 && code < INGOT_EW_N_UNARY)
		return unary[code];
	switch (code - INGOT_FE_BINARY) {
	case INGOT_EW_ADD: return "Add";
	case INGOT_EW_SUB: return "Sub";
	case INGOT_EW_MUL: return "Mul";
	case INGOT_EW_DIV: return "Div";
	case INGOT_EW_POW: return "Pow";
	default: return code == INGOT_FE_CLIP ? "Clip" : "?";
	}
}

bool ops_fused_describe(const Graph *g, NodeId id, char *buf, size_t cap)
{
	const Node *n = &g->nodes[id];
	const FusedAttrs *a = n->attrs;
	char msg[160];
	size_t len = 0;
	if (cap == 0 || bad_prog(a, n->n_in, msg, sizeof msg))
		return false;
	buf[0] = 0;
#define OUT(...) do { if (len < cap) len += (size_t)snprintf(buf + len, cap - len, __VA_ARGS__); } while (0)
	for (int k = 0; k < a->prog.n / 3; k++) {
		const float *p = &a->params.v[3 * k];
		OUT("%ss%d = %s(", k ? "; " : "", k, step_name(a->prog.v[3 * k]));
		for (int j = 1; j <= 2; j++) {
			int64_t r = a->prog.v[3 * k + j];
			if (r == 255)
				continue;
			if (j == 2)
				OUT(", ");
			if (r < n->n_in)
				OUT("%%%s", g->values[n->in[r]].name);
			else
				OUT("s%d", (int)(r - n->n_in));
		}
		if (a->prog.v[3 * k] == INGOT_FE_CLIP) {
			int flags = (int)p[2];
			if (flags & 1)
				OUT(", min=%.9g", (double)p[0]);
			if (flags & 2)
				OUT(", max=%.9g", (double)p[1]);
		} else if (a->prog.v[3 * k] < INGOT_FE_BINARY && (p[0] != 0 || p[1] != 0 || p[2] != 0)) {
			OUT(", %.9g, %.9g, %.9g", (double)p[0], (double)p[1], (double)p[2]);
		}
		OUT(")");
	}
#undef OUT
	return true;
}

#define PARAM_STRUCT ingot_fused_params
static const ParamField fused_pfields[] = { INGOT_FUSED_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc fused_desc = PARAM_DESC(ingot_fused_params, fused_pfields);

/* Element strides of input t along the output's dims (right-aligned, 0 where t is
 * broadcast). */
static void strides(const Type *t, const Type *out, int64_t *s)
{
	int64_t st = 1;
	for (int d = out->rank - 1; d >= 0; d--) {
		int td = d - (out->rank - t->rank);
		int64_t dim = td >= 0 ? t->dims[td] : 1;
		s[d] = dim == 1 && out->dims[d] != 1 ? 0 : st;
		st *= dim;
	}
}

static int fused_lower(LowerCtx *c)
{
	const Node *n = &c->g->nodes[c->node];
	const FusedAttrs *a = n->attrs;
	const Type *out = &c->g->values[n->out[0]].type;
	ingot_fused_params *p = lower_params(c, &fused_desc);
	int64_t *s[INGOT_FE_MAX_IN] = { p->s0, p->s1, p->s2, p->s3 };
	float *pa[INGOT_FE_MAX_OPS] = { &p->pa0, &p->pa1, &p->pa2, &p->pa3, &p->pa4, &p->pa5, &p->pa6, &p->pa7 };
	float *pb[INGOT_FE_MAX_OPS] = { &p->pb0, &p->pb1, &p->pb2, &p->pb3, &p->pb4, &p->pb5, &p->pb6, &p->pb7 };
	float *pg[INGOT_FE_MAX_OPS] = { &p->pg0, &p->pg1, &p->pg2, &p->pg3, &p->pg4, &p->pg5, &p->pg6, &p->pg7 };
	bool flat = true;   /* every input whole or a scalar: one flat run */
	char msg[160];
	if (bad_prog(a, n->n_in, msg, sizeof msg))
		return -1;   /* text IR that inference never saw */
	for (int i = 0; i < n->n_in; i++)
		if (n->in[i] == IR_NONE || c->g->values[n->in[i]].type.dtype != DT_F32)
			return -1;
	p->n = type_numel(out);
	p->n_in = n->n_in;
	p->n_ops = a->prog.n / 3;
	for (int i = 0; i < n->n_in; i++) {
		int64_t m = type_numel(&c->g->values[n->in[i]].type);
		flat = flat && (m == p->n || m == 1);
	}
	if (flat || out->rank == 0) {
		p->rank = 1;
		p->dims[0] = p->n;
		for (int i = 0; i < n->n_in; i++)
			s[i][0] = type_numel(&c->g->values[n->in[i]].type) == p->n ? 1 : 0;
	} else {
		p->rank = out->rank;
		memcpy(p->dims, out->dims, (size_t)out->rank * sizeof *out->dims);
		for (int i = 0; i < n->n_in; i++)
			strides(&c->g->values[n->in[i]].type, out, s[i]);
	}
	for (int k = 0; k < p->n_ops; k++) {
		p->ops[k] = a->prog.v[3 * k] | a->prog.v[3 * k + 1] << 8 | a->prog.v[3 * k + 2] << 16;
		*pa[k] = a->params.v[3 * k];
		*pb[k] = a->params.v[3 * k + 1];
		*pg[k] = a->params.v[3 * k + 2];
	}
	LOWER_CALL(c, ingot_fused_elementwise, &fused_desc, p);
	return 0;
}

const OpImpl op_impl_fused_elementwise = { sizeof(FusedAttrs), fused_fields, COUNTOF(fused_fields),
                                           fused_import, fused_infer, fused_lower };
