/* graph_rewrite.h — the one toolkit for rewriting the graph (prefix rw_), used by the
 * passes (passes/) and by the expansions that shape inference runs (compiler/ops/):
 * use counts, redirecting the uses of a value that disappears (keeping graph output
 * names, which are the API), new constants, turning a node into another op in place,
 * moving nodes, killing regions, and building the nodes that replace a node.
 *
 * Where the graph is rewritten outside a pass. Only shape inference (ops_infer_graph,
 * which the driver runs once, before the pass pipeline) rewrites the graph outside
 * passes/, and only inside the infer() of the node being replaced:
 *   - Attention, RMSNormalization, RotaryEmbedding and CenterCropPad become the ordinary
 *     nodes of their spec's function body (attention.c, rms_norm.c, rotary_embedding.c,
 *     center_crop_pad.c): they have no kernel of their own (rw_never_lowered);
 *   - a Loop whose body needs per-iteration constants, or that carries or builds
 *     sequences, is unrolled (control_unroll.c); an If with a constant condition is
 *     replaced by its taken branch (control.c), and one with a run-time condition
 *     that yields sequences gets one output per element (sequence_flow.c);
 *   - sequence and optional ops resolve to lists of tensor values, Split, Concat,
 *     Identity nodes and copies of a SequenceMap body (sequence.c), and the main graph's
 *     sequence outputs to one output per element (ops_seq_finish);
 *   - a node whose inputs are all constants is folded into a constant (fold.c).
 * They cannot wait for a canonicalize pass: the types of everything downstream depend
 * on them (a sequence has no tensor type; an unrolled Loop's outputs, and the shapes
 * that constant folding resolves, are known only after the rewrite), and passes need a
 * fully typed graph. Each such expansion follows one rule: it appends its nodes to the
 * node's region (rw_add_node, rw_step, ...), its last node writes the node's own output
 * values (their ids and names stay), it marks the node dead, and rw_place_after moves
 * the new nodes right after it and infers and folds them there. Anything else that
 * rewrites the graph is a pass (passes/passes.h), except a target's prepare hook
 * (codegen: x86 prepack.c), which adds packed copies of constant weights and points
 * the nodes that read them at the copies.
 *
 * Sections: graph_rewrite.c (uses, redirects, constants, in-place edits, regions),
 * expand.c (building an expansion next to the node it replaces). */
#ifndef INGOT_GRAPH_REWRITE_H
#define INGOT_GRAPH_REWRITE_H

#include "opimpl.h"

#include <string.h>

/* ---- graph_rewrite.c ---- */

/* How each value is used by live nodes (in every region) and region outputs. */
typedef struct Uses {
	int *count;          /* per value: node input slots reading it + region output entries */
	NodeId *user;        /* per value: a live node reading it (the last one), or IR_NONE */
	int n;               /* values covered (g->n_values when computed) */
} Uses;

/* (Re)computes u for the graph as it is now; rw_uses_free releases it. */
void rw_uses_compute(const Graph *g, Uses *u);
void rw_uses_free(Uses *u);
/* The node that alone reads v (exactly one use, not a region output), else IR_NONE. */
NodeId rw_sole_user(const Graph *g, const Uses *u, ValueId v);

/* Makes every live node input (all regions) that reads `old` read `new`; returns
 * how many slots changed. Region output lists are left alone (see rw_redirect). */
int rw_replace_uses(Graph *g, ValueId old, ValueId new_v);

/* `from` is about to lose its producer (the caller marks that node dead); `to`
 * carries the same data with the same type. Redirects every use of `from` to `to`.
 * When `from` is a region output, its name must survive: `to`'s producer writes
 * `from` instead and the uses of `to` follow. Returns false, changing nothing,
 * when that is impossible (`to` is a region input, output or constant, or lives in
 * another region): the caller then keeps its node. */
bool rw_redirect(Graph *g, ValueId from, ValueId to);

/* Appends the origins (ONNX node names) of `src` to those of `dst`; _prepend puts
 * them first (src ran earlier). */
void rw_origins_append(Graph *g, NodeId dst, NodeId src);
void rw_origins_prepend(Graph *g, NodeId dst, NodeId src);

/* A new constant in region r named after `base` (made unique in the graph). May
 * move g->values: re-fetch Value pointers afterwards. */
