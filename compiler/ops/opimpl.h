/* opimpl.h — the interface every op group implements (compiler/ops/<group>.c):
 * import typed attributes, infer output types (with opset differences), and lower
 * a node to one reference-kernel call. Constant folding runs the same call
 * in-process, so folded constants equal what the generated C computes.
 *
 * Sections: opimpl.c (table, contexts, helpers), fold.c, infer.c, one file per
 * op family (elementwise.c, nn.c, pool.c, norm.c, shape_ops.c, reduce.c, ...).
 */
#ifndef INGOT_OPIMPL_H
#define INGOT_OPIMPL_H

#include <stddef.h>

#include "ir.h"
#include "kernel_families.h"   /* generated: INGOT_FAMILY_<kernel> */

/* ---- kernel parameter descriptors (mirror the INGOT_PARAMS field lists) ---- */

typedef enum ParamKind { PK_I64, PK_F32, PK_F64, PK_DIMS, PK_PADS } ParamKind;
typedef struct ParamField { const char *name; ParamKind kind; size_t off; } ParamField;
typedef struct ParamDesc {
	const char *type;            /* C struct name, e.g. "ingot_conv_params" */
	size_t size;
	const ParamField *fields;
	int n_fields;
} ParamDesc;

/* Build a ParamDesc from a runtime-stubs field list:
 *     #define PARAM_STRUCT ingot_conv_params
 *     static const ParamField conv_fields[] = { INGOT_CONV_FIELDS(PARAM_FIELD) };
 *     #undef PARAM_STRUCT
 *     static const ParamDesc conv_desc = PARAM_DESC(ingot_conv_params, conv_fields);
 */
#define PARAM_FIELD(kind, name) { #name, PK_##kind, offsetof(PARAM_STRUCT, name) },
#define PARAM_DESC(T, fields) { #T, sizeof(T), fields, COUNTOF(fields) }

/* One call of a reference (or generated) kernel, what lowering a node yields. */
typedef struct KernelCall {
	const char *fn_name;         /* symbol in runtime-stubs, e.g. "ingot_conv_f32" */
	const char *family;          /* stub file it lives in: runtime-stubs/kernels/<family>.c */
	ingot_kernel_fn fn;          /* the same function, linked into ingot (folding) */
	const ParamDesc *pdesc;      /* NULL when the kernel takes no parameters */
	const void *params;          /* filled struct, graph arena */
	int64_t scratch_bytes;       /* kernel scratch needed beyond the arena */
	bool split;                  /* its (task, n_tasks) split gives each task disjoint outputs
	                              * and the same values for any n_tasks: NAME_run_par may run
	                              * the tasks concurrently (each with its own scratch) */
	bool rng;                    /* reads the workspace's random state: codegen passes it
	                              * as in[n_in] (random.c) */
} KernelCall;

/* ---- contexts ---- */

typedef struct InferCtx {
	Graph *g;
	NodeId node;
	DiagSink *diags;
} InferCtx;

typedef struct LowerCtx {
	Graph *g;
	NodeId node;
	KernelCall kc;               /* to fill */
} LowerCtx;

typedef struct OpImpl {
	size_t attr_size;                    /* sizeof the group's attribute struct (0: none) */
	const AttrField *fields;             /* for IR print/parse */
	int n_fields;
	int (*import)(ImportCtx *c);         /* may be NULL when there are no attributes */
	int (*infer)(InferCtx *c);           /* sets every output's Type; 0 or -1 (diag) */
	int (*lower)(LowerCtx *c);           /* fills c->kc; 0 or -1 (unsupported here) */
} OpImpl;

#define G(group) extern const OpImpl op_impl_##group;
IR_OP_GROUPS(G)
#undef G

typedef struct OpInfo {
	const char *name;
	const OpImpl *impl;
	int min_in, max_in, min_out, max_out;    /* -1: variadic */
	unsigned const_inputs;                   /* slots that must be compile-time constants */
	unsigned flags;                          /* OPF_* properties (ops.h) */
} OpInfo;

