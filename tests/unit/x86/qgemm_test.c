/* qgemm_test.c — ingot_x86_qconv and ingot_x86_qmatmul (runtime-stubs/kernels/x86/
 * qgemm.c) against the reference kernels ingot_qconv and ingot_qmatmul (quant.c),
 * byte for byte, on random problems: 1-D and 2-D convs with odd channel counts and
 * windows, strides, dilations, padding, groups and depthwise, per-tensor and
 * per-channel weights, u8 and s8 operands, zero points, bias, clamps, ConvInteger;
 * matmuls with odd K and N, M = 1, batches (A broadcast or not), zero points and
 * scales per tensor, per row and per column, bias, clamps, MatMulInteger; and the
 * longest exact K (32768) at extreme values; QLinearAdd / QLinearMul (ingot_x86_qbinary
 * against ingot_qbinary) on every byte pair for 10 x PROBLEMS random sets of scales and
 * zero points (ties, saturation, inf and NaN scales), operands of one shape or one of
 * one element; MaxPool of u8 / i8 (ingot_x86_qmaxpool against ingot_pool). Each problem
 * runs as 1, 3 and 7 tasks.
 * Built by x86_qgemm.py with the flags of one x86 target; prints the dot product
 * path it ran (x86_qgemm.py builds it as it is, with -DINGOT_NO_VNNI, and on AVX-512
 * with -DINGOT_X86_AMX: matmuls of 32 rows or more and K >= 64 take AMX tiles where
 * the CPU and Linux allow).
 * usage: qgemm_test [PROBLEMS] */
#define _POSIX_C_SOURCE 200112L
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "pool.h"
#include "quant.h"
#include "x86/qgemm.h"

#if defined(__AVX512F__)
#define LANES 16
#else
#define LANES 8
#endif

static uint64_t rng = 88172645463325252ull;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

static int64_t rint_in(int64_t lo, int64_t hi)   /* uniform in [lo, hi] */
{
	return lo + (int64_t)(rnd() % (uint32_t)(hi - lo + 1));
}

static float rf(float lo, float hi)
{
	return lo + (hi - lo) * (float)(rnd() % 100000) / 100000.0f;
}

static int failures, runs;

static void *alloc64(int64_t bytes)
{
	void *p = NULL;
	if (posix_memalign(&p, 64, (size_t)(bytes > 0 ? bytes : 1)) != 0) {
		printf("out of memory\n");
		exit(2);
	}
	return p;
}

/* fills n bytes: uniform, or (extreme) all `v` */
static void fill(uint8_t *p, int64_t n, int extreme, uint8_t v)
{
	for (int64_t i = 0; i < n; i++)
		p[i] = extreme ? v : (uint8_t)rnd();
}

static int dt8(void)
{
	return rnd() & 1 ? INGOT_DT_U8 : INGOT_DT_I8;
}

/* runs fn as n_tasks tasks (scratch bytes each) */
static int run_tasks(ingot_kernel_fn fn, const void *p, const void *const *in, void *const *out,
                     int64_t scratch, int n_tasks)
{
	uint8_t *s = scratch > 0 ? alloc64(scratch) : NULL;
	int rc = 0;
	for (int t = 0; t < n_tasks && !rc; t++)
		rc = fn(p, in, out, s, t, n_tasks);
	free(s);
	return rc;
}

static void compare(const char *what, int id, const void *ref, const void *got, size_t bytes, int tasks)
{
	runs++;
	if (memcmp(ref, got, bytes) != 0) {
		size_t i = 0;
		while (((const uint8_t *)ref)[i] == ((const uint8_t *)got)[i])
			i++;
		failures++;
		if (failures <= 20)
			printf("FAIL %s #%d (%d tasks): byte %zu of %zu: ref %u, x86 %u\n", what, id, tasks, i, bytes,
			       ((const uint8_t *)ref)[i], ((const uint8_t *)got)[i]);
	}
}

/* The output range: either none (the dtype's) or a random clamp inside it. */
static void clamp(int ydt, int64_t *lo, int64_t *hi)
{
	*lo = ydt == INGOT_DT_I8 ? -128 : 0;
	*hi = ydt == INGOT_DT_I8 ? 127 : 255;
	if (rnd() % 3 == 0) {
		*lo += rint_in(0, 100);
		*hi -= rint_in(0, 100);
	}
}

