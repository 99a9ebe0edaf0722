/* neon/qgemm.h — NEON int8 kernels of QLinearConv and QLinearMatMul for the neon
 * (aarch64) and neon32 (armv7) targets: same slots and semantics as the reference
 * ingot_qconv / ingot_qmatmul of quant.h with qlinear = 1 (bias, y_lo / y_hi clamp),
 * results bit for bit equal to them.
 *
 * Both are one GEMM, C[p][o] = sum_k P[p][k] * W[o][k], over signed bytes: an 8-bit
 * operand is read as its byte xor 0x80 for u8 (its value minus 128), so every
 * product is s8 x s8, and the zero points become corrections:
 *   sum (p - zp)(w - zw) = sum p w - zw * rowsum(p) - zp * colsum(w) + K * zp * zw
 * with p, w, zp, zw all in the signed view. W (QLinearConv's weights, QLinearMatMul's B
 * as columns) is packed in panels of INGOT_NEON_QMR rows: per group of 4 k, the 4 bytes
 * of each of the panel's rows, k padded to a multiple of 4 with zeros; after the
 * panels, the int32 sums of each packed row (colsum). codegen/neon/lower.c packs
 * constant weights at compile time with ingot_neon_qpack (packed = 1); otherwise the
 * kernel packs them into its scratch. P (the im2col patches of a Conv, the rows of
 * MatMul's A) is packed per tile of INGOT_NEON_QNP rows in the same 4-byte groups.
 *
 * The microkernel is `sdot` (ARMv8.2 dot product) when the compiler targets a CPU
 * with it (__ARM_FEATURE_DOTPROD: `--cpu cortex-a55`, `cortex-a76`), otherwise
 * `smull` + `sadalp` (int16 products, pairwise accumulated into int32; exact: a
 * product of two signed bytes fits int16). The epilogue requantizes as the reference
 * does: rint((double)acc * (double)mult) + zero point, saturated, then clamped.
 *
 * A generated model copies only this family's own .c/.h, so the parameter field lists
 * are repeated here; codegen/neon/lower.c checks that each begins with the reference
 * layout, field for field. */
#ifndef INGOT_KERNELS_NEON_QGEMM_H
#define INGOT_KERNELS_NEON_QGEMM_H

#include "ingot_rt.h"

#include <string.h>

/* = INGOT_QCONV_FIELDS (quant.h), then `packed`: W (in[3]) is ingot_neon_qpack's
 * layout (1) or the ONNX tensor (0). */
#define INGOT_NEON_QCONV_FIELDS(F) F(I64, x_dtype) F(I64, w_dtype) F(I64, y_dtype) \
	F(I64, qlinear) F(I64, nsp) F(I64, group) F(I64, has_xzp) F(I64, w_zp) F(I64, w_s) \
	F(I64, has_bias) F(DIMS, x_dims) F(DIMS, w_dims) F(DIMS, y_dims) F(DIMS, strides) \
	F(DIMS, dilations) F(DIMS, pads) F(I64, y_lo) F(I64, y_hi) F(I64, packed)
INGOT_PARAMS(ingot_neon_qconv_params, INGOT_NEON_QCONV_FIELDS)

/* = INGOT_QMATMUL_FIELDS (quant.h), then `packed`: B (in[3]) is ingot_neon_qpack's
 * layout of B's columns (1; B then has no batch of its own) or the ONNX tensor (0). */
#define INGOT_NEON_QMATMUL_FIELDS(F) F(I64, a_dtype) F(I64, b_dtype) F(I64, y_dtype) \
	F(I64, qlinear) F(I64, m) F(I64, n) F(I64, k) F(I64, nb) F(DIMS, bdims) \
	F(DIMS, a_bstr) F(DIMS, b_bstr) F(I64, a_zp) F(I64, b_zp) F(I64, a_s) F(I64, b_s) \
	F(I64, y_s) F(I64, y_zp) F(I64, s_dtype) F(I64, has_bias) F(I64, y_lo) F(I64, y_hi) \
	F(I64, packed)
