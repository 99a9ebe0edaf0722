/* image.h — reference kernels of the sampling image ops: Resize / Upsample (N-D
 * nearest, n-linear and cubic, antialias), GridSample (N-D), AffineGrid, RoiAlign
 * and NonMaxSuppression. The compiler resolves opset defaults, scales vs sizes, axes
 * and aspect-ratio policies into per-axis scales and output dims.
 */
#ifndef INGOT_KERNELS_IMAGE_H
#define INGOT_KERNELS_IMAGE_H

#include "ingot_rt.h"

/* Interpolation modes (Resize `mode`, GridSample `mode`). */
enum { INGOT_INTERP_NEAREST, INGOT_INTERP_LINEAR, INGOT_INTERP_CUBIC };

/* Resize coordinate_transformation_mode (field `ctm`). */
enum {
	INGOT_CTM_HALF_PIXEL, INGOT_CTM_HALF_PIXEL_SYMMETRIC, INGOT_CTM_PYTORCH_HALF_PIXEL,
	INGOT_CTM_ALIGN_CORNERS, INGOT_CTM_ASYMMETRIC, INGOT_CTM_TF_HALF_PIXEL_FOR_NN,
	INGOT_CTM_TF_CROP_AND_RESIZE
};

/* Resize nearest_mode; SIMPLE is Resize-10 / Upsample: floor, but ceil on an axis
 * that is downsampled (as ONNX Runtime). */
enum {
	INGOT_NEAREST_ROUND_PREFER_FLOOR, INGOT_NEAREST_ROUND_PREFER_CEIL, INGOT_NEAREST_FLOOR,
	INGOT_NEAREST_CEIL, INGOT_NEAREST_SIMPLE
};

