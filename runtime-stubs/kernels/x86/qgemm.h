/* x86/qgemm.h — x86 (AVX2, AVX-512) int8 kernels of QLinearConv / ConvInteger
 * (ingot_x86_qconv) and QLinearMatMul / MatMulInteger (ingot_x86_qmatmul) for the
 * x86-avx2 and x86-avx512 targets. Same slots and semantics as the reference
 * kernels ingot_qconv / ingot_qmatmul (quant.h), bit for bit, plus one field:
 * `packed`, the vector width in int32 lanes the compiler packed the constant
 * weights for (8: AVX2, 16: AVX-512; the kernel refuses another).
 *
 * Products are u8 x s8 dot products of 4 bytes into int32 lanes: `vpdpbusd`
 * (AVX512-VNNI on x86-avx512, AVX-VNNI on x86-avx2) when the CPU has it (checked at
 * run time; INGOT_NO_VNNI=1 in the environment forces the other path), else an exact
 * emulation with `vpmaddwd` on zero- / sign-extended 16-bit halves (it cannot
 * saturate, unlike `vpmaddubsw`). Operands are shifted into that form: an s8
 * activation gets +128 (u8), a u8 weight -128 (s8), their zero points likewise, and
 *   sum (xu - xz')(ws - wz') = sum xu ws - wz' sum xu - xz' sum ws + K xz' wz'
 * with the weights' sums (sum ws) computed at compile time into the packed blob.
 * Sums run modulo 2^32 and are exact while K * 255 * 255 < 2^31 (K <= 32768, which
 * _ok checks); the bias is added in double, as the reference's int64 sum is.
 * Requantization: rint((double)(acc + bias) * (double)mult) + zp, saturated and
 * clamped to [y_lo, y_hi], mult = x_scale * w_scale / y_scale in float, as in
 * quant.c.
 *
 * Packed weights (1-D u8 tensors of ingot_x86_q*_packed_bytes):
 *   conv:   W as M rows of K4 = K rounded up to 4 signed bytes (K = C/group * kh *
 *           kw, the tail zero), then at a 64-byte boundary M int32 row sums;
 *   matmul: B (k x n) as panels of `lanes` columns (n padded with zero columns to
 *           NL, a multiple of 4 panels), panel j holding [KP / 4][lanes][4] signed
 *           bytes (KP: K rounded up to 4, to 64 on AVX-512), then at a 64-byte
 *           boundary NL int32 column sums.
 * Conv gathers a block of output pixels' windows into scratch as [K4 / 4][pixels]
 * [4] u8 (padding as the x zero point, which then contributes nothing); tiles of
 * output channels x pixels keep their sums in registers. MatMul reads A in place and
 * runs tiles of rows x columns (one row: a GEMV tile four vectors wide). On
 * AVX-512, a MatMul of 32 or more rows and K >= 64 runs on AMX-INT8 tiles
 * (`tdpbusd`, 32 x 32 outputs per step, A copied 32 rows at a time into scratch)
 * where the CPU has AMX-TILE and AMX-INT8 and Linux grants the tile state
 * (arch_prctl ARCH_REQ_XCOMP_PERM); else, or with INGOT_NO_AMX=1 (or
 * INGOT_NO_VNNI=1), the vector path. Tasks split
 * the conv's (image, group, pixel block, channel chunk) units and the matmul's
 * (row tile, column chunk) units; every output is computed alike either way. */
#ifndef INGOT_KERNELS_X86_QGEMM_H
#define INGOT_KERNELS_X86_QGEMM_H

#include "ingot_rt.h"

/* = INGOT_QCONV_FIELDS (quant.h) + packed */
#define INGOT_X86_QCONV_FIELDS(F) F(I64, x_dtype) F(I64, w_dtype) F(I64, y_dtype) \
	F(I64, qlinear) F(I64, nsp) F(I64, group) F(I64, has_xzp) F(I64, w_zp) F(I64, w_s) \
	F(I64, has_bias) F(DIMS, x_dims) F(DIMS, w_dims) F(DIMS, y_dims) F(DIMS, strides) \
	F(DIMS, dilations) F(DIMS, pads) F(I64, y_lo) F(I64, y_hi) F(I64, packed)
