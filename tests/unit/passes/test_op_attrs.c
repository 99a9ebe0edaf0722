/* test_op_attrs.c — the typed attributes the ops layer exports to passes
 * (compiler/ops/op_attrs.h). A text-IR graph with one node per exported struct is
 * parsed (the parser fills attributes through each op's AttrField table); each
 * accessor must then show the parsed values in its struct's fields (struct and
 * table agree), return NULL for a node of any other group, and a field a pass
 * writes must print under its IR name. */
#include <stdlib.h>
#include <string.h>

#include "op_attrs.h"
#include "opimpl.h"
#include "ewmath.h"

#include "../harness.h"

static const char ir_text[] =
	"// ingot IR, opset 20\n"
	"input %x : f32[1,2,3,3]\n"
	"input %v : f32[3,2]\n"
	"input %t : f32[2,4]\n"
	"const %w : f32[2,2,1,1] = [1, 2, 3, 4]\n"
	"const %gw : f32[2,2] = [1, -1, 2, 0.5]\n"
	"const %one : f32[2] = [1, 1]\n"
	"const %zero : f32[2] = [0, 0]\n"
	"const %ls : f32[4] = [1, 1, 1, 1]\n"
	"const %shp : i64[2] = [4, 2]\n"
	"%conv = Conv(%x, %w) {group=1, strides=[1,1], activation=\"relu\"} : f32[1,2,3,3]\n"
	"%convt = ConvTranspose(%x, %w) {group=1, output_padding=[0,0]} : f32[1,2,3,3]\n"
	"%gemm = Gemm(%v, %gw) {alpha=1, beta=0.5, transA=0, transB=1, "
	"activation=\"leaky_relu\", act_params=[0.25]} : f32[3,2]\n"
	"%mm = MatMul(%v, %gw) {activation=\"gelu_tanh\"} : f32[3,2]\n"
	"%bn = BatchNormalization(%x, %one, %zero, %zero, %one) {epsilon=0.125, momentum=0.5, "
	"training_mode=0} : f32[1,2,3,3]\n"
	"%ln = LayerNormalization(%t, %ls) {axis=-1, epsilon=0.25, stash_type=1} : f32[2,4]\n"
	"%red = ReduceMean(%t) {axes=[-1], keepdims=0} : f32[2]\n"
	"%rs = Reshape(%t, %shp) {allowzero=[1]} : f32[4,2]\n"
	"%tr = Transpose(%t) {perm=[1,0]} : f32[4,2]\n"
	"%lr = LeakyRelu(%v) {alpha=[0.125]} : f32[3,2]\n"
	"%clip = Clip(%v) {min=[0], max=[6]} : f32[3,2]\n"
	"%gelu = Gelu(%v) {approximate=[1]} : f32[3,2]\n"
	"%fe = FusedElementwise(%v) {prog=[10,0,255], params=[0,0,0]} : f32[3,2]\n"
	"output %conv\noutput %convt\noutput %gemm\noutput %mm\noutput %bn\noutput %ln\n"
	"output %red\noutput %rs\noutput %tr\noutput %lr\noutput %clip\noutput %gelu\noutput %fe\n";

/* The node producing the value named `name`. */
static NodeId node_of(const Graph *g, const char *name)
{
	for (ValueId v = 0; v < g->n_values; v++)
		if (g->values[v].name && strcmp(g->values[v].name, name) == 0)
			return g->values[v].producer;
	return IR_NONE;
}

/* Each accessor once, returning void * (NULL: wrong group), with the nodes it owns. */
#define ACCESSORS(X) X(epilogue) X(conv) X(gemm) X(matmul) X(batchnorm) X(norm) X(reduce) \
	X(reshape) X(transpose) X(unary) X(clip) X(math) X(fused)
#define X(a) static void *get_##a(Graph *g, NodeId id) { return ops_##a##_attrs(g, id); }
ACCESSORS(X)
#undef X
static const struct { const char *name; void *(*fn)(Graph *, NodeId); const char *owners[5]; } accessors[] = {
	{ "epilogue", get_epilogue, { "conv", "convt", "gemm", "mm" } },
	{ "conv", get_conv, { "conv", "convt" } },
	{ "gemm", get_gemm, { "gemm" } },
	{ "matmul", get_matmul, { "mm" } },
	{ "batchnorm", get_batchnorm, { "bn" } },
	{ "norm", get_norm, { "ln" } },
	{ "reduce", get_reduce, { "red" } },
	{ "reshape", get_reshape, { "rs" } },
	{ "transpose", get_transpose, { "tr" } },
	{ "unary", get_unary, { "lr" } },
	{ "clip", get_clip, { "clip" } },
	{ "math", get_math, { "gelu" } },
	{ "fused", get_fused, { "fe" } },
};
static const char *const nodes[] = { "conv", "convt", "gemm", "mm", "bn", "ln", "red", "rs",
                                     "tr", "lr", "clip", "gelu", "fe" };

static bool owns(int a, const char *node)
{
	for (int k = 0; k < 5 && accessors[a].owners[k]; k++)
		if (strcmp(accessors[a].owners[k], node) == 0)
			return true;
	return false;
}

/* Every accessor answers for its own groups' nodes and NULL for all others. */
static void check_groups(Graph *g)
{
	for (int a = 0; a < (int)COUNTOF(accessors); a++)
		for (int k = 0; k < (int)COUNTOF(nodes); k++) {
			NodeId id = node_of(g, nodes[k]);
			void *p = accessors[a].fn(g, id);
			if (owns(a, nodes[k]))
				CHECK(p != NULL, "ops_%s_attrs(%s) is NULL", accessors[a].name, nodes[k]);
			else
				CHECK(p == NULL, "ops_%s_attrs(%s) is not NULL", accessors[a].name, nodes[k]);
		}
}