#define INGOT_F64X8(F, p) F(F64, p##0) F(F64, p##1) F(F64, p##2) F(F64, p##3) \
	F(F64, p##4) F(F64, p##5) F(F64, p##6) F(F64, p##7)

/* in[0] X (any rank <= 8), out[0] Y. Per axis d: scale<d> (the scale of the
 * coordinate transform: the given scale, or y/x dims when sizes were given),
 * roi_lo<d>/roi_hi<d> (tf_crop_and_resize), taps[d] = taps per output coordinate
 * (0: identity axis, y = x there; 1: nearest; 2/4: linear/cubic; more with
 * antialias). Integer outputs round half away from zero and saturate; bool only
 * with nearest. Scratch: sum over axes of 16 * y_dims[d] * taps[d] bytes (tap
 * tables). Tasks split the output elements. */
#define INGOT_RESIZE_FIELDS(F) F(I64, dtype) F(I64, rank) F(I64, mode) F(I64, ctm) \
	F(I64, nearest) F(I64, exclude_outside) F(I64, antialias) F(F64, cubic_a) \
	F(F64, extrapolation) F(DIMS, x_dims) F(DIMS, y_dims) F(DIMS, taps) \
	INGOT_F64X8(F, scale) INGOT_F64X8(F, roi_lo) INGOT_F64X8(F, roi_hi)
INGOT_PARAMS(ingot_resize_params, INGOT_RESIZE_FIELDS)
/* Fills the tap table of axis d (taps[d] > 0): for each output index, taps[d] taps
 * (input index, weight); index -1 in the first tap marks a tf_crop_and_resize
 * extrapolation. ingot_resize builds its tables with it, and --target opencl
 * computes the device kernel's tables with it at compile time. */
INGOT_KERNEL void ingot_resize_taps(const ingot_resize_params *p, int d, int64_t *idx, double *w);

/* GridSample padding_mode. */
enum { INGOT_GS_ZEROS, INGOT_GS_BORDER, INGOT_GS_REFLECTION };

/* in[0] X [N, C, D1..Dr], in[1] grid [N, O1..Or, r] (g_dtype; component k is the
 * coordinate of spatial dim r-1-k, normalized to [-1, 1]); out[0] Y [N, C, O1..Or].
 * Nearest rounds half to even in every rank, as ONNX Runtime and the amended ONNX
 * reference do (PyTorch's 3-D grid_sample rounds half away from zero).
 * Tasks split the N * O positions. */
#define INGOT_GRID_SAMPLE_FIELDS(F) F(I64, dtype) F(I64, g_dtype) F(I64, nsp) F(I64, mode) \
	F(I64, padding) F(I64, align_corners) F(DIMS, x_dims) F(DIMS, y_dims)
INGOT_PARAMS(ingot_grid_sample_params, INGOT_GRID_SAMPLE_FIELDS)

/* AffineGrid: in[0] theta [n, nsp, nsp + 1] of `dtype` (float types), in[1] (size) is
 * not read; out[0] the grid [n, sp[0..nsp), nsp] (nsp 2: H, W; 3: D, H, W). Point
 * (.., i_d, ..) gets theta times its normalized coordinates (x along the last dim
 * first, then y, z, then 1): align_corners -1 + 2 i / (len - 1), else
 * (2 i + 1) / len - 1; a dim of length 1 gives 0 either way (as PyTorch). Computed in
 * double. Tasks split the n * prod(sp) points. */
#define INGOT_AFFINE_GRID_FIELDS(F) F(I64, dtype) F(I64, nsp) F(I64, n) F(DIMS, sp) \
	F(I64, align_corners)
INGOT_PARAMS(ingot_affine_grid_params, INGOT_AFFINE_GRID_FIELDS)

/* in[0] X [N, C, H, W], in[1] rois [n_rois, 4] (x1, y1, x2, y2; X's dtype),
 * in[2] batch_indices [n_rois] (i64, checked: INGOT_ERANGE); out[0] Y
 * [n_rois, C, out_h, out_w]. max: the maximum of the weighted corner values (as
 * the ONNX reference and ONNX Runtime). half_pixel: shift by -0.5 pixel (opset 16
 * default). Tasks split the n_rois * C planes. */
#define INGOT_ROI_ALIGN_FIELDS(F) F(I64, dtype) F(I64, max) F(I64, half_pixel) F(I64, n) \
	F(I64, c) F(I64, h) F(I64, w) F(I64, n_rois) F(I64, out_h) F(I64, out_w) \
	F(I64, sampling_ratio) F(F32, spatial_scale)
INGOT_PARAMS(ingot_roi_align_params, INGOT_ROI_ALIGN_FIELDS)

/* in[0] boxes [batch, n_boxes, 4] f32, in[1] scores [batch, n_classes, n_boxes] f32,
 * in[2] max_output_boxes_per_class (i64, 1 element; absent: 0), in[3] iou_threshold
 * (f32; absent: 0), in[4] score_threshold (f32; absent: no threshold); the has_*
 * fields say which are present. out[0] selected_indices [max_rows, 3] i64 (batch,
 * class, box), per batch and class in descending score order (ties: lower box
 * index first). dynamic: out[1] is an int64_t[INGOT_MAX_RANK] that receives the
 * actual dims {rows, 3}; otherwise exactly max_rows rows must result (else
 * INGOT_ERANGE). Scratch: 16 * n_boxes bytes. Runs in task 0 only. */
#define INGOT_NMS_FIELDS(F) F(I64, batch) F(I64, n_boxes) F(I64, n_classes) \
	F(I64, center_point_box) F(I64, has_max) F(I64, has_iou) F(I64, has_score) \
	F(I64, max_rows) F(I64, dynamic)
INGOT_PARAMS(ingot_nms_params, INGOT_NMS_FIELDS)

INGOT_KERNEL int ingot_resize(const void *params, const void *const *in, void *const *out,
                              void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_grid_sample(const void *params, const void *const *in,
                                   void *const *out, void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_affine_grid(const void *params, const void *const *in,
                                   void *const *out, void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_roi_align(const void *params, const void *const *in,
                                 void *const *out, void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_nms(const void *params, const void *const *in, void *const *out,
                           void *scratch, int task, int n_tasks);

#endif /* INGOT_KERNELS_IMAGE_H */
