/* quant.h — reference kernels of the linear quantization ops: QuantizeLinear,
 * DequantizeLinear, DynamicQuantizeLinear, and the integer products behind
 * QLinearMatMul / MatMulInteger (ingot_qmatmul) and QLinearConv / ConvInteger
 * (ingot_qconv). Products accumulate exactly in int64; requantization rounds half
 * to even and saturates to the output type, as the ONNX reference does.
 */
#ifndef INGOT_KERNELS_QUANT_H
#define INGOT_KERNELS_QUANT_H

#include "ingot_rt.h"

/* How a scale / zero point maps onto the elements of x, seen as
 * (outer, axis_len, inner): per tensor (one value), per axis (index a), or blocked
 * (scale shaped like x with s_axis_len = ceil(axis_len / block) along the axis). */
enum { INGOT_Q_TENSOR, INGOT_Q_AXIS, INGOT_Q_BLOCK };

/* QuantizeLinear: y = saturate(rint(x / scale) + zp). in[0] x (x_dtype: floats or
 * i32), in[1] scale (s_dtype), in[2] zero point (y_dtype) when has_zp. The
 * quotient has the precision of div_dtype (numpy's promotion of x and scale, or the
 * opset 23 `precision`): computed in double, then rounded to it. Tasks split the
 * elements. */
#define INGOT_QUANTIZE_FIELDS(F) F(I64, x_dtype) F(I64, s_dtype) F(I64, y_dtype) \
	F(I64, div_dtype) F(I64, has_zp) F(I64, mode) F(I64, outer) F(I64, axis_len) \
	F(I64, inner) F(I64, block) F(I64, s_axis_len) F(I64, saturate)
INGOT_PARAMS(ingot_quantize_params, INGOT_QUANTIZE_FIELDS)

/* DequantizeLinear: y = (float(x) - float(zp)) * scale, rounded to float, then
 * stored as y_dtype. in[0] x (x_dtype, integers), in[1] scale (s_dtype), in[2] zero
 * point (x_dtype) when has_zp. Same layout fields as quantize. */
#define INGOT_DEQUANTIZE_FIELDS(F) F(I64, x_dtype) F(I64, s_dtype) F(I64, y_dtype) \
	F(I64, has_zp) F(I64, mode) F(I64, outer) F(I64, axis_len) F(I64, inner) \
	F(I64, block) F(I64, s_axis_len)
INGOT_PARAMS(ingot_dequantize_params, INGOT_DEQUANTIZE_FIELDS)

/* DynamicQuantizeLinear over n float elements: out[0] y (u8), out[1] scale (f32
 * scalar), out[2] zero point (u8 scalar); an omitted output is NULL. The range
 * always includes 0; NaNs are ignored; an all-zero input gives scale 0, zero point
 * 0 and y = 0. Every task scans the whole input for the range; task 0 alone writes
 * scale and zero point. */
#define INGOT_DYNQUANT_FIELDS(F) F(I64, n)
INGOT_PARAMS(ingot_dynquant_params, INGOT_DYNQUANT_FIELDS)

/* Per-operand zero point / scale layouts of ingot_qmatmul: absent, one value,
 * one per row of A (per column of B), or one per row (column) of every batch of the
 * operand itself (zero point shaped [..., M, 1] / [..., 1, N]). */
enum { INGOT_QV_NONE, INGOT_QV_ONE, INGOT_QV_VEC, INGOT_QV_BATCH };

/* Y[b] = (A[b] - azp) @ (B[b] - bzp) over nb broadcast batch dims (bdims; a_bstr,
 * b_bstr element strides, 0 where broadcast); A is m x k, B k x n (a 1-D operand
 * arrives as m = 1 or n = 1). A and B are 8-bit (u8 or i8 each).
 * qlinear = 0 (MatMulInteger): in[0] A, in[1] B, in[2] azp, in[3] bzp; Y is i32
 *   (wrapping modulo 2^32).
 * qlinear = 1 (QLinearMatMul): in[0] A, in[1] a_scale, in[2] azp, in[3] B,
 *   in[4] b_scale, in[5] bzp, in[6] y_scale, in[7] yzp; Y (y_dtype, u8 or i8) =
 *   saturate(rint(acc * (a_scale * b_scale / y_scale)) + yzp), the multiplier in
 *   float, the product in double. Scales (f32) use a_s / b_s / y_s layouts,
 *   yzp y_zp (ONE or VEC over rows); scales have s_dtype (f32, f16 or bf16).
 *   When has_bias (a folded Gemm or MatMul + Add, never an ONNX QLinearMatMul),
 *   in[8] is an i32 bias of n values added to acc before the multiplier.
 *   The result is clamped to [y_lo, y_hi] as well as to y_dtype's range (a fused
 *   Relu or Clip; the lowering sets the dtype's range when there is none).
 * Tasks split batch * m rows. */
#define INGOT_QMATMUL_FIELDS(F) F(I64, a_dtype) F(I64, b_dtype) F(I64, y_dtype) \
	F(I64, qlinear) F(I64, m) F(I64, n) F(I64, k) F(I64, nb) F(DIMS, bdims) \
	F(DIMS, a_bstr) F(DIMS, b_bstr) F(I64, a_zp) F(I64, b_zp) F(I64, a_s) F(I64, b_s) \
	F(I64, y_s) F(I64, y_zp) F(I64, s_dtype) F(I64, has_bias) F(I64, y_lo) F(I64, y_hi)
