/* ukgen.c — the microkernel generator (see ukgen.h). The generated header holds:
 * the target's vector vocabulary as inline functions (uk_load, uk_fma, ...), the
 * fused epilogue of a tile, and the GEMM microkernels: for each row count 1..MR a
 * full-width kernel (NR columns, B panel row stride NR) and edge kernels for 1..NV
 * vectors whose last vector is masked (any column count, any B row stride). A
 * microkernel computes C[mr x nr] = A panel (a[k * mr + i]) @ B panel (b[k * ldb + j]),
 * adds C's old values when `acc`, runs the epilogue when `e` (the last k-block), and
 * stores the tile. */
#include "ukgen.h"

#include <stdio.h>
#include <string.h>

#define AVX2_PRELUDE \
	"/* the sum of a vector's lanes */\n" \
	"static inline float uk_hsum_avx2(__m256 v)\n" \
	"{\n" \
	"\t__m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));\n" \
	"\ts = _mm_add_ps(s, _mm_movehl_ps(s, s));\n" \
	"\ts = _mm_add_ss(s, _mm_movehdup_ps(s));\n" \
	"\treturn _mm_cvtss_f32(s);\n" \
	"}\n\n" \
	"/* the even elements of p[0..16) */\n" \
	"static inline __m256 uk_load_s2_avx2(const float *p)\n" \
	"{\n" \
	"\t__m256 t = _mm256_shuffle_ps(_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8), _MM_SHUFFLE(2, 0, 2, 0));\n" \
	"\treturn _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(t), _MM_SHUFFLE(3, 1, 2, 0)));\n" \
	"}\n\n" \
	"/* p[2i] = a[i], p[2i + 1] = b[i] for 8 lanes */\n" \
	"static inline void uk_store_il2_avx2(float *p, __m256 a, __m256 b)\n" \
	"{\n" \
	"\tconst __m256 lo = _mm256_unpacklo_ps(a, b), hi = _mm256_unpackhi_ps(a, b);\n" \
	"\t_mm256_storeu_ps(p, _mm256_permute2f128_ps(lo, hi, 0x20));\n" \
	"\t_mm256_storeu_ps(p + 8, _mm256_permute2f128_ps(lo, hi, 0x31));\n" \
	"}\n\n" \
	"/* p[c * ld + j] = r[j][c] for lanes c < nc and j < nj <= 8: an 8 x 8 transpose */\n" \
	"static inline void uk_store_t8_avx2(float *p, int64_t ld, const __m256 *r, int64_t nc, int64_t nj)\n" \
	"{\n" \
	"\tconst __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)nj), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));\n" \
	"\t__m256 t[8], u[8];\n" \
	"\tfor (int i = 0; i < 4; i++) {\n" \
	"\t\tt[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);\n" \
	"\t\tt[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);\n" \
	"\t}\n" \
	"\tfor (int h = 0; h < 2; h++) {   /* u[4h + i]: lane L holds channel 4L + i of pixels 4h..4h + 3 */\n" \
	"\t\tu[4 * h] = _mm256_shuffle_ps(t[4 * h], t[4 * h + 2], 0x44);\n" \
	"\t\tu[4 * h + 1] = _mm256_shuffle_ps(t[4 * h], t[4 * h + 2], 0xEE);\n" \
	"\t\tu[4 * h + 2] = _mm256_shuffle_ps(t[4 * h + 1], t[4 * h + 3], 0x44);\n" \
	"\t\tu[4 * h + 3] = _mm256_shuffle_ps(t[4 * h + 1], t[4 * h + 3], 0xEE);\n" \
	"\t}\n" \
	"\tfor (int i = 0; i < 4; i++) {\n" \
	"\t\tif (i < nc)\n" \
	"\t\t\t_mm256_maskstore_ps(p + i * ld, m, _mm256_permute2f128_ps(u[i], u[4 + i], 0x20));\n" \
	"\t\tif (4 + i < nc)\n" \
	"\t\t\t_mm256_maskstore_ps(p + (4 + i) * ld, m, _mm256_permute2f128_ps(u[i], u[4 + i], 0x31));\n" \
	"\t}\n" \
	"}\n\n" \
	"/* transposes the 8 x 8 block r[0..8) (row i: r[i]) in place */\n" \
	"static inline UK_INLINE void uk_transpose_avx2(__m256 *r)\n" \
	"{\n" \
	"\t__m256 t[8], u[8];\n" \
	"#pragma GCC unroll 8\n" \
	"\tfor (int i = 0; i < 8; i += 2) {\n" \
	"\t\tt[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);\n" \
	"\t\tt[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);\n" \
	"\t}\n" \
	"#pragma GCC unroll 8\n" \
	"\tfor (int i = 0; i < 8; i += 4) {\n" \
	"\t\tu[i] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));\n" \
	"\t\tu[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));\n" \
	"\t\tu[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));\n" \
	"\t\tu[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));\n" \
	"\t}\n" \
	"#pragma GCC unroll 8\n" \
	"\tfor (int j = 0; j < 4; j++) {\n" \
	"\t\tr[j] = _mm256_permute2f128_ps(u[j], u[4 + j], 0x20);\n" \
	"\t\tr[4 + j] = _mm256_permute2f128_ps(u[j], u[4 + j], 0x31);\n" \
	"\t}\n" \
	"}\n\n"

