/* emit.c — writes a model directory for the C target: NAME.h (the API of
 * DESIGN.md), NAME.c (the graph as straight-line kernel calls, each under a
 * comment naming its ONNX node), the kernels it uses, the weights, the runner
 * (NAME_main.c) and the build files. Output is deterministic: same graph and
 * options, same bytes.
 *
 * Control flow (If, Loop, Scan): each body becomes a static function
 * NAME_body_<k>(bin[], bout[], ws, cap[]) whose results go straight into the
 * caller's buffers; the node becomes a branch or a loop around its calls. */
#include "c_target.h"
#include "control.h"
#include "ukgen.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct Ctx {
	Graph *g;
	const CodegenOptions *o;
	const Target *t;
	WeightsLayout w;
	char NAME[80];
	char **param_names;          /* per main-region input/output: the typed run() name */
	int64_t dims_off;            /* workspace offset of the run-time dims of dynamic outputs */
	int n_dynamic;               /* outputs with data-dependent sizes */
	KernelSet *ks;               /* kernel families the calls use */
	DiagSink *d;
	Emitter params;              /* kernel parameter structs, one per call */
	int n_calls;
	Emitter funcs;               /* body functions of control-flow nodes */
	int n_funcs;
	int64_t par_stride;          /* per-task scratch of the split calls, 64-byte multiple */
	int n_par;                   /* calls NAME_run_par splits over threads */
	int n_prof;                  /* nodes timed by --profile (main region) */
	NodeId *prof_nodes;          /* which ones, in order (graph arena) */
} Ctx;

/* The function being emitted: NAME_run_v (region 0) or a body's function, which
 * reaches outer values that live outside the workspace (graph inputs and outputs,
 * enclosing bodies' inputs and outputs) through its cap[] argument. */
typedef struct Scope {
	RegionId r;
	ValueId *caps;
	int n_caps;
} Scope;

static const Scope main_scope = { 0, NULL, 0 };

/* ---- value references ---- */

static int io_index(const ValueId *list, int n, ValueId v)
{
	for (int i = 0; i < n; i++)
		if (list[i] == v)
			return i;
	return -1;
}

/* The C expression of a value's storage inside NAME_run_v or a body function. */
static void value_ref(Ctx *c, const Scope *s, ValueId v, char *buf, size_t cap)
{
	const Region *main = &c->g->regions[0];
	const Value *val = &c->g->values[v];
	int k;
	if (s->r != 0 && !val->is_const) {
		const Region *reg = &c->g->regions[s->r];
		if ((k = io_index(reg->inputs, reg->n_inputs, v)) >= 0)
			snprintf(buf, cap, "bin[%d]", k);
		else if ((k = io_index(reg->outputs, reg->n_outputs, v)) >= 0)
			snprintf(buf, cap, "bout[%d]", k);
		else if (val->arena_off >= 0)
			snprintf(buf, cap, "ws + %" PRId64, val->arena_off);
		else if ((k = io_index(s->caps, s->n_caps, v)) >= 0)
			snprintf(buf, cap, "cap[%d]", k);
		else
			die("value '%s' has no storage in region '%s'", val->name, reg->name);
		return;
	}
	if ((k = io_index(main->outputs, main->n_outputs, v)) >= 0 && val->producer != IR_NONE &&
	    !c->g->nodes[val->producer].dead)
		snprintf(buf, cap, "outputs[%d]", k);
	else if ((k = io_index(main->inputs, main->n_inputs, v)) >= 0)
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

static void value_desc(const Graph *g, ValueId v, char *buf, size_t cap)
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
		value_desc(c->g, vals[i], desc, sizeof desc);
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
	int rc;
	em_init(&e);
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
	em_blank(&e);
	cg_c_emit_par_api(&e, o, c->NAME, c->par_stride);
	emit_typed_proto(&e, c, "run_par", ", const ingot_par *par);\n");
	em_line(&e, "int %s_run_par_v(const void *const inputs[], void *const outputs[], void *workspace,",
	        o->name);
	em_line(&e, "\tconst ingot_par *par);");
	if (o->profile)
		cg_c_emit_prof_api(&e, o->name, c->NAME, c->n_prof);
	em_blank(&e);
	em_line(&e, "#ifdef __cplusplus");
	em_line(&e, "}");
	em_line(&e, "#endif");
	em_blank(&e);
	em_line(&e, "#endif /* %s_H */", c->NAME);
	snprintf(file, sizeof file, "%s.h", o->name);
	rc = em_write_file(&e, o->out_dir, file, d);
	em_free(&e);
	return rc;
}

/* ---- NAME.c ---- */

