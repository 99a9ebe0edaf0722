/* simd/vmath.h — f32 vector math in the generated vector vocabulary (the uk_* of a
 * target's ukernel.h, which the includer includes first; without it this header
 * declares nothing): e^x, sigmoid, tanh, erf and Gelu (exact and tanh forms).
 * Header-only, static inline, so kernels and the per-node code of fused elementwise
 * loops share one copy of each formula, whatever the target's vector width.
 *
 * e^x is Cody-Waite range reduction (x = n ln2 + r, |r| <= ln2 / 2) and a degree-6
 * polynomial (Cephes' coefficients), 2^n applied in two halves so n = 128 does not
 * overflow. erf is x P(x^2) below |x| = 1 and 1 - erfc(|x|) above, with
 * erfc(a) = e^-a^2 (1/a) R(1/a) for a rational R of degree 5/5 fitted to
 * erfc(a) a e^a^2 over a in [0.5, 10] (relative error 3.2e-10 in exact arithmetic)
 * and a^2 carried as an unevaluated sum hi + lo (one fma), so e^-a^2 keeps its
 * relative accuracy far into the tail. Gelu's negative half is 0.5 x erfc(|x|/sqrt 2)
 * from the same erfc, without the cancellation of 1 + erf.
 *
 * Maximum errors against a double-precision reference over a dense sweep of
 * [-100, 100] (asserted by tests/unit/x86/x86_math_test.py; measured in parentheses):
 * exp 2 ulp (1.23), sigmoid 3 ulp (2.39), tanh 2 ulp (1.49), erf 2 ulp (1.12), Gelu
 * 6 ulp (5.44, in the far negative tail, where the function's condition number is
 * x^2); Gelu's tanh form 4 + 3 |2u| ulp against its formula with the same float
 * constants, 2u = 2 sqrt(2/pi) (x + 0.044715 x^3) being its exponent, whose rounding
 * e^2u amplifies in any float evaluation (measured: 0.82 of the bound; at x = -9,
 * 2u = -65), and results below 2^-120 within 2^-120 (e^2u underflows first).
 * Results below FLT_MIN flush to 0; NaN stays NaN.
 */
#ifndef INGOT_KERNELS_SIMD_VMATH_H
#define INGOT_KERNELS_SIMD_VMATH_H

#include <math.h>

#ifdef UK_VF   /* the vocabulary is there (with vm_unit, HardSigmoid's clamp) */

/* e^x: +inf above ln(FLT_MAX), 0 below ln(FLT_MIN), NaN stays NaN */
static inline uk_vec vm_exp(uk_vec x)
{
	const uk_vec hi = uk_bcast(88.72283935546875f), lo = uk_bcast(-87.33654022216797f);
	const uk_vec xc = uk_min(hi, uk_max(lo, x));
	const uk_vec n = uk_floor(uk_fma(xc, uk_bcast(1.44269504088896341f), uk_bcast(0.5f)));
	uk_vec r = uk_fma(n, uk_bcast(-0.693359375f), xc);
	uk_vec p, y, h;
	r = uk_fma(n, uk_bcast(2.12194440e-4f), r);
	p = uk_bcast(1.9875691500E-4f);
	p = uk_fma(p, r, uk_bcast(1.3981999507E-3f));
	p = uk_fma(p, r, uk_bcast(8.3334519073E-3f));
	p = uk_fma(p, r, uk_bcast(4.1665795894E-2f));
	p = uk_fma(p, r, uk_bcast(1.6666665459E-1f));
	p = uk_fma(p, r, uk_bcast(5.0000001201E-1f));
	y = uk_fma(p, uk_mul(r, r), uk_add(r, uk_bcast(1.0f)));
	h = uk_floor(uk_mul(n, uk_bcast(0.5f)));            /* 2^n = 2^h * 2^(n - h) */
	y = uk_mul(uk_mul(y, uk_pow2i(h)), uk_pow2i(uk_sub(n, h)));
	y = uk_sel_lt(hi, x, y, uk_bcast(INFINITY));
	y = uk_sel_lt(x, lo, y, uk_zero());
	return uk_nan_sel(x, y);
}

/* 1 / (1 + e^-x), as the reference: e^x / (1 + e^x) below 0 */
static inline uk_vec vm_sigmoid(uk_vec x)
{
	const uk_vec e = vm_exp(uk_mul(uk_abs(x), uk_bcast(-1.0f)));
	const uk_vec r = uk_div(uk_bcast(1.0f), uk_add(uk_bcast(1.0f), e));
	return uk_nan_sel(x, uk_sel_lt(x, uk_zero(), r, uk_mul(e, r)));
}

/* tanh: an odd polynomial below 0.625 (where 1 - e^-2|x| would cancel), else
 * (1 - e^-2|x|) / (1 + e^-2|x|) with x's sign */
static inline uk_vec vm_tanh(uk_vec x)
{
	const uk_vec a = uk_abs(x), z = uk_mul(x, x);
	uk_vec p = uk_bcast(-5.70498872745E-3f), e, t;
	p = uk_fma(p, z, uk_bcast(2.06390887954E-2f));
	p = uk_fma(p, z, uk_bcast(-5.37397155531E-2f));
	p = uk_fma(p, z, uk_bcast(1.33314422036E-1f));
	p = uk_fma(p, z, uk_bcast(-3.33332819422E-1f));
	p = uk_fma(uk_mul(p, z), x, x);
	e = vm_exp(uk_mul(a, uk_bcast(-2.0f)));
	t = uk_copysign(uk_div(uk_sub(uk_bcast(1.0f), e), uk_add(uk_bcast(1.0f), e)), x);
	return uk_nan_sel(x, uk_sel_lt(a, uk_bcast(0.625f), t, p));
}

