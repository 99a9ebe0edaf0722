/* lower.c — the OpenCL target's lowering: which nodes have a device kernel (the
 * predicate placement asks, after the op table's OPF_DEVICE), and a device node as
 * one kernel launch. A device kernel takes the very parameter struct the node's
 * reference lowering fills, so the two agree on every attribute by construction;
 * this file only picks the kernel and its NDRange. */
#include "opencl_target.h"

#include "conv.h"
#include "elementwise.h"
#include "ewtable.h"
#include "fused.h"
#include "image.h"
#include "linalg.h"
#include "norm.h"
#include "pool.h"
#include "reduce.h"
#include "shape.h"

#include <stdlib.h>
#include <string.h>

/* ingot_unary codes of the float functions (ewtable.h's rows with a float form) */
static bool float_unary(int64_t op)
{
#define FLOAT_CASE(N, On, fn, R, U, A, PAR, S, V) INGOT_EW_IF_FLOAT_##R(case U:)
	switch (op) {
	INGOT_EW_TABLE(FLOAT_CASE)
		return true;
	default:
		return false;
	}
#undef FLOAT_CASE
}

static bool float_binary(const ingot_binary_params *p)
{
	switch (p->op) {
	case INGOT_EW_ADD: case INGOT_EW_SUB: case INGOT_EW_MUL: case INGOT_EW_DIV:
	case INGOT_EW_POW: case INGOT_EW_MAX: case INGOT_EW_MIN:
		return p->dtype_a == INGOT_DT_F32 && p->dtype_b == INGOT_DT_F32 &&
		       p->dtype_out == INGOT_DT_F32;
	default:
		return false;
	}
}

/* the most tap combinations one Resize output element may sum (an antialiased
 * downscale has many per axis) */
#define RESIZE_MAX_TAPS 4096
#define OCL_STR2(x) #x
#define OCL_STR(x) OCL_STR2(x)

static int64_t round_up(int64_t v, int64_t m)
{
	return v <= 0 ? m : (v + m - 1) / m * m;
}

static void set_1d(OclCall *oc, int64_t n)
{
	oc->dims = 1;
	oc->gws[0] = n > 0 ? n : 1;   /* an empty tensor: one item that writes nothing */
	oc->gws[1] = oc->gws[2] = 1;
}

/* A GEMM-shaped launch: columns x rows x batches in tile-sized work-groups. */
static void set_tiled(OclCall *oc, int tile, int64_t cols, int64_t rows, int64_t batch)
{
	oc->dims = 3;
	oc->gws[0] = round_up(cols, tile);
	oc->gws[1] = round_up(rows, tile);
	oc->gws[2] = batch > 0 ? batch : 1;
	oc->lws[0] = oc->lws[1] = tile;
	oc->lws[2] = 1;
}

/* Whether a Conv is a plain 1x1 product: unit strides, no pads, one group. */
static bool conv_1x1(const ingot_conv_params *p)
{
	return p->group == 1 && p->w_dims[2] == 1 && p->w_dims[3] == 1 && p->strides[0] == 1 &&
	       p->strides[1] == 1 && p->y_dims[2] == p->x_dims[2] && p->y_dims[3] == p->x_dims[3] &&
	       p->pads[0] == 0 && p->pads[1] == 0;
}