/* opimpl.c */
const OpInfo *op_info(Op op);
/* Whether op carries any of the OPF_* flags in `flags` (the table's flags column). */
bool op_has(Op op, unsigned flags);
/* Types a node's attributes from the raw list (the frontend and tests call this
 * right after ir_node_new). 0 or -1 with diagnostics. */
int ops_import_attrs(Graph *g, NodeId node, const RawAttr *raw, int n_raw, DiagSink *d);

/* Infer helpers: slot accessors and checks that report located diagnostics. */
Node *infer_node(InferCtx *c);
bool infer_has(InferCtx *c, int slot);                 /* input present (not omitted) */
const Type *infer_in(InferCtx *c, int slot);           /* NULL when omitted */
Type *infer_out(InferCtx *c, int slot);                /* NULL when omitted */
const void *infer_const(InferCtx *c, int slot);        /* NULL if not a constant */
/* Reads an integer (i32/i64) constant input as int64s (graph arena). Reports a
 * DC_CONST_INPUT diagnostic naming --bind if the input is not constant. */
int infer_const_ints(InferCtx *c, int slot, int64_t **v, int *n);
int infer_const_f64s(InferCtx *c, int slot, double **v, int *n);
int infer_fail(InferCtx *c, int slot, const char *fmt, ...);   /* slot -1: the node; returns -1 */
int infer_fail_attr(InferCtx *c, const char *attr, const char *fmt, ...);
/* Reports that this node (an op, dtype or attribute value) is not supported: a
 * DC_UNSUPPORTED diagnostic, so `compile` exits 3. Returns -1. */
