/* prepack.c — compile-time packing of the constant weights of the x86 kernels into
 * the panel layout of the generated microkernels (runtime-stubs/kernels/x86/sgemm.h
 * describes it): Conv weights as panels of MR output channels per group (3x3
 * stride-1 ones first transformed for Winograd F(2x2, 3x3); pointwise ones that
 * read or write blocked tensors as the wider panels of x86/pwconv.h), the B operand of
 * MatMul and Gemm as panels of NR columns, RNN/GRU/LSTM W per direction as Gemm's
 * transposed B and R per direction as panels of R^T (runtime-stubs/kernels/x86/
 * rnn.h defines that layout; its packing function serves both); the 8-bit weights of
 * QLinearConv / ConvInteger and QLinearMatMul / MatMulInteger as x86/qgemm.h's
 * signed-byte rows or panels with their sums (its packing functions). A packed copy is a new constant (the
 * original stays for any other reader), marked Value.packed with packed_from = the
 * original, whose type the reference lowering computes the node's parameters from. */
#include "x86_target.h"
#include "ukgen.h"

#include <stdlib.h>
#include <string.h>

#include "conv.h"
#include "linalg.h"
#include "quant.h"
#include "rnn.h"
#include "x86/pwconv.h"
#include "x86/qgemm.h"
#include "x86/rnn.h"
#include "x86/wino1d.h"

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

/* Winograd F(2x2, 3x3) weights: U = G g G^T per (output, input) channel pair,
 * G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1], stored as 16 matrices (position
 * r * 4 + q of U) of m x c, each packed in panels of mr rows. */
static void pack_winograd(const float *w, int64_t m, int64_t c, int mr, float *dst)
{
	static const double G[4][3] = { { 1, 0, 0 }, { 0.5, 0.5, 0.5 }, { 0.5, -0.5, 0.5 }, { 0, 0, 1 } };
	float *u = malloc((size_t)(16 * m * c) * sizeof *u);
	if (!u)
		die("out of memory");
	for (int64_t o = 0; o < m; o++)
		for (int64_t i = 0; i < c; i++) {
			const float *g = w + (o * c + i) * 9;
			double t[4][3];
			for (int r = 0; r < 4; r++)           /* G g */
				for (int q = 0; q < 3; q++)
					t[r][q] = G[r][0] * g[q] + G[r][1] * g[3 + q] + G[r][2] * g[6 + q];
			for (int r = 0; r < 4; r++)           /* (G g) G^T */
				for (int q = 0; q < 4; q++)
					u[((r * 4 + q) * m + o) * c + i] =
						(float)(t[r][0] * G[q][0] + t[r][1] * G[q][1] + t[r][2] * G[q][2]);
		}
	for (int xi = 0; xi < 16; xi++)
		pack_rows(u + xi * m * c, m, c, c, 1, mr, dst + xi * m * c);
	free(u);
}

/* 1-D Winograd F(9 - k, k) weights (x86/wino1d.h): U = G g per (output, input)
 * channel pair on the points 0, 1, -1, 2, -2, 1/2, -1/2, infinity, G's row
 * p^0 .. p^(k-1) divided by the scale of B^T's row in wino1d.c (infinity: the last
 * tap), stored as 8 matrices of c rows x mp columns (mp: m rounded up to the
 * target's lanes, zeros after m). */
static void pack_wino1d(const float *w, int64_t m, int64_t c, int64_t k, int lanes, float *dst)
{
	static const double pt[7] = { 0, 1, -1, 2, -2, 0.5, -0.5 };
	static const double scale[7] = { 1, -4.5, -4.5, 90, 90, 45.0 / 32, 45.0 / 32 };
	const int64_t mp = (m + lanes - 1) / lanes * lanes;
	memset(dst, 0, (size_t)(INGOT_X86_W1_ALPHA * c * mp) * sizeof *dst);
	for (int xi = 0; xi < INGOT_X86_W1_ALPHA; xi++)
		for (int64_t i = 0; i < c; i++)
			for (int64_t o = 0; o < m; o++) {
				const float *g = w + (o * c + i) * k;
				double s = 0, pw = 1;
				if (xi == INGOT_X86_W1_ALPHA - 1)
					s = g[k - 1];
				else
					for (int64_t kk = 0; kk < k; kk++, pw *= pt[xi])
						s += pw * g[kk] / scale[xi];
				dst[(xi * c + i) * mp + o] = (float)s;
			}
}

