/* x86/qgemm.c — int8 QLinearConv / ConvInteger and QLinearMatMul / MatMulInteger for
 * the x86 targets (see qgemm.h for the layouts, the arithmetic and why it is
 * exact). One source for both targets: __AVX512F__ picks 16 int32 lanes (zmm),
 * else 8 (ymm). The dot product step is `vpdpbusd` (inline asm, so no target
 * attribute is needed: AVX512-VNNI on zmm; on ymm the VEX form of AVX-VNNI or the
 * EVEX form of AVX512-VNNI + VL) or its exact vpmaddwd emulation, chosen from the CPU
 * at run time (-DINGOT_NO_VNNI forces the emulation; -DINGOT_X86_AMX adds AMX tiles). */
#include "qgemm.h"

#include <immintrin.h>
#include <math.h>
#include <string.h>

#define Q_AI static inline __attribute__((always_inline))

#if defined(__AVX512F__)
#define QL 16                    /* int32 lanes */
#define Q_MR 6                   /* rows (channels) of a tile; 4 vectors wide */
typedef __m512i qv;
#define QV_LOAD(p) _mm512_loadu_si512((const void *)(p))
#define QV_STORE(p, v) _mm512_storeu_si512((void *)(p), (v))
#define QV_SET1(x) _mm512_set1_epi32(x)
#define QV_ZERO() _mm512_setzero_si512()
#define QV_ADD(a, b) _mm512_add_epi32((a), (b))
#define QV_MADD(a, b) _mm512_madd_epi16((a), (b))
#define QV_LO16(u) _mm512_and_si512((u), _mm512_set1_epi16(0x00ff))
#define QV_HI16(u) _mm512_srli_epi16((u), 8)
#define QV_SLO16(s) _mm512_srai_epi16(_mm512_slli_epi16((s), 8), 8)
#define QV_SHI16(s) _mm512_srai_epi16((s), 8)
#define QDP_VEX(acc, u, s) __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(u), "v"(s))
#define QDP_EVEX QDP_VEX
#define QV_U8(p) _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(const void *)(p)))
#else
#define QL 8
#define Q_MR 2
typedef __m256i qv;
#define QV_LOAD(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define QV_STORE(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), (v))
#define QV_SET1(x) _mm256_set1_epi32(x)
#define QV_ZERO() _mm256_setzero_si256()
#define QV_ADD(a, b) _mm256_add_epi32((a), (b))
#define QV_MADD(a, b) _mm256_madd_epi16((a), (b))
#define QV_LO16(u) _mm256_and_si256((u), _mm256_set1_epi16(0x00ff))
#define QV_HI16(u) _mm256_srli_epi16((u), 8)
#define QV_SLO16(s) _mm256_srai_epi16(_mm256_slli_epi16((s), 8), 8)
#define QV_SHI16(s) _mm256_srai_epi16((s), 8)
#define QDP_VEX(acc, u, s) __asm__("%{vex%} vpdpbusd %2, %1, %0" : "+x"(acc) : "x"(u), "x"(s))
#define QDP_EVEX(acc, u, s) __asm__("%{evex%} vpdpbusd %2, %1, %0" : "+x"(acc) : "x"(u), "x"(s))
#define QV_U8(p) _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(p)))
#endif

#define Q_NV 4                   /* vectors of a tile */
#define Q_TW (Q_NV * QL)         /* pixels (columns) of a tile */
#define Q_MCH (8 * Q_MR)         /* conv: output channels of a task unit */
#define Q_CCH 4                  /* matmul: column tiles of a task unit */

