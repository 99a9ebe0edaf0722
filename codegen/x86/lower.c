/* lower.c — lowering for the x86 targets: f32 Conv (1 or 2 spatial dims, not
 * transposed), MatMul and Gemm (C absent or with unit column stride) call the
 * kernels of runtime-stubs/kernels/x86/sgemm.c, f32 RNN/GRU/LSTM that of x86/rnn.c
 * (all attributes; Elu and Softplus activations keep the reference); pooling, the
 * unary ops with a vector form in ewtable.h and Gelu, f32 Add/Sub/Mul/Div, GlobalAveragePool, Softmax over
 * contiguous rows and LayerNormalization their x86 kernels; every other node the
 * reference kernel of the C target. QLinearConv / ConvInteger and QLinearMatMul /
 * MatMulInteger with constant 8-bit weights call the int8 kernels of x86/qgemm.c, and so
 * do QLinearAdd / QLinearMul whose operands need no broadcast but a scalar's and u8 / i8
 * MaxPool (ingot_x86_qmaxpool_ok). An x86 kernel takes its reference kernel's
 * parameters plus `packed`: the node is lowered the reference way, the struct is
 * copied and the kernel name, family and descriptor change. The x86 header repeats the
 * reference field lists (a model directory holds only the families it uses), so
 * the asserts below keep both layouts identical. `fn` stays the reference kernel:
 * folding never runs target kernels. */
#include "param_layout.h"
#include "x86_target.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "arith.h"
#include "conv.h"
#include "elementwise.h"
#include "linalg.h"
#include "norm.h"
#include "pool.h"
#include "quant.h"
#include "rnn.h"
#include "ukgen.h"
#include "x86/dconv.h"
#include "x86/dwconv.h"
#include "simd/vbinary.h"
#include "x86/eltwise.h"
#include "x86/pooling.h"
#include "x86/pwconv.h"
#include "x86/qgemm.h"
#include "x86/rnn.h"
#include "x86/sgemm.h"
#include "x86/wino1d.h"

/* ---- the x86 parameter structs begin with the reference ones, field for field ---- */

#define SAME_PREFIX(REF_FIELDS) \
	REF_FIELDS(SAME_FIELD) \
	_Static_assert(offsetof(TGT, packed) >= sizeof(REF), "x86 struct must extend the reference");

#define REF ingot_conv_params
#define TGT ingot_x86_conv_params
SAME_PREFIX(INGOT_CONV_FIELDS)
#undef REF
#undef TGT
#define REF ingot_matmul_params
#define TGT ingot_x86_matmul_params
SAME_PREFIX(INGOT_MATMUL_FIELDS)
#undef REF
#undef TGT
#define REF ingot_gemm_params
#define TGT ingot_x86_gemm_params
SAME_PREFIX(INGOT_GEMM_FIELDS)
#undef REF
#undef TGT

#define REF ingot_pool_params
#define TGT ingot_x86_pool_params
INGOT_POOL_FIELDS(SAME_FIELD)
_Static_assert(sizeof(REF) == sizeof(TGT), "x86 pool struct size differs");
#undef REF
#undef TGT

#define REF ingot_global_pool_params
#define TGT ingot_x86_global_pool_params
INGOT_GLOBAL_POOL_FIELDS(SAME_FIELD)
_Static_assert(sizeof(REF) == sizeof(TGT), "x86 global pool struct size differs");
#undef REF
#undef TGT

#define REF ingot_unary_params
#define TGT ingot_x86_unary_params
INGOT_UNARY_FIELDS(SAME_FIELD)
_Static_assert(sizeof(REF) == sizeof(TGT), "x86 unary struct size differs");
#undef REF
#undef TGT

#define REF ingot_math_unary_params
#define TGT ingot_x86_math_unary_params
INGOT_MATH_UNARY_FIELDS(SAME_FIELD)
_Static_assert(sizeof(REF) == sizeof(TGT), "x86 math unary struct size differs");
#undef REF
#undef TGT

#define REF ingot_binary_params
#define TGT ingot_x86_binary_params
INGOT_BINARY_FIELDS(SAME_FIELD)
_Static_assert(sizeof(REF) == sizeof(TGT), "x86 binary struct size differs");
#undef REF
#undef TGT