ValueId rw_const_new(Graph *g, RegionId r, const char *base, const Type *t, const void *data);
/* Element i of a constant (any numeric dtype) as a double. */
double rw_const_f64(const Graph *g, ValueId v, int64_t i);
/* Stores v as element i of a buffer of dtype dt (float dtypes round, ints truncate). */
void rw_store_f64(DType dt, void *buf, int64_t i, double v);

/* Turns node id into `op` in place: the inputs become in[0..n_in), the attributes
 * are imported afresh from raw (the node's opset defaults for the rest); its
 * outputs stay. The caller re-infers. Returns 0, or -1 with diagnostics in d. */
int rw_node_reset(Graph *g, NodeId id, Op op, const ValueId *in, int n_in, const RawAttr *raw,
                  int n_raw, DiagSink *d);
/* Sets the inputs of node id (a fresh array). */
void rw_node_set_inputs(Graph *g, NodeId id, const ValueId *in, int n_in);
/* Re-runs inference on a rewritten node; its outputs must keep their types (a
 * compiler bug otherwise). */
void rw_reinfer(Graph *g, NodeId id);
/* Moves node id to the slot of node `at` (same region; `at` comes later), so it
 * runs where `at` ran. */
void rw_node_move_to(Graph *g, NodeId id, NodeId at);
/* Moves node id (later in the same region: one just appended) to just before node
 * `at`, so it runs first. */
void rw_node_move_before(Graph *g, NodeId id, NodeId at);

/* Appends a node of `op` (opset 13 semantics, its attributes typed from raw) to
 * region r, its origin `origin`; nothing is inferred yet. Attributes it rejects are
 * a compiler bug. */
NodeId rw_node_new(Graph *g, RegionId r, Op op, const ValueId *in, int n_in, const ValueId *out,
                   int n_out, const char *origin, const RawAttr *raw, int n_raw, DiagSink *d);

/* Marks every node of region r and of its nested regions dead and drops the
 * region's outputs (a branch not taken, the body of a removed node). */
void rw_region_kill(Graph *g, RegionId r);

/* ---- expand.c: the nodes that replace the node c->node, one per call ---- */

/* rw_node_new in c->node's region, named after c->node; place it with rw_place_after. */
NodeId rw_add_node(InferCtx *c, Op op, const ValueId *in, int n_in, const ValueId *out,
                   int n_out, const RawAttr *raw, int n_raw);
/* Adds `op` on in[0..n_in) writing `out`, or a new value "<node>.<what>" when out is
 * IR_NONE, and returns the output. */
ValueId rw_step(InferCtx *c, Op op, const ValueId *in, int n_in, ValueId out,
                const RawAttr *raw, int n_raw, const char *what);
ValueId rw_cast(InferCtx *c, ValueId v, DType to, const char *what);
ValueId rw_reshape(InferCtx *c, ValueId v, int rank, const int64_t *dims, ValueId out,
                   const char *what);
/* The constant 1-D int64 tensor v[n], named "<node>.<what>". */
ValueId rw_i64_const(InferCtx *c, const char *what, int n, const int64_t *v);
/* A constant of float type t with the values v[numel] (f16 and bf16 through a folded Cast). */
ValueId rw_float_const(InferCtx *c, DType t, int rank, const int64_t *dims, const double *v,
                       const char *what);
/* Moves the nodes appended to node id's region from index `first` on to right
 * after id, then infers (and folds) them in order. 0 or -1 with diagnostics. */
int rw_place_after(Graph *g, NodeId id, int first, DiagSink *d);
/* The lower() of an op that inference always replaces: never called, returns -1. */
int rw_never_lowered(LowerCtx *c);

/* Raw attributes for rw_add_node and rw_step. */
static inline RawAttr rw_raw_int(const char *name, int64_t v)
{
	RawAttr r;
	memset(&r, 0, sizeof r);
	r.name = name;
	r.kind = RA_INT;
	r.i = v;
	return r;
}

static inline RawAttr rw_raw_ints(const char *name, const int64_t *v, int n)
{
	RawAttr r;
	memset(&r, 0, sizeof r);
	r.name = name;
	r.kind = RA_INTS;
	r.ints = v;
	r.n = n;
	return r;
}

#endif /* INGOT_GRAPH_REWRITE_H */
