/* ewmath.h — the per-element math of the elementwise reference kernels: one
 * static inline function per op, the only copy of each formula. elementwise.c's
 * loops (ingot_unary, ingot_binary, ingot_clip) call them, so do the activations
 * fused into Conv, Gemm and MatMul (ingot_ew*_act, called by conv.c and linalg.c)
 * and Gelu (arith.c), and so
 * does the code ingot generates for a fused elementwise chain: a fused node
 * computes the very bits the separate nodes compute (-O0 and -O2 agree).
 *
 * The unary and activation formulas are ewtable.h's rows; each is defined here for
 * float (prefix ingot_ewf_: expf...) and double (prefix ingot_ewd_: exp...):
 *     float y = ingot_ewf_sigmoid(x);      double z = ingot_ewd_elu(x, 1.0);
 * al, be, ga are the op's ONNX attributes (alpha, beta, gamma; HardSwish uses
 * al = 1/6, be = 0.5). NaN propagates as numpy: through Max/Min and Clip too.
 */
#ifndef INGOT_KERNELS_EWMATH_H
#define INGOT_KERNELS_EWMATH_H

/* OpenCL C (--target opencl) reads this file after ewtable.h, with floats only */
#ifndef __OPENCL_C_VERSION__
#include <math.h>
#include <stdint.h>

#include "ewtable.h"
#endif

#if defined(__GNUC__)
#define INGOT_EW_INLINE static inline __attribute__((unused))
#else
#define INGOT_EW_INLINE static inline
#endif

/* Binary arithmetic (Sum, Mean, Max and Min of ingot_variadic share them). */
#define INGOT_EW_BINARY_MATH(T, S, P) \
INGOT_EW_INLINE T P##add(T x, T y) { return x + y; } \
INGOT_EW_INLINE T P##sub(T x, T y) { return x - y; } \
INGOT_EW_INLINE T P##mul(T x, T y) { return x * y; } \
INGOT_EW_INLINE T P##div(T x, T y) { return x / y; } \
/* x^2 as one rounding (exact), as numpy */ \
INGOT_EW_INLINE T P##pow(T x, T y) { return y == 2 ? x * x : pow##S(x, y); } \
INGOT_EW_INLINE T P##max(T x, T y) { return x != x ? x : y != y ? y : x > y ? x : y; } \
INGOT_EW_INLINE T P##min(T x, T y) { return x != x ? x : y != y ? y : x < y ? x : y; }

/* Clip to [lo, hi] where has_lo / has_hi; NaN compares false and stays NaN (numpy.clip). */
#define INGOT_EW_CLIP_MATH(T, P) \
INGOT_EW_INLINE T P##clip(T v, int has_lo, T lo, int has_hi, T hi) \
{ v = has_lo && v < lo ? lo : v; return has_hi && v > hi ? hi : v; }

/* A fused epilogue activation (Conv, Gemm, MatMul) by its code, al and be its
 * parameters (Clip's bounds, LeakyRelu's alpha, HardSigmoid's alpha and beta).
 * The codes are ewtable.h's; conv.h and linalg.h alias them. */
#define INGOT_EW_ACT_PFX(N) INGOT_EW_ACT_##N
enum { INGOT_EW_ACT_NONE, INGOT_EW_TABLE(INGOT_EW_ACT_ALIAS) };
#undef INGOT_EW_ACT_PFX

/* The functions of ewtable.h's rows and the activation switch, in the type
 * INGOT_EW_T with the libm functions INGOT_EW_M(f) and the prefix INGOT_EW_FN(fn). */
#define INGOT_EW_DEF(N, On, fn, R, U, A, PAR, S, V) INGOT_EW_IF_FN_##R( \
	INGOT_EW_INLINE INGOT_EW_T INGOT_EW_FN(fn)(INGOT_EW_T x INGOT_EW_DECL_##PAR) { return S; })
#define INGOT_EW_ACT_CASE(N, On, fn, R, U, A, PAR, S, V) INGOT_EW_IF_ACT_##R( \
	case INGOT_EW_ACT_##N: return INGOT_EW_CALL_##PAR(INGOT_EW_FN, fn);)
#define INGOT_EW_ACT_DEF \
INGOT_EW_INLINE INGOT_EW_T INGOT_EW_FN(act)(int64_t act, INGOT_EW_T x, INGOT_EW_T al, \
                                         INGOT_EW_T be) \
{ \
	switch (act) { \
	INGOT_EW_TABLE(INGOT_EW_ACT_CASE) \
	default: return x; \
	} \
}

#define INGOT_EW_T float
#define INGOT_EW_M(fn) fn##f
#define INGOT_EW_FN(fn) ingot_ewf_##fn
INGOT_EW_TABLE(INGOT_EW_DEF)
INGOT_EW_BINARY_MATH(float, f, ingot_ewf_)
INGOT_EW_CLIP_MATH(float, ingot_ewf_)
INGOT_EW_ACT_DEF
#undef INGOT_EW_T
#undef INGOT_EW_M
#undef INGOT_EW_FN
#ifndef __OPENCL_C_VERSION__
#define INGOT_EW_T double
#define INGOT_EW_M(fn) fn
#define INGOT_EW_FN(fn) ingot_ewd_##fn
INGOT_EW_TABLE(INGOT_EW_DEF)
INGOT_EW_BINARY_MATH(double, , ingot_ewd_)
INGOT_EW_CLIP_MATH(double, ingot_ewd_)
INGOT_EW_ACT_DEF
#undef INGOT_EW_T
#undef INGOT_EW_M
#undef INGOT_EW_FN
INGOT_EW_CLIP_MATH(int64_t, ingot_ewi_)
INGOT_EW_CLIP_MATH(uint64_t, ingot_ewu_)
#endif

#undef INGOT_EW_DEF
#undef INGOT_EW_ACT_CASE
#undef INGOT_EW_ACT_DEF
#undef INGOT_EW_BINARY_MATH
#undef INGOT_EW_CLIP_MATH

#endif
