/* neon_kernels.c — the NEON kernels (runtime-stubs/kernels/neon/) against the reference
 * kernels on random shapes, epilogues and task splits, with ingot check's tolerance
 * (rtol 1e-3, atol 1e-7; products atol 1e-5: random sums of hundreds of terms cancel,
 * and any summation order moves such results by that much). Built with a cross
 * compiler and run under qemu-user by neon_test.py; reports each failure through the
 * shared harness (tests/unit/harness.h: file:line on stderr). */
#define INGOT_KERNEL static INGOT_UNUSED
#include "ingot_rt.h"
#include "kernels/conv.c"
#include "kernels/linalg.c"
#include "kernels/neon/gemm.c"
#include "kernels/elementwise.c"
#include "kernels/norm.c"
#include "kernels/pool.c"
#include "kernels/neon/eltwise.c"
#include "kernels/neon/pooling.c"

#include <stdio.h>
#include <stdlib.h>

#include "../unit/harness.h"

static unsigned long long rng = 88172645463325252ULL;

static unsigned rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng >> 32);
}

static int64_t rint_in(int64_t lo, int64_t hi) { return lo + (int64_t)(rnd() % (unsigned)(hi - lo + 1)); }
static float rf(void) { return (float)(rnd() % 20001u) / 10000.0f - 1.0f; }

static float *rbuf(int64_t n)
{
	float *p = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
	for (int64_t i = 0; i < n; i++)
		p[i] = rf();
	return p;
}

/* the scratch the NEON GEMM core needs for depth k, allocated exactly (the lowering
 * plans ingot_neon_gemm_scratch_bytes; malloc's checks catch a write past it) */
static void *sbuf(int64_t k)
{
	return malloc((size_t)ingot_neon_gemm_scratch_bytes(k));
}

static int n_cases;

static void compare(const char *what, int cs, const float *ref, const float *got, int64_t n)
{
	const float atol = what[0] == 'c' || what[0] == 'g' || what[0] == 'm' ? 1e-5f : 1e-7f;
	n_cases++;
	for (int64_t i = 0; i < n; i++) {
		float d = fabsf(ref[i] - got[i]);
		if (ref[i] != got[i] && !(d <= atol + 1e-3f * fabsf(ref[i])) &&
		    !(ref[i] != ref[i] && got[i] != got[i])) {
			CHECK(0, "%s case %d: element %lld: reference %.9g, neon %.9g", what, cs,
			      (long long)i, (double)ref[i], (double)got[i]);
			return;
		}
	}
}

static void pick_act(int64_t *act, float *al, float *be)
{
	*act = rint_in(0, 9);
	*al = 0.1f;
	*be = 0.5f;
	if (*act == INGOT_CONV_ACT_CLIP) {
		*al = -0.3f;
		*be = 0.4f;
	} else if (*act == INGOT_CONV_ACT_HARD_SIGMOID || *act == INGOT_CONV_ACT_HARD_SWISH) {
		*al = 1.0f / 6.0f;
	}
	if (rint_in(0, 2) == 0)
		*act = 0;
}

