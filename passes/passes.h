/* passes.h — the pass manager: one uniform signature, one registry, and the
 * pipeline per -O level as one readable function (pass_manager.c).
 *
 * Sections: pass_manager.c, dce.c, fold_constants.c, plan_memory.c, and the
 * rewriting passes remove_identity.c, cse.c, fold_chains.c, fold_batchnorm.c, fold_pad.c,
 * matmul_add_to_gemm.c, fuse_epilogue.c, fuse_elementwise.c (their shared helpers:
 * rewrite.h), place.c (device placement), and quantize.c (post-training quantization, driven by the driver).
 */
#ifndef INGOT_PASSES_H
#define INGOT_PASSES_H

#include "ir.h"

/* place.c: which nodes run on the OpenCL device (--target opencl). */
typedef enum PlaceMode { PLACE_AUTO, PLACE_DEVICE, PLACE_CPU } PlaceMode;
/* The cost model's machine, from the target description (targets/targets.h). */
typedef struct PlaceCost {
	double host_gflops, host_gbps;   /* the CPU that runs the fallback nodes */
	double dev_gflops, dev_gbps;     /* the device */
	double launch_us;                /* per kernel launch on the device */
	double link_gbps, link_us;       /* a host<->device copy: bandwidth, latency */
} PlaceCost;
typedef struct PlaceOverride {
	const char *node;                /* an ONNX node name (--place NODE=cpu|device) */
	bool device;
} PlaceOverride;
#define PLACE_MAX_ISLANDS 64
typedef struct PlaceConfig {
	PlaceMode mode;
	const PlaceOverride *overrides;
	int n_overrides;
	PlaceCost cost;
	/* whether the device has a kernel for node n (an OPF_DEVICE op); when not, a
	 * static reason in *why */
	bool (*supported)(const void *target, Graph *g, NodeId n, const char **why);
	const void *target;
	/* the result: device partitions (connected islands), copies and the bytes they
	 * move per run, and the model's estimates of all-CPU and of the chosen plan (us) */
	int n_partitions, n_device_nodes, n_copies;
	int64_t bytes_moved;
	double est_cpu_us, est_placed_us;
	/* each candidate island as the cost model weighed it (the first PLACE_MAX_ISLANDS,
	 * in graph order): its nodes, the time running them on the device saves, what its
	 * transfers cost, and the verdict (ingot inspect prints them) */
	struct PlaceIsland {
		NodeId first;            /* its first node in graph order */
		int n_nodes;
		double save_us, xfer_us;
		bool on_device;
	} islands[PLACE_MAX_ISLANDS];
	int n_islands;               /* all of them, even past PLACE_MAX_ISLANDS */
} PlaceConfig;

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
	PlaceConfig *place;          /* --target opencl: the placement (pass place), else NULL */
	char changed[256];           /* a pass's one-line summary of what it changed */
	/* when set, called before pass i of n runs (the driver's progress display) */
	void (*on_pass)(void *user, const char *name, int i, int n, const Graph *g);
	void *on_pass_user;
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
int pass_fold_pad(Graph *g, PassCtx *ctx);
int pass_matmul_add_to_gemm(Graph *g, PassCtx *ctx);
int pass_fuse_epilogue(Graph *g, PassCtx *ctx);
int pass_fuse_elementwise(Graph *g, PassCtx *ctx);
int pass_fuse_layernorm(Graph *g, PassCtx *ctx);
int pass_fold_qdq(Graph *g, PassCtx *ctx);
int pass_quantize_weights(Graph *g, PassCtx *ctx);
int pass_place(Graph *g, PassCtx *ctx);

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

/* quantize.c: post-training int8 quantization in QDQ form (compiler/driver/calibrate.c
 * drives it; fold_qdq then makes the integer nodes). */
typedef struct QuantConfig {
	bool s8_acts;                /* activations s8 symmetric, else u8 asymmetric */
	bool reduce_range;           /* weights in [-64, 64] (7 bits), else [-127, 127] */
} QuantConfig;
typedef struct QuantPlan {
	ValueId *range_of;           /* per value: the value whose calibrated range it takes
	                                (itself, or a moved value's source); IR_NONE: float */
	const char **why_float;      /* per node: why it stays float; NULL: int8 (or folded) */
	ValueId *out_of;             /* per node: its quantized output, IR_NONE if none */
	int n_values, n_nodes;       /* the graph's counts when planned */
} QuantPlan;
/* The float simplifications quantization must see first (BatchNormalization folded). */
int quant_prepare(Graph *g, PassCtx *ctx);
/* Whether node id is named (an ONNX name it came from) or typed in keep. */
bool quant_keep_matches(const Graph *g, NodeId id, const char *const *keep, int n_keep);
/* Which nodes run in int8 and which activations need a range (main graph). */
void quant_plan(Graph *g, const char *const *keep, int n_keep, QuantPlan *p);
void quant_plan_free(QuantPlan *p);
/* Per-channel symmetric int8 of the constant f32 w along axis (scale max |w| / qmax, zero
 * point 0, values in [-qmax, qmax]: qmax 127, or 64 for --reduce-range; a NaN becomes 0),
 * behind a new DequantizeLinear at the
 * front of region r; returns its output (what a node reads instead of w), IR_NONE with
 * diagnostics when it does not infer. quantize.c; quantize_weights.c uses it too. */
ValueId quant_weight(Graph *g, RegionId r, ValueId w, int axis, int qmax, DiagSink *d);
/* The activation parameters of the range [lo, hi] (0 always included). */
void quant_params(const QuantConfig *c, float lo, float hi, float *scale, int32_t *zp);
/* Inserts the weights' DequantizeLinear and the activations' pairs; lo/hi by value id
 * (of the range values of the plan). 0 or -1 with diagnostics. */
int quant_apply(Graph *g, const QuantConfig *c, const QuantPlan *p, const float *lo, const float *hi,
                DiagSink *d);

#endif /* INGOT_PASSES_H */
