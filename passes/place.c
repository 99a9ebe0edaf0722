/* place.c — the placement pass of --target opencl: which nodes of the main graph run
 * on the OpenCL device, and the explicit transfers between the two memories.
 *
 * A node may go to the device when its op carries OPF_DEVICE and the target's
 * predicate (codegen/opencl/lower.c) accepts its dtypes and attributes; --place
 * NODE=cpu|device overrides that (a forced device node the device cannot run is an
 * error). Under --placement device every such node goes; under cpu none; under auto
 * (the default) the candidates form islands, the connected groups of candidates that
 * hand values to each other, and each island is weighed as a whole: the time the
 * cost model (PlaceCost, from the target description) saves by running its nodes on
 * the device against the time its transfers take (every value entering or leaving
 * it once per run: a latency plus bytes over the link's bandwidth). An island whose
 * transfers cost at least what it saves stays on the CPU — the point of the pass: a
 * graph cut into many small device pieces is slower than the CPU alone.
 *
 * Then every value crossing between the two sides gets one CopyToDevice (placed just
 * before its first device reader) or CopyToHost (just after its device producer);
 * a graph output made on the device keeps its name on the host copy. Constants live
 * in both memories (the weights are uploaded once) and need no copy. Bodies of
 * control-flow nodes, and the nodes that own them, stay on the CPU.
 */
#include "passes.h"
#include "rewrite.h"

#include <inttypes.h>
#include <stdlib.h>

typedef struct Place {
	Graph *g;
	PlaceConfig *cfg;
	DiagSink *d;
	signed char *forced;     /* per node: 1 device, 0 cpu, -1 none (--place) */
	bool *cand;              /* per node: a device candidate */
	int *root;               /* per node: union-find parent over candidates */
} Place;

static int find(int *root, int x)
{
	while (root[x] != x)
		x = root[x] = root[root[x]];
	return x;
}

/* Estimated microseconds of node n on the CPU and on the device. */
static void node_cost(const Graph *g, const PlaceCost *c, NodeId id, double *cpu_us, double *dev_us)
{
	const Node *n = &g->nodes[id];
	double bytes = 0, flops = 2.0 * (double)ops_node_macs(g, id);
	for (int k = 0; k < n->n_in; k++)
		if (n->in[k] != IR_NONE)
			bytes += (double)type_bytes(&g->values[n->in[k]].type);
	for (int k = 0; k < n->n_out; k++)
		if (n->out[k] != IR_NONE) {
			bytes += (double)type_bytes(&g->values[n->out[k]].type);
			if (flops == 0)   /* elementwise and data movement: one op per element */
				flops = (double)type_numel(&g->values[n->out[k]].type);
		}
	if (op_has(n->op, OPF_VIEW)) {   /* a view: no code on either side */
		*cpu_us = *dev_us = 0;
		return;
	}
	double tc = flops / (c->host_gflops * 1e3), bc = bytes / (c->host_gbps * 1e3);
	double td = flops / (c->dev_gflops * 1e3), bd = bytes / (c->dev_gbps * 1e3);
	*cpu_us = tc > bc ? tc : bc;
	*dev_us = c->launch_us + (td > bd ? td : bd);
}

static double copy_us(const PlaceCost *c, int64_t bytes)
{
	return c->link_us + (double)bytes / (c->link_gbps * 1e3);
}

/* Whether value v is read by a node outside island `isl` (a CPU node or another
 * island) or is a graph output. */
static bool leaves(const Place *P, ValueId v, int isl)
{
	const Graph *g = P->g;
	if (g->values[v].is_output)
		return true;
	for (int i = 0; i < g->n_nodes; i++) {
		const Node *n = &g->nodes[i];
		if (n->dead)
			continue;
		for (int k = 0; k < n->n_in; k++)
			if (n->in[k] == v && (!P->cand[i] || find(P->root, i) != isl))
				return true;
	}
	return false;
}

/* Whether v needs a copy to reach the device (not a constant, not made there). */
static bool host_value(const Place *P, ValueId v)
{
	const Value *val = &P->g->values[v];
	return !val->is_const && (val->producer == IR_NONE || !P->cand[val->producer]);
}

