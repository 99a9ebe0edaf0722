/* neon_target.h — the NEON targets (neon, neon32): nodes with a NEON kernel in
 * runtime-stubs/kernels/neon/ lower to it, all others to the reference kernels.
 * Sections: lower.c. */
#ifndef INGOT_NEON_TARGET_H
#define INGOT_NEON_TARGET_H

#include "codegen.h"

/* lower.c */
int cg_neon_lower(const Target *t, Graph *g, NodeId n, KernelCall *kc);
/* packs the constant weights of QLinearConv / QLinearMatMul for neon/qgemm.c */
int cg_neon_prepare(const Target *t, Graph *g);

#endif