static void test_conv(int cs)
{
	ingot_conv_params p;
	int64_t nsp = rint_in(1, 2), group, Cg, Mg, d, nx = 1, nw = 1, ny = 1;
	int tasks = (int)rint_in(1, 3);
	memset(&p, 0, sizeof p);
	p.dtype = INGOT_DT_F32;
	p.nsp = nsp;
	group = rint_in(0, 3) == 0 ? rint_in(1, 4) : 1;
	Cg = rint_in(1, 9);
	Mg = rint_in(1, 20);
	if (rint_in(0, 3) == 0) {          /* depthwise */
		Cg = 1;
		Mg = rint_in(1, 2);
		group = rint_in(1, 12);
	}
	p.group = group;
	p.x_dims[0] = rint_in(1, 2);
	p.x_dims[1] = Cg * group;
	p.y_dims[0] = p.x_dims[0];
	p.y_dims[1] = Mg * group;
	p.w_dims[0] = Mg * group;
	p.w_dims[1] = Cg;
	for (d = 0; d < nsp; d++) {
		int64_t k = rint_in(1, 5), s = rint_in(1, 3), dl = rint_in(0, 3) ? 1 : 2;
		int64_t xs = rint_in(1, 40), pb = rint_in(0, 2), pe = rint_in(0, 2), o;
		if (rint_in(0, 2) == 0) {
			k = 1;
			s = 1;
			pb = pe = 0;
		}
		o = (xs + pb + pe - (k - 1) * dl - 1) / s + 1;
		if (o < 1) {
			xs += (k - 1) * dl;
			o = (xs + pb + pe - (k - 1) * dl - 1) / s + 1;
		}
		p.x_dims[2 + d] = xs;
		p.w_dims[2 + d] = k;
		p.y_dims[2 + d] = o;
		p.strides[d] = s;
		p.dilations[d] = dl;
		p.pads[d] = pb;
	}
	for (d = 0; d < nsp + 2; d++) {
		nx *= p.x_dims[d];
		nw *= p.w_dims[d];
		ny *= p.y_dims[d];
	}
	p.has_bias = rint_in(0, 1);
	p.has_residual = rint_in(0, 2) == 0;
	pick_act(&p.act, &p.act_alpha, &p.act_beta);
	{
		float *x = rbuf(nx), *w = rbuf(nw), *b = rbuf(p.y_dims[1]), *r = rbuf(ny);
		float *y0 = rbuf(ny), *y1 = rbuf(ny);
		void *sc = sbuf(nw / p.w_dims[0]);
		const void *in[4] = { x, w, p.has_bias ? b : NULL, r };
		void *out0[1] = { y0 }, *out1[1] = { y1 };
		for (int t = 0; t < tasks; t++) {
			if (ingot_conv(&p, in, out0, NULL, t, tasks) ||
			    ingot_neon_conv(&p, in, out1, sc, t, tasks)) {
				CHECK(0, "conv case %d: kernel error", cs);
			}
		}
		compare("conv", cs, y0, y1, ny);
		free(x); free(w); free(b); free(r); free(y0); free(y1); free(sc);
	}
}

static void test_gemm(int cs)
{
	ingot_gemm_params p;
	int64_t m, n, k;
	int tasks = (int)rint_in(1, 3);
	memset(&p, 0, sizeof p);
	p.dtype = INGOT_DT_F32;
	p.m = m = rint_in(1, 3) == 1 ? rint_in(1, 3) : rint_in(1, 70);
	p.n = n = rint_in(1, 80);
	p.k = k = rint_in(0, 4) == 0 ? rint_in(0, 3) : rint_in(1, 600);
	p.trans_a = rint_in(0, 1);
	p.trans_b = rint_in(0, 1);
	p.alpha = rint_in(0, 1) ? 1.0f : 0.75f;
	p.beta = rint_in(0, 3) == 0 ? 0.0f : 1.25f;
	p.has_c = rint_in(0, 1);
	switch (rint_in(0, 3)) {
	case 0: p.c_rs = n; p.c_cs = 1; break;
	case 1: p.c_rs = 0; p.c_cs = 1; break;
	case 2: p.c_rs = 1; p.c_cs = 0; break;
	default: p.c_rs = 0; p.c_cs = 0; break;
	}
	p.has_residual = rint_in(0, 2) == 0;
	pick_act(&p.act, &p.act_alpha, &p.act_beta);
	{
		float *a = rbuf(m * k), *b = rbuf(k * n), *c = rbuf(m * n), *r = rbuf(m * n);
		float *y0 = rbuf(m * n), *y1 = rbuf(m * n);
		void *sc = sbuf(k);
		const void *in[4] = { a, b, p.has_c ? c : NULL, r };
		void *out0[1] = { y0 }, *out1[1] = { y1 };
		for (int t = 0; t < tasks; t++) {
			if (ingot_gemm(&p, in, out0, NULL, t, tasks) ||
			    ingot_neon_gemm(&p, in, out1, sc, t, tasks)) {
				CHECK(0, "gemm case %d: kernel error", cs);
			}
		}
		compare("gemm", cs, y0, y1, m * n);
		free(a); free(b); free(c); free(r); free(y0); free(y1); free(sc);
	}
}

