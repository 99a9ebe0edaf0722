/* neon/qgemm.c — NEON int8 QLinearConv and QLinearMatMul (see qgemm.h): one GEMM
 * core over signed bytes, C[p][o] = sum_k P[p][k] W[o][k], with W packed in panels of
 * QMR rows (at compile time, or here into the scratch) and P packed per tile of QNP
 * rows (Conv: an im2col of the tile's output pixels, padding taps holding the input
 * zero point so they contribute nothing; MatMul: rows of A). The microkernel keeps a
 * QNP x QMR tile of int32 sums in registers: `sdot` by lane with dotprod, else
 * `smull` + `sadalp`. Zero points are applied afterwards from the row and column
 * sums, and the epilogue requantizes in double exactly as the reference. A 1 x 1
 * stride-1 Conv builds its tiles by transposing 8 pixels x 4 channels with zips. Depthwise
 * QLinearConv (C / group = 1) runs directly, vectorized over output columns
 * (int16 widening multiply-accumulate, `smlal`). */
#include "qgemm.h"
#if defined(__ARM_NEON) || defined(__ARM_NEON__) || defined(__aarch64__)

#include <arm_neon.h>
#include <math.h>
#include <string.h>

#define QMR INGOT_NEON_QMR
#define QNP INGOT_NEON_QNP
_Static_assert(QMR == 8 && QNP == 8, "the microkernels are written for 8 x 8 tiles");

#if defined(__aarch64__) && defined(__ARM_FEATURE_DOTPROD)
#define QG_DOT 1
#else
#define QG_DOT 0
#endif

#define QG_INLINE static inline __attribute__((always_inline))

/* ---- the microkernels: acc[j * QMR + o] = sum over k4 groups of P row j . W row o ----
 * w: a W panel (per k4: QMR rows x 4 bytes), p: a P tile (per k4: ps rows x 4 bytes);
 * np rows of P (QNP or 1; constant at each call, so the loops unroll). */

#if QG_DOT
#define QG_SDOT4(c, w0, w1, pv) \
	c[0][0] = vdotq_laneq_s32(c[0][0], w0, pv, 0); c[0][1] = vdotq_laneq_s32(c[0][1], w1, pv, 0); \
	c[1][0] = vdotq_laneq_s32(c[1][0], w0, pv, 1); c[1][1] = vdotq_laneq_s32(c[1][1], w1, pv, 1); \
	c[2][0] = vdotq_laneq_s32(c[2][0], w0, pv, 2); c[2][1] = vdotq_laneq_s32(c[2][1], w1, pv, 2); \
	c[3][0] = vdotq_laneq_s32(c[3][0], w0, pv, 3); c[3][1] = vdotq_laneq_s32(c[3][1], w1, pv, 3)

QG_INLINE void qg_tile(const int8_t *w, const int8_t *p, int64_t k4, int np, int32_t *acc)
{
	int32x4_t c[QNP][2];
	int j;
	for (j = 0; j < QNP; j++)
		c[j][0] = c[j][1] = vdupq_n_s32(0);
	for (int64_t q = 0; q < k4; q++, w += 4 * QMR) {
		const int8x16_t w0 = vld1q_s8(w), w1 = vld1q_s8(w + 16);
		if (np == 1) {     /* one row: its 4 bytes against every row of the panel */
			const int8x16_t pv = vreinterpretq_s8_s32(vld1q_dup_s32((const int32_t *)(const void *)p));
			c[0][0] = vdotq_s32(c[0][0], w0, pv);
			c[0][1] = vdotq_s32(c[0][1], w1, pv);
			p += 4;
		} else {
			const int8x16_t p0 = vld1q_s8(p), p1 = vld1q_s8(p + 16);
			QG_SDOT4(c, w0, w1, p0);
			QG_SDOT4((c + 4), w0, w1, p1);
			p += 4 * QNP;
		}
	}
	for (j = 0; j < np; j++) {
		vst1q_s32(acc + j * QMR, c[j][0]);
		vst1q_s32(acc + j * QMR + 4, c[j][1]);
	}
}
#else
/* (a0 + a1, a2 + a3, b0 + b1, b2 + b3) */
static inline int32x4_t qg_padd(int32x4_t a, int32x4_t b)
{
#if defined(__aarch64__)
	return vpaddq_s32(a, b);
#else
	return vcombine_s32(vpadd_s32(vget_low_s32(a), vget_high_s32(a)),
	                    vpadd_s32(vget_low_s32(b), vget_high_s32(b)));
#endif
}