#define REF ingot_softmax_params
#define TGT ingot_x86_softmax_params
INGOT_SOFTMAX_FIELDS(SAME_FIELD)
_Static_assert(sizeof(REF) == sizeof(TGT), "x86 softmax struct size differs");
#undef REF
#undef TGT

#define REF ingot_layernorm_params
#define TGT ingot_x86_layernorm_params
INGOT_LAYERNORM_FIELDS(SAME_FIELD)
_Static_assert(sizeof(REF) == sizeof(TGT), "x86 layernorm struct size differs");
#undef REF
#undef TGT

#define REF ingot_rnn_params
#define TGT ingot_x86_rnn_params
SAME_PREFIX(INGOT_RNN_FIELDS)
#undef REF
#undef TGT

#define REF ingot_qconv_params
#define TGT ingot_x86_qconv_params
SAME_PREFIX(INGOT_QCONV_FIELDS)
#undef REF
#undef TGT
#define REF ingot_qmatmul_params
#define TGT ingot_x86_qmatmul_params
SAME_PREFIX(INGOT_QMATMUL_FIELDS)
#undef REF
#undef TGT

#define REF ingot_pool_params
#define TGT ingot_x86_qmaxpool_params
INGOT_POOL_FIELDS(SAME_FIELD)
_Static_assert(sizeof(REF) == sizeof(TGT), "x86 int8 MaxPool struct size differs");
#undef REF
#undef TGT

#define REF ingot_qbinary_params
#define TGT ingot_x86_qbinary_params
INGOT_QBINARY_FIELDS(SAME_FIELD)
_Static_assert(sizeof(REF) == sizeof(TGT), "x86 QLinearAdd/Mul struct size differs");
#undef REF
#undef TGT

#define EQ(a, b) ((int)(a) == (int)(b))
_Static_assert(EQ(INGOT_X86_QB_ADD, INGOT_QB_ADD) && EQ(INGOT_X86_QB_MUL, INGOT_QB_MUL),
               "x86 QLinearAdd/Mul op codes differ from the reference");
_Static_assert(EQ(INGOT_X86_RNN_SIMPLE, INGOT_RNN_SIMPLE) && EQ(INGOT_X86_RNN_GRU, INGOT_RNN_GRU) &&
               EQ(INGOT_X86_RNN_LSTM, INGOT_RNN_LSTM) && EQ(INGOT_X86_RNN_RELU, INGOT_RNN_RELU) &&
               EQ(INGOT_X86_RNN_TANH, INGOT_RNN_TANH) && EQ(INGOT_X86_RNN_SIGMOID, INGOT_RNN_SIGMOID) &&
               EQ(INGOT_X86_RNN_AFFINE, INGOT_RNN_AFFINE) &&
               EQ(INGOT_X86_RNN_LEAKY_RELU, INGOT_RNN_LEAKY_RELU) &&
               EQ(INGOT_X86_RNN_THRESHOLDED_RELU, INGOT_RNN_THRESHOLDED_RELU) &&
               EQ(INGOT_X86_RNN_SCALED_TANH, INGOT_RNN_SCALED_TANH) &&
               EQ(INGOT_X86_RNN_HARD_SIGMOID, INGOT_RNN_HARD_SIGMOID) &&
               EQ(INGOT_X86_RNN_ELU, INGOT_RNN_ELU) && EQ(INGOT_X86_RNN_SOFTSIGN, INGOT_RNN_SOFTSIGN) &&
               EQ(INGOT_X86_RNN_SOFTPLUS, INGOT_RNN_SOFTPLUS),
               "x86 RNN kinds or activation codes differ from the reference");
_Static_assert(EQ(INGOT_X86_MU_GELU, INGOT_MU_GELU) && EQ(INGOT_X86_MU_GELU_TANH, INGOT_MU_GELU_TANH),
               "x86 Gelu codes differ from the reference");
_Static_assert(EQ(INGOT_VB_ADD, INGOT_EW_ADD) && EQ(INGOT_VB_SUB, INGOT_EW_SUB) &&
               EQ(INGOT_VB_MUL, INGOT_EW_MUL) && EQ(INGOT_VB_DIV, INGOT_EW_DIV),
               "simd/vbinary.h's op codes differ from the reference");