/* cpuid leaf (eax, ecx) */
static void qg_cpuid(unsigned int leaf, unsigned int sub, unsigned int r[4])
{
	__asm__("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(sub));
}

/* What the CPU and OS offer (cpuid and XCR0, not __builtin_cpu_supports, whose
 * feature names differ between compilers): bit 0 AVX-VNNI, bit 1 AVX512-VNNI with VL,
 * bit 2 AMX-TILE and AMX-INT8 (the OS grant is asked apart, qg_amx). This code is built
 * for AVX2 or AVX-512, so CPUID leaf 7 exists and the OS saves the ymm state (the
 * zmm state too in an AVX-512 build): leaves 0 and 1 and, for AVX-512, XCR0 need no
 * asking. Few CPUID instructions, as each one can trap to a hypervisor (tens of
 * microseconds in some VMs, and this runs on every kernel call). */
static INGOT_UNUSED int qg_cpu(void)   /* unused when -DINGOT_NO_VNNI */
{
	unsigned int r1[4], l0[4];
	int f = 0;
	qg_cpuid(7, 0, l0);
#if defined(__AVX512F__)
	(void)r1;
	if ((l0[2] >> 11 & 1) && (l0[1] >> 31 & 1))
		f |= 2;
#else
	{
		unsigned int xlo = 0, xhi = 0;
		__asm__("xgetbv" : "=a"(xlo), "=d"(xhi) : "c"(0));
		(void)xhi;
		r1[0] = 0;
		if (l0[0] >= 1)                      /* leaf 7's last subleaf */
			qg_cpuid(7, 1, r1);
		if (r1[0] >> 4 & 1)
			f |= 1;
		if ((xlo & 0xe6) == 0xe6 && (l0[2] >> 11 & 1) && (l0[1] >> 31 & 1))
			f |= 2;
	}
#endif
	if ((l0[3] >> 24 & 3) == 3)
		f |= 4;
	return f;
}

/* The dot product path: 0 emulated, 1 VEX vpdpbusd, 2 EVEX vpdpbusd (ymm on AVX512-VNNI
 * + VL without AVX-VNNI; on zmm the one form). Asked of the CPU on every call (a few
 * CPUID instructions), so the code keeps no state; building with -DINGOT_NO_VNNI forces
 * the emulation. */
static int qg_vnni(void)
{
#if defined(INGOT_NO_VNNI)
	return 0;
#else
	const int f = qg_cpu();
#if defined(__AVX512F__)
	return f & 2 ? 1 : 0;
#else
	return f & 1 ? 1 : f & 2 ? 2 : 0;
#endif
#endif
}

static inline int32_t qg_ld32(const uint8_t *p)
{
	int32_t v;
	memcpy(&v, p, 4);
	return v;
}

/* int64 -> int32 modulo 2^32 */
static inline int32_t qg_wrap(int64_t v)
{
	uint32_t u = (uint32_t)((uint64_t)v & 0xffffffffu);
	return u <= 0x7fffffffu ? (int32_t)u : (int32_t)(u - 0x80000000u) - 0x7fffffff - 1;
}

/* One k-quad step of a tile: acc[r][v] += dot4(u, s) where one side is the
 * broadcast b[r] (4 bytes of row r) and the other the vector vec[v]. vec_u: the
 * vectors are the unsigned side (conv), else the signed side (matmul). */
Q_AI void qg_step(int vnni, int mr, int nv, int vec_u, qv acc[Q_MR][Q_NV], const int32_t *b, const qv *vec)
{
	if (vnni) {
#pragma GCC unroll 8
		for (int r = 0; r < mr; r++) {
			const qv s = QV_SET1(b[r]);
#pragma GCC unroll 4
			for (int v = 0; v < nv; v++) {
				if (vec_u) {
					if (vnni == 1)
						QDP_VEX(acc[r][v], vec[v], s);
					else
						QDP_EVEX(acc[r][v], vec[v], s);
				} else {
					if (vnni == 1)
						QDP_VEX(acc[r][v], s, vec[v]);
					else
						QDP_EVEX(acc[r][v], s, vec[v]);
				}
			}
		}
		return;
	}
	qv lo[Q_NV], hi[Q_NV];
#pragma GCC unroll 4
	for (int v = 0; v < nv; v++) {
		lo[v] = vec_u ? QV_LO16(vec[v]) : QV_SLO16(vec[v]);
		hi[v] = vec_u ? QV_HI16(vec[v]) : QV_SHI16(vec[v]);
	}
#pragma GCC unroll 8
	for (int r = 0; r < mr; r++) {
		const qv s = QV_SET1(b[r]);
		const qv sl = vec_u ? QV_SLO16(s) : QV_LO16(s), sh = vec_u ? QV_SHI16(s) : QV_HI16(s);
#pragma GCC unroll 4
		for (int v = 0; v < nv; v++)
			acc[r][v] = QV_ADD(acc[r][v], QV_ADD(QV_MADD(lo[v], sl), QV_MADD(hi[v], sh)));
	}
}

Q_AI void qg_store_acc(int mr, int nv, qv acc[Q_MR][Q_NV], int32_t *out)
{
#pragma GCC unroll 8
	for (int r = 0; r < mr; r++)
#pragma GCC unroll 4
		for (int v = 0; v < nv; v++)
			QV_STORE(out + r * Q_TW + v * QL, acc[r][v]);
}

/* Conv tile: mr channels (weight rows w + r * k4) x Q_TW pixels of the gathered
 * block (xp: the tile's first pixel in quad 0, qstride bytes per quad), the sums of
 * row r starting at init[r]. */
Q_AI void qc_tile(int vnni, int mr, int nv, int64_t nq, const uint8_t *w, int64_t k4, const uint8_t *xp,
                  int64_t qstride, const int32_t *init, int32_t *out)
{
	qv acc[Q_MR][Q_NV];
#pragma GCC unroll 8
	for (int r = 0; r < mr; r++)
#pragma GCC unroll 4
		for (int v = 0; v < nv; v++)
			acc[r][v] = QV_SET1(init[r]);
	for (int64_t q = 0; q < nq; q++) {
		int32_t b[Q_MR];
		qv vec[Q_NV];
#pragma GCC unroll 4
		for (int v = 0; v < nv; v++)
			vec[v] = QV_LOAD(xp + q * qstride + v * QL * 4);
#pragma GCC unroll 8
		for (int r = 0; r < mr; r++)
			b[r] = qg_ld32(w + r * k4 + q * 4);
		qg_step(vnni, mr, nv, 1, acc, b, vec);
	}
	qg_store_acc(mr, nv, acc, out);
}

/* MatMul tile: mr rows of A (ar[r], nq quads, then the padded tail quad tail + 4 r
 * when tail) x Q_NV panels of B (bp, pstride bytes per panel, QL * 4 per quad). */
Q_AI void qm_tile(int vnni, int mr, int64_t nq, const uint8_t *const *ar, const uint8_t *tail,
                  int32_t flip, const uint8_t *bp, int64_t pstride, int32_t *out)
{
	qv acc[Q_MR][Q_NV];
	int32_t b[Q_MR];
	qv vec[Q_NV];
#pragma GCC unroll 8
	for (int r = 0; r < mr; r++)
#pragma GCC unroll 4
		for (int v = 0; v < Q_NV; v++)
			acc[r][v] = QV_ZERO();
	for (int64_t q = 0; q < nq; q++) {
#pragma GCC unroll 4
		for (int v = 0; v < Q_NV; v++)
			vec[v] = QV_LOAD(bp + v * pstride + q * QL * 4);
#pragma GCC unroll 8
		for (int r = 0; r < mr; r++)
			b[r] = qg_ld32(ar[r] + q * 4) ^ flip;
		qg_step(vnni, mr, Q_NV, 0, acc, b, vec);
	}
	if (tail) {
#pragma GCC unroll 4
		for (int v = 0; v < Q_NV; v++)
			vec[v] = QV_LOAD(bp + v * pstride + nq * QL * 4);
#pragma GCC unroll 8
		for (int r = 0; r < mr; r++)
			b[r] = qg_ld32(tail + 4 * r) ^ flip;
		qg_step(vnni, mr, Q_NV, 0, acc, b, vec);
	}
	qg_store_acc(mr, Q_NV, acc, out);
}

/* The tiles for each path and row count (constants, so the loops unroll). */
#define Q_CASE(V, R) case (V) * 8 + (R)
#define Q_CASES(CALL) \
	switch (vnni * 8 + mr) { \
	Q_CASE(0, 1): CALL(0, 1); break; Q_CASE(1, 1): CALL(1, 1); break; Q_CASE(2, 1): CALL(2, 1); break; \
	Q_CASE(0, 2): CALL(0, 2); break; Q_CASE(1, 2): CALL(1, 2); break; Q_CASE(2, 2): CALL(2, 2); break; \
	Q_CASES_WIDE(CALL) \
	default: break; \
	}
#if Q_MR > 2
#define Q_CASES_WIDE(CALL) \
	Q_CASE(0, 3): CALL(0, 3); break; Q_CASE(1, 3): CALL(1, 3); break; \
	Q_CASE(0, 4): CALL(0, 4); break; Q_CASE(1, 4): CALL(1, 4); break; \
	Q_CASE(0, 5): CALL(0, 5); break; Q_CASE(1, 5): CALL(1, 5); break; \
	Q_CASE(0, 6): CALL(0, 6); break; Q_CASE(1, 6): CALL(1, 6); break;
#define QC_PARTS_WIDE \
	QC_PART(3, 1) QC_PART(3, 2) QC_PART(3, 3) QC_PART(4, 1) QC_PART(4, 2) QC_PART(4, 3) \
	QC_PART(5, 1) QC_PART(5, 2) QC_PART(5, 3) QC_PART(6, 1) QC_PART(6, 2) QC_PART(6, 3)
#else
#define Q_CASES_WIDE(CALL)
#define QC_PARTS_WIDE
#endif

/* nv: the tile's vectors that hold pixels (a last tile of fewer than Q_TW pixels
 * computes only those on the vpdpbusd path, where the cases are cheap) */
static void qc_tile_any(int vnni, int mr, int nv, int64_t nq, const uint8_t *w, int64_t k4,
                        const uint8_t *xp, int64_t qstride, const int32_t *init, int32_t *out)
{
#define QC_CALL(V, R) qc_tile(V, R, Q_NV, nq, w, k4, xp, qstride, init, out)
#define QC_PART(R, N) case (R) * 8 + (N): qc_tile(1, R, N, nq, w, k4, xp, qstride, init, out); return;
	if (vnni == 1 && nv < Q_NV) {
		switch (mr * 8 + nv) {
		QC_PART(1, 1) QC_PART(1, 2) QC_PART(1, 3) QC_PART(2, 1) QC_PART(2, 2) QC_PART(2, 3)
		QC_PARTS_WIDE
		default: break;
		}
	}
	Q_CASES(QC_CALL)
#undef QC_PART
#undef QC_CALL
}

static void qm_tile_any(int vnni, int mr, int64_t nq, const uint8_t *const *ar, const uint8_t *tail,
                        int32_t flip, const uint8_t *bp, int64_t pstride, int32_t *out)
{
#define QM_CALL(V, R) qm_tile(V, R, nq, ar, tail, flip, bp, pstride, out)
	Q_CASES(QM_CALL)
#undef QM_CALL
}

/* y[j] = clamp(rint((double)(t[j] + bias) * mult) + zp) for j < n, bias bv[j] (or
 * bs), mult mv[j] (or ms), as u8 (is_i8 0) or i8 bytes. */
static void qg_requant(const int32_t *t, int64_t n, const int32_t *bv, double bs, const float *mv,
                      float ms, double zp, double lo, double hi, int is_i8, uint8_t *y)
{
	const __m256d zpv = _mm256_set1_pd(zp), lov = _mm256_set1_pd(lo), hiv = _mm256_set1_pd(hi);
	const __m256d bsv = _mm256_set1_pd(bs), msv = _mm256_set1_pd((double)ms);
	int64_t j = 0;
#if defined(__AVX512F__)
	{   /* 16 at a time on zmm: the same double operations as the ymm loop */
		const __m512d zp8 = _mm512_set1_pd(zp), lo8 = _mm512_set1_pd(lo), hi8 = _mm512_set1_pd(hi);
		const __m512d bs8 = _mm512_set1_pd(bs), ms8 = _mm512_set1_pd((double)ms);
		for (; j + 16 <= n; j += 16) {
			__m256i r[2];
			__m512i w;
			for (int h = 0; h < 2; h++) {
				__m512d a = _mm512_cvtepi32_pd(_mm256_loadu_si256((const __m256i *)(const void *)(t + j + 8 * h)));
				__m512d m = mv ? _mm512_cvtps_pd(_mm256_loadu_ps(mv + j + 8 * h)) : ms8;
				a = _mm512_add_pd(a, bv ? _mm512_cvtepi32_pd(_mm256_loadu_si256(
				                              (const __m256i *)(const void *)(bv + j + 8 * h)))
				                        : bs8);
				a = _mm512_roundscale_pd(_mm512_mul_pd(a, m), _MM_FROUND_CUR_DIRECTION);
				a = _mm512_min_pd(_mm512_max_pd(_mm512_add_pd(a, zp8), lo8), hi8);
				r[h] = _mm512_cvtpd_epi32(a);
			}
			w = _mm512_inserti64x4(_mm512_castsi256_si512(r[0]), r[1], 1);
			/* in range already: the saturating narrowings only narrow */
			_mm_storeu_si128((__m128i *)(void *)(y + j), is_i8 ? _mm512_cvtsepi32_epi8(w) : _mm512_cvtusepi32_epi8(w));
		}
		if (j < n) {   /* the last n - j < 16 under masks: 8 lanes per half */
			const int64_t rest = n - j;
			const __mmask8 k0 = (__mmask8)(rest >= 8 ? 0xff : (1u << rest) - 1u);
			const __mmask8 k1 = (__mmask8)(rest >= 16 ? 0xff : rest > 8 ? (1u << (rest - 8)) - 1u : 0u);
			__m256i r[2];
			__m512i w;
			for (int h = 0; h < 2; h++) {
				const __mmask8 k = h ? k1 : k0;
				__m512d a = _mm512_cvtepi32_pd(_mm256_maskz_loadu_epi32(k, t + j + 8 * h));
				__m512d m = mv ? _mm512_cvtps_pd(_mm256_maskz_loadu_ps(k, mv + j + 8 * h)) : ms8;
				a = _mm512_add_pd(a, bv ? _mm512_cvtepi32_pd(_mm256_maskz_loadu_epi32(k, bv + j + 8 * h)) : bs8);
				a = _mm512_roundscale_pd(_mm512_mul_pd(a, m), _MM_FROUND_CUR_DIRECTION);
				a = _mm512_min_pd(_mm512_max_pd(_mm512_add_pd(a, zp8), lo8), hi8);
				r[h] = _mm512_cvtpd_epi32(a);
			}
			w = _mm512_inserti64x4(_mm512_castsi256_si512(r[0]), r[1], 1);
			{
				const __mmask16 km = (__mmask16)(((uint32_t)1 << rest) - 1u);
				if (is_i8)
					_mm512_mask_cvtsepi32_storeu_epi8(y + j, km, w);
				else
					_mm512_mask_cvtusepi32_storeu_epi8(y + j, km, w);
			}
			j = n;
		}
	}
#endif
	for (; j + 8 <= n; j += 8) {
		__m128i r[2], w;
		for (int h = 0; h < 2; h++) {
			__m256d a = _mm256_cvtepi32_pd(_mm_loadu_si128((const __m128i *)(const void *)(t + j + 4 * h)));
			__m256d m = mv ? _mm256_cvtps_pd(_mm_loadu_ps(mv + j + 4 * h)) : msv;
			a = _mm256_add_pd(a, bv ? _mm256_cvtepi32_pd(_mm_loadu_si128(
			                              (const __m128i *)(const void *)(bv + j + 4 * h)))
			                        : bsv);
			a = _mm256_round_pd(_mm256_mul_pd(a, m), _MM_FROUND_CUR_DIRECTION);
			a = _mm256_min_pd(_mm256_max_pd(_mm256_add_pd(a, zpv), lov), hiv);
			r[h] = _mm256_cvtpd_epi32(a);
		}
		w = _mm_packs_epi32(r[0], r[1]);
		w = is_i8 ? _mm_packs_epi16(w, w) : _mm_packus_epi16(w, w);
		_mm_storel_epi64((__m128i *)(void *)(y + j), w);
	}
	/* the tail is under 8 (the mask tells gcc so, or constant propagation of a huge n
	 * makes it warn about the loop) */
	for (int64_t rest = (n - j) & 7; rest > 0; rest--, j++) {
		double v = rint(((double)t[j] + (bv ? (double)bv[j] : bs)) * (double)(mv ? mv[j] : ms)) + zp;
		if (!(v >= lo))
			v = lo;
		if (v > hi)
			v = hi;
		y[j] = is_i8 ? (uint8_t)(int8_t)(int)v : (uint8_t)(int)v;
	}
}

/* The output range: the dtype's, narrowed to [y_lo, y_hi]. */
static void qg_range8(int64_t dt, int64_t y_lo, int64_t y_hi, double *lo, double *hi)
{
	*lo = dt == INGOT_DT_I8 ? -128.0 : 0.0;
	*hi = dt == INGOT_DT_I8 ? 127.0 : 255.0;
	if ((double)y_lo > *lo)
		*lo = (double)y_lo;
	if ((double)y_hi < *hi)
		*hi = (double)y_hi;
}

/* An 8-bit scalar of dtype dt at p[i], as an integer. */
static inline int32_t qg_b8(int64_t dt, const void *p, int64_t i)
{
	const uint8_t b = ((const uint8_t *)p)[i];
	return dt == INGOT_DT_I8 ? (int32_t)(int8_t)b : (int32_t)b;
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

/* ---- conv ---- */

typedef struct qc_geo {
	int64_t H, W, OH, OW, KH, KW, sh, sw, dh, dw, ph, pw, K, k4;
	uint8_t flip, xzu;           /* x's byte flip to u8, x's zero point as u8 */
} qc_geo;

/* ceil(a / s) for a > 0, s >= 1, without a division at strides 1 and 2 */
static inline int64_t qc_cdiv(int64_t a, int64_t s)
{
	return s == 1 ? a : s == 2 ? (a + 1) >> 1 : (a + s - 1) / s;
}

/* One pixel's 4 taps (rows row[j], NULL: the constant cv[j]; column (ow + i) sw + off[j],
 * the zero point outside the row) into d[4 i ..]. */
static inline void qc_gather_px(const qc_geo *g, const uint8_t *const row[4], const int64_t off[4],
                                const uint8_t cv[4], int64_t ow, int64_t i, uint8_t *d)
{
	for (int j = 0; j < 4; j++) {
		uint8_t v = cv[j];
		if (row[j]) {
			const int64_t iw = (ow + i) * g->sw + off[j];
			if (iw >= 0 && iw < g->W)
				v = (uint8_t)(row[j][iw] ^ g->flip);
		}
		d[4 * i + j] = v;
	}
}

/* N (16, 8 or 4) pixels' taps at stride SW (1 or 2) from src[j] (every byte read,
 * N SW of them, inside the row; NULL: the constant cv[j]) interleaved into d as [N][4]. */
Q_AI void qc_gather_vec(int n, int sw, const uint8_t *const src[4], const uint8_t cv[4], uint8_t flip,
                        uint8_t *d)
{
	const __m128i fl = _mm_set1_epi8((char)flip), lo8 = _mm_set1_epi16(0x00ff);
	__m128i r[4], a01, a23;
	for (int j = 0; j < 4; j++) {
		const uint8_t *s = src[j];
		__m128i v, a, b;
		int32_t w;
		if (!s) {
			r[j] = _mm_set1_epi8((char)cv[j]);
			continue;
		}
		if (n * sw == 32) {
			a = _mm_loadu_si128((const __m128i *)(const void *)s);
			b = _mm_loadu_si128((const __m128i *)(const void *)(s + 16));
		} else if (n * sw == 16) {
			a = b = _mm_loadu_si128((const __m128i *)(const void *)s);
		} else if (n * sw == 8) {
			a = b = _mm_loadl_epi64((const __m128i *)(const void *)s);
		} else {
			memcpy(&w, s, 4);
			a = b = _mm_cvtsi32_si128(w);
		}
		v = sw == 1 ? a : _mm_packus_epi16(_mm_and_si128(a, lo8), _mm_and_si128(b, lo8));
		r[j] = _mm_xor_si128(v, fl);
	}
	a01 = _mm_unpacklo_epi8(r[0], r[1]);
	a23 = _mm_unpacklo_epi8(r[2], r[3]);
	_mm_storeu_si128((__m128i *)(void *)d, _mm_unpacklo_epi16(a01, a23));
	if (n >= 8)
		_mm_storeu_si128((__m128i *)(void *)(d + 16), _mm_unpackhi_epi16(a01, a23));
	if (n == 16) {
		a01 = _mm_unpackhi_epi8(r[0], r[1]);
		a23 = _mm_unpackhi_epi8(r[2], r[3]);
		_mm_storeu_si128((__m128i *)(void *)(d + 32), _mm_unpacklo_epi16(a01, a23));
		_mm_storeu_si128((__m128i *)(void *)(d + 48), _mm_unpackhi_epi16(a01, a23));
	}
}

static void qc_gather_vec_any(int n, int sw, const uint8_t *const src[4], const uint8_t cv[4],
                              uint8_t flip, uint8_t *d)
{
	switch (n * 4 + sw) {
	case 16 * 4 + 1: qc_gather_vec(16, 1, src, cv, flip, d); break;
	case 16 * 4 + 2: qc_gather_vec(16, 2, src, cv, flip, d); break;
	case 8 * 4 + 1: qc_gather_vec(8, 1, src, cv, flip, d); break;
	case 8 * 4 + 2: qc_gather_vec(8, 2, src, cv, flip, d); break;
	case 4 * 4 + 1: qc_gather_vec(4, 1, src, cv, flip, d); break;
	default: qc_gather_vec(4, 2, src, cv, flip, d); break;
	}
}

/* Gathers the windows of output pixels [p0, p0 + np) of one image and group (x0: its
 * first input channel) into xp as [k4 / 4][pbw][4] u8; taps outside the input read
 * the zero point, k >= K and pixels >= np read 0. Per output row segment, the pixels
 * whose every tap lies inside the input go by vectors of 16, 8 or 4 (stride 1 or 2;
 * the last vector overlaps the one before rather than running past), the rest one
 * by one. */
static void qc_gather(const qc_geo *g, const uint8_t *x0, int64_t p0, int64_t np, int64_t pbw,
                      uint8_t *xp)
{
	const int64_t nq = g->k4 / 4, plane = g->H * g->W, sw = g->sw;
	int64_t kc = 0, kyy = 0, kxx = 0;   /* (channel, row, column) of k = 4 q + j, counted */
	for (int64_t q = 0; q < nq; q++) {
		uint8_t *dq = xp + q * pbw * 4;
		int64_t c[4], ky[4], kx[4], pp = 0, oh = p0 / g->OW, ow = p0 % g->OW;
		int valid[4];
		for (int j = 0; j < 4; j++) {
			valid[j] = 4 * q + j < g->K;
			c[j] = kc;
			ky[j] = kyy;
			kx[j] = kxx;
			if (++kxx == g->KW) {
				kxx = 0;
				if (++kyy == g->KH) {
					kyy = 0;
					kc++;
				}
			}
		}
		while (pp < np) {
			const int64_t seg = g->OW - ow < np - pp ? g->OW - ow : np - pp;
			const uint8_t *row[4], *src[4];
			int64_t off[4], lo = 0, hi = seg;    /* [lo, hi): every byte of every row tap inside */
			uint8_t cv[4];
			uint8_t *d = dq + pp * 4;
			for (int j = 0; j < 4; j++) {
				const int64_t ih = oh * g->sh - g->ph + ky[j] * g->dh;
				row[j] = NULL;
				cv[j] = valid[j] ? g->xzu : 0;
				off[j] = kx[j] * g->dw - g->pw;   /* iw = (ow + i) * sw + off */
				if (!valid[j] || ih < 0 || ih >= g->H)
					continue;
				row[j] = x0 + c[j] * plane + ih * g->W;
				/* i >= lo_j: (ow + i) sw + off >= 0; i < hi_j: (ow + i) sw + off + sw - 1 < W
				 * (a vector reads all sw bytes of a pixel) */
				int64_t a = -(ow * sw + off[j]), lj, hj;
				lj = a <= 0 ? 0 : qc_cdiv(a, sw);
				a = g->W - off[j] - ow * sw - (sw - 1);
				hj = a <= 0 ? 0 : qc_cdiv(a, sw);
				lo = lj > lo ? lj : lo;
				hi = hj < hi ? hj : hi;
			}
			if (lo > seg)
				lo = seg;
			if (sw > 2 || hi - lo < 4)
				hi = lo;
			for (int64_t i = 0; i < lo; i++)
				qc_gather_px(g, row, off, cv, ow, i, d);
			if (hi > lo) {
				const int n = hi - lo >= 16 ? 16 : hi - lo >= 8 ? 8 : 4;
				for (int64_t i = lo;; i += n) {
					if (i + n > hi)
						i = hi - n;
					for (int j = 0; j < 4; j++)
						src[j] = row[j] ? row[j] + (ow + i) * sw + off[j] : NULL;
					qc_gather_vec_any(n, (int)sw, src, cv, g->flip, d + 4 * i);
					if (i + n >= hi)
						break;
				}
			}
			for (int64_t i = hi > lo ? hi : lo; i < seg; i++)
				qc_gather_px(g, row, off, cv, ow, i, d);
			pp += seg;
			ow += seg;
			if (ow == g->OW) {
				ow = 0;
				oh++;
			}
		}
		memset(dq + np * 4, 0, (size_t)((pbw - np) * 4));
	}
}

/* sum[p] = the sum of pixel p's gathered bytes, p < pbw */
static void qc_sums(const uint8_t *xp, int64_t nq, int64_t pbw, int32_t *sum)
{
	for (int64_t p = 0; p < pbw; p++)
		sum[p] = 0;
	for (int64_t q = 0; q < nq; q++) {
		const uint8_t *b = xp + q * pbw * 4;
		for (int64_t p = 0; p < pbw; p++)
			sum[p] += (int32_t)b[4 * p] + b[4 * p + 1] + b[4 * p + 2] + b[4 * p + 3];
	}
}

/* Depthwise (one channel per group): per channel, the input as a plane of hn rows,
 * each row sw phases of wq u8 (phase f, index j: input column j sw + f - pw; rows and
 * columns outside the input, and every byte past it, hold x's zero point), so the taps
 * of QL output pixels are QL consecutive bytes for any stride and dilation. The sums
 * run over int32 lanes: vpmaddwd of the zero-extended bytes with the tap's weight
 * w' = w - wz in the low 16 bits (x w' exactly, < 2^16 in magnitude), each lane
 * starting at -xz' sum w' (so a padding tap adds xz' w' - xz' w' = 0 in total). */
static void qc_dw_row(const qc_geo *g, const uint8_t *src, uint8_t *t, int64_t wq, uint8_t *row)
{
	const int64_t len = g->sw * wq, n = g->W < len - g->pw ? g->W : len - g->pw;
	uint8_t *d = g->sw == 1 ? row : t;
	int64_t i = 0;
	memset(d, g->xzu, (size_t)len);
	if (!src) {
		if (d != row)
			memset(row, g->xzu, (size_t)len);
		return;
	}
	if (n > 0) {
		const __m128i fl = _mm_set1_epi8((char)g->flip);
		uint8_t *o = d + g->pw;
		for (; i + 16 <= n; i += 16)
			_mm_storeu_si128((__m128i *)(void *)(o + i),
			                 _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(src + i)), fl));
		for (; i < n; i++)
			o[i] = (uint8_t)(src[i] ^ g->flip);
	}
	if (d == row)
		return;
	i = 0;
	if (g->sw == 2) {   /* evens to phase 0, odds to phase 1, 16 at a time */
		const __m128i lo8 = _mm_set1_epi16(0x00ff);
		for (; 2 * i + 32 <= len && i + 16 <= wq; i += 16) {
			const __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(t + 2 * i));
			const __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(t + 2 * i + 16));
			_mm_storeu_si128((__m128i *)(void *)(row + i),
			                 _mm_packus_epi16(_mm_and_si128(a, lo8), _mm_and_si128(b, lo8)));
			_mm_storeu_si128((__m128i *)(void *)(row + wq + i),
			                 _mm_packus_epi16(_mm_srli_epi16(a, 8), _mm_srli_epi16(b, 8)));
		}
	}
	for (; i < wq; i++)
		for (int64_t f = 0; f < g->sw; f++)
			row[f * wq + i] = t[i * g->sw + f];
}

