/* ewtable.h — the one table of the elementwise unary ops and of the activations
 * fused into Conv, Gemm and MatMul epilogues. Everything that names these
 * functions is generated from it: the op codes of ingot_unary (INGOT_EW_*,
 * elementwise.h) and the epilogue codes (INGOT_EW_ACT_*, ewmath.h, with the
 * INGOT_CONV_ACT_* / INGOT_LINALG_ACT_* / INGOT_X86_ACT_* / INGOT_NEON_ACT_*
 * aliases of conv.h, linalg.h, x86/sgemm.h and neon/gemm.h), ewmath.h's
 * per-element functions and its activation switch, ingot_unary's switch, the
 * SIMD epilogues' vector math, and in the compiler the op -> code map, the
 * names, and the fused-loop emitter's scalar calls and vector forms.
 *
 * One row per function:
 *   X(NAME, Onnx, fn, ROLE, U, A, PAR, SCALAR, VEC)
 * NAME   INGOT_EW_<NAME>, INGOT_EW_ACT_<NAME>, and the compiler's OP_<NAME>
 * Onnx   the ONNX op name
 * fn     ewmath.h's ingot_ewf_<fn> / ingot_ewd_<fn>; also the epilogue's name
 * ROLE   U: a unary op of ingot_unary; A: an epilogue activation only; UA: both;
 *        UX: a unary op with no float function (Not); AX: an activation whose
 *        function is written elsewhere in ewmath.h (Clip)
 * U, A   the ingot_unary code and the epilogue code (_ where the role lacks
 *        one). These are baked into generated parameter structs: never renumber,
 *        a new row takes the next free code of each.
 * PAR    the float attributes after x, with their ONNX defaults: P0 none, PA(alpha),
 *        PAB(alpha, beta), PAG(alpha, gamma), PHS alpha and beta fixed by the compiler (HardSwish:
 *        1/6 and 1/2, no ONNX attributes), PCLIP Clip's bounds (al lo, be hi)
 * SCALAR the formula in x, al, be, ga; the type is INGOT_EW_T, a libm function
 *        INGOT_EW_M(exp) (expf or exp), another row's function INGOT_EW_FN(fn)
 * VEC    the vector form, x the operand, A and B alpha and beta as vectors, H the
 *        vector al * x + be: VEC(expr), exact (SCALAR's very bits, in the uk_* vector
 *        vocabulary of ukernel.h, which has vm_unit too); VM(expr), the vector math of simd/vmath.h (its
 *        errors stated there); or NOVEC. Every SIMD kernel takes its forms from here:
 *        the unary kernels run the float rows with a form, the microkernel epilogues
 *        the activations with an exact one, the others after the tile.
 * Rows are in the order of their codes; a row uses only the functions of rows
 * above it.
 */
#ifndef INGOT_KERNELS_EWTABLE_H
#define INGOT_KERNELS_EWTABLE_H

#ifndef __OPENCL_C_VERSION__   /* OpenCL C reads it too (--target opencl) */
#include <stdint.h>
#endif