/* Data-dependent output sizes (NonZero, NonMaxSuppression...): the kernel writes the
 * actual dims of each dynamic output through one extra out[] pointer after its
 * regular outputs, into an int64_t[INGOT_MAX_RANK] slot at the end of the workspace;
 * NAME_out_dims() reads them back. A dynamic value must be a graph output that no
 * other node reads (consumers of run-time shapes are not supported yet). */
static int output_index(const Graph *g, ValueId v)
{
	return io_index(g->regions[0].outputs, g->regions[0].n_outputs, v);
}

static int dynamic_slot(const Graph *g, ValueId v)
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
			em_printf(e, ", ws + %" PRId64, c->dims_off + 64 * (int64_t)dynamic_slot(c->g, n->out[k]));
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
		        c->dims_off + 64 * (int64_t)dynamic_slot(c->g, main->outputs[i]),
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

static void node_comment(Emitter *e, Ctx *c, NodeId id, const char *indent)
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
		value_desc(c->g, n->in[i], desc, sizeof desc);
		em_printf(e, "%s %s", first ? "" : ",", desc);
		first = 0;
	}
	em_printf(e, " ->");
	for (int i = 0, first = 1; i < n->n_out; i++) {
		if (n->out[i] == IR_NONE)
			continue;
		value_desc(c->g, n->out[i], desc, sizeof desc);
		em_printf(e, "%s %s", first ? "" : ",", desc);
		first = 0;
	}
	em_printf(e, " */\n");
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
	cg_c_kernel_set_add(c->ks, kc.family);
	node_comment(body, c, id, "\t");
	em_line(body, "\t{");
	if (kc.pdesc) {
		node_comment(&c->params, c, id, "");
		em_printf(&c->params, "static const %s p%d = ", kc.pdesc->type, c->n_calls);
		cg_c_emit_params(&c->params, kc.pdesc, kc.params);
		em_printf(&c->params, ";\n");
	}
	em_printf(body, "\t\tconst void *in[%d] = {", n->n_in > 0 ? n->n_in : 1);
	unsigned compile_time = op_info(n->op)->const_inputs;
	for (int k = 0; k < n->n_in; k++) {
		if (n->in[k] == IR_NONE || (k < 32 && (compile_time & (1u << k))))
			snprintf(ref, sizeof ref, "NULL");   /* omitted, or folded into the params */
		else
			value_ref(c, s, n->in[k], ref, sizeof ref);
		em_printf(body, k ? ", %s" : " %s", ref);
	}
	em_printf(body, n->n_in ? " };\n" : " NULL };\n");
	int n_dyn = 0;
	for (int k = 0; k < n->n_out; k++)
		n_dyn += n->out[k] != IR_NONE && g->values[n->out[k]].dynamic;
	em_printf(body, "\t\tvoid *const out[%d] = {", n->n_out + n_dyn > 0 ? n->n_out + n_dyn : 1);
	for (int k = 0; k < n->n_out; k++) {
		if (n->out[k] == IR_NONE)
			snprintf(ref, sizeof ref, "NULL");
		else
			value_ref(c, s, n->out[k], ref, sizeof ref);
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

static int emit_control(Ctx *c, const Scope *s, Emitter *body, NodeId id);

/* The nodes of a region, in order, as calls. */
static int emit_nodes(Ctx *c, const Scope *s, Emitter *body)
{
	const Region *reg = &c->g->regions[s->r];
	for (int i = 0; i < reg->n_nodes; i++) {
		NodeId id = reg->nodes[i];
		const Node *n = &c->g->nodes[id];
		if (n->dead)
			continue;
		if (plan_node_is_alias(c->g, id)) {   /* a view of its input's storage: no code */
			node_comment(body, c, id, "\t");
			em_line(body, "\t/* (a view of its input: shares its storage, nothing to run) */");
			continue;
		}
		bool timed = c->o->profile && s->r == 0;
		if (timed)
			em_line(body, "\tif (prof)\n\t\tt0 = prof->clock(prof->ctx);");
		if (n->n_bodies ? emit_control(c, s, body, id) : emit_call(c, s, body, id))
			return -1;
		if (timed) {
			em_line(body, "\tif (prof)\n\t\tprof->seconds[%d] += prof->clock(prof->ctx) - t0;", c->n_prof);
			c->prof_nodes[c->n_prof++] = id;
		}
	}
	return 0;
}

/* ---- control flow: bodies as static functions, nodes as branches and loops ---- */

static void add_cap(ValueId **caps, int *n, int *cap, ValueId v)
{
	if (io_index(*caps, *n, v) < 0)
		*VEC_PUSH(*caps, *n, *cap) = v;
}

/* Outer values read inside region b (at any depth) that have no workspace offset:
 * graph inputs and outputs, enclosing bodies' inputs and outputs. */
static void collect_caps(const Graph *g, RegionId b, RegionId r, ValueId **caps, int *n, int *cap)
{
	const Region *reg = &g->regions[r];
	for (int i = 0; i < reg->n_nodes; i++) {
		const Node *nd = &g->nodes[reg->nodes[i]];
		if (nd->dead)
			continue;
		for (int k = 0; k < nd->n_in; k++) {
			ValueId v = nd->in[k];
			if (v == IR_NONE || g->values[v].is_const || g->values[v].arena_off >= 0 ||
			    ctrl_region_within(g, g->values[v].region, b))
				continue;
			add_cap(caps, n, cap, v);
		}
		for (int k = 0; k < nd->n_bodies; k++)
			collect_caps(g, b, nd->bodies[k], caps, n, cap);
	}
}

/* Dynamic sizes are supported for graph outputs only: not inside bodies. */
static int check_body_static(Ctx *c, RegionId b, const Scope *s)
{
	const Region *reg = &c->g->regions[b];
	for (int i = 0; i < reg->n_nodes; i++) {
		const Node *n = &c->g->nodes[reg->nodes[i]];
		for (int k = 0; k < n->n_out && !n->dead; k++)
			if (n->out[k] != IR_NONE && c->g->values[n->out[k]].dynamic) {
				DiagLoc l = ir_node_loc(c->g, reg->nodes[i]);
				diag_report(c->d, DIAG_ERROR, DC_UNSUPPORTED, &l, "output %d has a data-dependent "
				            "size inside a control-flow body: not supported", k);
				return -1;
			}
	}
	for (int i = 0; i < s->n_caps; i++)
		if (c->g->values[s->caps[i]].dynamic) {
			DiagLoc l = diag_loc_file(c->g->file);
			l.graph = reg->name;
			l.tensor = c->g->values[s->caps[i]].name;
			diag_report(c->d, DIAG_ERROR, DC_UNSUPPORTED, &l, "a body reads a tensor whose size "
			            "depends on input values: not supported");
			return -1;
		}
	return 0;
}

/* Emits region b as `static int NAME_body_<k>(...)` into c->funcs (its own nested
 * bodies first); *k gets its number and *caps what the caller passes as cap[]. */
static int emit_body(Ctx *c, RegionId b, int *k, ValueId **caps, int *n_caps)
{
	Emitter fe;
	Scope s = { b, NULL, 0 };
	int cap = 0, rc;
	char name[256];
	collect_caps(c->g, b, b, &s.caps, &s.n_caps, &cap);
	*caps = s.caps;
	*n_caps = s.n_caps;
	if (check_body_static(c, b, &s))
		return -1;
	*k = c->n_funcs++;
	em_init(&fe);
	cg_comment_text(c->g->regions[b].name, name, sizeof name);
	em_line(&fe, "/* body '%s': bin[] its inputs, bout[] its outputs, cap[] outer values */", name);
	em_line(&fe, "static int %s_body_%d(const void *const bin[], void *const bout[], unsigned char *ws,",
	        c->o->name, *k);
	em_line(&fe, "\tconst void *const cap[])");
	em_line(&fe, "{");
	em_line(&fe, "\tunsigned char *scratch = ws + %" PRId64 ";", c->g->arena_bytes);
	em_line(&fe, "\tint rc = 0;");
	em_blank(&fe);
	em_line(&fe, "\t(void)bin;");
	em_line(&fe, "\t(void)bout;");
	em_line(&fe, "\t(void)cap;");
	em_line(&fe, "\t(void)scratch;");
	rc = emit_nodes(c, &s, &fe);
	em_line(&fe, "\treturn rc;");
	em_line(&fe, "}");
	em_blank(&fe);
	if (!rc)
		em_raw(&c->funcs, fe.buf, fe.len);
	em_free(&fe);
	return rc;
}

/* `const void *const sub_cap[] = {...};` for a call from scope s. */
static void emit_caps(Ctx *c, const Scope *s, Emitter *e, const ValueId *caps, int n, int idx)
{
	char ref[256];
	if (n == 0) {
		em_line(e, "\t\tconst void *const *sub_cap%d = NULL;", idx);
		return;
	}
	em_printf(e, "\t\tconst void *const sub_cap%d[%d] = {", idx, n);
	for (int i = 0; i < n; i++) {
		value_ref(c, s, caps[i], ref, sizeof ref);
		em_printf(e, i ? ", %s" : " %s", ref);
	}
	em_printf(e, " };\n");
}

/* Writes the dims of node output v (dynamic, a graph output) into its dims slot. */
static void emit_set_dims(Ctx *c, Emitter *e, const char *indent, ValueId v, const int64_t *dims,
                          const char *dim0)
{
	const Type *t = &c->g->values[v].type;
	em_printf(e, "%s{ int64_t *dd = (int64_t *)(void *)(ws + %" PRId64 ");", indent,
	          c->dims_off + 64 * (int64_t)dynamic_slot(c->g, v));
	for (int q = 0; q < t->rank; q++) {
		if (q == 0 && dim0)
			em_printf(e, " dd[0] = %s;", dim0);
		else
			em_printf(e, " dd[%d] = %" PRId64 ";", q, dims[q]);
	}
	em_printf(e, " }\n");
}

static int emit_if(Ctx *c, const Scope *s, Emitter *e, NodeId id, const CtrlTemp *t)
{
	const Graph *g = c->g;
	const Node *n = &g->nodes[id];
	const CtrlAttrs *a = n->attrs;
	int k[2], n_caps[2];
	ValueId *caps[2];
	char ref[256];
	for (int b = 0; b < 2; b++)
		if (emit_body(c, n->bodies[b], &k[b], &caps[b], &n_caps[b]))
			return -1;
	for (int b = 0; b < 2; b++)
		emit_caps(c, s, e, caps[b], n_caps[b], b);
	em_printf(e, "\t\tvoid *const sub_out[%d] = {", n->n_out);
	for (int q = 0; q < n->n_out; q++) {
		if (t->out_buf[q] >= 0)
			snprintf(ref, sizeof ref, "ws + %" PRId64, a->ws_off + t->out_buf[q]);
		else
			value_ref(c, s, n->out[q], ref, sizeof ref);
		em_printf(e, q ? ", %s" : " %s", ref);
	}
	em_printf(e, " };\n");
	value_ref(c, s, n->in[0], ref, sizeof ref);
	em_line(e, "\t\tif (*(const unsigned char *)(%s)) {", ref);
	for (int b = 0; b < 2; b++) {
		if (b)
			em_line(e, "\t\t} else {");
		em_line(e, "\t\t\trc = %s_body_%d(NULL, sub_out, ws, sub_cap%d);", c->o->name, k[b], b);
		for (int q = 0; q < n->n_out; q++)
			if (n->out[q] != IR_NONE && g->values[n->out[q]].dynamic)
				emit_set_dims(c, e, "\t\t\t", n->out[q],
				              g->values[g->regions[n->bodies[b]].outputs[q]].type.dims, NULL);
	}
	em_line(e, "\t\t}");
	em_line(e, "\t\tif (rc != 0)");
	em_line(e, "\t\t\treturn rc;");
	free(caps[0]);
	free(caps[1]);
	return 0;
}

/* The node-output pointer a body writes scan output q to at iteration `pos`. */
static void scan_out_ptr(Ctx *c, const Scope *s, const Node *n, const CtrlTemp *t, int q,
                         const char *pos, int64_t elem, char *buf, size_t cap)
{
	const CtrlAttrs *a = n->attrs;
	char ref[256];
	if (t->out_buf[q] >= 0) {
		snprintf(buf, cap, "ws + %" PRId64, a->ws_off + t->out_buf[q]);
		return;
	}
	value_ref(c, s, n->out[q], ref, sizeof ref);
	snprintf(buf, cap, "(unsigned char *)(%s) + %s * %" PRId64, ref, pos, elem);
}

static void emit_carried_init(Emitter *e, const Node *n, const CtrlTemp *t)
{
	const CtrlAttrs *a = n->attrs;
	for (int j = 0; j < t->n_carried; j++)
		em_line(e, "\t\tcur[%d] = ws + %" PRId64 "; nxt[%d] = ws + %" PRId64 ";", j,
		        a->ws_off + t->carried[0][j], j, a->ws_off + t->carried[1][j]);
}

static void emit_swap(Emitter *e, const char *indent, int n_carried)
{
	for (int j = 0; j < n_carried; j++)
		em_line(e, "%s{ unsigned char *x = cur[%d]; cur[%d] = nxt[%d]; nxt[%d] = x; }", indent, j, j,
		        j, j);
}

static int emit_loop(Ctx *c, const Scope *s, Emitter *e, NodeId id, const CtrlTemp *t)
{
	const Graph *g = c->g;
	const Node *n = &g->nodes[id];
	const CtrlAttrs *a = n->attrs;
	const Region *br = &g->regions[n->bodies[0]];
	int k, n_caps, nc = t->n_carried;
	ValueId *caps;
	char ref[256], ptr[400];
	bool has_m = n->n_in > 0 && n->in[0] != IR_NONE, has_cond = n->n_in > 1 && n->in[1] != IR_NONE;

	if (emit_body(c, n->bodies[0], &k, &caps, &n_caps))
		return -1;
	emit_caps(c, s, e, caps, n_caps, 0);
	free(caps);
	if (nc)
		em_line(e, "\t\tunsigned char *cur[%d], *nxt[%d];", nc, nc);
	em_line(e, "\t\tint64_t it;");
	em_line(e, "\t\tunsigned char cond = 1;");
	if (has_m) {
		const void *mv = ir_const_data(g, n->in[0]);
		if (mv) {
			int64_t m;
			memcpy(&m, mv, sizeof m);
			em_line(e, "\t\tconst int64_t m = %" PRId64 "LL;", m > 0 ? m : 0);
		} else {
			value_ref(c, s, n->in[0], ref, sizeof ref);
			em_line(e, "\t\tint64_t m;");
			em_line(e, "\t\tmemcpy(&m, %s, sizeof m);", ref);
		}
	}
	if (has_cond && ir_const_data(g, n->in[1])) {   /* constants of const_inputs slots are */
		em_line(e, "\t\tcond = %d;",                  /* not in the weights */
		        ((const unsigned char *)ir_const_data(g, n->in[1]))[0] != 0);
	} else if (has_cond) {
		value_ref(c, s, n->in[1], ref, sizeof ref);
		em_line(e, "\t\tcond = *(const unsigned char *)(%s) != 0;", ref);
	}
	emit_carried_init(e, n, t);
	for (int j = 0; j < nc; j++) {
		int64_t bytes = type_bytes(&g->values[br->outputs[1 + j]].type);
		if (bytes == 0)
			continue;
		value_ref(c, s, n->in[2 + j], ref, sizeof ref);
		em_line(e, "\t\tmemcpy(cur[%d], %s, %" PRId64 ");", j, ref, bytes);
	}
	em_line(e, "\t\tfor (it = 0; %s%s%s; it++) {", has_m ? "it < m" : "",
	        has_m && has_cond ? " && " : "", has_cond ? "cond" : has_m ? "" : "1");
	em_line(e, "\t\t\tunsigned char cond_out = 0;");
	em_printf(e, "\t\t\tconst void *const sub_in[%d] = { &it, &cond", 2 + nc);
	for (int j = 0; j < nc; j++)
		em_printf(e, ", cur[%d]", j);
	em_printf(e, " };\n");
	em_printf(e, "\t\t\tvoid *const sub_out[%d] = { &cond_out", 1 + n->n_out);
	for (int j = 0; j < nc; j++)
		em_printf(e, ", nxt[%d]", j);
	for (int q = nc; q < n->n_out; q++) {
		int64_t elem = type_bytes(&g->values[br->outputs[1 + q]].type);
		scan_out_ptr(c, s, n, t, q, "it", elem, ptr, sizeof ptr);
		em_printf(e, ", %s", ptr);
	}
	em_printf(e, " };\n");
	em_line(e, "\t\t\tif ((rc = %s_body_%d(sub_in, sub_out, ws, sub_cap0)) != 0)", c->o->name, k);
	em_line(e, "\t\t\t\treturn rc;");
	emit_swap(e, "\t\t\t", nc);
	/* without a condition input the body's condition output is ignored */
	em_line(e, has_cond ? "\t\t\tcond = cond_out;" : "\t\t\t(void)cond_out;");
	em_line(e, "\t\t}");
	for (int j = 0; j < nc; j++) {
		int64_t bytes = type_bytes(&g->values[br->outputs[1 + j]].type);
		if (n->out[j] == IR_NONE || bytes == 0)
			continue;
		value_ref(c, s, n->out[j], ref, sizeof ref);
		em_line(e, "\t\tmemcpy(%s, cur[%d], %" PRId64 ");", ref, j, bytes);
	}
	for (int q = nc; q < n->n_out; q++)
		if (n->out[q] != IR_NONE && g->values[n->out[q]].dynamic)
			emit_set_dims(c, e, "\t\t", n->out[q], g->values[n->out[q]].type.dims, "it");
	if (a->trip >= 0 || n->n_out == nc)
		em_line(e, "\t\t(void)it;");
	return 0;
}

/* Slices of a scan input or output along its axis: rows of `inner` bytes, `outer`
 * of them per step, `len` steps (per batch entry). */
static void scan_geometry(const Type *t, int skip, int64_t axis, int64_t *outer, int64_t *inner)
{
	*outer = 1;
	*inner = (int64_t)dtype_size(t->dtype);
	for (int64_t i = skip; i < skip + axis; i++)
		*outer *= t->dims[i];
	for (int i = skip + (int)axis + 1; i < t->rank; i++)
		*inner *= t->dims[i];
}

static int emit_scan(Ctx *c, const Scope *s, Emitter *e, NodeId id, const CtrlTemp *t)
{
	const Graph *g = c->g;
	const Node *n = &g->nodes[id];
	const CtrlAttrs *a = n->attrs;
	const Region *br = &g->regions[n->bodies[0]];
	int base = n->opset < 9 ? 1 : 0, nc = t->n_carried, ns = t->n_scan_in;
	int64_t len = a->trip;
	int k, n_caps;
	ValueId *caps;
	char ref[256], pos[64];

	if (emit_body(c, n->bodies[0], &k, &caps, &n_caps))
		return -1;
	emit_caps(c, s, e, caps, n_caps, 0);
	free(caps);
	if (nc)
		em_line(e, "\t\tunsigned char *cur[%d], *nxt[%d];", nc, nc);
	em_line(e, "\t\tint64_t b, t;");
	em_line(e, "\t\tfor (b = 0; b < %" PRId64 "; b++) {", a->batch);
	for (int j = 0; j < nc; j++)
		em_line(e, "\t\t\tcur[%d] = ws + %" PRId64 "; nxt[%d] = ws + %" PRId64 ";", j,
		        a->ws_off + t->carried[0][j], j, a->ws_off + t->carried[1][j]);
	for (int j = 0; j < nc; j++) {
		int64_t bytes = type_bytes(&g->values[br->inputs[j]].type);
		if (bytes == 0)
			continue;
		value_ref(c, s, n->in[base + j], ref, sizeof ref);
		em_line(e, "\t\t\tmemcpy(cur[%d], (const unsigned char *)(%s) + b * %" PRId64 ", %" PRId64 ");",
		        j, ref, bytes, bytes);
	}
	em_line(e, "\t\t\tfor (t = 0; t < %" PRId64 "; t++) {", len);
	em_line(e, "\t\t\t\tconst void *sub_in[%d];", nc + ns);
	em_line(e, "\t\t\t\tvoid *sub_out[%d];", n->n_out);
	for (int j = 0; j < nc; j++)
		em_line(e, "\t\t\t\tsub_in[%d] = cur[%d];", j, j);
	for (int j = 0; j < ns; j++) {
		const Type *in = &g->values[n->in[base + nc + j]].type;
		int64_t outer, inner;
		scan_geometry(in, base, a->scan_input_axes.v[j], &outer, &inner);
		snprintf(pos, sizeof pos, a->scan_input_directions.v[j] ? "(%" PRId64 " - t)" : "t", len - 1);
		value_ref(c, s, n->in[base + nc + j], ref, sizeof ref);
		if (t->scan_in[j] < 0) {
			em_line(e, "\t\t\t\tsub_in[%d] = (const unsigned char *)(%s) + (b * %" PRId64 " + %s) * %"
			        PRId64 ";", nc + j, ref, len, pos, inner);
			continue;
		}
		em_line(e, "\t\t\t\t{ int64_t o; for (o = 0; o < %" PRId64 "; o++) memcpy(ws + %" PRId64
		        " + o * %" PRId64 ", (const unsigned char *)(%s) + ((b * %" PRId64 " + o) * %" PRId64
		        " + %s) * %" PRId64 ", %" PRId64 "); }", outer, a->ws_off + t->scan_in[j], inner, ref,
		        outer, len, pos, inner, inner);
		em_line(e, "\t\t\t\tsub_in[%d] = ws + %" PRId64 ";", nc + j, a->ws_off + t->scan_in[j]);
	}
	for (int j = 0; j < nc; j++)
		em_line(e, "\t\t\t\tsub_out[%d] = nxt[%d];", j, j);
	for (int q = nc; q < n->n_out; q++) {
		int64_t outer = 1, inner = 0;
		if (t->out_buf[q] >= 0) {
			em_line(e, "\t\t\t\tsub_out[%d] = ws + %" PRId64 ";", q, a->ws_off + t->out_buf[q]);
			continue;
		}
		scan_geometry(&g->values[n->out[q]].type, base, a->scan_output_axes.v[q - nc], &outer, &inner);
		snprintf(pos, sizeof pos, a->scan_output_directions.v[q - nc] ? "(%" PRId64 " - t)" : "t",
		         len - 1);
		value_ref(c, s, n->out[q], ref, sizeof ref);
		em_line(e, "\t\t\t\tsub_out[%d] = (unsigned char *)(%s) + (b * %" PRId64 " + %s) * %" PRId64 ";",
		        q, ref, len, pos, inner);
	}
	em_line(e, "\t\t\t\tif ((rc = %s_body_%d(sub_in, sub_out, ws, sub_cap0)) != 0)", c->o->name, k);
	em_line(e, "\t\t\t\t\treturn rc;");
	/* scan outputs along an inner axis: scatter the element's rows */
	for (int q = nc; q < n->n_out; q++) {
		int64_t outer, inner;
		if (t->out_buf[q] < 0 || n->out[q] == IR_NONE)
			continue;
		scan_geometry(&g->values[n->out[q]].type, base, a->scan_output_axes.v[q - nc], &outer, &inner);
		snprintf(pos, sizeof pos, a->scan_output_directions.v[q - nc] ? "(%" PRId64 " - t)" : "t",
		         len - 1);
		value_ref(c, s, n->out[q], ref, sizeof ref);
		em_line(e, "\t\t\t\t{ int64_t o; for (o = 0; o < %" PRId64 "; o++) memcpy((unsigned char *)(%s) + "
		        "((b * %" PRId64 " + o) * %" PRId64 " + %s) * %" PRId64 ", ws + %" PRId64 " + o * %" PRId64
		        ", %" PRId64 "); }", outer, ref, outer, len, pos, inner, a->ws_off + t->out_buf[q], inner,
		        inner);
	}
	emit_swap(e, "\t\t\t\t", nc);
	em_line(e, "\t\t\t}");
	for (int j = 0; j < nc; j++) {
		int64_t bytes = type_bytes(&g->values[br->inputs[j]].type);
		if (n->out[j] == IR_NONE || bytes == 0)
			continue;
		value_ref(c, s, n->out[j], ref, sizeof ref);
		em_line(e, "\t\t\tmemcpy((unsigned char *)(%s) + b * %" PRId64 ", cur[%d], %" PRId64 ");", ref,
		        bytes, j, bytes);
	}
	em_line(e, "\t\t}");
	return 0;
}

/* A control-flow node: its bodies as functions, and the branch or loop calling them. */
static int emit_control(Ctx *c, const Scope *s, Emitter *body, NodeId id)
{
	const Node *n = &c->g->nodes[id];
	CtrlTemp t;
	int rc;
	ctrl_temp_layout(c->g, id, &t);
	node_comment(body, c, id, "\t");
	em_line(body, "\t{");
	if (n->op == OP_IF)
		rc = emit_if(c, s, body, id, &t);
	else if (n->op == OP_LOOP)
		rc = emit_loop(c, s, body, id, &t);
	else
		rc = emit_scan(c, s, body, id, &t);
	em_line(body, "\t}");
	return rc;
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
	rc = emit_nodes(c, &main_scope, &body);
	if (rc)
		goto done;

	/* graph outputs no node writes: inputs passed through, constants, duplicates */
	for (int i = 0; i < main->n_outputs; i++) {
		ValueId v = main->outputs[i];
		const Value *val = &g->values[v];
		char name[256];
		int first = io_index(main->outputs, main->n_outputs, v);
		bool written = val->producer != IR_NONE && !g->nodes[val->producer].dead;
		if ((written && first == i) || type_bytes(&val->type) == 0)
			continue;
		if (written)
			snprintf(ref, sizeof ref, "outputs[%d]", first);
		else
			value_ref(c, &main_scope, v, ref, sizeof ref);
		cg_comment_text(val->name, name, sizeof name);
		em_line(&body, "\t/* output %d '%s' is not computed by a node: copy it */", i, name);
		em_line(&body, "\tmemcpy(outputs[%d], %s, %" PRId64 ");", i, ref, type_bytes(&val->type));
	}

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
	em_line(&e, "static int %s_exec(const void *const inputs[], void *const outputs[], void *workspace,",
	        o->name);
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
	if (o->profile)
		em_line(&e, "\t(void)t0;");
	em_line(&e, "\tif (!inputs || !outputs || (%s_WORKSPACE_SIZE > 0 && !workspace) ||", c->NAME);
	em_line(&e, "\t    ((uintptr_t)workspace & 63u) != 0)");
	em_line(&e, "\t\treturn INGOT_EINVAL;");
	em_raw(&e, body.buf ? body.buf : "", body.len);
	em_line(&e, "\treturn rc;");
	em_line(&e, "}");
	em_blank(&e);
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
	emit_out_dims_fn(&e, c);
	snprintf(file, sizeof file, "%s.c", o->name);
	rc = em_write_file(&e, o->out_dir, file, d);
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
	int rc;
	em_init(&e);
	em_line(&e, "/* %s_main.c — command-line runner of model '%s'; generated by ingot %s.", c->o->name,
	        c->o->name, INGOT_VERSION);
	em_line(&e, " *   ./%s --input in0.pb [--input in1.pb] [--output-dir D]", c->o->name);
	em_line(&e, " *   ./%s --bench N [--threads T] */", c->o->name);
	em_line(&e, "#define _POSIX_C_SOURCE 200809L");
	em_line(&e, "#include \"%s.h\"", c->o->name);
	em_blank(&e);
	em_line(&e, "#define RUNNER_NAME \"%s\"", c->o->name);
	em_line(&e, "#define RUNNER_NUM_INPUTS %s_NUM_INPUTS", c->NAME);
	em_line(&e, "#define RUNNER_NUM_OUTPUTS %s_NUM_OUTPUTS", c->NAME);
	em_line(&e, "#define RUNNER_WORKSPACE_SIZE %s_WORKSPACE_SIZE", c->NAME);
	em_line(&e, "#define RUNNER_INPUTS %s_inputs", c->o->name);
	em_line(&e, "#define RUNNER_OUTPUTS %s_outputs", c->o->name);
	em_line(&e, "#define RUNNER_RUN_V %s_run_v", c->o->name);
	em_line(&e, "#define RUNNER_RUN_PAR_V %s_run_par_v", c->o->name);
	em_line(&e, "#define RUNNER_PAR_CREATE %s_par_create", c->o->name);
	em_line(&e, "#define RUNNER_PAR_DESTROY %s_par_destroy", c->o->name);
	em_line(&e, "#define RUNNER_WORKSPACE_SIZE_PAR %s_WORKSPACE_SIZE_PAR", c->NAME);
	if (c->o->profile) {
		em_line(&e, "#define RUNNER_PROF 1");
		em_line(&e, "#define RUNNER_RUN_PROF_V %s_run_prof_v", c->o->name);
		em_line(&e, "#define RUNNER_PROF_NODES %s_prof_nodes", c->o->name);
		em_line(&e, "#define RUNNER_NUM_PROF_NODES %s_PROF_NODES", c->NAME);
	}
	em_line(&e, "#define RUNNER_OUT_DIMS %s_out_dims", c->o->name);
	em_line(&e, "#include \"ingot_runner.c\"");
	snprintf(file, sizeof file, "%s_main.c", c->o->name);
	rc = em_write_file(&e, c->o->out_dir, file, d);
	em_free(&e);
	if (!rc)
		rc = cg_copy_stub(c->o->out_dir, "ingot_runner.c", d);
	if (!rc)
		rc = cg_copy_stub(c->o->out_dir, "ingot_tensor_io.c", d);
	if (!rc)
		rc = cg_copy_stub(c->o->out_dir, "ingot_tensor_io.h", d);
	return rc;
}

/* Typed run() parameter names: sanitized ONNX names, made unique. */
static void make_param_names(Ctx *c)
{
	const Region *main = &c->g->regions[0];
	int n = main->n_inputs + main->n_outputs;
	c->param_names = arena_array(&c->g->arena, (size_t)(n ? n : 1), sizeof *c->param_names);
	for (int i = 0; i < n; i++) {
		ValueId v = i < main->n_inputs ? main->inputs[i] : main->outputs[i - main->n_inputs];
		char id[200];
		cg_ident(c->g->values[v].name, id, sizeof id);
		for (int k = 0; k < i; k++)
			if (strcmp(c->param_names[k], id) == 0) {
				snprintf(id + strlen(id), sizeof id - strlen(id), "_%d", i);
				break;
			}
		c->param_names[i] = arena_strdup(&c->g->arena, id);
	}
}

int cg_c_emit(const Target *t, Graph *g, const CodegenOptions *o, DiagSink *d)
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
	cg_upper(o->name, c.NAME, sizeof c.NAME);
	if (cg_mkdir_p(o->out_dir, d))
		return -1;
	if (t->prepare && t->prepare(t, g))
		return -1;
	cg_weights_layout(g, &c.w);
	wm = cg_weights_mode(&c.w, o);
	make_param_names(&c);

	c.dims_off = g->arena_bytes + g->scratch_bytes;
	rc = check_dynamic(&c, d);
	if (!rc)
		rc = emit_source(&c, &ks, d);
	if (!rc)
		rc = emit_header(&c, c.dims_off + 64 * (int64_t)c.n_dynamic, d);
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
		rc = cg_emit_buildfiles(o, &b, d);
	}
	cg_weights_free(&c.w);
	return rc;
}