/* Units [u0, u1) of (image, channel) of a depthwise conv; the rest as ingot_x86_qconv. */
/* The vpdpbusd path of a depthwise channel whose weights w' = w - wz fit in s8 (any s8
 * weights of zero point 0), at column stride and dilation 1 or 2 and KW <= 8: rows
 * unphased (byte i: input column i - pw), the window's taps by groups of 4 columns
 * of one row, whose 4 bytes for QL pixels come from one load: a dword permutation
 * starts each 128-bit lane at its first pixel's byte, a byte shuffle picks pixel j's
 * bytes j sw + k dw (k < 4); vpdpbusd adds them times the group's 4 weights (0 past
 * KW), ng groups per row (wb: KH x ng). The same int32 sums as the vpmaddwd path. */
#if defined(__AVX512F__)
#define QV_PERMD(v, i) _mm512_permutexvar_epi32((i), (v))
#define QV_PSHUFB(v, i) _mm512_shuffle_epi8((v), (i))
#else
#define QV_PERMD(v, i) _mm256_permutevar8x32_epi32((v), (i))
#define QV_PSHUFB(v, i) _mm256_shuffle_epi8((v), (i))
#endif

static int qc_dw_dp_ok(int vnni, const qc_geo *g)
{
	return vnni && g->sw <= 2 && g->dw <= 2 && g->KW <= 8;
}

