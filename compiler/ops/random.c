/* random.c — op group random (RandomUniform, RandomNormal, RandomUniformLike,
 * RandomNormalLike, Bernoulli, Multinomial) and the lowering of training-mode
 * Dropout: import, inference and lowering to runtime-stubs/kernels/random.c.
 *
 * Random nodes are never folded or merged (ops_node_random): two identical
 * RandomNormal nodes without a seed draw different numbers. A node with a `seed`
 * gives the same output on every run; one without reads the generator state kept
 * in the workspace (random.h), which codegen passes as the extra input
 * in[n_in] (KernelCall.rng) and NAME_run advances once per run. The node's index
 * separates the streams of unseeded nodes within one run. */
#include "opimpl.h"

#include <string.h>

#include "random.h"

typedef struct RandomAttrs {
	int dtype;                  /* output DType; 0 ("input"): the input's (or the op's default) */
	float low, high;            /* RandomUniform(Like): [low, high), default [0, 1) */
	float mean, scale;          /* RandomNormal(Like): default 0 and 1 */
	FloatList seed;             /* n = -1: no seed, draw from the workspace state */
	IntList shape;              /* RandomUniform / RandomNormal output shape */
	int64_t sample_size;        /* Multinomial: samples per row, default 1 */
} RandomAttrs;

/* Indexed by the ONNX dtype number; 0 means "as the input". ORDER DTYPE */
static const char *const random_dtype_names[] = {
	"input", "f32", "u8", "i8", "u16", "i16", "i32", "i64", "str", "bool", "f16", "f64",
	"u32", "u64", "c64", "c128", "bf16", NULL
};

static const AttrField random_fields[] = {
	{ "dtype", AK_ENUM, offsetof(RandomAttrs, dtype), random_dtype_names },
	{ "low", AK_FLOAT, offsetof(RandomAttrs, low), NULL },
	{ "high", AK_FLOAT, offsetof(RandomAttrs, high), NULL },
	{ "mean", AK_FLOAT, offsetof(RandomAttrs, mean), NULL },
	{ "scale", AK_FLOAT, offsetof(RandomAttrs, scale), NULL },
	{ "seed", AK_FLOATS, offsetof(RandomAttrs, seed), NULL },
	{ "shape", AK_INTS, offsetof(RandomAttrs, shape), NULL },
	{ "sample_size", AK_INT, offsetof(RandomAttrs, sample_size), NULL },
};

/* Reads the optional float `seed` attribute into a 1-element list (n = -1: absent). */
int random_import_seed(ImportCtx *c, FloatList *seed)
{
	float v;
	seed->n = -1;
	if (!import_find(c, "seed"))
		return 0;
	if (import_float(c, "seed", 0.0f, &v))
		return -1;
	seed->v = arena_alloc(&c->g->arena, sizeof *seed->v);
	seed->v[0] = v;
	seed->n = 1;
	return 0;
}

static int random_import(ImportCtx *c)
{
	RandomAttrs *a = c->attrs;
	Op op = c->g->nodes[c->node].op;
	int64_t dt;
	int64_t def = op == OP_MULTINOMIAL ? DT_I32 : (op == OP_RANDOM_NORMAL || op == OP_RANDOM_UNIFORM)
	              ? DT_F32 : 0;
	if (import_int(c, "dtype", def, &dt) || import_float(c, "low", 0.0f, &a->low) ||
	    import_float(c, "high", 1.0f, &a->high) || import_float(c, "mean", 0.0f, &a->mean) ||
	    import_float(c, "scale", 1.0f, &a->scale) || random_import_seed(c, &a->seed) ||
	    import_ints(c, "shape", &a->shape) || import_int(c, "sample_size", 1, &a->sample_size))
		return -1;
	if (!dtype_is_valid((int)dt) && dt != 0)
		return import_fail(c, "dtype", "unknown element type %lld", (long long)dt);
	a->dtype = (int)dt;
	return 0;
}

static bool is_float(DType t)
{
	return t == DT_F32 || t == DT_F64 || t == DT_F16 || t == DT_BF16;
}

static int random_infer(InferCtx *c)
{
	const Node *n = infer_node(c);
	const RandomAttrs *a = n->attrs;
	const Type *x = n->n_in > 0 ? infer_in(c, 0) : NULL;
	DType dt = a->dtype ? (DType)a->dtype : x ? x->dtype : DT_F32;
	Type *y = infer_out(c, 0);
	switch (n->op) {
	case OP_RANDOM_NORMAL:
	case OP_RANDOM_UNIFORM:
		if (a->shape.n < 0)
			return infer_fail_attr(c, "shape", "the shape attribute is required");
		if (a->shape.n > IR_MAX_RANK)
			return infer_unsupported(c, "output rank %d exceeds %d", a->shape.n, IR_MAX_RANK);
		for (int i = 0; i < a->shape.n; i++)
			if (a->shape.v[i] < 0 || a->shape.v[i] > OPS_MAX_ATTR)
				return infer_fail_attr(c, "shape", "dim %d is %lld, expected 0..%lld", i,
				                       (long long)a->shape.v[i], (long long)OPS_MAX_ATTR);
		*y = type_make(dt, a->shape.n, a->shape.v);
		break;
	case OP_RANDOM_NORMAL_LIKE:
	case OP_RANDOM_UNIFORM_LIKE:
		if (infer_check_dtype(c, 0, dtl_all))
			return -1;
		*y = type_make(dt, x->rank, x->dims);
		break;
	case OP_BERNOULLI:
		if (infer_check_dtype(c, 0, dtl_float))
			return -1;
		if (dt == DT_STRING || !dtype_is_valid((int)dt) || dt == DT_C64 || dt == DT_C128)
			return infer_unsupported(c, "Bernoulli to %s is not supported", dtype_name(dt));
		*y = type_make(dt, x->rank, x->dims);
		return infer_check_size(c, 0);
	default:                                 /* Multinomial */
		if (infer_check_dtype(c, 0, dtl_float))
			return -1;
		if (x->rank != 2)
			return infer_fail(c, 0, "expected [batch_size, class_size], got rank %d", x->rank);
		if (x->dims[1] < 1)
			return infer_fail(c, 0, "expected at least one class");
		if (dt != DT_I32 && dt != DT_I64)
			return infer_fail_attr(c, "dtype", "expected int32 or int64, got %s", dtype_name(dt));
		if (a->sample_size < 1 || a->sample_size > OPS_MAX_ATTR)
			return infer_fail_attr(c, "sample_size", "expected 1..%lld, got %lld",
			                       (long long)OPS_MAX_ATTR, (long long)a->sample_size);
		int64_t dims[2] = { x->dims[0], a->sample_size };
		*y = type_make(dt, 2, dims);
		return 0;
	}
	if (!is_float(dt))
		return infer_fail_attr(c, "dtype", "expected a float type, got %s", dtype_name(dt));
	if (n->op == OP_RANDOM_UNIFORM || n->op == OP_RANDOM_UNIFORM_LIKE) {
		if (!(a->low <= a->high))
			return infer_fail_attr(c, "high", "high %g is below low %g", (double)a->high,
			                       (double)a->low);
	}
	return 0;
}