_Static_assert(EQ(INGOT_X86_QV_NONE, INGOT_QV_NONE) && EQ(INGOT_X86_QV_ONE, INGOT_QV_ONE) &&
               EQ(INGOT_X86_QV_VEC, INGOT_QV_VEC) && EQ(INGOT_X86_QV_BATCH, INGOT_QV_BATCH),
               "x86 qgemm.h's zero point layouts differ from quant.h's");
_Static_assert(EQ(INGOT_X86_POOL_MAX, INGOT_POOL_MAX) && EQ(INGOT_X86_POOL_AVG, INGOT_POOL_AVG),
               "x86 pooling kinds differ from the reference");

#define PARAM_STRUCT ingot_x86_conv_params
DESC(conv, ingot_x86_conv_params, INGOT_X86_CONV_FIELDS)
#undef PARAM_STRUCT
#define PARAM_STRUCT ingot_x86_matmul_params
DESC(matmul, ingot_x86_matmul_params, INGOT_X86_MATMUL_FIELDS)
#undef PARAM_STRUCT
#define PARAM_STRUCT ingot_x86_gemm_params
DESC(gemm, ingot_x86_gemm_params, INGOT_X86_GEMM_FIELDS)
#undef PARAM_STRUCT
#define PARAM_STRUCT ingot_x86_pool_params
DESC(pool, ingot_x86_pool_params, INGOT_X86_POOL_FIELDS)
#undef PARAM_STRUCT
#define PARAM_STRUCT ingot_x86_global_pool_params
DESC(global_pool, ingot_x86_global_pool_params, INGOT_X86_GLOBAL_POOL_FIELDS)
#undef PARAM_STRUCT
#define PARAM_STRUCT ingot_x86_unary_params
DESC(unary, ingot_x86_unary_params, INGOT_X86_UNARY_FIELDS)
#undef PARAM_STRUCT
#define PARAM_STRUCT ingot_x86_math_unary_params
DESC(math_unary, ingot_x86_math_unary_params, INGOT_X86_MATH_UNARY_FIELDS)
#undef PARAM_STRUCT
#define PARAM_STRUCT ingot_x86_binary_params
DESC(binary, ingot_x86_binary_params, INGOT_X86_BINARY_FIELDS)
#undef PARAM_STRUCT
#define PARAM_STRUCT ingot_x86_softmax_params
DESC(softmax, ingot_x86_softmax_params, INGOT_X86_SOFTMAX_FIELDS)
#undef PARAM_STRUCT
#define PARAM_STRUCT ingot_x86_layernorm_params
DESC(layernorm, ingot_x86_layernorm_params, INGOT_X86_LAYERNORM_FIELDS)
#undef PARAM_STRUCT

/* Strides that walk a tensor of the normalized dims' shape in order. */
static bool dense_strides(const ingot_layernorm_params *p, const int64_t *str)
{
	int64_t step = 1;
	for (int d = (int)p->nrank - 1; d >= 0; d--) {
		if (p->ndims[d] > 1 && str[d] != step)
			return false;
		step *= p->ndims[d];
	}
	return step == p->inner;
}
#define PARAM_STRUCT ingot_x86_rnn_params
DESC(rnn, ingot_x86_rnn_params, INGOT_X86_RNN_FIELDS)
#undef PARAM_STRUCT
#define PARAM_STRUCT ingot_x86_qconv_params
DESC(qconv, ingot_x86_qconv_params, INGOT_X86_QCONV_FIELDS)
#undef PARAM_STRUCT
#define PARAM_STRUCT ingot_x86_qmatmul_params
DESC(qmatmul, ingot_x86_qmatmul_params, INGOT_X86_QMATMUL_FIELDS)
#undef PARAM_STRUCT
#define PARAM_STRUCT ingot_x86_qbinary_params
DESC(qbinary, ingot_x86_qbinary_params, INGOT_X86_QBINARY_FIELDS)
#undef PARAM_STRUCT
#define PARAM_STRUCT ingot_x86_qmaxpool_params
DESC(qmaxpool, ingot_x86_qmaxpool_params, INGOT_X86_QPOOL_FIELDS)
#undef PARAM_STRUCT

static bool const_f32(const Graph *g, ValueId v)
{
	return v != IR_NONE && g->values[v].is_const && g->values[v].type.dtype == DT_F32;
}