/* nj (4 or 1) rows of P at p (row stride 4 bytes, group stride ps): per row four
 * accumulators, each two k-pair sums of two W rows (smull: 8 int16 products of the
 * row's 4 bytes against 2 W rows; sadalp: their pairs added into int32). */
QG_INLINE void qg_mull(const int8_t *w, const int8_t *p, int64_t ps, int64_t k4, int nj,
                       int32_t *acc)
{
	int32x4_t c[4][4];
	int j, t;
	for (j = 0; j < 4; j++)
		for (t = 0; t < 4; t++)
			c[j][t] = vdupq_n_s32(0);
	for (int64_t q = 0; q < k4; q++, w += 4 * QMR, p += ps) {
		const int8x16_t w0 = vld1q_s8(w), w1 = vld1q_s8(w + 16);
		for (j = 0; j < nj; j++) {
			const int8x8_t pj = vreinterpret_s8_s32(vld1_dup_s32((const int32_t *)(const void *)(p + 4 * j)));
			c[j][0] = vpadalq_s16(c[j][0], vmull_s8(vget_low_s8(w0), pj));
			c[j][1] = vpadalq_s16(c[j][1], vmull_s8(vget_high_s8(w0), pj));
			c[j][2] = vpadalq_s16(c[j][2], vmull_s8(vget_low_s8(w1), pj));
			c[j][3] = vpadalq_s16(c[j][3], vmull_s8(vget_high_s8(w1), pj));
		}
	}
	for (j = 0; j < nj; j++) {
		vst1q_s32(acc + j * QMR, qg_padd(c[j][0], c[j][1]));
		vst1q_s32(acc + j * QMR + 4, qg_padd(c[j][2], c[j][3]));
	}
}

QG_INLINE void qg_tile(const int8_t *w, const int8_t *p, int64_t k4, int np, int32_t *acc)
{
	if (np == 1) {
		qg_mull(w, p, 4, k4, 1, acc);
	} else {
		qg_mull(w, p, 4 * QNP, k4, 4, acc);
		qg_mull(w, p + 16, 4 * QNP, k4, 4, acc + 4 * QMR);
	}
}
#endif

/* ---- shared pieces ---- */

static int32_t qg_ld8(int64_t dt, const void *p, int64_t i)
{
	return dt == INGOT_DT_U8 ? ((const uint8_t *)p)[i] : ((const int8_t *)p)[i];
}

static int32_t qg_off(int64_t dt)        /* value - signed view: 128 for u8 */
{
	return dt == INGOT_DT_U8 ? 128 : 0;
}

/* uint32 -> int32 modulo 2^32 without implementation-defined conversions */
static int32_t qg_s32(uint32_t u)
{
	return u <= 0x7fffffffu ? (int32_t)u : (int32_t)(u - 0x80000000u) - 0x7fffffff - 1;
}

/* sum (p - zp)(w - zw) from the raw sum d: d - zw * rs - zp * cs + K * zp * zw, modulo
 * 2^32 (the true value fits int32: K <= INGOT_NEON_QMAX_K) */
static int32_t qg_fix(int32_t d, int32_t rs, int32_t cs, int32_t zp, int32_t zw, int64_t k)
{
	uint32_t v = (uint32_t)d - (uint32_t)zw * (uint32_t)rs - (uint32_t)zp * (uint32_t)cs +
	             (uint32_t)k * (uint32_t)zp * (uint32_t)zw;
	return qg_s32(v);
}

/* The output range: the dtype's, narrowed by the fused clamp (as quant.c). */
static void qg_range(int64_t dt, int64_t y_lo, int64_t y_hi, double *lo, double *hi)
{
	*lo = dt == INGOT_DT_U8 ? 0.0 : -128.0;
	*hi = dt == INGOT_DT_U8 ? 255.0 : 127.0;
	if ((double)y_lo > *lo)
		*lo = (double)y_lo;
	if ((double)y_hi < *hi)
		*hi = (double)y_hi;
}

