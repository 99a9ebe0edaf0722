/* ewmath.h — the per-element math of the elementwise reference kernels: one
 * static inline function per op, the only copy of each formula. elementwise.c's
 * loops (ingot_unary, ingot_binary, ingot_clip) call them, so do the activations
 * fused into Conv, Gemm and MatMul (ingot_ew*_act, called by conv.c and linalg.c)
 * and Gelu (arith.c), and so
 * does the code ingot generates for a fused elementwise chain: a fused node
 * computes the very bits the separate nodes compute (-O0 and -O2 agree).
 *
 * Each float formula is written once for float (prefix ingot_ewf_, S = f: expf...)
 * and double (prefix ingot_ewd_, S empty: exp...):
 *     float y = ingot_ewf_sigmoid(x);      double z = ingot_ewd_elu(x, 1.0);
 * al, be, ga are the op's ONNX attributes (alpha, beta, gamma; HardSwish uses
 * al = 1/6, be = 0.5). NaN propagates as numpy: through Max/Min and Clip too.
 */
#ifndef INGOT_KERNELS_EWMATH_H
#define INGOT_KERNELS_EWMATH_H

#include <math.h>
#include <stdint.h>

#if defined(__GNUC__)
#define INGOT_EW_INLINE static inline __attribute__((unused))
#else
#define INGOT_EW_INLINE static inline
#endif

/* Unary ops. */
#define INGOT_EW_UNARY_MATH(T, S, P) \
INGOT_EW_INLINE T P##abs(T x) { return fabs##S(x); } \
INGOT_EW_INLINE T P##ceil(T x) { return ceil##S(x); } \
INGOT_EW_INLINE T P##elu(T x, T al) { return x < 0 ? al * expm1##S(x) : x; } \
INGOT_EW_INLINE T P##erf(T x) { return erf##S(x); } \
INGOT_EW_INLINE T P##exp(T x) { return exp##S(x); } \
INGOT_EW_INLINE T P##floor(T x) { return floor##S(x); } \
/* Gelu: 0.5 x (1 + erf(x / sqrt 2)) written as 0.5 x erfc(-x / sqrt 2), which keeps \
 * its relative accuracy below 0, where 1 + erf cancels */ \
INGOT_EW_INLINE T P##gelu(T x) { return (T)0.5 * x * erfc##S(x * (T)-0.70710678118654752440); } \
/* Gelu, tanh form: 0.5 x (1 + tanh z) = x / (1 + e^-2z), z = sqrt(2/pi) (x + 0.044715 x^3), \
 * no cancellation either */ \
INGOT_EW_INLINE T P##gelu_tanh(T x) \
{ return x / ((T)1 + exp##S((T)-1.59576912160573071176 * (x + (T)0.044715 * x * x * x))); } \
INGOT_EW_INLINE T P##hard_sigmoid(T x, T al, T be) \
{ return fmax##S((T)0, fmin##S((T)1, al * x + be)); } \
INGOT_EW_INLINE T P##hard_swish(T x, T al, T be) \
{ return x * fmax##S((T)0, fmin##S((T)1, al * x + be)); } \
INGOT_EW_INLINE T P##leaky_relu(T x, T al) { return x < 0 ? al * x : x; } \
INGOT_EW_INLINE T P##log(T x) { return log##S(x); } \
INGOT_EW_INLINE T P##neg(T x) { return -x; } \
INGOT_EW_INLINE T P##reciprocal(T x) { return (T)1 / x; } \
INGOT_EW_INLINE T P##relu(T x) { return x < 0 ? (T)0 : x; } \
INGOT_EW_INLINE T P##selu(T x, T al, T ga) { return x <= 0 ? ga * al * expm1##S(x) : ga * x; } \
/* e^-|x| never overflows: 1 / (1 + e^-x) above 0, e^x / (1 + e^x) below */ \
INGOT_EW_INLINE T P##sigmoid(T x) \
{ return x >= 0 ? (T)1 / ((T)1 + exp##S(-x)) : exp##S(x) / ((T)1 + exp##S(x)); } \
INGOT_EW_INLINE T P##softplus(T x) \
{ return x > 0 ? x + log1p##S(exp##S(-x)) : log1p##S(exp##S(x)); } \
INGOT_EW_INLINE T P##softsign(T x) { return x / ((T)1 + fabs##S(x)); } \
INGOT_EW_INLINE T P##sqrt(T x) { return sqrt##S(x); } \
INGOT_EW_INLINE T P##tanh(T x) { return tanh##S(x); }

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
 * ORDER ACT: the codes of conv.h's INGOT_CONV_ACT_* and linalg.h's
 * INGOT_LINALG_ACT_* (compiler/ops/conv.c and linalg.c assert them equal). */
enum {
	INGOT_EW_ACT_NONE, INGOT_EW_ACT_RELU, INGOT_EW_ACT_CLIP, INGOT_EW_ACT_LEAKY_RELU,
	INGOT_EW_ACT_SIGMOID, INGOT_EW_ACT_HARD_SIGMOID, INGOT_EW_ACT_HARD_SWISH, INGOT_EW_ACT_TANH,
	INGOT_EW_ACT_GELU, INGOT_EW_ACT_GELU_TANH
};
#define INGOT_EW_ACT_MATH(T, P) \
INGOT_EW_INLINE T P##act(int64_t act, T x, T al, T be) \
{ \
	switch (act) { \
	case INGOT_EW_ACT_RELU: return P##relu(x); \
	case INGOT_EW_ACT_CLIP: return P##clip(x, 1, al, 1, be); \
	case INGOT_EW_ACT_LEAKY_RELU: return P##leaky_relu(x, al); \
	case INGOT_EW_ACT_SIGMOID: return P##sigmoid(x); \
	case INGOT_EW_ACT_HARD_SIGMOID: return P##hard_sigmoid(x, al, be); \
	case INGOT_EW_ACT_HARD_SWISH: return P##hard_swish(x, al, be); \
	case INGOT_EW_ACT_TANH: return P##tanh(x); \
	case INGOT_EW_ACT_GELU: return P##gelu(x); \
	case INGOT_EW_ACT_GELU_TANH: return P##gelu_tanh(x); \
	default: return x; \
	} \
}

INGOT_EW_UNARY_MATH(float, f, ingot_ewf_)
INGOT_EW_UNARY_MATH(double, , ingot_ewd_)
INGOT_EW_BINARY_MATH(float, f, ingot_ewf_)
INGOT_EW_BINARY_MATH(double, , ingot_ewd_)
INGOT_EW_CLIP_MATH(float, ingot_ewf_)
INGOT_EW_CLIP_MATH(double, ingot_ewd_)
INGOT_EW_CLIP_MATH(int64_t, ingot_ewi_)
INGOT_EW_CLIP_MATH(uint64_t, ingot_ewu_)
INGOT_EW_ACT_MATH(float, ingot_ewf_)
INGOT_EW_ACT_MATH(double, ingot_ewd_)

#undef INGOT_EW_UNARY_MATH
#undef INGOT_EW_BINARY_MATH
#undef INGOT_EW_CLIP_MATH
#undef INGOT_EW_ACT_MATH

#endif
