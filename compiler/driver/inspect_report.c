/* inspect_report.c — `ingot inspect`'s default output, a report a person reads: a
 * summary (inputs, outputs, params, weight bytes, MACs, workspace, peak live), one
 * row per node of the final graph (op, output type, params, MACs, arena offset and
 * bytes, then the ONNX names, last as they are long) and an op histogram. `--json` (inspect.c) is the tools' form. */
#include "driver.h"
#include "ukgen.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define HIST_BAR 30     /* characters of the most frequent op's bar */

/* The node's ONNX names, '+' between the members of a fused node. */
static void node_names(const Node *n, char *buf, size_t cap)
{
	size_t len = 0;
	buf[0] = 0;
	for (int k = 0; k < n->n_origins && len + 1 < cap; k++)
		len += (size_t)snprintf(buf + len, cap - len, "%s%s", k ? "+" : "", n->origins[k]);
	if (!n->n_origins)
		snprintf(buf, cap, "-");
}

/* Parameters a node reads: the elements of its constant inputs in the weights blob. */
static int64_t node_params(const Graph *g, const Node *n, const WeightsLayout *w)
{
	int64_t p = 0;
	for (int k = 0; k < n->n_in; k++)
		if (n->in[k] != IR_NONE && w->off[n->in[k]] >= 0)
			p += type_numel(&g->values[n->in[k]].type);
	return p;
}

static void print_io(const char *key, const Graph *g, const ValueId *vals, int n)
{
	char ty[256];
	for (int i = 0; i < n; i++) {
		const Value *v = &g->values[vals[i]];
		printf("%-11s %s %s (%" PRId64 " B)\n", i ? "" : key, v->name, type_format(&v->type, ty, sizeof ty),
		       type_bytes(&v->type));
	}
	if (!n)
		printf("%-11s none\n", key);
}

static int cmp_hist(const void *a, const void *b, const int *hist)
{
	int x = *(const int *)a, y = *(const int *)b;
	if (hist[x] != hist[y])
		return hist[y] - hist[x];
	return strcmp(ir_op_name((Op)x), ir_op_name((Op)y));
}

void inspect_report_print(const Options *o, const Graph *g, const WeightsLayout *w, const int *hist,
                          int n_nodes, int64_t params, int64_t macs)
{
	const Region *main = &g->regions[0];
	char names[1024], ty[256];
	int op_w = 2, ty_w = 6, order[OP_COUNT], n_ops = 0, max_count = 0;
	printf("model:      %s (opset %d, -O%d, target %s)\n", o->model, g->opset, o->opt_level, o->target);
	print_io("inputs:", g, main->inputs, main->n_inputs);
	print_io("outputs:", g, main->outputs, main->n_outputs);
	printf("nodes:      %d\n", n_nodes);
	printf("params:     %" PRId64 " (%" PRId64 " weight bytes)\n", params, w->size);
	printf("macs:       %" PRId64 "\n", macs);
	printf("workspace:  %" PRId64 " bytes = arena %" PRId64 " + scratch %" PRId64 "\n",
	       g->arena_bytes + g->scratch_bytes, g->arena_bytes, g->scratch_bytes);
	printf("peak live:  %" PRId64 " bytes (naive %" PRId64 ")\n", g->peak_live_bytes, g->naive_bytes);

	/* the table's column widths from its contents */
	for (int i = 0; i < main->n_nodes; i++) {
		const Node *n = &g->nodes[main->nodes[i]];
		int l;
		if (n->dead)
			continue;
		if ((l = (int)strlen(ir_op_name(n->op))) > op_w)
			op_w = l;
		if (n->n_out && n->out[0] != IR_NONE &&
		    (l = (int)strlen(type_format(&g->values[n->out[0]].type, ty, sizeof ty))) > ty_w)
			ty_w = l;
	}
	printf("\n%-*s  %-*s %10s %12s %10s %10s  %s\n", op_w, "op", ty_w, "output", "params", "macs", "arena",
	       "bytes", "onnx_nodes");
	for (int i = 0; i < main->n_nodes; i++) {
		NodeId id = main->nodes[i];
		const Node *n = &g->nodes[id];
		char off[32] = "-";
		int64_t bytes = 0;
		if (n->dead)
			continue;
		node_names(n, names, sizeof names);
		ty[0] = 0;
		if (n->n_out && n->out[0] != IR_NONE) {
			const Value *v = &g->values[n->out[0]];
			type_format(&v->type, ty, sizeof ty);
			bytes = type_bytes(&v->type);
			/* a graph output lives in the caller's buffer */
			if (v->is_output)
				snprintf(off, sizeof off, "output");
			else if (v->arena_off >= 0)
				snprintf(off, sizeof off, "%" PRId64, v->arena_off);
		}
		printf("%-*s  %-*s %10" PRId64 " %12" PRId64 " %10s %10" PRId64 "  %s\n", op_w, ir_op_name(n->op), ty_w,
		       ty, node_params(g, n, w), ops_node_macs(g, id), off, bytes, names);
	}

	/* the histogram, the most frequent op first (ties by name) */
	for (int op = 0; op < OP_COUNT; op++)
		if (hist[op]) {
			order[n_ops++] = op;
			if (hist[op] > max_count)
				max_count = hist[op];
		}
	for (int i = 1; i < n_ops; i++)   /* insertion sort: qsort has no context argument */
		for (int k = i; k > 0 && cmp_hist(&order[k - 1], &order[k], hist) > 0; k--) {
			int t = order[k];
			order[k] = order[k - 1];
			order[k - 1] = t;
		}
	op_w = 2;
	for (int i = 0; i < n_ops; i++)
		if ((int)strlen(ir_op_name((Op)order[i])) > op_w)
			op_w = (int)strlen(ir_op_name((Op)order[i]));
	printf("\nops:\n");
	for (int i = 0; i < n_ops; i++) {
		int bar = (hist[order[i]] * HIST_BAR + max_count - 1) / max_count;
		printf("  %-*s %5d  ", op_w, ir_op_name((Op)order[i]), hist[order[i]]);
		for (int k = 0; k < bar; k++)
			putchar('#');
		putchar('\n');
	}
}

