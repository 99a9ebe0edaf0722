/* loss.h — reference kernels of the losses (NegativeLogLikelihoodLoss,
 * SoftmaxCrossEntropyLoss) and of the ai.onnx.preview.training optimizers
 * (Adagrad, Adam, Momentum). Float data is f32, f64, f16 or bf16; the math runs
 * in double, so sums over large batches stay exact enough.
 */
#ifndef INGOT_KERNELS_LOSS_H
#define INGOT_KERNELS_LOSS_H

#include "ingot_rt.h"

/* Values of the `reduction` field. */
#define INGOT_LOSS_NONE 0
#define INGOT_LOSS_SUM  1
#define INGOT_LOSS_MEAN 2

/* in[0] scores (N, C, D...) of dtype, in[1] labels (N, D...) of label_dtype (i32/i64),
 * in[2] weights (C) when has_weight (in[] may end before slot 2 otherwise).
 * out[0] loss (NULL: not wanted): (N, D...) for INGOT_LOSS_NONE, else a scalar; out[1] log_prob (as
 * scores) when has_log_prob. n, c, d: N, C and the product of the D dims.
 * softmax: 1 for SoftmaxCrossEntropyLoss (log-softmax over C first), 0 for NLL.
 * loss = -w[label] * score[label]; mean divides the sum by the sum of the weights used.
 * A label equal to ignore_index (has_ii) weighs 0; any other label outside [0, C)
 * returns INGOT_ERANGE before anything is written. Not split across tasks (task 0 does it). */
#define INGOT_NLL_FIELDS(F) F(I64, dtype) F(I64, label_dtype) F(I64, softmax) \
	F(I64, reduction) F(I64, n) F(I64, c) F(I64, d) F(I64, has_weight) F(I64, has_ii) \
	F(I64, ignore_index) F(I64, has_log_prob)
INGOT_PARAMS(ingot_nll_params, INGOT_NLL_FIELDS)

INGOT_KERNEL int ingot_nll(const void *params, const void *const *in, void *const *out,
                           void *scratch, int task, int n_tasks);

/* Values of the `algo` field. */
#define INGOT_OPTIM_ADAGRAD  0
#define INGOT_OPTIM_MOMENTUM 1
#define INGOT_OPTIM_NESTEROV 2
#define INGOT_OPTIM_ADAM     3

/* in[0] R (scalar learning rate, r_dtype f32/f64), in[1] T (scalar i64 step count),
 * then n tensors X, n gradients G and n accumulators per state (Adagrad: H;
 * Momentum: V; Adam: V then H), all of dtype (f32/f64). out: n X_new, then the n new
 * accumulators per state in the same order; a NULL output, or one at or past n_out
 * (out[] may end early), is skipped. numel[i]:
 * elements of tensor i (n <= 16). Attributes as in the ONNX spec. Elementwise, and
 * each element is read before it is written, so an output may alias its input. */
#define INGOT_OPTIM_FIELDS(F) F(I64, algo) F(I64, dtype) F(I64, r_dtype) F(I64, n) F(I64, n_out) \
	F(F32, alpha) F(F32, beta) F(F32, epsilon) F(F32, decay_factor) \
	F(F32, norm_coefficient) F(F32, norm_coefficient_post) F(PADS, numel)
INGOT_PARAMS(ingot_optim_params, INGOT_OPTIM_FIELDS)

INGOT_KERNEL int ingot_optim(const void *params, const void *const *in, void *const *out,
                             void *scratch, int task, int n_tasks);

#endif /* INGOT_KERNELS_LOSS_H */