static void conv_case(int id, int kmax)
{
	ingot_qconv_params p;
	ingot_x86_qconv_params q;
	const int two = kmax ? 1 : (int)(rnd() % 4 != 0);
	int64_t G, Cg, Mg, K, x_n, w_n, y_n;
	memset(&p, 0, sizeof p);
	p.nsp = two ? 2 : 1;
	p.qlinear = rnd() % 5 != 0;
	p.x_dtype = kmax ? INGOT_DT_U8 : dt8();
	p.w_dtype = dt8();
	p.y_dtype = p.qlinear ? dt8() : INGOT_DT_I32;
	switch (kmax ? 0 : rnd() % 4) {
	case 0: G = 1; Cg = rint_in(1, 40); Mg = rint_in(1, 40); break;
	case 1: G = rint_in(2, 4); Cg = rint_in(1, 9); Mg = rint_in(1, 9); break;
	case 2: G = rint_in(1, 24); Cg = 1; Mg = 1; break;          /* depthwise */
	default: G = 1; Cg = rint_in(1, 130); Mg = rint_in(1, 70); break;
	}
	if (kmax)
		Cg = 2048, Mg = rint_in(1, 13);
	p.group = G;
	p.x_dims[0] = rint_in(1, 2);
	p.x_dims[1] = G * Cg;
	p.w_dims[0] = G * Mg;
	p.w_dims[1] = Cg;
	p.y_dims[0] = p.x_dims[0];
	p.y_dims[1] = G * Mg;
	for (int d = 0; d < p.nsp; d++) {
		int64_t k = kmax ? 4 : rint_in(1, 5), s = rint_in(1, 3), dl = rint_in(1, 2);
		if (two && Cg == 1 && Mg == 1 && G > 1 && rnd() % 4 == 0)
			k = rint_in(9, 10);   /* depthwise windows over 64 taps: the path without tap offsets */
		int64_t pb = rint_in(0, 2), pe = rint_in(0, 2), in, o;
		if (rnd() % 3 == 0) {
			s = 1;
			dl = 1;
		}
		if (kmax)
			s = dl = 1, pb = pe = 0;
		in = rint_in(k * dl, kmax ? 6 : 30);
		o = (in + pb + pe - dl * (k - 1) - 1) / s + 1;
		p.x_dims[2 + d] = in;
		p.w_dims[2 + d] = k;
		p.y_dims[2 + d] = o;
		p.strides[d] = s;
		p.dilations[d] = dl;
		p.pads[d] = pb;
		p.pads[d + p.nsp] = pe;
	}
	K = p.w_dims[1] * p.w_dims[2] * (p.nsp == 2 ? p.w_dims[3] : 1);
	x_n = p.x_dims[0] * p.x_dims[1];
	w_n = p.w_dims[0] * K;
	y_n = p.y_dims[0] * p.y_dims[1];
	for (int d = 0; d < p.nsp; d++) {
		x_n *= p.x_dims[2 + d];
		y_n *= p.y_dims[2 + d];
	}
	{
		const int64_t M = p.y_dims[1];
		const int ysz = p.y_dtype == INGOT_DT_I32 ? 4 : 1;
		uint8_t *x = malloc((size_t)x_n), *w = malloc((size_t)w_n), xz, yz;
		uint8_t *wz = malloc((size_t)M), *packed;
		uint8_t *yr = malloc((size_t)(y_n * ysz)), *yx = malloc((size_t)(y_n * ysz));
		int32_t *bias = malloc((size_t)M * 4);
		float xs = rf(0.001f, 0.1f), ys, *ws = malloc((size_t)M * 4);
		const void *in[9];
		void *out[1];
		/* kmax: every product (255 - 0) * (min - max) = -65025, K of them */
		fill(x, x_n, kmax, 0xff);
		fill(w, w_n, kmax, p.w_dtype == INGOT_DT_U8 ? 0x00 : 0x80);
		xz = kmax ? 0 : (uint8_t)rnd();
		yz = (uint8_t)rnd();
		p.has_xzp = p.qlinear || rnd() % 2;
		p.w_zp = kmax ? 1 : rnd() % 3 == 0 ? 0 : rnd() % 2 ? 1 : M;
		p.w_s = rnd() % 2 ? 1 : M;
		p.has_bias = p.qlinear && rnd() % 3 != 0;
		for (int64_t m = 0; m < M; m++) {
			wz[m] = kmax ? (p.w_dtype == INGOT_DT_I8 ? 0x7f : 0xff) : rnd() % 4 == 0 ? (uint8_t)rnd() : 0;
			ws[m] = rf(0.001f, 0.05f);
			bias[m] = (int32_t)rint_in(-100000, 100000);
		}
		if (kmax && p.qlinear)
			bias[0] = rnd() & 1 ? 2147483647 : -2147483647 - 1;
		/* y's scale puts the typical accumulator across a good part of the range */
		ys = xs * ws[0] * rf(2.0f, 60.0f) * (float)K;
		clamp((int)p.y_dtype, &p.y_lo, &p.y_hi);
		memset(in, 0, sizeof in);
		in[0] = x;
		if (p.qlinear) {
			in[1] = &xs; in[2] = &xz; in[3] = w; in[4] = ws; in[5] = wz; in[6] = &ys; in[7] = &yz;
			in[8] = p.has_bias ? bias : NULL;
		} else {
			in[1] = w; in[2] = p.has_xzp ? &xz : NULL; in[3] = p.w_zp ? wz : NULL;
		}
		if (!p.w_zp)
			in[p.qlinear ? 5 : 3] = NULL;
		out[0] = yr;
		memset(yr, 0xa5, (size_t)(y_n * ysz));
		if (ingot_qconv(&p, in, out, NULL, 0, 1) != INGOT_OK) {
			printf("FAIL conv #%d: the reference refused it\n", id);
			failures++;
			goto done;
		}
		memset(&q, 0, sizeof q);
		memcpy(&q, &p, sizeof p);
		q.packed = LANES;
		if (!ingot_x86_qconv_ok(&q)) {
			printf("FAIL conv #%d: ingot_x86_qconv_ok refused it\n", id);
			failures++;
			goto done;
		}
		packed = alloc64((ingot_x86_qconv_packed_bytes(M, K)));
		ingot_x86_qconv_pack(w, p.w_dtype, M, K, packed);
		in[p.qlinear ? 3 : 1] = packed;
		for (int nt = 1; nt <= 7; nt += 3) {
			memset(yx, 0x5a, (size_t)(y_n * ysz));
			out[0] = yx;
			if (run_tasks(ingot_x86_qconv, &q, in, out, ingot_x86_qconv_scratch(&q, LANES), nt)) {
				printf("FAIL conv #%d: ingot_x86_qconv failed\n", id);
				failures++;
				break;
			}
			compare("conv", id, yr, yx, (size_t)(y_n * ysz), nt);
		}
		free(packed);
	done:
		free(x); free(w); free(wz); free(yr); free(yx); free(bias); free(ws);
	}
}

