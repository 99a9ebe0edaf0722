/* lower.c — the reference lowering: a node through its op group's reference kernel,
 * exactly what constant folding runs, so -O0 and -O3 agree. The C target lowers every
 * node so; the SIMD targets fall back to it. */
#include "codegen.h"

#include <string.h>

int cg_ref_lower(const Target *t, Graph *g, NodeId n, KernelCall *kc)
{
	LowerCtx lc;
	(void)t;
	memset(&lc, 0, sizeof lc);
	lc.g = g;
	lc.node = n;
	if (op_info(g->nodes[n].op)->impl->lower(&lc) || !lc.kc.fn_name)
		return -1;
	*kc = lc.kc;
	return 0;
}
