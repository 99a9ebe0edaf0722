/* indexing.h — reference kernels of the index-driven ops: GatherElements, GatherND,
 * ScatterElements (and Scatter), ScatterND, Compress, NonZero, Unique,
 * ReverseSequence, ArgMax/ArgMin, TopK and TfIdfVectorizer (DepthToSpace and
 * SpaceToDepth lower to ingot_strided_copy of shape.h).
 *
 * Index inputs are int32 or int64 (`idx_size` 4 or 8 bytes); negative indices count
 * from the end. Every task validates every index before anything is written, so an
 * index out of range returns INGOT_ERANGE with the outputs untouched.
 *
 * Data-dependent output sizes: when an output's size depends on run-time values
 * (Compress with a run-time condition, NonZero, Unique), the compiler gives it the
 * static upper bound and passes `dims_slot` = the out[] slot of an int64_t
 * [INGOT_MAX_RANK] array where the kernel writes the actual dims (-1: the output's
 * shape is static and no such array exists). The data is always written densely,
 * row-major in the actual dims, from the start of the buffer.
 */
#ifndef INGOT_KERNELS_INDEXING_H
#define INGOT_KERNELS_INDEXING_H

#include "ingot_rt.h"

/* ScatterElements / ScatterND `reduction` values */
enum {
	INGOT_SCATTER_NONE = 0, INGOT_SCATTER_ADD = 1, INGOT_SCATTER_MUL = 2,
	INGOT_SCATTER_MAX = 3, INGOT_SCATTER_MIN = 4
};

/* GatherElements: out (shape idims) [i] = data[i with coordinate `axis` replaced by
 * indices[i]]; data has shape dims, both of rank `rank` (idims[k] <= dims[k] off the
 * axis). in[0] data, in[1] indices; elements of esize bytes. */
#define INGOT_GATHER_ELEMENTS_FIELDS(F) \
	F(I64, esize) F(I64, idx_size) F(I64, rank) F(I64, axis) F(DIMS, dims) F(DIMS, idims)
INGOT_PARAMS(ingot_gather_elements_params, INGOT_GATHER_ELEMENTS_FIELDS)
INGOT_KERNEL int ingot_gather_elements(const void *params, const void *const *in,
                                       void *const *out, void *scratch, int task, int n_tasks);

/* GatherND: n_batch batches; in each, n_tuples index tuples of m entries address
 * dims[0..m) of the batch's data (batch_stride elements) and copy a slice of `slice`
 * elements. in[0] data, in[1] indices; out = [n_batch, n_tuples, slice]. */
#define INGOT_GATHER_ND_FIELDS(F) \
	F(I64, esize) F(I64, idx_size) F(I64, n_batch) F(I64, n_tuples) F(I64, m) \
	F(DIMS, dims) F(I64, slice) F(I64, batch_stride)
INGOT_PARAMS(ingot_gather_nd_params, INGOT_GATHER_ND_FIELDS)
INGOT_KERNEL int ingot_gather_nd(const void *params, const void *const *in, void *const *out,
                                 void *scratch, int task, int n_tasks);

/* ScatterElements: out = data, then for every element i of updates (shape idims),
 * out[i with coordinate `axis` replaced by indices[i]] (op)= updates[i], in order.
 * dtype matters only for a reduction. in[0] data (shape dims), in[1] indices,
 * in[2] updates. Work splits over output elements; each task applies the updates
 * landing in its share, in index order. */
#define INGOT_SCATTER_ELEMENTS_FIELDS(F) \
	F(I64, dtype) F(I64, esize) F(I64, idx_size) F(I64, rank) F(I64, axis) \
	F(I64, reduction) F(DIMS, dims) F(DIMS, idims)
INGOT_PARAMS(ingot_scatter_elements_params, INGOT_SCATTER_ELEMENTS_FIELDS)
INGOT_KERNEL int ingot_scatter_elements(const void *params, const void *const *in,
                                        void *const *out, void *scratch, int task, int n_tasks);