static void test_matmul(int cs)
{
	ingot_matmul_params p;
	int64_t m, n, k, na, nbb;
	int tasks = (int)rint_in(1, 3);
	memset(&p, 0, sizeof p);
	p.dtype = INGOT_DT_F32;
	p.m = m = rint_in(1, 3) == 1 ? 1 : rint_in(1, 40);
	p.n = n = rint_in(1, 3) == 1 ? 1 : rint_in(1, 40);
	p.k = k = rint_in(1, 300);
	p.nb = 1;
	p.bdims[0] = rint_in(1, 3);
	/* A batched, B broadcast or batched */
	p.a_bstr[0] = m * k;
	p.b_bstr[0] = rint_in(0, 1) ? k * n : 0;
	na = p.bdims[0] * m * k;
	nbb = p.b_bstr[0] ? p.bdims[0] * k * n : k * n;
	p.has_residual = rint_in(0, 2) == 0;
	pick_act(&p.act, &p.act_alpha, &p.act_beta);
	{
		int64_t ny = p.bdims[0] * m * n;
		float *a = rbuf(na), *b = rbuf(nbb), *r = rbuf(ny), *y0 = rbuf(ny), *y1 = rbuf(ny);
		void *sc = sbuf(k);
		const void *in[3] = { a, b, r };
		void *out0[1] = { y0 }, *out1[1] = { y1 };
		for (int t = 0; t < tasks; t++) {
			if (ingot_matmul(&p, in, out0, NULL, t, tasks) ||
			    ingot_neon_matmul(&p, in, out1, sc, t, tasks)) {
				CHECK(0, "matmul case %d: kernel error", cs);
			}
		}
		compare("matmul", cs, y0, y1, ny);
		free(a); free(b); free(r); free(y0); free(y1); free(sc);
	}
}

static void test_pool(int cs)
{
	ingot_pool_params p;
	int64_t nsp = rint_in(1, 2), d, nx, ny;
	int tasks = (int)rint_in(1, 3);
	memset(&p, 0, sizeof p);
	p.dtype = INGOT_DT_F32;
	p.kind = rint_in(0, 1) ? INGOT_POOL_MAX : INGOT_POOL_AVG;
	p.nsp = nsp;
	p.count_include_pad = rint_in(0, 1);
	p.x_dims[0] = p.y_dims[0] = rint_in(1, 2);
	p.x_dims[1] = p.y_dims[1] = rint_in(1, 5);
	nx = ny = p.x_dims[0] * p.x_dims[1];
	for (d = 0; d < nsp; d++) {
		int64_t k = rint_in(1, 4), s = rint_in(1, 3), dl = rint_in(0, 3) ? 1 : 2;
		int64_t xs = rint_in(1, 30), pb = rint_in(0, k - 1), pe = rint_in(0, k - 1), o;
		if (xs + pb + pe < (k - 1) * dl + 1)
			xs = (k - 1) * dl + 1;
		o = (xs + pb + pe - (k - 1) * dl - 1) / s + 1;
		if (rint_in(0, 1))       /* ceil_mode: one more window past the end pad */
			o = (xs + pb + pe - (k - 1) * dl - 1 + s - 1) / s + 1;
		p.x_dims[2 + d] = xs;
		p.y_dims[2 + d] = o;
		p.kernel[d] = k;
		p.strides[d] = s;
		p.dilations[d] = dl;
		p.pads[d] = pb;
		p.pads[nsp + d] = pe;
		nx *= xs;
		ny *= o;
	}
	{
		float *x = rbuf(nx), *y0 = rbuf(ny), *y1 = rbuf(ny);
		const void *in[1] = { x };
		void *out0[1] = { y0 }, *out1[1] = { y1 };
		if (rint_in(0, 5) == 0)
			x[rnd() % (unsigned)nx] = NAN;
		for (int t = 0; t < tasks; t++) {
			if (ingot_pool(&p, in, out0, NULL, t, tasks) || ingot_neon_pool(&p, in, out1, NULL, t, tasks)) {
				CHECK(0, "pool case %d: kernel error", cs);
			}
		}
		compare("pool", cs, y0, y1, ny);
		free(x); free(y0); free(y1);
	}
}