/* Picks the kernel of a reference call; false (why set) when there is none. */
static bool pick(const Target *t, const Graph *g, NodeId id, OclCall *oc, const char **why)
{
	const KernelCall *kc = &oc->ref;
	const char *fn = kc->fn_name;
	const Node *n = &g->nodes[id];
	int tile = t->cl_tile > 0 ? t->cl_tile : 16;
	*why = "no OpenCL kernel for this form";
	if (strcmp(fn, "ingot_unary") == 0) {
		const ingot_unary_params *p = kc->params;
		if (p->dtype != INGOT_DT_F32 || !float_unary(p->op))
			return false;
		oc->kernel = "ingot_cl_unary";
		oc->n_slots = 1;
		set_1d(oc, p->n);
	} else if (strcmp(fn, "ingot_binary") == 0) {
		const ingot_binary_params *p = kc->params;
		if (!float_binary(p))
			return false;
		oc->kernel = "ingot_cl_binary";
		oc->n_slots = 2;
		set_1d(oc, p->n);
	} else if (strcmp(fn, "ingot_fused_elementwise") == 0) {
		const ingot_fused_params *p = kc->params;
		oc->kernel = "ingot_cl_fused";
		oc->n_slots = INGOT_FE_MAX_IN;
		set_1d(oc, p->n);
	} else if (strcmp(fn, "ingot_matmul") == 0) {
		const ingot_matmul_params *p = kc->params;
		int64_t nbatch = 1;
		if (p->dtype != INGOT_DT_F32)
			return false;
		for (int d = 0; d < p->nb; d++)
			nbatch *= p->bdims[d];
		oc->kernel = "ingot_cl_matmul";
		oc->n_slots = 3;
		set_tiled(oc, tile, p->n, p->m, nbatch);
	} else if (strcmp(fn, "ingot_gemm") == 0) {
		const ingot_gemm_params *p = kc->params;
		if (p->dtype != INGOT_DT_F32)
			return false;
		oc->kernel = "ingot_cl_gemm";
		oc->n_slots = 4;
		set_tiled(oc, tile, p->n, p->m, 1);
	} else if (strcmp(fn, "ingot_conv") == 0) {
		const ingot_conv_params *p = kc->params;
		if (p->dtype != INGOT_DT_F32 || p->transposed || p->nsp != 2) {
			*why = "OpenCL runs f32 2-D Conv only (no ConvTranspose)";
			return false;
		}
		oc->n_slots = 4;
		if (conv_1x1(p)) {
			oc->kernel = "ingot_cl_conv1x1";
			set_tiled(oc, tile, p->y_dims[2] * p->y_dims[3], p->y_dims[1], p->y_dims[0]);
		} else {
			oc->kernel = "ingot_cl_conv";
			set_1d(oc, p->y_dims[0] * p->y_dims[1] * p->y_dims[2] * p->y_dims[3]);
		}
	} else if (strcmp(fn, "ingot_pool") == 0) {
		const ingot_pool_params *p = kc->params;
		if (p->dtype != INGOT_DT_F32 || p->nsp != 2 || p->has_indices ||
		    (p->kind != INGOT_POOL_MAX && p->kind != INGOT_POOL_AVG)) {
			*why = "OpenCL pools f32 2-D without indices only";
			return false;
		}
		oc->kernel = "ingot_cl_pool";
		oc->n_slots = 1;
		set_1d(oc, p->y_dims[0] * p->y_dims[1] * p->y_dims[2] * p->y_dims[3]);
	} else if (strcmp(fn, "ingot_global_pool") == 0) {
		const ingot_global_pool_params *p = kc->params;
		if (p->dtype != INGOT_DT_F32 || (p->kind != INGOT_POOL_MAX && p->kind != INGOT_POOL_AVG))
			return false;
		oc->kernel = "ingot_cl_global_pool";
		oc->n_slots = 1;
		set_1d(oc, p->planes);
	} else if (strcmp(fn, "ingot_softmax") == 0) {
		const ingot_softmax_params *p = kc->params;
		if (p->dtype != INGOT_DT_F32)
			return false;
		oc->kernel = "ingot_cl_softmax";
		oc->n_slots = 1;
		set_1d(oc, p->outer * p->inner);
	} else if (strcmp(fn, "ingot_layernorm") == 0) {
		const ingot_layernorm_params *p = kc->params;
		if (p->dtype != INGOT_DT_F32 || p->stash != INGOT_DT_F32 || p->nrank > INGOT_MAX_RANK) {
			*why = "OpenCL runs f32 LayerNormalization only";
			return false;
		}
		oc->kernel = "ingot_cl_layernorm";
		oc->n_slots = 3;
		oc->n_extra_out = 2;
		set_1d(oc, p->outer);
	} else if (strcmp(fn, "ingot_reduce") == 0) {
		const ingot_reduce_params *p = kc->params;
		int64_t n_out = 1;
		if (p->dtype != INGOT_DT_F32)
			return false;
		for (int d = 0; d < p->rank; d++)
			n_out *= (p->rmask >> d) & 1 ? 1 : p->dims[d];
		oc->kernel = "ingot_cl_reduce";
		oc->n_slots = 1;
		set_1d(oc, n_out);
	} else if (strcmp(fn, "ingot_strided_copy") == 0) {
		const ingot_strided_params *p = kc->params;
		int64_t numel = 1;
		if (p->esize != 4)
			return false;
		for (int d = 0; d < p->rank; d++)
			numel *= p->dims[d];
		oc->kernel = "ingot_cl_strided";
		oc->n_slots = 1;
		set_1d(oc, numel);
	} else if (strcmp(fn, "ingot_concat") == 0) {
		const ingot_concat_params *p = kc->params;
		int64_t row = 0;
		for (int k = 0; k < p->n; k++)
			row += cg_ocl_concat_bytes(p, k) / 4;
		oc->kernel = "ingot_cl_concat";
		oc->n_slots = INGOT_CL_CONCAT_SLOTS;
		set_1d(oc, p->outer * row);
	} else if (strcmp(fn, "ingot_gather") == 0) {
		const ingot_gather_params *p = kc->params;
		if (p->esize != 4 || (p->idx_size != 4 && p->idx_size != 8))
			return false;
		oc->kernel = "ingot_cl_gather";
		oc->n_slots = 2;
		oc->status = true;
		set_1d(oc, p->outer * p->n_idx * p->inner);
	} else if (strcmp(fn, "ingot_pad") == 0) {
		const ingot_pad_params *p = kc->params;
		int64_t numel = 1;
		if (p->esize != 4)
			return false;
		for (int d = 0; d < p->rank; d++)
			numel *= p->out_dims[d];
		oc->kernel = "ingot_cl_pad";
		oc->n_slots = 1;
		set_1d(oc, numel);
	} else if (strcmp(fn, "ingot_resize") == 0) {
		const ingot_resize_params *p = kc->params;
		int64_t numel = 1, combos = 1;
		bool ok = p->dtype == INGOT_DT_F32;
		for (int d = 0; d < p->rank; d++) {
			numel *= p->y_dims[d];
			combos *= p->taps[d] ? p->taps[d] : 1;
			ok &= p->x_dims[d] <= INT32_MAX && p->y_dims[d] * p->taps[d] <= INT32_MAX / 4;
		}
		if (!ok || combos > RESIZE_MAX_TAPS) {
			*why = "OpenCL resizes f32 with at most " OCL_STR(RESIZE_MAX_TAPS) " taps per output";
			return false;
		}
		oc->kernel = "ingot_cl_resize";
		oc->n_slots = 2;
		oc->table = true;
		set_1d(oc, numel);
	} else if (op_has(n->op, OPF_VIEW)) {
		oc->kernel = NULL;   /* an alias of its input, or one device-side copy */
		oc->n_slots = 1;
		set_1d(oc, 1);
	} else {
		return false;
	}
	return true;
}

