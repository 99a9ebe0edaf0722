/* emit.c — writes a model directory for the C target: NAME.h (the API of
 * docs/api.md), NAME.c (the graph as straight-line kernel calls, each under a
 * comment naming its ONNX node), the kernels it uses, the weights, the runner
 * (NAME_main.c) and the build files. Output is deterministic: same graph and
 * options, same bytes.
 *
 * Control flow (If, Loop, Scan): each body becomes a static function
 * NAME_body_<k>(bin[], bout[], ws, cap[]) whose results go straight into the
 * caller's buffers; the node becomes a branch or a loop around its calls. */
#include "emit_impl.h"
#include "ukgen.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>


static const Scope main_scope = { 0, NULL, 0 };

/* ---- value references ---- */

int cg_c_io_index(const ValueId *list, int n, ValueId v)
{
	for (int i = 0; i < n; i++)
		if (list[i] == v)
			return i;
	return -1;
}

/* First index of v in the main region's list (whose per-value table is `index`). */
static int main_index(const Ctx *c, const ValueId *list, int n, const int *index, ValueId v)
{
	return index && v < c->n_indexed ? index[v] : cg_c_io_index(list, n, v);
}

/* Fills c->main_in / c->main_out: a model with 10^5 inputs looks them up in O(1). */
static void index_main_io(Ctx *c)
{
	const Region *main = &c->g->regions[0];
	int n = c->g->n_values;
	c->n_indexed = n;
	c->main_in = arena_array(&c->g->arena, (size_t)(n ? n : 1), sizeof *c->main_in);
	c->main_out = arena_array(&c->g->arena, (size_t)(n ? n : 1), sizeof *c->main_out);
	for (int i = 0; i < n; i++)
		c->main_in[i] = c->main_out[i] = -1;
	for (int i = main->n_inputs - 1; i >= 0; i--)
		c->main_in[main->inputs[i]] = i;
	for (int i = main->n_outputs - 1; i >= 0; i--)
		c->main_out[main->outputs[i]] = i;
}

/* The C expression of a value's storage inside NAME_run_v or a body function. */
void cg_c_value_ref(Ctx *c, const Scope *s, ValueId v, char *buf, size_t cap)
{
	const Region *main = &c->g->regions[0];
	const Value *val = &c->g->values[v];
	int k;
	if (s->r != 0 && !val->is_const) {
		const Region *reg = &c->g->regions[s->r];
		if ((k = cg_c_io_index(reg->inputs, reg->n_inputs, v)) >= 0)
			snprintf(buf, cap, "bin[%d]", k);
		else if ((k = cg_c_io_index(reg->outputs, reg->n_outputs, v)) >= 0)
			snprintf(buf, cap, "bout[%d]", k);
		else if (val->arena_off >= 0)
			snprintf(buf, cap, "ws + %" PRId64, val->arena_off);
		else if ((k = cg_c_io_index(s->caps, s->n_caps, v)) >= 0)
			snprintf(buf, cap, "cap[%d]", k);
		else
			die("value '%s' has no storage in region '%s'", val->name, reg->name);
		return;
	}
	if ((k = main_index(c, main->outputs, main->n_outputs, c->main_out, v)) >= 0 &&
	    val->producer != IR_NONE && !c->g->nodes[val->producer].dead)
		snprintf(buf, cap, "outputs[%d]", k);
	else if ((k = main_index(c, main->inputs, main->n_inputs, c->main_in, v)) >= 0)
		snprintf(buf, cap, "inputs[%d]", k);
	else if (val->is_const && type_bytes(&val->type) == 0)
		snprintf(buf, cap, "NULL");   /* an empty constant: nothing to read */
	else if (val->is_const)
		snprintf(buf, cap, "%s_weights + %" PRId64, c->o->name, c->w.off[v]);
	else if (val->arena_off >= 0)
		snprintf(buf, cap, "ws + %" PRId64, val->arena_off);
	else
		die("value '%s' has no storage", val->name);
}

void cg_c_value_desc(const Graph *g, ValueId v, char *buf, size_t cap)
{
	char ty[256], name[200];
	cg_comment_text(g->values[v].name, name, sizeof name);
	snprintf(buf, cap, "%s %s", name, type_format(&g->values[v].type, ty, sizeof ty));
}

/* ---- NAME.h ---- */

static void emit_io_comment(Emitter *e, Ctx *c, const char *what, const ValueId *vals, int n)
{
	char desc[512];
	em_line(e, " * %s:", what);
	for (int i = 0; i < n; i++) {
		cg_c_value_desc(c->g, vals[i], desc, sizeof desc);
		em_line(e, " *   %d  %s", i, desc);
	}
}

/* `int NAME_<fn>(const T *in..., T *out..., void *workspace<end>` */
static void emit_typed_proto(Emitter *e, Ctx *c, const char *fn, const char *end)
{
	const Region *main = &c->g->regions[0];
	int np = 0;
	em_printf(e, "int %s_%s(", c->o->name, fn);
	for (int i = 0; i < main->n_inputs; i++, np++)
		em_printf(e, "%sconst %s *%s", np ? ", " : "",
		          dtype_c_type(c->g->values[main->inputs[i]].type.dtype), c->param_names[np]);
	for (int i = 0; i < main->n_outputs; i++, np++)
		em_printf(e, "%s%s *%s", np ? ", " : "",
		          dtype_c_type(c->g->values[main->outputs[i]].type.dtype), c->param_names[np]);
	em_printf(e, "%svoid *workspace%s", np ? ", " : "", end);
}

