/* inspect_place.c — `ingot inspect --target opencl`: the placement's partitions, read
 * back from the final graph (device nodes joined by the values they hand each other),
 * the copies and the bytes they move per run, the cost model's estimate of all-CPU and
 * of the chosen plan, each island as the model weighed it (what running it on the
 * device saves against what its transfers cost), and why every CPU node stays there. */
#include "driver.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static int find(int *root, int x)
{
	while (root[x] != x)
		x = root[x] = root[root[x]];
	return x;
}

static const char *node_name(const Graph *g, NodeId id)
{
	const Node *n = &g->nodes[id];
	return n->n_origins ? n->origins[0] : ir_op_name(n->op);
}

/* Why live CPU node id is not on the device. */
static const char *cpu_reason(const Options *o, const Target *t, Graph *g, NodeId id)
{
	const Node *n = &g->nodes[id];
	const char *why = "its op has no OpenCL kernel";
	if (!op_has(n->op, OPF_DEVICE))
		return why;
	if (n->n_bodies)
		return "control flow stays on the CPU";
	if (!t->device_supported(t, g, id, &why))
		return why;
	if (o->placement == PLACE_CPU)
		return "--placement cpu";
	for (int k = 0; k < o->n_places; k++)
		if (!o->places[k].device && quant_keep_matches(g, id, &o->places[k].node, 1))
			return "--place cpu";
	return "the cost model kept its island on the CPU";
}

/* The partitions: root[i] for every device node, and the count. */
static int partitions(const Graph *g, int *root)
{
	int n = 0;
	for (int i = 0; i < g->n_nodes; i++)
		root[i] = i;
	for (int i = 0; i < g->n_nodes; i++) {
		const Node *nd = &g->nodes[i];
		if (nd->dead || !nd->device)
			continue;
		for (int k = 0; k < nd->n_in; k++) {
			NodeId p = nd->in[k] == IR_NONE ? IR_NONE : g->values[nd->in[k]].producer;
			if (p != IR_NONE && !g->nodes[p].dead && g->nodes[p].device)
				root[find(root, p)] = find(root, i);
		}
	}
	for (int i = 0; i < g->n_nodes; i++)
		n += !g->nodes[i].dead && g->nodes[i].device && find(root, i) == i;
	return n;
}

static const char *mode_name(PlaceMode m)
{
	return m == PLACE_DEVICE ? "device" : m == PLACE_CPU ? "cpu" : "auto";
}

void inspect_place_print(const Options *o, Graph *g, const PlaceConfig *pc, bool json)
{
	const Region *main = &g->regions[0];
	const Target *t = driver_target(o);
	int *root = malloc(((size_t)g->n_nodes + 1) * sizeof *root);
	int n_part, n_cpu = 0, n_dev = 0, part = 0;
	if (!root)
		die("out of memory");
	n_part = partitions(g, root);
	for (int i = 0; i < main->n_nodes; i++) {
		const Node *n = &g->nodes[main->nodes[i]];
		if (n->dead || n->op == OP_COPY_TO_DEVICE || n->op == OP_COPY_TO_HOST)
			continue;
		n_dev += n->device;
		n_cpu += !n->device;
	}
	if (json) {
		printf(", \"placement\": {\"mode\": \"%s\", \"partitions\": %d, \"device_nodes\": %d, \"cpu_nodes\": %d, "
		       "\"copies\": %d, \"bytes_moved\": %" PRId64 ", \"est_cpu_us\": %.3f, \"est_placed_us\": %.3f, "
		       "\"islands\": [", mode_name(pc->mode), n_part, n_dev, n_cpu, pc->n_copies, pc->bytes_moved,
		       pc->est_cpu_us, pc->est_placed_us);
		for (int i = 0; i < pc->n_islands && i < PLACE_MAX_ISLANDS; i++) {
			const struct PlaceIsland *is = &pc->islands[i];
			printf("%s{\"first\": \"%s\", \"nodes\": %d, \"save_us\": %.3f, \"xfer_us\": %.3f, \"device\": %s}",
			       i ? ", " : "", node_name(g, is->first), is->n_nodes, is->save_us, is->xfer_us,
			       is->on_device ? "true" : "false");
		}
		printf("], \"cpu\": [");
		for (int i = 0, first = 1; i < main->n_nodes; i++) {
			NodeId id = main->nodes[i];
			const Node *n = &g->nodes[id];
			if (n->dead || n->device || n->op == OP_COPY_TO_DEVICE || n->op == OP_COPY_TO_HOST)
				continue;
			printf("%s{\"node\": \"%s\", \"op\": \"%s\", \"why\": \"%s\"}", first ? "" : ", ", node_name(g, id),
			       ir_op_name(n->op), cpu_reason(o, t, g, id));
			first = 0;
		}
		printf("]}");
		free(root);
		return;
	}
	printf("\nplacement (--placement %s): %d of %d nodes on the device in %d partition%s, %d copies moving "
	       "%" PRId64 " bytes per run\n", mode_name(pc->mode), n_dev, n_dev + n_cpu, n_part, n_part == 1 ? "" : "s",
	       pc->n_copies, pc->bytes_moved);
	printf("  estimate: all-CPU %.1f us, this plan %.1f us (the cost model of targets/targets.h)\n",
	       pc->est_cpu_us, pc->est_placed_us);
	for (int i = 0; i < pc->n_islands && i < PLACE_MAX_ISLANDS; i++) {
		const struct PlaceIsland *is = &pc->islands[i];
		printf("  island %d: %d node%s from '%s': device saves %.1f us, transfers cost %.1f us -> %s\n", i + 1,
		       is->n_nodes, is->n_nodes == 1 ? "" : "s", node_name(g, is->first), is->save_us, is->xfer_us,
		       is->on_device ? "device" : "CPU");
	}
	for (int i = 0; i < main->n_nodes; i++) {
		NodeId id = main->nodes[i];
		if (g->nodes[id].dead || !g->nodes[id].device || find(root, id) != id)
			continue;
		printf("  partition %d:", ++part);
		for (int k = 0; k < main->n_nodes; k++) {
			NodeId m = main->nodes[k];
			if (!g->nodes[m].dead && g->nodes[m].device && find(root, m) == id)
				printf(" %s", node_name(g, m));
		}
		printf("\n");
	}
	for (int i = 0; i < main->n_nodes; i++) {
		NodeId id = main->nodes[i];
		const Node *n = &g->nodes[id];
		if (n->dead || n->op == OP_COPY_TO_DEVICE || n->op == OP_COPY_TO_HOST)
			continue;
		if (!n->device)
			printf("  cpu: %s (%s): %s\n", node_name(g, id), ir_op_name(n->op), cpu_reason(o, t, g, id));
	}
	for (int i = 0; i < main->n_nodes; i++) {
		const Node *n = &g->nodes[main->nodes[i]];
		if (!n->dead && (n->op == OP_COPY_TO_DEVICE || n->op == OP_COPY_TO_HOST))
			printf("  copy: %s %s (%" PRId64 " bytes)\n", ir_op_name(n->op), g->values[n->in[0]].name,
			       type_bytes(&g->values[n->in[0]].type));
	}
	free(root);
}
