/* control.h — control flow (If, Loop, Scan; compiler/ops/control.c) inside the ops
 * layer: inference recursing into bodies (infer.c), unrolling, and the expansions
 * inference builds. What the layers above see is control_export.h. */
#ifndef INGOT_CONTROL_H
#define INGOT_CONTROL_H

#include "control_export.h"

#include <string.h>

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

#endif /* INGOT_CONTROL_H */