/* The dword permutation and byte shuffle of column stride sw and dilation dw. */
static void qc_dw_dp_idx(const qc_geo *g, qv *pd, qv *pb)
{
	int32_t di[QL];
	uint8_t bi[4 * QL];
	for (int l = 0; l < QL; l++)
		di[l] = (int32_t)(l / 4 * g->sw + l % 4);
	for (int l = 0; l < 4 * QL; l++)
		bi[l] = (uint8_t)(l % 16 / 4 * g->sw + l % 4 * g->dw);
	*pd = QV_LOAD(di);
	*pb = QV_LOAD(bi);
}

Q_AI void qc_dw_dp(int vnni, int ng, const qc_geo *g, const uint8_t *plane, int64_t rs, const int32_t *wb,
                   int32_t corr, int64_t owr, const qv pd, const qv pb, int32_t *acc)
{
	for (int64_t oh = 0; oh < g->OH; oh++) {
		const uint8_t *r0 = plane + oh * g->sh * rs;
		for (int64_t ob = 0; ob < owr; ob += QL) {
			qv a = QV_SET1(corr);
			for (int64_t ky = 0; ky < g->KH; ky++) {
				const uint8_t *rp = r0 + ky * g->dh * rs + ob * g->sw;
#pragma GCC unroll 2
				for (int gi = 0; gi < ng; gi++) {
					const qv v = QV_PSHUFB(QV_PERMD(QV_LOAD(rp + 4 * gi * g->dw), pd), pb);
					const qv w = QV_SET1(wb[ky * ng + gi]);
					if (vnni == 1)
						QDP_VEX(a, v, w);
					else
						QDP_EVEX(a, v, w);
				}
			}
			QV_STORE(acc + oh * g->OW + ob, a);
		}
	}
}

static void qc_dw_dp_any(int vnni, const qc_geo *g, const uint8_t *plane, int64_t rs, const int32_t *wb,
                         int32_t corr, int64_t owr, const qv *idx, int32_t *acc)
{
	const int ng = g->KW > 4 ? 2 : 1;
	if (vnni == 1 && ng == 1)
		qc_dw_dp(1, 1, g, plane, rs, wb, corr, owr, idx[0], idx[1], acc);
	else if (vnni == 1)
		qc_dw_dp(1, 2, g, plane, rs, wb, corr, owr, idx[0], idx[1], acc);
	else if (ng == 1)
		qc_dw_dp(2, 1, g, plane, rs, wb, corr, owr, idx[0], idx[1], acc);
	else
		qc_dw_dp(2, 2, g, plane, rs, wb, corr, owr, idx[0], idx[1], acc);
}