/* y[i] = clamp(rint(acc * mult) + zp), the reference's requantization bit for bit */
static void qg_store(int64_t dt, void *y, int64_t i, int64_t acc, float mult, double zp,
                     double lo, double hi)
{
	double v = rint((double)acc * (double)mult) + zp;
	if (!(v >= lo))
		v = lo;
	if (v > hi)
		v = hi;
	if (dt == INGOT_DT_U8)
		((uint8_t *)y)[i] = (uint8_t)(int64_t)v;
	else
		((int8_t *)y)[i] = (int8_t)(int64_t)v;
}

static int qg_span(int64_t n, int task, int n_tasks, int64_t *e0, int64_t *e1)
{
	if (n_tasks < 1) {
		task = 0;
		n_tasks = 1;
	}
	*e0 = n * task / n_tasks;
	*e1 = n * (task + 1) / n_tasks;
	return *e0 < *e1;
}

static int qg_8bit(int64_t dt)
{
	return dt == INGOT_DT_U8 || dt == INGOT_DT_I8;
}

/* ---- QLinearConv ---- */

typedef struct qg_conv {
	const ingot_neon_qconv_params *p;
	const uint8_t *x;
	int64_t C, M, Cg, Mg, H, W, OH, OW, KH, KW, sh, sw, dh, dw, ph, pw, K;
	int xf, wf;                  /* xor to the signed view: 0x80 for u8, 0 for i8 */
	int32_t zx;                  /* the input zero point in the signed view */
	uint8_t pad;                 /* its byte: padding taps */
} qg_conv;

/* A 1 x 1 Conv with stride 1 and no padding: the tile is a transpose of 8 pixels x
 * Cg channels, four channels at a time (two zips interleave their 8-byte rows). */
static void qg_pointwise(const qg_conv *c, const uint8_t *xg, int64_t p0, int8_t *tile,
                         int32_t *rs)
{
	const int64_t hw = c->H * c->W;
	const uint8x8_t flip = vdup_n_u8((uint8_t)c->xf), zero = vdup_n_u8(0);
	int32x4_t s0 = vdupq_n_s32(0), s1 = vdupq_n_s32(0);
	for (int64_t c0 = 0; c0 < c->Cg; c0 += 4, tile += 4 * QNP) {
		uint8x8_t r[4];
		for (int i = 0; i < 4; i++) {
			r[i] = c0 + i < c->Cg ? veor_u8(vld1_u8(xg + (c0 + i) * hw + p0), flip) : zero;
			const int16x8_t v = vmovl_s8(vreinterpret_s8_u8(r[i]));
			s0 = vaddw_s16(s0, vget_low_s16(v));
			s1 = vaddw_s16(s1, vget_high_s16(v));
		}
		const uint8x8x2_t z01 = vzip_u8(r[0], r[1]), z23 = vzip_u8(r[2], r[3]);
		const uint16x4x2_t lo = vzip_u16(vreinterpret_u16_u8(z01.val[0]), vreinterpret_u16_u8(z23.val[0]));
		const uint16x4x2_t hi = vzip_u16(vreinterpret_u16_u8(z01.val[1]), vreinterpret_u16_u8(z23.val[1]));
		vst1_u8((uint8_t *)tile, vreinterpret_u8_u16(lo.val[0]));
		vst1_u8((uint8_t *)tile + 8, vreinterpret_u8_u16(lo.val[1]));
		vst1_u8((uint8_t *)tile + 16, vreinterpret_u8_u16(hi.val[0]));
		vst1_u8((uint8_t *)tile + 24, vreinterpret_u8_u16(hi.val[1]));
	}
	vst1q_s32(rs, s0);
	vst1q_s32(rs + 4, s1);
}

/* The P tile of output pixels [p0, p0 + np) of image n, group grp: per k4 group the 4
 * bytes of each of QNP rows (rows past np and k past K zero); rs: row sums. */