#define AVX512_PRELUDE \
	"/* p[2i] = a[i], p[2i + 1] = b[i] for 16 lanes */\n" \
	"static inline void uk_store_il2_avx512(float *p, __m512 a, __m512 b)\n" \
	"{\n" \
	"\t_mm512_storeu_ps(p, _mm512_permutex2var_ps(a, _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20,\n" \
	"\t                 5, 21, 6, 22, 7, 23), b));\n" \
	"\t_mm512_storeu_ps(p + 16, _mm512_permutex2var_ps(a, _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11,\n" \
	"\t                 27, 12, 28, 13, 29, 14, 30, 15, 31), b));\n" \
	"}\n\n" \
	"/* p[c * ld + j] = r[j][c] for lanes c < nc and j < nj <= 8: two 8 x 8 transposes */\n" \
	"static inline void uk_store_t8_avx512(float *p, int64_t ld, const __m512 *r, int64_t nc, int64_t nj)\n" \
	"{\n" \
	"\tconst __mmask8 m = (__mmask8)((1u << (unsigned)nj) - 1u);\n" \
	"\t__m512 t[8], u[8];\n" \
	"\tfor (int i = 0; i < 4; i++) {\n" \
	"\t\tt[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);\n" \
	"\t\tt[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);\n" \
	"\t}\n" \
	"\tfor (int h = 0; h < 2; h++) {   /* u[4h + i]: lane L holds channel 4L + i of pixels 4h..4h + 3 */\n" \
	"\t\tu[4 * h] = _mm512_shuffle_ps(t[4 * h], t[4 * h + 2], 0x44);\n" \
	"\t\tu[4 * h + 1] = _mm512_shuffle_ps(t[4 * h], t[4 * h + 2], 0xEE);\n" \
	"\t\tu[4 * h + 2] = _mm512_shuffle_ps(t[4 * h + 1], t[4 * h + 3], 0x44);\n" \
	"\t\tu[4 * h + 3] = _mm512_shuffle_ps(t[4 * h + 1], t[4 * h + 3], 0xEE);\n" \
	"\t}\n" \
	"\tfor (int i = 0; i < 4; i++) {   /* channels i, 4 + i (lo) and 8 + i, 12 + i (hi) */\n" \
	"\t\tconst __m512 a = _mm512_shuffle_f32x4(u[i], u[4 + i], 0x44), b = _mm512_shuffle_f32x4(u[i], u[4 + i], 0xEE);\n" \
	"\t\tconst __m512 lo = _mm512_shuffle_f32x4(a, a, 0xD8), hi = _mm512_shuffle_f32x4(b, b, 0xD8);\n" \
	"\t\tif (i < nc)\n" \
	"\t\t\t_mm256_mask_storeu_ps(p + i * ld, m, _mm512_castps512_ps256(lo));\n" \
	"\t\tif (4 + i < nc)\n" \
	"\t\t\t_mm256_mask_storeu_ps(p + (4 + i) * ld, m, _mm512_extractf32x8_ps(lo, 1));\n" \
	"\t\tif (8 + i < nc)\n" \
	"\t\t\t_mm256_mask_storeu_ps(p + (8 + i) * ld, m, _mm512_castps512_ps256(hi));\n" \
	"\t\tif (12 + i < nc)\n" \
	"\t\t\t_mm256_mask_storeu_ps(p + (12 + i) * ld, m, _mm512_extractf32x8_ps(hi, 1));\n" \
	"\t}\n" \
	"}\n\n" \
	"/* transposes the 16 x 16 block r[0..16) (row i: r[i]) in place */\n" \
	"static inline UK_INLINE void uk_transpose_avx512(__m512 *r)\n" \
	"{\n" \
	"\t__m512 t[16], u[16];\n" \
	"#pragma GCC unroll 8\n" \
	"\tfor (int i = 0; i < 16; i += 2) {\n" \
	"\t\tt[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);\n" \
	"\t\tt[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);\n" \
	"\t}\n" \
	"#pragma GCC unroll 8\n" \
	"\tfor (int i = 0; i < 16; i += 4) {\n" \
	"\t\tu[i] = _mm512_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));\n" \
	"\t\tu[i + 1] = _mm512_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));\n" \
	"\t\tu[i + 2] = _mm512_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));\n" \
	"\t\tu[i + 3] = _mm512_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));\n" \
	"\t}\n" \
	"\t/* u[4g + j] holds rows 4g..4g+3 of columns 4l + j in its 128-bit lane l: a 4 x 4\n" \
	"\t * transpose of lanes per j */\n" \
	"#pragma GCC unroll 8\n" \
	"\tfor (int j = 0; j < 4; j++) {\n" \
	"\t\tconst __m512 v0 = _mm512_shuffle_f32x4(u[j], u[4 + j], _MM_SHUFFLE(1, 0, 1, 0));\n" \
	"\t\tconst __m512 v1 = _mm512_shuffle_f32x4(u[j], u[4 + j], _MM_SHUFFLE(3, 2, 3, 2));\n" \
	"\t\tconst __m512 v2 = _mm512_shuffle_f32x4(u[8 + j], u[12 + j], _MM_SHUFFLE(1, 0, 1, 0));\n" \
	"\t\tconst __m512 v3 = _mm512_shuffle_f32x4(u[8 + j], u[12 + j], _MM_SHUFFLE(3, 2, 3, 2));\n" \
	"\t\tr[j] = _mm512_shuffle_f32x4(v0, v2, _MM_SHUFFLE(2, 0, 2, 0));\n" \
	"\t\tr[4 + j] = _mm512_shuffle_f32x4(v0, v2, _MM_SHUFFLE(3, 1, 3, 1));\n" \
	"\t\tr[8 + j] = _mm512_shuffle_f32x4(v1, v3, _MM_SHUFFLE(2, 0, 2, 0));\n" \
	"\t\tr[12 + j] = _mm512_shuffle_f32x4(v1, v3, _MM_SHUFFLE(3, 1, 3, 1));\n" \
	"\t}\n" \
	"}\n\n"

