/* rewrite.h — what the rewriting passes share: use counts, redirecting uses of a
 * value that disappears (keeping graph output names, which are the API), comparing
 * attribute structs through an op's AttrField table, new constants with unique
 * names, turning a node into another op in place, and moving nodes. A pass reads
 * and writes attributes through the typed structs of op_attrs.h.
 *
 * Sections: rewrite.c.
 */
#ifndef INGOT_REWRITE_H
#define INGOT_REWRITE_H

#include "ir.h"
#include "opimpl.h"

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
int ir_replace_uses(Graph *g, ValueId old, ValueId new_v);

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

/* Field-by-field equality of two attribute structs of op (floats bitwise). */
bool rw_attrs_equal(Op op, const void *a, const void *b);

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

#endif /* INGOT_REWRITE_H */