/* The generator fields of a kernel's parameters: a seeded node's key, or the
 * workspace state (in[n_in], KernelCall.rng) with this node's stream. */
static void random_stream(LowerCtx *c, const FloatList *seed, int64_t *seeded, int64_t *seed_bits,
                          int64_t *stream, int64_t *rng_slot)
{
	const Node *n = &c->g->nodes[c->node];
	*rng_slot = n->n_in;
	*stream = (int64_t)c->node + 1;
	*seeded = seed->n > 0;
	*seed_bits = 0;
	if (*seeded) {
		uint32_t bits;
		memcpy(&bits, &seed->v[0], sizeof bits);
		*seed_bits = bits;
	}
	c->kc.rng = !*seeded;
}

#define PARAM_STRUCT ingot_random_params
static const ParamField random_pfields[] = { INGOT_RANDOM_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc random_desc = PARAM_DESC(ingot_random_params, random_pfields);

static int random_lower(LowerCtx *c)
{
	const Node *n = &c->g->nodes[c->node];
	const RandomAttrs *a = n->attrs;
	const Type *y = lower_out(c, 0), *x = n->n_in > 0 ? lower_in(c, 0) : NULL;
	if (!y)
		return -1;
	ingot_random_params *p = lower_params(c, &random_desc);
	p->dtype = y->dtype;
	p->in_dtype = x ? x->dtype : DT_UNDEF;
	p->n = type_numel(y);
	switch (n->op) {
	case OP_RANDOM_UNIFORM:
	case OP_RANDOM_UNIFORM_LIKE:
		p->kind = INGOT_RAND_UNIFORM;
		p->a = (double)a->low;
		p->b = (double)a->high;
		break;
	case OP_RANDOM_NORMAL:
	case OP_RANDOM_NORMAL_LIKE:
		p->kind = INGOT_RAND_NORMAL;
		p->a = (double)a->mean;
		p->b = (double)a->scale;
		break;
	case OP_BERNOULLI:
		p->kind = INGOT_RAND_BERNOULLI;
		break;
	default:
		if (!x)
			return -1;
		p->kind = INGOT_RAND_MULTINOMIAL;
		p->rows = x->dims[0];
		p->classes = x->dims[1];
		p->samples = y->dims[1];
		c->kc.scratch_bytes = p->classes * (int64_t)sizeof(double);
		break;
	}
	random_stream(c, &a->seed, &p->seeded, &p->seed_bits, &p->stream, &p->rng_slot);
	LOWER_CALL(c, ingot_random, &random_desc, p);
	c->kc.split = true;   /* tasks own disjoint outputs; values do not depend on the split */
	return 0;
}

const OpImpl op_impl_random = { sizeof(RandomAttrs), random_fields, COUNTOF(random_fields),
                                random_import, random_infer, random_lower };

#define PARAM_STRUCT ingot_dropout_params
static const ParamField dropout_pfields[] = { INGOT_DROPOUT_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc dropout_desc = PARAM_DESC(ingot_dropout_params, dropout_pfields);

int random_dropout_lower(LowerCtx *c, double ratio, bool training, const FloatList *seed)
{
	const Type *x = lower_in(c, 0), *r = lower_in(c, 1), *mask = lower_out(c, 1);
	if (!x)
		return -1;
	ingot_dropout_params *p = lower_params(c, &dropout_desc);
	p->dtype = x->dtype;
	p->mask_dtype = mask ? mask->dtype : DT_BOOL;
	p->ratio_dtype = r ? r->dtype : DT_F32;
	p->n = type_numel(x);
	p->n_in = c->g->nodes[c->node].n_in;
	p->has_mask = mask != NULL;
	p->training = training;
	p->ratio = ratio;
	random_stream(c, seed, &p->seeded, &p->seed_bits, &p->stream, &p->rng_slot);
	LOWER_CALL(c, ingot_dropout, &dropout_desc, p);
	c->kc.split = true;
	return 0;
}

bool ops_node_random(const Graph *g, NodeId id)
{
	const Op op = g->nodes[id].op;
	return op_has(op, OPF_RANDOM) ||
	       (op_has(op, OPF_RANDOM_TRAINING) && ops_dropout_training(g, id));
}