#define INGOT_EW_TABLE(X) \
	X(ABS, Abs, abs, U, 0, _, P0, INGOT_EW_M(fabs)(x), VEC(uk_abs(x))) \
	X(CEIL, Ceil, ceil, U, 1, _, P0, INGOT_EW_M(ceil)(x), /* -floor(-x): exact, -0 included */ \
	  VEC(uk_mul(uk_floor(uk_mul(x, uk_bcast(-1.0f))), uk_bcast(-1.0f)))) \
	X(ELU, Elu, elu, U, 2, _, PA(1.0f), x < 0 ? al * INGOT_EW_M(expm1)(x) : x, NOVEC) \
	X(ERF, Erf, erf, U, 3, _, P0, INGOT_EW_M(erf)(x), VM(vm_erf(x))) \
	X(EXP, Exp, exp, U, 4, _, P0, INGOT_EW_M(exp)(x), VM(vm_exp(x))) \
	X(FLOOR, Floor, floor, U, 5, _, P0, INGOT_EW_M(floor)(x), VEC(uk_floor(x))) \
	X(HARD_SIGMOID, HardSigmoid, hard_sigmoid, UA, 6, 5, PAB(0.2f, 0.5f), \
	  INGOT_EW_M(fmax)((INGOT_EW_T)0, INGOT_EW_M(fmin)((INGOT_EW_T)1, al * x + be)), \
	  VEC(vm_unit(H))) \
	X(HARD_SWISH, HardSwish, hard_swish, UA, 7, 6, PHS, \
	  x * INGOT_EW_M(fmax)((INGOT_EW_T)0, INGOT_EW_M(fmin)((INGOT_EW_T)1, al * x + be)), \
	  VEC(uk_mul(x, vm_unit(H)))) \
	X(LEAKY_RELU, LeakyRelu, leaky_relu, UA, 8, 3, PA(0.01f), x < 0 ? al * x : x, \
	  VEC(uk_sel_lt(x, uk_zero(), x, uk_mul(A, x)))) \
	X(LOG, Log, log, U, 9, _, P0, INGOT_EW_M(log)(x), NOVEC) \
	X(NEG, Neg, neg, U, 10, _, P0, -x, VEC(uk_mul(x, uk_bcast(-1.0f)))) \
	X(NOT, Not, not, UX, 11, _, P0, !x, NOVEC) \
	X(RECIPROCAL, Reciprocal, reciprocal, U, 12, _, P0, (INGOT_EW_T)1 / x, \
	  VEC(uk_div(uk_bcast(1.0f), x))) \
	X(RELU, Relu, relu, UA, 13, 1, P0, x < 0 ? (INGOT_EW_T)0 : x, \
	  VEC(uk_sel_lt(x, uk_zero(), x, uk_zero()))) \
	X(SELU, Selu, selu, U, 14, _, PAG(1.67326319217681884765625f, 1.05070102214813232421875f), \
	  x <= 0 ? ga * al * INGOT_EW_M(expm1)(x) : ga * x, NOVEC) \
	/* e^-|x| never overflows: 1 / (1 + e^-x) above 0, e^x / (1 + e^x) below */ \
	X(SIGMOID, Sigmoid, sigmoid, UA, 15, 4, P0, x >= 0 ? (INGOT_EW_T)1 / ((INGOT_EW_T)1 + \
	  INGOT_EW_M(exp)(-x)) : INGOT_EW_M(exp)(x) / ((INGOT_EW_T)1 + INGOT_EW_M(exp)(x)), \
	  VM(vm_sigmoid(x))) \
	X(SOFTPLUS, Softplus, softplus, U, 16, _, P0, \
	  x > 0 ? x + INGOT_EW_M(log1p)(INGOT_EW_M(exp)(-x)) : INGOT_EW_M(log1p)(INGOT_EW_M(exp)(x)), \
	  NOVEC) \
	X(SOFTSIGN, Softsign, softsign, U, 17, _, P0, x / ((INGOT_EW_T)1 + INGOT_EW_M(fabs)(x)), \
	  VEC(uk_div(x, uk_add(uk_bcast(1.0f), uk_abs(x))))) \
	X(SQRT, Sqrt, sqrt, U, 18, _, P0, INGOT_EW_M(sqrt)(x), NOVEC) \
	X(TANH, Tanh, tanh, UA, 19, 7, P0, INGOT_EW_M(tanh)(x), VM(vm_tanh(x))) \
	/* x < lo ? lo : x, then > hi ? hi : x, as ingot_ewf_clip */ \
	X(CLIP, Clip, clip, AX, _, 2, PCLIP, x, \
	  VEC(uk_sel_lt(B, uk_sel_lt(x, A, x, A), uk_sel_lt(x, A, x, A), B))) \
	/* Gelu: 0.5 x (1 + erf(x / sqrt 2)) written as 0.5 x erfc(-x / sqrt 2), which keeps \
	 * its relative accuracy below 0, where 1 + erf cancels */ \
	X(GELU, Gelu, gelu, A, _, 8, P0, \
	  (INGOT_EW_T)0.5 * x * INGOT_EW_M(erfc)(x * (INGOT_EW_T)-0.70710678118654752440), \
	  VM(vm_gelu(x))) \
	/* Gelu, tanh form: 0.5 x (1 + tanh z) = x / (1 + e^-2z), z = sqrt(2/pi) (x + 0.044715 x^3), \
	 * no cancellation either */ \
	X(GELU_TANH, Gelu, gelu_tanh, A, _, 9, P0, x / ((INGOT_EW_T)1 + INGOT_EW_M(exp)( \
	  (INGOT_EW_T)-1.59576912160573071176 * (x + (INGOT_EW_T)0.044715 * x * x * x))), \
	  VM(vm_gelu_tanh(x))) \
	X(SWISH, Swish, swish, UA, 20, 10, PA(1.0f), x * INGOT_EW_FN(sigmoid)(al * x), \
	  VM(uk_mul(x, vm_sigmoid(uk_mul(A, x)))))

