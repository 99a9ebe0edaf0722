/* lower.c — the C target lowers every node through its op group's reference
 * kernel: exactly what constant folding runs, so -O0 and -O3 agree. */
#include "c_target.h"

#include <string.h>

int cg_c_lower(const Target *t, Graph *g, NodeId n, KernelCall *kc)
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
