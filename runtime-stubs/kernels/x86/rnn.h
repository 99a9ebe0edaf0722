/* x86/rnn.h — x86 (AVX2, AVX-512) kernel of f32 RNN, GRU and LSTM for the x86
 * targets, with the reference kernel's slots and semantics (rnn.h) plus one field:
 * `packed`, which says which constant operands the compiler pre-packed:
 *   bit 0: W, per direction, as the GEMM driver's B panels (sgemm.h: W^T is the
 *          input x gates*hidden B, panels of UK_NR columns);
 *   bit 1: R, per direction, in the recurrent layout below (panels of r_nb
 *          columns); without it the kernel packs R into its scratch per call.
 * The field list repeats the reference one (a model directory holds only the
 * kernel families it uses); codegen/x86/lower.c checks at build time that the
 * layouts and the activation codes agree. */
#ifndef INGOT_KERNELS_X86_RNN_H
#define INGOT_KERNELS_X86_RNN_H

#include "ingot_rt.h"

/* = the INGOT_RNN_* kinds and activation codes of rnn.h */
enum { INGOT_X86_RNN_SIMPLE, INGOT_X86_RNN_GRU, INGOT_X86_RNN_LSTM };
enum {
	INGOT_X86_RNN_RELU = 1, INGOT_X86_RNN_TANH, INGOT_X86_RNN_SIGMOID, INGOT_X86_RNN_AFFINE,
	INGOT_X86_RNN_LEAKY_RELU, INGOT_X86_RNN_THRESHOLDED_RELU, INGOT_X86_RNN_SCALED_TANH,
	INGOT_X86_RNN_HARD_SIGMOID, INGOT_X86_RNN_ELU, INGOT_X86_RNN_SOFTSIGN, INGOT_X86_RNN_SOFTPLUS
};

/* Whether this kernel computes activation `act` (the others, Elu and Softplus, need
 * a vector log or exp-minus-one it does not have: such nodes keep the reference). */
static inline int ingot_x86_rnn_act_ok(int64_t act)
{
	return act >= INGOT_X86_RNN_RELU && act <= INGOT_X86_RNN_SOFTSIGN && act != INGOT_X86_RNN_ELU;
}

/* = INGOT_RNN_FIELDS (rnn.h) + packed (bits above) + r_nb (the recurrent panel
 * width R was packed with: INGOT_X86_RNN_NV vectors) */
#define INGOT_X86_RNN_FIELDS(F) F(I64, kind) F(I64, dtype) F(I64, seq) F(I64, batch) \
	F(I64, input) F(I64, hidden) F(I64, dirs) F(I64, reverse) F(I64, layout) F(I64, has_b) \
	F(I64, has_lens) F(I64, has_h0) F(I64, has_c0) F(I64, has_p) F(I64, n_out) \
	F(I64, input_forget) F(I64, linear_before_reset) F(I64, has_clip) F(F32, clip) \
	F(I64, per_dir) F(DIMS, acts) F(F32, a0) F(F32, a1) F(F32, a2) F(F32, a3) F(F32, a4) \
	F(F32, a5) F(F32, b0) F(F32, b1) F(F32, b2) F(F32, b3) F(F32, b4) F(F32, b5) \
	F(I64, packed) F(I64, r_nb)
INGOT_PARAMS(ingot_x86_rnn_params, INGOT_X86_RNN_FIELDS)

/* Gates per direction: rows of W and R per hidden unit. */
static inline int64_t ingot_x86_rnn_gates(int64_t kind)
{
	return kind == INGOT_X86_RNN_LSTM ? 4 : kind == INGOT_X86_RNN_GRU ? 3 : 1;
}

/* Vectors per recurrent panel: the step's matvec keeps this many accumulators. */
#define INGOT_X86_RNN_NV 8

/* The recurrent layout of one direction's R (gates*hidden rows of `hidden`): the
 * step computes gates[j] += sum_k h[k] * R[j][k] by broadcasting h[k] over a panel
 * of nb consecutive rows j, so a panel stores R^T: p[k * w + i] = R[j0 + i][k]
 * (w = nb, or fewer for the last panel of a segment). The rows are split into
 * segments packed one after another, each into its own panels, because a GRU step
 * multiplies the z and r rows by the state before the h rows: GRU segments are
 * rows [0, 2 * hidden) and [2 * hidden, 3 * hidden), the others one segment. */
static inline int64_t ingot_x86_rnn_split(int64_t kind, int64_t hidden)
{
	return (kind == INGOT_X86_RNN_GRU ? 2 : ingot_x86_rnn_gates(kind)) * hidden;
}

static inline void ingot_x86_rnn_pack_r(const float *r, int64_t kind, int64_t hidden, int64_t nb,
                                        float *dst)
{
	const int64_t rows = ingot_x86_rnn_gates(kind) * hidden;
	const int64_t split = ingot_x86_rnn_split(kind, hidden);
	int64_t w;
	for (int64_t j0 = 0; j0 < rows; j0 += w) {
		const int64_t end = j0 < split ? split : rows;
		w = end - j0 < nb ? end - j0 : nb;
		for (int64_t k = 0; k < hidden; k++)
			for (int64_t i = 0; i < w; i++)
				dst[j0 * hidden + k * w + i] = r[(j0 + i) * hidden + k];
	}
}

/* Scratch bytes: the input projections of every step and direction (dirs x seq x
 * batch x gates*hidden), one direction's R packed when `packed` lacks bit 1, and one recurrence's
 * state, cell, gates and a temporary row. */
static inline int64_t ingot_x86_rnn_scratch_bytes(const ingot_x86_rnn_params *p)
{
	const int64_t gh = ingot_x86_rnn_gates(p->kind) * p->hidden;
	const int64_t rp = p->packed & 2 ? 0 : gh * p->hidden;
	return (int64_t)sizeof(float) * (p->dirs * p->seq * p->batch * gh + rp + 3 * p->hidden + gh);
}

/* Not split across tasks (task 0 does it). The input projection is one GEMM per
 * direction (the GEMM driver of sgemm.c) with W's bias in its epilogue; each step
 * is a vector matvec against the packed R and vector gate activations (sigmoid
 * and tanh of eltwise.c, with their stated ulp bounds). Sums are reordered against
 * the reference and run in f32, so results differ from it by rounding. */
INGOT_KERNEL int ingot_x86_rnn(const void *params, const void *const *in, void *const *out,
                               void *scratch, int task, int n_tasks);

#endif /* INGOT_KERNELS_X86_RNN_H */