static void qc_dw(const ingot_x86_qconv_params *p, const qc_geo *g, const void *const *in, void *y,
                  const int32_t *bias, const float *wsc, float xsc, float ysc, double yz, double lo,
                  double hi, int64_t u0, int64_t u1, uint8_t *scratch, int vnni)
{
	const int ql = p->qlinear != 0;
	const uint8_t *x = (const uint8_t *)in[0], *w = (const uint8_t *)in[ql ? 3 : 1];
	const void *wzp = p->w_zp ? in[ql ? 5 : 3] : NULL;
	const int64_t C = p->x_dims[1], P = g->OH * g->OW, owr = (g->OW + QL - 1) / QL * QL;
	int64_t hn, wq;
	ingot_x86_qconv_dw_plane(p, QL, &hn, &wq);
	{
		const int64_t rs = g->sw * wq;
		uint8_t *plane = scratch, *t = plane + ingot_x86_q_al64(hn * rs);
		int32_t *acc = (int32_t *)(void *)(t + ingot_x86_q_al64(rs + 64));
		int32_t *wk = acc + P + wq + QL;   /* acc: the channel's P sums (+ a row's overrun) */
		int64_t toff[64];   /* tap t's byte offset from its output row's first (K <= 64) */
		const int few = g->K <= 64;
		qv idx[2] = { QV_ZERO(), QV_ZERO() };
		if (qc_dw_dp_ok(vnni, g))
			qc_dw_dp_idx(g, &idx[0], &idx[1]);
		for (int64_t t = 0; few && t < g->K; t++) {
			const int64_t col = t % g->KW * g->dw;
			toff[t] = t / g->KW * g->dh * rs + col % g->sw * wq + col / g->sw;
		}
		for (int64_t u = u0; u < u1; u++) {
			const int64_t c = u % C;
			const uint8_t *xc = x + u * g->H * g->W;
			const int32_t wz = (p->w_zp == 1 ? qg_b8(p->w_dtype, wzp, 0)
			                    : p->w_zp > 1 ? qg_b8(p->w_dtype, wzp, c) : 0) -
			                   (p->w_dtype == INGOT_DT_U8 ? 128 : 0);
			const float mult = ql ? xsc * wsc[p->w_s > 1 ? c : 0] / ysc : 0.0f;
			uint32_t wsum = 0;
			int32_t corr;
			int dp = qc_dw_dp_ok(vnni, g);
			for (int64_t k = 0; k < g->K; k++) {
				const int32_t v = (int32_t)(int8_t)w[c * g->k4 + k] - wz;
				wk[k] = v;
				wsum += (uint32_t)v;
				dp = dp && v >= -128 && v <= 127;
			}
			corr = (int32_t)(0u - (uint32_t)g->xzu * wsum);
			if (dp) {
				/* rows as one phase of sw wq bytes; the weights as KH x ng groups of 4 bytes
				 * (wk's K int32 hold them: ng <= KW) */
				const int ng = g->KW > 4 ? 2 : 1;
				qc_geo g1 = *g;
				g1.sw = 1;
				for (int64_t ky = 0; ky < g->KH; ky++) {
					uint32_t b[2] = { 0, 0 };
					for (int64_t kx = 0; kx < g->KW; kx++)
						b[kx / 4] |= ((uint32_t)wk[ky * g->KW + kx] & 0xffu) << (8 * (kx % 4));
					wk[ky * ng] = (int32_t)b[0];   /* row ky's groups, written after it is read */
					if (ng == 2)
						wk[ky * ng + 1] = (int32_t)b[1];
				}
				for (int64_t r = 0; r < hn; r++) {
					const int64_t ih = r - g->ph;
					qc_dw_row(&g1, ih >= 0 && ih < g->H ? xc + ih * g->W : NULL, t, rs, plane + r * rs);
				}
				qc_dw_dp_any(vnni, g, plane, rs, wk, corr, owr, idx, acc);
				goto requant;
			}
			for (int64_t k = 0; k < g->K; k++)
				wk[k] = (int32_t)((uint32_t)wk[k] & 0xffffu);
			for (int64_t r = 0; r < hn; r++) {
				const int64_t ih = r - g->ph;
				qc_dw_row(g, ih >= 0 && ih < g->H ? xc + ih * g->W : NULL, t, wq, plane + r * rs);
			}
			for (int64_t oh = 0; oh < g->OH; oh++) {
				for (int64_t ob = 0; ob < owr; ob += QL) {
					qv a = QV_SET1(corr);
					if (few) {
						const uint8_t *rp = plane + oh * g->sh * rs + ob;
						for (int64_t t = 0; t < g->K; t++)
							a = QV_ADD(a, QV_MADD(QV_U8(rp + toff[t]), QV_SET1(wk[t])));
						QV_STORE(acc + oh * g->OW + ob, a);
						continue;
					}
					for (int64_t ky = 0; ky < g->KH; ky++) {
						const uint8_t *rp = plane + (oh * g->sh + ky * g->dh) * rs + ob;
						const int32_t *wr = wk + ky * g->KW;
						for (int64_t kx = 0; kx < g->KW; kx++) {
							const int64_t col = kx * g->dw;
							a = QV_ADD(a, QV_MADD(QV_U8(rp + col % g->sw * wq + col / g->sw), QV_SET1(wr[kx])));
						}
					}
					QV_STORE(acc + oh * g->OW + ob, a);
				}
			}
			/* a row's last vector ran into the next row's start, which that row rewrote:
			 * the plane's sums, requantized in one call */
		requant:
			if (!ql)
				memcpy((int32_t *)y + u * P, acc, (size_t)P * sizeof *acc);
			else
				qg_requant(acc, P, NULL, bias ? (double)bias[c] : 0.0, NULL, mult, yz, lo, hi,
				           p->y_dtype == INGOT_DT_I8, (uint8_t *)y + u * P);
		}
	}
}

INGOT_KERNEL int ingot_x86_qconv(const void *params, const void *const *in, void *const *out,
                                 void *scratch, int task, int n_tasks)
{
	const ingot_x86_qconv_params *p = (const ingot_x86_qconv_params *)params;
	const int ql = p->qlinear != 0, two = p->nsp == 2;
	const uint8_t *x = (const uint8_t *)in[0], *w = (const uint8_t *)in[ql ? 3 : 1];
	const void *xzp = p->has_xzp ? in[2] : NULL, *wzp = p->w_zp ? in[ql ? 5 : 3] : NULL;
	const int32_t *bias = ql && p->has_bias ? (const int32_t *)in[8] : NULL;
	const float *wsc = ql ? (const float *)in[4] : NULL;
	const int vnni = qg_vnni();
	qc_geo g;
	int64_t C, M, G, Cg, Mg, P, PB, nblk, nmc, u, u0, u1, last = -1, N;
	int32_t xzs, acc[Q_MR * Q_TW], t[Q_TW];
	double lo = 0.0, hi = 0.0, yz = 0.0;
	float xsc = 0.0f, ysc = 1.0f;
	const int32_t *rsum;
	uint8_t *xp = (uint8_t *)scratch;
	int32_t *xsum;
	int need_sum = 0;
	if (!ingot_x86_qconv_ok(p) || p->packed != QL || !x || !w || !out[0] || !scratch ||
	    (p->has_xzp && !xzp) || (p->w_zp && !wzp) || (ql && p->has_bias && !bias) ||
	    (ql && (!in[1] || !in[4] || !in[6] || !in[7])))
		return INGOT_EINVAL;
	memset(&g, 0, sizeof g);
	g.H = two ? p->x_dims[2] : 1;
	g.W = p->x_dims[1 + p->nsp];
	g.OH = two ? p->y_dims[2] : 1;
	g.OW = p->y_dims[1 + p->nsp];
	g.KH = two ? p->w_dims[2] : 1;
	g.KW = p->w_dims[1 + p->nsp];
	g.sh = two ? p->strides[0] : 1;
	g.sw = p->strides[p->nsp - 1];
	g.dh = two ? p->dilations[0] : 1;
	g.dw = p->dilations[p->nsp - 1];
	g.ph = two ? p->pads[0] : 0;
	g.pw = p->pads[p->nsp - 1];
	if (g.sh < 1 || g.sw < 1 || g.dh < 1 || g.dw < 1)
		return INGOT_EINVAL;
	g.K = ingot_x86_qconv_k(p);
	g.k4 = ingot_x86_q_k4(g.K);
	g.flip = p->x_dtype == INGOT_DT_I8 ? 0x80 : 0;
	xzs = (xzp ? qg_b8(p->x_dtype, xzp, 0) : 0) + g.flip;
	g.xzu = (uint8_t)xzs;
	N = p->y_dims[0];
	C = p->x_dims[1];
	M = p->y_dims[1];
	G = p->group;
	Cg = C / G;
	Mg = M / G;
	P = g.OH * g.OW;
	if (ql) {
		qg_range8(p->y_dtype, p->y_lo, p->y_hi, &lo, &hi);
		xsc = *(const float *)in[1];
		ysc = *(const float *)in[6];
		yz = qg_b8(p->y_dtype, in[7], 0);
	}
	if (P == 0 || N == 0)
		return INGOT_OK;
	if (ingot_x86_qconv_dw(p)) {
		if (qg_span(N * C, task, n_tasks, &u0, &u1))
			qc_dw(p, &g, in, out[0], bias, wsc, xsc, ysc, yz, lo, hi, u0, u1, xp, vnni);
		return INGOT_OK;
	}
	rsum = (const int32_t *)(const void *)(w + ingot_x86_q_al64(M * g.k4));
	for (int64_t oc = 0; oc < M && !need_sum; oc++) {
		const int32_t wz = (p->w_zp == 1 ? qg_b8(p->w_dtype, wzp, 0)
		                    : p->w_zp > 1 ? qg_b8(p->w_dtype, wzp, oc) : 0) -
		                   (p->w_dtype == INGOT_DT_U8 ? 128 : 0);
		need_sum = wz != 0;
	}
	PB = ingot_x86_qconv_block(p, QL);
	xsum = (int32_t *)(void *)(xp + ingot_x86_q_al64(PB * g.k4));
	nblk = (P + PB - 1) / PB;
	nmc = (Mg + Q_MCH - 1) / Q_MCH;
	if (!qg_span(N * G * nblk * nmc, task, n_tasks, &u0, &u1))
		return INGOT_OK;
	for (u = u0; u < u1; u++) {
		const int64_t mc = u % nmc, key = u / nmc, blk = key % nblk, grp = key / nblk % G;
		const int64_t n = key / nblk / G, p0 = blk * PB, np = P - p0 < PB ? P - p0 : PB;
		const int64_t pbw = (np + Q_TW - 1) / Q_TW * Q_TW;
		const int64_t m_end = (mc + 1) * Q_MCH < Mg ? (mc + 1) * Q_MCH : Mg;
		(void)Cg;
		if (key != last) {
			qc_gather(&g, x + (n * C + grp * Cg) * g.H * g.W, p0, np, pbw, xp);
			if (need_sum)
				qc_sums(xp, g.k4 / 4, pbw, xsum);
			last = key;
		}
		for (int64_t m0 = mc * Q_MCH; m0 < m_end; m0 += Q_MR) {
			const int mr = (int)(m_end - m0 < Q_MR ? m_end - m0 : Q_MR);
			int32_t wz[Q_MR], corr[Q_MR];
			float mult[Q_MR];
			for (int r = 0; r < mr; r++) {
				/* the zero point terms but wz' sum x start the sums */
				const int64_t oc = grp * Mg + m0 + r;
				wz[r] = (p->w_zp == 1 ? qg_b8(p->w_dtype, wzp, 0)
				         : p->w_zp > 1 ? qg_b8(p->w_dtype, wzp, oc) : 0) -
				        (p->w_dtype == INGOT_DT_U8 ? 128 : 0);
				corr[r] = qg_wrap(-(int64_t)xzs * rsum[oc] + g.K * (int64_t)xzs * wz[r]);
				mult[r] = ql ? xsc * wsc[p->w_s > 1 ? oc : 0] / ysc : 0.0f;
			}
			for (int64_t t0 = 0; t0 < np; t0 += Q_TW) {
				const int64_t nv = np - t0 < Q_TW ? np - t0 : Q_TW;
				qc_tile_any(vnni, mr, (int)((nv + QL - 1) / QL), g.k4 / 4, w + (grp * Mg + m0) * g.k4, g.k4,
				            xp + t0 * 4, pbw * 4, corr, acc);
				for (int r = 0; r < mr; r++) {
					const int64_t oc = grp * Mg + m0 + r, ybase = (n * M + oc) * P + p0 + t0;
					const int32_t *a = acc + r * Q_TW;
					if (need_sum) {
						for (int64_t j = 0; j < nv; j++)
							t[j] = (int32_t)((uint32_t)a[j] - (uint32_t)wz[r] * (uint32_t)xsum[t0 + j]);
						a = t;
					}
					if (!ql)
						memcpy((int32_t *)out[0] + ybase, a, (size_t)nv * sizeof *a);
					else
						qg_requant(a, nv, NULL, bias ? (double)bias[oc] : 0.0, NULL, mult[r], yz, lo,
						           hi, p->y_dtype == INGOT_DT_I8, (uint8_t *)out[0] + ybase);
				}
			}
		}
	}
	return INGOT_OK;
}