/* The transfer time of island isl (each crossing value once) and whether any of its
 * nodes is forced onto the device. */
static double island_transfers(const Place *P, int isl, bool *forced)
{
	const Graph *g = P->g;
	bool *seen = calloc((size_t)g->n_values + 1, 1);
	double us = 0;
	*forced = false;
	for (int i = 0; i < g->n_nodes; i++) {
		const Node *n = &g->nodes[i];
		if (!P->cand[i] || find(P->root, i) != isl)
			continue;
		*forced |= P->forced[i] == 1;
		for (int k = 0; k < n->n_in; k++) {
			ValueId v = n->in[k];
			if (v != IR_NONE && !seen[v] && host_value(P, v)) {
				seen[v] = 1;
				us += copy_us(&P->cfg->cost, type_bytes(&g->values[v].type));
			}
		}
		for (int k = 0; k < n->n_out; k++) {
			ValueId v = n->out[k];
			if (v != IR_NONE && !seen[v] && leaves(P, v, isl)) {
				seen[v] = 1;
				us += copy_us(&P->cfg->cost, type_bytes(&g->values[v].type));
			}
		}
	}
	free(seen);
	return us;
}

/* The candidates: OPF_DEVICE ops the target accepts, unless --place says otherwise. */
static int pick_candidates(Place *P)
{
	Graph *g = P->g;
	const Region *main = &g->regions[0];
	for (int k = 0; k < P->cfg->n_overrides; k++) {
		const PlaceOverride *o = &P->cfg->overrides[k];
		bool found = false;
		for (int i = 0; i < main->n_nodes; i++) {
			NodeId id = main->nodes[i];
			const char *const names[1] = { o->node };
			if (!g->nodes[id].dead && quant_keep_matches(g, id, names, 1)) {
				P->forced[id] = o->device ? 1 : 0;
				found = true;
			}
		}
		if (!found) {
			DiagLoc l = diag_loc_file(g->file);
			diag_report(P->d, DIAG_ERROR, DC_USAGE, &l, "--place: no node named '%s'", o->node);
			return -1;
		}
	}
	for (int i = 0; i < main->n_nodes; i++) {
		NodeId id = main->nodes[i];
		const Node *n = &g->nodes[id];
		const char *why = "its op has no OpenCL kernel";
		bool ok;
		if (n->dead)
			continue;
		ok = !n->n_bodies && op_has(n->op, OPF_DEVICE) &&
		     P->cfg->supported(P->cfg->target, g, id, &why);
		if (P->forced[id] == 1 && !ok) {
			DiagLoc l = ir_node_loc(g, id);
			diag_report(P->d, DIAG_ERROR, DC_USAGE, &l, "--place device: %s", why);
			return -1;
		}
		P->cand[id] = P->forced[id] == 1 ||
		              (ok && P->forced[id] != 0 && P->cfg->mode != PLACE_CPU);
	}
	return 0;
}

/* Unions candidates that hand values to each other; returns the islands' count. */
static int make_islands(Place *P)
{
	Graph *g = P->g;
	int n_islands = 0;
	for (int i = 0; i < g->n_nodes; i++)
		P->root[i] = i;
	for (int i = 0; i < g->n_nodes; i++) {
		const Node *n = &g->nodes[i];
		if (!P->cand[i])
			continue;
		for (int k = 0; k < n->n_in; k++) {
			ValueId v = n->in[k];
			NodeId p = v == IR_NONE ? IR_NONE : g->values[v].producer;
			if (p != IR_NONE && P->cand[p])
				P->root[find(P->root, p)] = find(P->root, i);
		}
	}
	for (int i = 0; i < g->n_nodes; i++)
		n_islands += P->cand[i] && find(P->root, i) == i;
	return n_islands;
}

/* Under auto: islands whose transfers cost at least what they save go back to the
 * CPU; fills the estimates. */
