/* indexing_order.c — op groups that reorder or rank elements (reverse_sequence,
 * depth_space, arg, topk) and tfidf: typed attributes per opset, inference and
 * lowering to runtime-stubs/kernels/indexing.c (DepthToSpace/SpaceToDepth are a
 * rank-6 transpose, so they lower to shape.c's strided copy).
 *
 * TfIdfVectorizer's n-gram pool is an attribute of unbounded size, which a kernel
 * parameter struct cannot hold: import() compiles it into a constant int64 tensor
 * and appends it to the node as input 1, so it travels with the weights. */
#include "opimpl.h"

#include <stdio.h>
#include <string.h>

#include "indexing.h"
#include "shape.h"

static const DType idx_dtypes[] = { DT_I32, DT_I64, DT_UNDEF };

static Node *lnode(LowerCtx *c) { return &c->g->nodes[c->node]; }

static const Type *lin(LowerCtx *c, int slot)
{
	return &c->g->values[lnode(c)->in[slot]].type;
}

static int64_t prod(const int64_t *dims, int a, int b)
{
	int64_t p = 1;
	for (int k = a; k < b; k++)
		p *= dims[k];
	return p;
}

static void set_out(InferCtx *c, int slot, DType dt, int rank, const int64_t *dims)
{
	Type *t = infer_out(c, slot);
	if (t)
		*t = type_make(dt, rank, dims);
}

/* ---- ReverseSequence (opset 10) ---- */

typedef struct RevSeqAttrs {
	int64_t batch_axis;      /* 0 or 1, default 1 */
	int64_t time_axis;       /* the other one, default 0 */
} RevSeqAttrs;

static const AttrField revseq_fields[] = {
	{ "batch_axis", AK_INT, offsetof(RevSeqAttrs, batch_axis), NULL },
	{ "time_axis", AK_INT, offsetof(RevSeqAttrs, time_axis), NULL },
};

static int revseq_import(ImportCtx *c)
{
	RevSeqAttrs *a = c->attrs;
	if (import_int(c, "batch_axis", 1, &a->batch_axis) ||
	    import_int(c, "time_axis", 0, &a->time_axis))
		return -1;
	if ((a->batch_axis != 0 && a->batch_axis != 1) || (a->time_axis != 0 && a->time_axis != 1) ||
	    a->batch_axis == a->time_axis)
		return import_fail(c, "time_axis", "batch_axis and time_axis must be 0 and 1 in some "
		                   "order, got %lld and %lld", (long long)a->batch_axis,
		                   (long long)a->time_axis);
	return 0;
}

static int revseq_infer(InferCtx *c)
{
	const RevSeqAttrs *a = infer_node(c)->attrs;
	const Type *x = infer_in(c, 0), *sl = infer_in(c, 1);
	if (infer_check_dtype(c, 0, dtl_all) || infer_check_dtype(c, 1, idx_dtypes))
		return -1;
	if (x->rank < 2)
		return infer_fail(c, 0, "expected rank >= 2, got %d", x->rank);
	if (sl->rank != 1 || sl->dims[0] != x->dims[a->batch_axis])
		return infer_fail(c, 1, "expected shape [%lld] (the batch size)",
		                  (long long)x->dims[a->batch_axis]);
	set_out(c, 0, x->dtype, x->rank, x->dims);
	return 0;
}