static int emit_header(Ctx *c, int64_t workspace, DiagSink *d)
{
	const Region *main = &c->g->regions[0];
	const CodegenOptions *o = c->o;
	Emitter e;
	char file[128], src[200], flags[600];
	snprintf(file, sizeof file, "%s.h", o->name);
	if (em_open(&e, o->out_dir, file, d))
		return -1;
	cg_comment_text(o->source_name ? o->source_name : "", src, sizeof src);
	cg_comment_text(o->flags_text ? o->flags_text : "", flags, sizeof flags);
	em_line(&e, "/* %s.h — the API of model '%s', compiled from %s by ingot %s.", o->name, o->name,
	        src, INGOT_VERSION);
	em_line(&e, " * Flags: %s", flags);
	em_line(&e, " *");
	em_line(&e, " * Usage:");
	em_line(&e, " *     static unsigned char ws[%s_WORKSPACE_SIZE] __attribute__((aligned(64)));", c->NAME);
	em_line(&e, " *     int rc = %s_run(<inputs>, <outputs>, ws);   // 0, or an INGOT_E* code", o->name);
	em_line(&e, " * No allocation, no global state: %s_run is reentrant with one workspace per caller.",
	        o->name);
	emit_io_comment(&e, c, "Inputs", main->inputs, main->n_inputs);
	emit_io_comment(&e, c, "Outputs", main->outputs, main->n_outputs);
	em_line(&e, " */");
	em_line(&e, "#ifndef %s_H", c->NAME);
	em_line(&e, "#define %s_H", c->NAME);
	em_blank(&e);
	em_line(&e, "#include \"ingot_rt.h\"");
	em_blank(&e);
	em_line(&e, "#ifdef __cplusplus");
	em_line(&e, "extern \"C\" {");
	em_line(&e, "#endif");
	em_blank(&e);
	em_line(&e, "/* bytes of caller-provided scratch memory, 64-byte aligned */");
	em_line(&e, "#define %s_WORKSPACE_SIZE %" PRId64, c->NAME, workspace);
	em_line(&e, "/* bytes of the weights blob %s_weights */", o->name);
	em_line(&e, "#define %s_WEIGHTS_SIZE %" PRId64, c->NAME, c->w.size);
	em_line(&e, "#define %s_NUM_INPUTS %d", c->NAME, main->n_inputs);
	em_line(&e, "#define %s_NUM_OUTPUTS %d", c->NAME, main->n_outputs);
	em_blank(&e);
	em_line(&e, "/* name, dtype, rank, dims and bytes of each input and output, in ONNX order */");
	em_line(&e, "extern const ingot_io %s_inputs[%s_NUM_INPUTS > 0 ? %s_NUM_INPUTS : 1];", o->name,
	        c->NAME, c->NAME);
	em_line(&e, "extern const ingot_io %s_outputs[%s_NUM_OUTPUTS];", o->name, c->NAME);
	if (c->w.size > 0) {
		em_line(&e, "/* the weights: linked from %s_weights.c / .S, or provided by you (--weights extern) */",
		        o->name);
		em_line(&e, "extern const unsigned char %s_weights[%s_WEIGHTS_SIZE];", o->name, c->NAME);
	}
	em_blank(&e);
	bool strings = false;
	for (int i = 0; i < main->n_inputs; i++)
		strings |= c->g->values[main->inputs[i]].type.dtype == DT_STRING;
	for (int i = 0; i < main->n_outputs; i++)
		strings |= c->g->values[main->outputs[i]].type.dtype == DT_STRING;
	if (strings) {
		em_line(&e, "/* String tensors (ingot_str, ingot_rt.h): one INGOT_STRING_CAP-byte slot per");
		em_line(&e, " * element, a NUL-terminated string of at most INGOT_STRING_CAP - 1 bytes.");
		em_line(&e, " * Write inputs zero-padded; outputs are written zero-padded. */");
	}
	em_line(&e, "/* Runs the model. Returns 0, INGOT_EINVAL (NULL or misaligned workspace) or");
	em_line(&e, " * INGOT_ERANGE (an index input was out of range). */");
	emit_typed_proto(&e, c, "run", ");\n");
	for (int i = 0; i < main->n_outputs; i++) {
		const Value *v = &c->g->values[main->outputs[i]];
		char id[200], up[200];
		if (!v->dynamic)
			continue;
		cg_ident(v->name, id, sizeof id);
		cg_upper(id, up, sizeof up);
		em_printf(&e, "/* output %d's size depends on the data: at most these dims */\n#define %s_%s_MAX_DIMS {", i,
		          c->NAME, up);
		for (int k = 0; k < v->type.rank; k++)
			em_printf(&e, k ? ", %" PRId64 : "%" PRId64, v->type.dims[k]);
		em_printf(&e, "}\n");
	}
	em_line(&e, "/* The same, with inputs[] and outputs[] in ONNX order. */");
	em_line(&e, "int %s_run_v(const void *const inputs[], void *const outputs[], void *workspace);",
	        o->name);
	em_line(&e, "/* Dims of output i after a run with this workspace (the static dims unless the");
	em_line(&e, " * output's size depends on the data); returns its rank, or -1 for a bad i. */");
	em_line(&e, "int %s_out_dims(const void *workspace, int i, int64_t dims[INGOT_MAX_RANK]);", o->name);
	if (c->has_rng) {
		em_line(&e, "/* Random ops without a `seed` attribute draw from a Philox4x32-10 state kept in");
		em_line(&e, " * the workspace: this sets its seed and restarts its run count. Each run then");
		em_line(&e, " * draws new numbers; a workspace never seeded starts from seed 0. */");
		em_line(&e, "void %s_seed(void *workspace, uint64_t seed);", o->name);
	}
	em_blank(&e);
	cg_c_emit_par_api(&e, o, c->NAME, c->par_stride);
	emit_typed_proto(&e, c, "run_par", ", const ingot_par *par);\n");
	em_line(&e, "int %s_run_par_v(const void *const inputs[], void *const outputs[], void *workspace,",
	        o->name);
	em_line(&e, "\tconst ingot_par *par);");
	if (o->profile)
		cg_c_emit_prof_api(&e, o->name, c->NAME, c->n_prof);
	if (c->hooks && c->hooks->header)
		c->hooks->header(c, &e, c->hooks->state);
	em_blank(&e);
	em_line(&e, "#ifdef __cplusplus");
	em_line(&e, "}");
	em_line(&e, "#endif");
	em_blank(&e);
	em_line(&e, "#endif /* %s_H */", c->NAME);
	return em_close(&e, d);
}

