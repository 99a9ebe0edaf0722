/* dot.c — a Graphviz picture of the main graph (--dot FILE, and through dot -Tsvg
 * --svg/--svg-before): one box per live node, labeled with its op and the ONNX
 * nodes it came from (fused nodes list all members), filled with its op family's
 * colour (or a caller's, e.g. by device); one edge per tensor, labeled with its
 * name, type, byte size and planned arena offset; the intermediate with the longest
 * live range drawn thick and red; a legend of the families present. */
#include "ir.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Families for pictures: groups (ops.h's third column) by what a reader looks for.
 * A group not listed is "other". */
typedef struct Family {
	const char *name, *color;
	const char *groups;      /* space-separated, each also followed by a space */
} Family;

static const Family families[] = {
	{ "conv/matmul", "#f4a582",
	  "conv conv_transpose conv_integer deform_conv gemm matmul matmul_integer matmul_w8 "
	  "qlinear_conv qlinear_matmul einsum attention rnn " },
	{ "fused elementwise", "#d6604d", "fused_elementwise " },
	{ "elementwise", "#92c5de",
	  "unary unary_math binary variadic where clip prelu int_binary bitwise qlinear_binary "
	  "qlinear_lookup cast cast_like " },
	{ "pool", "#a6dba0", "pool global_pool lp_pool global_lp_pool max_roi_pool roi_align max_unpool " },
	{ "normalization", "#c2a5cf",
	  "batchnorm layernorm instancenorm group_norm rms_norm lrn lp_norm mvn softmax hardmax " },
	{ "reduction", "#fddbc7", "reduce arg cumsum topk " },
	{ "data movement", "#e0e0e0",
	  "reshape transpose concat split slice pad gather gather_elements gather_nd "
	  "scatter_elements scatter_nd expand tile shape identity depth_space resize upsample "
	  "compress trilu reverse_sequence one_hot range constant_of_shape eye_like " },
	{ "quantization", "#ffffbf", "quantize dequantize dynamic_quantize " },
	{ "control flow", "#bababa", "if_else loop scan branch_error " },
};
static const Family other = { "other", "#ffffff", "" };

static const Family *family_of(Op op)
{
	char key[64];
	snprintf(key, sizeof key, "%s ", ir_op_group(op));
	for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) {
		const char *hit = strstr(families[i].groups, key);
		if (hit && (hit == families[i].groups || hit[-1] == ' '))
			return &families[i];
	}
	return &other;
}

const char *ir_op_family(Op op, const char **color)
{
	const Family *fam = family_of(op);
	if (color)
		*color = fam->color;
	return fam->name;
}

static bool live_node(const Graph *g, NodeId n)
{
	return n != IR_NONE && !g->nodes[n].dead;
}

ValueId ir_widest_live_range(const Graph *g, int *steps)
{
	const Region *main = &g->regions[0];
	ValueId best = IR_NONE;
	int best_len = -1, pos = 0;
	int64_t best_bytes = -1;
	/* pos of each live node in the schedule; value v's range: producer .. last reader */
	int *at = calloc((size_t)g->n_nodes + 1, sizeof *at);
	int *last = calloc((size_t)g->n_values + 1, sizeof *last);
	if (!at || !last)
		die("out of memory");
	for (int i = 0; i < g->n_values; i++)
		last[i] = -1;
	for (int i = 0; i < main->n_nodes; i++) {
		NodeId id = main->nodes[i];
		const Node *n = &g->nodes[id];
		if (n->dead)
			continue;
		at[id] = pos;
		for (int k = 0; k < n->n_in; k++)
			if (n->in[k] != IR_NONE)
				last[n->in[k]] = pos;
		pos++;
	}
	for (ValueId v = 0; v < g->n_values; v++) {
		const Value *val = &g->values[v];
		if (val->is_const || val->is_output || val->seq || !live_node(g, val->producer) ||
		    g->nodes[val->producer].region != 0 || last[v] < 0)
			continue;
		int len = last[v] - at[val->producer];
		int64_t bytes = type_bytes(&val->type);
		if (len > best_len || (len == best_len && bytes > best_bytes)) {
			best = v;
			best_len = len;
			best_bytes = bytes;
		}
	}
	free(at);
	free(last);
	if (steps)
		*steps = best_len + 1;
	return best;
}

