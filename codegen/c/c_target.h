/* c_target.h — the C target's internals (sections: lower.c, kernels.c, emit.c). */
#ifndef INGOT_C_TARGET_H
#define INGOT_C_TARGET_H

#include "codegen.h"

/* lower.c: a node to a reference-kernel call */
int cg_c_lower(const Target *t, Graph *g, NodeId n, KernelCall *kc);

/* kernels.c: the runtime-stubs families a graph's calls need, sorted, unique */
typedef struct KernelSet {
	const char *families[32];
	int n;
} KernelSet;
void cg_c_kernel_set_add(KernelSet *s, const char *family);
int cg_c_copy_kernels(const KernelSet *s, const char *out_dir, DiagSink *d);
/* Prints a kernel parameter struct as a C99 designated initializer. */
void cg_c_emit_params(Emitter *e, const ParamDesc *d, const void *params);

/* emit.c */
int cg_c_emit(const Target *t, Graph *g, const CodegenOptions *o, DiagSink *d);

#endif