/* ---- NAME.c ---- */

/* Data-dependent output sizes (NonZero, NonMaxSuppression...): the kernel writes the
 * actual dims of each dynamic output through one extra out[] pointer after its
 * regular outputs, into an int64_t[INGOT_MAX_RANK] slot at the end of the workspace;
 * NAME_out_dims() reads them back. A dynamic value must be a graph output that no
 * other node reads (consumers of run-time shapes are not supported yet). */
static int output_index(const Graph *g, ValueId v)
{
	return cg_c_io_index(g->regions[0].outputs, g->regions[0].n_outputs, v);
}

int cg_c_dynamic_slot(const Graph *g, ValueId v)
{
	int slot = 0, k = output_index(g, v);
	for (int i = 0; i < k; i++)
		slot += g->values[g->regions[0].outputs[i]].dynamic;
	return slot;
}

static int check_dynamic(Ctx *c, DiagSink *d)
{
	const Graph *g = c->g;
	const Region *main = &g->regions[0];
	for (int i = 0; i < main->n_nodes; i++) {
		const Node *n = &g->nodes[main->nodes[i]];
		if (n->dead)
			continue;
		for (int k = 0; k < n->n_out; k++) {
			ValueId v = n->out[k];
			if (v == IR_NONE || !g->values[v].dynamic || output_index(g, v) >= 0)
				continue;
			DiagLoc l = ir_node_loc(g, main->nodes[i]);
			l.slot_kind = "output";
			l.slot = k;
			l.tensor = g->values[v].name;
			diag_report(d, DIAG_ERROR, DC_UNSUPPORTED, &l,
			            "its size depends on input values and it feeds other nodes: not supported yet");
			return -1;
		}
		for (int k = 0; k < n->n_in; k++)
			if (n->in[k] != IR_NONE && g->values[n->in[k]].dynamic) {
				DiagLoc l = ir_node_loc(g, main->nodes[i]);
				l.slot_kind = "input";
				l.slot = k;
				l.tensor = g->values[n->in[k]].name;
				diag_report(d, DIAG_ERROR, DC_UNSUPPORTED, &l,
				            "reads a tensor whose size depends on input values: not supported yet");
				return -1;
			}
	}
	for (int i = 0; i < main->n_outputs; i++)
		c->n_dynamic += g->values[main->outputs[i]].dynamic;
	return 0;
}

static void emit_dynamic_dims(Ctx *c, Emitter *e, NodeId id)
{
	const Node *n = &c->g->nodes[id];
	for (int k = 0; k < n->n_out; k++)
		if (n->out[k] != IR_NONE && c->g->values[n->out[k]].dynamic)
			em_printf(e, ", ws + %" PRId64, c->dims_off + 64 * (int64_t)cg_c_dynamic_slot(c->g, n->out[k]));
}

static void emit_out_dims_fn(Emitter *e, Ctx *c)
{
	const Region *main = &c->g->regions[0];
	const char *name = c->o->name;
	em_line(e, "int %s_out_dims(const void *workspace, int i, int64_t dims[INGOT_MAX_RANK])", name);
	em_line(e, "{");
	em_line(e, "\tint k;");
	em_line(e, "\t(void)workspace;");
	em_line(e, "\tif (i < 0 || i >= %s_NUM_OUTPUTS)", c->NAME);
	em_line(e, "\t\treturn -1;");
	em_line(e, "\tfor (k = 0; k < %s_outputs[i].rank; k++)", name);
	em_line(e, "\t\tdims[k] = %s_outputs[i].dims[k];", name);
	for (int i = 0; i < main->n_outputs; i++) {
		if (!c->g->values[main->outputs[i]].dynamic)
			continue;
		em_line(e, "\tif (i == %d && workspace)   /* data-dependent: written by the run */", i);
		em_line(e, "\t\tmemcpy(dims, (const unsigned char *)workspace + %" PRId64 ", sizeof(int64_t) * %d);",
		        c->dims_off + 64 * (int64_t)cg_c_dynamic_slot(c->g, main->outputs[i]),
		        c->g->values[main->outputs[i]].type.rank);
	}
	em_line(e, "\treturn %s_outputs[i].rank;", name);
	em_line(e, "}");
}