/* Role selectors: INGOT_EW_IF_<what>_##ROLE(text) is text where the row has it. */
#define INGOT_EW_IF_UNARY_U(...) __VA_ARGS__       /* an ingot_unary code */
#define INGOT_EW_IF_UNARY_UA(...) __VA_ARGS__
#define INGOT_EW_IF_UNARY_UX(...) __VA_ARGS__
#define INGOT_EW_IF_UNARY_A(...)
#define INGOT_EW_IF_UNARY_AX(...)
#define INGOT_EW_IF_FLOAT_U(...) __VA_ARGS__       /* an ingot_unary code of floats */
#define INGOT_EW_IF_FLOAT_UA(...) __VA_ARGS__
#define INGOT_EW_IF_FLOAT_UX(...)
#define INGOT_EW_IF_FLOAT_A(...)
#define INGOT_EW_IF_FLOAT_AX(...)
#define INGOT_EW_IF_ACT_U(...)                     /* an epilogue code */
#define INGOT_EW_IF_ACT_UA(...) __VA_ARGS__
#define INGOT_EW_IF_ACT_UX(...)
#define INGOT_EW_IF_ACT_A(...) __VA_ARGS__
#define INGOT_EW_IF_ACT_AX(...) __VA_ARGS__
#define INGOT_EW_IF_FN_U(...) __VA_ARGS__          /* SCALAR defines ingot_ew*_<fn> */
#define INGOT_EW_IF_FN_UA(...) __VA_ARGS__
#define INGOT_EW_IF_FN_UX(...)
#define INGOT_EW_IF_FN_A(...) __VA_ARGS__
#define INGOT_EW_IF_FN_AX(...)

/* Per VEC (a consumer pastes its prefix to the VEC column: INGOT_EW_VEC_##V...): the
 * form (x for NOVEC; the consumer has x, A, B and H in scope), whether there is one,
 * and text kept only where it is exact. */
#define INGOT_EW_VEC_VEC(...) __VA_ARGS__
#define INGOT_EW_VEC_VM(...) __VA_ARGS__
#define INGOT_EW_VEC_NOVEC x
#define INGOT_EW_HAS_VEC(...) 1
#define INGOT_EW_HAS_VM(...) 1
#define INGOT_EW_HAS_NOVEC 0
/* INGOT_EW_IF_EXACT_##V(text): text where the form is exact */
#define INGOT_EW_IF_EXACT_VEC(...) INGOT_EW_KEEP
#define INGOT_EW_IF_EXACT_VM(...) INGOT_EW_DROP
#define INGOT_EW_IF_EXACT_NOVEC INGOT_EW_DROP
#define INGOT_EW_KEEP(...) __VA_ARGS__
#define INGOT_EW_DROP(...)

/* Per PAR (a consumer pastes its prefix to the PAR column: PFX_##PAR is PFX_P0 or
 * PFX_PA(default)...): the parameter declarations after x, the call of F(fn) on
 * x, al, be, ga (INGOT_EW_CALL_##PAR(F, fn)),
 * the attribute letters ('a' alpha, 'b' beta, 'g' gamma) and the count of ONNX
 * attributes (an epilogue's act_params). */
#define INGOT_EW_DECL_P0
#define INGOT_EW_DECL_PA(da) , INGOT_EW_T al
#define INGOT_EW_DECL_PAB(da, db) , INGOT_EW_T al, INGOT_EW_T be
#define INGOT_EW_DECL_PAG(da, dg) , INGOT_EW_T al, INGOT_EW_T ga
#define INGOT_EW_DECL_PHS , INGOT_EW_T al, INGOT_EW_T be
#define INGOT_EW_DECL_PCLIP
#define INGOT_EW_CALL_P0(F, fn) F(fn)(x)
#define INGOT_EW_CALL_PA(da) INGOT_EW_CALL_XA
#define INGOT_EW_CALL_PAB(da, db) INGOT_EW_CALL_XAB
#define INGOT_EW_CALL_PAG(da, dg) INGOT_EW_CALL_XAG
#define INGOT_EW_CALL_PHS(F, fn) F(fn)(x, al, be)
#define INGOT_EW_CALL_XA(F, fn) F(fn)(x, al)
#define INGOT_EW_CALL_XAB(F, fn) F(fn)(x, al, be)
#define INGOT_EW_CALL_XAG(F, fn) F(fn)(x, al, ga)
#define INGOT_EW_CALL_PCLIP(F, fn) F(fn)(x, 1, al, 1, be)
#define INGOT_EW_ARGS_P0 ""
#define INGOT_EW_ARGS_PA(da) "a"
#define INGOT_EW_ARGS_PAB(da, db) "ab"
#define INGOT_EW_ARGS_PAG(da, dg) "ag"
#define INGOT_EW_ARGS_PHS "ab"
#define INGOT_EW_ARGS_PCLIP "ab"
#define INGOT_EW_NPAR_P0 0
#define INGOT_EW_NPAR_PA(da) 1
#define INGOT_EW_NPAR_PAB(da, db) 2
#define INGOT_EW_NPAR_PAG(da, dg) 2
#define INGOT_EW_NPAR_PHS 0
#define INGOT_EW_NPAR_PCLIP 2

