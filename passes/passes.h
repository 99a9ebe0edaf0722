/* passes.h — the pass manager: one uniform signature, one registry, and the
 * pipeline per -O level as one readable function (pass_manager.c).
 *
 * Sections: pass_manager.c, dce.c, fold_constants.c, plan_memory.c, and the
 * rewriting passes remove_identity.c, cse.c, fold_chains.c, fold_batchnorm.c,
 * matmul_add_to_gemm.c, fuse_epilogue.c, fuse_elementwise.c (their shared helpers:
 * rewrite.h).
 */
#ifndef INGOT_PASSES_H
#define INGOT_PASSES_H

#include "ir.h"

typedef struct PassCtx {
	DiagSink *diags;
	int opt_level;               /* 0..3 */
	bool verify;                 /* run ir_verify after every pass */
	bool print_after_all;        /* --print-ir-after-all */
	const char *print_after;     /* --print-ir-after PASS, or NULL */
	FILE *print_to;              /* where dumps go (stderr) */
	int64_t max_workspace;       /* --max-workspace, 0 = unlimited */
	/* kernel scratch of node n as the target lowers it (its SIMD kernels may need
	 * more or less than the reference kernel); NULL = the reference lowering */
	int64_t (*node_scratch)(const void *target, Graph *g, NodeId n);
	const void *target;          /* passed to node_scratch */
	char changed[256];           /* a pass's one-line summary of what it changed */
} PassCtx;

typedef int (*PassFn)(Graph *g, PassCtx *ctx);

typedef struct Pass {
	const char *name;
	const char *desc;            /* one line */
	PassFn fn;
	const char *needs;           /* what must hold before it runs, informative */
} Pass;

/* pass_manager.c */
const Pass *pass_lookup(const char *name);
const Pass *pass_list(int *n);
/* Fills names with the pipeline of an -O level (without plan_memory, which the
 * driver always appends); returns the count. */
int pass_pipeline(int opt_level, const char **names, int cap);
/* Runs passes by name in order; verifies and prints as ctx says. 0 or -1. */
int pass_run(Graph *g, PassCtx *ctx, const char *const *names, int n);

/* one function per pass: int pass_<name>(Graph *g, PassCtx *ctx) */
int pass_dce(Graph *g, PassCtx *ctx);
int pass_fold_constants(Graph *g, PassCtx *ctx);
int pass_plan_memory(Graph *g, PassCtx *ctx);
int pass_remove_identity(Graph *g, PassCtx *ctx);
int pass_cse(Graph *g, PassCtx *ctx);
int pass_fold_chains(Graph *g, PassCtx *ctx);
int pass_fold_batchnorm(Graph *g, PassCtx *ctx);
int pass_matmul_add_to_gemm(Graph *g, PassCtx *ctx);
int pass_fuse_epilogue(Graph *g, PassCtx *ctx);
int pass_fuse_elementwise(Graph *g, PassCtx *ctx);
int pass_fuse_layernorm(Graph *g, PassCtx *ctx);
int pass_fold_qdq(Graph *g, PassCtx *ctx);
int pass_quantize_weights(Graph *g, PassCtx *ctx);

/* plan_memory.c: bytes a node's kernel needs as scratch, through ctx->node_scratch
 * (the target's lowering) when set, else the reference lowering */
int64_t plan_node_scratch(const PassCtx *ctx, Graph *g, NodeId n);
/* After planning: node n is a view whose output is its input's storage, so no code
 * runs for it. */
bool plan_node_is_alias(const Graph *g, NodeId n);
/* Checks a planned graph (the final offsets and aliases alone): tensors alive at the
 * same time never share a byte unless they are one storage, and an in-place write
 * never clobbers a tensor still to be read. 0, or -1 with a message in err. */
int plan_check(const Graph *g, char *err, size_t cap);

#endif /* INGOT_PASSES_H */
