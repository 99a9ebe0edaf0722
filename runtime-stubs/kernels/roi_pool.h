/* roi_pool.h — reference kernel of MaxRoiPool: the maximum over each bin of each
 * region of interest (the Caffe / ONNX Runtime rule: region corners rounded to
 * whole pixels, bins of (region size + 1) / pooled size, empty bins give 0). */
#ifndef INGOT_KERNELS_ROI_POOL_H
#define INGOT_KERNELS_ROI_POOL_H

#include "ingot_rt.h"

/* in[0] X [n, c, h, w], in[1] rois [n_rois, 5] (batch index, x1, y1, x2, y2; X's
 * dtype), out[0] Y [n_rois, c, ph, pw]. For f16/bf16/f32 the arithmetic on
 * coordinates is float's, for f64 double's. A batch index outside [0, n) gives
 * INGOT_ERANGE. Tasks split the regions. */
#define INGOT_ROI_POOL_FIELDS(F) F(I64, dtype) F(I64, n) F(I64, c) F(I64, h) F(I64, w) \
	F(I64, n_rois) F(I64, ph) F(I64, pw) F(F32, spatial_scale)
INGOT_PARAMS(ingot_roi_pool_params, INGOT_ROI_POOL_FIELDS)

INGOT_KERNEL int ingot_roi_pool(const void *params, const void *const *in, void *const *out,
                                void *scratch, int task, int n_tasks);

#endif
