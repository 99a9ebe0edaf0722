/* inspect.c — `ingot inspect`: what a model is and what compiling it costs: inputs
 * and outputs, an op histogram, parameters, MACs and the memory plan: --json for
 * tools, else the report of inspect_report.c. Also `ingot opt` (text IR through passes; parsing comes later). */
#include "driver.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int cmd_inspect(const Options *o)
{
	Graph g;
	DiagSink d;
	int rc;
	int hist[OP_COUNT] = { 0 };
	int64_t params = 0, macs = 0;
	QuantReport rep;
	Progress prog;
	Options oq = *o;
	PlaceConfig place;
	const Target *t = o->target ? driver_target(o) : NULL;
	memset(&rep, 0, sizeof rep);
	memset(&place, 0, sizeof place);
	oq.qreport = o->quantize ? &rep : NULL;
	oq.place_report = t && t->host ? &place : NULL;
	driver_sink_init(&d, o, &prog);
	oq.progress = &prog;
	rc = driver_build_graph(&oq, &g, &d);
	progress_end(&prog);
	d.echo_line = NULL;          /* the display is gone */
	if (rc) {
		ir_graph_free(&g);
		diag_sink_free(&d);
		quant_report_free(&rep);
		return rc;
	}
	const Region *main = &g.regions[0];
	WeightsLayout w;
	cg_weights_layout(&g, &w);
	for (int i = 0; i < g.n_values; i++)
		if (w.off[i] >= 0)
			params += type_numel(&g.values[i].type);
	int n_nodes = 0;
	for (int i = 0; i < main->n_nodes; i++) {
		const Node *n = &g.nodes[main->nodes[i]];
		if (n->dead)
			continue;
		hist[n->op]++;
		n_nodes++;
		macs += ops_node_macs(&g, main->nodes[i]);
	}
	int64_t workspace = g.arena_bytes + g.scratch_bytes;
	if (o->json) {
		printf("{\"model\": \"%s\", \"nodes\": %d, \"params\": %" PRId64 ", \"weights_bytes\": %" PRId64
		       ", \"macs\": %" PRId64 ", \"arena_bytes\": %" PRId64 ", \"scratch_bytes\": %" PRId64
		       ", \"workspace_bytes\": %" PRId64 ", \"naive_bytes\": %" PRId64
		       ", \"peak_live_bytes\": %" PRId64 ", \"ops\": {",
		       o->model, n_nodes, params, w.size, macs, g.arena_bytes, g.scratch_bytes, workspace,
		       g.naive_bytes, g.peak_live_bytes);
		for (int op = 0, first = 1; op < OP_COUNT; op++)
			if (hist[op]) {
				printf("%s\"%s\": %d", first ? "" : ", ", ir_op_name((Op)op), hist[op]);
				first = 0;
			}
		printf("}");
		inspect_target_print(o, true);
		if (rep.done) {
			printf(", \"quantization\": ");
			quant_report_json(&rep, stdout);
		}
		if (oq.place_report)
			inspect_place_print(o, &g, &place, true);
		printf("}\n");
	} else {
		inspect_target_print(o, false);
		inspect_report_print(o, &g, &w, hist, n_nodes, params, macs);
		if (oq.place_report)
			inspect_place_print(o, &g, &place, false);
		if (rep.done)
			quant_report_print(&rep, stdout);
	}
	quant_report_free(&rep);
	cg_weights_free(&w);
	ir_graph_free(&g);
	diag_sink_free(&d);
	return EXIT_OK;
}

/* `ingot opt FILE.ir`: parses text IR (constants from FILE.ir.bin when present),
 * runs the passes and prints the result on stdout. */
int cmd_opt(const Options *o)
{
	Graph g;
	DiagSink d;
	char blob[4096];
	FILE *f = fopen(o->model, "rb");
	char *text = NULL;
	size_t len = 0, cap = 0;
	int rc = EXIT_OK;
	diag_sink_init(&d, stderr);
	if (!f) {
		fprintf(stderr, "%s: cannot read: %s\n", o->model, strerror(errno));
		return EXIT_BAD_INPUT;
	}
	for (;;) {
		if (len + 4096 > cap) {
			cap = cap ? cap * 2 : 65536;
			text = realloc(text, cap);
			if (!text)
				die("out of memory");
		}
		size_t r = fread(text + len, 1, cap - len, f);
		len += r;
		if (r == 0)
			break;
	}
	fclose(f);
	snprintf(blob, sizeof blob, "%s.bin", o->model);
	ir_graph_init(&g, o->model);
	if (ir_parse(&g, text, len, blob, &d) || driver_run_passes(o, &g, &d))
		rc = driver_exit_code(&d);
	else if (o->no_offsets)
		ir_print_unplanned(&g, stdout);
	else
		ir_print(&g, stdout);
	free(text);
	ir_graph_free(&g);
	diag_sink_free(&d);
	return rc;
}
