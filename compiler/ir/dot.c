/* dot.c — a Graphviz picture of the final graph (--dot FILE): one box per live
 * node, labeled with its op and the ONNX nodes it came from (fused nodes list all
 * members), one edge per tensor, labeled with its type and planned arena offset. */
#include "ir.h"

#include <inttypes.h>

static void dot_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if ((unsigned char)*s >= 0x20)
			fputc(*s, f);
	}
}

static void edge_label(FILE *f, const Graph *g, ValueId v)
{
	char ty[256];
	const Value *val = &g->values[v];
	fputs(" [label=\"", f);
	dot_text(f, val->name);
	fprintf(f, "\\n%s", type_format(&val->type, ty, sizeof ty));
	if (val->arena_off >= 0)
		fprintf(f, "\\n@arena+%" PRId64, val->arena_off);
	fputs("\"];\n", f);
}

void ir_dot(const Graph *g, FILE *f)
{
	const Region *main = &g->regions[0];
	fputs("digraph ingot {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n"
	      "  edge [fontname=\"monospace\", fontsize=8];\n", f);
	for (int i = 0; i < main->n_inputs; i++) {
		fprintf(f, "  v%d [shape=ellipse, label=\"input ", main->inputs[i]);
		dot_text(f, g->values[main->inputs[i]].name);
		fputs("\"];\n", f);
	}
	for (int i = 0; i < main->n_outputs; i++) {
		fprintf(f, "  o%d [shape=ellipse, label=\"output ", i);
		dot_text(f, g->values[main->outputs[i]].name);
		fputs("\"];\n", f);
	}
	for (int i = 0; i < main->n_nodes; i++) {
		NodeId id = main->nodes[i];
		const Node *n = &g->nodes[id];
		if (n->dead)
			continue;
		fprintf(f, "  n%d [label=\"%s", id, ir_op_name(n->op));
		for (int k = 0; k < n->n_origins; k++) {
			fputs(k ? "\\n+ " : "\\n", f);
			dot_text(f, n->origins[k]);
		}
		fputs("\"];\n", f);
		for (int k = 0; k < n->n_in; k++) {
			ValueId v = n->in[k];
			if (v == IR_NONE || g->values[v].is_const)
				continue;
			const Value *val = &g->values[v];
			if (val->producer != IR_NONE && !g->nodes[val->producer].dead)
				fprintf(f, "  n%d -> n%d", val->producer, id);
			else
				fprintf(f, "  v%d -> n%d", v, id);
			edge_label(f, g, v);
		}
	}
	for (int i = 0; i < main->n_outputs; i++) {
		ValueId v = main->outputs[i];
		const Value *val = &g->values[v];
		if (val->producer != IR_NONE && !g->nodes[val->producer].dead)
			fprintf(f, "  n%d -> o%d", val->producer, i);
		else
			fprintf(f, "  v%d -> o%d", v, i);
		edge_label(f, g, v);
	}
	fputs("}\n", f);
}
