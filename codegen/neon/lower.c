/* lower.c — lowering for the NEON targets: f32 nodes whose op has a NEON kernel
 * (runtime-stubs/kernels/neon/) call it, and so do QLinearConv and QLinearMatMul
 * (neon/qgemm.c, whose constant weights cg_neon_prepare packs at compile time); every
 * other node the reference kernel of the C target. A NEON kernel takes its reference kernel's parameters: the node is
 * lowered the reference way, then only the kernel name, family, parameter
 * descriptor and scratch size change (the planner asks this lowering for scratch). The NEON headers repeat the reference field lists (a model
 * directory holds only the families it uses), so the asserts below keep both
 * layouts identical. `fn` stays the reference kernel: folding never runs target
 * kernels, and ingot itself is not built for ARM. */
#include "param_layout.h"
#include "neon_target.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conv.h"
#include "elementwise.h"
#include "linalg.h"
#include "norm.h"
#include "pool.h"
#include "quant.h"
#include "neon/eltwise.h"
#include "neon/gemm.h"
#include "neon/pooling.h"
#include "neon/qgemm.h"

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

/* the int8 structs begin with the reference ones and add `packed` */
#define SAME_PREFIX(REF_FIELDS) \
	REF_FIELDS(SAME_FIELD) \
	_Static_assert(offsetof(TGT, packed) >= sizeof(REF), "NEON struct must extend the reference");
#define REF ingot_qconv_params
#define TGT ingot_neon_qconv_params
SAME_PREFIX(INGOT_QCONV_FIELDS)
#undef REF
#undef TGT
#define REF ingot_qmatmul_params
#define TGT ingot_neon_qmatmul_params
SAME_PREFIX(INGOT_QMATMUL_FIELDS)
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
#define PARAM_STRUCT ingot_neon_qconv_params
DESC(qconv, ingot_neon_qconv_params, INGOT_NEON_QCONV_FIELDS)
#undef PARAM_STRUCT
#define PARAM_STRUCT ingot_neon_qmatmul_params
DESC(qmatmul, ingot_neon_qmatmul_params, INGOT_NEON_QMATMUL_FIELDS)
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

/* ---- QLinearConv and QLinearMatMul: neon/qgemm.c ---- */

enum { Q_NONE, Q_CONV, Q_MATMUL };

static bool is8(int64_t dt)
{
	return dt == INGOT_DT_U8 || dt == INGOT_DT_I8;
}

static bool f32_at(const Graph *g, const Node *node, int slot)
{
	return slot < node->n_in && node->in[slot] != IR_NONE &&
	       g->values[node->in[slot]].type.dtype == DT_F32;
}

/* Which int8 kernel takes node n (Q_NONE: the reference), from its reference call;
 * *packable: its weights (slot 3) are constant and can be packed at compile time.
 * The reference lowering reads the weights' original type. */
static int q_kind(const Target *t, Graph *g, NodeId n, KernelCall *kc, bool *packable)
{
	Node *node = &g->nodes[n];
	const ValueId saved = node->n_in > 3 ? node->in[3] : IR_NONE;
	int rc;
	*packable = false;
	if (saved != IR_NONE && g->values[saved].packed)
		node->in[3] = g->values[saved].packed_from;
	rc = cg_ref_lower(t, g, n, kc);
	if (saved != IR_NONE)
		node->in[3] = saved;
	if (rc)
		return -1;
	if (!kc->params || saved == IR_NONE || !f32_at(g, node, 1) || !f32_at(g, node, 4) ||
	    !f32_at(g, node, 6))
		return Q_NONE;
	if (node->op == OP_QLINEAR_CONV) {
		const ingot_qconv_params *p = kc->params;
		int64_t k = p->w_dims[1];
		if (kc->fn != ingot_qconv || !p->qlinear || (p->nsp != 1 && p->nsp != 2) ||
		    p->group < 1 || !is8(p->x_dtype) || !is8(p->w_dtype) || !is8(p->y_dtype))
			return Q_NONE;
		for (int64_t d = 0; d < p->nsp; d++)
			k *= p->w_dims[2 + d];
		if (k < 1 || k > INGOT_NEON_QMAX_K)
			return Q_NONE;
		/* depthwise (one input channel per group) reads W as it is */
		*packable = g->values[saved].is_const && p->x_dims[1] / p->group > 1;
		return Q_CONV;
	}
	if (node->op == OP_QLINEAR_MATMUL) {
		const ingot_qmatmul_params *p = kc->params;
		bool b_batch = false;
		if (kc->fn != ingot_qmatmul || !p->qlinear || p->s_dtype != INGOT_DT_F32 ||
		    !is8(p->a_dtype) || !is8(p->b_dtype) || !is8(p->y_dtype) || p->k > INGOT_NEON_QMAX_K ||
		    p->a_zp > INGOT_QV_VEC || p->b_zp > INGOT_QV_VEC || p->y_zp > INGOT_QV_VEC ||
		    p->a_s > INGOT_QV_VEC || p->b_s > INGOT_QV_VEC || p->y_s > INGOT_QV_VEC)
			return Q_NONE;
		for (int64_t d = 0; d < p->nb; d++)
			b_batch = b_batch || p->b_bstr[d] != 0;
		*packable = g->values[saved].is_const && !b_batch;
		return Q_MATMUL;
	}
	return Q_NONE;
}