/* erf(a) for a <= 1, z = a^2: a P(z), P of degree 6 with its constant term split
 * in two floats so that the large term a c0 is rounded once */
static inline uk_vec vm_erf_small(uk_vec a, uk_vec z)
{
	uk_vec p = uk_bcast(7.85385637e-05f);
	p = uk_fma(p, z, uk_bcast(-0.000801019196f));
	p = uk_fma(p, z, uk_bcast(0.00518832775f));
	p = uk_fma(p, z, uk_bcast(-0.026853811f));
	p = uk_fma(p, z, uk_bcast(0.112835854f));
	p = uk_fma(p, z, uk_bcast(-0.37612626f));
	p = uk_fma(p, z, uk_bcast(5.92050746e-08f));
	return uk_fma(a, uk_bcast(1.12837911f), uk_mul(a, p));
}

/* erfc(a) for 0.5 <= a <= 10 with a^2 = hi + lo: e^-hi (1 - lo) (1/a) R(1/a) */
static inline uk_vec vm_erfc_tail(uk_vec a, uk_vec hi, uk_vec lo)
{
	const uk_vec t = uk_div(uk_bcast(1.0f), a);
	uk_vec p = uk_bcast(-0.000110425273f), q = uk_bcast(11.4205122f), e;
	p = uk_fma(p, t, uk_bcast(11.4217129f));
	p = uk_fma(p, t, uk_bcast(15.3583727f));
	p = uk_fma(p, t, uk_bcast(9.77434635f));
	p = uk_fma(p, t, uk_bcast(3.35129857f));
	p = uk_fma(p, t, uk_bcast(0.564190865f));
	q = uk_fma(q, t, uk_bcast(28.2510147f));
	q = uk_fma(q, t, uk_bcast(30.2134113f));
	q = uk_fma(q, t, uk_bcast(17.8226585f));
	q = uk_fma(q, t, uk_bcast(5.9401226f));
	q = uk_fma(q, t, uk_bcast(1.0f));
	e = vm_exp(uk_mul(hi, uk_bcast(-1.0f)));
	e = uk_fma(e, uk_mul(lo, uk_bcast(-1.0f)), e);
	return uk_mul(e, uk_div(uk_mul(t, p), q));
}

/* a^2 as hi + lo for a clamped to [0, 10] (past 10, erfc is 0 in float) */
static inline uk_vec vm_sq_lo(uk_vec a, uk_vec hi)
{
	return uk_fma(a, a, uk_mul(hi, uk_bcast(-1.0f)));
}

static inline uk_vec vm_erf(uk_vec x)
{
	const uk_vec a = uk_min(uk_abs(x), uk_bcast(10.0f)), hi = uk_mul(a, a);
	const uk_vec small = vm_erf_small(a, hi);
	const uk_vec big = uk_sub(uk_bcast(1.0f), vm_erfc_tail(uk_max(a, uk_bcast(1.0f)), hi, vm_sq_lo(a, hi)));
	return uk_nan_sel(x, uk_copysign(uk_sel_lt(a, uk_bcast(1.0f), big, small), x));
}

/* Gelu: 0.5 x (1 + erf(a)), a = x / sqrt 2; below 0 as 0.5 x erfc(|a|), which does
 * not cancel (from |a| = 0.5 on: below, 1 - erf(|a|) loses under a bit) */
static inline uk_vec vm_gelu(uk_vec x)
{
	const uk_vec h = uk_mul(x, uk_bcast(0.5f));
	const uk_vec ax = uk_min(uk_abs(x), uk_bcast(14.0f)), sq = uk_mul(ax, ax);
	const uk_vec a = uk_mul(ax, uk_bcast(0.70710678118654752f));      /* |x| / sqrt 2 */
	const uk_vec hi = uk_mul(sq, uk_bcast(0.5f)), lo = uk_mul(vm_sq_lo(ax, sq), uk_bcast(0.5f));
	const uk_vec ec = vm_erfc_tail(uk_max(a, uk_bcast(0.5f)), hi, lo);
	const uk_vec ac = uk_min(a, uk_bcast(1.0f)), ef = vm_erf_small(ac, uk_mul(ac, ac));
	const uk_vec pos = uk_sel_lt(a, uk_bcast(1.0f), uk_sub(uk_bcast(2.0f), ec), uk_add(uk_bcast(1.0f), ef));
	const uk_vec neg = uk_sel_lt(a, uk_bcast(0.5f), ec, uk_sub(uk_bcast(1.0f), ef));
	return uk_nan_sel(x, uk_mul(h, uk_sel_lt(x, uk_zero(), pos, neg)));
}

/* Gelu, tanh form: 0.5 x (1 + tanh u) with u = sqrt(2 / pi) (x + 0.044715 x^3), as the
 * reference computes it: x / (1 + e^-2u), which does not cancel */
static inline uk_vec vm_gelu_tanh(uk_vec x)
{
	const uk_vec u2 = uk_mul(uk_bcast(-1.5957691216057308f),
	                         uk_fma(uk_mul(uk_bcast(0.044715f), x), uk_mul(x, x), x));
	return uk_div(x, uk_add(uk_bcast(1.0f), vm_exp(u2)));
}

#endif /* UK_VF */
#endif /* INGOT_KERNELS_SIMD_VMATH_H */