static void emit_io_table(Emitter *e, Ctx *c, const char *which, const ValueId *vals, int n)
{
	em_line(e, "const ingot_io %s_%s[%s] = {", c->o->name, which,
	        n > 0 ? "" : "1");
	e->indent++;
	for (int i = 0; i < n; i++) {
		const Type *t = &c->g->values[vals[i]].type;
		em_printf(e, "\t{ ");
		cg_c_emit_string(e, c->g->values[vals[i]].name);
		em_printf(e, ", %d, %d, {", (int)t->dtype, t->rank);
		if (t->rank == 0)
			em_printf(e, "0");   /* a scalar: C99 has no empty initializer */
		for (int k = 0; k < t->rank; k++)
			em_printf(e, k ? ", %" PRId64 : "%" PRId64, t->dims[k]);
		em_printf(e, "}, %" PRId64 " },\n", type_bytes(t));
	}
	if (n == 0)
		em_line(e, "{ \"\", 0, 0, {0}, 0 }");
	e->indent--;
	em_line(e, "};");
}

void cg_c_node_comment(Emitter *e, Ctx *c, NodeId id, const char *indent)
{
	const Node *n = &c->g->nodes[id];
	char name[256], desc[512];
	em_printf(e, "%s/* %s '", indent, ir_op_name(n->op));
	for (int i = 0; i < n->n_origins; i++) {
		cg_comment_text(n->origins[i], name, sizeof name);
		em_printf(e, i ? "+%s" : "%s", name);
	}
	em_printf(e, "':");
	for (int i = 0, first = 1; i < n->n_in; i++) {
		if (n->in[i] == IR_NONE)
			continue;
		cg_c_value_desc(c->g, n->in[i], desc, sizeof desc);
		em_printf(e, "%s %s", first ? "" : ",", desc);
		first = 0;
	}
	em_printf(e, " ->");
	for (int i = 0, first = 1; i < n->n_out; i++) {
		if (n->out[i] == IR_NONE)
			continue;
		cg_c_value_desc(c->g, n->out[i], desc, sizeof desc);
		em_printf(e, "%s %s", first ? "" : ",", desc);
		first = 0;
	}
	em_printf(e, " */\n");
}

/* Call c->n_calls's parameter struct pN into c->params. */
static void emit_params(Ctx *c, NodeId id, const KernelCall *kc)
{
	cg_c_node_comment(&c->params, c, id, "");
	em_printf(&c->params, "static const %s p%d = ", kc->pdesc->type, c->n_calls);
	cg_c_emit_params(&c->params, kc->pdesc, kc->params);
	em_printf(&c->params, ";\n");
}

/* One kernel call for node id, in scope s. */
static int emit_call(Ctx *c, const Scope *s, Emitter *body, NodeId id)
{
	Graph *g = c->g;
	const Node *n = &g->nodes[id];
	KernelCall kc;
	char ref[256];
	if (c->t->lower(c->t, g, id, &kc)) {
		DiagLoc l = ir_node_loc(g, id);
		diag_report(c->d, DIAG_ERROR, DC_UNSUPPORTED, &l, "no kernel for this node on target '%s'",
		            c->t->name);
		return -1;
	}
	if (n->op == OP_FUSED_ELEMENTWISE && cg_c_emit_fused(c, id, &kc))
		return -1;
	cg_c_kernel_set_add(c->ks, kc.family);
	cg_c_node_comment(body, c, id, "\t");
	em_line(body, "\t{");
	if (kc.pdesc)
		emit_params(c, id, &kc);
	int n_in = n->n_in + kc.rng;   /* a random kernel's state comes last */
	em_printf(body, "\t\tconst void *in[%d] = {", n_in > 0 ? n_in : 1);
	unsigned compile_time = op_info(n->op)->const_inputs;
	for (int k = 0; k < n_in; k++) {
		if (k == n->n_in)
			snprintf(ref, sizeof ref, "ws + %" PRId64, c->rng_off);
		else if (n->in[k] == IR_NONE || (k < 32 && (compile_time & (1u << k))))
			snprintf(ref, sizeof ref, "NULL");   /* omitted, or folded into the params */
		else
			cg_c_value_ref(c, s, n->in[k], ref, sizeof ref);
		em_printf(body, k ? ", %s" : " %s", ref);
	}
	em_printf(body, n_in ? " };\n" : " NULL };\n");
	c->has_rng |= kc.rng;
	int n_dyn = 0;
	for (int k = 0; k < n->n_out; k++)
		n_dyn += n->out[k] != IR_NONE && g->values[n->out[k]].dynamic;
	em_printf(body, "\t\tvoid *const out[%d] = {", n->n_out + n_dyn > 0 ? n->n_out + n_dyn : 1);
	for (int k = 0; k < n->n_out; k++) {
		if (n->out[k] == IR_NONE)
			snprintf(ref, sizeof ref, "NULL");
		else
			cg_c_value_ref(c, s, n->out[k], ref, sizeof ref);
		em_printf(body, k ? ", %s" : " %s", ref);
	}
	emit_dynamic_dims(c, body, id);
	em_printf(body, " };\n");
	char pref[32];
	snprintf(pref, sizeof pref, kc.pdesc ? "&p%d" : "NULL", c->n_calls);
	if (s->r == 0 && kc.split) {   /* NAME_run_par may split it over threads */
		int64_t stride = (kc.scratch_bytes + 63) / 64 * 64;
		if (stride > c->par_stride)
			c->par_stride = stride;
		c->n_par++;
		em_line(body, "\t\tif ((rc = ingot_par_call(par, INGOT_PAR_TASKS(%" PRId64 "), %s, %s, in, out, "
		        "scratch,", cg_c_par_work(g, id), kc.fn_name, pref);
		em_line(body, "\t\t                         scratch_more, %s_PAR_SCRATCH)) != 0)", c->NAME);
	} else {
		em_line(body, "\t\tif ((rc = %s(%s, in, out, scratch, 0, 1)) != 0)", kc.fn_name, pref);
	}
	em_line(body, "\t\t\treturn rc;");
	em_line(body, "\t}");
	c->n_calls++;
	return 0;
}

