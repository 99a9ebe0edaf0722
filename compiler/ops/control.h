/* control.h — control flow (If, Loop, Scan; compiler/ops/control.c) as the other
 * layers see it: the typed attributes, inference recursing into bodies (infer.c),
 * and the layout of a control node's own workspace block, which memory planning
 * places and the C code generator addresses.
 *
 * A control node runs its bodies as functions. While it runs, one workspace block
 * is live: first the node's own buffers (the two copies of each loop-carried value,
 * slices of scan inputs that are not contiguous, scan-output elements that cannot
 * be written in place), then the arena of its bodies (the largest of them). */
#ifndef INGOT_CONTROL_H
#define INGOT_CONTROL_H

#include "opimpl.h"

#include <string.h>

/* One struct serves the groups if_else, loop and scan. */
typedef struct CtrlAttrs {
	/* Scan: per scan input / output, normalized by inference (axes >= 0) */
	int64_t num_scan_inputs;
	IntList scan_input_axes, scan_input_directions;
	IntList scan_output_axes, scan_output_directions;
	/* inference results */
	int64_t trip;            /* Loop: iterations when known at compile time, else -1;
	                            Scan: the sequence length */
	int64_t batch;           /* Scan-8: the batch dim (1 from Scan-9 on) */
	/* memory planning results: the node's workspace block */
	int64_t ws_off;          /* offset in the workspace, -1 before planning */
	int64_t ws_bytes;
} CtrlAttrs;

/* The node's own buffers, as offsets from the start of its workspace block. */
typedef struct CtrlTemp {
	int n_carried;           /* Loop/Scan state values */
	int64_t *carried[2];     /* per carried value: its two buffers */
	int n_scan_in;
	int64_t *scan_in;        /* per scan input: a slice buffer, -1 when read in place */
	int n_out;
	int64_t *out_buf;        /* per node output: a buffer the body writes instead of the
	                            output (omitted outputs, scattered scan outputs), or -1 */
	int64_t own_bytes;       /* bytes of the buffers; the bodies' arena follows */
} CtrlTemp;

/* Fills t for a control node (arrays in the graph arena). */
void ctrl_temp_layout(Graph *g, NodeId n, CtrlTemp *t);

/* Loops with more iterations than this are never unrolled. */
#define CTRL_UNROLL_MAX_TRIP 1024

/* control_unroll.c: whether a Loop (its trip count inferred) is small enough to
 * unroll, and unrolling it into its region (the copies inferred and folded; the
 * Loop and its body die). 0 or -1 with diagnostics. */
bool ctrl_can_unroll(const Graph *g, NodeId n);
int ctrl_loop_unroll(Graph *g, NodeId n, DiagSink *d);

/* control_unroll.c: appends a copy of body b's nodes to region r (names get
 * `suffix`), body input i standing for inputs[i]; outputs[i] receives the copy of
 * body output i. Nothing is inferred yet. */
void ctrl_body_copy(Graph *g, RegionId b, RegionId r, const ValueId *inputs, ValueId *outputs,
                    const char *suffix);
/* Moves the nodes appended to node id's region from index `first` on to right
 * after id, then infers (and folds) them in order. 0 or -1 with diagnostics. */
int ctrl_place_after(Graph *g, NodeId id, int first, DiagSink *d);

/* control_unroll.c: for ops that inference rewrites into others (sequences,
 * CenterCropPad). ctrl_add_node appends a node of `op` (opset 13 semantics, its
 * attributes typed from raw, named after node c->node) to c->node's region; place it
 * with ctrl_place_after. ctrl_i64_const makes the constant 1-D int64 tensor v[n],
 * named "<node>.<what>". */
NodeId ctrl_add_node(InferCtx *c, Op op, const ValueId *in, int n_in, const ValueId *out,
                     int n_out, const RawAttr *raw, int n_raw);
ValueId ctrl_i64_const(InferCtx *c, const char *what, int n, const int64_t *v);

/* rewrite.c: building the expansion of an op that inference rewrites into others, one
 * node per call (see ctrl_add_node). ctrl_step adds `op` on in[0..n_in) writing `out`,
 * or a new value "<node>.<what>" when out is IR_NONE, and returns the output. */
ValueId ctrl_step(InferCtx *c, Op op, const ValueId *in, int n_in, ValueId out,
                  const RawAttr *raw, int n_raw, const char *what);
ValueId ctrl_cast(InferCtx *c, ValueId v, DType to, const char *what);
ValueId ctrl_reshape(InferCtx *c, ValueId v, int rank, const int64_t *dims, ValueId out,
                     const char *what);
/* A constant of float type t with the values v[numel] (f16 and bf16 through a folded Cast). */
ValueId ctrl_float_const(InferCtx *c, DType t, int rank, const int64_t *dims, const double *v,
                         const char *what);
/* The lower() of an op that inference always replaces: never called, returns -1. */
int ctrl_never_lowered(LowerCtx *c);
/* The most negative finite value of float type t: masked scores, as ONNX Runtime uses. */
double ctrl_lowest(DType t);

static inline RawAttr ctrl_attr_int(const char *name, int64_t v)
{
	RawAttr r;
	memset(&r, 0, sizeof r);
	r.name = name;
	r.kind = RA_INT;
	r.i = v;
	return r;
}

static inline RawAttr ctrl_attr_ints(const char *name, const int64_t *v, int n)
{
	RawAttr r;
	memset(&r, 0, sizeof r);
	r.name = name;
	r.kind = RA_INTS;
	r.ints = v;
	r.n = n;
	return r;
}

/* sequence_flow.c: whether a Loop carries or builds sequences (then it must be
 * unrolled), and giving an If with a run-time condition one output per element of
 * the sequences its branches yield (they must agree in length). 0 or -1. */
bool ops_seq_loop_needs_unroll(const Graph *g, NodeId n);
int ops_seq_if_expand(Graph *g, NodeId n, DiagSink *d);

/* infer.c: infers (and folds) a body's nodes once its inputs are typed. */
int ops_infer_region(Graph *g, RegionId r, DiagSink *d);

/* Whether region r is `root` or nested inside it. */
bool ctrl_region_within(const Graph *g, RegionId r, RegionId root);

/* Marks every node of region r and of its nested regions dead and drops the
 * region's outputs (a branch not taken, the body of a removed node). */
void ctrl_region_kill(Graph *g, RegionId r);

#endif /* INGOT_CONTROL_H */