/* The packed copies made so far: one per (constant, kind, input slot). */
typedef struct Packed {
	ValueId src, dst;
	int kind, slot, width;
} Packed;
typedef struct Memo {
	Packed *items;
	int n, cap;
} Memo;

/* An RNN's W (slot 1: per direction the transposed B of a Gemm, panels of nr
 * columns) or R (slot 2: per direction panels of rnb rows of R^T). */
static void pack_rnn(const ingot_rnn_params *p, int slot, const float *src, int nr, int rnb,
                     float *dst)
{
	const int64_t gh = ingot_x86_rnn_gates(p->kind) * p->hidden;
	for (int64_t d = 0; d < p->dirs; d++)
		if (slot == 1)
			pack_rows(src + d * gh * p->input, gh, p->input, p->input, 1, nr, dst + d * gh * p->input);
		else
			ingot_x86_rnn_pack_r(src + d * gh * p->hidden, p->kind, p->hidden, rnb,
			                     dst + d * gh * p->hidden);
}

/* A packed copy of node n's weight at input `slot`, or an earlier identical one. */
static ValueId packed_copy(Graph *g, NodeId n, int kind, int slot, const KernelCall *ref, int mr,
                           int nr, int rnb, int lanes, Memo *memo)
{
	const ValueId w = g->nodes[n].in[slot];
	const Value *val = &g->values[w];
	const float *src = ir_const_data(g, w);
	const int64_t numel = type_numel(&val->type);
	const bool wino = kind == X86_CONV && cg_x86_winograd(ref->params, true);
	const bool wino1d = kind == X86_CONV && cg_x86_wino1d(ref->params, true);
	const ingot_conv_params *cp = ref->params;
	const bool dc_lanes = kind == X86_CONV && cg_x86_dc_lanes(ref->params, true, lanes);
	const int64_t mp = kind == X86_CONV ? (cp->y_dims[1] + lanes - 1) / lanes * lanes : 0;
	const int64_t out_numel = wino ? numel / 9 * 16
	                        : wino1d ? INGOT_X86_W1_ALPHA * cp->x_dims[1] * mp
	                        : dc_lanes ? numel / cp->y_dims[1] * mp
	                                 : numel;
	Type out_type = val->type;
	float *dst;
	ValueId out;
	for (int i = 0; i < memo->n; i++)
		if (memo->items[i].src == w && memo->items[i].kind == kind && memo->items[i].slot == slot &&
		    memo->items[i].width == mr)
			return memo->items[i].dst;
	dst = malloc((size_t)(out_numel > 0 ? out_numel : 1) * sizeof *dst);
	if (!dst)
		die("out of memory");
	if (wino) {
		const ingot_conv_params *p = ref->params;
		pack_winograd(src, p->y_dims[1], p->x_dims[1], mr, dst);
		out_type = type_make(DT_F32, 1, &out_numel);
	} else if (wino1d) {
		pack_wino1d(src, cp->y_dims[1], cp->x_dims[1], cp->w_dims[2], lanes, dst);
		out_type = type_make(DT_F32, 1, &out_numel);
	} else if (dc_lanes) {                             /* W^T, mp columns (x86/dconv.h) */
		const int64_t k = numel / cp->y_dims[1];
		memset(dst, 0, (size_t)out_numel * sizeof *dst);
		for (int64_t o = 0; o < cp->y_dims[1]; o++)
			for (int64_t kk = 0; kk < k; kk++)
				dst[kk * mp + o] = src[o * k + kk];
		out_type = type_make(DT_F32, 1, &out_numel);
	} else if (kind == X86_CONV) {
		const ingot_conv_params *p = ref->params;
		const int64_t mg = p->y_dims[1] / p->group, k = numel / (mg * p->group);
		for (int64_t grp = 0; grp < p->group; grp++)
			pack_rows(src + grp * mg * k, mg, k, k, 1, mr, dst + grp * mg * k);
	} else if (kind == X86_RNN) {
		pack_rnn(ref->params, slot, src, nr, rnb, dst);
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
	out = ir_value_new_const(g, val->region,
	                         arena_printf(&g->arena, wino || wino1d ? "%s.winograd" : "%s.packed", val->name),
	                         &out_type, dst);
	free(dst);
	g->values[out].packed = true;
	g->values[out].packed_from = w;
	vec_reserve((void **)&memo->items, &memo->cap, memo->n + 1, sizeof *memo->items);
	memo->items[memo->n++] = (Packed){ w, out, kind, slot, mr };
	return out;
}

/* A packed copy of int8 node n's weight (x86/qgemm.h's layout for `lanes`-wide
 * vectors), or an earlier identical one. */
static ValueId packed_q8(Graph *g, NodeId n, int kind, const KernelCall *ref, int lanes, Memo *memo)
{
	const int slot = cg_x86_q_slot(g, n);
	const ValueId w = g->nodes[n].in[slot];
	const Value *val = &g->values[w];
	const uint8_t *src = ir_const_data(g, w);
	int64_t bytes;
	uint8_t *dst;
	Type out_type;
	ValueId out;
	for (int i = 0; i < memo->n; i++)
		if (memo->items[i].src == w && memo->items[i].kind == kind && memo->items[i].slot == slot &&
		    memo->items[i].width == lanes)
			return memo->items[i].dst;
	if (kind == X86_QCONV) {
		const ingot_qconv_params *p = ref->params;
		const int64_t m = p->w_dims[0], k = type_numel(&val->type) / (m > 0 ? m : 1);
		bytes = ingot_x86_qconv_packed_bytes(m, k);
		dst = malloc((size_t)bytes);
		if (!dst)
			die("out of memory");
		ingot_x86_qconv_pack(src, p->w_dtype, m, k, dst);
	} else {
		const ingot_qmatmul_params *p = ref->params;
		bytes = ingot_x86_qmatmul_packed_bytes(p->k, p->n, lanes);
		dst = malloc((size_t)bytes);
		if (!dst)
			die("out of memory");
		ingot_x86_qmatmul_pack(src, p->b_dtype, p->k, p->n, lanes, dst);
	}
	out_type = type_make(DT_U8, 1, &bytes);
	out = ir_value_new_const(g, val->region, arena_printf(&g->arena, "%s.packed", val->name), &out_type,
	                         dst);
	free(dst);
	g->values[out].packed = true;
	g->values[out].packed_from = w;
	vec_reserve((void **)&memo->items, &memo->cap, memo->n + 1, sizeof *memo->items);
	memo->items[memo->n++] = (Packed){ w, out, kind, slot, lanes };
	return out;
}

int cg_x86_prepare(const Target *t, Graph *g)
{
	const SimdIsa *isa = ukgen_isa(t);
	Memo memo = { NULL, 0, 0 };
	int mr, nv;
	if (!isa)
		return 0;
	ukgen_blocking(t, isa, &mr, &nv);
	for (RegionId r = 0; r < g->n_regions; r++)
		for (int i = 0; i < g->regions[r].n_nodes; i++) {
			const NodeId n = g->regions[r].nodes[i];
			KernelCall ref;
			bool packable;
			int kind, width = mr;
			if (g->nodes[n].dead || g->nodes[n].device)   /* an OpenCL node reads them as they are */
				continue;
			kind = cg_x86_kind(t, g, n, &ref, &packable);
			if (kind <= X86_REF || !packable)
				continue;
			if (kind == X86_QCONV || kind == X86_QMATMUL) {
				if (!g->values[g->nodes[n].in[cg_x86_q_slot(g, n)]].packed)
					g->nodes[n].in[cg_x86_q_slot(g, n)] = packed_q8(g, n, kind, &ref, isa->lanes, &memo);
				continue;
			}
			if (kind == X86_CONV && cg_x86_pwconv(t, g, n))   /* ingot_x86_pwconv's panels */
				width = INGOT_X86_PW_MC(isa->lanes);
			/* RNN: W and R each when constant; the others: the weight at slot 1 */
			for (int slot = 1; slot <= (kind == X86_RNN ? 2 : 1); slot++)
				if (kind != X86_RNN || (g->values[g->nodes[n].in[slot]].is_const &&
				                        !g->values[g->nodes[n].in[slot]].packed &&
				                        g->values[g->nodes[n].in[slot]].type.dtype == DT_F32))
					g->nodes[n].in[slot] = packed_copy(g, n, kind, slot, &ref, width, nv * isa->lanes,
					                                   INGOT_X86_RNN_NV * isa->lanes, isa->lanes, &memo);
		}
	free(memo.items);
	return 0;
}