/* NEON has no masked loads or stores: the lanes in use go through a small buffer */
#define NEON_PRELUDE_COMMON \
	"/* the first n lanes of p (n <= 4); the others read as 0 */\n" \
	"static inline float32x4_t uk_loadm_neon(const float *p, int n)\n" \
	"{\n" \
	"\tfloat t[4] = { 0.0f, 0.0f, 0.0f, 0.0f };\n" \
	"\tfor (int i = 0; i < n && i < 4; i++)\n" \
	"\t\tt[i] = p[i];\n" \
	"\treturn vld1q_f32(t);\n" \
	"}\n\n" \
	"/* the first n lanes of v into p (n <= 4) */\n" \
	"static inline void uk_storem_neon(float *p, int n, float32x4_t v)\n" \
	"{\n" \
	"\tfloat t[4];\n" \
	"\tvst1q_f32(t, v);\n" \
	"\tfor (int i = 0; i < n && i < 4; i++)\n" \
	"\t\tp[i] = t[i];\n" \
	"}\n\n" \
	"/* transposes the 4 x 4 block r[0..4) (row i: r[i]) in place */\n" \
	"static inline void uk_transpose_neon(float32x4_t *r)\n" \
	"{\n" \
	"\tconst float32x4x2_t a = vtrnq_f32(r[0], r[1]), b = vtrnq_f32(r[2], r[3]);\n" \
	"\tr[0] = vcombine_f32(vget_low_f32(a.val[0]), vget_low_f32(b.val[0]));\n" \
	"\tr[1] = vcombine_f32(vget_low_f32(a.val[1]), vget_low_f32(b.val[1]));\n" \
	"\tr[2] = vcombine_f32(vget_high_f32(a.val[0]), vget_high_f32(b.val[0]));\n" \
	"\tr[3] = vcombine_f32(vget_high_f32(a.val[1]), vget_high_f32(b.val[1]));\n" \
	"}\n\n" \
	"/* p[c * ld + j] = r[j][c] for lanes c < nc and j < nj <= 8 of the 8 vectors r */\n" \
	"static inline void uk_store_t8_neon(float *p, int64_t ld, const float32x4_t *r, int64_t nc, int64_t nj)\n" \
	"{\n" \
	"\tfloat t[8][4];\n" \
	"\tfor (int j = 0; j < 8; j++)\n" \
	"\t\tvst1q_f32(t[j], r[j]);\n" \
	"\tfor (int64_t c = 0; c < nc && c < 4; c++)\n" \
	"\t\tfor (int64_t j = 0; j < nj && j < 8; j++)\n" \
	"\t\t\tp[c * ld + j] = t[j][c];\n" \
	"}\n\n" \
	"/* p[2i] = a[i], p[2i + 1] = b[i] for 4 lanes */\n" \
	"static inline void uk_store_il2_neon(float *p, float32x4_t a, float32x4_t b)\n" \
	"{\n" \
	"\tfloat32x4x2_t t;\n" \
	"\tt.val[0] = a;\n" \
	"\tt.val[1] = b;\n" \
	"\tvst2q_f32(p, t);\n" \
	"}\n\n"

/* armv7 NEON has no vector divide, floor or across-lane add; FMA needs VFPv4 */
#define NEON32_PRELUDE NEON_PRELUDE_COMMON \
	"/* a * b + c: fused with VFPv4 (the neon32 target's -mfpu), else multiply-accumulate */\n" \
	"static inline float32x4_t uk_fma_neon32(float32x4_t a, float32x4_t b, float32x4_t c)\n" \
	"{\n" \
	"#if defined(__ARM_FEATURE_FMA)\n" \
	"\treturn vfmaq_f32(c, a, b);\n" \
	"#else\n" \
	"\treturn vmlaq_f32(c, a, b);\n" \
	"#endif\n" \
	"}\n\n" \
	"static inline float uk_hsum_neon32(float32x4_t v)\n" \
	"{\n" \
	"\tfloat32x2_t s = vadd_f32(vget_low_f32(v), vget_high_f32(v));\n" \
	"\treturn vget_lane_f32(vpadd_f32(s, s), 0);\n" \
	"}\n\n" \
	"/* a / b lane by lane, correctly rounded (no reciprocal estimate) */\n" \
	"static inline float32x4_t uk_div_neon32(float32x4_t a, float32x4_t b)\n" \
	"{\n" \
	"\tfloat x[4], y[4];\n" \
	"\tvst1q_f32(x, a);\n" \
	"\tvst1q_f32(y, b);\n" \
	"\tfor (int i = 0; i < 4; i++)\n" \
	"\t\tx[i] /= y[i];\n" \
	"\treturn vld1q_f32(x);\n" \
	"}\n\n" \
	"/* round toward -inf: truncate, step down where that went up; |v| >= 2^23 is whole */\n" \
	"static inline float32x4_t uk_floor_neon32(float32x4_t v)\n" \
	"{\n" \
	"\tconst uint32x4_t big = vcgeq_f32(vabsq_f32(v), vdupq_n_f32(8388608.0f));\n" \
	"\tfloat32x4_t t = vcvtq_f32_s32(vcvtq_s32_f32(v));\n" \
	"\tt = vsubq_f32(t, vbslq_f32(vcgtq_f32(t, v), vdupq_n_f32(1.0f), vdupq_n_f32(0.0f)));\n" \
	"\treturn vbslq_f32(big, v, t);\n" \
	"}\n\n"

