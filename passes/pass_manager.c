/* pass_manager.c — the registry of passes, the pipeline per -O level, and running a
 * list of passes with verification and IR dumps between them. */
#include "passes.h"

#include <string.h>

static const Pass passes[] = {
	{ "fold_qdq", "run DequantizeLinear -> Conv/MatMul/Gemm/Add/Mul/pools/Concat/elementwise "
	  "[-> Relu/Clip] -> QuantizeLinear patterns as integer nodes (QLinearConv, QLinearMatMul, "
	  "QLinearAdd, QLinearLookup...), MatMul of int8 weights as MatMulW8", pass_fold_qdq,
	  "types, constant scales; before fold_constants" },
	{ "quantize_weights", "int8 weights (per output column, symmetric) for MatMul/Gemm with a "
	  "constant f32 weight, behind a DequantizeLinear (--quantize weights-int8)",
	  pass_quantize_weights, "types; before fold_qdq" },
	{ "fold_constants", "evaluate nodes whose inputs are all constant", pass_fold_constants, "types" },
	{ "remove_identity", "remove copies: Identity, inference Dropout, shape-keeping reshapes, "
	  "identity Transpose, Cast to the same type", pass_remove_identity, "types" },
	{ "cse", "merge identical constants and nodes with the same op, inputs and attributes",
	  pass_cse, "types" },
	{ "fold_chains", "collapse Reshape/Squeeze/Unsqueeze/Flatten chains into one Reshape and "
	  "compose Transpose pairs", pass_fold_chains, "types" },
	{ "fuse_layernorm", "turn layer normalization spelled as ReduceMean/Sub/Pow/Sqrt/Div (opset < "
	  "17 exports) into one LayerNormalization", pass_fuse_layernorm, "types, constant gamma/beta" },
	{ "matmul_add_to_gemm", "turn a 2-D MatMul with constant B plus a constant bias Add into "
	  "Gemm", pass_matmul_add_to_gemm, "types" },
	{ "fold_pad", "fold a constant zero (-inf) Pad of the spatial axes into the padding of the "
	  "Conv (MaxPool) after it", pass_fold_pad, "types" },
	{ "fold_batchnorm", "fold inference BatchNormalization into the Conv/ConvTranspose/Gemm/"
	  "MatMul before it", pass_fold_batchnorm, "types, constant weights; after matmul_add_to_gemm" },
	{ "fuse_epilogue", "fuse residual Add and activation after Conv/Gemm/MatMul into its "
	  "kernel", pass_fuse_epilogue, "types; after fold_batchnorm and matmul_add_to_gemm" },
	{ "fuse_elementwise", "fuse chains of f32 elementwise ops into one FusedElementwise loop",
	  pass_fuse_elementwise, "types; after fuse_epilogue" },
	{ "place", "put the nodes the OpenCL device runs, in islands worth their transfers, on it, "
	  "with explicit CopyToDevice/CopyToHost nodes (--target opencl)", pass_place,
	  "types, final schedule; before plan_memory" },
	{ "dce", "remove nodes whose results are never used", pass_dce, "" },
	{ "plan_memory", "assign every intermediate an offset in one arena by liveness", pass_plan_memory,
	  "types, final schedule" },
};

const Pass *pass_list(int *n)
{
	*n = COUNTOF(passes);
	return passes;
}

const Pass *pass_lookup(const char *name)
{
	for (int i = 0; i < COUNTOF(passes); i++)
		if (strcmp(passes[i].name, name) == 0)
			return &passes[i];
	return NULL;
}

/* The pipeline of each optimization level. -O0 runs nothing; the driver always
 * appends plan_memory. MatMul+Add becomes Gemm first, so a BatchNormalization after
 * a Linear layer folds into it; then the epilogue fusion sees Conv/Gemm directly
 * followed by the residual Add and the activation; what elementwise ops remain are
 * fused into loops last. Decomposed layer norms become one node before any of that
 * can split their pattern. */
int pass_pipeline(int opt_level, const char **names, int cap)
{
	int n = 0;
#define ADD(p) do { if (n < cap) names[n++] = (p); } while (0)
	if (opt_level >= 1) {
		ADD("fold_qdq");
		ADD("fold_constants");
		ADD("remove_identity");
		ADD("dce");
	}
	if (opt_level >= 2) {               /* -O3: the same, for now */
		ADD("cse");
		ADD("fold_chains");
		ADD("fuse_layernorm");
		ADD("matmul_add_to_gemm");
		ADD("fold_pad");
		ADD("fold_batchnorm");
		ADD("fuse_epilogue");
		ADD("fuse_elementwise");
		ADD("dce");
	}
#undef ADD
	return n;
}

int pass_run(Graph *g, PassCtx *ctx, const char *const *names, int n)
{
	for (int i = 0; i < n; i++) {
		const Pass *p = pass_lookup(names[i]);
		char err[512];
		if (!p) {
			DiagLoc l = diag_loc_file(NULL);
			diag_report(ctx->diags, DIAG_ERROR, DC_USAGE, &l, "unknown pass '%s'", names[i]);
			return -1;
		}
		ctx->changed[0] = 0;
		if (ctx->on_pass)
			ctx->on_pass(ctx->on_pass_user, p->name, i, n, g);
		if (p->fn(g, ctx))
			return -1;
		if (ctx->verify && ir_verify(g, err, sizeof err))
			die("IR invalid after pass %s: %s", p->name, err);
		if (ctx->print_to && (ctx->print_after_all ||
		                      (ctx->print_after && strcmp(ctx->print_after, p->name) == 0))) {
			fprintf(ctx->print_to, "// IR after %s: %s\n", p->name,
			        ctx->changed[0] ? ctx->changed : "no change");
			ir_print(g, ctx->print_to);
		}
	}
	return 0;
}