/* The nodes of a region, in order, as calls. */
int cg_c_emit_nodes(Ctx *c, const Scope *s, Emitter *body)
{
	const Region *reg = &c->g->regions[s->r];
	for (int i = 0; i < reg->n_nodes; i++) {
		NodeId id = reg->nodes[i];
		const Node *n = &c->g->nodes[id];
		if (n->dead)
			continue;
		if (plan_node_is_alias(c->g, id)) {   /* a view of its input's storage: no code */
			cg_c_node_comment(body, c, id, "\t");
			em_line(body, "\t/* (a view of its input: shares its storage, nothing to run) */");
			continue;
		}
		if (s->r == 0 && c->hooks && c->hooks->node) {   /* a device node, or a transfer */
			int done = c->hooks->node(c, body, id, c->hooks->state);
			if (done < 0)
				return -1;
			if (done)
				continue;
		}
		bool timed = c->o->profile && s->r == 0;
		if (timed)
			em_line(body, "\tif (prof)\n\t\tt0 = prof->clock(prof->ctx);");
		if (n->n_bodies ? cg_c_emit_control(c, s, body, id) : emit_call(c, s, body, id))
			return -1;
		if (timed) {
			em_line(body, "\tif (prof)\n\t\tprof->seconds[%d] += prof->clock(prof->ctx) - t0;", c->n_prof);
			c->prof_nodes[c->n_prof++] = id;
		}
	}
	return 0;
}


