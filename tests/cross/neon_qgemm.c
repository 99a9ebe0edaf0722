/* neon_qgemm.c — the NEON int8 kernels (runtime-stubs/kernels/neon/qgemm.c) against the
 * reference ingot_qconv / ingot_qmatmul (kernels/quant.c), byte for byte, on random
 * problems: 1-D and 2-D QLinearConv (a quarter of them 1 x 1) with odd channel
 * counts, padding, strides,
 * dilations, groups and depthwise, u8/i8 inputs, weights and outputs, per-tensor and
 * per-channel weight scales and zero points, bias, fused clamps, weights packed as at
 * compile time or by the kernel, task splits; QLinearMatMul with M = 1, broadcast
 * batches, per-row / per-column scales and zero points. A third of the problems have
 * power-of-two scales, so requantization meets exact ties (rint rounds them to even).
 * Built with a cross compiler (with and without dotprod) and run under qemu-user by
 * neon_qgemm_test.py; a failure is reported through tests/unit/harness.h. */
#define INGOT_KERNEL static INGOT_UNUSED
#include "ingot_rt.h"
#include "kernels/quant.c"
#include "kernels/neon/qgemm.c"

#include <stdio.h>
#include <stdlib.h>

#include "../unit/harness.h"

static unsigned long long rng = 0x9e3779b97f4a7c15ULL;

static unsigned rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng >> 32);
}

static int64_t ri(int64_t lo, int64_t hi) { return lo + (int64_t)(rnd() % (unsigned)(hi - lo + 1)); }
static float rfl(float lo, float hi) { return lo + (hi - lo) * (float)(rnd() % 100001u) / 100000.0f; }

static uint8_t *bytes(int64_t n)
{
	uint8_t *p = malloc((size_t)(n > 0 ? n : 1));
	for (int64_t i = 0; i < n; i++)
		p[i] = (uint8_t)rnd();
	return p;
}

static int64_t dt8(void) { return ri(0, 1) ? INGOT_DT_U8 : INGOT_DT_I8; }

/* a scale: sometimes a power of two */
static float scale(void)
{
	return ri(0, 3) == 0 ? (float)(1 << ri(0, 3)) / 8.0f : rfl(0.002f, 0.05f);
}

/* the output clamp: the dtype's range, or a Relu / Clip inside it */
static void clamp(int64_t ydt, int64_t *lo, int64_t *hi)
{
	const int64_t dlo = ydt == INGOT_DT_U8 ? 0 : -128, dhi = ydt == INGOT_DT_U8 ? 255 : 127;
	*lo = dlo;
	*hi = dhi;
	if (ri(0, 2) == 0) {
		*lo = ri(dlo, dhi);
		*hi = ri(*lo, dhi);
	}
}

/* one problem in three has tie scales: x and w scales 1/2^i, y scales 2^j, so the
 * multiplier is 2^-e and acc * mult lands on .5 often */
static int ties;
static float tscale(int y)
{
	return y ? (float)(1 << ri(0, 10)) : 1.0f / (float)(1 << ri(0, 2));
}

static int n_cases, n_bytes;

static void compare(const char *what, int cs, const uint8_t *ref, const uint8_t *got, int64_t n)
{
	int64_t bad = 0, first = -1;
	n_cases++;
	n_bytes += (int)n;
	for (int64_t i = 0; i < n; i++)
		if (ref[i] != got[i] && bad++ == 0)
			first = i;
	CHECK(bad == 0, "%s case %d: %lld of %lld bytes differ (first at %lld: ref %u got %u)", what,
	      cs, (long long)bad, (long long)n, (long long)first, first >= 0 ? ref[first] : 0,
	      first >= 0 ? got[first] : 0);
}

