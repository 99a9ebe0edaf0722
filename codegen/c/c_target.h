/* c_target.h — the C target's internals (sections: kernels.c, emit.c, emit_par.c). */
#ifndef INGOT_C_TARGET_H
#define INGOT_C_TARGET_H

#include "codegen.h"

/* kernels.c: the runtime-stubs families a graph's calls need, sorted, unique */
typedef struct KernelSet {
	const char *families[32];
	int n;
} KernelSet;
void cg_c_kernel_set_add(KernelSet *s, const char *family);
int cg_c_copy_kernels(const KernelSet *s, const char *out_dir, DiagSink *d);
/* Prints a kernel parameter struct as a C99 designated initializer. */
void cg_c_emit_params(Emitter *e, const ParamDesc *d, const void *params);
/* A float (single) or double literal that reads back to the same bits. */
void cg_c_emit_real(Emitter *e, double v, bool single);
/* A C string literal of s, escaped. */
void cg_c_emit_string(Emitter *e, const char *s);

/* emit.c */
int cg_c_emit(const Target *t, Graph *g, const CodegenOptions *o, DiagSink *d);

/* emit_par.c: threads and --profile */
/* A node's work for NAME_run_par's split (INGOT_PAR_TASKS): its MACs, or its
 * largest input or output in elements. */
int64_t cg_c_par_work(const Graph *g, NodeId id);
void cg_c_emit_par_pool(Emitter *e, const char *name);               /* NAME.c */
void cg_c_emit_par_api(Emitter *e, const CodegenOptions *o, const char *NAME,
                       int64_t stride);                              /* NAME.h */
void cg_c_emit_prof_api(Emitter *e, const char *name, const char *NAME, int n_prof);
void cg_c_emit_prof_table(Emitter *e, const Graph *g, const char *name, const NodeId *nodes, int n);

#endif