/* A constant 8-bit weight (or a packed copy of one). */
static bool const_q8(const Graph *g, ValueId v)
{
	if (v != IR_NONE && g->values[v].packed)
		v = g->values[v].packed_from;
	return v != IR_NONE && g->values[v].is_const &&
	       (g->values[v].type.dtype == DT_U8 || g->values[v].type.dtype == DT_I8);
}

/* Whether the inputs at the given slots are present f32 values (the scales the int8
 * kernels read as floats). */
static bool f32_slots(const Graph *g, const Node *node, const int *slots, int n)
{
	for (int i = 0; i < n; i++)
		if (node->n_in <= slots[i] || node->in[slots[i]] == IR_NONE ||
		    g->values[node->in[slots[i]]].type.dtype != DT_F32)
			return false;
	return true;
}

int cg_x86_q_slot(const Graph *g, NodeId n)
{
	const int op = g->nodes[n].op;
	return op == OP_QLINEAR_CONV || op == OP_QLINEAR_MATMUL ? 3 : 1;
}

int cg_x86_kind(const Target *t, Graph *g, NodeId n, KernelCall *ref, bool *packable)
{
	Node *node = &g->nodes[n];
	ValueId saved[4] = { IR_NONE, IR_NONE, IR_NONE, IR_NONE };
	static const int scales[3] = { 1, 4, 6 };
	int rc;
	*packable = false;
	/* the reference lowering reads the weights' original types (W at slot 1; RNN's
	 * R at slot 2 too; the W or B of QLinearConv / QLinearMatMul at slot 3) */
	for (int i = 1; i < node->n_in && i <= 3; i++) {
		saved[i] = node->in[i];
		if (saved[i] != IR_NONE && g->values[saved[i]].packed)
			node->in[i] = g->values[saved[i]].packed_from;
	}
	rc = cg_ref_lower(t, g, n, ref);
	for (int i = 1; i < node->n_in && i <= 3; i++)
		node->in[i] = saved[i];
	if (rc)
		return -1;
	switch (node->op) {
	case OP_CONV: {
		const ingot_conv_params *p = ref->params;
		int64_t cg, mg;
		if (ref->fn != ingot_conv || p->dtype != INGOT_DT_F32 || p->transposed ||
		    (p->nsp != 1 && p->nsp != 2) || p->group < 1)
			return X86_REF;
		cg = p->x_dims[1] / p->group;
		mg = p->y_dims[1] / p->group;
		*packable = const_f32(g, node->in[1]) && !(cg == 1 && mg == 1);
		return X86_CONV;
	}
	case OP_MATMUL: {
		const ingot_matmul_params *p = ref->params;
		bool shared_b = true;
		if (ref->fn != ingot_matmul || p->dtype != INGOT_DT_F32)
			return X86_REF;
		for (int d = 0; d < p->nb; d++)
			shared_b = shared_b && (p->b_bstr[d] == 0 || p->bdims[d] == 1);
		*packable = const_f32(g, node->in[1]) && shared_b;
		return X86_MATMUL;
	}
	case OP_GEMM: {
		const ingot_gemm_params *p = ref->params;
		if (ref->fn != ingot_gemm || p->dtype != INGOT_DT_F32 ||
		    (p->has_c && p->beta != 0.0f && p->c_cs != 1))
			return X86_REF;
		*packable = const_f32(g, node->in[1]);
		return X86_GEMM;
	}
	case OP_QLINEAR_CONV:
	case OP_CONV_INTEGER: {
		ingot_x86_qconv_params q;
		if (ref->fn != ingot_qconv)
			return X86_REF;
		memset(&q, 0, sizeof q);
		memcpy(&q, ref->params, sizeof(ingot_qconv_params));
		*packable = ingot_x86_qconv_ok(&q) && const_q8(g, node->in[cg_x86_q_slot(g, n)]) &&
		            (!q.qlinear || f32_slots(g, node, scales, 3));
		return *packable ? X86_QCONV : X86_REF;
	}
	case OP_QLINEAR_MATMUL:
	case OP_MATMUL_INTEGER: {
		ingot_x86_qmatmul_params q;
		if (ref->fn != ingot_qmatmul)
			return X86_REF;
		memset(&q, 0, sizeof q);
		memcpy(&q, ref->params, sizeof(ingot_qmatmul_params));
		*packable = ingot_x86_qmatmul_ok(&q) && const_q8(g, node->in[cg_x86_q_slot(g, n)]);
		return *packable ? X86_QMATMUL : X86_REF;
	}
	case OP_QLINEAR_ADD:
	case OP_QLINEAR_MUL: {   /* 8-bit outputs, operands contiguous or of one element */
		ingot_x86_qbinary_params q;
		if (ref->fn != ingot_qbinary)
			return X86_REF;
		memcpy(&q, ref->params, sizeof q);
		return ingot_x86_qbinary_ok(&q) && f32_slots(g, node, scales, 3) ? X86_QBINARY : X86_REF;
	}
	case OP_MAX_POOL:
	case OP_AVERAGE_POOL: {
		const ingot_pool_params *p = ref->params;
		if (ref->fn == ingot_pool && p->kind == INGOT_POOL_MAX && p->dtype != INGOT_DT_F32) {
			ingot_x86_qmaxpool_params q;   /* u8 / i8 MaxPool */
			memcpy(&q, p, sizeof q);
			return ingot_x86_qmaxpool_ok(&q) ? X86_QMAXPOOL : X86_REF;
		}
		if (ref->fn != ingot_pool || p->dtype != INGOT_DT_F32 || p->has_indices ||
		    (p->nsp != 1 && p->nsp != 2) || p->x_dims[1 + p->nsp] > INGOT_X86_POOL_MAX_W)
			return X86_REF;
		return X86_POOL;
	}
	case OP_GLOBAL_AVERAGE_POOL: {
		const ingot_global_pool_params *p = ref->params;
		return ref->fn == ingot_global_pool && p->dtype == INGOT_DT_F32 && p->kind == INGOT_POOL_AVG
		       ? X86_GPOOL : X86_REF;
	}
	case OP_ADD:
	case OP_SUB:
	case OP_MUL:
	case OP_DIV: {
		const ingot_binary_params *p = ref->params;
		return ref->fn == ingot_binary && p->dtype_a == INGOT_DT_F32 && p->dtype_b == INGOT_DT_F32 &&
		       p->dtype_out == INGOT_DT_F32 ? X86_BINARY : X86_REF;
	}
	case OP_GELU: {
		const ingot_math_unary_params *p = ref->params;
		return ref->fn == ingot_math_unary && p->dtype == INGOT_DT_F32 ? X86_MUNARY : X86_REF;
	}
	case OP_LAYER_NORMALIZATION: {
		const ingot_layernorm_params *p = ref->params;
		return ref->fn == ingot_layernorm && p->dtype == INGOT_DT_F32 && !p->has_mean && !p->has_inv &&
		       p->nrank >= 0 && p->nrank <= INGOT_MAX_RANK && dense_strides(p, p->s_str) &&
		       (!p->has_bias || dense_strides(p, p->b_str)) ? X86_LAYERNORM : X86_REF;
	}
	case OP_SOFTMAX:
	case OP_LOG_SOFTMAX: {
		const ingot_softmax_params *p = ref->params;
		return ref->fn == ingot_softmax && p->dtype == INGOT_DT_F32 && p->inner == 1 ? X86_SOFTMAX
		                                                                            : X86_REF;
	}
	case OP_RNN:
	case OP_GRU:
	case OP_LSTM: {
		const ingot_rnn_params *p = ref->params;
		if (ref->fn != ingot_rnn || p->dtype != INGOT_DT_F32)
			return X86_REF;
		for (int64_t i = 0; i < p->dirs * p->per_dir; i++)
			if (!ingot_x86_rnn_act_ok(p->acts[i]))
				return X86_REF;
		/* W and R are packed separately (prepack.c looks at each) */
		*packable = const_f32(g, node->in[1]) || const_f32(g, node->in[2]);
		return X86_RNN;
	}
	default: {   /* a unary op (ingot_unary) whose ewtable.h row has a vector form */
		const ingot_unary_params *p = ref->params;
		return ref->fn == ingot_unary && p->dtype == INGOT_DT_F32 && ingot_ew_unary_has_vec(p->op)
		       ? X86_UNARY : X86_REF;
	}
	}
}

