/* emit.c — writes a model directory for --target opencl: the C target's output for
 * the host target (Target.host), extended through its hooks (c_target.h) with
 *   - the OpenCL C program (kernels.c) and a table NAME_cl_calls[], one row per
 *     device node: its kernel, parameter struct (the one the reference kernel would
 *     take), buffers and NDRange;
 *   - in the graph function, a launch per device node and a blocking write / read
 *     per CopyToDevice / CopyToHost, on one in-order queue (so no events);
 *   - NAME_cl_init / NAME_cl_run / NAME_cl_run_par / NAME_cl_info /
 *     NAME_cl_last_error / NAME_cl_release, and NAME_run & co. on top of them (each
 *     call sets the device up and down: the generated code keeps no state between
 *     calls, so an application that runs more than once holds a NAME_cl);
 *   - in NAME_main.c, the runner's device hooks: one NAME_cl for all its runs.
 * The device pool mirrors the host arena: a device value lives at its planned offset
 * (plan_memory's liveness reuse holds for it too); the weights are one buffer. */
#include "opencl_target.h"

#include "shape.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct OclEmit {
	const Target *t;
	Emitter calls;               /* the rows of NAME_cl_calls[] */
	int n_calls;
	Emitter tables;              /* the words of NAME_cl_tables[] (OclCall.table) */
	int64_t n_table_words;
	bool status;                 /* a kernel checks indices: read the status word */
} OclEmit;

/* A device value's byte offset in the pool. */
static int64_t pool_off(const Graph *g, ValueId v)
{
	if (g->values[v].arena_off < 0)
		die("device value '%s' has no place in the pool", g->values[v].name);
	return g->values[v].arena_off;
}

/* The buffer of an input slot's value (a dummy for IR_NONE: a slot the node leaves out). */
static void emit_buf(CEmit *c, ValueId v, Emitter *e)
{
	const Graph *g = cg_c_graph(c);
	if (v == IR_NONE)
		em_printf(e, " { INGOT_CL_POOL, 0 },");
	else if (g->values[v].is_const)
		em_printf(e, " { INGOT_CL_WEIGHTS, %" PRId64 " },",
		          type_bytes(&g->values[v].type) ? cg_c_weight_off(c, v) : 0);
	else
		em_printf(e, " { INGOT_CL_POOL, %" PRId64 " },", pool_off(g, v));
}

static int emit_transfer(CEmit *c, Emitter *body, NodeId id)
{
	const Graph *g = cg_c_graph(c);
	const Node *n = &g->nodes[id];
	ValueId x = n->in[0], y = n->out[0];
	char ref[256];
	int64_t bytes = type_bytes(&g->values[x].type);
	cg_c_comment(c, body, id);
	if (n->op == OP_COPY_TO_DEVICE) {
		cg_c_ref(c, x, ref, sizeof ref);
		em_line(body, "\tif ((rc = ingot_cl_write(&cl->st, %" PRId64 ", %" PRId64 ", %s)) != 0)",
		        pool_off(g, y), bytes, ref);
	} else {
		cg_c_ref(c, y, ref, sizeof ref);
		em_line(body, "\tif ((rc = ingot_cl_read(&cl->st, %" PRId64 ", %" PRId64 ", %s)) != 0)",
		        pool_off(g, x), bytes, ref);
	}
	em_line(body, "\t\treturn rc;");
	return 1;
}

/* Appends a call's table to NAME_cl_tables; returns its byte offset there. */
static int64_t add_table(OclEmit *s, const OclCall *oc)
{
	int64_t n, at = s->n_table_words;
	uint32_t *t = cg_ocl_table(oc, &n);
	for (int64_t i = 0; i < n; i++)
		em_printf(&s->tables, "%s0x%08" PRIx32 ",%s", i % 8 ? " " : "\t", t[i], i % 8 == 7 || i == n - 1 ? "\n" : "");
	free(t);
	s->n_table_words += n;
	return 4 * at;
}

/* One row of NAME_cl_calls[]: oc's kernel with params kc (oc->ref or a part of it)
 * on input slots in[0..oc->n_slots) and output y; and its launch in the body. */