static void test_conv(int cs)
{
	ingot_neon_qconv_params q;
	ingot_qconv_params r;
	const int nsp = (int)ri(1, 2), dw = ri(0, 3) == 0;
	int64_t N = ri(1, 2), group = dw ? 0 : ri(1, 3), cg = dw ? 1 : ri(1, 9);
	int64_t mg = dw ? ri(1, 2) : ri(1, 13), C, M, k = 1, xn, wn, yn, sp = 1, tries = 0;
	uint8_t *x, *w, *y0, *y1, *wpk = NULL, xzp, wzp[64], yzp;
	float xs, ws[64], ys;
	int32_t bias[64];
	memset(&q, 0, sizeof q);
	if (dw) {
		group = ri(1, 12);
		cg = 1;
	}
	C = cg * group;
	M = mg * group;
	q.x_dtype = dt8();
	q.w_dtype = dt8();
	q.y_dtype = dt8();
	q.qlinear = 1;
	q.nsp = nsp;
	q.group = group;
	q.has_xzp = 1;
	q.x_dims[0] = q.y_dims[0] = N;
	q.x_dims[1] = C;
	q.y_dims[1] = M;
	q.w_dims[0] = M;
	q.w_dims[1] = cg;
	const int pointwise = !dw && ri(0, 3) == 0;    /* 1 x 1, stride 1, no padding */
	for (int d = 0; d < nsp; d++) {
		int64_t in, kk, s, dl, pb, pe, o;
		do {
			in = ri(1, nsp == 1 ? 23 : 11);
			kk = pointwise ? 1 : ri(1, dw ? 5 : 3);
			s = pointwise ? 1 : ri(1, 3);
			dl = ri(1, 2);
			pb = pointwise ? 0 : ri(0, 2);
			pe = pointwise ? 0 : ri(0, 2);
			o = (in + pb + pe - dl * (kk - 1) - 1);
			tries++;
		} while (o < 0);
		q.x_dims[2 + d] = in;
		q.w_dims[2 + d] = kk;
		q.y_dims[2 + d] = o / s + 1;
		q.strides[d] = s;
		q.dilations[d] = dl;
		q.pads[d] = pb;
		k *= kk;
		sp *= q.y_dims[2 + d];
	}
	(void)tries;
	k *= cg;
	q.w_zp = ri(0, 2) == 0 ? 0 : ri(0, 1) ? 1 : M;
	q.w_s = ri(0, 1) ? 1 : M;
	q.has_bias = ri(0, 1);
	clamp(q.y_dtype, &q.y_lo, &q.y_hi);
	xn = N * C;
	for (int d = 0; d < nsp; d++)
		xn *= q.x_dims[2 + d];
	wn = M * k;
	yn = N * M * sp;
	x = bytes(xn);
	w = bytes(wn);
	y0 = calloc((size_t)yn, 1);
	y1 = calloc((size_t)yn, 1);
	xzp = (uint8_t)rnd();
	yzp = (uint8_t)rnd();
	ties = ri(0, 2) == 0;
	xs = ties ? tscale(0) : scale();
	ys = ties ? tscale(1) : scale() * (float)ri(1, 64) * (float)(k > 8 ? 8 : k);
	for (int64_t m = 0; m < M; m++) {
		wzp[m] = (uint8_t)rnd();
		ws[m] = ties ? tscale(0) : scale();
		bias[m] = (int32_t)ri(-40000, 40000);
	}
	{
		const void *in[9] = { x, &xs, &xzp, w, ws, wzp, &ys, &yzp, bias };
		void *out[1] = { y0 };
		memcpy(&r, &q, sizeof r);
		CHECK(ingot_qconv(&r, in, out, NULL, 0, 1) == INGOT_OK, "conv %d: reference failed", cs);
	}
	/* packed at compile time (as codegen/neon/lower.c does), or by the kernel */
	if (!dw && ri(0, 1)) {
		const int64_t wb = ingot_neon_qpack_bytes(mg, k);
		wpk = malloc((size_t)(group * wb));
		for (int64_t g = 0; g < group; g++)
			ingot_neon_qpack(w + g * mg * k, mg, k, k, 1, q.w_dtype == INGOT_DT_U8 ? 0x80 : 0,
			                 wpk + g * wb);
		q.packed = 1;
	}
	{
		const int nt = (int)ri(1, 3);
		const int64_t sb = cg == 1 && !q.packed ? 0 : ingot_neon_qconv_scratch_bytes(group, mg, k, (int)q.packed);
		const void *in[9] = { x, &xs, &xzp, q.packed ? wpk : w, ws, wzp, &ys, &yzp, bias };
		void *out[1] = { y1 };
		for (int t = 0; t < nt; t++) {
			void *s = sb ? malloc((size_t)sb) : NULL;
			CHECK(ingot_neon_qconv(&q, in, out, s, t, nt) == INGOT_OK, "conv %d: NEON failed", cs);
			free(s);
		}
	}
	compare(dw ? "depthwise conv" : "conv", cs, y0, y1, yn);
	free(x); free(w); free(y0); free(y1); free(wpk);
}