#define NEON_ISA_COMMON(name, regs, fma, hsum, div, floor) \
	{ name, "arm_neon.h", 4, regs, "float32x4_t", "int", \
	  "vdupq_n_f32(0.0f)", \
	  "vld1q_f32($1)", "vst1q_f32($1, $2)", \
	  "uk_loadm_neon($1, $2)", "uk_storem_neon($1, $2, $3)", \
	  "vdupq_n_f32($1)", fma, \
	  "vaddq_f32($1, $2)", "vmulq_f32($1, $2)", \
	  "vbslq_f32(vcgtq_f32($1, $2), $1, $2)", "vbslq_f32(vcltq_f32($1, $2), $1, $2)", \
	  "vbslq_f32(vcltq_f32($1, $2), $3, $1)", \
	  "(int)($1)", \
	  hsum, "vld2q_f32($1).val[0]", "uk_store_il2_neon($1, $2, $3)", \
	  div, floor, \
	  "vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(vcvtq_s32_f32($1), vdupq_n_s32(127)), 23))", \
	  "vbslq_f32(vcltq_f32($1, $2), $4, $3)", \
	  "vbslq_f32(vceqq_f32($1, $1), $2, $1)", \
	  "vabsq_f32($1)", \
	  "vbslq_f32(vdupq_n_u32(0x80000000u), $2, vabsq_f32($1))", \
	  "uk_store_t8_neon", "vsubq_f32($1, $2)", "uk_transpose_neon($1)" }

typedef struct IsaEntry {
	SimdIsa isa;
	const char *prelude;         /* helper functions the templates call */
} IsaEntry;

static const IsaEntry isas[] = {
	{ { "x86-avx512", "immintrin.h", 16, 32, "__m512", "__mmask16",
	    "_mm512_setzero_ps()",
	    "_mm512_loadu_ps($1)", "_mm512_storeu_ps($1, $2)",
	    "_mm512_maskz_loadu_ps($2, $1)", "_mm512_mask_storeu_ps($1, $2, $3)",
	    "_mm512_set1_ps($1)", "_mm512_fmadd_ps($1, $2, $3)",
	    "_mm512_add_ps($1, $2)", "_mm512_mul_ps($1, $2)",
	    "_mm512_max_ps($1, $2)", "_mm512_min_ps($1, $2)",
	    "_mm512_mask_blend_ps(_mm512_cmp_ps_mask($1, $2, _CMP_LT_OQ), $1, $3)",
	    "(__mmask16)((1u << (unsigned)($1)) - 1u)",
	    "_mm512_reduce_add_ps($1)",
	    "_mm512_permutex2var_ps(_mm512_loadu_ps($1), _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, "
	    "16, 18, 20, 22, 24, 26, 28, 30), _mm512_loadu_ps($1 + 16))",
	    "uk_store_il2_avx512($1, $2, $3)",
	    "_mm512_div_ps($1, $2)",
	    "_mm512_roundscale_ps($1, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC)",
	    "_mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32($1), "
	    "_mm512_set1_epi32(127)), 23))",
	    "_mm512_mask_blend_ps(_mm512_cmp_ps_mask($1, $2, _CMP_LT_OQ), $3, $4)",
	    "_mm512_mask_blend_ps(_mm512_cmp_ps_mask($1, $1, _CMP_UNORD_Q), $2, $1)",
	    "_mm512_abs_ps($1)",
	    "_mm512_or_ps(_mm512_abs_ps($1), _mm512_and_ps(_mm512_set1_ps(-0.0f), $2))",
	    "uk_store_t8_avx512", "_mm512_sub_ps($1, $2)", "uk_transpose_avx512($1)" }, AVX512_PRELUDE },
	{ { "x86-avx2", "immintrin.h", 8, 16, "__m256", "__m256i",
	    "_mm256_setzero_ps()",
	    "_mm256_loadu_ps($1)", "_mm256_storeu_ps($1, $2)",
	    "_mm256_maskload_ps($1, $2)", "_mm256_maskstore_ps($1, $2, $3)",
	    "_mm256_set1_ps($1)", "_mm256_fmadd_ps($1, $2, $3)",
	    "_mm256_add_ps($1, $2)", "_mm256_mul_ps($1, $2)",
	    "_mm256_max_ps($1, $2)", "_mm256_min_ps($1, $2)",
	    "_mm256_blendv_ps($1, $3, _mm256_cmp_ps($1, $2, _CMP_LT_OQ))",
	    "_mm256_cmpgt_epi32(_mm256_set1_epi32((int)($1)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7))",
	    "uk_hsum_avx2($1)", "uk_load_s2_avx2($1)", "uk_store_il2_avx2($1, $2, $3)",
	    "_mm256_div_ps($1, $2)",
	    "_mm256_floor_ps($1)",
	    "_mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32($1), "
	    "_mm256_set1_epi32(127)), 23))",
	    "_mm256_blendv_ps($3, $4, _mm256_cmp_ps($1, $2, _CMP_LT_OQ))",
	    "_mm256_blendv_ps($2, $1, _mm256_cmp_ps($1, $1, _CMP_UNORD_Q))",
	    "_mm256_andnot_ps(_mm256_set1_ps(-0.0f), $1)",
	    "_mm256_or_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), $1), "
	    "_mm256_and_ps(_mm256_set1_ps(-0.0f), $2))",
	    "uk_store_t8_avx2", "_mm256_sub_ps($1, $2)", "uk_transpose_avx2($1)" }, AVX2_PRELUDE },
	{ NEON_ISA_COMMON("neon", 32, "vfmaq_f32($3, $1, $2)", "vaddvq_f32($1)",
	                  "vdivq_f32($1, $2)", "vrndmq_f32($1)"), NEON_PRELUDE_COMMON },
	{ NEON_ISA_COMMON("neon32", 16, "uk_fma_neon32($1, $2, $3)", "uk_hsum_neon32($1)",
	                  "uk_div_neon32($1, $2)", "uk_floor_neon32($1)"), NEON32_PRELUDE },
};