int64_t cg_ocl_concat_bytes(const void *concat_params, int k)
{
	const ingot_concat_params *p = concat_params;
	return k < 16 ? p->row_bytes[k] : p->row_bytes_hi[k - 16];
}

uint32_t *cg_ocl_table(const OclCall *oc, int64_t *n_words)
{
	const ingot_resize_params *p = oc->ref.params;
	int64_t n = 1, at = 1;
	uint32_t *t;
	float ext = (float)p->extrapolation;
	for (int d = 0; d < p->rank; d++)
		n += 2 * p->y_dims[d] * p->taps[d];
	t = malloc((size_t)n * sizeof *t);
	if (!t)
		die("out of memory");
	memcpy(&t[0], &ext, 4);
	for (int d = 0; d < p->rank; d++) {
		int64_t k = p->y_dims[d] * p->taps[d];
		int64_t *idx;
		double *w;
		if (!k)
			continue;
		idx = malloc((size_t)k * sizeof *idx);
		w = malloc((size_t)k * sizeof *w);
		if (!idx || !w)
			die("out of memory");
		ingot_resize_taps(p, d, idx, w);
		for (int64_t j = 0; j < k; j++, at += 2) {
			int32_t i32 = (int32_t)idx[j];
			float f = (float)w[j];
			memcpy(&t[at], &i32, 4);
			memcpy(&t[at + 1], &f, 4);
		}
		free(idx);
		free(w);
	}
	*n_words = n;
	return t;
}