INGOT_PARAMS(ingot_x86_qconv_params, INGOT_X86_QCONV_FIELDS)

/* = INGOT_QMATMUL_FIELDS (quant.h) + packed */
#define INGOT_X86_QMATMUL_FIELDS(F) F(I64, a_dtype) F(I64, b_dtype) F(I64, y_dtype) \
	F(I64, qlinear) F(I64, m) F(I64, n) F(I64, k) F(I64, nb) F(DIMS, bdims) \
	F(DIMS, a_bstr) F(DIMS, b_bstr) F(I64, a_zp) F(I64, b_zp) F(I64, a_s) F(I64, b_s) \
	F(I64, y_s) F(I64, y_zp) F(I64, s_dtype) F(I64, has_bias) F(I64, y_lo) F(I64, y_hi) \
	F(I64, packed)
INGOT_PARAMS(ingot_x86_qmatmul_params, INGOT_X86_QMATMUL_FIELDS)

/* quant.h's zero point / scale layouts (INGOT_QV_*; lower.c asserts they agree) */
enum { INGOT_X86_QV_NONE, INGOT_X86_QV_ONE, INGOT_X86_QV_VEC, INGOT_X86_QV_BATCH };

#define INGOT_X86_Q_KMAX 32768       /* the longest exact dot product (see above) */
#define INGOT_X86_Q_BLOCK (192 << 10) /* bytes of gathered windows a conv block aims at */

static inline int64_t ingot_x86_q_k4(int64_t k)
{
	return (k + 3) / 4 * 4;
}

static inline int64_t ingot_x86_q_al64(int64_t b)
{
	return (b + 63) / 64 * 64;
}

static inline int ingot_x86_q_8bit(int64_t dt)
{
	return dt == INGOT_DT_U8 || dt == INGOT_DT_I8;
}

/* The Convs ingot_x86_qconv runs: 1 or 2 spatial dims, 8-bit operands, f32 scales
 * (the reference reads them as such), a window of at most INGOT_X86_Q_KMAX. */
static inline int ingot_x86_qconv_ok(const ingot_x86_qconv_params *p)
{
	int64_t k;
	if ((p->nsp != 1 && p->nsp != 2) || p->group < 1 || !ingot_x86_q_8bit(p->x_dtype) ||
	    !ingot_x86_q_8bit(p->w_dtype) ||
	    (p->qlinear ? !ingot_x86_q_8bit(p->y_dtype) : p->y_dtype != INGOT_DT_I32) ||
	    p->x_dims[1] % p->group != 0 || p->y_dims[1] % p->group != 0 || p->y_dims[1] < 1)
		return 0;
	k = p->w_dims[1] * p->w_dims[2] * (p->nsp == 2 ? p->w_dims[3] : 1);
	return k >= 1 && k <= INGOT_X86_Q_KMAX;
}

/* The conv's K (window length) and the bytes of its packed weights. */
static inline int64_t ingot_x86_qconv_k(const ingot_x86_qconv_params *p)
{
	return p->w_dims[1] * p->w_dims[2] * (p->nsp == 2 ? p->w_dims[3] : 1);
}

static inline int64_t ingot_x86_qconv_packed_bytes(int64_t m, int64_t k)
{
	return ingot_x86_q_al64(m * ingot_x86_q_k4(k)) + 4 * m;
}

/* Pixels per gathered block: a multiple of 4 * lanes, at most the image's, within
 * INGOT_X86_Q_BLOCK bytes where it can. */
static inline int64_t ingot_x86_qconv_block(const ingot_x86_qconv_params *p, int lanes)
{
	const int64_t tile = 4 * (int64_t)lanes, k4 = ingot_x86_q_k4(ingot_x86_qconv_k(p));
	const int64_t pix = p->y_dims[2] * (p->nsp == 2 ? p->y_dims[3] : 1);
	int64_t b = INGOT_X86_Q_BLOCK / k4 / tile * tile, whole = (pix + tile - 1) / tile * tile;
	if (b < tile)
		b = tile;
	return b < whole ? b : whole;
}

