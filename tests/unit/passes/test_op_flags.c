/* test_op_flags.c — the flags column of the op table (compiler/ir/ops.h) that the
 * passes ask instead of keeping their own op lists: each OPF_* flag is set on exactly
 * the ops listed here (the lists the passes used to carry), op_has tests any of
 * several flags, and the epilogue conventions fuse_epilogue relies on hold: every
 * OPF_LINEAR op has the epilogue attributes, and every OPF_ACTIVATION op is named
 * (in snake case) among their activations. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "opimpl.h"
#include "passes.h"

#include "../harness.h"

#define UNARY "Abs Ceil Elu Erf Exp Floor HardSigmoid HardSwish LeakyRelu Log Neg " \
	"Reciprocal Relu Selu Sigmoid Softplus Softsign Sqrt Swish Tanh"
#define BINARY "Add And Div Equal Greater GreaterOrEqual Less LessOrEqual Mul Or Pow Sub Xor"

typedef struct FlagOps {
	unsigned flag;
	const char *name;
	const char *ops;             /* ONNX names, space separated */
} FlagOps;

static const FlagOps expected[] = {
	{ OPF_VIEW, "OPF_VIEW", "Reshape Flatten Squeeze Unsqueeze Identity" },
	{ OPF_RESHAPE, "OPF_RESHAPE", "Reshape Flatten Squeeze Unsqueeze" },
	{ OPF_PERMUTE, "OPF_PERMUTE", "Transpose" },
	{ OPF_NOOP_SAME_TYPE, "OPF_NOOP_SAME_TYPE", "Identity Cast Reshape Flatten Squeeze Unsqueeze" },
	{ OPF_INPLACE, "OPF_INPLACE", UNARY " Not " BINARY " Clip FusedElementwise QLinearLookup" },
	{ OPF_FUSE_STEP, "OPF_FUSE_STEP", UNARY " Add Sub Mul Div Pow Clip" },
	{ OPF_LINEAR, "OPF_LINEAR", "Conv ConvTranspose Gemm MatMul" },
	{ OPF_ACTIVATION, "OPF_ACTIVATION",
	  "Relu Sigmoid Tanh HardSwish LeakyRelu HardSigmoid Swish Clip Gelu" },
	{ OPF_COMMUTATIVE, "OPF_COMMUTATIVE",
	  "Add Mul And Or Xor Equal BitwiseAnd BitwiseOr BitwiseXor" },
	{ OPF_RANDOM, "OPF_RANDOM", "Bernoulli Multinomial RandomNormal RandomNormalLike "
	  "RandomUniform RandomUniformLike" },
	{ OPF_RANDOM_TRAINING, "OPF_RANDOM_TRAINING", "Dropout" },
	{ OPF_DEVICE, "OPF_DEVICE", UNARY " Add Sub Mul Div Conv Gemm MatMul AveragePool MaxPool "
	  "GlobalAveragePool GlobalMaxPool Softmax LogSoftmax Reshape Flatten Squeeze Unsqueeze "
	  "FusedElementwise LayerNormalization ReduceL1 ReduceL2 ReduceLogSum ReduceLogSumExp "
	  "ReduceMax ReduceMean ReduceMin ReduceProd ReduceSum ReduceSumSquare Concat Gather Pad "
	  "Slice Transpose Resize Upsample" },
	{ OPF_ML, "OPF_ML", "ArrayFeatureExtractor Binarizer Imputer LabelEncoder LinearRegressor Normalizer Scaler TreeEnsemble "
	  "TreeEnsembleClassifier TreeEnsembleRegressor" },
};

/* Whether the space-separated list holds the word w. */
static bool listed(const char *list, const char *w)
{
	size_t n = strlen(w);
	for (const char *p = list; (p = strstr(p, w)) != NULL; p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0))
			return true;
	return false;
}

static void check_flag(const FlagOps *f)
{
	int n_listed = 0, n_set = 0;
	for (const char *p = f->ops; *p;) {
		char w[64];
		size_t k = 0;
		while (*p == ' ')
			p++;
		while (*p && *p != ' ' && k + 1 < sizeof w)
			w[k++] = *p++;
		w[k] = 0;
		if (!k)
			break;
		n_listed++;
		CHECK(ir_op_lookup(w) != OP_COUNT, "%s lists unknown op %s", f->name, w);
	}
	for (int op = 0; op < OP_COUNT; op++) {
		bool want = listed(f->ops, ir_op_name((Op)op));
		bool got = op_has((Op)op, f->flag);
		n_set += got;
		CHECK(want == got, "%s on %s: table says %d, expected %d", f->name,
		      ir_op_name((Op)op), got, want);
	}
	CHECK(n_set == n_listed, "%s: %d ops carry it, %d expected", f->name, n_set, n_listed);
}

/* LeakyRelu -> leaky_relu, as fuse_epilogue names an epilogue activation. */
static void snake(const char *s, char *buf, size_t cap)
{
	size_t k = 0;
	for (size_t i = 0; s[i] && k + 2 < cap; i++) {
		if (i && isupper((unsigned char)s[i]))
			buf[k++] = '_';
		buf[k++] = (char)tolower((unsigned char)s[i]);
	}
	buf[k] = 0;
}

/* The attribute field `name` of kind `kind` in op's AttrField table, or NULL. */
static const AttrField *field(Op op, const char *name, AttrKind kind)
{
	const OpImpl *impl = op_info(op)->impl;
	for (int i = 0; i < impl->n_fields; i++)
		if (strcmp(impl->fields[i].name, name) == 0 && impl->fields[i].kind == kind)
			return &impl->fields[i];
	return NULL;
}

/* The index of name among an enum field's names, or -1. */
static int enum_index(const AttrField *f, const char *name)
{
	for (int i = 0; f->enums && f->enums[i]; i++)
		if (strcmp(f->enums[i], name) == 0)
			return i;
	return -1;
}

static void check_epilogue(void)
{
	for (int lin = 0; lin < OP_COUNT; lin++) {
		if (!op_has((Op)lin, OPF_LINEAR))
			continue;
		const AttrField *act = field((Op)lin, "activation", AK_ENUM);
		CHECK(act != NULL, "%s: no activation attribute", ir_op_name((Op)lin));
		CHECK(field((Op)lin, "act_params", AK_FLOATS) != NULL &&
		      field((Op)lin, "residual", AK_INT) != NULL,
		      "%s: no act_params or residual attribute", ir_op_name((Op)lin));
		CHECK(op_info((Op)lin)->max_in >= 3, "%s: no residual slot", ir_op_name((Op)lin));
		if (!act)
			continue;
		for (int op = 0; op < OP_COUNT; op++) {
			char name[32];
			if (!op_has((Op)op, OPF_ACTIVATION))
				continue;
			snake(ir_op_name((Op)op), name, sizeof name);
			CHECK(enum_index(act, name) > 0, "%s has no epilogue activation '%s'",
			      ir_op_name((Op)lin), name);
		}
	}
}

int main(void)
{
	unsigned all = 0;
	for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
		check_flag(&expected[i]);
		all |= expected[i].flag;
	}
	for (int op = 0; op < OP_COUNT; op++)
		CHECK((op_info((Op)op)->flags & ~all) == 0, "%s carries an untested flag",
		      ir_op_name((Op)op));
	CHECK(op_has(OP_DROPOUT, OPF_RANDOM | OPF_RANDOM_TRAINING), "op_has tests any flag");
	CHECK(!op_has(OP_CONV, OPF_RANDOM | OPF_RANDOM_TRAINING), "op_has on none of the flags");
	check_epilogue();
	return harness_done("op_flags");
}
