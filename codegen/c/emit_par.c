/* emit_par.c — the parts of a model directory for threads and --profile: which
 * calls NAME_run_par splits and on how many tasks, the pool wrappers in NAME.c, the
 * NAME_run_par / NAME_WORKSPACE_SIZE_PAR API in NAME.h, and the per-node table of a
 * profiled build. (Kept apart from emit.c, which writes the graph itself.) */
#include "c_target.h"

#include <inttypes.h>
#include <string.h>

int64_t cg_c_par_work(const Graph *g, NodeId id)
{
	const Node *n = &g->nodes[id];
	int64_t work = ops_node_macs(g, id);
	for (int k = 0; k < n->n_in; k++)
		if (n->in[k] != IR_NONE && type_numel(&g->values[n->in[k]].type) > work)
			work = type_numel(&g->values[n->in[k]].type);
	for (int k = 0; k < n->n_out; k++)
		if (n->out[k] != IR_NONE && type_numel(&g->values[n->out[k]].type) > work)
			work = type_numel(&g->values[n->out[k]].type);
	return work;
}

void cg_c_emit_par_pool(Emitter *e, const char *name)
{
	em_line(e, "/* The thread pool of %s_run_par, static here like the kernels (ingot_par.h); none", name);
	em_line(e, " * without POSIX or with -DINGOT_NO_THREADS: %s_par_create then returns NULL. */", name);
	em_line(e, "#define INGOT_PAR_API static INGOT_UNUSED");
	em_line(e, "#include \"ingot_par.c\"");
	em_blank(e);
	em_line(e, "ingot_par *%s_par_create(int n_threads)", name);
	em_line(e, "{");
	em_line(e, "\treturn ingot_par_create(n_threads);");
	em_line(e, "}");
	em_blank(e);
	em_line(e, "void %s_par_destroy(ingot_par *par)", name);
	em_line(e, "{");
	em_line(e, "\tingot_par_destroy(par);");
	em_line(e, "}");
}

void cg_c_emit_par_api(Emitter *e, const CodegenOptions *o, const char *NAME, int64_t stride)
{
	em_line(e, "/* Threads. %s_run_par runs the big nodes on the threads of a pool and the rest on", o->name);
	em_line(e, " * the caller's; its outputs equal %s_run's bit for bit. Each thread past the first", o->name);
	em_line(e, " * needs %s_PAR_SCRATCH more bytes of workspace: give it %s_WORKSPACE_SIZE_PAR(n).",
	        NAME, NAME);
	em_line(e, " *     ingot_par *par = %s_par_create(4);      // NULL without threads: one thread",
	        o->name);
	em_line(e, " *     rc = %s_run_par(<inputs>, <outputs>, ws, par);", o->name);
	em_line(e, " *     %s_par_destroy(par);", o->name);
	em_line(e, " * The pool allocates (once, in %s_par_create) and serves one run at a time; runs", o->name);
	em_line(e, " * sharing it take turns. Any model's pool runs any model. */");
	em_line(e, "#define %s_PAR_SCRATCH %" PRId64, NAME, stride);
	em_line(e, "#define %s_WORKSPACE_SIZE_PAR(n) \\", NAME);
	em_line(e, "\t(%s_WORKSPACE_SIZE + ((n) > 1 ? (size_t)(n) - 1 : 0) * (size_t)%s_PAR_SCRATCH)", NAME, NAME);
	em_line(e, "ingot_par *%s_par_create(int n_threads);", o->name);
	em_line(e, "void %s_par_destroy(ingot_par *par);", o->name);
}

void cg_c_emit_prof_api(Emitter *e, const char *name, const char *NAME, int n_prof)
{
	em_blank(e);
	em_line(e, "/* --profile: %s_run_prof_v is %s_run_par_v that adds each node's time, read with", name,
	        name);
	em_line(e, " * prof->clock, to prof->seconds[i]; %s_prof_nodes[i] says what node i is. */", name);
	em_line(e, "#define %s_PROF_NODES %d", NAME, n_prof);
	em_line(e, "extern const ingot_prof_node %s_prof_nodes[%s_PROF_NODES > 0 ? %s_PROF_NODES : 1];", name,
	        NAME, NAME);
	em_line(e, "int %s_run_prof_v(const void *const inputs[], void *const outputs[], void *workspace,",
	        name);
	em_line(e, "\tconst ingot_par *par, const ingot_prof *prof);");
}

void cg_c_emit_prof_table(Emitter *e, const Graph *g, const char *name, const NodeId *nodes, int n)
{
	char names[1024], ty[256];
	em_line(e, "/* --profile: the timed nodes, in execution order */");
	em_line(e, "const ingot_prof_node %s_prof_nodes[%d] = {", name, n > 0 ? n : 1);
	for (int i = 0; i < n; i++) {
		const Node *nd = &g->nodes[nodes[i]];
		size_t len = 0;
		names[0] = 0;
		for (int k = 0; k < nd->n_origins && len + 2 < sizeof names; k++) {
			snprintf(names + len, sizeof names - len, "%s%s", k ? "+" : "", nd->origins[k]);
			len = strlen(names);
		}
		ty[0] = 0;
		if (nd->n_out > 0 && nd->out[0] != IR_NONE)
			type_format(&g->values[nd->out[0]].type, ty, sizeof ty);
		em_printf(e, "\t{ ");
		cg_c_emit_string(e, names);
		em_printf(e, ", \"%s\", ", ir_op_name(nd->op));
		cg_c_emit_string(e, ty);
		em_printf(e, ", %" PRId64 " },\n", ops_node_macs(g, nodes[i]));
	}
	if (n == 0)
		em_line(e, "\t{ \"\", \"\", \"\", 0 }");
	em_line(e, "};");
	em_blank(e);
}