static void qg_im2col(const qg_conv *c, int64_t n, int64_t grp, int64_t p0, int64_t np,
                      int8_t *tile, int32_t *rs)
{
	const int64_t kp = ingot_neon_qround(c->K, 4);
	if (np == QNP && c->KH == 1 && c->KW == 1 && c->sh == 1 && c->sw == 1 && c->ph == 0 &&
	    c->pw == 0 && c->OH == c->H && c->OW == c->W) {
		qg_pointwise(c, c->x + (n * c->C + grp * c->Cg) * c->H * c->W, p0, tile, rs);
		return;
	}
	memset(tile, 0, (size_t)(kp * QNP));
	for (int64_t j = 0; j < QNP; j++) {
		int32_t s = 0;
		int64_t kk = 0, oy, ox;
		rs[j] = 0;
		if (j >= np)
			continue;
		oy = (p0 + j) / c->OW;
		ox = (p0 + j) % c->OW;
		for (int64_t ic = 0; ic < c->Cg; ic++) {
			const uint8_t *xc = c->x + ((n * c->C + grp * c->Cg + ic) * c->H) * c->W;
			for (int64_t ky = 0; ky < c->KH; ky++) {
				const int64_t iy = oy * c->sh + ky * c->dh - c->ph;
				for (int64_t kx = 0; kx < c->KW; kx++, kk++) {
					const int64_t ix = ox * c->sw + kx * c->dw - c->pw;
					uint8_t b = c->pad;
					if (iy >= 0 && iy < c->H && ix >= 0 && ix < c->W)
						b = (uint8_t)(xc[iy * c->W + ix] ^ c->xf);
					tile[kk / 4 * 4 * QNP + j * 4 + kk % 4] = (int8_t)b;
					s += (int8_t)b;
				}
			}
		}
		rs[j] = s;
	}
}

/* Depthwise (one input channel per output channel): output channel oc of image n,
 * directly; stride-1 runs of 8 columns whose taps are all inside the row go 8 lanes
 * at a time (x - xz and w - wz fit int16; their products accumulate in int32). */
static void qg_depthwise(const qg_conv *c, const uint8_t *w, int64_t n, int64_t oc, int32_t wz,
                         int64_t b0, float mult, double yz, double lo, double hi, void *y)
{
	const ingot_neon_qconv_params *p = c->p;
	const uint8_t *xc = c->x + ((n * c->C + oc / c->Mg) * c->H) * c->W;
	const uint8_t *wk = w + oc * c->KH * c->KW;
	const int wf = c->wf;
	const uint8x8_t flip = vdup_n_u8((uint8_t)c->xf);
	const int16x8_t vxz = vdupq_n_s16((int16_t)c->zx);
	int32_t acc[8];
	for (int64_t oy = 0; oy < c->OH; oy++) {
		for (int64_t ox0 = 0; ox0 < c->OW; ox0 += 8) {
			const int64_t len = c->OW - ox0 < 8 ? c->OW - ox0 : 8;
			const int run = len == 8 && c->sw == 1 && ox0 - c->pw >= 0 &&
			                ox0 + 7 + (c->KW - 1) * c->dw - c->pw < c->W;
			int32x4_t a0 = vdupq_n_s32(0), a1 = vdupq_n_s32(0);
			memset(acc, 0, sizeof acc);
			for (int64_t ky = 0; ky < c->KH; ky++) {
				const int64_t iy = oy * c->sh + ky * c->dh - c->ph;
				const uint8_t *row = xc + iy * c->W;
				if (iy < 0 || iy >= c->H)
					continue;
				for (int64_t kx = 0; kx < c->KW; kx++) {
					const int32_t wv = (int32_t)((int8_t)(wk[ky * c->KW + kx] ^ wf)) - wz;
					if (run) {
						const uint8x8_t xb = veor_u8(vld1_u8(row + ox0 + kx * c->dw - c->pw), flip);
						const int16x8_t xv = vsubq_s16(vmovl_s8(vreinterpret_s8_u8(xb)), vxz);
						a0 = vmlal_n_s16(a0, vget_low_s16(xv), (int16_t)wv);
						a1 = vmlal_n_s16(a1, vget_high_s16(xv), (int16_t)wv);
						continue;
					}
					for (int64_t j = 0; j < len; j++) {
						const int64_t ix = (ox0 + j) * c->sw + kx * c->dw - c->pw;
						if (ix >= 0 && ix < c->W)
							acc[j] += ((int32_t)(int8_t)(row[ix] ^ c->xf) - c->zx) * wv;
					}
				}
			}
			if (run) {
				vst1q_s32(acc, a0);
				vst1q_s32(acc + 4, a1);
			}
			for (int64_t j = 0; j < len; j++)
				qg_store(p->y_dtype, y, ((n * c->M + oc) * c->OH + oy) * c->OW + ox0 + j,
				         (int64_t)acc[j] + b0, mult, yz, lo, hi);
		}
	}
}

