/* print.c — the deterministic text form of the IR (docs/ir.md). The same
 * graph always prints the same bytes; ir_parse() reads it back.
 *
 *   input %x : f32[1,3,8,8]
 *   const %w : f32[4,3,3,3] = blob(0, 432, 9ac1f2e0)
 *   const %shape : i64[2] = [1, -1]
 *   %y = Conv(%x, %w, _) {group=1, strides=[1,1]} : f32[1,4,8,8] loc("conv_0") @arena+0
 *   %d = Relu(%c) : f32[1,4,8,8] loc("relu_0") on(device)        # placed on the OpenCL device
 *   output %y
 */
#include "ir.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define INLINE_CONST_MAX 16

static void print_name(FILE *f, const char *name)
{
	bool plain = name[0] != 0;
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '.')
			plain = false;
	if (plain) {
		fprintf(f, "%%%s", name);
		return;
	}
	fputs("%\"", f);
	for (const char *p = name; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			fprintf(f, "\\x%02x", (unsigned char)*p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

static void print_type(FILE *f, const Type *t)
{
	char buf[256];
	fputs(type_format(t, buf, sizeof buf), f);
	if (t->layout == LAYOUT_BLOCKED)
		fprintf(f, "!blocked(%d)", t->block);
	if (t->quant) {
		const Quant *q = t->quant;
		if (q->n == 1)
			fprintf(f, "!q(%.9g,%d)", (double)q->scale[0], (int)q->zero_point[0]);
		else
			fprintf(f, "!q(axis=%d,n=%d)", q->axis, q->n);
	}
}

/* Prints element i of typed data as text that parses back exactly. */
static void print_elem(FILE *f, DType dt, const uint8_t *p, int64_t i)
{
	Scalar s;
	size_t es = dtype_size(dt);
	if (dt == DT_STRING) {             /* "text", with \" \\ and \xNN escapes */
		const uint8_t *e = p + es * (size_t)i;
		fputc('"', f);
		for (size_t k = 0; k < es && e[k]; k++) {
			if (e[k] == '"' || e[k] == '\\')
				fprintf(f, "\\%c", e[k]);
			else if (e[k] < 0x20 || e[k] >= 0x7f)
				fprintf(f, "\\x%02x", e[k]);
			else
				fputc(e[k], f);
		}
		fputc('"', f);
		return;
	}
	if (dt == DT_C64 || dt == DT_C128) {  /* (re, im): a Scalar holds one part only */
		const uint8_t *e = p + es * (size_t)i;
		double re, im;
		if (dt == DT_C64) {
			float pr[2];
			memcpy(pr, e, sizeof pr);
			re = pr[0], im = pr[1];
		} else {
			double pr[2];
			memcpy(pr, e, sizeof pr);
			re = pr[0], im = pr[1];
		}
		fprintf(f, dt == DT_C64 ? "(%.9g, %.9g)" : "(%.17g, %.17g)", re, im);
		return;
	}
	memset(&s, 0, sizeof s);
	s.dtype = dt;
	memcpy(s.bytes, p + es * (size_t)i, es);
	switch (dt) {
	case DT_F32: case DT_F64: case DT_F16: case DT_BF16: case DT_F8E4M3FN: case DT_F8E4M3FNUZ:
	case DT_F8E5M2: case DT_F8E5M2FNUZ: case DT_F4E2M1: case DT_F8E8M0: {
		double v = scalar_to_f64(&s);
		fprintf(f, dt == DT_F64 ? "%.17g" : "%.9g", v);
		break;
	}
	case DT_U64: {
		uint64_t v;
		memcpy(&v, s.bytes, 8);
		fprintf(f, "%" PRIu64, v);
		break;
	}
	case DT_I64: {
		int64_t v;
		memcpy(&v, s.bytes, 8);
		fprintf(f, "%" PRId64, v);
		break;
	}
	default:
		fprintf(f, "%.0f", scalar_to_f64(&s));
	}
}

/* A field with a default (AttrField.def) prints only when it differs from it: absent,
 * the parser fills the default in. */
static bool elided_default(const AttrField *af, const char *p)
{
	int64_t v;
	int e;
	if (!af->has_default)
		return false;
	if (af->kind == AK_ENUM) {
		memcpy(&e, p, sizeof e);
		v = e;
	} else {
		memcpy(&v, p, sizeof v);
	}
	return v == af->def;
}

static void print_attrs(FILE *f, const Node *n)
{
	const OpAttrLayout lay = ir_op_attrs(n->op);
	bool first = true;
	if (!n->attrs || lay.n_fields == 0)
		return;
	for (int i = 0; i < lay.n_fields; i++) {
		const AttrField *af = &lay.fields[i];
		const char *p = (const char *)n->attrs + af->off;
		if (af->kind == AK_INTS && ((const IntList *)(const void *)p)->n < 0)
			continue;
		if (af->kind == AK_FLOATS && ((const FloatList *)(const void *)p)->n < 0)
			continue;
		if (elided_default(af, p))
			continue;
		fputs(first ? " {" : ", ", f);
		first = false;
		fprintf(f, "%s=", af->name);
		switch (af->kind) {
		case AK_INT: {
			int64_t v;
			memcpy(&v, p, sizeof v);
			fprintf(f, "%" PRId64, v);
			break;
		}
		case AK_FLOAT: {
			float v;
			memcpy(&v, p, sizeof v);
			fprintf(f, "%.9g", (double)v);
			break;
		}
		case AK_INTS: {
			const IntList *l = (const IntList *)(const void *)p;
			fputc('[', f);
			for (int k = 0; k < l->n; k++)
				fprintf(f, k ? ",%" PRId64 : "%" PRId64, l->v[k]);
			fputc(']', f);
			break;
		}
		case AK_FLOATS: {
			const FloatList *l = (const FloatList *)(const void *)p;
			fputc('[', f);
			for (int k = 0; k < l->n; k++)
				fprintf(f, k ? ",%.9g" : "%.9g", (double)l->v[k]);
			fputc(']', f);
			break;
		}
		case AK_ENUM: {
			int v;
			memcpy(&v, p, sizeof v);
			fprintf(f, "\"%s\"", af->enums[v]);
			break;
		}
		case AK_SCALAR: {
			const Scalar *s = (const Scalar *)(const void *)p;
			fprintf(f, "%s:", dtype_name(s->dtype));
			print_elem(f, s->dtype, s->bytes, 0);
			break;
		}
		}
	}
	if (!first)
		fputc('}', f);
}

static void print_const(FILE *f, const Graph *g, ValueId id)
{
	const Value *v = &g->values[id];
	int64_t n = type_numel(&v->type), bytes = type_bytes(&v->type);
	const uint8_t *data = g->blob + v->const_off;
	fputs("const ", f);
	print_name(f, v->name);
	fputs(" : ", f);
	print_type(f, &v->type);
	if (n <= INLINE_CONST_MAX) {
		fputs(" = [", f);
		for (int64_t i = 0; i < n; i++) {
			if (i)
				fputs(", ", f);
			print_elem(f, v->type.dtype, data, i);
		}
		fputs("]\n", f);
	} else {
		fprintf(f, " = blob(%" PRId64 ", %" PRId64 ", %08x)\n", v->const_off, bytes,
		        (unsigned)ir_fnv1a32(IR_FNV32, data, (size_t)bytes));
	}
}

static void print_region(FILE *f, const Graph *g, RegionId r, int depth, bool plan);
static void print_offsets(FILE *f, const Graph *g, const Node *n);

/* The constants live nodes of region r and of its bodies read, each once. */
static void print_consts(FILE *f, const Graph *g, RegionId r, int depth, unsigned char *seen)
{
	const Region *reg = &g->regions[r];
	for (int i = 0; i < reg->n_nodes; i++) {
		const Node *n = &g->nodes[reg->nodes[i]];
		if (n->dead)
			continue;
		for (int k = 0; k < n->n_in; k++) {
			ValueId v = n->in[k];
			if (v == IR_NONE || !g->values[v].is_const || seen[v])
				continue;
			seen[v] = 1;
			fprintf(f, "%*s", depth * 2, "");
			print_const(f, g, v);
		}
		for (int b = 0; b < n->n_bodies; b++)
			print_consts(f, g, n->bodies[b], depth, seen);
	}
}

static void print_node(FILE *f, const Graph *g, NodeId id, int depth, bool plan)
{
	const Node *n = &g->nodes[id];
	char prog[2048];
	if (ir_node_comment(g, id, prog, sizeof prog))
		fprintf(f, "%*s// %s\n", depth * 2, "", prog);   /* what the loop computes */
	fprintf(f, "%*s", depth * 2, "");
	for (int i = 0; i < n->n_out; i++) {
		if (i)
			fputs(", ", f);
		if (n->out[i] == IR_NONE)
			fputc('_', f);
		else
			print_name(f, g->values[n->out[i]].name);
	}
	fprintf(f, " = %s(", ir_op_name(n->op));
	for (int i = 0; i < n->n_in; i++) {
		if (i)
			fputs(", ", f);
		if (n->in[i] == IR_NONE)
			fputc('_', f);
		else
			print_name(f, g->values[n->in[i]].name);
	}
	fputc(')', f);
	print_attrs(f, n);
	fputs(" :", f);
	for (int i = 0; i < n->n_out; i++) {
		if (n->out[i] == IR_NONE)
			continue;
		fputs(i ? ", " : " ", f);
		print_type(f, &g->values[n->out[i]].type);
	}
	if (n->n_origins) {
		fputs(" loc(", f);
		for (int i = 0; i < n->n_origins; i++) {
			fputs(i ? ", \"" : "\"", f);
			for (const char *p = n->origins[i]; *p; p++)
				if (*p == '"' || *p == '\\')
					fprintf(f, "\\%c", *p);
				else if ((unsigned char)*p < 0x20)
					fprintf(f, "\\x%02x", (unsigned char)*p);
				else
					fputc(*p, f);
			fputc('"', f);
		}
		fputc(')', f);
	}
	if (n->device)
		fputs(" on(device)", f);
	if (plan)
		print_offsets(f, g, n);
	fputc('\n', f);
	for (int b = 0; b < n->n_bodies; b++)
		print_region(f, g, n->bodies[b], depth + 1, plan);
}

/* The memory plan of a node's outputs: " @arena+N" for a node whose one output (the
 * only one not _) has an arena offset; with several outputs one entry per output that
 * is not _, in order, "@-" for one outside the arena, once any of them has one. */
static void print_offsets(FILE *f, const Graph *g, const Node *n)
{
	int n_named = 0, n_arena = 0;
	for (int i = 0; i < n->n_out; i++)
		if (n->out[i] != IR_NONE) {
			n_named++;
			n_arena += g->values[n->out[i]].arena_off >= 0;
		}
	for (int i = 0; n_arena && i < n->n_out; i++) {
		if (n->out[i] == IR_NONE)
			continue;
		if (g->values[n->out[i]].arena_off >= 0)
			fprintf(f, " @arena+%" PRId64, g->values[n->out[i]].arena_off);
		else if (n_named > 1)
			fputs(" @-", f);
	}
}

static void print_region(FILE *f, const Graph *g, RegionId r, int depth, bool plan)
{
	const Region *reg = &g->regions[r];
	if (r != 0)
		fprintf(f, "%*sregion \"%s\" {\n", (depth - 1) * 2, "", reg->name);
	for (int i = 0; i < reg->n_inputs; i++) {
		fprintf(f, "%*sinput ", depth * 2, "");
		print_name(f, g->values[reg->inputs[i]].name);
		fputs(" : ", f);
		print_type(f, &g->values[reg->inputs[i]].type);
		fputc('\n', f);
	}
	/* constants, all at the top of the main graph (bodies read them by name through
	 * the enclosing scopes), in first-use order over the region tree; then constant
	 * outputs no live node reads (initializers, folded results) */
	if (r == 0) {
		unsigned char *seen = calloc((size_t)g->n_values + 1, 1);
		if (!seen)
			die("out of memory");
		print_consts(f, g, 0, depth, seen);
		for (int i = 0; i < reg->n_outputs; i++) {
			ValueId v = reg->outputs[i];
			if (!g->values[v].is_const || seen[v])
				continue;
			seen[v] = 1;
			fprintf(f, "%*s", depth * 2, "");
			print_const(f, g, v);
		}
		free(seen);
	}
	for (int i = 0; i < reg->n_nodes; i++)
		if (!g->nodes[reg->nodes[i]].dead)
			print_node(f, g, reg->nodes[i], depth, plan);
	for (int i = 0; i < reg->n_outputs; i++) {
		fprintf(f, "%*soutput ", depth * 2, "");
		print_name(f, g->values[reg->outputs[i]].name);
		fputc('\n', f);
	}
	if (r != 0)
		fprintf(f, "%*s}\n", (depth - 1) * 2, "");
}

/* The graph; with plan, its memory plan too (@arena+N offsets, the workspace line). */
static void print_graph(const Graph *g, FILE *f, bool plan)
{
	fprintf(f, "// ingot IR, opset %d\n", g->opset);
	print_region(f, g, 0, 0, plan);
	if (plan && (g->arena_bytes || g->scratch_bytes))
		fprintf(f, "// workspace: arena %" PRId64 " bytes, scratch %" PRId64 " bytes\n",
		        g->arena_bytes, g->scratch_bytes);
}

void ir_print(const Graph *g, FILE *f)
{
	print_graph(g, f, true);
}

void ir_print_unplanned(const Graph *g, FILE *f)
{
	print_graph(g, f, false);
}

int ir_dump(const Graph *g, const char *path)
{
	char blob[4096];
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	ir_print(g, f);
	if (fclose(f) != 0)
		return -1;
	snprintf(blob, sizeof blob, "%s.bin", path);
	f = fopen(blob, "wb");
	if (!f)
		return -1;
	if (g->blob_size && fwrite(g->blob, 1, (size_t)g->blob_size, f) != (size_t)g->blob_size) {
		fclose(f);
		return -1;
	}
	return fclose(f) == 0 ? 0 : -1;
}