static void emit_call(CEmit *c, OclEmit *s, Emitter *body, NodeId id, const OclCall *oc,
                      const KernelCall *kc, const ValueId *in, int n_in, int64_t y_off)
{
	const Graph *g = cg_c_graph(c);
	const Node *n = &g->nodes[id];
	int64_t copy = 0;
	if (oc->kernel) {
		int p = kc->pdesc ? cg_c_add_params(c, id, kc) : -1;
		int64_t table = oc->table ? add_table(s, oc) : -1;
		if (p < 0)
			die("OpenCL kernel %s without parameters", oc->kernel);
		em_printf(&s->calls, "\t{ \"%s\", &p%d, sizeof p%d, %d, {", oc->kernel, p, p,
		          oc->n_slots + 1 + oc->status + oc->n_extra_out);
		for (int k = 0; k < oc->n_slots; k++)
			if (oc->table && k == 1)
				em_printf(&s->calls, " { INGOT_CL_TABLES, %" PRId64 " },", table);
			else
				emit_buf(c, k < n_in ? in[k] : IR_NONE, &s->calls);
		if (oc->status)
			em_printf(&s->calls, " { INGOT_CL_STATUS, 0 },");
		for (int k = 1; k <= oc->n_extra_out; k++) {
			ValueId v = k < n->n_out ? n->out[k] : IR_NONE;
			em_printf(&s->calls, " { INGOT_CL_POOL, %" PRId64 " },", v == IR_NONE ? 0 : pool_off(g, v));
		}
		s->status |= oc->status;
	} else {   /* a view the plan could not alias: a copy inside the pool */
		copy = type_bytes(&g->values[n->out[0]].type);
		em_printf(&s->calls, "\t{ NULL, NULL, 0, 2, {");
		emit_buf(c, in[0], &s->calls);
	}
	em_printf(&s->calls, " { INGOT_CL_POOL, %" PRId64 " } }, %d, { %" PRId64 ", %" PRId64 ", %" PRId64
	          " }, { %" PRId64 ", %" PRId64 ", %" PRId64 " } },\n", y_off, oc->dims,
	          oc->gws[0], oc->gws[1], oc->gws[2], oc->lws[0], oc->lws[1], oc->lws[2]);
	em_line(body, "\tif ((rc = ingot_cl_launch(&cl->st, %d, %" PRId64 ")) != 0)   /* on the device */",
	        s->n_calls, copy);
	em_line(body, "\t\treturn rc;");
	s->n_calls++;
}

/* A Concat of more inputs than one kernel takes: a launch per OCL_CONCAT_PART
 * inputs, each writing its columns of every row. The part's parameters describe
 * its row as [gap before][its inputs][gap after], a gap as a negative row_bytes
 * entry (ingot_cl_concat writes nothing there and takes no buffer for it). */
static void emit_concat_parts(CEmit *c, OclEmit *s, Emitter *body, NodeId id, OclCall *oc)
{
	const Graph *g = cg_c_graph(c);
	const Node *n = &g->nodes[id];
	const ingot_concat_params *p = oc->ref.params;
	int64_t total = 0, before = 0;
	for (int k = 0; k < p->n; k++)
		total += cg_ocl_concat_bytes(p, k);
	for (int k0 = 0; k0 < p->n; k0 += OCL_CONCAT_PART) {
		int m = p->n - k0 < OCL_CONCAT_PART ? (int)(p->n - k0) : OCL_CONCAT_PART;
		ingot_concat_params part;
		KernelCall kc = oc->ref;
		ValueId in[INGOT_CL_CONCAT_SLOTS];
		int64_t cols = 0;
		int j = 0;
		memset(&part, 0, sizeof part);
		part.outer = p->outer;
		in[j] = IR_NONE;
		part.row_bytes[j++] = -before;   /* a gap of 0 bytes when first */
		for (int k = 0; k < m; k++) {
			in[j] = n->in[k0 + k];
			part.row_bytes[j++] = cg_ocl_concat_bytes(p, k0 + k);
			cols += cg_ocl_concat_bytes(p, k0 + k);
		}
		in[j] = IR_NONE;
		part.row_bytes[j++] = -(total - before - cols);
		part.n = j;
		kc.params = &part;
		oc->gws[0] = p->outer * cols / 4 > 0 ? p->outer * cols / 4 : 1;
		emit_call(c, s, body, id, oc, &kc, in, j, pool_off(g, n->out[0]));
		before += cols;
	}
}