/* The ops whose kernels copy 4-byte elements as bits (int32 and uint32 too). */
static bool moves_bits(Op op)
{
	return op == OP_TRANSPOSE || op == OP_SLICE || op == OP_CONCAT || op == OP_GATHER || op == OP_PAD;
}

/* Every tensor the node reads at run time and writes is f32 (views' shape inputs
 * are constants; Gather's indices are int32 or int64; moves_bits ops take any 4-byte
 * element), and none has a data-dependent size. */
static bool f32_node(const Graph *g, NodeId id, const char **why)
{
	const Node *n = &g->nodes[id];
	if (moves_bits(n->op) && n->n_in > 0 && n->in[0] != IR_NONE && n->out[0] != IR_NONE) {
		DType dt = g->values[n->in[0]].type.dtype;
		bool four = dt == DT_F32 || dt == DT_I32 || dt == DT_U32;
		for (int k = 0; k < n->n_in && four; k++) {
			const Value *v = n->in[k] == IR_NONE ? NULL : &g->values[n->in[k]];
			four = !v || (!v->dynamic && (v->is_const || v->type.dtype == dt ||
			                              (n->op == OP_GATHER && k == 1 &&
			                               (v->type.dtype == DT_I32 || v->type.dtype == DT_I64))));
		}
		if (four && !g->values[n->out[0]].dynamic && g->values[n->out[0]].type.dtype == dt)
			return true;
	}
	for (int k = 0; k < n->n_in; k++) {
		const Value *v = n->in[k] == IR_NONE ? NULL : &g->values[n->in[k]];
		if (v && n->op == OP_GATHER && k == 1 && !v->dynamic &&
		    (v->type.dtype == DT_I32 || v->type.dtype == DT_I64))
			continue;
		if (v && (v->dynamic || (!v->is_const && v->type.dtype != DT_F32) ||
		          (k == 0 && v->type.dtype != DT_F32))) {
			*why = "OpenCL kernels take f32 tensors only";
			return false;
		}
	}
	for (int k = 0; k < n->n_out; k++)
		if (n->out[k] != IR_NONE &&
		    (g->values[n->out[k]].dynamic || g->values[n->out[k]].type.dtype != DT_F32)) {
			*why = "OpenCL kernels write f32 tensors only";
			return false;
		}
	return true;
}

int cg_ocl_call(const Target *t, Graph *g, NodeId n, OclCall *oc)
{
	const char *why;
	memset(oc, 0, sizeof *oc);
	if (!f32_node(g, n, &why) || cg_ref_lower(t, g, n, &oc->ref) || !pick(t, g, n, oc, &why))
		return -1;
	return 0;
}

bool cg_ocl_supported(const void *target, Graph *g, NodeId n, const char **why)
{
	OclCall oc;
	memset(&oc, 0, sizeof oc);
	if (!f32_node(g, n, why))
		return false;
	if (cg_ref_lower(target, g, n, &oc.ref)) {
		*why = "it has no kernel at all";
		return false;
	}
	return pick(target, g, n, &oc, why);
}

int cg_ocl_lower(const Target *t, Graph *g, NodeId n, KernelCall *kc)
{
	if (!g->nodes[n].device)
		return t->host->lower(t->host, g, n, kc);
	if (cg_ref_lower(t, g, n, kc))
		return -1;
	kc->scratch_bytes = 0;   /* device kernels use none */
	kc->split = false;
	return 0;
}

int cg_ocl_prepare(const Target *t, Graph *g)
{
	return t->host->prepare ? t->host->prepare(t->host, g) : 0;
}