static void test_matmul(int cs)
{
	ingot_neon_qmatmul_params q;
	ingot_qmatmul_params r;
	int64_t m = ri(0, 3) == 0 ? 1 : ri(1, 21), n = ri(1, 21), k = ri(0, 4) == 0 ? ri(100, 700) : ri(1, 40);
	int64_t batches = 1, an = m * k, bn = k * n, astr = m * k, bstr = k * n;
	uint8_t *a, *b, *y0, *y1, *bpk = NULL, azp[32], bzp[32], yzp[32];
	float as[32], bs[32], ys[32];
	int32_t bias[32];
	const int packed = ri(0, 1);
	memset(&q, 0, sizeof q);
	q.a_dtype = dt8();
	q.b_dtype = dt8();
	q.y_dtype = dt8();
	q.qlinear = 1;
	q.m = m;
	q.n = n;
	q.k = k;
	q.nb = ri(0, 2);
	for (int d = (int)q.nb - 1; d >= 0; d--) {   /* each batch dim: both, or one operand broadcast */
		const int64_t bd = ri(1, 3), who = ri(0, 2);
		q.bdims[d] = bd;
		q.a_bstr[d] = who == 1 ? 0 : astr;
		q.b_bstr[d] = who == 2 || packed ? 0 : bstr;
		if (who != 1)
			astr *= bd;
		if (who != 2 && !packed)
			bstr *= bd;
		batches *= bd;
	}
	an = astr;
	bn = bstr;
	q.a_zp = ri(0, 2);
	q.b_zp = ri(0, 2);
	q.a_s = ri(1, 2);
	q.b_s = ri(1, 2);
	q.y_s = ri(1, 2);
	q.y_zp = ri(0, 2);
	q.s_dtype = INGOT_DT_F32;
	q.has_bias = ri(0, 1);
	clamp(q.y_dtype, &q.y_lo, &q.y_hi);
	a = bytes(an);
	b = bytes(bn);
	y0 = calloc((size_t)(batches * m * n), 1);
	y1 = calloc((size_t)(batches * m * n), 1);
	ties = ri(0, 2) == 0;
	for (int i = 0; i < 32; i++) {
		azp[i] = (uint8_t)rnd();
		bzp[i] = (uint8_t)rnd();
		yzp[i] = (uint8_t)rnd();
		as[i] = ties ? tscale(0) : scale();
		bs[i] = ties ? tscale(0) : scale();
		ys[i] = ties ? tscale(1) : scale() * (float)ri(1, 64) * (float)(k > 8 ? 8 : k);
		bias[i] = (int32_t)ri(-40000, 40000);
	}
	{
		const void *in[9] = { a, as, azp, b, bs, bzp, ys, yzp, bias };
		void *out[1] = { y0 };
		memcpy(&r, &q, sizeof r);
		CHECK(ingot_qmatmul(&r, in, out, NULL, 0, 1) == INGOT_OK, "matmul %d: reference failed", cs);
	}
	if (packed) {
		bpk = malloc((size_t)ingot_neon_qpack_bytes(n, k));
		ingot_neon_qpack(b, n, k, 1, n, q.b_dtype == INGOT_DT_U8 ? 0x80 : 0, bpk);
		q.packed = 1;
	}
	{
		const int nt = (int)ri(1, 3);
		const int64_t sb = ingot_neon_qmatmul_scratch_bytes(n, k, packed);
		const void *in[9] = { a, as, azp, packed ? bpk : b, bs, bzp, ys, yzp, bias };
		void *out[1] = { y1 };
		for (int t = 0; t < nt; t++) {
			void *s = malloc((size_t)sb);
			CHECK(ingot_neon_qmatmul(&q, in, out, s, t, nt) == INGOT_OK, "matmul %d: NEON failed", cs);
			free(s);
		}
	}
	compare("matmul", cs, y0, y1, batches * m * n);
	free(a); free(b); free(y0); free(y1); free(bpk);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 300;
	for (int i = 0; i < n; i++) {
		test_conv(i);
		test_matmul(i);
	}
	printf("%s: %d cases (%d output bytes), %d failures\n",
	       QG_DOT ? "sdot" : "smull/sadalp", n_cases, n_bytes, failures);
	return failures != 0;
}