/* CEmitHooks.node: transfers and device nodes; the host's nodes stay C calls. */
static int emit_node(CEmit *c, Emitter *body, NodeId id, void *state)
{
	OclEmit *s = state;
	Graph *g = cg_c_graph(c);
	const Node *n = &g->nodes[id];
	OclCall oc;
	if (n->op == OP_COPY_TO_DEVICE || n->op == OP_COPY_TO_HOST)
		return emit_transfer(c, body, id);
	if (!n->device)
		return 0;
	if (cg_ocl_call(s->t, g, id, &oc)) {
		DiagLoc l = ir_node_loc(g, id);
		diag_report(cg_c_diags(c), DIAG_ERROR, DC_UNSUPPORTED, &l, "no OpenCL kernel for this node");
		return -1;
	}
	cg_c_comment(c, body, id);
	if (oc.kernel && strcmp(oc.kernel, "ingot_cl_concat") == 0 &&
	    ((const ingot_concat_params *)oc.ref.params)->n > INGOT_CL_CONCAT_SLOTS)
		emit_concat_parts(c, s, body, id, &oc);
	else
		emit_call(c, s, body, id, &oc, &oc.ref, n->in, n->n_in, pool_off(g, n->out[0]));
	return 1;
}

/* CEmitHooks.source: the program, the calls, the device state. */
static void emit_source(CEmit *c, Emitter *e, void *state)
{
	OclEmit *s = state;
	const char *name = cg_c_name(c);
	int n = s->n_calls ? s->n_calls : 1;
	em_line(e, "#include \"ingot_cl.c\"");
	em_blank(e);
	cg_ocl_emit_program(e, s->t, name);
	em_line(e, "/* The device nodes' launches, in graph order (ingot_cl.h). */");
	em_line(e, "static const ingot_cl_call %s_cl_calls[%d] = {", name, n);
	if (s->calls.len)
		em_raw(e, s->calls.buf, s->calls.len);
	else
		em_line(e, "\t{ NULL, NULL, 0, 0, { { 0, 0 } }, 1, { 1, 1, 1 }, { 0, 0, 0 } }   /* none */");
	em_line(e, "};");
	em_blank(e);
	em_line(e, "/* Tables the compiler computed for device kernels (Resize's taps), uploaded once. */");
	em_line(e, "static const uint32_t %s_cl_tables[%" PRId64 "] = {", name,
	        s->n_table_words ? s->n_table_words : 1);
	if (s->tables.len)
		em_raw(e, s->tables.buf, s->tables.len);
	else
		em_line(e, "\t0   /* none */");
	em_line(e, "};");
	em_blank(e);
	em_line(e, "struct %s_cl {", name);
	em_line(e, "\tingot_cl_state st;");
	em_line(e, "\tcl_kernel k[%d];   /* one per call, arguments set at init */", n);
	em_line(e, "};");
	em_blank(e);
}