static void weigh_islands(Place *P)
{
	Graph *g = P->g;
	PlaceConfig *cfg = P->cfg;
	double *save = calloc((size_t)g->n_nodes + 1, sizeof *save);
	cfg->est_cpu_us = 0;
	for (int i = 0; i < g->n_nodes; i++) {
		double c, dv;
		if (g->nodes[i].dead || g->nodes[i].region != 0)
			continue;
		node_cost(g, &cfg->cost, i, &c, &dv);
		cfg->est_cpu_us += c;
		if (P->cand[i])
			save[find(P->root, i)] += c - dv;
	}
	cfg->est_placed_us = cfg->est_cpu_us;
	for (int i = 0; i < g->n_nodes; i++) {
		bool forced;
		double xfer;
		if (!P->cand[i] || find(P->root, i) != i)
			continue;
		xfer = island_transfers(P, i, &forced);
		if (cfg->n_islands < PLACE_MAX_ISLANDS) {
			struct PlaceIsland *is = &cfg->islands[cfg->n_islands];
			is->first = IR_NONE;
			is->n_nodes = 0;
			for (int k = 0; k < g->regions[0].n_nodes; k++) {
				NodeId id = g->regions[0].nodes[k];
				if (P->cand[id] && find(P->root, id) == i) {
					is->first = is->first == IR_NONE ? id : is->first;
					is->n_nodes++;
				}
			}
			is->save_us = save[i];
			is->xfer_us = xfer;
			is->on_device = !(cfg->mode == PLACE_AUTO && !forced && xfer >= save[i]);
		}
		cfg->n_islands++;
		if (cfg->mode == PLACE_AUTO && !forced && xfer >= save[i]) {
			for (int k = 0; k < g->n_nodes; k++)
				if (k != i && P->cand[k] && find(P->root, k) == i)
					P->cand[k] = false;
			P->cand[i] = false;
			continue;
		}
		cfg->est_placed_us += xfer - save[i];
	}
	free(save);
}

/* A value name not in the graph yet: base + suffix, then with a counter. */
static const char *fresh_name(Graph *g, const char *base, const char *suffix)
{
	const char *name = arena_printf(&g->arena, "%s%s", base, suffix);
	for (int k = 1; ir_value_find(g, 0, name) != IR_NONE; k++)
		name = arena_printf(&g->arena, "%s%s%d", base, suffix, k);
	return name;
}

/* A new value of v's type named v's name + suffix. The type is copied first:
 * ir_value_new may move g->values. */
static ValueId twin_value(Graph *g, ValueId v, const char *suffix)
{
	Type t = g->values[v].type;
	return ir_value_new(g, 0, fresh_name(g, g->values[v].name, suffix), &t);
}

/* Moves the node just appended to the main region to index `at`. */
static void insert_at(Graph *g, int at)
{
	Region *r = &g->regions[0];
	NodeId id = r->nodes[r->n_nodes - 1];
	memmove(r->nodes + at + 1, r->nodes + at, (size_t)(r->n_nodes - 1 - at) * sizeof *r->nodes);
	r->nodes[at] = id;
}

static int node_index(const Graph *g, NodeId id)
{
	const Region *r = &g->regions[0];
	for (int i = 0; i < r->n_nodes; i++)
		if (r->nodes[i] == id)
			return i;
	die("node %d is not in the main graph", id);
}

static NodeId add_copy(Place *P, Op op, ValueId in, ValueId out, int at)
{
	Graph *g = P->g;
	NodeId c = rw_node_new(g, 0, op, &in, 1, &out, 1, NULL, NULL, 0, P->d);
	g->values[out].type = g->values[in].type;
	g->nodes[c].device = false;
	insert_at(g, at);
	P->cfg->n_copies++;
	P->cfg->bytes_moved += type_bytes(&g->values[in].type);
	return c;
}

/* Rewrites the inputs that cross to the device through CopyToDevice. */
static void copies_to_device(Place *P)
{
	Graph *g = P->g;
	ValueId *dev_of = malloc(((size_t)g->n_values + 1) * sizeof *dev_of);
	int n_values = g->n_values;
	for (int v = 0; v < n_values; v++)
		dev_of[v] = IR_NONE;
	for (int i = 0; i < g->regions[0].n_nodes; i++) {
		NodeId id = g->regions[0].nodes[i];
		if (g->nodes[id].dead || !g->nodes[id].device)
			continue;
		for (int k = 0; k < g->nodes[id].n_in; k++) {
			ValueId v = g->nodes[id].in[k];
			if (v == IR_NONE || v >= n_values || g->values[v].is_const)
				continue;
			NodeId p = g->values[v].producer;
			if (p != IR_NONE && g->nodes[p].device)
				continue;
			if (dev_of[v] == IR_NONE) {
				dev_of[v] = twin_value(g, v, ".dev");
				add_copy(P, OP_COPY_TO_DEVICE, v, dev_of[v], i++);
			}
			g->nodes[id].in[k] = dev_of[v];
		}
	}
	free(dev_of);
}

