/* verify.c — structural invariants of the IR, checked after the frontend and after
 * every pass in debug and test builds. A violation is a compiler bug. */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

static int fail(char *err, size_t cap, const char *what, const Graph *g, NodeId n)
{
	snprintf(err, cap, "%s (node %d '%s' %s)", what, n, n >= 0 ? ir_node_name(g, n) : "",
	         n >= 0 ? ir_op_name(g->nodes[n].op) : "");
	return -1;
}

int ir_verify(const Graph *g, char *err, size_t cap)
{
	/* every value defined before use: mark inputs and constants, walk in order */
	unsigned char *defined = calloc((size_t)g->n_values + 1, 1);
	int rc = 0;
	if (!defined)
		die("out of memory");
	for (ValueId v = 0; v < g->n_values; v++)
		if (g->values[v].is_const || g->values[v].is_input || g->values[v].seq)
			defined[v] = 1;   /* a sequence input is defined by its element inputs */
	for (RegionId r = 0; r < g->n_regions && !rc; r++) {
		const Region *reg = &g->regions[r];
		for (int i = 0; i < reg->n_nodes && !rc; i++) {
			NodeId id = reg->nodes[i];
			const Node *n = &g->nodes[id];
			if (id < 0 || id >= g->n_nodes) {
				rc = fail(err, cap, "region lists a bad node id", g, -1);
				break;
			}
			if (n->dead)
				continue;
			if (n->region != r)
				rc = fail(err, cap, "node in the wrong region", g, id);
			if ((unsigned)n->op >= OP_COUNT)
				rc = fail(err, cap, "bad op", g, id);
			for (int k = 0; k < n->n_in && !rc; k++) {
				ValueId v = n->in[k];
				if (v == IR_NONE)
					continue;
				if (v < 0 || v >= g->n_values)
					rc = fail(err, cap, "input is a bad value id", g, id);
				else if (!defined[v] && g->values[v].region == r)
					rc = fail(err, cap, "input used before it is defined", g, id);
			}
			for (int k = 0; k < n->n_out && !rc; k++) {
				ValueId v = n->out[k];
				if (v == IR_NONE)
					continue;
				if (v < 0 || v >= g->n_values)
					rc = fail(err, cap, "output is a bad value id", g, id);
				else if (g->values[v].producer != id || g->values[v].producer_slot != k)
					rc = fail(err, cap, "output's producer link is wrong", g, id);
				else if (type_bytes(&g->values[v].type) < 0)
					rc = fail(err, cap, "output has an invalid type", g, id);
				else
					defined[v] = 1;
			}
		}
		for (int i = 0; i < reg->n_outputs && !rc; i++) {
			ValueId v = reg->outputs[i];
			if (v < 0 || v >= g->n_values || !defined[v])
				rc = fail(err, cap, "region output is never defined", g, -1);
		}
	}
	free(defined);
	return rc;
}
