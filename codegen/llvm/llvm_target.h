/* llvm_target.h — the optional LLVM backend (--backend llvm, -Dllvm=enabled): a
 * model's NAME.o (and libNAME.a) built through the LLVM-C API from the kernels'
 * embedded bitcode and a graph function made with the IR builder; no C compiler.
 * absent.c stands in when ingot is built without LLVM. */
#ifndef INGOT_LLVM_TARGET_H
#define INGOT_LLVM_TARGET_H

#include "codegen.h"

/* Whether this ingot was built with the LLVM backend. */
bool cg_llvm_available(void);
/* Writes NAME.h, NAME.o (weights in a read-only section, or o->weights_section),
 * libNAME.a for --emit lib and the runner's sources for --emit exe, for CPU target t
 * and the LLVM target triple `triple` (NULL: the kernel bitcode's). Returns 0, or -1 with a
 * diagnostic (a node the backend does not handle yet names itself). */
int cg_llvm_emit(const Target *t, Graph *g, const CodegenOptions *o, const char *triple, DiagSink *d);

#endif /* INGOT_LLVM_TARGET_H */