#define PARAM_STRUCT ingot_reverse_sequence_params
static const ParamField revseq_pfields[] = { INGOT_REVERSE_SEQUENCE_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc revseq_desc = PARAM_DESC(ingot_reverse_sequence_params, revseq_pfields);

static int revseq_lower(LowerCtx *c)
{
	const RevSeqAttrs *a = lnode(c)->attrs;
	const Type *x = lin(c, 0);
	ingot_reverse_sequence_params *p = lower_params(c, &revseq_desc);
	p->esize = (int64_t)dtype_size(x->dtype);
	p->idx_size = (int64_t)dtype_size(lin(c, 1)->dtype);
	p->time_axis = a->time_axis;
	p->n_time = x->dims[a->time_axis];
	p->n_batch = x->dims[a->batch_axis];
	p->inner = prod(x->dims, 2, x->rank);
	LOWER_CALL(c, ingot_reverse_sequence, &revseq_desc, p);
	return 0;
}

const OpImpl op_impl_reverse_sequence = {
	sizeof(RevSeqAttrs), revseq_fields, COUNTOF(revseq_fields), revseq_import, revseq_infer,
	revseq_lower
};

/* ---- ArgMax / ArgMin (opset 1, 11 negative axis, 12 select_last_index, 13) ---- */

typedef struct ArgAttrs {
	int64_t axis;
	int64_t keepdims;            /* default 1 */
	int64_t select_last_index;   /* opset 12; default 0 */
} ArgAttrs;

static const AttrField arg_fields[] = {
	{ "axis", AK_INT, offsetof(ArgAttrs, axis), NULL },
	{ "keepdims", AK_INT, offsetof(ArgAttrs, keepdims), NULL },
	{ "select_last_index", AK_INT, offsetof(ArgAttrs, select_last_index), NULL },
};

static int arg_import(ImportCtx *c)
{
	ArgAttrs *a = c->attrs;
	if (import_int(c, "axis", 0, &a->axis) || import_int(c, "keepdims", 1, &a->keepdims) ||
	    import_int(c, "select_last_index", 0, &a->select_last_index))
		return -1;
	a->keepdims = a->keepdims != 0;
	a->select_last_index = a->select_last_index != 0;
	return 0;
}

static int arg_infer(InferCtx *c)
{
	const ArgAttrs *a = infer_node(c)->attrs;
	const Type *x = infer_in(c, 0);
	int64_t axis, dims[IR_MAX_RANK];
	int rank = 0;
	if (infer_check_dtype(c, 0, dtl_numeric))
		return -1;
	if (x->rank < 1)
		return infer_fail(c, 0, "expected a tensor of rank >= 1, got a scalar");
	if (infer_normalize_axis(c, a->axis, x->rank, &axis))
		return -1;
	if (x->dims[axis] == 0)
		return infer_fail(c, 0, "axis %lld is empty: no element to select", (long long)axis);
	for (int k = 0; k < x->rank; k++) {
		if (k != axis)
			dims[rank++] = x->dims[k];
		else if (a->keepdims)
			dims[rank++] = 1;
	}
	set_out(c, 0, DT_I64, rank, dims);
	return 0;
}

#define PARAM_STRUCT ingot_arg_params
static const ParamField arg_pfields[] = { INGOT_ARG_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc arg_desc = PARAM_DESC(ingot_arg_params, arg_pfields);

static int arg_lower(LowerCtx *c)
{
	const ArgAttrs *a = lnode(c)->attrs;
	const Type *x = lin(c, 0);
	int axis = (int)(a->axis < 0 ? a->axis + x->rank : a->axis);
	ingot_arg_params *p = lower_params(c, &arg_desc);
	p->dtype = x->dtype;
	p->outer = prod(x->dims, 0, axis);
	p->n = x->dims[axis];
	p->inner = prod(x->dims, axis + 1, x->rank);
	p->is_min = lnode(c)->op == OP_ARG_MIN;
	p->last = a->select_last_index;
	LOWER_CALL(c, ingot_arg, &arg_desc, p);
	return 0;
}

const OpImpl op_impl_arg = {
	sizeof(ArgAttrs), arg_fields, COUNTOF(arg_fields), arg_import, arg_infer, arg_lower
};

/* ---- TopK (opset 1 k attribute, 10 k input, 11 largest/sorted) ---- */

typedef struct TopKAttrs {
	int64_t axis;            /* default -1 */
	int64_t largest;         /* opset 11; default 1 */
	int64_t sorted;          /* opset 11; default 1 (unsorted output is sorted anyway) */
	int64_t k;               /* opset 1 attribute; from input 1 after, resolved by infer */
} TopKAttrs;

static const AttrField topk_fields[] = {
	{ "axis", AK_INT, offsetof(TopKAttrs, axis), NULL },
	{ "largest", AK_INT, offsetof(TopKAttrs, largest), NULL },
	{ "sorted", AK_INT, offsetof(TopKAttrs, sorted), NULL },
	{ "k", AK_INT, offsetof(TopKAttrs, k), NULL },
};

static int topk_import(ImportCtx *c)
{
	TopKAttrs *a = c->attrs;
	if (import_int(c, "axis", -1, &a->axis) || import_int(c, "largest", 1, &a->largest) ||
	    import_int(c, "sorted", 1, &a->sorted) || import_int(c, "k", -1, &a->k))
		return -1;
	a->largest = a->largest != 0;
	a->sorted = a->sorted != 0;
	return 0;
}

static int topk_infer(InferCtx *c)
{
	TopKAttrs *a = infer_node(c)->attrs;
	const Type *x = infer_in(c, 0);
	int64_t axis, dims[IR_MAX_RANK];
	if (infer_check_dtype(c, 0, dtl_numeric))
		return -1;
	if (x->rank < 1)
		return infer_fail(c, 0, "expected a tensor of rank >= 1, got a scalar");
	if (infer_normalize_axis(c, a->axis, x->rank, &axis))
		return -1;
	if (infer_has(c, 1)) {
		int64_t *k;
		int n;
		if (infer_in(c, 1)->rank > 1)
			return infer_fail(c, 1, "expected a 1-D k, got rank %d", infer_in(c, 1)->rank);
		if (infer_const_ints(c, 1, &k, &n))
			return -1;
		if (n != 1)
			return infer_fail(c, 1, "expected one value of k, got %d", n);
		a->k = k[0];
	} else if (a->k < 0 && infer_node(c)->opset < 10) {
		return infer_fail_attr(c, "k", "required attribute is missing");
	} else if (a->k < 0) {
		return infer_fail(c, 1, "required input k is missing");
	}
	if (a->k < 0 || a->k > x->dims[axis])
		return infer_fail(c, 1, "k = %lld is outside [0, %lld] (the axis length)",
		                  (long long)a->k, (long long)x->dims[axis]);
	memcpy(dims, x->dims, sizeof dims);
	dims[axis] = a->k;
	set_out(c, 0, x->dtype, x->rank, dims);
	set_out(c, 1, DT_I64, x->rank, dims);
	return 0;
}

#define PARAM_STRUCT ingot_topk_params
static const ParamField topk_pfields[] = { INGOT_TOPK_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc topk_desc = PARAM_DESC(ingot_topk_params, topk_pfields);

static int topk_lower(LowerCtx *c)
{
	const TopKAttrs *a = lnode(c)->attrs;
	const Type *x = lin(c, 0);
	int axis = (int)(a->axis < 0 ? a->axis + x->rank : a->axis);
	ingot_topk_params *p = lower_params(c, &topk_desc);
	p->dtype = x->dtype;
	p->outer = prod(x->dims, 0, axis);
	p->n = x->dims[axis];
	p->inner = prod(x->dims, axis + 1, x->rank);
	p->k = a->k;
	p->largest = a->largest;
	LOWER_CALL(c, ingot_topk, &topk_desc, p);
	return 0;
}

const OpImpl op_impl_topk = {
	sizeof(TopKAttrs), topk_fields, COUNTOF(topk_fields), topk_import, topk_infer, topk_lower
};

/* ---- DepthToSpace (opset 1, 11 mode, 13) / SpaceToDepth (1, 13) ---- */

enum { D2S_DCR = 0, D2S_CRD = 1 };
static const char *const d2s_modes[] = { "DCR", "CRD", NULL };

typedef struct DepthSpaceAttrs {
	int64_t blocksize;
	int mode;                /* DepthToSpace: D2S_DCR (default) or D2S_CRD */
} DepthSpaceAttrs;

static const AttrField depth_space_fields[] = {
	{ "blocksize", AK_INT, offsetof(DepthSpaceAttrs, blocksize), NULL },
	{ "mode", AK_ENUM, offsetof(DepthSpaceAttrs, mode), d2s_modes },
};

static int depth_space_import(ImportCtx *c)
{
	DepthSpaceAttrs *a = c->attrs;
	if (!import_find(c, "blocksize"))
		return import_fail(c, "blocksize", "required attribute is missing");
	if (import_int(c, "blocksize", 0, &a->blocksize) ||
	    import_enum(c, "mode", d2s_modes, D2S_DCR, &a->mode))
		return -1;
	if (a->blocksize < 1 || a->blocksize > (1 << 20))
		return import_fail(c, "blocksize", "expected a positive block size, got %lld",
		                   (long long)a->blocksize);
	return 0;
}

static int depth_space_infer(InferCtx *c)
{
	const DepthSpaceAttrs *a = infer_node(c)->attrs;
	const Type *x = infer_in(c, 0);
	int64_t b = a->blocksize, dims[4];
	if (infer_check_dtype(c, 0, dtl_all))
		return -1;
	if (x->rank != 4)
		return infer_fail(c, 0, "expected rank 4 (NCHW), got %d", x->rank);
	memcpy(dims, x->dims, sizeof dims);
	if (infer_node(c)->op == OP_DEPTH_TO_SPACE) {
		if (x->dims[1] % (b * b))
			return infer_fail(c, 0, "channels %lld are not a multiple of blocksize^2 = %lld",
			                  (long long)x->dims[1], (long long)(b * b));
		dims[1] /= b * b;
		dims[2] *= b;
		dims[3] *= b;
	} else {
		if (x->dims[2] % b || x->dims[3] % b)
			return infer_fail(c, 0, "height %lld and width %lld must be multiples of blocksize %lld",
			                  (long long)x->dims[2], (long long)x->dims[3], (long long)b);
		dims[1] *= b * b;
		dims[2] /= b;
		dims[3] /= b;
	}
	set_out(c, 0, x->dtype, 4, dims);
	return 0;
}

#define PARAM_STRUCT ingot_strided_params
static const ParamField strided_pfields[] = { INGOT_STRIDED_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc strided_desc = PARAM_DESC(ingot_strided_params, strided_pfields);

/* Both ops are a transpose of a rank-6 view: the output, split as below, reads the
 * input at the given element strides. */
static int depth_space_lower(LowerCtx *c)
{
	const DepthSpaceAttrs *a = lnode(c)->attrs;
	const Type *x = lin(c, 0);
	int64_t b = a->blocksize, N = x->dims[0], C = x->dims[1], H = x->dims[2], W = x->dims[3];
	ingot_strided_params *p = lower_params(c, &strided_desc);
	p->esize = (int64_t)dtype_size(x->dtype);
	p->rank = 6;
	if (lnode(c)->op == OP_DEPTH_TO_SPACE) {
		int64_t Co = C / (b * b), hw = H * W;
		/* output viewed as [N, Co, H, b(bh), W, b(bw)] */
		int64_t d[6] = { N, Co, H, b, W, b };
		int64_t s_dcr[6] = { C * hw, hw, W, b * Co * hw, 1, Co * hw };
		int64_t s_crd[6] = { C * hw, b * b * hw, W, b * hw, 1, hw };
		memcpy(p->dims, d, sizeof d);
		memcpy(p->strides, a->mode == D2S_CRD ? s_crd : s_dcr, sizeof s_dcr);
	} else {
		/* output channel (bh * b + bw) * C + c, viewed as [N, b(bh), b(bw), C, H/b, W/b] */
		int64_t d[6] = { N, b, b, C, H / b, W / b };
		int64_t s[6] = { C * H * W, W, 1, H * W, b * W, b };
		memcpy(p->dims, d, sizeof d);
		memcpy(p->strides, s, sizeof s);
	}
	LOWER_CALL(c, ingot_strided_copy, &strided_desc, p);
	c->kc.split = true;   /* tasks own disjoint outputs */
	return 0;
}

const OpImpl op_impl_depth_space = {
	sizeof(DepthSpaceAttrs), depth_space_fields, COUNTOF(depth_space_fields),
	depth_space_import, depth_space_infer, depth_space_lower
};

/* ---- TfIdfVectorizer (opset 9) ---- */

static const char *const tfidf_modes[] = { "TF", "IDF", "TFIDF", NULL };

typedef struct TfIdfAttrs {
	int64_t min_gram_length, max_gram_length, max_skip_count;
	int mode;                /* INGOT_TFIDF_* */
	IntList ngram_counts, ngram_indexes, pool_int64s;
	FloatList weights;
	int64_t out_size;        /* max(ngram_indexes) + 1 */
} TfIdfAttrs;

static const AttrField tfidf_fields[] = {
	{ "min_gram_length", AK_INT, offsetof(TfIdfAttrs, min_gram_length), NULL },
	{ "max_gram_length", AK_INT, offsetof(TfIdfAttrs, max_gram_length), NULL },
	{ "max_skip_count", AK_INT, offsetof(TfIdfAttrs, max_skip_count), NULL },
	{ "mode", AK_ENUM, offsetof(TfIdfAttrs, mode), tfidf_modes },
	{ "ngram_counts", AK_INTS, offsetof(TfIdfAttrs, ngram_counts), NULL },
	{ "ngram_indexes", AK_INTS, offsetof(TfIdfAttrs, ngram_indexes), NULL },
	{ "pool_int64s", AK_INTS, offsetof(TfIdfAttrs, pool_int64s), NULL },
	{ "weights", AK_FLOATS, offsetof(TfIdfAttrs, weights), NULL },
	{ "out_size", AK_INT, offsetof(TfIdfAttrs, out_size), NULL },
};

/* Checks the attributes (imported or parsed back from IR text) and builds the
 * kernel's pool table (indexing.h): out_size weights, then the n-grams whose length
 * is in [min, max] as {length, output column, items...}. With tab NULL only
 * validates. On error writes the attribute's name and a message; returns -1. */
static int tfidf_table(TfIdfAttrs *a, Arena *arena, int64_t **tab, int64_t *n_tab,
                       const char **bad, char *msg, size_t cap)
{
	int64_t total = a->pool_int64s.n, id = 0, n;
	int nc = a->ngram_counts.n;
#define BAD(attr, ...) do { *bad = attr; snprintf(msg, cap, __VA_ARGS__); return -1; } while (0)
	if (a->min_gram_length < 1 || a->max_gram_length < a->min_gram_length)
		BAD("max_gram_length", "expected 1 <= min_gram_length <= max_gram_length, got %lld "
		    "and %lld", (long long)a->min_gram_length, (long long)a->max_gram_length);
	if (a->max_skip_count < 0 || a->max_skip_count > (1 << 20))
		BAD("max_skip_count", "expected a count in [0, 2^20], got %lld",
		    (long long)a->max_skip_count);
	if (nc <= 0 || a->ngram_indexes.n <= 0 || total <= 0)
		BAD(nc <= 0 ? "ngram_counts" : a->ngram_indexes.n <= 0 ? "ngram_indexes" : "pool_int64s",
		    "required attribute is missing or empty");
	if (a->mode < INGOT_TFIDF_TF || a->mode > INGOT_TFIDF_TFIDF)
		BAD("mode", "unsupported value %d", a->mode);
	a->out_size = 0;
	for (int i = 0; i < a->ngram_indexes.n; i++) {
		if (a->ngram_indexes.v[i] < 0 || a->ngram_indexes.v[i] >= (1 << 24))
			BAD("ngram_indexes", "entry %d is %lld, outside [0, 2^24)", i,
			    (long long)a->ngram_indexes.v[i]);
		if (a->ngram_indexes.v[i] + 1 > a->out_size)
			a->out_size = a->ngram_indexes.v[i] + 1;
	}
	if (a->weights.n >= 0 && a->weights.n != a->ngram_indexes.n)
		BAD("weights", "expected %d weights (one per ngram_indexes entry), got %d",
		    a->ngram_indexes.n, a->weights.n);
	if (a->weights.n > 0 && a->out_size > a->weights.n)
		BAD("weights", "%d weights do not cover the %lld output columns", a->weights.n,
		    (long long)a->out_size);
	n = a->out_size;
	for (int i = 0; i < nc; i++) {
		int64_t size = i + 1, start = a->ngram_counts.v[i];
		int64_t end = i + 1 < nc ? a->ngram_counts.v[i + 1] : total;
		if (start < 0 || end < start || end > total || (end - start) % size)
			BAD("ngram_counts", "entry %d does not delimit whole %lld-grams of the %lld-item "
			    "pool", i, (long long)size, (long long)total);
		if (id + (end - start) / size > a->ngram_indexes.n)
			BAD("ngram_indexes", "has %d entries, fewer than the n-grams in the pool",
			    a->ngram_indexes.n);
		id += (end - start) / size;
		if (size >= a->min_gram_length && size <= a->max_gram_length)
			n += (end - start) / size * (2 + size);
	}
#undef BAD
	if (!tab)
		return 0;
	*tab = arena_array(arena, (size_t)(n ? n : 1), sizeof **tab);
	*n_tab = n;
	for (int64_t k = 0; k < a->out_size; k++) {
		float w = a->weights.n > 0 ? a->weights.v[k] : 1.0f;
		uint32_t bits;
		memcpy(&bits, &w, 4);
		(*tab)[k] = bits;
	}
	n = a->out_size;
	id = 0;
	for (int i = 0; i < nc; i++) {
		int64_t size = i + 1, start = a->ngram_counts.v[i];
		int64_t end = i + 1 < nc ? a->ngram_counts.v[i + 1] : total;
		for (int64_t s = start; s < end; s += size, id++) {
			if (size < a->min_gram_length || size > a->max_gram_length)
				continue;
			(*tab)[n++] = size;
			(*tab)[n++] = a->ngram_indexes.v[id];
			for (int64_t j = 0; j < size; j++)
				(*tab)[n++] = a->pool_int64s.v[s + j];
		}
	}
	return 0;
}

static int tfidf_import(ImportCtx *c)
{
	TfIdfAttrs *a = c->attrs;
	Graph *g = c->g;
	int64_t *tab = NULL, n_tab = 0;
	const char *bad = NULL;
	char msg[160];
	if (import_find(c, "pool_strings")) {
		DiagLoc l = ir_node_loc(g, c->node);
		l.slot_kind = "attribute";
		l.tensor = "pool_strings";
		diag_report(c->diags, DIAG_ERROR, DC_UNSUPPORTED, &l,
		            "string n-grams are not supported (ingot has no string tensors); "
		            "only integer inputs with pool_int64s are");
		return -1;
	}
	if (import_int(c, "min_gram_length", 1, &a->min_gram_length) ||
	    import_int(c, "max_gram_length", 1, &a->max_gram_length) ||
	    import_int(c, "max_skip_count", 0, &a->max_skip_count) ||
	    import_enum(c, "mode", tfidf_modes, INGOT_TFIDF_TF, &a->mode) ||
	    import_ints(c, "ngram_counts", &a->ngram_counts) ||
	    import_ints(c, "ngram_indexes", &a->ngram_indexes) ||
	    import_ints(c, "pool_int64s", &a->pool_int64s) || import_floats(c, "weights", &a->weights))
		return -1;
	if (a->ngram_counts.n > 0 && a->max_gram_length > a->ngram_counts.n)
		a->max_gram_length = a->ngram_counts.n;    /* the pool has no longer n-grams */
	if (tfidf_table(a, &g->arena, &tab, &n_tab, &bad, msg, sizeof msg))
		return import_fail(c, bad, "%s", msg);
	Node *n = ir_node(g, c->node);
	if (n->n_in != 1)
		return import_fail(c, "pool_int64s", "expected one input, got %d", n->n_in);
	Type t = type_make(DT_I64, 1, &n_tab);
	const char *name = arena_printf(&g->arena, "%s.tfidf_pool%d", ir_node_name(g, c->node), c->node);
	ValueId pool = ir_value_new_const(g, n->region, name, &t, tab);
	n = ir_node(g, c->node);
	ValueId *in = arena_array(&g->arena, 2, sizeof *in);
	in[0] = n->in[0];
	in[1] = pool;
	n->in = in;
	n->n_in = 2;
	return 0;
}

static int tfidf_infer(InferCtx *c)
{
	TfIdfAttrs *a = infer_node(c)->attrs;
	const Type *x = infer_in(c, 0), *tp = infer_in(c, 1);
	int64_t dims[2], *tab = NULL, n_tab = 0;
	const char *bad = NULL;
	char msg[160];
	if (x->dtype == DT_STRING)
		return infer_fail(c, 0, "string inputs are not supported (only int32 and int64)");
	if (infer_check_dtype(c, 0, idx_dtypes))
		return -1;
	/* input 1 is the pool import() compiled; IR text carries it too: check it matches */
	if (tfidf_table(a, &c->g->arena, &tab, &n_tab, &bad, msg, sizeof msg))
		return infer_fail_attr(c, bad, "%s", msg);
	if (!tp || tp->dtype != DT_I64 || tp->rank != 1 || tp->dims[0] != n_tab || !infer_const(c, 1) ||
	    memcmp(infer_const(c, 1), tab, (size_t)n_tab * sizeof *tab) != 0)
		return infer_fail(c, 1, "expected the n-gram pool compiled from the attributes");
	if (x->rank > 2)
		return infer_fail(c, 0, "expected shape [C] or [N, C], got rank %d", x->rank);
	if (x->rank == 2 && x->dims[0] < 1)
		return infer_fail(c, 0, "expected a batch of at least one row, got %lld",
		                  (long long)x->dims[0]);
	if (x->rank == 2) {
		dims[0] = x->dims[0];
		dims[1] = a->out_size;
	} else {
		dims[0] = a->out_size;
	}
	set_out(c, 0, DT_F32, x->rank == 2 ? 2 : 1, dims);
	return 0;
}

#define PARAM_STRUCT ingot_tfidf_params
static const ParamField tfidf_pfields[] = { INGOT_TFIDF_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc tfidf_desc = PARAM_DESC(ingot_tfidf_params, tfidf_pfields);

static int tfidf_lower(LowerCtx *c)
{
	const TfIdfAttrs *a = lnode(c)->attrs;
	const Type *x = lin(c, 0);
	ingot_tfidf_params *p = lower_params(c, &tfidf_desc);
	p->idx_size = (int64_t)dtype_size(x->dtype);
	p->n_rows = x->rank == 2 ? x->dims[0] : 1;
	p->n_cols = x->rank == 2 ? x->dims[1] : x->rank == 1 ? x->dims[0] : 1;
	p->out_size = a->out_size;
	p->min_n = a->min_gram_length;
	p->max_n = a->max_gram_length;
	p->max_skip = a->max_skip_count;
	p->mode = a->mode;
	p->n_table = lin(c, 1)->dims[0];
	LOWER_CALL(c, ingot_tfidf, &tfidf_desc, p);
	return 0;
}

const OpImpl op_impl_tfidf = {
	sizeof(TfIdfAttrs), tfidf_fields, COUNTOF(tfidf_fields), tfidf_import, tfidf_infer,
	tfidf_lower
};