static int emit_source(Ctx *c, KernelSet *ks, DiagSink *d)
{
	Graph *g = c->g;
	const Region *main = &g->regions[0];
	const CodegenOptions *o = c->o;
	Emitter body, e;
	char ref[256], file[128], src[200];
	int rc = 0;

	c->ks = ks;
	c->d = d;
	em_init(&c->params);
	em_init(&c->funcs);
	em_init(&body);
	em_init(&e);
	c->prof_nodes = arena_array(&g->arena, (size_t)(main->n_nodes ? main->n_nodes : 1),
	                            sizeof *c->prof_nodes);
	rc = cg_c_emit_nodes(c, &main_scope, &body);
	if (rc)
		goto done;

	/* graph outputs no node writes: inputs passed through, constants, duplicates */
	for (int i = 0; i < main->n_outputs; i++) {
		ValueId v = main->outputs[i];
		const Value *val = &g->values[v];
		char name[256];
		int first = main_index(c, main->outputs, main->n_outputs, c->main_out, v);
		bool written = val->producer != IR_NONE && !g->nodes[val->producer].dead;
		if ((written && first == i) || type_bytes(&val->type) == 0)
			continue;
		if (written)
			snprintf(ref, sizeof ref, "outputs[%d]", first);
		else
			cg_c_value_ref(c, &main_scope, v, ref, sizeof ref);
		cg_comment_text(val->name, name, sizeof name);
		em_line(&body, "\t/* output %d '%s' is not computed by a node: copy it */", i, name);
		em_line(&body, "\tmemcpy(outputs[%d], %s, %" PRId64 ");", i, ref, type_bytes(&val->type));
	}

	snprintf(file, sizeof file, "%s.c", o->name);
	rc = em_open(&e, o->out_dir, file, d);
	if (rc)
		goto done;
	cg_comment_text(o->source_name ? o->source_name : "", src, sizeof src);
	em_line(&e, "/* %s.c — model '%s' (from %s) as straight-line kernel calls; generated by ingot %s.",
	        o->name, o->name, src, INGOT_VERSION);
	em_line(&e, " * Each call is commented with its ONNX node, inputs and outputs (dtype, shape).");
	em_line(&e, " * The workspace holds the activations arena (%" PRId64 " bytes) then kernel scratch. */",
	        g->arena_bytes);
	em_line(&e, "#include \"%s.h\"", o->name);
	em_blank(&e);
	em_line(&e, "#include <math.h>");
	em_line(&e, "#include <string.h>");
	em_blank(&e);
	em_line(&e, "/* The kernels are compiled into this file as static functions, so two models link");
	em_line(&e, " * into one program; define INGOT_EXTERN_KERNELS to link a prebuilt kernel library. */");
	em_line(&e, "#ifdef INGOT_EXTERN_KERNELS");
	for (int i = 0; i < ks->n; i++)
		em_line(&e, "#include \"kernels/%s.h\"", ks->families[i]);
	em_line(&e, "#else");
	em_line(&e, "#undef INGOT_KERNEL   /* ingot_rt.h defined it empty */");
	em_line(&e, "#define INGOT_KERNEL static INGOT_UNUSED");
	for (int i = 0; i < ks->n; i++)
		em_line(&e, "#include \"kernels/%s.c\"", ks->families[i]);
	em_line(&e, "#endif");
	if (c->n_fused) {   /* what the fused elementwise functions call */
		em_line(&e, "#include \"kernels/ewmath.h\"");
		if (cg_c_fused_lanes(c->t) > 1) {
			em_line(&e, "#include \"kernels/%s/ukernel.h\"", c->t->simd);
			em_line(&e, "#include \"kernels/simd/vmath.h\"");
		}
	}
	em_blank(&e);
	cg_c_emit_par_pool(&e, o->name);
	em_blank(&e);
	emit_io_table(&e, c, "inputs", main->inputs, main->n_inputs);
	emit_io_table(&e, c, "outputs", main->outputs, main->n_outputs);
	em_blank(&e);
	if (c->params.len) {
		em_line(&e, "/* kernel parameters, one struct per call */");
		em_raw(&e, c->params.buf, c->params.len);
		em_blank(&e);
	}
	if (c->funcs.len)
		em_raw(&e, c->funcs.buf, c->funcs.len);
	if (o->profile)
		cg_c_emit_prof_table(&e, g, o->name, c->prof_nodes, c->n_prof);
	em_line(&e, "/* The graph: on the caller's thread when par is NULL, else split nodes on par's");
	em_line(&e, " * threads (per-task scratch after the first %s_WORKSPACE_SIZE bytes)%s */", c->NAME,
	        o->profile ? "; prof, if\n * not NULL, adds each node's time to prof->seconds[]." : ".");
	if (c->hooks && c->hooks->source)
		c->hooks->source(c, &e, c->hooks->state);
	em_line(&e, "static int %s_exec%s(const void *const inputs[], void *const outputs[], void *workspace,",
	        o->name, c->hooks ? "_dev" : "");
	if (c->hooks)
		em_line(&e, "\tconst ingot_par *par, %s_cl *cl)", o->name);
	else
		em_line(&e, "\tconst ingot_par *par%s)", o->profile ? ", const ingot_prof *prof" : "");
	em_line(&e, "{");
	em_line(&e, "\tunsigned char *ws = (unsigned char *)workspace;");
	em_line(&e, "\tunsigned char *scratch = ws + %" PRId64 ";", g->arena_bytes);
	if (c->n_par)
		em_line(&e, "\tunsigned char *scratch_more = ws + %s_WORKSPACE_SIZE;", c->NAME);
	em_line(&e, "\tint rc = 0;");
	if (o->profile)
		em_line(&e, "\tdouble t0 = 0;");
	em_blank(&e);
	em_line(&e, "\t(void)scratch;");
	em_line(&e, "\t(void)par;");
	if (c->hooks)
		em_line(&e, "\t(void)cl;");
	if (o->profile)
		em_line(&e, "\t(void)t0;");
	em_line(&e, "\tif (!inputs || !outputs || (%s_WORKSPACE_SIZE > 0 && !workspace) ||", c->NAME);
	em_line(&e, "\t    ((uintptr_t)workspace & 63u) != 0)");
	em_line(&e, "\t\treturn INGOT_EINVAL;");
	if (c->has_rng) {
		em_line(&e, "\t/* random ops without a seed: count this run in the workspace's generator state */");
		em_line(&e, "\tingot_rng_begin(ws + %" PRId64 ");", c->rng_off);
	}
	em_raw(&e, body.buf ? body.buf : "", body.len);
	em_line(&e, "\treturn rc;");
	em_line(&e, "}");
	em_blank(&e);
	if (c->hooks && c->hooks->exec)
		c->hooks->exec(c, &e, c->hooks->state);
	const char *no_prof = o->profile ? ", NULL" : "";
	em_line(&e, "int %s_run_v(const void *const inputs[], void *const outputs[], void *workspace)", o->name);
	em_line(&e, "{");
	em_line(&e, "\treturn %s_exec(inputs, outputs, workspace, NULL%s);", o->name, no_prof);
	em_line(&e, "}");
	em_blank(&e);
	em_line(&e, "int %s_run_par_v(const void *const inputs[], void *const outputs[], void *workspace,", o->name);
	em_line(&e, "\tconst ingot_par *par)");
	em_line(&e, "{");
	em_line(&e, "\treturn %s_exec(inputs, outputs, workspace, par%s);", o->name, no_prof);
	em_line(&e, "}");
	em_blank(&e);
	if (o->profile) {
		em_line(&e, "int %s_run_prof_v(const void *const inputs[], void *const outputs[], void *workspace,",
		        o->name);
		em_line(&e, "\tconst ingot_par *par, const ingot_prof *prof)");
		em_line(&e, "{");
		em_line(&e, "\treturn %s_exec(inputs, outputs, workspace, par, prof);", o->name);
		em_line(&e, "}");
		em_blank(&e);
	}
	/* the typed entry points */
	for (int par = 0; par < 2; par++) {
		emit_typed_proto(&e, c, par ? "run_par" : "run", par ? ", const ingot_par *par)\n" : ")\n");
		em_line(&e, "{");
		int np = 0;
		em_printf(&e, "\tconst void *const in[%d] = {", main->n_inputs ? main->n_inputs : 1);
		for (int i = 0; i < main->n_inputs; i++, np++)
			em_printf(&e, i ? ", %s" : " %s", c->param_names[np]);
		em_printf(&e, main->n_inputs ? " };\n" : " NULL };\n");
		em_printf(&e, "\tvoid *const out[%d] = {", main->n_outputs ? main->n_outputs : 1);
		for (int i = 0; i < main->n_outputs; i++, np++)
			em_printf(&e, i ? ", %s" : " %s", c->param_names[np]);
		em_printf(&e, " };\n");
		em_line(&e, "\treturn %s_exec(in, out, workspace, %s%s);", o->name, par ? "par" : "NULL", no_prof);
		em_line(&e, "}");
		em_blank(&e);
	}
	if (c->has_rng) {
		em_line(&e, "void %s_seed(void *workspace, uint64_t seed)", o->name);
		em_line(&e, "{");
		em_line(&e, "\tingot_rng_seed((unsigned char *)workspace + %" PRId64 ", seed);", c->rng_off);
		em_line(&e, "}");
		em_blank(&e);
	}
	emit_out_dims_fn(&e, c);
	rc = em_close(&e, d);
done:
	em_free(&c->params);
	em_free(&c->funcs);
	em_free(&body);
	em_free(&e);
	return rc;
}

/* ---- NAME_main.c: the runner ---- */