INGOT_KERNEL int ingot_neon_qconv(const void *params, const void *const *in, void *const *out,
                                  void *scratch, int task, int n_tasks)
{
	const ingot_neon_qconv_params *p = (const ingot_neon_qconv_params *)params;
	const uint8_t *w = (const uint8_t *)in[3];
	const int32_t *bias = p->has_bias ? (const int32_t *)in[8] : NULL;
	void *y = out[0];
	qg_conv c;
	int64_t u, u0, u1, tiles, kp, wbytes;
	double lo, hi, yz;
	float xsc, ysc;
	int32_t zx;
	int8_t *tile;
	int32_t *rs, acc[QNP * QMR];
	const uint8_t *wpk;
	memset(&c, 0, sizeof c);
	c.p = p;
	c.x = (const uint8_t *)in[0];
	if (!p->qlinear || (p->nsp != 1 && p->nsp != 2) || p->group < 1 || !c.x || !w || !y ||
	    !in[1] || !in[2] || !in[4] || !in[6] || !in[7] || (p->has_bias && !bias) ||
	    !qg_8bit(p->x_dtype) || !qg_8bit(p->w_dtype) || !qg_8bit(p->y_dtype))
		return INGOT_EINVAL;
	qg_range(p->y_dtype, p->y_lo, p->y_hi, &lo, &hi);
	xsc = *(const float *)in[1];
	ysc = *(const float *)in[6];
	yz = qg_ld8(p->y_dtype, in[7], 0);
	c.C = p->x_dims[1];
	c.M = p->y_dims[1];
	c.Cg = c.C / p->group;
	c.Mg = c.M / p->group;
	c.H = p->nsp == 2 ? p->x_dims[2] : 1;
	c.W = p->x_dims[1 + p->nsp];
	c.OH = p->nsp == 2 ? p->y_dims[2] : 1;
	c.OW = p->y_dims[1 + p->nsp];
	c.KH = p->nsp == 2 ? p->w_dims[2] : 1;
	c.KW = p->w_dims[1 + p->nsp];
	c.sh = p->nsp == 2 ? p->strides[0] : 1;
	c.sw = p->strides[p->nsp - 1];
	c.dh = p->nsp == 2 ? p->dilations[0] : 1;
	c.dw = p->dilations[p->nsp - 1];
	c.ph = p->nsp == 2 ? p->pads[0] : 0;
	c.pw = p->pads[p->nsp - 1];
	c.K = c.Cg * c.KH * c.KW;
	c.xf = (int)qg_off(p->x_dtype);
	c.wf = (int)qg_off(p->w_dtype);
	zx = c.zx = qg_ld8(p->x_dtype, in[2], 0) - qg_off(p->x_dtype);
	c.pad = (uint8_t)(int8_t)zx;
	if (c.Mg == 0 || c.OH * c.OW == 0 || c.K == 0 || c.K > INGOT_NEON_QMAX_K)
		return c.Mg == 0 || c.OH * c.OW == 0 ? INGOT_OK : INGOT_EINVAL;
	if (c.Cg == 1 && !p->packed) {      /* depthwise */
		if (!qg_span(p->y_dims[0] * c.M, task, n_tasks, &u0, &u1))
			return INGOT_OK;
		for (u = u0; u < u1; u++) {
			const int64_t n = u / c.M, oc = u % c.M;
			const int32_t wz = p->w_zp == 1 ? qg_ld8(p->w_dtype, in[5], 0)
			                   : p->w_zp > 1 ? qg_ld8(p->w_dtype, in[5], oc) : 0;
			const float mult = xsc * *((const float *)in[4] + (p->w_s > 1 ? oc : 0)) / ysc;
			qg_depthwise(&c, w, n, oc, wz - qg_off(p->w_dtype), bias ? bias[oc] : 0, mult, yz,
			             lo, hi, y);
		}
		return INGOT_OK;
	}
	kp = ingot_neon_qround(c.K, 4);
	wbytes = ingot_neon_qpack_bytes(c.Mg, c.K);
	tile = (int8_t *)scratch;
	rs = (int32_t *)(void *)(tile + QNP * kp);
	if (!scratch)
		return INGOT_EINVAL;
	tiles = (c.OH * c.OW + QNP - 1) / QNP;
	if (!qg_span(p->y_dims[0] * p->group * tiles, task, n_tasks, &u0, &u1))
		return INGOT_OK;
	wpk = w;
	if (!p->packed) {          /* the weights of every group into the scratch */
		uint8_t *dst = (uint8_t *)(rs + QNP);
		for (int64_t g = 0; g < p->group; g++)
			ingot_neon_qpack(w + g * c.Mg * c.K, c.Mg, c.K, c.K, 1, c.wf, dst + g * wbytes);
		wpk = dst;
	}
	for (u = u0; u < u1; u++) {
		const int64_t n = u / (p->group * tiles), grp = u / tiles % p->group, t = u % tiles;
		const int64_t p0 = t * QNP, np = c.OH * c.OW - p0 < QNP ? c.OH * c.OW - p0 : QNP;
		const uint8_t *wg = wpk + grp * wbytes;
		const int64_t mp = ingot_neon_qround(c.Mg, QMR);
		qg_im2col(&c, n, grp, p0, np, tile, rs);
		for (int64_t o0 = 0; o0 < c.Mg; o0 += QMR) {
			const int64_t no = c.Mg - o0 < QMR ? c.Mg - o0 : QMR;
			qg_tile((const int8_t *)(wg + o0 * kp), tile, kp / 4, QNP, acc);
			for (int64_t o = 0; o < no; o++) {
				const int64_t oc = grp * c.Mg + o0 + o;
				const int32_t wz = (p->w_zp == 1 ? qg_ld8(p->w_dtype, in[5], 0)
				                    : p->w_zp > 1 ? qg_ld8(p->w_dtype, in[5], oc) : 0) -
				                   qg_off(p->w_dtype);
				const float mult = xsc * *((const float *)in[4] + (p->w_s > 1 ? oc : 0)) / ysc;
				const int64_t b0 = bias ? bias[oc] : 0;
				int32_t cs;
				memcpy(&cs, wg + mp * kp + 4 * (o0 + o), 4);
				for (int64_t j = 0; j < np; j++)
					qg_store(p->y_dtype, y, (n * c.M + oc) * c.OH * c.OW + p0 + j,
					         (int64_t)qg_fix(acc[j * QMR + o], rs[j], cs, zx, wz, c.K) + b0,
					         mult, yz, lo, hi);
			}
		}
	}
	return INGOT_OK;
}

