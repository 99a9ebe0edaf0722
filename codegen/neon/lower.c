/* lower.c — lowering for the NEON targets: f32 nodes whose op has a NEON kernel
 * (runtime-stubs/kernels/neon/) call it, every other node the reference kernel of
 * the C target. A NEON kernel takes its reference kernel's parameters: the node is
 * lowered the reference way, then only the kernel name, family, parameter
 * descriptor and scratch size change (the planner asks this lowering for scratch). The NEON headers repeat the reference field lists (a model
 * directory holds only the families it uses), so the asserts below keep both
 * layouts identical. `fn` stays the reference kernel: folding never runs target
 * kernels, and ingot itself is not built for ARM. */
#include "param_layout.h"
#include "neon_target.h"

#include <stddef.h>
#include <stdint.h>

#include "conv.h"
#include "elementwise.h"
#include "linalg.h"
#include "norm.h"
#include "pool.h"
#include "neon/eltwise.h"
#include "neon/gemm.h"
#include "neon/pooling.h"

/* ---- the NEON parameter structs are the reference ones, field for field ---- */

#define SAME_STRUCT(REF_FIELDS, TGT_FIELDS) \
	REF_FIELDS(SAME_FIELD) TGT_FIELDS(SAME_FIELD) \
	_Static_assert(sizeof(REF) == sizeof(TGT), "NEON parameter struct size differs");

#define REF ingot_conv_params
#define TGT ingot_neon_conv_params
SAME_STRUCT(INGOT_CONV_FIELDS, INGOT_NEON_CONV_FIELDS)
#undef REF
#undef TGT
#define REF ingot_matmul_params
#define TGT ingot_neon_matmul_params
SAME_STRUCT(INGOT_MATMUL_FIELDS, INGOT_NEON_MATMUL_FIELDS)
#undef REF
#undef TGT
#define REF ingot_gemm_params
#define TGT ingot_neon_gemm_params
SAME_STRUCT(INGOT_GEMM_FIELDS, INGOT_NEON_GEMM_FIELDS)
#undef REF
#undef TGT
#define REF ingot_pool_params
#define TGT ingot_neon_pool_params
SAME_STRUCT(INGOT_POOL_FIELDS, INGOT_NEON_POOL_FIELDS)
#undef REF
#undef TGT
#define REF ingot_unary_params
#define TGT ingot_neon_unary_params
SAME_STRUCT(INGOT_UNARY_FIELDS, INGOT_NEON_UNARY_FIELDS)
#undef REF
#undef TGT
#define REF ingot_binary_params
#define TGT ingot_neon_binary_params
SAME_STRUCT(INGOT_BINARY_FIELDS, INGOT_NEON_BINARY_FIELDS)
#undef REF
#undef TGT
#define REF ingot_softmax_params
#define TGT ingot_neon_softmax_params
SAME_STRUCT(INGOT_SOFTMAX_FIELDS, INGOT_NEON_SOFTMAX_FIELDS)
#undef REF
#undef TGT

/* The pool kinds (the enums are distinct types: compare as int); the unary and
 * activation codes are ewtable.h's */
#define EQ(a, b) ((int)(a) == (int)(b))
_Static_assert(EQ(INGOT_NEON_POOL_MAX, INGOT_POOL_MAX) && EQ(INGOT_NEON_POOL_AVG, INGOT_POOL_AVG),
               "NEON pool kinds differ from the reference");

/* ---- descriptors of the NEON structs (the C initializers name these types) ---- */

#define PARAM_STRUCT ingot_neon_conv_params
DESC(conv, ingot_neon_conv_params, INGOT_NEON_CONV_FIELDS)
#undef PARAM_STRUCT
#define PARAM_STRUCT ingot_neon_matmul_params
DESC(matmul, ingot_neon_matmul_params, INGOT_NEON_MATMUL_FIELDS)
#undef PARAM_STRUCT
#define PARAM_STRUCT ingot_neon_gemm_params
DESC(gemm, ingot_neon_gemm_params, INGOT_NEON_GEMM_FIELDS)
#undef PARAM_STRUCT
#define PARAM_STRUCT ingot_neon_pool_params
DESC(pool, ingot_neon_pool_params, INGOT_NEON_POOL_FIELDS)
#undef PARAM_STRUCT
#define PARAM_STRUCT ingot_neon_unary_params
DESC(unary, ingot_neon_unary_params, INGOT_NEON_UNARY_FIELDS)
#undef PARAM_STRUCT
#define PARAM_STRUCT ingot_neon_binary_params
DESC(binary, ingot_neon_binary_params, INGOT_NEON_BINARY_FIELDS)
#undef PARAM_STRUCT
#define PARAM_STRUCT ingot_neon_softmax_params
DESC(softmax, ingot_neon_softmax_params, INGOT_NEON_SOFTMAX_FIELDS)
#undef PARAM_STRUCT