/* The int8 call: the reference parameters plus `packed`, the NEON kernel, its scratch
 * (the memory planner lowers before cg_neon_prepare packs, so the scratch follows from
 * packable alone). */
static void q_use(Graph *g, NodeId n, int kind, bool packable, KernelCall *kc)
{
	const int64_t packed = g->values[g->nodes[n].in[3]].packed;
	if (kind == Q_CONV) {
		ingot_neon_qconv_params *p = arena_alloc(&g->arena, sizeof *p);
		memcpy(p, kc->params, sizeof(ingot_qconv_params));
		p->packed = packed;
		const int64_t mg = p->y_dims[1] / p->group, cg = p->x_dims[1] / p->group;
		int64_t k = cg;
		for (int64_t d = 0; d < p->nsp; d++)
			k *= p->w_dims[2 + d];
		kc->params = p;
		use(kc, KERNEL_NAME_FAMILY(ingot_neon_qconv), &qconv_desc);
		kc->scratch_bytes = cg == 1 ? 0 : ingot_neon_qconv_scratch_bytes(p->group, mg, k, packable);
	} else {
		ingot_neon_qmatmul_params *p = arena_alloc(&g->arena, sizeof *p);
		memcpy(p, kc->params, sizeof(ingot_qmatmul_params));
		p->packed = packed;
		kc->params = p;
		use(kc, KERNEL_NAME_FAMILY(ingot_neon_qmatmul), &qmatmul_desc);
		kc->scratch_bytes = ingot_neon_qmatmul_scratch_bytes(p->n, p->k, packable);
	}
}

int cg_neon_lower(const Target *t, Graph *g, NodeId n, KernelCall *kc)
{
	const Op op = g->nodes[n].op;
	if (op == OP_QLINEAR_CONV || op == OP_QLINEAR_MATMUL) {
		bool packable;
		const int kind = q_kind(t, g, n, kc, &packable);
		if (kind > Q_NONE)
			q_use(g, n, kind, packable, kc);
		return kind < 0 ? -1 : 0;
	}
	if (cg_ref_lower(t, g, n, kc))
		return -1;
	if (kc->params)
		pick(g, n, kc);
	return 0;
}

/* Packs the constant weights of the int8 nodes (neon/qgemm.h's layout, signed view,
 * with the row sums): QLinearConv's W per group, QLinearMatMul's B by columns. A packed
 * copy is a new constant (the original stays for any other reader), marked
 * Value.packed with packed_from = the original. */
int cg_neon_prepare(const Target *t, Graph *g)
{
	for (RegionId r = 0; r < g->n_regions; r++)
		for (int i = 0; i < g->regions[r].n_nodes; i++) {
			const NodeId n = g->regions[r].nodes[i];
			KernelCall ref;
			bool packable;
			int kind;
			ValueId w, out;
			const uint8_t *src;
			uint8_t *dst;
			int64_t bytes;
			Type ty;
			if (g->nodes[n].dead || (g->nodes[n].op != OP_QLINEAR_CONV &&
			                         g->nodes[n].op != OP_QLINEAR_MATMUL))
				continue;
			memset(&ref, 0, sizeof ref);
			kind = q_kind(t, g, n, &ref, &packable);
			w = g->nodes[n].in[3];
			if (kind <= Q_NONE || !packable || g->values[w].packed)
				continue;
			src = ir_const_data(g, w);
			if (kind == Q_CONV) {
				const ingot_qconv_params *p = ref.params;
				const int64_t mg = p->y_dims[1] / p->group;
				const int64_t k = type_numel(&g->values[w].type) / p->y_dims[1];
				const int64_t wb = ingot_neon_qpack_bytes(mg, k);
				bytes = p->group * wb;
				dst = malloc((size_t)bytes);
				if (!dst)
					die("out of memory");
				for (int64_t grp = 0; grp < p->group; grp++)
					ingot_neon_qpack(src + grp * mg * k, mg, k, k, 1,
					                 p->w_dtype == INGOT_DT_U8 ? 0x80 : 0, dst + grp * wb);
			} else {
				const ingot_qmatmul_params *p = ref.params;
				bytes = ingot_neon_qpack_bytes(p->n, p->k);
				dst = malloc((size_t)bytes);
				if (!dst)
					die("out of memory");
				ingot_neon_qpack(src, p->n, p->k, 1, p->n, p->b_dtype == INGOT_DT_U8 ? 0x80 : 0, dst);
			}
			ty = type_make(DT_U8, 1, &bytes);
			out = ir_value_new_const(g, g->values[w].region,
			                         arena_printf(&g->arena, "%s.qpacked", g->values[w].name), &ty, dst);
			free(dst);
			g->values[out].packed = true;
			g->values[out].packed_from = w;
			g->nodes[n].in[3] = out;
		}
	return 0;
}