/* ScatterND: out = data (n_data elements), then each of the n_upd index tuples (m
 * entries addressing dims[0..m)) receives a slice of `slice` elements of updates. */
#define INGOT_SCATTER_ND_FIELDS(F) \
	F(I64, dtype) F(I64, esize) F(I64, idx_size) F(I64, n_upd) F(I64, m) F(DIMS, dims) \
	F(I64, slice) F(I64, n_data) F(I64, reduction)
INGOT_PARAMS(ingot_scatter_nd_params, INGOT_SCATTER_ND_FIELDS)
INGOT_KERNEL int ingot_scatter_nd(const void *params, const void *const *in, void *const *out,
                                  void *scratch, int task, int n_tasks);

/* Compress: input is [outer, axis_dim, inner]; the first n_cond (<= axis_dim) entries
 * of the bool condition in[1] select rows along the middle axis. The output has
 * rank `rank` and dims `dims` with dims[axis_out] = the number selected (reported
 * through dims_slot when dynamic). */
#define INGOT_COMPRESS_FIELDS(F) \
	F(I64, esize) F(I64, outer) F(I64, axis_dim) F(I64, inner) F(I64, n_cond) \
	F(I64, rank) F(DIMS, dims) F(I64, axis_out) F(I64, dims_slot)
INGOT_PARAMS(ingot_compress_params, INGOT_COMPRESS_FIELDS)
INGOT_KERNEL int ingot_compress(const void *params, const void *const *in, void *const *out,
                                void *scratch, int task, int n_tasks);

/* NonZero: out = int64 [rank, nnz], the coordinates of the non-zero elements of the
 * input (shape dims, dtype `dtype`; NaN counts as non-zero, -0.0 as zero). A scalar
 * counts as shape [1]. */
#define INGOT_NONZERO_FIELDS(F) F(I64, dtype) F(I64, rank) F(DIMS, dims) F(I64, dims_slot)
INGOT_PARAMS(ingot_nonzero_params, INGOT_NONZERO_FIELDS)
INGOT_KERNEL int ingot_nonzero(const void *params, const void *const *in, void *const *out,
                               void *scratch, int task, int n_tasks);

/* Unique over n items: the input is [outer, n, inner] and item i is the [outer, inner]
 * sub-tensor at i (one element each without an axis: outer = inner = 1). Items
 * compare element-wise in order (numpy's lexicographic order; NaNs equal each other
 * and sort last). Outputs (present when slot < n_out and non-NULL): out[0] Y
 * [outer, n_unique, inner], out[1] indices, out[2] inverse_indices (n), out[3]
 * counts, all int64. `sorted` 0 keeps the order of first occurrence. dims_slot[k]
 * for outputs 0, 1, 3 (-1 when static). Scratch: 4 * n int64. */
#define INGOT_UNIQUE_FIELDS(F) \
	F(I64, dtype) F(I64, outer) F(I64, n) F(I64, inner) F(I64, sorted) F(I64, n_out) \
	F(I64, y_rank) F(I64, y_axis) F(DIMS, y_dims) F(DIMS, dims_slot)
INGOT_PARAMS(ingot_unique_params, INGOT_UNIQUE_FIELDS)
INGOT_KERNEL int ingot_unique(const void *params, const void *const *in, void *const *out,
                              void *scratch, int task, int n_tasks);

/* ReverseSequence: input [n_time, n_batch, inner] (time_axis 0) or [n_batch, n_time,
 * inner] (time_axis 1); for batch b the first sequence_lens[b] steps are reversed,
 * the rest copied. in[1] = sequence_lens (idx_size bytes each, in [0, n_time]). */
#define INGOT_REVERSE_SEQUENCE_FIELDS(F) \
	F(I64, esize) F(I64, idx_size) F(I64, time_axis) F(I64, n_time) F(I64, n_batch) \
	F(I64, inner)
