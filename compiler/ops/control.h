/* control.h — control flow (If, Loop, Scan; compiler/ops/control.c) as the other
 * files see it: the typed attributes (every node with bodies has them, SequenceMap's
 * too), unrolling and copying bodies, and the layout of a control node's own
 * workspace block, which memory planning places and the C code generator addresses.
 * It declares only what control.c and control_unroll.c define; they reach inference
 * (opimpl.h), the sequence hooks (opimpl.h) and the rewrite toolkit (graph_rewrite.h)
 * through those headers, and nothing those headers declare depends on this one.
 *
 * A control node runs its bodies as functions. While it runs, one workspace block
 * is live: first the node's own buffers (the two copies of each loop-carried value,
 * slices of scan inputs that are not contiguous, scan-output elements that cannot
 * be written in place), then the arena of its bodies (the largest of them). */
#ifndef INGOT_CONTROL_H
#define INGOT_CONTROL_H

#include "opimpl.h"

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
 * body output i. Nothing is inferred yet (SequenceMap places them with
 * rw_place_after, graph_rewrite.h). */
void ctrl_body_copy(Graph *g, RegionId b, RegionId r, const ValueId *inputs, ValueId *outputs,
                    const char *suffix);

/* control.c: whether region r is `root` or nested inside it. */
bool ctrl_region_within(const Graph *g, RegionId r, RegionId root);

#endif /* INGOT_CONTROL_H */