static void matmul_case(int id, int kmax)
{
	ingot_qmatmul_params p;
	ingot_x86_qmatmul_params q;
	int64_t batches = 1, a_n, b_n, y_n;
	memset(&p, 0, sizeof p);
	p.qlinear = rnd() % 5 != 0;
	p.a_dtype = kmax ? INGOT_DT_U8 : dt8();
	p.b_dtype = dt8();
	p.y_dtype = p.qlinear ? dt8() : INGOT_DT_I32;
	p.m = rnd() % 4 == 0 ? 1 : rint_in(1, 70);
	p.k = kmax ? INGOT_X86_Q_KMAX : rint_in(1, 300);
	p.n = kmax ? rint_in(1, 20) : rint_in(1, 130);
	if (kmax)
		p.m = rint_in(1, 3);
	p.nb = kmax ? 0 : rint_in(0, 2);
	for (int d = 0; d < p.nb; d++)
		p.bdims[d] = rint_in(1, 3);
	for (int d = p.nb - 1, bcast = (int)(rnd() % 2); d >= 0; d--) {
		p.a_bstr[d] = bcast && d == 0 ? 0 : p.m * p.k * batches;
		if (!(bcast && d == 0))
			batches *= p.bdims[d];
		p.b_bstr[d] = 0;
	}
	a_n = batches * p.m * p.k;
	batches = 1;
	for (int d = 0; d < p.nb; d++)
		batches *= p.bdims[d];
	b_n = p.k * p.n;
	y_n = batches * p.m * p.n;
	p.a_zp = rnd() % 3 == 0 ? INGOT_QV_NONE : rnd() % 2 ? INGOT_QV_ONE : INGOT_QV_VEC;
	p.b_zp = kmax ? INGOT_QV_ONE : rnd() % 3 == 0 ? INGOT_QV_NONE : rnd() % 2 ? INGOT_QV_ONE : INGOT_QV_VEC;
	if (p.qlinear) {
		p.a_s = rnd() % 2 ? INGOT_QV_ONE : INGOT_QV_VEC;
		p.b_s = rnd() % 2 ? INGOT_QV_ONE : INGOT_QV_VEC;
		p.y_s = rnd() % 2 ? INGOT_QV_ONE : INGOT_QV_VEC;
		p.y_zp = rnd() % 2 ? INGOT_QV_ONE : INGOT_QV_VEC;
		p.s_dtype = INGOT_DT_F32;
		p.has_bias = rnd() % 2;
	}
	clamp((int)p.y_dtype, &p.y_lo, &p.y_hi);
	{
		const int ysz = p.y_dtype == INGOT_DT_I32 ? 4 : 1;
		uint8_t *a = malloc((size_t)a_n), *b = malloc((size_t)b_n), *packed;
		uint8_t *azp = malloc((size_t)p.m), *bzp = malloc((size_t)p.n), *yzp = malloc((size_t)p.m);
		uint8_t *yr = malloc((size_t)(y_n * ysz)), *yx = malloc((size_t)(y_n * ysz));
		float *as = malloc((size_t)p.m * 4), *bs = malloc((size_t)p.n * 4), *ys = malloc((size_t)p.m * 4);
		int32_t *bias = malloc((size_t)p.n * 4);
		const void *in[9];
		void *out[1];
		fill(a, a_n, kmax, 0xff);
		fill(b, b_n, kmax, p.b_dtype == INGOT_DT_U8 ? 0x00 : 0x80);
		for (int64_t i = 0; i < p.m; i++) {
			azp[i] = kmax ? 0 : (uint8_t)rnd();
			yzp[i] = (uint8_t)rnd();
			as[i] = rf(0.001f, 0.1f);
		}
		for (int64_t j = 0; j < p.n; j++) {
			bzp[j] = kmax ? (p.b_dtype == INGOT_DT_I8 ? 0x7f : 0xff) : rnd() % 3 == 0 ? (uint8_t)rnd() : 0;
			bs[j] = rf(0.001f, 0.05f);
			bias[j] = (int32_t)rint_in(-100000, 100000);
		}
		for (int64_t i = 0; i < p.m; i++)
			ys[i] = as[i] * bs[0] * rf(2.0f, 60.0f) * (float)p.k;
		memset(in, 0, sizeof in);
		in[0] = a;
		if (p.qlinear) {
			in[1] = as; in[2] = p.a_zp ? azp : NULL; in[3] = b; in[4] = bs; in[5] = p.b_zp ? bzp : NULL;
			in[6] = ys; in[7] = yzp; in[8] = p.has_bias ? bias : NULL;
		} else {
			in[1] = b; in[2] = p.a_zp ? azp : NULL; in[3] = p.b_zp ? bzp : NULL;
		}
		out[0] = yr;
		memset(yr, 0xa5, (size_t)(y_n * ysz));
		if (ingot_qmatmul(&p, in, out, NULL, 0, 1) != INGOT_OK) {
			printf("FAIL matmul #%d: the reference refused it\n", id);
			failures++;
			goto done;
		}
		memset(&q, 0, sizeof q);
		memcpy(&q, &p, sizeof p);
		q.packed = LANES;
		if (!ingot_x86_qmatmul_ok(&q)) {
			printf("FAIL matmul #%d: ingot_x86_qmatmul_ok refused it\n", id);
			failures++;
			goto done;
		}
		packed = alloc64((ingot_x86_qmatmul_packed_bytes(p.k, p.n, LANES)));
		ingot_x86_qmatmul_pack(b, p.b_dtype, p.k, p.n, LANES, packed);
		in[p.qlinear ? 3 : 1] = packed;
		for (int nt = 1; nt <= 7; nt += 3) {
			memset(yx, 0x5a, (size_t)(y_n * ysz));
			out[0] = yx;
			if (run_tasks(ingot_x86_qmatmul, &q, in, out, ingot_x86_qmatmul_scratch(&q, LANES), nt)) {
				printf("FAIL matmul #%d: ingot_x86_qmatmul failed\n", id);
				failures++;
				break;
			}
			compare("matmul", id, yr, yx, (size_t)(y_n * ysz), nt);
		}
		free(packed);
	done:
		free(a); free(b); free(azp); free(bzp); free(yzp); free(yr); free(yx);
		free(as); free(bs); free(ys); free(bias);
	}
}