static void dot_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if ((unsigned char)*s >= 0x20)
			fputc(*s, f);
	}
}

static void edge_label(FILE *f, const Graph *g, ValueId v, ValueId widest, int steps)
{
	char ty[256];
	const Value *val = &g->values[v];
	fputs(" [label=\"", f);
	dot_text(f, val->name);
	fprintf(f, "\\n%s", type_format(&val->type, ty, sizeof ty));
	if (val->arena_off >= 0)
		fprintf(f, "\\n@arena+%" PRId64 ", %" PRId64 " B", val->arena_off, type_bytes(&val->type));
	else
		fprintf(f, "\\n%" PRId64 " B", type_bytes(&val->type));
	if (v == widest)
		fprintf(f, "\\nwidest live range: %d nodes\", color=\"#d7191c\", fontcolor=\"#d7191c\", "
		        "penwidth=4];\n", steps);
	else
		fputs("\"];\n", f);
}

void ir_dot(const Graph *g, const DotStyle *style, FILE *f)
{
	const Region *main = &g->regions[0];
	bool used[sizeof families / sizeof families[0] + 1] = { false };
	int steps = 0;
	ValueId widest = ir_widest_live_range(g, &steps);
	fputs("digraph ingot {\n  rankdir=TB;\n  node [shape=box, style=filled, fillcolor=\"#ffffff\", "
	      "fontname=\"monospace\", fontsize=10];\n  edge [fontname=\"monospace\", fontsize=8];\n", f);
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
		const char *color = NULL;
		if (n->dead)
			continue;
		const Family *fam = family_of(n->op);
		used[fam == &other ? sizeof families / sizeof families[0] : (size_t)(fam - families)] = true;
		if (style && style->node_color)
			color = style->node_color(g, id, style->user);
		fprintf(f, "  n%d [label=\"%s", id, ir_op_name(n->op));
		for (int k = 0; k < n->n_origins; k++) {
			fputs(k ? "\\n+ " : "\\n", f);
			dot_text(f, n->origins[k]);
		}
		fprintf(f, "\", fillcolor=\"%s\"];\n", color ? color : fam->color);
		for (int k = 0; k < n->n_in; k++) {
			ValueId v = n->in[k];
			if (v == IR_NONE || g->values[v].is_const)
				continue;
			const Value *val = &g->values[v];
			if (live_node(g, val->producer))
				fprintf(f, "  n%d -> n%d", val->producer, id);
			else
				fprintf(f, "  v%d -> n%d", v, id);
			edge_label(f, g, v, widest, steps);
		}
	}
	for (int i = 0; i < main->n_outputs; i++) {
		ValueId v = main->outputs[i];
		const Value *val = &g->values[v];
		if (live_node(g, val->producer))
			fprintf(f, "  n%d -> o%d", val->producer, i);
		else
			fprintf(f, "  v%d -> o%d", v, i);
		edge_label(f, g, v, widest, steps);
	}
	/* the legend: one swatch per family present, and the highlighted tensor */
	if (style && style->legend) {
		fputs("  subgraph cluster_legend {\n    label=\"placement\"; fontname=\"monospace\"; fontsize=10;\n", f);
		for (int i = 0; style->legend[i] && style->legend[i + 1]; i += 2)
			fprintf(f, "    family%d [label=\"%s\", fillcolor=\"%s\"];\n", i / 2, style->legend[i],
			        style->legend[i + 1]);
	} else {
		fputs("  subgraph cluster_legend {\n    label=\"op families\"; fontname=\"monospace\"; fontsize=10;\n", f);
		for (size_t i = 0; i <= sizeof families / sizeof families[0]; i++) {
			const Family *fam = i < sizeof families / sizeof families[0] ? &families[i] : &other;
			if (used[i])
				fprintf(f, "    family%d [label=\"%s\", fillcolor=\"%s\"];\n", (int)i, fam->name, fam->color);
		}
	}
	if (widest != IR_NONE) {
		fputs("    widest [shape=note, color=\"#d7191c\", label=\"widest live range:\\n", f);
		dot_text(f, g->values[widest].name);
		fprintf(f, " (%d nodes)\"];\n", steps);
	}
	fputs("  }\n}\n", f);
}