/* ---- matmul ---- */

/* A zero point / scale by layout (INGOT_X86_QV_*): v = vec index. */
static inline int32_t qm_zp(int64_t dt, const void *p, int64_t mode, int64_t v)
{
	return mode == INGOT_X86_QV_ONE ? qg_b8(dt, p, 0) : mode == INGOT_X86_QV_VEC ? qg_b8(dt, p, v) : 0;
}

static inline float qm_s(const void *p, int64_t mode, int64_t v)
{
	return ((const float *)p)[mode == INGOT_X86_QV_VEC ? v : 0];
}

/* What every tile of one MatMul call reads. */
typedef struct qm_ctx {
	const ingot_x86_qmatmul_params *p;
	const uint8_t *a, *b;
	const void *azp, *bzp, *as, *bs, *ys, *yzp;
	const int32_t *bias, *csum;
	int32_t aflip, ashift, bshift;
	int64_t kp, nq, rem;
	double lo, hi;
	int ql, need_sum;
	void *y;
} qm_ctx;

/* Row gr of A (all batches flat): its data, index in its batch, shifted zero point
 * and K az' - sum a (the factor of the weights' zero point). */
static const uint8_t *qm_row(const qm_ctx *c, int64_t gr, int64_t *ii, int32_t *azs, int32_t *crow)
{
	const ingot_x86_qmatmul_params *p = c->p;
	int64_t bt = gr / p->m, a_off = 0, asum = 0;
	const uint8_t *ar;
	*ii = gr % p->m;
	for (int64_t d = p->nb - 1; d >= 0; d--) {
		a_off += bt % p->bdims[d] * p->a_bstr[d];
		bt /= p->bdims[d];
	}
	ar = c->a + a_off + *ii * p->k;
	*azs = qm_zp(p->a_dtype, c->azp, p->a_zp, *ii) + c->ashift;
	if (c->need_sum) {
		const uint8_t f = (uint8_t)c->aflip;
		for (int64_t kk = 0; kk < p->k; kk++)
			asum += (uint8_t)(ar[kk] ^ f);
	}
	*crow = qg_wrap(p->k * (int64_t)*azs - asum);
	return ar;
}

/* Writes row gr's outputs j0 .. j0 + nv from its sums ac (bzv: the columns' shifted
 * zero points). */
static void qm_epi(const qm_ctx *c, int64_t gr, int64_t ii, int32_t azs, int32_t crow, int64_t j0,
                   int64_t nv, const int32_t *ac, const int32_t *bzv)
{
	const ingot_x86_qmatmul_params *p = c->p;
	const int64_t ybase = gr * p->n + j0;
	int32_t t[64];
	float mv[64];
	for (int64_t j = 0; j < nv; j++)
		t[j] = (int32_t)((uint32_t)ac[j] - (uint32_t)azs * (uint32_t)c->csum[j0 + j] +
		                 (uint32_t)bzv[j] * (uint32_t)crow);
	if (!c->ql) {
		memcpy((int32_t *)c->y + ybase, t, (size_t)nv * sizeof *t);
		return;
	}
	{
		const float sa = qm_s(c->as, p->a_s, ii), sy = qm_s(c->ys, p->y_s, ii);
		const double z = c->yzp ? qm_zp(p->y_dtype, c->yzp, p->y_zp, ii) : 0.0;
		for (int64_t j = 0; j < nv; j++)
			mv[j] = sa * qm_s(c->bs, p->b_s, j0 + j) / sy;
		qg_requant(t, nv, c->bias ? c->bias + j0 : NULL, 0.0, mv, 0.0f, z, c->lo, c->hi,
		           p->y_dtype == INGOT_DT_I8, (uint8_t *)c->y + ybase);
	}
}

/* Tiles of Q_MR rows x Q_TW columns on the vector path, units [u0, u1) of
 * (row tile, Q_CCH column tiles). */
static void qm_vec(const qm_ctx *c, int vnni, int64_t u0, int64_t u1, int64_t rows, int64_t ct,
                   int64_t nch)
{
	const ingot_x86_qmatmul_params *p = c->p;
	for (int64_t u = u0; u < u1; u++) {
		const int64_t r0 = u / nch * Q_MR, ch = u % nch;
		const int mr = (int)(rows - r0 < Q_MR ? rows - r0 : Q_MR);
		const uint8_t *ar[Q_MR];
		uint8_t tail[4 * Q_MR];
		int32_t azs[Q_MR], crow[Q_MR], acc[Q_MR * Q_TW], bzv[Q_TW];
		int64_t ii[Q_MR];
		for (int r = 0; r < mr; r++) {
			ar[r] = qm_row(c, r0 + r, &ii[r], &azs[r], &crow[r]);
			memset(tail + 4 * r, 0, 4);
			memcpy(tail + 4 * r, ar[r] + 4 * c->nq, (size_t)c->rem);
		}
		for (int64_t t = ch * Q_CCH; t < ct && t < (ch + 1) * Q_CCH; t++) {
			const int64_t j0 = t * Q_TW, nv = p->n - j0 < Q_TW ? p->n - j0 : Q_TW;
			qm_tile_any(vnni, mr, c->nq, ar, c->rem ? tail : NULL, c->aflip, c->b + (j0 / QL) * c->kp * QL,
			            c->kp * QL, acc);
			for (int64_t j = 0; j < nv; j++)
				bzv[j] = qm_zp(p->b_dtype, c->bzp, p->b_zp, j0 + j) - c->bshift;
			for (int r = 0; r < mr; r++)
				qm_epi(c, r0 + r, ii[r], azs[r], crow[r], j0, nv, acc + r * Q_TW, bzv);
		}
	}
}

#if defined(__AVX512F__)
/* AMX-INT8, built in with -DINGOT_X86_AMX (off by default: at the present blocking it is
 * slower than vpdpbusd, docs/targets.md): whether the CPU has AMX-TILE and AMX-INT8
 * (CPUID 7.0 EDX bits 24, 25) and Linux grants this process the tile data state
 * (arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA = 18), made by hand: no libc
 * feature macros needed). Asked on every call that could use it (the request is
 * idempotent), so the code keeps no state; -DINGOT_NO_VNNI turns it off too. */
static int qg_amx(void)
{
#if defined(INGOT_X86_AMX) && !defined(INGOT_NO_VNNI)
	long r = -1;
	if (qg_cpu() & 4)
		__asm__ volatile("syscall" : "=a"(r) : "a"(158L), "D"(0x1023L), "S"(18L)
		                 : "rcx", "r11", "memory");
	return r == 0;
#else
	return 0;
#endif
}

/* The tile configuration: tmm0-3 the 2 x 2 int32 sums (16 x 64 bytes), tmm4-5 two
 * blocks of 16 rows of A (16 x 64 bytes), tmm6-7 two panels of B (16 quads x 64). */
static void qm_amx_config(void)
{
	uint8_t cfg[64];
	memset(cfg, 0, sizeof cfg);
	cfg[0] = 1;
	for (int t = 0; t < 8; t++) {
		cfg[16 + 2 * t] = 64;
		cfg[48 + t] = 16;
	}
	__asm__ volatile("ldtilecfg %0" : : "m"(cfg));
}

