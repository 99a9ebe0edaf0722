/* fold.c — evaluating nodes at compile time through the same reference kernels the
 * C target emits, so a folded constant is bit-identical to what the model computes. */
#include "opimpl.h"

#include "random.h"

#include <stdlib.h>
#include <string.h>

/* Constants larger than this stay computed at run time rather than bloating weights. */
#define FOLD_MAX_BYTES ((int64_t)16 << 20)

/* Ops whose result depends only on their input's (static) type, not its values:
 * they fold even when the input is computed at run time. */
static bool reads_only_types(Op op)
{
	return op == OP_SHAPE || op == OP_SIZE;
}

bool ops_node_foldable(const Graph *g, NodeId id)
{
	const Node *n = &g->nodes[id];
	if (n->dead || n->n_bodies || ops_node_random(g, id))   /* a fresh draw every run */
		return false;
	if (n->op == OP_DEQUANTIZE_LINEAR && !g->qdq_folded)   /* passes/fold_qdq.c wants them */
		return false;
	for (int i = 0; i < n->n_in && !reads_only_types(n->op); i++)
		if (n->in[i] != IR_NONE && !g->values[n->in[i]].is_const)
			return false;
	for (int i = 0; i < n->n_out; i++) {
		if (n->out[i] == IR_NONE)
			continue;
		const Value *v = &g->values[n->out[i]];
		if (v->is_output || type_bytes(&v->type) > FOLD_MAX_BYTES)
			return false;
	}
	return true;
}

int ops_run_node(Graph *g, NodeId id, const void *const *in, void *const *out)
{
	Node *n = &g->nodes[id];
	LowerCtx lc;
	memset(&lc, 0, sizeof lc);
	lc.g = g;
	lc.node = id;
	if (op_info(n->op)->impl->lower(&lc) || !lc.kc.fn)
		return -1;
	void *scratch = NULL;
	if (lc.kc.scratch_bytes > 0) {
		scratch = calloc(1, (size_t)lc.kc.scratch_bytes);
		if (!scratch)
			die("out of memory (%lld bytes of kernel scratch)", (long long)lc.kc.scratch_bytes);
	}
	/* a random kernel's state comes after the inputs: a fresh one, as a workspace
	 * never seeded has in its first run (tests run random nodes this way) */
	const void *ins[8];
	uint64_t state[INGOT_RNG_STATE_BYTES / 8] = { 0 };
	if (lc.kc.rng) {
		IR_ASSERT(n->n_in < 8);   /* random ops take at most 3 inputs */
		for (int i = 0; i < n->n_in; i++)
			ins[i] = in[i];
		ingot_rng_begin(state);
		ins[n->n_in] = state;
		in = ins;
	}
	int rc = lc.kc.fn(lc.kc.params, in, out, scratch, 0, 1);
	free(scratch);
	return rc;
}

int ops_fold_node(Graph *g, NodeId id, DiagSink *d)
{
	Node *n = &g->nodes[id];
	const void *in[64];
	void *out[128];              /* outputs, then the dims slots of dynamic outputs */
	int64_t dims[64][INGOT_MAX_RANK];
	int rc, n_dyn = 0;
	if (n->n_in > 64 || n->n_out > 64)
		return 0;
	for (int i = 0; i < n->n_in; i++)   /* NULL for a type-only input's data */
		in[i] = n->in[i] == IR_NONE ? NULL : ir_const_data(g, n->in[i]);
	for (int i = 0; i < n->n_out; i++) {
		out[i] = NULL;
		if (n->out[i] == IR_NONE)
			continue;
		int64_t bytes = type_bytes(&g->values[n->out[i]].type);
		out[i] = calloc(1, (size_t)(bytes > 0 ? bytes : 1));
		if (!out[i])
			die("out of memory");
	}
	/* a data-dependent size becomes static once the node is evaluated */
	for (int i = 0; i < n->n_out; i++)
		if (n->out[i] != IR_NONE && g->values[n->out[i]].dynamic)
			out[n->n_out + n_dyn++] = dims[i];
	rc = ops_run_node(g, id, in, out);
	if (rc == 0) {
		n_dyn = 0;
		for (int i = 0; i < n->n_out; i++) {
			Value *v = n->out[i] == IR_NONE ? NULL : &g->values[n->out[i]];
			if (!v)
				continue;
			if (v->dynamic) {
				const int64_t *actual = out[n->n_out + n_dyn++];
				for (int k = 0; k < v->type.rank; k++)
					IR_ASSERT(actual[k] >= 0 && actual[k] <= v->type.dims[k]);
				memcpy(v->type.dims, actual, (size_t)v->type.rank * sizeof *actual);
				v->dynamic = false;
			}
			ir_value_set_const(g, n->out[i], out[i]);
		}
		n->dead = true;
	} else if (rc > 0) {
		DiagLoc l = ir_node_loc(g, id);
		diag_report(d, DIAG_ERROR, DC_SHAPE, &l, "constant evaluation failed (%s)",
		            rc == INGOT_ERANGE ? "index out of range" : "invalid argument");
	}
	for (int i = 0; i < n->n_out; i++)
		free(out[i]);
	return rc > 0 ? -1 : 0;
}
