/* reduce.h — reference kernel of the Reduce* ops (Sum, Mean, Max, Min, Prod,
 * SumSquare, L1, L2, LogSum, LogSumExp) over any set of axes.
 * The compiler collapses the input shape first: adjacent dims that are both kept or
 * both reduced merge and size-1 dims drop, so `rank` is small and the innermost
 * loop as long as possible. keepdims does not matter here (same element order). */
#ifndef INGOT_KERNELS_REDUCE_H
#define INGOT_KERNELS_REDUCE_H

#include "ingot_rt.h"

/* `mode` values */
#define INGOT_REDUCE_SUM  0
#define INGOT_REDUCE_MEAN 1
#define INGOT_REDUCE_MAX  2
#define INGOT_REDUCE_MIN  3
#define INGOT_REDUCE_PROD 4
#define INGOT_REDUCE_SUM_SQUARE 5
#define INGOT_REDUCE_L1 6
#define INGOT_REDUCE_L2 7
#define INGOT_REDUCE_LOG_SUM 8
#define INGOT_REDUCE_LOG_SUM_EXP 9

/* dtype: INGOT_DT_* of input and output; dims[0..rank): the collapsed input shape;
 * rmask: bit d set when dim d is reduced. in[0] = data (in[1], the axes, is unused);
 * out[0] = the reduced tensor. Work splits over output elements. */
#define INGOT_REDUCE_FIELDS(F) F(I64, dtype) F(I64, mode) F(I64, rank) F(DIMS, dims) \
	F(I64, rmask)
INGOT_PARAMS(ingot_reduce_params, INGOT_REDUCE_FIELDS)

INGOT_KERNEL int ingot_reduce(const void *params, const void *const *in, void *const *out,
                              void *scratch, int task, int n_tasks);

#endif