static int emit_runner(Ctx *c, DiagSink *d)
{
	Emitter e;
	char file[128];
	const char *n = c->o->name;
	int rc;
	em_init(&e);
	em_line(&e, "/* %s_main.c — command-line runner of model '%s'; generated by ingot %s.", c->o->name,
	        c->o->name, INGOT_VERSION);
	em_line(&e, " *   ./%s --input in0.pb [--input in1.pb] [--output-dir D]", c->o->name);
	em_line(&e, " *   ./%s --bench N [--threads T]", c->o->name);
	em_line(&e, " * It describes the model to the runner (ingot_runner.h), which is the same code for");
	em_line(&e, " * every model; with INGOT_RUNNER_EXTERN it only exports that table, for a runner");
	em_line(&e, " * built once elsewhere (ingot check). */");
	em_line(&e, "#ifndef _POSIX_C_SOURCE");
	em_line(&e, "#define _POSIX_C_SOURCE 200809L");
	em_line(&e, "#endif");
	em_line(&e, "#include \"%s.h\"", n);
	em_line(&e, "#include \"ingot_runner.h\"");
	em_blank(&e);
	em_line(&e, "static size_t %s_runner_workspace(int n_threads)", n);
	em_line(&e, "{");
	em_line(&e, "\treturn %s_WORKSPACE_SIZE_PAR(n_threads);", c->NAME);
	em_line(&e, "}");
	em_blank(&e);
	if (c->hooks && c->hooks->runner)
		c->hooks->runner(c, &e, c->hooks->state);
	em_line(&e, "static const ingot_runner_model %s_runner = {", n);
	em_line(&e, "\t\"%s\", %s_NUM_INPUTS, %s_NUM_OUTPUTS, %s_inputs, %s_outputs,", n, c->NAME, c->NAME, n, n);
	em_line(&e, "\t%s_runner_workspace, %s_run_par_v, %s_par_create, %s_par_destroy, %s_out_dims,", n, n, n, n,
	        n);
	em_line(&e, "\t%s%s,", c->has_rng ? n : "NULL", c->has_rng ? "_seed" : "");
	if (c->o->profile)
		em_line(&e, "\t%s_run_prof_v, %s_prof_nodes, %s_PROF_NODES,", n, n, c->NAME);
	else
		em_line(&e, "\tNULL, NULL, 0,   /* compiled without --profile */");
	if (c->hooks && c->hooks->runner)
		em_line(&e, "\t%s_runner_dev_open, %s_runner_dev_run, %s_runner_dev_close", n, n, n);
	else
		em_line(&e, "\tNULL, NULL, NULL   /* no device */");
	em_line(&e, "};");
	em_blank(&e);
	em_line(&e, "#ifdef INGOT_RUNNER_EXTERN");
	em_line(&e, "const ingot_runner_model *const ingot_runner_the_model = &%s_runner;", n);
	em_line(&e, "#else");
	em_line(&e, "#include \"ingot_runner.c\"");
	em_blank(&e);
	em_line(&e, "int main(int argc, char **argv)");
	em_line(&e, "{");
	em_line(&e, "\treturn ingot_runner_main(&%s_runner, argc, argv);", n);
	em_line(&e, "}");
	em_line(&e, "#endif");
	snprintf(file, sizeof file, "%s_main.c", c->o->name);
	rc = em_write_file(&e, c->o->out_dir, file, d);
	em_free(&e);
	if (!rc)
		rc = cg_copy_stub(c->o->out_dir, "ingot_runner.c", d);
	if (!rc)
		rc = cg_copy_stub(c->o->out_dir, "ingot_runner.h", d);
	if (!rc)
		rc = cg_copy_stub(c->o->out_dir, "ingot_tensor_io.c", d);
	if (!rc)
		rc = cg_copy_stub(c->o->out_dir, "ingot_tensor_npy.c", d);
	if (!rc)
		rc = cg_copy_stub(c->o->out_dir, "ingot_tensor_io.h", d);
	return rc;
}

/* Whether name is in the open-addressing set (cap slots, a power of two); adds it if not. */
static bool name_seen(char **set, size_t cap, char *name)
{
	size_t i = (size_t)ir_fnv1a64(IR_FNV64, name, strlen(name)) & (cap - 1);
	for (; set[i]; i = (i + 1) & (cap - 1))
		if (strcmp(set[i], name) == 0)
			return true;
	set[i] = name;
	return false;
}

/* Typed run() parameter names: sanitized ONNX names, made unique. */
static void make_param_names(Ctx *c)
{
	const Region *main = &c->g->regions[0];
	int n = main->n_inputs + main->n_outputs;
	size_t cap = 16;
	while (cap < 2 * (size_t)n + 2)   /* each name adds at most two entries... */
		cap *= 2;
	cap *= 2;                         /* ...and the set stays at most a quarter full */
	char **set = arena_array(&c->g->arena, cap, sizeof *set);
	c->param_names = arena_array(&c->g->arena, (size_t)(n ? n : 1), sizeof *c->param_names);
	for (int i = 0; i < n; i++) {
		ValueId v = i < main->n_inputs ? main->inputs[i] : main->outputs[i - main->n_inputs];
		char id[200];
		cg_ident(c->g->values[v].name, id, sizeof id);
		/* a name an earlier parameter has gets the parameter's index appended */
		char *name = arena_strdup(&c->g->arena, id);
		if (name_seen(set, cap, name)) {
			snprintf(id + strlen(id), sizeof id - strlen(id), "_%d", i);
			name = arena_strdup(&c->g->arena, id);
			name_seen(set, cap, name);
		}
		c->param_names[i] = name;
	}
}