int infer_unsupported(InferCtx *c, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
/* Checks: input dtype among a list (DT_UNDEF-terminated), rank in range. */
int infer_check_dtype(InferCtx *c, int slot, const DType *allowed);
int infer_same_dtype(InferCtx *c, int slot_a, int slot_b);
int infer_normalize_axis(InferCtx *c, int64_t axis, int rank, int64_t *out); /* handles negatives */
/* Shape arithmetic stays far from int64 overflow: tensors are bounded like any planned
 * tensor, attribute values (strides, pads, kernel sizes...) by OPS_MAX_ATTR. */
#define OPS_MAX_TENSOR_BYTES ((int64_t)1 << 40)
#define OPS_MAX_ATTR ((int64_t)1 << 24)
/* Fails (located) when input `slot` has a negative dim or more than OPS_MAX_TENSOR_BYTES. */
int infer_check_size(InferCtx *c, int slot);
/* Reads an optional per-spatial-dim list of n values into v: absent (or empty) means
 * `def` everywhere; each value must be in [lo, OPS_MAX_ATTR]. */
int infer_spatial_list(InferCtx *c, const char *name, const IntList *l, int n, int64_t def,
                       int64_t lo, int64_t *v);

/* Lower helpers: the node's input / output types (NULL when omitted), zeroed params
 * from the graph arena, and setting the call. */
const Type *lower_in(LowerCtx *c, int slot);
const Type *lower_out(LowerCtx *c, int slot);
void *lower_params(LowerCtx *c, const ParamDesc *d);
void lower_call(LowerCtx *c, const char *fn_name, const char *family, ingot_kernel_fn fn,
                const ParamDesc *d, const void *params);
/* The call of kernel `fn` (an identifier, e.g. ingot_conv): its name, its pointer and its
 * stub family all come from `fn`, the family from the generated kernel_families.h (the
 * runtime-stubs/kernels/FAMILY.c that defines it), so they cannot disagree. */
#define LOWER_CALL(c, fn, d, params) lower_call((c), #fn, INGOT_FAMILY_##fn, &(fn), (d), (params))
/* The same for the target backends' kernels (not linked into ingot, so no pointer): the
 * name and family of kernel `fn` as two arguments / initialisers, or set on a KernelCall. */
#define KERNEL_NAME_FAMILY(fn) #fn, INGOT_FAMILY_##fn
#define KERNEL_CALL_SET(kc, fn) ((kc)->fn_name = #fn, (kc)->family = INGOT_FAMILY_##fn)

/* Common dtype lists (DT_UNDEF-terminated). */
extern const DType dtl_float[];        /* f16 f32 f64 bf16 */
extern const DType dtl_numeric[];      /* floats + all ints */
extern const DType dtl_all[];          /* numeric + bool */
extern const DType dtl_all_small[];    /* dtl_all + the 8-bit floats, int4/uint4, float4, int2/uint2 (Cast, Q/DQ, data movement) */
extern const char *const cast_round_mode_names[];   /* Cast/CastLike round_mode, as INGOT_E8M0_* */
extern const DType dtl_int[];          /* all ints */

/* text.c: appends a constant 1-D tensor (dtype dt, n elements at data, copied into the
 * blob) as the node's last input, named NODE.what: how an import turns a large
 * attribute (stopwords, tree tables) into data the kernel reads like any tensor. */
void ops_append_const_input(ImportCtx *c, const char *what, DType dt, int64_t n, void *data);
/* text.c: n strings copied into zero-padded INGOT_STRING_CAP slots (graph arena); NULL,
 * with a diagnostic at attribute attr, when one does not fit a slot. */
char *ops_str_slots(ImportCtx *c, const char *attr, const char *const *s, int n);

/* text.c: Cast/CastLike from or to STRING (ingot_cast_str over n elements) */
int text_cast_lower(LowerCtx *c, DType from, DType to, int64_t n);

/* regex.c: an RE2 pattern compiled to the NFA program of runtime-stubs/kernels/regex.h
 * (*prog, *n_words int32s, in arena a). 0; -1 for an invalid pattern, -2 for valid
 * RE2 that ingot does not implement, with the reason in err. */
int regex_compile(Arena *a, const char *pattern, int32_t **prog, int64_t *n_words,
                  char *err, size_t err_cap);

/* arith.c: element strides (s[IR_MAX_RANK]) of t seen through the dims of out
 * (right-aligned, numpy broadcasting), 0 where t is broadcast */
void ops_bcast_strides(const Type *out, const Type *t, int64_t *s);
/* Equal on two string inputs (text.c): ingot_str_equal, broadcast as StringConcat. */
int ops_str_equal_lower(LowerCtx *c);

/* indexing.c: data-dependent sizes (Compress, NonZero, Unique, StringSplit...). When
 * every input is constant, runs the node's kernel on its upper-bound types and
 * replaces each dynamic output's dims with the actual ones, making them static. */
int infer_eval_dynamic(InferCtx *c);

/* norm.c: the import LayerNormalization and RMSNormalization share (their typed
 * attributes, NormAttrs, are in op_attrs.h) */
extern const AttrField norm_attr_fields[3];
int norm_attrs_import(ImportCtx *c);

/* imgdec.c: the largest image an ImageDecoder node n may decode at run time (the
 * frontend sets it from the output's declared shape, --dim or --shape) */
void ops_imgdec_set_bound(Graph *g, NodeId n, int64_t max_h, int64_t max_w);

/* shape_ops.c: helpers of the shape and data-movement groups (shape_ops.c,
 * slice_concat.c) */
int64_t ops_prod(const int64_t *d, int lo, int hi);              /* d[lo] * ... * d[hi - 1] */
void ops_contiguous_strides(const Type *t, int64_t *s);         /* row-major element strides */
/* Sets output slot's type (fails past IR_MAX_RANK). */
int ops_set_out(InferCtx *c, int slot, DType dt, int rank, const int64_t *dims);
/* Stores n int64s into an arena IntList (the canonical attribute). */
void ops_set_list(Graph *g, IntList *l, const int64_t *v, int n);
/* The bit pattern of a scalar as an unsigned integer of es bytes (kernel `value`). */
int64_t ops_scalar_bits(const Scalar *s, size_t es);
/* Normalizes a list of axes against `rank`, rejecting duplicates. */
int ops_norm_axes(InferCtx *c, const int64_t *axes, int n, int rank, int64_t *out);
/* Lowers to a strided copy (ingot_strided_copy) of the given dims, element strides
 * and offset, dropping unit dims and merging contiguous ones. */
int ops_lower_strided(LowerCtx *c, int64_t esize, int rank, const int64_t *dims,
                      const int64_t *strides, int64_t offset);

/* infer.c: shape inference over a region, folding constant nodes as it goes.
 * ops_infer_region infers (and folds) a body's nodes once its inputs are typed
 * (control flow calls it). */
int ops_infer_node(Graph *g, NodeId n, DiagSink *d);
int ops_infer_region(Graph *g, RegionId r, DiagSink *d);
int ops_infer_graph(Graph *g, DiagSink *d, bool fold);

/* sequence.c, sequence_flow.c: the sequence hooks of inference (infer.c) and of
 * control flow (control.c). The sequence or optional a value is (NULL for a tensor);
 * before a node is inferred, ops_seq_guard handles inputs that are sequences:
 * Identity passes them on (*done set), ops that take only tensors fail.
 * ops_seq_finish, after the main graph is inferred, turns each sequence output into
 * one output per element (NAME.0, NAME.1, ...; an empty optional into none). 0 or -1
 * with diagnostics. */
const SeqVal *ops_seq_of(const Graph *g, ValueId v);
/* Makes v the sequence of elems (copied; type = dt scalar), or an empty optional. */
void ops_seq_set(Graph *g, ValueId v, bool none, int n, const ValueId *elems, DType dt);
int ops_seq_guard(Graph *g, NodeId n, DiagSink *d, bool *done);
int ops_seq_finish(Graph *g, DiagSink *d);
/* Whether a Loop carries or builds sequences (then it must be unrolled), and giving
 * an If with a run-time condition one output per element of the sequences its
 * branches yield (they must agree in length). 0 or -1. */
bool ops_seq_loop_needs_unroll(const Graph *g, NodeId n);
int ops_seq_if_expand(Graph *g, NodeId n, DiagSink *d);

/* Multiply-accumulates of a node by formula (Conv, ConvTranspose, Gemm, MatMul, RNNs;
 * 0 for other ops), whatever algorithm runs: `inspect --json` and --profile. */
int64_t ops_node_macs(const Graph *g, NodeId n);

/* fused.c: FusedElementwise's program as text, "s0 = Sigmoid(%x); s1 = Mul(%x, s0)"
 * (the IR printer writes it as a comment line above the node); false if malformed. */
bool ops_fused_describe(const Graph *g, NodeId n, char *buf, size_t cap);

/* random.c: whether a node draws random numbers (random ops, training-mode Dropout):
 * such nodes are never folded or merged. Dropout's attributes live in elementwise.c,
 * which says whether a Dropout trains and lowers a training one through random.c. */
bool ops_node_random(const Graph *g, NodeId id);
bool ops_dropout_training(const Graph *g, NodeId id);
int random_import_seed(ImportCtx *c, FloatList *seed);
int random_dropout_lower(LowerCtx *c, double ratio, bool training, const FloatList *seed);

/* fold.c: evaluates a node whose inputs are all constant; its outputs become constants */
bool ops_node_foldable(const Graph *g, NodeId n);
int ops_fold_node(Graph *g, NodeId n, DiagSink *d);
/* Runs a node through its kernel on caller buffers (used by folding and tests). */
int ops_run_node(Graph *g, NodeId n, const void *const *in, void *const *out);

#endif /* INGOT_OPIMPL_H */