const SimdIsa *ukgen_isa(const Target *t)
{
	if (t->host)   /* --target opencl: its host target's */
		t = t->host;
	for (int i = 0; i < COUNTOF(isas); i++)
		if (strcmp(isas[i].isa.target, t->name) == 0)
			return &isas[i].isa;
	return NULL;
}

static const char *prelude_of(const SimdIsa *isa)
{
	for (int i = 0; i < COUNTOF(isas); i++)
		if (&isas[i].isa == isa)
			return isas[i].prelude;
	return "";
}

/* Register blocking: mr x nv accumulators, nv B vectors and one broadcast must fit
 * the register file, and the core must have at least fma_ports x fma_latency
 * independent accumulators in flight to keep its FMA pipes full (a pipe narrower
 * than the vector, Zen 4's 256-bit halves of a 512-bit FMA, counts for its share);
 * among those, the most multiply-adds per value loaded (mr * nv / (mr + nv)), with
 * mr a multiple of 4 (channel counts are: no ragged last panel); ties go to more
 * rows. A core whose latency no tile hides takes the largest tile. */
void ukgen_blocking(const Target *t, const SimdIsa *isa, int *mr, int *nv)
{
	const int vbits = isa->lanes * 32;
	int inflight = t->fma_ports * t->fma_latency;
	double best = 0;
	if (t->fma_bits > 0 && t->fma_bits < vbits)
		inflight = (inflight * t->fma_bits + vbits - 1) / vbits;
	for (int pass = 0; pass < 2 && best == 0; pass++) {   /* pass 1: no tile hides the latency */
		*mr = 1;
		*nv = 1;
		for (int v = 1; v <= 4; v++)
			for (int m = 4; m <= 16; m += 4) {
				double score = (double)(m * v) / (m + v);
				if (pass == 1)
					score = m * v;
				if (m * v + v + 1 > isa->regs || (pass == 0 && m * v < inflight) || score < best - 1e-9 ||
				    (score < best + 1e-9 && m <= *mr))
					continue;
				best = score;
				*mr = m;
				*nv = v;
			}
	}
}

/* Template substitution: $1 .. $4 become a, b, c, d. */
static const char *tpl4(char *buf, size_t cap, const char *t, const char *a, const char *b,
                        const char *c, const char *d)
{
	size_t n = 0;
	for (; *t && n + 1 < cap; t++) {
		const char *arg = NULL;
		if (t[0] == '$' && t[1] >= '1' && t[1] <= '4')
			arg = t[1] == '1' ? a : t[1] == '2' ? b : t[1] == '3' ? c : d;
		if (arg) {
			size_t len = strlen(arg);
			if (n + len >= cap)
				break;
			memcpy(buf + n, arg, len);
			n += len;
			t++;
		} else {
			buf[n++] = *t;
		}
	}
	buf[n] = 0;
	return buf;
}

#define T1(f, a) tpl4(t1, sizeof t1, isa->f, a, "", "", "")
#define T2(f, a, b) tpl4(t1, sizeof t1, isa->f, a, b, "", "")
#define T3(f, a, b, c) tpl4(t1, sizeof t1, isa->f, a, b, c, "")
#define T4(f, a, b, c, d) tpl4(t1, sizeof t1, isa->f, a, b, c, d)