/* Depthwise: one input and one output channel per group (its own path, below). */
static inline int ingot_x86_qconv_dw(const ingot_x86_qconv_params *p)
{
	return p->group == p->x_dims[1] && p->group == p->y_dims[1];
}

/* The depthwise path's plane of one channel: rows of sw phases of `wq` bytes each
 * (ingot_x86_qconv's comment); hn rows, wq per phase. */
static inline void ingot_x86_qconv_dw_plane(const ingot_x86_qconv_params *p, int lanes, int64_t *hn,
                                            int64_t *wq)
{
	const int two = p->nsp == 2;
	const int64_t oh = two ? p->y_dims[2] : 1, ow = p->y_dims[1 + p->nsp];
	const int64_t kh = two ? p->w_dims[2] : 1, kw = p->w_dims[1 + p->nsp];
	const int64_t sh = two ? p->strides[0] : 1, sw = p->strides[p->nsp - 1];
	const int64_t dh = two ? p->dilations[0] : 1, dw = p->dilations[p->nsp - 1];
	*hn = (oh - 1) * sh + (kh - 1) * dh + 1;
	*wq = (ow + lanes - 1) / lanes * lanes + (kw - 1) * dw / (sw > 0 ? sw : 1) + 16;
}

/* Scratch per task: the gathered block and its pixels' sums; depthwise: the plane, a
 * padded input row, the plane's int32 sums (and a row's overrun) and the window's weights. */
static inline int64_t ingot_x86_qconv_scratch(const ingot_x86_qconv_params *p, int lanes)
{
	const int64_t b = ingot_x86_qconv_block(p, lanes);
	if (ingot_x86_qconv_dw(p)) {
		int64_t hn, wq;
		const int64_t sw = p->strides[p->nsp - 1] > 0 ? p->strides[p->nsp - 1] : 1;
		ingot_x86_qconv_dw_plane(p, lanes, &hn, &wq);
		const int64_t P = (p->nsp == 2 ? p->y_dims[2] : 1) * p->y_dims[1 + p->nsp];
		return ingot_x86_q_al64(hn * sw * wq) + ingot_x86_q_al64(sw * wq + 64) +
		       4 * (P + wq + lanes) + 4 * ingot_x86_qconv_k(p) + 64;
	}
	return ingot_x86_q_al64(b * ingot_x86_q_k4(ingot_x86_qconv_k(p))) + 4 * b + 64;
}

/* Packs conv weights w (M x K bytes, of dtype w_dtype) into dst (packed_bytes). */
static inline void ingot_x86_qconv_pack(const uint8_t *w, int64_t w_dtype, int64_t m, int64_t k,
                                        uint8_t *dst)
{
	const int64_t k4 = ingot_x86_q_k4(k);
	const uint8_t flip = w_dtype == INGOT_DT_U8 ? 0x80 : 0;
	int32_t *sums = (int32_t *)(void *)(dst + ingot_x86_q_al64(m * k4));
	for (int64_t o = 0; o < m; o++) {
		int32_t s = 0;
		for (int64_t kk = 0; kk < k4; kk++) {
			uint8_t b = kk < k ? (uint8_t)(w[o * k + kk] ^ flip) : 0;
			dst[o * k4 + kk] = b;
			s += b < 128 ? (int32_t)b : (int32_t)b - 256;
		}
		sums[o] = s;
	}
	for (int64_t i = m * k4; i < ingot_x86_q_al64(m * k4); i++)
		dst[i] = 0;
}

/* The MatMuls ingot_x86_qmatmul runs: B shared by every batch, no per-batch zero
 * point, f32 scales, K <= INGOT_X86_Q_KMAX. */
static inline int ingot_x86_qmatmul_ok(const ingot_x86_qmatmul_params *p)
{
	for (int64_t d = 0; d < p->nb; d++)
		if (p->b_bstr[d] != 0 && p->bdims[d] != 1)
			return 0;
	return ingot_x86_q_8bit(p->a_dtype) && ingot_x86_q_8bit(p->b_dtype) &&
	       (p->qlinear ? ingot_x86_q_8bit(p->y_dtype) && p->s_dtype == INGOT_DT_F32
	                   : p->y_dtype == INGOT_DT_I32) &&
	       p->a_zp != INGOT_X86_QV_BATCH && p->b_zp != INGOT_X86_QV_BATCH && p->k >= 1 &&
	       p->k <= INGOT_X86_Q_KMAX && p->n >= 1 && p->m >= 1 && p->nb >= 0 &&
	       p->nb <= INGOT_MAX_RANK;
}