/* CEmitHooks.exec: the device API and NAME_exec on top of it. */
static void emit_exec(CEmit *c, Emitter *e, void *state)
{
	OclEmit *s = state;
	const char *name = cg_c_name(c);
	int64_t wsize = cg_c_weights_size(c);
	em_line(e, "%s_cl *%s_cl_init(const ingot_cl_options *opt, ingot_cl_error *err)", name, name);
	em_line(e, "{");
	em_line(e, "\t%s_cl *cl = (%s_cl *)calloc(1, sizeof *cl);", name, name);
	em_line(e, "\tif (!cl) {");
	em_line(e, "\t\tif (err) {");
	em_line(e, "\t\t\tmemset(err, 0, sizeof *err);");
	em_line(e, "\t\t\tingot_cl_fail(err, CL_OUT_OF_HOST_MEMORY, \"calloc\");");
	em_line(e, "\t\t}");
	em_line(e, "\t\treturn NULL;");
	em_line(e, "\t}");
	em_line(e, "\tif (ingot_cl_setup(&cl->st, opt, %s_cl_source, sizeof %s_cl_source / sizeof *%s_cl_source,",
	        name, name, name);
	em_line(e, "\t                   %s_cl_build_options, %" PRId64 ", %s, %" PRId64 ",", name,
	        cg_c_graph(c)->arena_bytes, wsize ? arena_printf(&cg_c_graph(c)->arena, "%s_weights", name) : "NULL",
	        wsize);
	em_line(e, "\t                   %s_cl_tables, sizeof %s_cl_tables, %s_cl_calls, %d, cl->k) != 0) {", name, name,
	        name, s->n_calls);
	em_line(e, "\t\tif (err)");
	em_line(e, "\t\t\t*err = cl->st.err;");
	em_line(e, "\t\t%s_cl_release(cl);", name);
	em_line(e, "\t\treturn NULL;");
	em_line(e, "\t}");
	em_line(e, "\treturn cl;");
	em_line(e, "}");
	em_blank(e);
	em_line(e, "int %s_cl_run_par(%s_cl *cl, const void *const inputs[], void *const outputs[],", name, name);
	em_line(e, "\tvoid *workspace, const ingot_par *par)");
	em_line(e, "{");
	em_line(e, "\tint rc;");
	em_line(e, "\tif (!cl)");
	em_line(e, "\t\treturn INGOT_EINVAL;");
	em_line(e, "\trc = %s_exec_dev(inputs, outputs, workspace, par, cl);", name);
	if (s->status) {
		em_line(e, "\tif (!rc)");
		em_line(e, "\t\trc = ingot_cl_finish(&cl->st);");
		em_line(e, "\treturn rc ? rc : ingot_cl_status(&cl->st);   /* an index out of range */");
	} else {
		em_line(e, "\treturn rc ? rc : ingot_cl_finish(&cl->st);");
	}
	em_line(e, "}");
	em_blank(e);
	em_line(e, "int %s_cl_run(%s_cl *cl, const void *const inputs[], void *const outputs[], void *workspace)",
	        name, name);
	em_line(e, "{");
	em_line(e, "\treturn %s_cl_run_par(cl, inputs, outputs, workspace, NULL);", name);
	em_line(e, "}");
	em_blank(e);
	em_line(e, "const ingot_cl_info *%s_cl_info(const %s_cl *cl)", name, name);
	em_line(e, "{");
	em_line(e, "\treturn cl ? &cl->st.info : NULL;");
	em_line(e, "}");
	em_blank(e);
	em_line(e, "const ingot_cl_error *%s_cl_last_error(const %s_cl *cl)", name, name);
	em_line(e, "{");
	em_line(e, "\treturn cl ? &cl->st.err : NULL;");
	em_line(e, "}");
	em_blank(e);
	em_line(e, "void %s_cl_release(%s_cl *cl)", name, name);
	em_line(e, "{");
	em_line(e, "\tif (!cl)");
	em_line(e, "\t\treturn;");
	em_line(e, "\tingot_cl_teardown(&cl->st);");
	em_line(e, "\tfree(cl);");
	em_line(e, "}");
	em_blank(e);
	em_line(e, "/* NAME_run and co.: the device set up for this one run (default options), host");
	em_line(e, " * nodes on par's threads when par is not NULL. */");
	em_line(e, "static int %s_exec(const void *const inputs[], void *const outputs[], void *workspace,", name);
	em_line(e, "\tconst ingot_par *par)");
	em_line(e, "{");
	em_line(e, "\t%s_cl *cl = %s_cl_init(NULL, NULL);", name, name);
	em_line(e, "\tint rc;");
	em_line(e, "\tif (!cl)");
	em_line(e, "\t\treturn INGOT_EDEVICE;");
	em_line(e, "\trc = %s_cl_run_par(cl, inputs, outputs, workspace, par);", name);
	em_line(e, "\t%s_cl_release(cl);", name);
	em_line(e, "\treturn rc;");
	em_line(e, "}");
	em_blank(e);
}

/* CEmitHooks.header */
static void emit_header(CEmit *c, Emitter *e, void *state)
{
	const char *name = cg_c_name(c);
	(void)state;
	em_blank(e);
	em_line(e, "/* OpenCL (--target opencl; ingot_cl.h): %s_cl_init picks the device, builds the", name);
	em_line(e, " * program and uploads the weights, once; %s_cl_run runs the model with", name);
	em_line(e, " * inputs[] and outputs[] in ONNX order and the workspace as for %s_run_v; it", name);
	em_line(e, " * returns 0, INGOT_EINVAL or INGOT_EDEVICE (then %s_cl_last_error says which", name);
	em_line(e, " * OpenCL call failed, and the error's name). %s_cl_init returns NULL on failure", name);
	em_line(e, " * (err, when not NULL, says why); opt->cache_dir keeps the program binary, so a");
	em_line(e, " * later init skips the driver's compile (%s_cl_info says what init did).", name);
	em_line(e, " * %s_cl_run_par runs the host nodes on par's threads. %s_run & co. set the", name, name);
	em_line(e, " * device up for each call: hold a %s_cl to run more than once. */", name);
	em_line(e, "#include \"ingot_cl.h\"");
	em_line(e, "typedef struct %s_cl %s_cl;", name, name);
	em_line(e, "%s_cl *%s_cl_init(const ingot_cl_options *opt, ingot_cl_error *err);", name, name);
	em_line(e, "int %s_cl_run(%s_cl *cl, const void *const inputs[], void *const outputs[], void *workspace);",
	        name, name);
	em_line(e, "int %s_cl_run_par(%s_cl *cl, const void *const inputs[], void *const outputs[],", name, name);
	em_line(e, "\tvoid *workspace, const ingot_par *par);");
	em_line(e, "const ingot_cl_info *%s_cl_info(const %s_cl *cl);", name, name);
	em_line(e, "const ingot_cl_error *%s_cl_last_error(const %s_cl *cl);", name, name);
	em_line(e, "void %s_cl_release(%s_cl *cl);", name, name);
}