static void emit_vocabulary(const SimdIsa *isa, Emitter *e)
{
	char t1[512];
	em_printf(e, "typedef %s uk_vec;\ntypedef %s uk_mask;\n\n", isa->vec, isa->mask);
	em_printf(e, "%s", prelude_of(isa));
	em_printf(e, "static inline uk_vec uk_zero(void) { return %s; }\n", isa->zero);
	em_printf(e, "static inline uk_vec uk_load(const float *p) { return %s; }\n", T1(load, "p"));
	em_printf(e, "static inline void uk_store(float *p, uk_vec v) { %s; }\n", T2(store, "p", "v"));
	em_printf(e, "/* masked: lanes outside m read as 0 and are not written */\n");
	em_printf(e, "static inline uk_vec uk_loadm(const float *p, uk_mask m) { return %s; }\n",
	          T2(loadm, "p", "m"));
	em_printf(e, "static inline void uk_storem(float *p, uk_mask m, uk_vec v) { %s; }\n",
	          T3(storem, "p", "m", "v"));
	em_printf(e, "static inline uk_vec uk_bcast(float x) { return %s; }\n", T1(bcast, "x"));
	em_printf(e, "/* a * b + c, one rounding */\n");
	em_printf(e, "static inline uk_vec uk_fma(uk_vec a, uk_vec b, uk_vec c) { return %s; }\n",
	          T3(fma, "a", "b", "c"));
	em_printf(e, "static inline uk_vec uk_add(uk_vec a, uk_vec b) { return %s; }\n", T2(add, "a", "b"));
	em_printf(e, "static inline uk_vec uk_mul(uk_vec a, uk_vec b) { return %s; }\n", T2(mul, "a", "b"));
	em_printf(e, "/* max and min return b where either is NaN */\n");
	em_printf(e, "static inline uk_vec uk_max(uk_vec a, uk_vec b) { return %s; }\n", T2(max, "a", "b"));
	em_printf(e, "static inline uk_vec uk_min(uk_vec a, uk_vec b) { return %s; }\n", T2(min, "a", "b"));
	em_printf(e, "/* lanes where v < t take u, the others v */\n");
	em_printf(e, "static inline uk_vec uk_select_lt(uk_vec v, uk_vec t, uk_vec u) { return %s; }\n",
	          T3(select_lt, "v", "t", "u"));
	em_printf(e, "/* the first n lanes, 0 <= n <= UK_VF */\n");
	em_printf(e, "static inline uk_mask uk_mask_n(int64_t n) { return %s; }\n", T1(mask_n, "n"));
	em_printf(e, "static inline float uk_hsum(uk_vec v) { return %s; }\n", T1(hsum, "v"));
	em_printf(e, "/* p[0], p[2], ..., p[2 * (UK_VF - 1)]; reads p[0..2 * UK_VF) */\n");
	em_printf(e, "static inline uk_vec uk_load_s2(const float *p) { return %s; }\n", T1(load_s2, "p"));
	em_printf(e, "/* p[2i] = a[i], p[2i + 1] = b[i]: writes p[0..2 * UK_VF) */\n");
	em_printf(e, "static inline void uk_store_il2(float *p, uk_vec a, uk_vec b) { %s; }\n",
	          T3(store_il2, "p", "a", "b"));
	em_printf(e, "static inline uk_vec uk_div(uk_vec a, uk_vec b) { return %s; }\n", T2(div, "a", "b"));
	em_printf(e, "/* round toward -inf */\n");
	em_printf(e, "static inline uk_vec uk_floor(uk_vec v) { return %s; }\n", T1(floor, "v"));
	em_printf(e, "/* 2^n for whole n in [-126, 127] */\n");
	em_printf(e, "static inline uk_vec uk_pow2i(uk_vec n) { return %s; }\n", T1(pow2i, "n"));
	em_printf(e, "/* lanes where a < b take y, the others x */\n");
	em_printf(e, "static inline uk_vec uk_sel_lt(uk_vec a, uk_vec b, uk_vec x, uk_vec y) { return %s; }\n",
	          T4(sel_lt, "a", "b", "x", "y"));
	em_printf(e, "/* lanes where x is NaN keep x, the others take y */\n");
	em_printf(e, "static inline uk_vec uk_nan_sel(uk_vec x, uk_vec y) { return %s; }\n", T2(nan_sel, "x", "y"));
	em_printf(e, "static inline uk_vec uk_abs(uk_vec v) { return %s; }\n", T1(abs, "v"));
	em_printf(e, "/* |m| with the sign of s */\n");
	em_printf(e, "static inline uk_vec uk_copysign(uk_vec m, uk_vec s) { return %s; }\n",
	          T2(copysign, "m", "s"));
	em_printf(e, "/* p[c * ld + j] = r[j][c] for lanes c < nc and j < nj <= 8 of the 8 vectors r */\n");
	em_printf(e, "static inline void uk_store_t8(float *p, int64_t ld, const uk_vec *r, int64_t nc, int64_t nj)\n"
	          "{\n\t%s(p, ld, r, nc, nj);\n}\n", isa->store_t8);
	em_printf(e, "static inline uk_vec uk_sub(uk_vec a, uk_vec b) { return %s; }\n", T2(sub, "a", "b"));
	em_printf(e, "/* transposes the UK_VF x UK_VF block r[0..UK_VF) (row i: r[i]) in place */\n");
	em_printf(e, "static inline UK_INLINE void uk_transpose(uk_vec *r) { %s; }\n", T1(transpose, "r"));
	/* HardSigmoid's clamp, for ewtable.h's exact forms; it keeps the name it had in
	 * simd/vmath.h, which the fused loops of generated code call */
	em_printf(e, "/* fmax(0, fmin(1, t)) as the reference computes it (fminf(1, NaN) is 1) */\n"
	             "static inline uk_vec vm_unit(uk_vec t)\n{\n"
	             "\tt = uk_sel_lt(t, uk_bcast(1.0f), uk_bcast(1.0f), t);\n"
	             "\treturn uk_sel_lt(uk_zero(), t, uk_zero(), t);\n}\n\n");
}

static const char epilogue_text[] =
	"/* The fused epilogue of a tile, run on the accumulators after the last k-block,\n"
	" * in the reference kernels' order (each step rounds to float):\n"
	" *     y = act(alpha * acc + rbias[r] + beta * cm[r * ldcm + j] + res[r * ldres + j])\n"
	" * Pointers are at the tile's (0, 0); NULL leaves a term out. The activations are\n"
	" * ewtable.h's epilogue codes with an exact vector form (ingot_ew_act_exact), in\n"
	" * that form; the kernel drivers run the others afterwards. */\n"
	"typedef struct uk_epi {\n"
	"\tint scale;                   /* multiply by alpha */\n"
	"\tfloat alpha;\n"
	"\tconst float *rbias;          /* one value per row */\n"
	"\tconst float *cm;             /* Gemm's C; ldcm 0 repeats one row */\n"
	"\tint64_t ldcm;\n"
	"\tfloat beta;\n"
	"\tconst float *res;            /* the residual */\n"
	"\tint64_t ldres;\n"
	"\tint act;                     /* INGOT_EW_ACT_* (ewtable.h), exact; 0 none */\n"
	"\tfloat lo, hi;                /* its parameters al and be: Clip's bounds, LeakyRelu's\n"
	"\t                              * alpha in lo, HardSigmoid's alpha and beta */\n"
	"} uk_epi;\n\n"
	"/* act(x), A and B its parameters as vectors, H = A x + B */\n"
	"#define H uk_add(uk_mul(A, x), B)\n"
	"#define UK_ACT_CASE(N, On, fn, R, U, Ac, PAR, S, V) \\\n"
	"\tINGOT_EW_IF_ACT_##R(INGOT_EW_IF_EXACT_##V(case Ac: return INGOT_EW_VEC_##V;))\n"
	"static inline UK_INLINE uk_vec uk_epi_act(int act, uk_vec x, uk_vec A, uk_vec B)\n"
	"{\n"
	"\tswitch (act) {\n"
	"\tINGOT_EW_TABLE(UK_ACT_CASE)\n"
	"\tdefault: return x;\n"
	"\t}\n"
	"}\n"
	"#undef UK_ACT_CASE\n"
	"#undef H\n\n"
	"static inline UK_INLINE uk_vec uk_epi_apply(const uk_epi *e, int64_t r, int64_t j, uk_vec v,\n"
	"                                            uk_mask m, int masked)\n"
	"{\n"
	"\tif (e->scale)\n"
	"\t\tv = uk_mul(v, uk_bcast(e->alpha));\n"
	"\tif (e->rbias)\n"
	"\t\tv = uk_add(v, uk_bcast(e->rbias[r]));\n"
	"\tif (e->cm) {\n"
	"\t\tconst float *p = e->cm + r * e->ldcm + j;\n"
	"\t\tv = uk_add(v, uk_mul(uk_bcast(e->beta), masked ? uk_loadm(p, m) : uk_load(p)));\n"
	"\t}\n"
	"\tif (e->res) {\n"
	"\t\tconst float *p = e->res + r * e->ldres + j;\n"
	"\t\tv = uk_add(v, masked ? uk_loadm(p, m) : uk_load(p));\n"
	"\t}\n"
	"\treturn e->act ? uk_epi_act(e->act, v, uk_bcast(e->lo), uk_bcast(e->hi)) : v;\n"
	"}\n\n";