/* A scale: log-uniform over [2^-14, 2^2], a power of two (exact ties) a third of the
 * time, rarely infinite or NaN. */
static float rscale(void)
{
	const int e = (int)rint_in(-14, 2), k = (int)(rnd() % 60);
	if (k == 0)
		return rnd() % 2 ? 1.0f / 0.0f : 0.0f / 0.0f;
	return ldexpf(k < 20 ? 1.0f : rf(1.0f, 2.0f), e);
}

/* QLinearAdd / QLinearMul (ingot_x86_qbinary against ingot_qbinary): every byte pair
 * (element i: a = i % 256, b = i / 256 % 256) and a tail of random ones, or a
 * one-element operand against every byte, for one random set of scales and zero points. */
static void qbinary_case(int id)
{
	ingot_qbinary_params p;
	ingot_x86_qbinary_params q;
	const int64_t n = 65536 + rint_in(0, 40);
	const int bc = (int)(rnd() % 4);   /* 1: A is one element, 2: B is */
	uint8_t *a = malloc((size_t)n), *b = malloc((size_t)n), *yr = malloc((size_t)n), *yx = malloc((size_t)n);
	uint8_t za = (uint8_t)rnd(), zb = (uint8_t)rnd(), zy = (uint8_t)rnd();
	float sa = rscale(), sb = rscale(), sy;
	const void *in[8];
	void *out[1];
	memset(&p, 0, sizeof p);
	p.op = rnd() % 2 ? INGOT_QB_MUL : INGOT_QB_ADD;
	p.a_dtype = dt8();
	p.b_dtype = dt8();
	p.y_dtype = dt8();
	p.n = n;
	p.rank = 2;
	p.dims[0] = 1;
	p.dims[1] = n;
	p.sa[1] = bc == 1 ? 0 : 1;
	p.sb[1] = bc == 2 ? 0 : 1;
	clamp((int)p.y_dtype, &p.y_lo, &p.y_hi);
	/* y's scale spreads the results over part of the range, or far past it */
	sy = (p.op == INGOT_QB_MUL ? sa * sb * 128.0f : sa + sb) * ldexpf(1.0f, (int)rint_in(-4, 1));
	if (rnd() % 3 == 0)
		sy = rscale();
	for (int64_t i = 0; i < n; i++) {
		a[i] = i < 65536 ? (uint8_t)i : (uint8_t)rnd();
		b[i] = i < 65536 ? (uint8_t)(i >> 8) : (uint8_t)rnd();
	}
	if (bc == 1)
		a[0] = (uint8_t)rnd();
	if (bc == 2)
		b[0] = (uint8_t)rnd();
	in[0] = a; in[1] = &sa; in[2] = rnd() % 4 ? &za : NULL; in[3] = b; in[4] = &sb;
	in[5] = rnd() % 4 ? &zb : NULL; in[6] = &sy; in[7] = rnd() % 4 ? &zy : NULL;
	out[0] = yr;
	memset(yr, 0xa5, (size_t)n);
	memset(&q, 0, sizeof q);
	memcpy(&q, &p, sizeof p);
	if (ingot_qbinary(&p, in, out, NULL, 0, 1) != INGOT_OK || !ingot_x86_qbinary_ok(&q)) {
		printf("FAIL qbinary #%d: refused\n", id);
		failures++;
	} else {
		for (int nt = 1; nt <= 7; nt += 3) {
			memset(yx, 0x5a, (size_t)n);
			out[0] = yx;
			if (run_tasks(ingot_x86_qbinary, &q, in, out, 0, nt)) {
				printf("FAIL qbinary #%d: ingot_x86_qbinary failed\n", id);
				failures++;
				break;
			}
			compare(p.op == INGOT_QB_MUL ? "qmul" : "qadd", id, yr, yx, (size_t)n, nt);
		}
	}
	free(a); free(b); free(yr); free(yx);
}