/* Device outputs read on the host, or graph outputs, through CopyToHost. */
static void copies_to_host(Place *P)
{
	Graph *g = P->g;
	for (int i = 0; i < g->regions[0].n_nodes; i++) {
		NodeId id = g->regions[0].nodes[i];
		if (g->nodes[id].dead || !g->nodes[id].device)
			continue;
		for (int k = 0; k < g->nodes[id].n_out; k++) {
			ValueId v = g->nodes[id].out[k], host;
			bool host_use = false;
			if (v == IR_NONE)
				continue;
			for (int j = 0; j < g->n_nodes && !host_use; j++)
				if (!g->nodes[j].dead && !g->nodes[j].device && g->nodes[j].op != OP_COPY_TO_HOST)
					for (int s = 0; s < g->nodes[j].n_in; s++)
						host_use |= g->nodes[j].in[s] == v;
			if (!host_use && !g->values[v].is_output)
				continue;
			if (g->values[v].is_output) {
				/* the output keeps its name on the host; the device writes a new value */
				ValueId d = twin_value(g, v, ".dev");
				for (int j = 0; j < g->n_nodes; j++)
					if (!g->nodes[j].dead && g->nodes[j].device)
						for (int s = 0; s < g->nodes[j].n_in; s++)
							if (g->nodes[j].in[s] == v)
								g->nodes[j].in[s] = d;
				g->nodes[id].out[k] = d;
				g->values[d].producer = id;
				g->values[d].producer_slot = k;
				g->values[v].producer = IR_NONE;
				add_copy(P, OP_COPY_TO_HOST, d, v, i + 1);
				continue;
			}
			host = twin_value(g, v, ".host");
			for (int j = 0; j < g->n_nodes; j++)
				if (!g->nodes[j].dead && !g->nodes[j].device)
					for (int s = 0; s < g->nodes[j].n_in; s++)
						if (g->nodes[j].in[s] == v)
							g->nodes[j].in[s] = host;
			add_copy(P, OP_COPY_TO_HOST, v, host, node_index(g, id) + 1);
		}
	}
}

int pass_place(Graph *g, PassCtx *ctx)
{
	Place P;
	PlaceConfig *cfg = ctx->place;
	int rc = 0;
	if (!cfg)
		return 0;
	memset(&P, 0, sizeof P);
	P.g = g;
	P.cfg = cfg;
	P.d = ctx->diags;
	P.forced = malloc((size_t)g->n_nodes + 1);
	P.cand = calloc((size_t)g->n_nodes + 1, sizeof *P.cand);
	P.root = malloc(((size_t)g->n_nodes + 1) * sizeof *P.root);
	memset(P.forced, -1, (size_t)g->n_nodes + 1);
	cfg->n_copies = 0;
	cfg->bytes_moved = 0;
	cfg->n_islands = 0;
	if (pick_candidates(&P)) {
		rc = -1;
		goto done;
	}
	make_islands(&P);
	weigh_islands(&P);
	cfg->n_partitions = make_islands(&P);
	cfg->n_device_nodes = 0;
	for (int i = 0; i < g->n_nodes; i++) {
		g->nodes[i].device = P.cand[i];
		cfg->n_device_nodes += P.cand[i];
	}
	copies_to_device(&P);
	copies_to_host(&P);
	snprintf(ctx->changed, sizeof ctx->changed,
	         "%d nodes on the device in %d partitions, %d copies moving %" PRId64
	         " bytes per run; estimate %.1f us all-CPU, %.1f us placed", cfg->n_device_nodes,
	         cfg->n_partitions, cfg->n_copies, cfg->bytes_moved, cfg->est_cpu_us, cfg->est_placed_us);
done:
	free(P.forced);
	free(P.cand);
	free(P.root);
	return rc;
}