/* The x86 kernels that take the reference kernel's parameter struct unchanged. */
static const struct {
	int kind;
	const char *fn_name, *family;
	const ParamDesc *pdesc;
} same_struct[] = {
	{ X86_UNARY, KERNEL_NAME_FAMILY(ingot_x86_unary), &unary_desc },
	{ X86_MUNARY, KERNEL_NAME_FAMILY(ingot_x86_math_unary), &math_unary_desc },
	{ X86_BINARY, KERNEL_NAME_FAMILY(ingot_x86_binary), &binary_desc },
	{ X86_LAYERNORM, KERNEL_NAME_FAMILY(ingot_x86_layernorm), &layernorm_desc },
	{ X86_SOFTMAX, KERNEL_NAME_FAMILY(ingot_x86_softmax), &softmax_desc },
	{ X86_POOL, KERNEL_NAME_FAMILY(ingot_x86_pool), &pool_desc },
	{ X86_GPOOL, KERNEL_NAME_FAMILY(ingot_x86_global_pool), &global_pool_desc },
	{ X86_QBINARY, KERNEL_NAME_FAMILY(ingot_x86_qbinary), &qbinary_desc },
	{ X86_QMAXPOOL, KERNEL_NAME_FAMILY(ingot_x86_qmaxpool), &qmaxpool_desc },
};

