/* opimpl.c — the op table generated from IR_OPS, and the helpers op groups use to
 * infer types (with located diagnostics) and to lower nodes to kernel calls. */
#include "opimpl.h"

#include <stdarg.h>
#include <string.h>

static const OpInfo op_table[] = {
#define X(e, name, group, min_in, max_in, min_out, max_out, k, f) \
	{ #name, &op_impl_##group, min_in, max_in, min_out, max_out, k, f },
	IR_OPS(X)
#undef X
};
_Static_assert(sizeof op_table / sizeof op_table[0] == OP_COUNT, "op table and Op enum disagree");

const OpInfo *op_info(Op op)
{
	IR_ASSERT((unsigned)op < OP_COUNT);
	return &op_table[op];
}

bool op_has(Op op, unsigned flags)
{
	return (op_info(op)->flags & flags) != 0;
}

/* What the IR declares and the ops layer supplies (ir.h) */
OpAttrLayout ir_op_attrs(Op op)
{
	const OpImpl *impl = op_info(op)->impl;
	return (OpAttrLayout){ impl->attr_size, impl->fields, impl->n_fields };
}

bool ir_node_comment(const Graph *g, NodeId n, char *buf, size_t cap)
{
	return g->nodes[n].op == OP_FUSED_ELEMENTWISE && ops_fused_describe(g, n, buf, cap);
}

const DType dtl_float[] = { DT_F16, DT_F32, DT_F64, DT_BF16, DT_UNDEF };
const DType dtl_int[] = { DT_I8, DT_I16, DT_I32, DT_I64, DT_U8, DT_U16, DT_U32, DT_U64, DT_UNDEF };
const DType dtl_numeric[] = { DT_F16, DT_F32, DT_F64, DT_BF16, DT_I8, DT_I16, DT_I32, DT_I64,
                              DT_U8, DT_U16, DT_U32, DT_U64, DT_UNDEF };
const DType dtl_all[] = { DT_F16, DT_F32, DT_F64, DT_BF16, DT_I8, DT_I16, DT_I32, DT_I64,
                          DT_U8, DT_U16, DT_U32, DT_U64, DT_BOOL, DT_UNDEF };
const DType dtl_all_small[] = { DT_F16, DT_F32, DT_F64, DT_BF16, DT_I8, DT_I16, DT_I32, DT_I64,
                                DT_U8, DT_U16, DT_U32, DT_U64, DT_BOOL, DT_F8E4M3FN,
                                DT_F8E4M3FNUZ, DT_F8E5M2, DT_F8E5M2FNUZ, DT_U4, DT_I4,
                                DT_F4E2M1, DT_F8E8M0, DT_U2, DT_I2, DT_UNDEF };
/* ORDER INGOT_E8M0 */
const char *const cast_round_mode_names[] = { "up", "down", "nearest", NULL };

Node *infer_node(InferCtx *c) { return &c->g->nodes[c->node]; }

bool infer_has(InferCtx *c, int slot)
{
	Node *n = infer_node(c);
	return slot < n->n_in && n->in[slot] != IR_NONE;
}

const Type *infer_in(InferCtx *c, int slot)
{
	return infer_has(c, slot) ? &c->g->values[infer_node(c)->in[slot]].type : NULL;
}

Type *infer_out(InferCtx *c, int slot)
{
	Node *n = infer_node(c);
	if (slot >= n->n_out || n->out[slot] == IR_NONE)
		return NULL;
	return &c->g->values[n->out[slot]].type;
}

const void *infer_const(InferCtx *c, int slot)
{
	return infer_has(c, slot) ? ir_const_data(c->g, infer_node(c)->in[slot]) : NULL;
}

static int vfail(InferCtx *c, DiagCode code, const char *kind, int slot, const char *tensor,
                 const char *fmt, va_list ap)
{
	DiagLoc l = ir_node_loc(c->g, c->node);
	if (kind) {
		l.slot_kind = kind;
		l.slot = slot;
		l.tensor = tensor;
	}
	diag_vreport(c->diags, DIAG_ERROR, code, &l, fmt, ap);
	return -1;
}

int infer_fail(InferCtx *c, int slot, const char *fmt, ...)
{
	va_list ap;
	int r;
	Node *n = infer_node(c);
	const char *tensor = slot >= 0 && slot < n->n_in && n->in[slot] != IR_NONE
	                     ? c->g->values[n->in[slot]].name : NULL;
	va_start(ap, fmt);
	r = vfail(c, DC_SHAPE, slot >= 0 ? "input" : NULL, slot, tensor, fmt, ap);
	va_end(ap);
	return r;
}

int infer_fail_attr(InferCtx *c, const char *attr, const char *fmt, ...)
{
	va_list ap;
	int r;
	va_start(ap, fmt);
	r = vfail(c, DC_SHAPE, "attribute", -1, attr, fmt, ap);
	va_end(ap);
	return r;
}

static int fail_code(InferCtx *c, DiagCode code, int slot, const char *fmt, ...)
{
	va_list ap;
	int r;
	Node *n = infer_node(c);
	va_start(ap, fmt);
	r = vfail(c, code, "input", slot, n->in[slot] != IR_NONE ? c->g->values[n->in[slot]].name : NULL,
	          fmt, ap);
	va_end(ap);
	return r;
}

static int need_const(InferCtx *c, int slot)
{
	Node *n = infer_node(c);
	const Value *v = &c->g->values[n->in[slot]];
	return fail_code(c, DC_CONST_INPUT, slot,
	                 "must be known at compile time; fix it with --bind %s=FILE|VALUE", v->name);
}

int infer_const_ints(InferCtx *c, int slot, int64_t **v, int *n)
{
	if (!infer_has(c, slot))
		return infer_fail(c, slot, "missing");
	const Type *t = infer_in(c, slot);
	const void *data = infer_const(c, slot);
	if (!data)
		return need_const(c, slot);
	if (t->dtype != DT_I64 && t->dtype != DT_I32)
		return fail_code(c, DC_TYPE, slot, "expected i32 or i64, got %s", dtype_name(t->dtype));
	int64_t count = type_numel(t);
	if (count < 0 || count > 1 << 20)
		return infer_fail(c, slot, "too many elements (%lld)", (long long)count);
	*n = (int)count;
	*v = arena_array(&c->g->arena, (size_t)(count ? count : 1), sizeof **v);
	for (int64_t i = 0; i < count; i++) {
		if (t->dtype == DT_I64) {
			memcpy(&(*v)[i], (const char *)data + 8 * i, 8);
		} else {
			int32_t x;
			memcpy(&x, (const char *)data + 4 * i, 4);
			(*v)[i] = x;
		}
	}
	return 0;
}

int infer_const_f64s(InferCtx *c, int slot, double **v, int *n)
{
	if (!infer_has(c, slot))
		return infer_fail(c, slot, "missing");
	const Type *t = infer_in(c, slot);
	const void *data = infer_const(c, slot);
	if (!data)
		return need_const(c, slot);
	int64_t count = type_numel(t);
	if (count < 0 || count > 1 << 20)
		return infer_fail(c, slot, "too many elements (%lld)", (long long)count);
	*n = (int)count;
	*v = arena_array(&c->g->arena, (size_t)(count ? count : 1), sizeof **v);
	size_t es = dtype_size(t->dtype);
	if (es == 0 || es > 8)
		return fail_code(c, DC_TYPE, slot, "unsupported element type %s", dtype_name(t->dtype));
	for (int64_t i = 0; i < count; i++) {
		Scalar s;
		memset(&s, 0, sizeof s);
		s.dtype = t->dtype;
		memcpy(s.bytes, (const char *)data + es * (size_t)i, es);
		(*v)[i] = scalar_to_f64(&s);
	}
	return 0;
}

int infer_check_dtype(InferCtx *c, int slot, const DType *allowed)
{
	const Type *t = infer_in(c, slot);
	if (!t)
		return 0;
	for (int i = 0; allowed[i] != DT_UNDEF; i++)
		if (allowed[i] == t->dtype)
			return 0;
	return fail_code(c, DC_TYPE, slot, "element type %s is not supported by this op",
	                 dtype_name(t->dtype));
}

int infer_same_dtype(InferCtx *c, int a, int b)
{
	const Type *ta = infer_in(c, a), *tb = infer_in(c, b);
	if (!ta || !tb || ta->dtype == tb->dtype)
		return 0;
	return fail_code(c, DC_TYPE, b, "expected element type %s (as input %d), got %s",
	                 dtype_name(ta->dtype), a, dtype_name(tb->dtype));
}

int infer_normalize_axis(InferCtx *c, int64_t axis, int rank, int64_t *out)
{
	int64_t a = axis < 0 ? axis + rank : axis;
	if (a < 0 || a >= (rank ? rank : 1)) {
		DiagLoc l = ir_node_loc(c->g, c->node);
		diag_report(c->diags, DIAG_ERROR, DC_SHAPE, &l,
		            "axis %lld out of range for rank %d", (long long)axis, rank);
		return -1;
	}
	*out = a;
	return 0;
}

const Type *lower_in(LowerCtx *c, int slot)
{
	const Node *n = &c->g->nodes[c->node];
	return slot < n->n_in && n->in[slot] != IR_NONE ? &c->g->values[n->in[slot]].type : NULL;
}

const Type *lower_out(LowerCtx *c, int slot)
{
	const Node *n = &c->g->nodes[c->node];
	return slot < n->n_out && n->out[slot] != IR_NONE ? &c->g->values[n->out[slot]].type : NULL;
}

void *lower_params(LowerCtx *c, const ParamDesc *d)
{
	return arena_alloc(&c->g->arena, d->size);
}

void lower_call(LowerCtx *c, const char *fn_name, const char *family, ingot_kernel_fn fn,
                const ParamDesc *d, const void *params)
{
	c->kc.fn_name = fn_name;
	c->kc.family = family;
	c->kc.fn = fn;
	c->kc.pdesc = d;
	c->kc.params = params;
}

int ops_import_attrs(Graph *g, NodeId node, const RawAttr *raw, int n_raw, DiagSink *d)
{
	const OpImpl *impl = op_info(g->nodes[node].op)->impl;
	ImportCtx c = { g, node, g->nodes[node].attrs, raw, n_raw, d };
	return impl->import ? impl->import(&c) : 0;
}

/* A tensor input whose shape is invalid or too large to plan gets a diagnostic. */
int infer_check_size(InferCtx *c, int slot)
{
	const Type *t = infer_in(c, slot);
	if (!t)
		return 0;
	int64_t bytes = type_bytes(t);
	bool bad = bytes < 0 || bytes > OPS_MAX_TENSOR_BYTES;
	for (int i = 0; i < t->rank; i++)
		bad |= t->dims[i] < 0 || t->dims[i] > OPS_MAX_TENSOR_BYTES;
	if (bad) {
		char buf[128];
		return infer_fail(c, slot, "invalid or too large shape %s", type_format(t, buf, sizeof buf));
	}
	return 0;
}

/* Reads an optional list of n values (per spatial dim), defaulting to `def`, each >= lo. */
int infer_spatial_list(InferCtx *c, const char *name, const IntList *l, int n, int64_t def,
                        int64_t lo, int64_t *v)
{
	if (l->n <= 0) {                     /* absent (or written as an empty list) */
		for (int i = 0; i < n; i++)
			v[i] = def;
		return 0;
	}
	if (l->n != n)
		return infer_fail_attr(c, name, "expected %d values, got %d", n, l->n);
	for (int i = 0; i < n; i++) {
		if (l->v[i] < lo)
			return infer_fail_attr(c, name, "value %lld is below %lld", (long long)l->v[i],
			                       (long long)lo);
		if (l->v[i] > OPS_MAX_ATTR)
			return infer_fail_attr(c, name, "value %lld is too large", (long long)l->v[i]);
		v[i] = l->v[i];
	}
	return 0;
}

int infer_unsupported(InferCtx *c, const char *fmt, ...)
{
	DiagLoc l = ir_node_loc(c->g, c->node);
	va_list ap;
	va_start(ap, fmt);
	diag_vreport(c->diags, DIAG_ERROR, DC_UNSUPPORTED, &l, fmt, ap);
	va_end(ap);
	return -1;
}

/* Multiply-accumulates by formula: every algorithm for these ops does at least this work. */
int64_t ops_node_macs(const Graph *g, NodeId id)
{
	const Node *n = &g->nodes[id];
	const Type *x = n->n_in > 0 && n->in[0] != IR_NONE ? &g->values[n->in[0]].type : NULL;
	/* the weights (B): input 3 of QLinearConv and QLinearMatMul, else input 1 */
	const int wi = n->op == OP_QLINEAR_CONV || n->op == OP_QLINEAR_MATMUL ? 3 : 1;
	const Type *w = n->n_in > wi && n->in[wi] != IR_NONE ? &g->values[n->in[wi]].type : NULL;
	const Type *y = n->n_out > 0 && n->out[0] != IR_NONE ? &g->values[n->out[0]].type : NULL;
	int64_t m = 1;
	if (w && g->values[n->in[wi]].packed)   /* weights a SIMD target re-laid: their ONNX shape */
		w = &g->values[g->values[n->in[wi]].packed_from].type;
	if (!x || !w || (!y && n->op != OP_LSTM && n->op != OP_GRU && n->op != OP_RNN))
		return 0;   /* (a recurrent node may omit its first output) */
	switch (n->op) {
	case OP_CONV:          /* every output element: Cin/group * kernel taps */
	case OP_QLINEAR_CONV:  /* (the integer ones count their 8-bit MACs alike) */
	case OP_CONV_INTEGER:
		m = type_numel(y);
		for (int i = 1; i < w->rank; i++)
			m *= w->dims[i];
		return m;
	case OP_CONV_TRANSPOSE: /* every input element scatters Cout/group * kernel taps */
		m = type_numel(x);
		for (int i = 1; i < w->rank; i++)
			m *= w->dims[i];
		return m;
	case OP_GEMM:           /* y (M,N) = A (M,K or K,M) x B: K = numel(A) / M */
		return y->rank == 2 && y->dims[0] ? type_numel(y) * (type_numel(x) / y->dims[0]) : 0;
	case OP_MATMUL:         /* every output element: a K-long dot product */
	case OP_QLINEAR_MATMUL:
	case OP_MATMUL_INTEGER:
		return type_numel(y) * (x->rank ? x->dims[x->rank - 1] : 1);
	case OP_LSTM:           /* every step of every sequence: X·Wᵀ and H·Rᵀ for all gates */
	case OP_GRU:            /* and directions, i.e. numel(W) + numel(R) MACs per step */
	case OP_RNN: {
		const Type *r = n->n_in > 2 && n->in[2] != IR_NONE ? &g->values[n->in[2]].type : NULL;
		int64_t input = x->rank ? x->dims[x->rank - 1] : 0;
		if (!r || input <= 0)
			return 0;
		return type_numel(x) / input * (type_numel(w) + type_numel(r));
	}
	default:
		return 0;
	}
}