/* Enumerators of the epilogue codes under the prefix INGOT_EW_ACT_PFX(NAME),
 * defined by the header that includes this (conv.h: INGOT_CONV_ACT_##NAME):
 *   enum { INGOT_EW_TABLE(INGOT_EW_ACT_ALIAS) };   (NONE = 0 is every such enum's first) */
#define INGOT_EW_ACT_ALIAS(N, On, fn, R, U, A, PAR, S, V) \
	INGOT_EW_IF_ACT_##R(INGOT_EW_ACT_PFX(N) = A,)

/* The same for the unary codes under INGOT_EW_UNARY_PFX(NAME) (x86/eltwise.h:
 * INGOT_X86_EW_##NAME, for x86/rnn.c's gates). */
#define INGOT_EW_UNARY_ALIAS(N, On, fn, R, U, A, PAR, S, V) \
	INGOT_EW_IF_UNARY_##R(INGOT_EW_UNARY_PFX(N) = U,)

/* The number of codes of each kind (the largest plus one), as sizeof a union of
 * one char array per code. */
#define INGOT_EW_U_SIZE(N, On, fn, R, U, A, PAR, S, V) INGOT_EW_IF_UNARY_##R(char N[U + 1];)
#define INGOT_EW_A_SIZE(N, On, fn, R, U, A, PAR, S, V) INGOT_EW_IF_ACT_##R(char N[A + 1];)
union ingot_ew_n_unary { INGOT_EW_TABLE(INGOT_EW_U_SIZE) };
union ingot_ew_n_act { INGOT_EW_TABLE(INGOT_EW_A_SIZE) };
#define INGOT_EW_N_UNARY ((int)sizeof(union ingot_ew_n_unary))
#define INGOT_EW_N_ACT ((int)sizeof(union ingot_ew_n_act))

/* Whether ingot_unary's code op is a float op with a vector form: the ops the SIMD
 * unary kernels run (x86/eltwise.c, neon/eltwise.c). */
#define INGOT_EW_UNARY_VEC_CASE(N, On, fn, R, U, A, PAR, S, V) \
	INGOT_EW_IF_FLOAT_##R(case U: return INGOT_EW_HAS_##V;)
static inline int ingot_ew_unary_has_vec(int64_t op)
{
	switch (op) {
	INGOT_EW_TABLE(INGOT_EW_UNARY_VEC_CASE)
	default: return 0;
	}
}

/* The vector form of epilogue code act: 2 exact (NONE too), 1 vector math, 0 none.
 * The microkernels' epilogue (ukernel.h's uk_epi_apply) runs the exact ones, x86/sgemm.c
 * and neon/gemm.c the others over the finished tile; an activation without a form runs
 * ewmath.h's ingot_ewf_act per element. */
#define INGOT_EW_FORM_VEC(...) 2
#define INGOT_EW_FORM_VM(...) 1
#define INGOT_EW_FORM_NOVEC 0
#define INGOT_EW_ACT_FORM_CASE(N, On, fn, R, U, A, PAR, S, V) \
	INGOT_EW_IF_ACT_##R(case A: return INGOT_EW_FORM_##V;)
static inline int ingot_ew_act_form(int64_t act)
{
	switch (act) {
	case 0: return 2;
	INGOT_EW_TABLE(INGOT_EW_ACT_FORM_CASE)
	default: return 0;
	}
}
static inline int ingot_ew_act_has_vec(int64_t act) { return ingot_ew_act_form(act) > 0; }
static inline int ingot_ew_act_exact(int64_t act) { return ingot_ew_act_form(act) == 2; }

#endif /* INGOT_KERNELS_EWTABLE_H */