/* B's columns padded to whole tiles of 4 panels */
static inline int64_t ingot_x86_qmatmul_nl(int64_t n, int lanes)
{
	return (n + 4 * lanes - 1) / (4 * lanes) * (4 * lanes);
}

/* K as B's panels hold it: a multiple of 4, of 64 for AVX-512 (16 lanes: whole AMX
 * tiles of 16 quads) */
static inline int64_t ingot_x86_qmatmul_kp(int64_t k, int lanes)
{
	return lanes == 16 ? (k + 63) / 64 * 64 : ingot_x86_q_k4(k);
}

static inline int64_t ingot_x86_qmatmul_packed_bytes(int64_t k, int64_t n, int lanes)
{
	const int64_t nl = ingot_x86_qmatmul_nl(n, lanes);
	return ingot_x86_q_al64(nl * ingot_x86_qmatmul_kp(k, lanes)) + 4 * nl;
}

/* Scratch per task: on AVX-512, the AMX path's 32 rows of A padded to kp bytes and
 * its 32 x 32 int32 sums. */
static inline int64_t ingot_x86_qmatmul_scratch(const ingot_x86_qmatmul_params *p, int lanes)
{
	return lanes == 16 ? 32 * ingot_x86_qmatmul_kp(p->k, lanes) + 32 * 32 * 4 + 64 : 0;
}

/* Packs B (k x n bytes, row-major, dtype b_dtype) into dst (packed_bytes). */
static inline void ingot_x86_qmatmul_pack(const uint8_t *b, int64_t b_dtype, int64_t k, int64_t n,
                                          int lanes, uint8_t *dst)
{
	const int64_t kp = ingot_x86_qmatmul_kp(k, lanes), nl = ingot_x86_qmatmul_nl(n, lanes);
	const uint8_t flip = b_dtype == INGOT_DT_U8 ? 0x80 : 0;
	int32_t *sums = (int32_t *)(void *)(dst + ingot_x86_q_al64(nl * kp));
	for (int64_t j = 0; j < nl; j++) {
		uint8_t *panel = dst + (j / lanes) * kp * lanes;
		int32_t s = 0;
		for (int64_t kk = 0; kk < kp; kk++) {
			uint8_t v = kk < k && j < n ? (uint8_t)(b[kk * n + j] ^ flip) : 0;
			panel[(kk / 4) * lanes * 4 + (j % lanes) * 4 + kk % 4] = v;
			s += v < 128 ? (int32_t)v : (int32_t)v - 256;
		}
		sums[j] = s;
	}
	for (int64_t i = nl * kp; i < ingot_x86_q_al64(nl * kp); i++)
		dst[i] = 0;
}

/* = INGOT_QBINARY_FIELDS (quant.h): QLinearAdd / QLinearMul, same slots and values as
 * ingot_qbinary, for 8-bit outputs and operands that are each either contiguous over
 * the output's shape or one element broadcast to all (ingot_x86_qbinary_ok). Lanes of
 * floats: the dequantized operands (x - zp) * scale (exact int - int, one float
 * product: the reference's double product rounded to float), their float sum or
 * product (a double product of two floats is exact, so rounding it to float is the
 * float product), the float quotient by y's scale rounded half to even, + y's zero
 * point (exact below 2^24; larger saturates either way), clamped (NaN to the low end). */
#define INGOT_X86_QBINARY_FIELDS(F) F(I64, op) F(I64, a_dtype) F(I64, b_dtype) F(I64, y_dtype) \
	F(I64, n) F(I64, rank) F(DIMS, dims) F(DIMS, sa) F(DIMS, sb) F(I64, y_lo) F(I64, y_hi)
INGOT_PARAMS(ingot_x86_qbinary_params, INGOT_X86_QBINARY_FIELDS)
enum { INGOT_X86_QB_ADD, INGOT_X86_QB_MUL };   /* = INGOT_QB_* (lower.c asserts it) */