/* Units [u0, u1) of 32 rows x 32 columns on AMX tiles; scratch: A's rows padded. */
static void qm_amx(const qm_ctx *c, int64_t u0, int64_t u1, int64_t rows, int64_t cb, uint8_t *scratch)
{
	const ingot_x86_qmatmul_params *p = c->p;
	const int64_t kp = c->kp;
	uint8_t *ap = scratch;
	int32_t *cs = (int32_t *)(void *)(scratch + 32 * kp);
	int64_t last = -1;
	int32_t azs[32], crow[32], bzv[32];
	int64_t ii[32];
	qm_amx_config();
	for (int64_t u = u0; u < u1; u++) {
		const int64_t rb = u / cb, r0 = rb * 32, j0 = u % cb * 32;
		const int mr = (int)(rows - r0 < 32 ? rows - r0 : 32);
		const uint8_t *b0 = c->b + (j0 / 16) * kp * 16, *b1 = b0 + kp * 16;
		const int64_t nv = p->n - j0 < 32 ? p->n - j0 : 32;
		if (rb != last) {           /* A's rows as u8, zero past K and past the rows */
			memset(ap, 0, (size_t)(32 * kp));
			for (int r = 0; r < mr; r++) {
				const uint8_t *ar = qm_row(c, r0 + r, &ii[r], &azs[r], &crow[r]);
				const uint8_t f = (uint8_t)c->aflip;
				for (int64_t kk = 0; kk < p->k; kk++)
					ap[r * kp + kk] = (uint8_t)(ar[kk] ^ f);
			}
			last = rb;
		}
		__asm__ volatile("tilezero %%tmm0\n\ttilezero %%tmm1\n\ttilezero %%tmm2\n\ttilezero %%tmm3" : : : "memory");
		for (int64_t kb = 0; kb < kp; kb += 64)
			__asm__ volatile("tileloadd (%0,%4,1), %%tmm4\n\t"
			                 "tileloadd (%1,%4,1), %%tmm5\n\t"
			                 "tileloadd (%2,%5,1), %%tmm6\n\t"
			                 "tileloadd (%3,%5,1), %%tmm7\n\t"
			                 "tdpbusd %%tmm6, %%tmm4, %%tmm0\n\t"
			                 "tdpbusd %%tmm7, %%tmm4, %%tmm1\n\t"
			                 "tdpbusd %%tmm6, %%tmm5, %%tmm2\n\t"
			                 "tdpbusd %%tmm7, %%tmm5, %%tmm3"
			                 : : "r"(ap + kb), "r"(ap + 16 * kp + kb), "r"(b0 + kb * 16), "r"(b1 + kb * 16),
			                   "r"(kp), "r"((int64_t)64) : "memory");
		__asm__ volatile("tilestored %%tmm0, (%0,%2,1)\n\t"
		                 "tilestored %%tmm1, (%1,%2,1)" : : "r"(cs), "r"(cs + 16), "r"((int64_t)128) : "memory");
		__asm__ volatile("tilestored %%tmm2, (%0,%2,1)\n\t"
		                 "tilestored %%tmm3, (%1,%2,1)" : : "r"(cs + 16 * 32), "r"(cs + 16 * 32 + 16),
		                 "r"((int64_t)128) : "memory");
		for (int64_t j = 0; j < nv; j++)
			bzv[j] = qm_zp(p->b_dtype, c->bzp, p->b_zp, j0 + j) - c->bshift;
		for (int r = 0; r < mr; r++)
			qm_epi(c, r0 + r, ii[r], azs[r], crow[r], j0, nv, cs + r * 32, bzv);
	}
	__asm__ volatile("tilerelease" : : : "memory");
}
#endif

INGOT_KERNEL int ingot_x86_q_path(void)
{
#if defined(__AVX512F__)
	return qg_vnni() | (qg_amx() ? 4 : 0);
#else
	return qg_vnni();
#endif
}

INGOT_KERNEL int ingot_x86_qmatmul(const void *params, const void *const *in, void *const *out,
                                   void *scratch, int task, int n_tasks)
{
	const ingot_x86_qmatmul_params *p = (const ingot_x86_qmatmul_params *)params;
	const int ql = p->qlinear != 0;
	qm_ctx c;
	int64_t batches = 1, rows, nl, ct, nch, u0, u1;
	memset(&c, 0, sizeof c);
	c.p = p;
	c.ql = ql;
	c.a = (const uint8_t *)in[0];
	c.b = (const uint8_t *)in[ql ? 3 : 1];
	c.azp = p->a_zp ? in[2] : NULL;
	c.bzp = p->b_zp ? in[ql ? 5 : 3] : NULL;
	c.as = ql ? in[1] : NULL;
	c.bs = ql ? in[4] : NULL;
	c.ys = ql ? in[6] : NULL;
	c.yzp = ql && p->y_zp ? in[7] : NULL;
	c.bias = ql && p->has_bias ? (const int32_t *)in[8] : NULL;
	c.y = out[0];
	c.aflip = p->a_dtype == INGOT_DT_I8 ? (int32_t)0x80808080u : 0;
	c.ashift = p->a_dtype == INGOT_DT_I8 ? 128 : 0;
	c.bshift = p->b_dtype == INGOT_DT_U8 ? 128 : 0;
	if (!ingot_x86_qmatmul_ok(p) || p->packed != QL || !c.a || !c.b || !c.y || (p->a_zp && !c.azp) ||
	    (p->b_zp && !c.bzp) || (ql && (!c.as || !c.bs || !c.ys)) || (ql && p->y_zp && !c.yzp) ||
	    (ql && p->has_bias && !c.bias) || (QL == 16 && !scratch))
		return INGOT_EINVAL;
	if (ql)
		qg_range8(p->y_dtype, p->y_lo, p->y_hi, &c.lo, &c.hi);
	for (int64_t d = 0; d < p->nb; d++)
		batches *= p->bdims[d];
	rows = batches * p->m;
	c.kp = ingot_x86_qmatmul_kp(p->k, QL);
	c.nq = p->k / 4;
	c.rem = p->k % 4;
	nl = ingot_x86_qmatmul_nl(p->n, QL);
	c.csum = (const int32_t *)(const void *)(c.b + ingot_x86_q_al64(nl * c.kp));
	for (int64_t j = 0; j < p->n && !c.need_sum; j++)
		c.need_sum = qm_zp(p->b_dtype, c.bzp, p->b_zp, j) - c.bshift != 0;
	if (rows == 0)
		return INGOT_OK;
#if defined(__AVX512F__)
	if (rows >= 32 && p->k >= 64 && qg_amx()) {
		const int64_t cb = (p->n + 31) / 32;   /* B has whole pairs of panels: nl >= 32 cb */
		if (qg_span((rows + 31) / 32 * cb, task, n_tasks, &u0, &u1))
			qm_amx(&c, u0, u1, rows, cb, (uint8_t *)scratch);
		return INGOT_OK;
	}
#endif
	ct = (p->n + Q_TW - 1) / Q_TW;
	nch = (ct + Q_CCH - 1) / Q_CCH;
	if (qg_span((rows + Q_MR - 1) / Q_MR * nch, task, n_tasks, &u0, &u1))
		qm_vec(&c, qg_vnni(), u0, u1, rows, ct, nch);
	return INGOT_OK;
}

/* ---- QLinearAdd / QLinearMul ---- */

/* The dequantized value of byte q of an operand: (q - zp) * scale in float. */
static inline float qb_deq(int64_t dt, uint8_t q, int32_t zp, float s)
{
	return (float)(qg_b8(dt, &q, 0) - zp) * s;
}

#if defined(__AVX512F__)
#define QB_N 16
typedef __m512 qbf;
#define QB_SET1(x) _mm512_set1_ps(x)
/* 16 bytes at p as floats minus zp, times s */
static inline qbf qb_load(const uint8_t *p, int sgn, qbf zp, qbf s)
{
	const __m128i b = _mm_loadu_si128((const __m128i *)(const void *)p);
	const __m512i i = sgn ? _mm512_cvtepi8_epi32(b) : _mm512_cvtepu8_epi32(b);
	return _mm512_mul_ps(_mm512_sub_ps(_mm512_cvtepi32_ps(i), zp), s);
}
#define QB_ADD(a, b) _mm512_add_ps((a), (b))
#define QB_MUL(a, b) _mm512_mul_ps((a), (b))
/* rint(v / sy) + zp clamped to [lo, hi] (max first: a NaN takes lo), as 16 bytes at y */
static inline void qb_store(qbf v, qbf sy, qbf zp, qbf lo, qbf hi, int sgn, uint8_t *y)
{
	qbf r = _mm512_roundscale_ps(_mm512_div_ps(v, sy), _MM_FROUND_CUR_DIRECTION);
	const __m512i i = _mm512_cvtps_epi32(_mm512_min_ps(_mm512_max_ps(_mm512_add_ps(r, zp), lo), hi));
	_mm_storeu_si128((__m128i *)(void *)y, sgn ? _mm512_cvtsepi32_epi8(i) : _mm512_cvtusepi32_epi8(i));
}
#else
#define QB_N 8
typedef __m256 qbf;
#define QB_SET1(x) _mm256_set1_ps(x)
static inline qbf qb_load(const uint8_t *p, int sgn, qbf zp, qbf s)
{
	const __m128i b = _mm_loadl_epi64((const __m128i *)(const void *)p);
	const __m256i i = sgn ? _mm256_cvtepi8_epi32(b) : _mm256_cvtepu8_epi32(b);
	return _mm256_mul_ps(_mm256_sub_ps(_mm256_cvtepi32_ps(i), zp), s);
}
#define QB_ADD(a, b) _mm256_add_ps((a), (b))
#define QB_MUL(a, b) _mm256_mul_ps((a), (b))
static inline void qb_store(qbf v, qbf sy, qbf zp, qbf lo, qbf hi, int sgn, uint8_t *y)
{
	qbf r = _mm256_round_ps(_mm256_div_ps(v, sy), _MM_FROUND_CUR_DIRECTION);
	const __m256i i = _mm256_cvtps_epi32(_mm256_min_ps(_mm256_max_ps(_mm256_add_ps(r, zp), lo), hi));
	__m128i w = _mm_packs_epi32(_mm256_castsi256_si128(i), _mm256_extracti128_si256(i, 1));
	w = sgn ? _mm_packs_epi16(w, w) : _mm_packus_epi16(w, w);   /* in range: no saturation */
	_mm_storel_epi64((__m128i *)(void *)y, w);
}
#endif