INGOT_PARAMS(ingot_qmatmul_params, INGOT_QMATMUL_FIELDS)

/* Convolution of 8-bit X (N, C, spatial...) with 8-bit W (M, C/group, k...), with
 * zero points subtracted (padding contributes nothing), int64 accumulation.
 * qlinear = 0 (ConvInteger): in[0] X, in[1] W, in[2] xzp (one value) when has_xzp,
 *   in[3] wzp (w_zp = 0 none, 1 one, M per output channel); Y i32, wrapping.
 * qlinear = 1 (QLinearConv): in[0] X, in[1] x_scale, in[2] xzp, in[3] W,
 *   in[4] w_scale (w_s values: 1 or M), in[5] wzp, in[6] y_scale, in[7] yzp,
 *   in[8] bias (i32, M) when has_bias; Y (y_dtype) = saturate(rint((acc + bias) *
 *   x_scale * w_scale[m] / y_scale) + yzp), clamped to [y_lo, y_hi] too (a fused
 *   Relu or Clip; the dtype's range when there is none).
 * Dims are full tensor dims (rank nsp + 2); pads are begin pads per spatial dim.
 * Tasks split the N * M output planes. */
#define INGOT_QCONV_FIELDS(F) F(I64, x_dtype) F(I64, w_dtype) F(I64, y_dtype) \
	F(I64, qlinear) F(I64, nsp) F(I64, group) F(I64, has_xzp) F(I64, w_zp) F(I64, w_s) \
	F(I64, has_bias) F(DIMS, x_dims) F(DIMS, w_dims) F(DIMS, y_dims) F(DIMS, strides) \
	F(DIMS, dilations) F(DIMS, pads) F(I64, y_lo) F(I64, y_hi)
INGOT_PARAMS(ingot_qconv_params, INGOT_QCONV_FIELDS)

/* Ops of ingot_qbinary (field `op`). */
enum { INGOT_QB_ADD, INGOT_QB_MUL };

/* QLinearAdd / QLinearMul (made by passes/fold_qdq.c, never read from a model): in[0] A,
 * in[1] a_scale, in[2] azp, in[3] B, in[4] b_scale, in[5] bzp, in[6] y_scale, in[7] yzp;
 * scales f32 scalars, zero points scalars of the operand's dtype. Y is bit for bit
 * what DequantizeLinear, the float Add or Mul and QuantizeLinear give (each operand
 * dequantized to float, the float sum or product, the float quotient by y_scale
 * rounded half to even, + yzp, saturated), clamped to [y_lo, y_hi] as well (a folded
 * Relu or Clip). numpy broadcasting: n output elements of dims (rank <= 8,
 * row-major), sa / sb element strides of A and B per output dim, 0 where broadcast.
 * Tasks split the elements. */
#define INGOT_QBINARY_FIELDS(F) F(I64, op) F(I64, a_dtype) F(I64, b_dtype) F(I64, y_dtype) \
	F(I64, n) F(I64, rank) F(DIMS, dims) F(DIMS, sa) F(DIMS, sb) F(I64, y_lo) F(I64, y_hi)
INGOT_PARAMS(ingot_qbinary_params, INGOT_QBINARY_FIELDS)

/* QLinearLookup: y[i] = table[(uint8_t)x[i]] over n elements, x and y 8-bit; in[1] is
 * the 256-entry table the compiler computes from the float op it replaces (entry b is
 * that op's quantized result for the input whose byte is b). Tasks split the elements. */
#define INGOT_QLOOKUP_FIELDS(F) F(I64, n)
INGOT_PARAMS(ingot_qlookup_params, INGOT_QLOOKUP_FIELDS)

/* MatMulW8, weight-only int8 (passes/fold_qdq.c: MatMul or Gemm of a float A and a
 * DequantizeLinear'd 8-bit constant B with zero point 0): Y[i][j] = (sum over k of
 * A[i][k] * B[k][j]) * scale[j] + bias[j], the sum in float in k order, B read as
 * 8-bit (w_dtype u8 or i8) and converted in the loop. in[0] A (f32, m x k: every
 * leading dim is a row), in[1] B (k x n), in[2] scale (f32, s_n = 1 or n values),
 * in[3] bias (f32, n) when has_bias. Tasks split the n columns. */
#define INGOT_MATMUL_W8_FIELDS(F) F(I64, w_dtype) F(I64, m) F(I64, k) F(I64, n) \
	F(I64, s_n) F(I64, has_bias)
INGOT_PARAMS(ingot_matmul_w8_params, INGOT_MATMUL_W8_FIELDS)

INGOT_KERNEL int ingot_quantize(const void *params, const void *const *in, void *const *out,
                                void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_dequantize(const void *params, const void *const *in, void *const *out,
                                  void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_dynquant(const void *params, const void *const *in, void *const *out,
                                void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_qmatmul(const void *params, const void *const *in, void *const *out,
                               void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_qconv(const void *params, const void *const *in, void *const *out,
                             void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_qbinary(const void *params, const void *const *in, void *const *out,
                               void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_qlookup(const void *params, const void *const *in, void *const *out,
                               void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_matmul_w8(const void *params, const void *const *in, void *const *out,
                                 void *scratch, int task, int n_tasks);

#endif /* INGOT_KERNELS_QUANT_H */