int cg_c_emit(const Target *t, Graph *g, const CodegenOptions *o, DiagSink *d)
{
	return cg_c_emit_hooked(t, g, o, d, NULL);
}

/* ---- the API files of a model whose code another backend writes (codegen/llvm) ---- */

int cg_c_emit_api(const Target *t, Graph *g, const CodegenOptions *o, const WeightsLayout *w,
                  int64_t par_stride, DiagSink *d)
{
	Ctx c;
	int rc;
	memset(&c, 0, sizeof c);
	c.g = g;
	c.o = o;
	c.t = t;
	c.w = *w;
	c.d = d;
	c.par_stride = par_stride;
	cg_upper(o->name, c.NAME, sizeof c.NAME);
	make_param_names(&c);
	index_main_io(&c);
	c.dims_off = g->arena_bytes + g->scratch_bytes;
	rc = check_dynamic(&c, d);   /* the backend writes the dims slots as the C path does */
	if (!rc)
		rc = emit_header(&c, c.dims_off + 64 * (int64_t)c.n_dynamic, d);
	if (!rc)
		rc = cg_copy_stub(o->out_dir, "ingot_rt.h", d);
	if (!rc && (o->emit & EMIT_EXE))
		rc = emit_runner(&c, d);
	return rc;
}

/* ---- what a device target's hooks see (c_target.h) ---- */

Graph *cg_c_graph(const CEmit *c) { return c->g; }
const char *cg_c_name(const CEmit *c) { return c->o->name; }
const char *cg_c_upper(const CEmit *c) { return c->NAME; }
DiagSink *cg_c_diags(const CEmit *c) { return c->d; }
int64_t cg_c_weight_off(const CEmit *c, ValueId v) { return c->w.off[v]; }
int64_t cg_c_weights_size(const CEmit *c) { return c->w.size; }

void cg_c_ref(CEmit *c, ValueId v, char *buf, size_t cap)
{
	cg_c_value_ref(c, &main_scope, v, buf, cap);
}

void cg_c_comment(CEmit *c, Emitter *e, NodeId id)
{
	cg_c_node_comment(e, c, id, "\t");
}

int cg_c_add_params(CEmit *c, NodeId id, const KernelCall *kc)
{
	cg_c_kernel_set_add(c->ks, kc->family);
	emit_params(c, id, kc);
	return c->n_calls++;
}

int cg_c_emit_hooked(const Target *t, Graph *g, const CodegenOptions *o, DiagSink *d,
                     const CEmitHooks *hooks)
{
	Ctx c;
	KernelSet ks;
	WeightsMode wm;
	const char *sources[4];
	int n_sources = 0, rc;
	char wfile[128], wbin[128], cfile[128];

	memset(&c, 0, sizeof c);
	memset(&ks, 0, sizeof ks);
	c.g = g;
	c.o = o;
	c.t = t;
	c.hooks = hooks;
	cg_upper(o->name, c.NAME, sizeof c.NAME);
	if (cg_mkdir_p(o->out_dir, d))
		return -1;
	if (t->prepare && t->prepare(t, g))
		return -1;
	cg_weights_layout(g, &c.w);
	wm = cg_weights_mode(&c.w, o);
	make_param_names(&c);
	index_main_io(&c);

	c.dims_off = g->arena_bytes + g->scratch_bytes;
	rc = check_dynamic(&c, d);
	c.rng_off = c.dims_off + 64 * (int64_t)c.n_dynamic;
	if (!rc)
		rc = emit_source(&c, &ks, d);
	if (!rc)
		rc = emit_header(&c, c.rng_off + (c.has_rng ? 64 : 0), d);
	if (!rc)
		rc = cg_c_copy_kernels(&ks, o->out_dir, d);
	if (!rc && t->simd[0])
		rc = ukgen_write(t, o->out_dir, d);
	if (!rc)
		rc = cg_copy_stub(o->out_dir, "ingot_par.c", d);
	if (!rc)
		rc = cg_copy_stub(o->out_dir, "ingot_par.h", d);
	if (!rc)
		rc = cg_weights_emit(&c.w, o, wm, d);
	if (!rc && (o->emit & EMIT_EXE))
		rc = emit_runner(&c, d);
	if (!rc) {
		BuildFiles b;
		snprintf(cfile, sizeof cfile, "%s.c", o->name);
		sources[n_sources++] = cfile;
		if (c.w.size > 0 && wm == WEIGHTS_C) {
			snprintf(wfile, sizeof wfile, "%s_weights.c", o->name);
			sources[n_sources++] = wfile;
		} else if (c.w.size > 0 && wm == WEIGHTS_INCBIN) {
			snprintf(wfile, sizeof wfile, "%s_weights.S", o->name);
			snprintf(wbin, sizeof wbin, "%s_weights.bin", o->name);
			sources[n_sources++] = wfile;
		}
		memset(&b, 0, sizeof b);
		b.sources = sources;
		b.n_sources = n_sources;
		b.weights_bin = c.w.size > 0 && wm == WEIGHTS_INCBIN ? wbin : NULL;
		b.exe = (o->emit & EMIT_EXE) != 0;
		char cflags[512];
		snprintf(cflags, sizeof cflags, "%s%s%s", t->cflags, o->cpu_flags ? " " : "",
		         o->cpu_flags ? o->cpu_flags : "");
		b.default_cc = t->cc;
		b.default_cflags = cflags;
		b.ldlibs = hooks ? hooks->ldlibs : NULL;
		rc = cg_emit_buildfiles(o, &b, d);
	}
	cg_weights_free(&c.w);
	return rc;
}