/* What one QLinearAdd / Mul call computes with: la / lb the operands' layouts (0
 * contiguous, 1 one element, whose dequantized value is ca / cb). */
typedef struct qb_ctx {
	int sa8, sb8, sy8, mul, la, lb;
	qbf za, zb, sa, sb, sy, zy, lo, hi, ca, cb;
} qb_ctx;

/* QB_N outputs from QB_N bytes of each operand (an operand of one element reads none) */
static inline void qb_step(const qb_ctx *c, const uint8_t *a, const uint8_t *b, uint8_t *y)
{
	const qbf va = c->la ? c->ca : qb_load(a, c->sa8, c->za, c->sa);
	const qbf vb = c->lb ? c->cb : qb_load(b, c->sb8, c->zb, c->sb);
	qb_store(c->mul ? QB_MUL(va, vb) : QB_ADD(va, vb), c->sy, c->zy, c->lo, c->hi, c->sy8, y);
}

INGOT_KERNEL int ingot_x86_qbinary(const void *params, const void *const *in, void *const *out,
                                   void *scratch, int task, int n_tasks)
{
	const ingot_x86_qbinary_params *p = (const ingot_x86_qbinary_params *)params;
	const uint8_t *xa = (const uint8_t *)in[0], *xb = (const uint8_t *)in[3];
	uint8_t *y = (uint8_t *)out[0];
	int32_t za, zb;
	float sa, sb;
	double lo, hi;
	int64_t e, e0, e1;
	qb_ctx c;
	(void)scratch;
	if (!ingot_x86_qbinary_ok(p) || !xa || !in[1] || !xb || !in[4] || !in[6] || !y)
		return INGOT_EINVAL;
	if (!qg_span(p->n, task, n_tasks, &e0, &e1))
		return INGOT_OK;
	qg_range8(p->y_dtype, p->y_lo, p->y_hi, &lo, &hi);
	sa = *(const float *)in[1];
	sb = *(const float *)in[4];
	za = in[2] ? qg_b8(p->a_dtype, in[2], 0) : 0;
	zb = in[5] ? qg_b8(p->b_dtype, in[5], 0) : 0;
	c.sa8 = p->a_dtype == INGOT_DT_I8;
	c.sb8 = p->b_dtype == INGOT_DT_I8;
	c.sy8 = p->y_dtype == INGOT_DT_I8;
	c.mul = p->op == INGOT_X86_QB_MUL;
	c.la = ingot_x86_qbinary_layout(p->rank, p->dims, p->sa);
	c.lb = ingot_x86_qbinary_layout(p->rank, p->dims, p->sb);
	c.za = QB_SET1((float)za);
	c.zb = QB_SET1((float)zb);
	c.sa = QB_SET1(sa);
	c.sb = QB_SET1(sb);
	c.sy = QB_SET1(*(const float *)in[6]);
	c.zy = QB_SET1(in[7] ? (float)qg_b8(p->y_dtype, in[7], 0) : 0.0f);
	c.lo = QB_SET1((float)lo);
	c.hi = QB_SET1((float)hi);
	c.ca = QB_SET1(qb_deq(p->a_dtype, xa[0], za, sa));
	c.cb = QB_SET1(qb_deq(p->b_dtype, xb[0], zb, sb));
	for (e = e0; e + QB_N <= e1; e += QB_N)
		qb_step(&c, xa + e, xb + e, y + e);
	if (e < e1) {   /* the last < QB_N through local copies */
		uint8_t ta[QB_N], tb[QB_N], ty[QB_N];
		const size_t r = (size_t)(e1 - e);
		memset(ta, 0, sizeof ta);
		memset(tb, 0, sizeof tb);
		if (!c.la)
			memcpy(ta, xa + e, r);
		if (!c.lb)
			memcpy(tb, xb + e, r);
		qb_step(&c, ta, tb, ty);
		memcpy(y + e, ty, r);
	}
	return INGOT_OK;
}

/* ---- MaxPool of 8-bit values ---- */

/* Per output row: the window's input rows reduced by vector max into rb (bytes flipped
 * to u8 order; rb[pw + ix] is column ix, pads and the slack past the row 0, the
 * least: every window holds an input element, ingot_x86_qmaxpool_ok), then each
 * output the max of its KW bytes of rb, 16 outputs a step at column stride 1 or 2. */
INGOT_KERNEL int ingot_x86_qmaxpool(const void *params, const void *const *in, void *const *out,
                                    void *scratch, int task, int n_tasks)
{
	const ingot_x86_qmaxpool_params *p = (const ingot_x86_qmaxpool_params *)params;
	const uint8_t *x = (const uint8_t *)in[0];
	uint8_t *y = (uint8_t *)out[0];
	uint8_t rb[INGOT_X86_QPOOL_MAX_W + 4 * 64 + 64];
	const int two = p->nsp == 2;
	const uint8_t flip = p->dtype == INGOT_DT_I8 ? 0x80 : 0;
	const __m128i fl = _mm_set1_epi8((char)flip), lo8 = _mm_set1_epi16(0x00ff);
	int64_t u0, u1;
	(void)scratch;
	if (!ingot_x86_qmaxpool_ok(p) || !x || !y)
		return INGOT_EINVAL;
	const int64_t H = two ? p->x_dims[2] : 1, W = p->x_dims[1 + p->nsp];
	const int64_t OH = two ? p->y_dims[2] : 1, OW = p->y_dims[1 + p->nsp];
	const int64_t KH = two ? p->kernel[0] : 1, KW = p->kernel[p->nsp - 1];
	const int64_t sh = two ? p->strides[0] : 1, sw = p->strides[p->nsp - 1];
	const int64_t ph = two ? p->pads[0] : 0, pw = p->pads[p->nsp - 1];
	/* rb's bytes that outputs read: up to (OW - 1) sw + KW - 1 (< W + 2 x 64 by _ok), the
	 * vectors up to 32 past */
	const int64_t used = (OW - 1) * sw + KW + (sw <= 2 ? 32 + 16 * sw : 0);
	if (used > (int64_t)sizeof rb || pw + W > (int64_t)sizeof rb)
		return INGOT_EINVAL;
	if (!qg_span(p->y_dims[0] * p->y_dims[1], task, n_tasks, &u0, &u1))
		return INGOT_OK;
	memset(rb, 0, sizeof rb);
	for (int64_t u = u0; u < u1; u++) {
		const uint8_t *xc = x + u * H * W;
		uint8_t *yc = y + u * OH * OW;
		for (int64_t oy = 0; oy < OH; oy++) {
			const int64_t iy0 = oy * sh - ph < 0 ? 0 : oy * sh - ph;
			const int64_t iy1 = oy * sh - ph + KH < H ? oy * sh - ph + KH : H;
			uint8_t *d = rb + pw, *yr = yc + oy * OW;
			int64_t i = 0;
			for (; i + 16 <= W; i += 16) {
				__m128i m = _mm_setzero_si128();
				for (int64_t iy = iy0; iy < iy1; iy++)
					m = _mm_max_epu8(m, _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(xc + iy * W + i)), fl));
				_mm_storeu_si128((__m128i *)(void *)(d + i), m);
			}
			for (; i < W; i++) {
				uint8_t m = xc[iy0 * W + i] ^ flip;
				for (int64_t iy = iy0 + 1; iy < iy1; iy++)
					m = (uint8_t)(xc[iy * W + i] ^ flip) > m ? (uint8_t)(xc[iy * W + i] ^ flip) : m;
				d[i] = m;
			}
			int64_t ox = 0;
			if (sw <= 2) {
				for (; ox + 16 <= OW; ox += 16) {
					__m128i m = _mm_setzero_si128();
					for (int64_t kx = 0; kx < KW; kx++) {
						const uint8_t *s = rb + ox * sw + kx;
						__m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
						if (sw == 2)
							v = _mm_packus_epi16(_mm_and_si128(v, lo8),
							                     _mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)(s + 16)), lo8));
						m = _mm_max_epu8(m, v);
					}
					_mm_storeu_si128((__m128i *)(void *)(yr + ox), _mm_xor_si128(m, fl));
				}
			}
			for (; ox < OW; ox++) {
				uint8_t m = 0;
				for (int64_t kx = 0; kx < KW; kx++)
					m = rb[ox * sw + kx] > m ? rb[ox * sw + kx] : m;
				yr[ox] = m ^ flip;
			}
		}
	}
	return INGOT_OK;
}