INGOT_PARAMS(ingot_neon_qmatmul_params, INGOT_NEON_QMATMUL_FIELDS)

#define INGOT_NEON_QMR 8     /* rows of W per packed panel (output channels / columns) */
#define INGOT_NEON_QNP 8     /* rows of P per tile (output pixels / rows of A) */
#define INGOT_NEON_QMAX_K 32768   /* deeper products stay on the reference kernels */

static inline INGOT_UNUSED int64_t ingot_neon_qround(int64_t v, int64_t to)
{
	return (v + to - 1) / to * to;
}

/* Bytes of the packed form of `rows` rows of depth k (panels, then the int32 sums). */
static inline INGOT_UNUSED int64_t ingot_neon_qpack_bytes(int64_t rows, int64_t k)
{
	const int64_t mp = ingot_neon_qround(rows, INGOT_NEON_QMR);
	return mp * ingot_neon_qround(k, 4) + 4 * mp;
}

/* Packs rows x k bytes (element (r, kk) at src[r * rs + kk * ks]; flip 0x80 for u8,
 * 0 for i8) into dst (ingot_neon_qpack_bytes(rows, k) bytes), as the header says. */
static inline INGOT_UNUSED void ingot_neon_qpack(const uint8_t *src, int64_t rows, int64_t k,
                                                 int64_t rs, int64_t ks, int flip, uint8_t *dst)
{
	const int64_t mp = ingot_neon_qround(rows, INGOT_NEON_QMR), kp = ingot_neon_qround(k, 4);
	uint8_t *sums = dst + mp * kp;
	for (int64_t r = 0; r < mp; r++) {
		uint8_t *panel = dst + r / INGOT_NEON_QMR * INGOT_NEON_QMR * kp;
		const int64_t ri = r % INGOT_NEON_QMR;
		uint32_t s = 0;
		for (int64_t kk = 0; kk < kp; kk++) {
			uint8_t b = 0;
			if (r < rows && kk < k) {
				b = (uint8_t)(src[r * rs + kk * ks] ^ flip);
				s += (uint32_t)(int32_t)(int8_t)b;      /* modulo 2^32, no overflow UB */
			}
			panel[kk / 4 * 4 * INGOT_NEON_QMR + ri * 4 + kk % 4] = b;
		}
		memcpy(sums + 4 * r, &s, 4);
	}
}

/* Scratch bytes: a P tile (QNP x k rounded to 4) and its row sums, plus the packed
 * weights when they are not packed at compile time (QLinearConv: all groups;
 * QLinearMatMul: B of one batch). Depthwise QLinearConv (C / group = 1) needs none. */
static inline INGOT_UNUSED int64_t ingot_neon_qconv_scratch_bytes(int64_t group, int64_t mg,
                                                                 int64_t k, int packed)
{
	return INGOT_NEON_QNP * ingot_neon_qround(k, 4) + 4 * INGOT_NEON_QNP +
	       (packed ? 0 : group * ingot_neon_qpack_bytes(mg, k));
}
static inline INGOT_UNUSED int64_t ingot_neon_qmatmul_scratch_bytes(int64_t n, int64_t k,
                                                                   int packed)
{
	return ingot_neon_qconv_scratch_bytes(1, n, k, packed);
}

/* Tasks split QLinearConv's (image, group, tile of QNP output pixels) units, or the
 * output channels for depthwise; QLinearMatMul's tiles of QNP rows of every batch.
 * Scratch: the bytes above, 4-byte aligned, one per task. */
INGOT_KERNEL int ingot_neon_qconv(const void *params, const void *const *in, void *const *out,
                                  void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_neon_qmatmul(const void *params, const void *const *in,
                                    void *const *out, void *scratch, int task, int n_tasks);

#endif /* INGOT_KERNELS_NEON_QGEMM_H */