/* An operand's element strides st over the output's dims: 0 row-major (unit dims
 * aside), 1 every stride 0 (one element), -1 another broadcast. */
static inline int ingot_x86_qbinary_layout(int64_t rank, const int64_t *dims, const int64_t *st)
{
	int64_t want = 1, d;
	int dense = 1, one = 1;
	for (d = rank - 1; d >= 0; d--) {
		if (dims[d] != 1 && st[d] != want)
			dense = 0;
		if (dims[d] != 1 && st[d] != 0)
			one = 0;
		want *= dims[d];
	}
	return dense ? 0 : one ? 1 : -1;
}

static inline int ingot_x86_qbinary_ok(const ingot_x86_qbinary_params *p)
{
	return p->rank >= 0 && p->rank <= INGOT_MAX_RANK && p->n >= 0 && ingot_x86_q_8bit(p->a_dtype) &&
	       ingot_x86_q_8bit(p->b_dtype) && ingot_x86_q_8bit(p->y_dtype) &&
	       (p->op == INGOT_X86_QB_ADD || p->op == INGOT_X86_QB_MUL) &&
	       ingot_x86_qbinary_layout(p->rank, p->dims, p->sa) >= 0 &&
	       ingot_x86_qbinary_layout(p->rank, p->dims, p->sb) >= 0;
}

/* = INGOT_POOL_FIELDS (pool.h): MaxPool of u8 / i8 (1 or 2 spatial dims, no Indices,
 * dilation 1) where every window holds an input element (begin pads under the kernel,
 * the last window starting inside): the max of a window's input elements, as the
 * reference's; input rows of at most INGOT_X86_QPOOL_MAX_W and windows of at most 64
 * columns (a padded row lives on the stack). Tasks split the N * C planes. */
#define INGOT_X86_QPOOL_FIELDS(F) F(I64, dtype) F(I64, kind) F(I64, nsp) \
	F(I64, count_include_pad) F(I64, storage_order) F(I64, has_indices) \
	F(DIMS, x_dims) F(DIMS, y_dims) \
	F(DIMS, kernel) F(DIMS, strides) F(DIMS, dilations) F(PADS, pads)
INGOT_PARAMS(ingot_x86_qmaxpool_params, INGOT_X86_QPOOL_FIELDS)
#define INGOT_X86_QPOOL_MAX_W 4096

static inline int ingot_x86_qmaxpool_ok(const ingot_x86_qmaxpool_params *p)
{
	if (p->kind != 0 /* INGOT_POOL_MAX */ || (p->nsp != 1 && p->nsp != 2) || p->has_indices ||
	    !ingot_x86_q_8bit(p->dtype) ||
	    p->x_dims[1 + p->nsp] > INGOT_X86_QPOOL_MAX_W || p->kernel[p->nsp - 1] > 64)
		return 0;
	for (int64_t d = 0; d < p->nsp; d++)
		if (p->dilations[d] != 1 || p->strides[d] < 1 || p->kernel[d] < 1 || p->pads[d] < 0 ||
		    p->pads[p->nsp + d] < 0 || p->pads[d] >= p->kernel[d] || p->pads[p->nsp + d] >= p->kernel[d] ||
		    p->y_dims[2 + d] < 1 || (p->y_dims[2 + d] - 1) * p->strides[d] - p->pads[d] > p->x_dims[2 + d] - 1)
			return 0;
	return 1;
}

INGOT_KERNEL int ingot_x86_qconv(const void *params, const void *const *in, void *const *out,
                                 void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_x86_qmatmul(const void *params, const void *const *in, void *const *out,
                                   void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_x86_qbinary(const void *params, const void *const *in, void *const *out,
                                   void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_x86_qmaxpool(const void *params, const void *const *in, void *const *out,
                                    void *scratch, int task, int n_tasks);

/* The paths this process takes: 0 the vpmaddwd emulation, 1 VEX (or zmm) vpdpbusd,
 * 2 EVEX vpdpbusd on ymm; plus 4 when AMX tiles run (AVX-512 builds). For tests. */
INGOT_KERNEL int ingot_x86_q_path(void);

#endif /* INGOT_KERNELS_X86_QGEMM_H */