void inspect_target_print(const Options *o, bool json)
{
	const Target *t = driver_target(o);
	const SimdIsa *isa = ukgen_isa(t);
	const CpuInfo *c = &o->host_cpu;
	char ext[512];
	int mr = 0, nv = 0, kc = 0, mc = 0;
	if (!o->tuned_set)
		return;
	if (isa) {
		ukgen_blocking(t, isa, &mr, &nv);
		kc = ukgen_kc(t, isa);
		mc = ukgen_mc(t, isa);
	}
	cg_cpu_ext_names(c->ext, ext, sizeof ext);
	if (json) {
		printf(", \"cpu\": {\"detected\": %s, \"vendor\": \"%s\", \"family\": %d, \"model\": %d, "
		       "\"extensions\": \"%s\", \"cores\": %d, \"tuning\": \"%s\", \"l1d_kib\": %d, "
		       "\"l2_kib\": %d, \"l3_kib\": %d, \"fma_ports\": %d, \"fma_bits\": %d, "
		       "\"fma_latency\": %d, \"mr\": %d, \"nr\": %d, \"kc\": %d, \"mc\": %d}",
		       o->host ? "true" : "false", c->vendor, c->family, c->model, ext, c->cores,
		       t->cpu ? t->cpu : "generic", t->l1d_kib, t->l2_kib, t->l3_kib, t->fma_ports, t->fma_bits,
		       t->fma_latency, mr, isa ? nv * isa->lanes : 0, kc, mc);
		return;
	}
	if (o->host) {
		printf("cpu:        %s family %d model %d (%s), %d CPUs\n", c->vendor[0] ? c->vendor : "unknown",
		       c->family, c->model, c->brand[0] ? c->brand : "-", c->cores);
		printf("isa:        %s\n", ext[0] ? ext : "-");
	}
	printf("tuning:     %s: %d FMA pipe(s) x %d bits, latency %d; L1d %d KiB, L2 %d KiB, L3 %d KiB per core\n",
	       t->cpu ? t->cpu : "generic", t->fma_ports, t->fma_bits, t->fma_latency, t->l1d_kib, t->l2_kib,
	       t->l3_kib);
	if (isa)
		printf("blocking:   GEMM tile %d x %d (%d vectors of %d), KC %d, MC %d\n", mr, nv * isa->lanes, nv,
		       isa->lanes, kc, mc);
}
