/* random.h — reference kernels of the random ops: RandomUniform(Like),
 * RandomNormal(Like), Bernoulli, Multinomial and training-mode Dropout.
 *
 * Generator: Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as
 * 1, 2, 3", SC 2011), a counter-based generator: block b of a node's stream is
 * philox(counter = {b_lo, b_hi, stream, run_lo}, key = {key_lo, key_hi ^ run_hi}),
 * four 32-bit words. Element i uses block i / 2, words 2 (i % 2) and 2 (i % 2) + 1
 * as one 64-bit word, so any split of the elements over tasks gives the same values.
 *   - seeded node (the `seed` attribute): key = {bits of the float seed, 0x6a09e667},
 *     stream 0, run 0: the same output on every run and in every workspace;
 *   - unseeded node: key = the workspace's 64-bit seed, stream = the node's index + 1,
 *     run = the workspace's run count, which NAME_run advances before the graph runs.
 * The workspace state (INGOT_RNG_STATE_BYTES at NAME's documented offset) is
 * {INGOT_RNG_MAGIC, seed, runs} as uint64_t; a workspace without the magic starts
 * from seed 0, run 1 (see ingot_rng_begin). Codegen passes it as in[rng_slot].
 *
 * Conversions: u = top m bits of the word * 2^-m (m = 53 for f64 and for
 * probabilities, 24 f32, 11 f16, 8 bf16), so u is in [0, 1) and exact in the dtype;
 * normals by Box-Muller from two 53-bit uniforms (u1 in (0, 1]).
 */
#ifndef INGOT_KERNELS_RANDOM_H
#define INGOT_KERNELS_RANDOM_H

#include "ingot_rt.h"

#define INGOT_RNG_STATE_BYTES 64
#define INGOT_RNG_MAGIC 0x676e722d746f676eull   /* "ingot-rng" marker */

/* Philox4x32-10 of ctr under key (exposed for the known-answer test). */
INGOT_KERNEL void ingot_philox4x32(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);
/* Called by NAME_run before the graph: starts a fresh state if the magic is missing,
 * then counts this run. state: INGOT_RNG_STATE_BYTES, 8-byte aligned. */
INGOT_KERNEL void ingot_rng_begin(void *state);
/* Resets the state to seed, run 0 (NAME_seed). */
INGOT_KERNEL void ingot_rng_seed(void *state, uint64_t seed);

/* Kinds of ingot_random. */
enum { INGOT_RAND_UNIFORM = 0, INGOT_RAND_NORMAL = 1, INGOT_RAND_BERNOULLI = 2,
       INGOT_RAND_MULTINOMIAL = 3 };

/* out[0] Y (dtype, n elements). UNIFORM: a + (b - a) u; NORMAL: a + b z (a mean, b
 * scale); BERNOULLI: in[0] P (in_dtype, n elements), y = u < p ? 1 : 0;
 * MULTINOMIAL: in[0] X [rows, classes] unnormalized log-probabilities (in_dtype),
 * Y [rows, samples] (i32 or i64) class indices drawn from softmax(x), scratch
 * `classes` doubles. in[rng_slot]: the workspace state (unused when seeded). Tasks
 * split the elements (rows for MULTINOMIAL). */
#define INGOT_RANDOM_FIELDS(F) F(I64, kind) F(I64, dtype) F(I64, in_dtype) F(I64, n) \
	F(I64, rows) F(I64, classes) F(I64, samples) F(I64, rng_slot) F(I64, seeded) \
	F(I64, seed_bits) F(I64, stream) F(F64, a) F(F64, b)
INGOT_PARAMS(ingot_random_params, INGOT_RANDOM_FIELDS)

/* Dropout in training mode. in[0] X (dtype, n elements), in[1] ratio (ratio_dtype,
 * scalar; NULL or n_in < 2: `ratio`), in[2] training_mode (bool scalar; NULL or
 * n_in < 3: `training`),
 * out[0] Y = mask ? x / (1 - ratio) : 0, out[1] mask (mask_dtype; when has_mask)
 * with mask = u >= ratio. When not training, or ratio is 0: Y = X and mask all 1.
 * A ratio outside [0, 1) gives INGOT_EINVAL. Tasks split the elements. */
#define INGOT_DROPOUT_FIELDS(F) F(I64, dtype) F(I64, mask_dtype) F(I64, ratio_dtype) \
	F(I64, n) F(I64, n_in) F(I64, has_mask) F(I64, training) F(I64, rng_slot) F(I64, seeded) F(I64, seed_bits) \
	F(I64, stream) F(F64, ratio)
INGOT_PARAMS(ingot_dropout_params, INGOT_DROPOUT_FIELDS)

INGOT_KERNEL int ingot_random(const void *params, const void *const *in, void *const *out,
                              void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_dropout(const void *params, const void *const *in, void *const *out,
                               void *scratch, int task, int n_tasks);

#endif