/* One microkernel: mr rows, nv vectors; edge: the last vector masked to the
 * columns left, B rows ldb apart; full: NR columns, B rows NR apart. */
static void emit_kernel(const SimdIsa *isa, Emitter *e, int mr, int nv, bool edge, int NR)
{
	char t1[512], a[64], b[64], c[64], name[64];
	const int L = isa->lanes;
	if (edge)
		snprintf(name, sizeof name, "uk_edge_%dx%d", mr, nv);
	else
		snprintf(name, sizeof name, "uk_full_%d", mr);
	if (edge)
		em_printf(e, "/* %d rows x up to %d columns (the last vector masked), B rows ldb apart */\n",
		          mr, nv * L);
	else
		em_printf(e, "/* %d rows x %d columns */\n", mr, NR);
	em_printf(e, "static void %s(int64_t kc, const float *a, const float *b, int64_t ldb, float *c,\n",
	          name);
	em_printf(e, "%*sint64_t ldc, int64_t nr, int acc, const uk_epi *e)\n{\n", (int)strlen(name) + 6, "");
	for (int i = 0; i < mr; i++) {
		em_printf(e, "\t%s", isa->vec);
		for (int v = 0; v < nv; v++)
			em_printf(e, "%s c%d_%d = %s", v ? "," : "", i, v, isa->zero);
		em_printf(e, ";\n");
	}
	if (edge) {
		snprintf(a, sizeof a, "nr - %d", (nv - 1) * L);
		em_printf(e, "\tconst %s m = %s;\n", isa->mask, T1(mask_n, a));
	} else {
		em_printf(e, "\t(void)ldb;\n\t(void)nr;\n");
	}
	snprintf(b, sizeof b, "%d", NR);
	em_printf(e, "\tfor (int64_t k = 0; k < kc; k++, a += %d, b += %s) {\n", mr, edge ? "ldb" : b);
	for (int v = 0; v < nv; v++) {
		snprintf(b, sizeof b, v ? "b + %d" : "b", v * L);
		em_printf(e, "\t\tconst %s b%d = %s;\n", isa->vec, v,
		          edge && v == nv - 1 ? T2(loadm, b, "m") : T1(load, b));
	}
	for (int i = 0; i < mr; i++) {
		snprintf(a, sizeof a, "a[%d]", i);
		em_printf(e, "\t\tconst %s a%d = %s;\n", isa->vec, i, T1(bcast, a));
		for (int v = 0; v < nv; v++) {
			snprintf(a, sizeof a, "a%d", i);
			snprintf(b, sizeof b, "b%d", v);
			snprintf(c, sizeof c, "c%d_%d", i, v);
			em_printf(e, "\t\tc%d_%d = %s;\n", i, v, T3(fma, a, b, c));
		}
	}
	em_printf(e, "\t}\n\tif (acc) {\n");
	for (int i = 0; i < mr; i++)
		for (int v = 0; v < nv; v++) {
			char p[64];
			snprintf(p, sizeof p, "c + %d * ldc + %d", i, v * L);
			snprintf(c, sizeof c, "c%d_%d", i, v);
			char ld[256];
			snprintf(ld, sizeof ld, "%s", edge && v == nv - 1 ? T2(loadm, p, "m") : T1(load, p));
			em_printf(e, "\t\tc%d_%d = %s;\n", i, v, T2(add, c, ld));
		}
	em_printf(e, "\t}\n\tif (e) {\n");
	for (int i = 0; i < mr; i++)
		for (int v = 0; v < nv; v++) {
			bool masked = edge && v == nv - 1;
			em_printf(e, "\t\tc%d_%d = uk_epi_apply(e, %d, %d, c%d_%d, %s, %d);\n", i, v, i, v * L, i, v,
			          masked ? "m" : "uk_mask_n(0)", masked);
		}
	em_printf(e, "\t}\n");
	for (int i = 0; i < mr; i++)
		for (int v = 0; v < nv; v++) {
			char p[64];
			snprintf(p, sizeof p, "c + %d * ldc + %d", i, v * L);
			snprintf(c, sizeof c, "c%d_%d", i, v);
			em_printf(e, "\t%s;\n", edge && v == nv - 1 ? T3(storem, p, "m", c) : T2(store, p, c));
		}
	em_printf(e, "}\n\n");
}

