/* control.h — control flow (If, Loop, Scan; compiler/ops/control.c) inside the ops
 * layer: unrolling and copying bodies. It declares only what control.c and
 * control_unroll.c define; they reach inference and the sequence hooks (opimpl.h)
 * and the rewrite toolkit (graph_rewrite.h) through those headers, and nothing those
 * headers declare depends on this one. What the layers above see (the attributes,
 * the workspace layout, ctrl_region_within) is control_export.h. */
#ifndef INGOT_CONTROL_H
#define INGOT_CONTROL_H

#include "control_export.h"


/* Loops with more iterations than this are never unrolled. */
#define CTRL_UNROLL_MAX_TRIP 1024

/* control_unroll.c: whether a Loop (its trip count inferred) is small enough to
 * unroll, and unrolling it into its region (the copies inferred and folded; the
 * Loop and its body die). 0 or -1 with diagnostics. */
bool ctrl_can_unroll(const Graph *g, NodeId n);
int ctrl_loop_unroll(Graph *g, NodeId n, DiagSink *d);

/* control_unroll.c: appends a copy of body b's nodes to region r (names get
 * `suffix`), body input i standing for inputs[i]; outputs[i] receives the copy of
 * body output i. Nothing is inferred yet (SequenceMap places them with
 * rw_place_after, graph_rewrite.h). */
void ctrl_body_copy(Graph *g, RegionId b, RegionId r, const ValueId *inputs, ValueId *outputs,
                    const char *suffix);


#endif /* INGOT_CONTROL_H */
