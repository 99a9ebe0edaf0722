/* fma_peak.c — the machine's single-thread fp32 FMA peak, for bench/run.sh's "% of peak"
 * column. Built with the flags `--target host` chose (the Makefile's CFLAGS) plus
 * -ffp-contract=fast, it runs ACC independent chains of vector multiply-adds in a loop:
 * with ACC at least FMA pipes x FMA latency (2 x 4 on the x86 cores of targets/targets.h)
 * every pipe issues each cycle, so the rate is
 * the peak. Vector width from the ISA the flags enable (64 bytes on AVX-512, 32 on AVX2,
 * 16 otherwise: NEON or SSE). Prints one line: "GFLOPS LANES ACC SECONDS", the fastest
 * of 200 runs of about 4 ms each (short runs, so that on a shared machine some of them
 * run without being preempted).
 *     fma_peak [ITERATIONS]
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if defined(__AVX512F__)
#define VBYTES 64
#elif defined(__AVX2__) || defined(__AVX__)
#define VBYTES 32
#else
#define VBYTES 16
#endif
#define LANES (VBYTES / (int)sizeof(float))
/* 16 chains where the ISA has 32 vector registers (AVX-512, AArch64), 12 where it has 16
 * (AVX2, SSE, 32-bit NEON's q registers): 16 chains and two operands would spill there */
#if defined(__AVX512F__) || defined(__aarch64__)
#define ACC 16
#else
#define ACC 12
#endif

typedef float vf __attribute__((vector_size(VBYTES)));

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ACC chains of acc = acc * m + a, `iters` steps each; the sum goes to *sink so that
 * the compiler keeps every chain. m and a come from memory (volatile) so nothing folds. */
static void run(long iters, volatile float *sink)
{
	volatile float seed[2] = { 0.999999f, 1e-7f };
	vf m, a, acc[ACC];
	for (int l = 0; l < LANES; l++) {
		m[l] = seed[0];
		a[l] = seed[1];
	}
	for (int k = 0; k < ACC; k++)
		for (int l = 0; l < LANES; l++)
			acc[k][l] = (float)(k + l) * 1e-3f;
	for (long i = 0; i < iters; i++) {
#pragma GCC unroll 16   /* ACC <= 16 */
		for (int k = 0; k < ACC; k++)
			acc[k] = acc[k] * m + a;
	}
	vf s = acc[0];
	for (int k = 1; k < ACC; k++)
		s += acc[k];
	float t = 0;
	for (int l = 0; l < LANES; l++)
		t += s[l];
	*sink = t;
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 0;
	volatile float sink;
	if (iters <= 0) {   /* calibrate: about 4 ms a run at the fastest of 5 tries */
		iters = 1 << 12;
		for (;;) {
			double dt = 1e30;
			for (int r = 0; r < 5; r++) {
				double t0 = now();
				run(iters, &sink);
				double d = now() - t0;
				dt = d < dt ? d : dt;
			}
			if (dt > 1e-3 || iters > (1L << 40)) {
				iters = (long)((double)iters * 4e-3 / dt) + 1;
				break;
			}
			iters *= 2;
		}
	}
	double best = 1e30;
	for (int r = 0; r < 200; r++) {
		double t0 = now();
		run(iters, &sink);
		double dt = now() - t0;
		if (dt < best)
			best = dt;
	}
	double flops = 2.0 * LANES * ACC * (double)iters;
	printf("%.1f %d %d %.4f\n", flops / best * 1e-9, LANES, ACC, best);
	return 0;
}