INGOT_PARAMS(ingot_reverse_sequence_params, INGOT_REVERSE_SEQUENCE_FIELDS)
INGOT_KERNEL int ingot_reverse_sequence(const void *params, const void *const *in,
                                        void *const *out, void *scratch, int task, int n_tasks);

/* ArgMax (is_min 0) / ArgMin (1) over the middle axis of [outer, n, inner] (n >= 1):
 * out = int64 [outer, inner]. Ties give the first index, or the last when `last`;
 * NaN wins over any number (numpy). */
#define INGOT_ARG_FIELDS(F) \
	F(I64, dtype) F(I64, outer) F(I64, n) F(I64, inner) F(I64, is_min) F(I64, last)
INGOT_PARAMS(ingot_arg_params, INGOT_ARG_FIELDS)
INGOT_KERNEL int ingot_arg(const void *params, const void *const *in, void *const *out,
                           void *scratch, int task, int n_tasks);

/* TopK along the middle axis of [outer, n, inner]: out[0] values and out[1] int64
 * indices, both [outer, k, inner], sorted best first (largest or smallest); equal
 * values keep the lower index first; NaN counts as larger than any number. */
#define INGOT_TOPK_FIELDS(F) \
	F(I64, dtype) F(I64, outer) F(I64, n) F(I64, inner) F(I64, k) F(I64, largest)
INGOT_PARAMS(ingot_topk_params, INGOT_TOPK_FIELDS)
INGOT_KERNEL int ingot_topk(const void *params, const void *const *in, void *const *out,
                            void *scratch, int task, int n_tasks);

/* TfIdfVectorizer over n_rows rows of n_cols integers (in[0], idx_size bytes each).
 * in[1] is the compiled pool, int64, n_table entries: out_size weights (f32 bits,
 * 1.0 when the model has none; weight c applies to output column c, as ONNX Runtime
 * and the ONNX reference do), then per n-gram {length, output column, items...}
 * with lengths in [min_n, max_n]. out = float [n_rows, out_size]. mode 0 TF
 * (counts), 1 IDF (weight if seen), 2 TFIDF (count * weight). */
enum { INGOT_TFIDF_TF = 0, INGOT_TFIDF_IDF = 1, INGOT_TFIDF_TFIDF = 2 };
#define INGOT_TFIDF_FIELDS(F) \
	F(I64, idx_size) F(I64, n_rows) F(I64, n_cols) F(I64, out_size) F(I64, min_n) \
	F(I64, max_n) F(I64, max_skip) F(I64, mode) F(I64, n_table)
INGOT_PARAMS(ingot_tfidf_params, INGOT_TFIDF_FIELDS)
INGOT_KERNEL int ingot_tfidf(const void *params, const void *const *in, void *const *out,
                             void *scratch, int task, int n_tasks);

/* TensorScatter (opset 24), a KV-cache update: out[0] = in[0] (past, [batch, mid,
 * max_seq, inner] viewed so, elements of esize bytes) with, for every batch b, mid m
 * and j < seq, row (b, m, w_b + j) replaced by in[1]'s (update, [batch, mid, seq,
 * inner]) row (b, m, j); w_b = in[2][b] (int64 write indices, when has_idx; else 0).
 * Linear mode needs 0 <= w_b and w_b + seq <= max_seq, circular takes (w_b + j) mod
 * max_seq; an index outside returns INGOT_ERANGE with out[0] a copy of past. Not
 * split across tasks (task 0 does it). */
#define INGOT_TENSOR_SCATTER_FIELDS(F) F(I64, esize) F(I64, batch) F(I64, mid) \
	F(I64, max_seq) F(I64, seq) F(I64, inner) F(I64, has_idx) F(I64, circular)
INGOT_PARAMS(ingot_tensor_scatter_params, INGOT_TENSOR_SCATTER_FIELDS)
INGOT_KERNEL int ingot_tensor_scatter(const void *params, const void *const *in,
                                      void *const *out, void *scratch, int task, int n_tasks);

#endif
