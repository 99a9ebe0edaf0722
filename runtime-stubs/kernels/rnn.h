/* rnn.h — reference kernels of the recurrent layers: RNN, GRU and LSTM (every ONNX
 * attribute: directions, activations with alpha/beta, clip, sequence_lens, initial
 * states, peepholes, input_forget, linear_before_reset, both layouts) over f32,
 * f64, f16 and bf16. The state and gates live in double in the kernel's scratch.
 * And LinearAttention's recurrence (opset 27), below.
 */
#ifndef INGOT_KERNELS_RNN_H
#define INGOT_KERNELS_RNN_H

#include "ingot_rt.h"

/* Values of the `kind` field; the gate order of W, R and B follows ONNX. */
#define INGOT_RNN_SIMPLE 0   /* one gate (i) */
#define INGOT_RNN_GRU    1   /* z, r, h */
#define INGOT_RNN_LSTM   2   /* i, o, f, c; peepholes P in order i, o, f */

/* Activation functions (values of acts[]). */
#define INGOT_RNN_RELU 1
#define INGOT_RNN_TANH 2
#define INGOT_RNN_SIGMOID 3
#define INGOT_RNN_AFFINE 4            /* alpha * x + beta */
#define INGOT_RNN_LEAKY_RELU 5        /* x < 0 ? alpha * x : x */
#define INGOT_RNN_THRESHOLDED_RELU 6  /* x > alpha ? x : 0 */
#define INGOT_RNN_SCALED_TANH 7       /* alpha * tanh(beta * x) */
#define INGOT_RNN_HARD_SIGMOID 8      /* max(0, min(1, alpha * x + beta)) */
#define INGOT_RNN_ELU 9               /* x < 0 ? alpha * (exp(x) - 1) : x */
#define INGOT_RNN_SOFTSIGN 10
#define INGOT_RNN_SOFTPLUS 11

/* in: X, W, R, B (has_b), sequence_lens (has_lens, i32), initial_h (has_h0),
 * initial_c (has_c0), P (has_p), in ONNX slot order (in[] may end early; flags tell
 * what is there). out: Y, Y_h, Y_c; an output is written when its pointer is not
 * NULL and its slot is below n_out. layout 0: X (seq, batch, input), Y (seq, dirs,
 * batch, hidden), states (dirs, batch, hidden); layout 1: X (batch, seq, input), Y
 * (batch, seq, dirs, hidden), states (batch, dirs, hidden).
 * dirs 2 runs forward (direction 0) and reverse (1); with dirs 1, `reverse` picks
 * the direction. acts[d * per_dir + k] with alpha/beta aK/bK is direction d's k-th
 * activation (RNN f; GRU f, g; LSTM f, g, h). Pre-activations are clipped to
 * [-clip, clip] when has_clip. Steps at or past a batch entry's length give zeros
 * in Y, and Y_h / Y_c hold the state after its last step (the initial state for
 * length 0); a length outside [0, seq] returns INGOT_ERANGE before any write.
 * scratch: ingot_rnn_scratch_bytes(). Not split across tasks (task 0 does it). */
#define INGOT_RNN_FIELDS(F) F(I64, kind) F(I64, dtype) F(I64, seq) F(I64, batch) \
	F(I64, input) F(I64, hidden) F(I64, dirs) F(I64, reverse) F(I64, layout) F(I64, has_b) \
	F(I64, has_lens) F(I64, has_h0) F(I64, has_c0) F(I64, has_p) F(I64, n_out) \
	F(I64, input_forget) F(I64, linear_before_reset) F(I64, has_clip) F(F32, clip) \
	F(I64, per_dir) F(DIMS, acts) F(F32, a0) F(F32, a1) F(F32, a2) F(F32, a3) F(F32, a4) \
	F(F32, a5) F(F32, b0) F(F32, b1) F(F32, b2) F(F32, b3) F(F32, b4) F(F32, b5)
INGOT_PARAMS(ingot_rnn_params, INGOT_RNN_FIELDS)

/* Scratch bytes the kernel needs: the state, cell, gates and one input row in double. */
static inline INGOT_UNUSED int64_t ingot_rnn_scratch_bytes(int64_t gates, int64_t input,
                                                           int64_t hidden)
{
	return (int64_t)sizeof(double) * ((3 + gates) * hidden + input);
}

INGOT_KERNEL int ingot_rnn(const void *params, const void *const *in, void *const *out,
                           void *scratch, int task, int n_tasks);

/* LinearAttention (opset 27): for every batch entry b and kv head h, the recurrent
 * state S (dk x dv, past_state's (b, h) block or zeros) runs over the steps t:
 *     S *= exp(g_t)                       (gating; g per head or per key dim)
 *     u  = beta_t * (v_t - S^T (e_t k_t)) (delta; e_t the erase gate or 1), else v_t
 *     S += k_t u^T
 *     o_t[hq] = scale * q_t[hq]^T S       (each query head hq with hq / rep == h)
 * in: query (batch, seq, q_heads * dk), key (batch, seq, kv_heads * dk), value (batch,
 * seq, kv_heads * dv), past_state (batch, kv_heads, dk, dv; has_past), decay (batch,
 * seq, kv_heads or kv_heads * dk: decay_per_key; gating), beta (batch, seq, kv_heads or
 * 1: beta_shared; delta), erase_gate (batch, seq, kv_heads * dk; has_erase), all of
 * `dtype` (f32, f64, f16, bf16), in ONNX slot order (absent slots NULL). out: output
 * (batch, seq, q_heads * dv), present_state (when not NULL and n_out > 1). S lives in
 * double in the scratch (ingot_linear_attention_scratch_bytes). Not split across tasks
 * (task 0 does it). */
#define INGOT_LINEAR_ATTENTION_FIELDS(F) F(I64, dtype) F(I64, batch) F(I64, seq) \
	F(I64, q_heads) F(I64, kv_heads) F(I64, dk) F(I64, dv) F(I64, gating) F(I64, delta) \
	F(I64, decay_per_key) F(I64, beta_shared) F(I64, has_past) F(I64, has_erase) \
	F(I64, n_out) F(F64, scale)
INGOT_PARAMS(ingot_linear_attention_params, INGOT_LINEAR_ATTENTION_FIELDS)

/* Scratch bytes: the state, one value row and one erased key row in double. */
static inline INGOT_UNUSED int64_t ingot_linear_attention_scratch_bytes(int64_t dk, int64_t dv)
{
	return (int64_t)sizeof(double) * (dk * dv + dv + dk);
}

INGOT_KERNEL int ingot_linear_attention(const void *params, const void *const *in,
                                        void *const *out, void *scratch, int task, int n_tasks);

#endif /* INGOT_KERNELS_RNN_H */