int ukgen_kc(const Target *t, const SimdIsa *isa)
{
	int mr, nv, kc;
	ukgen_blocking(t, isa, &mr, &nv);
	kc = t->l1d_kib * 1024 / 2 / (nv * isa->lanes * 4) / 16 * 16;
	return kc < 64 ? 64 : kc > 512 ? 512 : kc;
}

/* The rows of A packed per k-block (when A is not pre-packed): an mc x kc block fills
 * a quarter of L2, beside the packed B block and the C tile rows; a multiple of mr,
 * at most 256 rows and 128 KiB (the block lives on the stack of each thread). */
int ukgen_mc(const Target *t, const SimdIsa *isa)
{
	int mr, nv, kc = ukgen_kc(t, isa), mc;
	ukgen_blocking(t, isa, &mr, &nv);
	mc = t->l2_kib * 1024 / 4 / (kc * 4);
	if (!t->cpu)   /* the generic core keeps the block it always had */
		mc = 128;
	if (mc > 256)
		mc = 256;
	if (mc * kc * 4 > 128 * 1024)
		mc = 128 * 1024 / (kc * 4);
	mc = mc / mr * mr;
	return mc < mr ? mr : mc;
}

void ukgen_emit(const Target *t, const SimdIsa *isa, Emitter *e)
{
	int mr, nv;
	ukgen_blocking(t, isa, &mr, &nv);
	const int NR = nv * isa->lanes;
	em_printf(e, "/* ukernel.h — generated by ingot (codegen/common/ukgen.c) for target %s; do not\n",
	          isa->target);
	em_printf(e, " * edit. %d floats per vector, %d vector registers: GEMM tiles of %d rows x %d\n",
	          isa->lanes, isa->regs, mr, NR);
	em_printf(e, " * columns (%d vectors) keep %d accumulators, %d B vectors and one broadcast in\n",
	          nv, mr * nv, nv);
	em_printf(e, " * registers. Used by the kernel drivers in kernels/%s/. */\n", t->simd);
	em_printf(e, "#ifndef INGOT_UKERNEL_H\n#define INGOT_UKERNEL_H\n\n");
	em_printf(e, "#include <%s>\n#include <stdint.h>\n\n#include \"../ewtable.h\"\n\n", isa->header);
	em_printf(e, "#if defined(__GNUC__)\n#define UK_INLINE __attribute__((always_inline))\n#else\n"
	             "#define UK_INLINE\n#endif\n\n");
	em_printf(e, "#define UK_TARGET \"%s\"\n", isa->target);
	em_printf(e, "#define UK_VF %d   /* floats per vector */\n", isa->lanes);
	em_printf(e, "#define UK_MR %d   /* rows of a tile */\n", mr);
	em_printf(e, "#define UK_NV %d   /* vectors per tile row */\n", nv);
	em_printf(e, "#define UK_NR %d  /* columns of a tile */\n", NR);
	em_printf(e, "#define UK_KC %d /* k-block: a B panel of UK_KC x UK_NR floats fills half of L1 (%d KiB) */\n",
	          ukgen_kc(t, isa), t->l1d_kib);
	em_printf(e, "#define UK_MC %d /* rows of A packed per k-block: UK_MC x UK_KC floats, a quarter of L2 "
	             "(%d KiB) */\n",
	          ukgen_mc(t, isa), t->l2_kib);
	em_printf(e, "/* sized for %s: %d FMA pipe(s) of %d bits, latency %d */\n\n",
	          t->cpu ? t->cpu : "the generic core", t->fma_ports, t->fma_bits, t->fma_latency);
	emit_vocabulary(isa, e);
	em_printf(e, "%s", epilogue_text);
	em_printf(e, "typedef void (*uk_fn)(int64_t kc, const float *a, const float *b, int64_t ldb, "
	             "float *c, int64_t ldc,\n                      int64_t nr, int acc, const uk_epi *e);\n\n");
	for (int i = 1; i <= mr; i++) {
		emit_kernel(isa, e, i, nv, false, NR);
		for (int v = 1; v <= nv; v++)
			emit_kernel(isa, e, i, v, true, NR);
	}
	em_printf(e, "/* uk_full[mr]: mr rows x UK_NR columns; uk_edge[mr][v]: mr rows x up to v vectors */\n");
	em_printf(e, "static const uk_fn uk_full[UK_MR + 1] = { 0");
	for (int i = 1; i <= mr; i++)
		em_printf(e, ", uk_full_%d", i);
	em_printf(e, " };\nstatic const uk_fn uk_edge[UK_MR + 1][UK_NV + 1] = {\n\t{ 0 },\n");
	for (int i = 1; i <= mr; i++) {
		em_printf(e, "\t{ 0");
		for (int v = 1; v <= nv; v++)
			em_printf(e, ", uk_edge_%dx%d", i, v);
		em_printf(e, " },\n");
	}
	em_printf(e, "};\n\n#endif /* INGOT_UKERNEL_H */\n");
}

int ukgen_write(const Target *t, const char *out_dir, DiagSink *d)
{
	const SimdIsa *isa = ukgen_isa(t);
	char dir[4096];
	Emitter e;
	int rc;
	if (!isa)
		return 0;
	snprintf(dir, sizeof dir, "%s/kernels/%s", out_dir, t->simd);
	if (cg_mkdir_p(dir, d))
		return -1;
	em_init(&e);
	ukgen_emit(t, isa, &e);
	rc = em_write_file(&e, dir, "ukernel.h", d);
	em_free(&e);
	return rc;
}