/* The parsed values, read through the typed fields. */
static void check_values(Graph *g)
{
	ConvAttrs *c = ops_conv_attrs(g, node_of(g, "conv"));
	CHECK(c->group == 1 && c->strides.n == 2 && c->dilations.n == -1, "Conv fields");
	CHECK(ops_epilogue_attrs(g, node_of(g, "conv")) == &c->ep, "Conv epilogue");
	CHECK(c->ep.activation == INGOT_EW_ACT_RELU && c->ep.act_params.n == -1 && !c->ep.residual,
	      "Conv activation %d", c->ep.activation);
	CHECK(ops_conv_attrs(g, node_of(g, "convt"))->output_padding.n == 2, "ConvTranspose fields");
	GemmAttrs *ge = ops_gemm_attrs(g, node_of(g, "gemm"));
	CHECK(ge->alpha == 1.0f && ge->beta == 0.5f && ge->trans_a == 0 && ge->trans_b == 1,
	      "Gemm fields");
	CHECK(ge->ep.activation == INGOT_EW_ACT_LEAKY_RELU && ge->ep.act_params.n == 1 &&
	      ge->ep.act_params.v[0] == 0.25f, "Gemm epilogue");
	CHECK(ops_epilogue_attrs(g, node_of(g, "gemm")) == &ge->ep, "Gemm epilogue pointer");
	MatmulAttrs *mm = ops_matmul_attrs(g, node_of(g, "mm"));
	CHECK(mm->ep.activation == INGOT_EW_ACT_GELU_TANH, "MatMul activation %d", mm->ep.activation);
	CHECK(ops_epilogue_attrs(g, node_of(g, "mm")) == &mm->ep, "MatMul epilogue pointer");
	BatchNormAttrs *bn = ops_batchnorm_attrs(g, node_of(g, "bn"));
	CHECK(bn->epsilon == 0.125f && bn->momentum == 0.5f && bn->training_mode == 0, "BN fields");
	NormAttrs *ln = ops_norm_attrs(g, node_of(g, "ln"));
	CHECK(ln->axis == -1 && ln->epsilon == 0.25f && ln->stash_type == 1, "LayerNorm fields");
	ReduceAttrs *r = ops_reduce_attrs(g, node_of(g, "red"));
	CHECK(r->keepdims == 0 && r->axes.n == 1 && r->axes.v[0] == -1, "Reduce fields");
	ReshapeAttrs *rs = ops_reshape_attrs(g, node_of(g, "rs"));
	CHECK(rs->allowzero.n == 1 && rs->allowzero.v[0] == 1 && rs->shape.n == -1, "Reshape fields");
	TransposeAttrs *t = ops_transpose_attrs(g, node_of(g, "tr"));
	CHECK(t->perm.n == 2 && t->perm.v[0] == 1 && t->perm.v[1] == 0, "Transpose perm");
	UnaryAttrs *u = ops_unary_attrs(g, node_of(g, "lr"));
	CHECK(u->alpha.n == 1 && u->alpha.v[0] == 0.125f && u->beta.n == -1, "LeakyRelu alpha");
	ClipAttrs *cl = ops_clip_attrs(g, node_of(g, "clip"));
	CHECK(cl->min.n == 1 && cl->min.v[0] == 0.0f && cl->max.n == 1 && cl->max.v[0] == 6.0f,
	      "Clip bounds");
	MathAttrs *m = ops_math_attrs(g, node_of(g, "gelu"));
	CHECK(m->approximate.n == 1 && m->approximate.v[0] == 1, "Gelu approximate");
	FusedAttrs *f = ops_fused_attrs(g, node_of(g, "fe"));
	CHECK(f->prog.n == 3 && f->prog.v[0] == 10 && f->params.n == 3, "FusedElementwise fields");
}

/* What a pass writes through a typed field prints under the field's IR name. */
static void check_writes(Graph *g)
{
	ops_epilogue_attrs(g, node_of(g, "mm"))->activation = INGOT_EW_ACT_SIGMOID;
	ops_epilogue_attrs(g, node_of(g, "convt"))->residual = 1;
	ops_gemm_attrs(g, node_of(g, "gemm"))->beta = 0.75f;
	ops_batchnorm_attrs(g, node_of(g, "bn"))->epsilon = 0.5f;
	ops_reduce_attrs(g, node_of(g, "red"))->keepdims = 1;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f) {
		CHECK(0, "open_memstream");
		return;
	}
	ir_print(g, f);
	fclose(f);
	static const char *const expect[] = {
		"MatMul(%v, %gw) {activation=\"sigmoid\"}", "residual=1", "beta=0.75",
		"epsilon=0.5,", "keepdims=1",
	};
	for (int k = 0; k < (int)COUNTOF(expect); k++)
		CHECK(strstr(text, expect[k]) != NULL, "printed IR lacks '%s':\n%s", expect[k], text);
	free(text);
}

int main(void)
{
	Graph g;
	DiagSink d;
	diag_sink_init(&d, stderr);
	ir_graph_init(&g, "test.ir");
	if (ir_parse(&g, ir_text, strlen(ir_text), "/nonexistent.bin", &d)) {
		CHECK(0, "the test graph does not parse");
		return harness_done("op_attrs");
	}
	check_groups(&g);
	check_values(&g);
	check_writes(&g);
	ir_graph_free(&g);
	diag_sink_free(&d);
	return harness_done("op_attrs");
}