/* ---- QLinearMatMul ---- */

/* A zero point / scale by layout (NONE, ONE, VEC; the lowering keeps BATCH off) */
static int32_t qg_zp(int64_t dt, const void *p, int64_t mode, int64_t v)
{
	return mode == 1 ? qg_ld8(dt, p, 0) : mode == 2 ? qg_ld8(dt, p, v) : 0;
}
static float qg_sc(const void *p, int64_t mode, int64_t v)
{
	return ((const float *)p)[mode == 2 ? v : 0];
}

INGOT_KERNEL int ingot_neon_qmatmul(const void *params, const void *const *in,
                                    void *const *out, void *scratch, int task, int n_tasks)
{
	const ingot_neon_qmatmul_params *p = (const ingot_neon_qmatmul_params *)params;
	const uint8_t *a = (const uint8_t *)in[0], *b = (const uint8_t *)in[3];
	const int32_t *bias = p->has_bias ? (const int32_t *)in[8] : NULL;
	const int af = (int)qg_off(p->a_dtype), bf = (int)qg_off(p->b_dtype);
	const int np = p->m == 1 ? 1 : QNP;           /* M = 1: a GEMV, one row per tile */
	int64_t batches = 1, tiles, u, u0, u1, kp, mp, last_b = -1;
	double lo, hi;
	int8_t *tile;
	int32_t *rs, acc[QNP * QMR];
	const uint8_t *bpk = b;
	uint8_t *bdst;
	if (!p->qlinear || p->s_dtype != INGOT_DT_F32 || !a || !b || !out[0] || !in[1] || !in[4] ||
	    !in[6] || (p->a_zp && !in[2]) || (p->b_zp && !in[5]) || (p->y_zp && !in[7]) ||
	    (p->has_bias && !bias) || !scratch || p->nb < 0 || p->nb > INGOT_MAX_RANK ||
	    p->k > INGOT_NEON_QMAX_K || !qg_8bit(p->a_dtype) || !qg_8bit(p->b_dtype) ||
	    !qg_8bit(p->y_dtype) || p->a_zp > 2 || p->b_zp > 2 || p->a_s > 2 || p->b_s > 2 ||
	    p->y_s > 2 || p->y_zp > 2)
		return INGOT_EINVAL;
	qg_range(p->y_dtype, p->y_lo, p->y_hi, &lo, &hi);
	for (int64_t d = 0; d < p->nb; d++)
		batches *= p->bdims[d];
	if (p->m == 0 || p->n == 0)
		return INGOT_OK;
	kp = ingot_neon_qround(p->k, 4);
	mp = ingot_neon_qround(p->n, QMR);
	tile = (int8_t *)scratch;
	rs = (int32_t *)(void *)(tile + QNP * kp);
	bdst = (uint8_t *)(rs + QNP);
	tiles = (p->m + np - 1) / np;
	if (!qg_span(batches * tiles, task, n_tasks, &u0, &u1))
		return INGOT_OK;
	for (u = u0; u < u1; u++) {
		const int64_t bt = u / tiles, i0 = u % tiles * np;
		const int64_t ni = p->m - i0 < np ? p->m - i0 : np;
		int64_t rem = bt, a_off = 0, b_off = 0;
		for (int64_t d = p->nb - 1; d >= 0; d--) {
			const int64_t id = rem % p->bdims[d];
			rem /= p->bdims[d];
			a_off += id * p->a_bstr[d];
			b_off += id * p->b_bstr[d];
		}
		if (!p->packed && b_off != last_b) {   /* B of this batch, columns as rows */
			ingot_neon_qpack(b + b_off, p->n, p->k, 1, p->n, bf, bdst);
			bpk = bdst;
			last_b = b_off;
		}
		/* the tile of A: rows i0 .. i0 + ni, per k4 group 4 bytes of each row */
		memset(tile, 0, (size_t)(kp * np));
		for (int64_t i = 0; i < np; i++) {
			const uint8_t *ar = a + a_off + (i0 + i) * p->k;
			int32_t s = 0;
			rs[i] = 0;
			if (i >= ni)
				continue;
			for (int64_t kk = 0; kk < p->k; kk++) {
				const int8_t v = (int8_t)(ar[kk] ^ af);
				tile[kk / 4 * 4 * np + i * 4 + kk % 4] = v;
				s += v;
			}
			rs[i] = s;
		}
		for (int64_t j0 = 0; j0 < p->n; j0 += QMR) {
			const int64_t nj = p->n - j0 < QMR ? p->n - j0 : QMR;
			if (np == 1)
				qg_tile((const int8_t *)(bpk + j0 * kp), tile, kp / 4, 1, acc);
			else
				qg_tile((const int8_t *)(bpk + j0 * kp), tile, kp / 4, QNP, acc);
			for (int64_t i = 0; i < ni; i++) {
				const int64_t r = i0 + i;
				const int32_t za = qg_zp(p->a_dtype, in[2], p->a_zp, r) - qg_off(p->a_dtype);
				const float sa = qg_sc(in[1], p->a_s, r), sy = qg_sc(in[6], p->y_s, r);
				const double z = p->y_zp ? qg_zp(p->y_dtype, in[7], p->y_zp, r) : 0.0;
				for (int64_t j = 0; j < nj; j++) {
					const int64_t col = j0 + j;
					const int32_t zb = qg_zp(p->b_dtype, in[5], p->b_zp, col) - qg_off(p->b_dtype);
					int32_t cs;
					memcpy(&cs, bpk + mp * kp + 4 * col, 4);
					qg_store(p->y_dtype, out[0], (bt * p->m + r) * p->n + col,
					         (int64_t)qg_fix(acc[i * QMR + j], rs[i], cs, za, zb, p->k) +
					         (bias ? bias[col] : 0),
					         sa * qg_sc(in[4], p->b_s, col) / sy, z, lo, hi);
				}
			}
		}
	}
	return INGOT_OK;
}

#endif /* NEON */
