/* shape.h — reference kernels that only move bytes (reshape, transpose, slice,
 * concat, split, gather, pad, tile, expand) or write small computed tensors (shape,
 * size, constant-of-shape, range). The compiler resolves every shape question, so
 * the parameters are final dims, strides and offsets, in elements of `esize` bytes.
 */
#ifndef INGOT_KERNELS_SHAPE_H
#define INGOT_KERNELS_SHAPE_H

#include "ingot_rt.h"

/* Up to this many inputs (Concat) or outputs (Split) per node. */
#define INGOT_CONCAT_MAX 32

/* A plain copy of `bytes` bytes (Reshape, Flatten, Squeeze, Unsqueeze). */
#define INGOT_COPY_FIELDS(F) F(I64, bytes)
INGOT_PARAMS(ingot_copy_params, INGOT_COPY_FIELDS)
/* BranchError: the If branch the compiler could not shape at the model's dims (it
 * warned so): taking it at run time is an error. Writes nothing. */
INGOT_KERNEL int ingot_branch_error(const void *params, const void *const *in, void *const *out,
                                    void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_copy(const void *params, const void *const *in, void *const *out,
                            void *scratch, int task, int n_tasks);

/* out[i0..i(rank-1)] = in[offset + sum_k i_k * strides[k]] (Transpose, Slice,
 * Expand). Strides are in elements and may be 0 (broadcast) or negative (a
 * negative Slice step); the compiler guarantees every address is inside `in`. */
#define INGOT_STRIDED_FIELDS(F) \
	F(I64, esize) F(I64, rank) F(DIMS, dims) F(DIMS, strides) F(I64, offset)
INGOT_PARAMS(ingot_strided_params, INGOT_STRIDED_FIELDS)
INGOT_KERNEL int ingot_strided_copy(const void *params, const void *const *in,
                                    void *const *out, void *scratch, int task, int n_tasks);

/* Concat / Split along one axis: the tensors are `outer` rows; row r of tensor i
 * holds row_bytes[i] bytes (the axis extent times the inner size). Tensor i < 16
 * takes its size from row_bytes, the rest from row_bytes_hi. */
#define INGOT_CONCAT_FIELDS(F) \
	F(I64, n) F(I64, outer) F(PADS, row_bytes) F(PADS, row_bytes_hi)
INGOT_PARAMS(ingot_concat_params, INGOT_CONCAT_FIELDS)
INGOT_PARAMS(ingot_split_params, INGOT_CONCAT_FIELDS)
INGOT_KERNEL int ingot_concat(const void *params, const void *const *in, void *const *out,
                              void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_split(const void *params, const void *const *in, void *const *out,
                             void *scratch, int task, int n_tasks);

/* Gather: data is [outer, axis_dim, inner] elements; indices (in[1], idx_size 4
 * or 8 bytes, n_idx of them) select along the middle axis, negative ones counting
 * from the end. Any index outside [-axis_dim, axis_dim) -> INGOT_ERANGE, before
 * anything is written. */
#define INGOT_GATHER_FIELDS(F) \
	F(I64, esize) F(I64, outer) F(I64, axis_dim) F(I64, inner) F(I64, n_idx) F(I64, idx_size)
INGOT_PARAMS(ingot_gather_params, INGOT_GATHER_FIELDS)
INGOT_KERNEL int ingot_gather(const void *params, const void *const *in, void *const *out,
                              void *scratch, int task, int n_tasks);

/* Pad and Tile: output coordinate o reads input coordinate o - begin[k], mapped
 * back into [0, in_dims[k]) by the mode; in constant mode an outside coordinate
 * yields `value`, the element's bit pattern as an unsigned integer of esize bytes. */
enum { INGOT_PAD_CONSTANT = 0, INGOT_PAD_REFLECT = 1, INGOT_PAD_EDGE = 2, INGOT_PAD_WRAP = 3 };
#define INGOT_PAD_FIELDS(F) \
	F(I64, esize) F(I64, rank) F(I64, mode) F(I64, value) \
	F(DIMS, in_dims) F(DIMS, out_dims) F(DIMS, begin)
INGOT_PARAMS(ingot_pad_params, INGOT_PAD_FIELDS)
INGOT_KERNEL int ingot_pad(const void *params, const void *const *in, void *const *out,
                           void *scratch, int task, int n_tasks);

/* n elements of esize bytes, all equal to `value` (bit pattern, as for pad). */
#define INGOT_FILL_FIELDS(F) F(I64, esize) F(I64, n) F(I64, value)
INGOT_PARAMS(ingot_fill_params, INGOT_FILL_FIELDS)
INGOT_KERNEL int ingot_fill(const void *params, const void *const *in, void *const *out,
                            void *scratch, int task, int n_tasks);

/* Writes n (<= 8) int64 values known at compile time (Shape, Size). */
#define INGOT_CONST_I64S_FIELDS(F) F(I64, n) F(DIMS, v)
INGOT_PARAMS(ingot_const_i64s_params, INGOT_CONST_I64S_FIELDS)
INGOT_KERNEL int ingot_const_i64s(const void *params, const void *const *in, void *const *out,
                                  void *scratch, int task, int n_tasks);

/* Range: out[i] = start + i * delta for i < n, in the element type `dtype`
 * (f32, f64: fstart/fdelta; i16, i32, i64: istart/idelta, wrapping). */
#define INGOT_RANGE_FIELDS(F) \
	F(I64, dtype) F(I64, n) F(I64, istart) F(I64, idelta) F(F64, fstart) F(F64, fdelta)
INGOT_PARAMS(ingot_range_params, INGOT_RANGE_FIELDS)
INGOT_KERNEL int ingot_range(const void *params, const void *const *in, void *const *out,
                             void *scratch, int task, int n_tasks);

#endif