/* MaxPool of u8 / i8 (ingot_x86_qmaxpool against ingot_pool): random 1-D and 2-D
 * planes, windows, strides, pads (under the kernel) and ceil_mode-like last windows. */
static void qmaxpool_case(int id)
{
	ingot_pool_params p;
	ingot_x86_qmaxpool_params q;
	int64_t xn, yn;
	memset(&p, 0, sizeof p);
	p.dtype = dt8();
	p.kind = INGOT_POOL_MAX;
	p.nsp = rnd() % 4 ? 2 : 1;
	p.x_dims[0] = rint_in(1, 2);
	p.x_dims[1] = rint_in(1, 9);
	p.y_dims[0] = p.x_dims[0];
	p.y_dims[1] = p.x_dims[1];
	xn = yn = p.x_dims[0] * p.x_dims[1];
	for (int d = 0; d < p.nsp; d++) {
		const int64_t k = rint_in(1, 4), s = rnd() % 5 ? rint_in(1, 2) : rint_in(3, 4);
		const int64_t in = rint_in(k, d == p.nsp - 1 ? 80 : 20), pb = rint_in(0, k - 1), pe = rint_in(0, k - 1);
		int64_t o = (in + pb + pe - k) / s + 1;
		if (rnd() % 3 == 0 && (o * s - pb) <= in - 1)   /* ceil_mode: one window more */
			o++;
		p.x_dims[2 + d] = in;
		p.y_dims[2 + d] = o;
		p.kernel[d] = k;
		p.strides[d] = s;
		p.dilations[d] = 1;
		p.pads[d] = pb;
		p.pads[p.nsp + d] = pe;
		xn *= in;
		yn *= o;
	}
	{
		uint8_t *x = malloc((size_t)xn), *yr = malloc((size_t)yn), *yx = malloc((size_t)yn);
		const void *in[1];
		void *out[2] = { yr, NULL };
		fill(x, xn, 0, 0);
		in[0] = x;
		memset(&q, 0, sizeof q);
		memcpy(&q, &p, sizeof p);
		if (ingot_pool(&p, in, out, NULL, 0, 1) != INGOT_OK || !ingot_x86_qmaxpool_ok(&q)) {
			printf("FAIL maxpool #%d: refused\n", id);
			failures++;
		} else {
			for (int nt = 1; nt <= 7; nt += 3) {
				memset(yx, 0x5a, (size_t)yn);
				out[0] = yx;
				if (run_tasks(ingot_x86_qmaxpool, &q, in, out, 0, nt)) {
					printf("FAIL maxpool #%d: ingot_x86_qmaxpool failed\n", id);
					failures++;
					break;
				}
				compare("maxpool", id, yr, yx, (size_t)yn, nt);
			}
		}
		free(x); free(yr); free(yx);
	}
}

int main(int argc, char **argv)
{
	const int n = argc > 1 ? atoi(argv[1]) : 300;
	const int path = ingot_x86_q_path();
	printf("path: %s%s, %d lanes\n", path & 3 ? "vpdpbusd" : "vpmaddwd emulation",
	       path & 4 ? ", AMX tiles for large matmuls" : "", LANES);
	for (int i = 0; i < n; i++) {
		conv_case(i, 0);
		matmul_case(i, 0);
	}
	for (int i = 0; i < 10 * n; i++)
		qbinary_case(i);
	for (int i = 0; i < n; i++)
		qmaxpool_case(i);
	for (int i = 0; i < 4; i++) {   /* the longest exact K at extreme values */
		conv_case(n + i, 1);
		matmul_case(n + i, 1);
	}
	printf("%d comparisons, %d failures\n", runs, failures);
	return failures ? 1 : 0;
}