static void use(KernelCall *kc, const char *fn_name, const char *family, const ParamDesc *d)
{
	kc->fn_name = fn_name;
	kc->family = family;
	kc->pdesc = d;
}

/* Which NEON kernel takes node n, given its reference call; NULL-safe on params. */
static void pick(const Graph *g, NodeId n, KernelCall *kc)
{
	switch (g->nodes[n].op) {
	case OP_CONV: {
		const ingot_conv_params *p = kc->params;
		if (kc->fn == ingot_conv && p->dtype == INGOT_DT_F32 && !p->transposed &&
		    (p->nsp == 1 || p->nsp == 2)) {
			/* K = Cin / group * kernel area; depthwise (Cin / group = 1) packs nothing */
			int64_t k = p->w_dims[1];
			for (int64_t d = 0; d < p->nsp; d++)
				k *= p->w_dims[2 + d];
			use(kc, KERNEL_NAME_FAMILY(ingot_neon_conv), &conv_desc);
			kc->scratch_bytes = p->group > 0 && p->x_dims[1] / p->group == 1 && k > 0 ? 0 :
			                    ingot_neon_gemm_scratch_bytes(k);
		}
		break;
	}
	case OP_MATMUL: {
		const ingot_matmul_params *p = kc->params;
		if (kc->fn == ingot_matmul && p->dtype == INGOT_DT_F32) {
			use(kc, KERNEL_NAME_FAMILY(ingot_neon_matmul), &matmul_desc);
			kc->scratch_bytes = ingot_neon_gemm_scratch_bytes(p->k);
		}
		break;
	}
	case OP_GEMM: {
		const ingot_gemm_params *p = kc->params;
		if (kc->fn == ingot_gemm && p->dtype == INGOT_DT_F32) {
			use(kc, KERNEL_NAME_FAMILY(ingot_neon_gemm), &gemm_desc);
			kc->scratch_bytes = ingot_neon_gemm_scratch_bytes(p->k);
		}
		break;
	}
	case OP_MAX_POOL:
	case OP_AVERAGE_POOL: {
		const ingot_pool_params *p = kc->params;
		if (kc->fn == ingot_pool && p->dtype == INGOT_DT_F32 && !p->has_indices &&
		    (p->nsp == 1 || p->nsp == 2))
			use(kc, KERNEL_NAME_FAMILY(ingot_neon_pool), &pool_desc);
		break;
	}
	case OP_ADD:
	case OP_SUB:
	case OP_MUL:
	case OP_DIV: {
		const ingot_binary_params *p = kc->params;
		if (kc->fn == ingot_binary && p->dtype_a == INGOT_DT_F32 && p->dtype_b == INGOT_DT_F32 &&
		    p->dtype_out == INGOT_DT_F32)
			use(kc, KERNEL_NAME_FAMILY(ingot_neon_binary), &binary_desc);
		break;
	}
	case OP_SOFTMAX: {
		const ingot_softmax_params *p = kc->params;
		if (kc->fn == ingot_softmax && p->dtype == INGOT_DT_F32)
			use(kc, KERNEL_NAME_FAMILY(ingot_neon_softmax), &softmax_desc);
		break;
	}
	default: {   /* a unary op (ingot_unary) whose ewtable.h row has a vector form */
		const ingot_unary_params *p = kc->params;
		if (kc->fn == ingot_unary && p->dtype == INGOT_DT_F32 && ingot_ew_unary_has_vec(p->op))
			use(kc, KERNEL_NAME_FAMILY(ingot_neon_unary), &unary_desc);
		break;
	}
	}
}

int cg_neon_lower(const Target *t, Graph *g, NodeId n, KernelCall *kc)
{
	if (cg_ref_lower(t, g, n, kc))
		return -1;
	if (kc->params)
		pick(g, n, kc);
	return 0;
}