/* CEmitHooks.runner: the runner's device, one NAME_cl for all its runs. */
static void emit_runner(CEmit *c, Emitter *e, void *state)
{
	const char *n = cg_c_name(c);
	(void)state;
	em_line(e, "#include <stdio.h>");
	em_line(e, "#include <string.h>");
	em_blank(e);
	em_line(e, "/* the device, set up once (ingot_runner.h dev_open): info says how, or why not */");
	em_line(e, "static void *%s_runner_dev_open(const char *cache_dir, char *info, size_t cap)", n);
	em_line(e, "{");
	em_line(e, "\tingot_cl_options o = INGOT_CL_OPTIONS_DEFAULT;");
	em_line(e, "\tingot_cl_error err;");
	em_line(e, "\tconst ingot_cl_info *ci;");
	em_line(e, "\t%s_cl *cl;", n);
	em_line(e, "\tmemset(&err, 0, sizeof err);");
	em_line(e, "\to.cache_dir = cache_dir;");
	em_line(e, "\tif (!(cl = %s_cl_init(&o, &err))) {", n);
	em_line(e, "\t\tsnprintf(info, cap, \"OpenCL init failed: %%s in %%s%%s%%s\", err.name ? err.name : \"(none)\",");
	em_line(e, "\t\t         err.where ? err.where : \"(none)\", err.log[0] ? \"\\n\" : \"\", err.log);");
	em_line(e, "\t\treturn NULL;");
	em_line(e, "\t}");
	em_line(e, "\tci = %s_cl_info(cl);", n);
	em_line(e, "\tsnprintf(info, cap, \"program=%%s cache=\\\"%%s\\\" device=\\\"%%s\\\"\", !ci->n_kernels ? \"none\" :");
	em_line(e, "\t         ci->from_binary ? \"binary\" : \"source\",");
	em_line(e, "\t         ci->cache, ci->device);");
	em_line(e, "\treturn cl;");
	em_line(e, "}");
	em_blank(e);
	em_line(e, "static int %s_runner_dev_run(void *dev, const void *const inputs[], void *const outputs[],", n);
	em_line(e, "\tvoid *workspace, const ingot_par *par)");
	em_line(e, "{");
	em_line(e, "\treturn %s_cl_run_par((%s_cl *)dev, inputs, outputs, workspace, par);", n, n);
	em_line(e, "}");
	em_blank(e);
	em_line(e, "static void %s_runner_dev_close(void *dev)", n);
	em_line(e, "{");
	em_line(e, "\t%s_cl_release((%s_cl *)dev);", n, n);
	em_line(e, "}");
	em_blank(e);
}

int cg_ocl_emit(const Target *t, Graph *g, const CodegenOptions *o, DiagSink *d)
{
	OclEmit s;
	CEmitHooks h;
	int rc;
	memset(&s, 0, sizeof s);
	s.t = t;
	em_init(&s.calls);
	em_init(&s.tables);
	memset(&h, 0, sizeof h);
	h.node = emit_node;
	h.source = emit_source;
	h.exec = emit_exec;
	h.header = emit_header;
	h.runner = emit_runner;
	h.ldlibs = "-lOpenCL";
	h.state = &s;
	rc = cg_c_emit_hooked(t, g, o, d, &h);
	if (!rc)
		rc = cg_copy_stub(o->out_dir, "ingot_cl.c", d);
	if (!rc)
		rc = cg_copy_stub(o->out_dir, "ingot_cl.h", d);
	em_free(&s.calls);
	em_free(&s.tables);
	return rc;
}