bool cg_x86_winograd(const void *conv_params, bool packable)
{
	ingot_x86_conv_params q;
	memset(&q, 0, sizeof q);
	memcpy(&q, conv_params, sizeof(ingot_conv_params));
	return packable && ingot_x86_wino_ok(&q);
}

bool cg_x86_wino1d(const void *conv_params, bool packable)
{
	ingot_x86_conv_params q;
	memset(&q, 0, sizeof q);
	memcpy(&q, conv_params, sizeof(ingot_conv_params));
	return packable && ingot_x86_w1_fits(&q);
}

bool cg_x86_dc_lanes(const void *conv_params, bool packable, int lanes)
{
	ingot_x86_conv_params q;
	int64_t m, ow;
	memset(&q, 0, sizeof q);
	memcpy(&q, conv_params, sizeof(ingot_conv_params));
	q.packed = 4;
	/* Z stays small (it is scratch, and the kernel is for small Convs) */
	if (!packable || ingot_x86_wino_ok(&q) || ingot_x86_w1_fits(&q) || ingot_x86_dw_ok(&q) ||
	    !ingot_x86_dc_ok(&q) || ingot_x86_dc_z_bytes(&q) > INGOT_X86_DC_MAX_Z)
		return false;
	m = q.y_dims[1];
	ow = q.y_dims[1 + q.nsp];
	/* the share of lanes used: m / m rounded up against ow / ow rounded up */
	return m * ((ow + lanes - 1) / lanes * lanes) > ow * ((m + lanes - 1) / lanes * lanes);
}

