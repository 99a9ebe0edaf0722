/* prepack.c — compile-time packing of the constant weights of the x86 kernels into
 * the panel layout of the generated microkernels (runtime-stubs/kernels/x86/sgemm.h
 * describes it): Conv weights as panels of MR output channels per group, the B
 * operand of MatMul and Gemm as panels of NR columns. A packed copy has the
 * original's type and size, so the reference lowering still computes the node's
 * parameters; it is a new constant (the original stays for any other reader) and
 * is marked Value.packed so lowering tells the kernel. */
#include "x86_target.h"
#include "ukgen.h"

#include <stdlib.h>
#include <string.h>

#include "conv.h"
#include "linalg.h"

/* rows x cols matrix src (element (r, c) at src[r * rs + c * cs]) into panels of
 * `width` rows (panel_rows: Conv) or columns: panel p holds [k][i] for its rows i
 * (k over the other dim), the last panel with its own width. */
static void pack_rows(const float *src, int64_t rows, int64_t k, int64_t rs, int64_t ks, int width,
                      float *dst)
{
	for (int64_t r0 = 0; r0 < rows; r0 += width) {
		const int64_t w = rows - r0 < width ? rows - r0 : width;
		float *d = dst + r0 * k;
		for (int64_t kk = 0; kk < k; kk++)
			for (int64_t i = 0; i < w; i++)
				d[kk * w + i] = src[(r0 + i) * rs + kk * ks];
	}
}

/* The packed copies made so far: one per (constant, kind). */
typedef struct Packed {
	ValueId src, dst;
	int kind;
} Packed;
typedef struct Memo {
	Packed *items;
	int n, cap;
} Memo;

/* A packed copy of node n's weight, or an earlier identical one. */
static ValueId packed_copy(Graph *g, NodeId n, int kind, const KernelCall *ref, int mr, int nr,
                           Memo *memo)
{
	const ValueId w = g->nodes[n].in[1];
	const Value *val = &g->values[w];
	const float *src = ir_const_data(g, w);
	const int64_t numel = type_numel(&val->type);
	float *dst;
	ValueId out;
	for (int i = 0; i < memo->n; i++)
		if (memo->items[i].src == w && memo->items[i].kind == kind)
			return memo->items[i].dst;
	dst = malloc((size_t)(numel > 0 ? numel : 1) * sizeof *dst);
	if (!dst)
		die("out of memory");
	if (kind == X86_CONV) {
		const ingot_conv_params *p = ref->params;
		const int64_t mg = p->y_dims[1] / p->group, k = numel / (mg * p->group);
		for (int64_t grp = 0; grp < p->group; grp++)
			pack_rows(src + grp * mg * k, mg, k, k, 1, mr, dst + grp * mg * k);
	} else if (kind == X86_MATMUL) {
		const ingot_matmul_params *p = ref->params;   /* B (k x n) row-major: columns as rows */
		pack_rows(src, p->n, p->k, 1, p->n, nr, dst);
	} else {
		const ingot_gemm_params *p = ref->params;
		if (p->trans_b)                                /* B stored n x k */
			pack_rows(src, p->n, p->k, p->k, 1, nr, dst);
		else
			pack_rows(src, p->n, p->k, 1, p->n, nr, dst);
	}
	out = ir_value_new_const(g, val->region, arena_printf(&g->arena, "%s.packed", val->name),
	                         &val->type, dst);
	free(dst);
	g->values[out].packed = true;
	vec_reserve((void **)&memo->items, &memo->cap, memo->n + 1, sizeof *memo->items);
	memo->items[memo->n++] = (Packed){ w, out, kind };
	return out;
}

int cg_x86_prepare(const Target *t, Graph *g)
{
	const SimdIsa *isa = ukgen_isa(t);
	Memo memo = { NULL, 0, 0 };
	int mr, nv;
	if (!isa)
		return 0;
	ukgen_blocking(isa, &mr, &nv);
	for (RegionId r = 0; r < g->n_regions; r++)
		for (int i = 0; i < g->regions[r].n_nodes; i++) {
			const NodeId n = g->regions[r].nodes[i];
			KernelCall ref;
			bool packable;
			int kind;
			if (g->nodes[n].dead)
				continue;
			kind = cg_x86_kind(t, g, n, &ref, &packable);
			if (kind > X86_REF && packable) {
				ValueId v = packed_copy(g, n, kind, &ref, mr, nv * isa->lanes, &memo);
				g->nodes[n].in[1] = v;
			}
		}
	free(memo.items);
	return 0;
}