static void test_eltwise(int cs)
{
	static const int64_t uops[] = { INGOT_EW_ABS, INGOT_EW_ERF, INGOT_EW_EXP, INGOT_EW_HARD_SIGMOID,
		INGOT_EW_HARD_SWISH, INGOT_EW_LEAKY_RELU, INGOT_EW_NEG, INGOT_EW_RELU,
		INGOT_EW_SIGMOID, INGOT_EW_TANH };
	static const int64_t bops[] = { INGOT_EW_ADD, INGOT_EW_SUB, INGOT_EW_MUL, INGOT_EW_DIV };
	int tasks = (int)rint_in(1, 3);
	int64_t n = rint_in(0, 200), i;
	float *x = rbuf(n), *y0 = rbuf(n), *y1 = rbuf(n);
	const void *in[2] = { x, NULL };
	void *out0[1] = { y0 }, *out1[1] = { y1 };
	ingot_unary_params u;
	ingot_binary_params b;
	ingot_softmax_params s;
	memset(&u, 0, sizeof u);
	u.op = uops[rnd() % (unsigned)(sizeof uops / sizeof uops[0])];
	u.dtype = INGOT_DT_F32;
	u.n = n;
	u.alpha = 0.2f;
	u.beta = 0.5f;
	for (i = 0; i < n; i++)
		x[i] *= (float)rint_in(1, 120);
	if (n > 3 && rint_in(0, 3) == 0) {
		x[0] = NAN;
		x[1] = INFINITY;
		x[2] = -INFINITY;
		x[3] = 1e-6f;
	}
	for (int t = 0; t < tasks; t++)
		if (ingot_unary(&u, in, out0, NULL, t, tasks) || ingot_neon_unary(&u, in, out1, NULL, t, tasks))
			CHECK(0, "unary case %d: kernel error", cs);
	compare("unary", (int)u.op * 10000 + cs, y0, y1, n);
	/* the split does not change a bit (NAME_run_par against NAME_run) */
	if (tasks > 1) {
		void *out2[1] = { y0 };
		if (ingot_neon_unary(&u, in, out2, NULL, 0, 1) || memcmp(y0, y1, sizeof(float) * (size_t)n)) {
			CHECK(0, "unary case %d: %d tasks differ from one", cs, tasks);
		}
	}
	free(x); free(y0); free(y1);

	/* binary: [d0, d1, d2] with either side broadcast along some dims */
	{
		int64_t dims[3] = { rint_in(1, 4), rint_in(1, 5), rint_in(1, 37) }, ny = dims[0] * dims[1] * dims[2];
		int64_t sa[3], sb[3], st = 1;
		float *a = rbuf(ny), *bb = rbuf(ny), *z0 = rbuf(ny), *z1 = rbuf(ny);
		const void *bin[2] = { a, bb };
		void *bo0[1] = { z0 }, *bo1[1] = { z1 };
		for (int d = 2; d >= 0; d--) {
			sa[d] = rint_in(0, 3) == 0 ? 0 : st;
			sb[d] = rint_in(0, 3) == 0 ? 0 : st;
			st *= dims[d];
		}
		memset(&b, 0, sizeof b);
		b.op = bops[rnd() % 4u];
		b.dtype_a = b.dtype_b = b.dtype_out = INGOT_DT_F32;
		b.n = ny;
		b.rank = 3;
		for (int d = 0; d < 3; d++) {
			b.dims[d] = dims[d];
			b.sa[d] = sa[d];
			b.sb[d] = sb[d];
		}
		for (int t = 0; t < tasks; t++)
			if (ingot_binary(&b, bin, bo0, NULL, t, tasks) || ingot_neon_binary(&b, bin, bo1, NULL, t, tasks))
				CHECK(0, "binary case %d: kernel error", cs);
		compare("binary", cs, z0, z1, ny);
		/* softmax over the middle dim */
		memset(&s, 0, sizeof s);
		s.dtype = INGOT_DT_F32;
		s.outer = dims[0];
		s.n = dims[1] * (rint_in(0, 1) ? 1 : 7);
		s.inner = rint_in(0, 1) ? 1 : dims[2];
		s.log = rint_in(0, 1);
		if (s.outer * s.n * s.inner <= ny) {
			for (i = 0; i < ny; i++)
				a[i] *= 10.0f;
			for (int t = 0; t < tasks; t++)
				if (ingot_softmax(&s, bin, bo0, NULL, t, tasks) ||
				    ingot_neon_softmax(&s, bin, bo1, NULL, t, tasks))
					CHECK(0, "softmax case %d: kernel error", cs);
			compare("softmax", cs, z0, z1, s.outer * s.n * s.inner);
		}
		free(a); free(bb); free(z0); free(z1);
	}
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 300;
	for (int i = 0; i < n; i++) {
		test_conv(i);
		test_gemm(i);
		test_matmul(i);
		test_pool(i);
		test_eltwise(i);
	}
	printf("%d cases, %d failures\n", n_cases, failures);
	return failures != 0;
}