int cg_x86_lower(const Target *t, Graph *g, NodeId n, KernelCall *kc)
{
	bool packable;
	const Node *node = &g->nodes[n];
	const int kind = cg_x86_kind(t, g, n, kc, &packable);
	const int64_t packed = node->n_in > 1 && node->in[1] != IR_NONE && g->values[node->in[1]].packed;
	void *p;
	if (kind <= X86_REF)
		return kind < 0 ? -1 : 0;
	for (size_t i = 0; i < COUNTOF(same_struct); i++)
		if (kind == same_struct[i].kind) {
			kc->fn_name = same_struct[i].fn_name;
			kc->family = same_struct[i].family;
			kc->pdesc = same_struct[i].pdesc;
			return 0;
		}
	if (kind == X86_RNN) {
		ingot_x86_rnn_params *r = arena_alloc(&g->arena, sizeof *r);
		const SimdIsa *isa = ukgen_isa(t);
		IR_ASSERT(isa);
		memcpy(r, kc->params, sizeof(ingot_rnn_params));
		r->packed = (packed ? 1 : 0) | (g->values[node->in[2]].packed ? 2 : 0);
		r->r_nb = INGOT_X86_RNN_NV * isa->lanes;
		kc->params = r;
		KERNEL_CALL_SET(kc, ingot_x86_rnn);
		kc->pdesc = &rnn_desc;
		kc->scratch_bytes = ingot_x86_rnn_scratch_bytes(r);
		return 0;
	}
	if (kind == X86_QCONV || kind == X86_QMATMUL) {
		/* packed = the lanes the weights were packed for (0 before prepack.c runs) */
		const int lanes = ukgen_isa(t)->lanes;
		const int64_t qpacked = g->values[node->in[cg_x86_q_slot(g, n)]].packed ? lanes : 0;
		if (kind == X86_QCONV) {
			ingot_x86_qconv_params *c = arena_alloc(&g->arena, sizeof *c);
			memcpy(c, kc->params, sizeof(ingot_qconv_params));
			c->packed = qpacked;
			kc->scratch_bytes = ingot_x86_qconv_scratch(c, lanes);
			kc->params = c;
			kc->pdesc = &qconv_desc;
			KERNEL_CALL_SET(kc, ingot_x86_qconv);
		} else {
			ingot_x86_qmatmul_params *m = arena_alloc(&g->arena, sizeof *m);
			memcpy(m, kc->params, sizeof(ingot_qmatmul_params));
			m->packed = qpacked;
			kc->scratch_bytes = ingot_x86_qmatmul_scratch(m, lanes);   /* AMX's rows of A */
			kc->params = m;
			kc->pdesc = &qmatmul_desc;
			KERNEL_CALL_SET(kc, ingot_x86_qmatmul);
		}
		return 0;
	}
	switch (kind) {
	case X86_CONV: {
		ingot_x86_conv_params *c = arena_alloc(&g->arena, sizeof *c);
		memcpy(c, kc->params, sizeof(ingot_conv_params));
		if (packable && ingot_x86_wino_ok(c)) {   /* packed = 2: Winograd-transformed weights */
			c->packed = packed ? 2 : 0;
			kc->scratch_bytes = ingot_x86_wino_scratch(c);
		} else if (packable && ingot_x86_w1_fits(c)) {   /* packed = 3: 1-D Winograd */
			c->packed = packed ? 3 : 0;
			kc->scratch_bytes = ingot_x86_w1_scratch(c);
			kc->params = c;
			kc->pdesc = &conv_desc;
			KERNEL_CALL_SET(kc, ingot_x86_wconv1);
			return 0;
		} else {
			/* the direct kernel reads packed weights; the memory planner lowers before
			 * they are packed, so its scratch follows from packable alone */
			ingot_x86_conv_params q = *c;
			q.packed = cg_x86_dc_lanes(c, packable, ukgen_isa(t)->lanes) ? 4 : 1;
			if (packable && ingot_x86_dc_ok(&q))
				kc->scratch_bytes = ingot_x86_dc_scratch(&q);
			c->packed = packed ? q.packed : 0;
		}
		kc->params = c;
		kc->pdesc = &conv_desc;
		c->layout = cg_x86_layout(t, g, n);
		if (cg_x86_pwconv(t, g, n) && ingot_x86_pw_ok(c)) {   /* layout.c */
			c->packed = packed ? 3 : 0;
			kc->scratch_bytes = 0;
			KERNEL_CALL_SET(kc, ingot_x86_pwconv);
		} else if (ingot_x86_dw_ok(c)) {     /* depthwise: its own kernel, same parameters */
			KERNEL_CALL_SET(kc, ingot_x86_dwconv);
		} else if (ingot_x86_dc_ok(c)) {   /* small stride-1 Convs: no im2col packing */
			KERNEL_CALL_SET(kc, ingot_x86_dconv);
		} else {
			KERNEL_CALL_SET(kc, ingot_x86_conv);
		}
		return 0;
	}
	case X86_MATMUL:
		p = arena_alloc(&g->arena, sizeof(ingot_x86_matmul_params));
		memcpy(p, kc->params, sizeof(ingot_matmul_params));
		((ingot_x86_matmul_params *)p)->packed = packed;
		KERNEL_CALL_SET(kc, ingot_x86_matmul);
		kc->pdesc = &matmul_desc;
		break;
	default:
		p = arena_alloc(&g->arena, sizeof(ingot_x86_gemm_params));
		memcpy(p, kc->params, sizeof(ingot_gemm_params));
		((ingot_x86_gemm_params *)p)->packed = packed;
		KERNEL_CALL_SET(kc, ingot_x86_gemm);
		kc->pdesc = &gemm_desc;
		break;
	}
	kc->params = p;
	return 0;
}
