/* control_export.h — control flow (If, Loop, Scan; compiler/ops/control.c) as the
 * layers above the ops see it: the typed attributes, the layout of a control node's
 * own workspace block, which memory planning places and the C code generator
 * addresses, and whether a region lies inside another. Killing a region is the
 * rewrite toolkit's rw_region_kill (graph_rewrite.h).
 *
 * A control node runs its bodies as functions. While it runs, one workspace block
 * is live: first the node's own buffers (the two copies of each loop-carried value,
 * slices of scan inputs that are not contiguous, scan-output elements that cannot
 * be written in place), then the arena of its bodies (the largest of them). */
#ifndef INGOT_CONTROL_EXPORT_H
#define INGOT_CONTROL_EXPORT_H

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

/* Whether region r is `root` or nested inside it. */
bool ctrl_region_within(const Graph *g, RegionId r, RegionId root);

#endif /* INGOT_CONTROL_EXPORT_H */
