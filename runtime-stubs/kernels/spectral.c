/* spectral.c — reference kernels of DFT, STFT, the window functions and
 * MelWeightMatrix (see spectral.h). Every transform goes through one strided line
 * routine; sums run in double whatever the dtype, so f16/bf16/f32 results are the
 * correctly rounded exact transform up to double error. */
#include "spectral.h"

#include <math.h>

#define SP_TWO_PI 6.283185307179586476925286766559

/* Stores v as dtype dt: floats round, integers truncate toward zero (saturating). */
static void sp_st(int dt, void *p, int64_t i, double v)
{
	double t = v != v ? 0.0 : v < -9.2e18 ? -9.2e18 : v > 9.2e18 ? 9.2e18 : v;
	int64_t q = (int64_t)t;
	switch (dt) {
	case INGOT_DT_U8: ((uint8_t *)p)[i] = (uint8_t)(q < 0 ? 0 : q > 255 ? 255 : q); break;
	case INGOT_DT_I8: ((int8_t *)p)[i] = (int8_t)(q < -128 ? -128 : q > 127 ? 127 : q); break;
	case INGOT_DT_U16: ((uint16_t *)p)[i] = (uint16_t)(q < 0 ? 0 : q > 65535 ? 65535 : q); break;
	case INGOT_DT_I16:
		((int16_t *)p)[i] = (int16_t)(q < -32768 ? -32768 : q > 32767 ? 32767 : q);
		break;
	case INGOT_DT_U32:
		((uint32_t *)p)[i] = (uint32_t)(q < 0 ? 0 : q > 4294967295 ? 4294967295 : q);
		break;
	case INGOT_DT_I32:
		((int32_t *)p)[i] = (int32_t)(q < -2147483647 - 1 ? -2147483647 - 1
		                              : q > 2147483647 ? 2147483647 : q);
		break;
	case INGOT_DT_I64: ((int64_t *)p)[i] = q; break;
	case INGOT_DT_U64: ((uint64_t *)p)[i] = (uint64_t)(q < 0 ? 0 : q); break;
	default: ingot_stf(dt, p, i, v); break;   /* the float types */
	}
}

/* One transform line: n_sig samples x[x0 + k * xs] (+1: imaginary part when in_c
 * is 2), times win[k] when win, zero-padded to n_fft; n_out bins to
 * y[y0 + f * ys] (re, im). */
typedef struct sp_line {
	int dt, in_c, inverse;
	const void *x, *win;
	void *y;
	int64_t x0, xs, n_sig, n_fft, n_out, y0, ys;
} sp_line;

/* Bins are computed SP_FB at a time (independent phasor chains, so the adds
 * overlap) over blocks of SP_KB samples loaded once into locals (the dtype switch
 * and window product are paid once per block, not per bin). */
#define SP_FB 8
#define SP_KB 128

static void sp_transform(const sp_line *l)
{
	const double sign = l->inverse ? 1.0 : -1.0;
	const double scale = l->inverse ? 1.0 / (double)l->n_fft : 1.0;
	const double w0 = SP_TWO_PI / (double)l->n_fft;
	double xr[SP_KB], xi[SP_KB];
	double re[SP_FB], im[SP_FB], cr[SP_FB], ci[SP_FB], sr[SP_FB], si[SP_FB];
	int64_t f0, k0, n_sig = l->n_sig < l->n_fft ? l->n_sig : l->n_fft;
	int q, k, nf, nk;
	for (f0 = 0; f0 < l->n_out; f0 += SP_FB) {
		/* all SP_FB lanes run (a fixed trip count the compiler unrolls); lanes past
		 * n_out are computed and dropped */
		nf = l->n_out - f0 < SP_FB ? (int)(l->n_out - f0) : SP_FB;
		for (q = 0; q < SP_FB; q++) {
			double a = w0 * (double)((f0 + q) % l->n_fft);
			re[q] = im[q] = 0.0;
			sr[q] = cos(a);
			si[q] = sign * sin(a);
		}
		for (k0 = 0; k0 < n_sig; k0 += SP_KB) {
			nk = n_sig - k0 < SP_KB ? (int)(n_sig - k0) : SP_KB;
			for (k = 0; k < nk; k++) {
				int64_t at = l->x0 + (k0 + k) * l->xs;
				double w = l->win ? ingot_ldf(l->dt, l->win, k0 + k) : 1.0;
				xr[k] = w * ingot_ldf(l->dt, l->x, at);
				xi[k] = l->in_c == 2 ? w * ingot_ldf(l->dt, l->x, at + 1) : 0.0;
			}
			for (q = 0; q < SP_FB; q++) {
				/* exact twiddle at the block start; f * k0 < n_fft^2 < 2^62 */
				int64_t fm = (f0 + q) % l->n_fft;
				double a = w0 * (double)((fm * k0) % l->n_fft);
				cr[q] = cos(a);
				ci[q] = sign * sin(a);
			}
			for (k = 0; k < nk; k++) {
				for (q = 0; q < SP_FB; q++) {
					double t = cr[q] * sr[q] - ci[q] * si[q];
					re[q] += xr[k] * cr[q] - xi[k] * ci[q];
					im[q] += xr[k] * ci[q] + xi[k] * cr[q];
					ci[q] = cr[q] * si[q] + ci[q] * sr[q];
					cr[q] = t;
				}
			}
		}
		for (q = 0; q < nf; q++) {
			sp_st(l->dt, l->y, l->y0 + (f0 + q) * l->ys, re[q] * scale);
			sp_st(l->dt, l->y, l->y0 + (f0 + q) * l->ys + 1, im[q] * scale);
		}
	}
}

/* irfft of one line: bins X[f] = x[x0 + f * xs] (re, im when in_c is 2) for
 * f < min(n_sig, n_fft / 2 + 1); y[y0 + t * ys] = (1 / n_fft) * sum_f w_f *
 * Re(X[f] e^(2 pi i f t / n_fft)), w_f 2 for the bins that stand for a conjugate
 * pair, 1 for bin 0 and (n_fft even) bin n_fft / 2. The phasor of each t is
 * re-anchored to exact cos/sin every SP_KB bins. */
static void sp_irfft(const sp_line *l)
{
	const double w0 = SP_TWO_PI / (double)l->n_fft, scale = 1.0 / (double)l->n_fft;
	int64_t half = l->n_fft / 2, nb = l->n_sig < half + 1 ? l->n_sig : half + 1, t, f;
	for (t = 0; t < l->n_fft; t++) {
		double acc = 0.0, cr = 1.0, ci = 0.0;
		const double sr = cos(w0 * (double)t), si = sin(w0 * (double)t);
		for (f = 0; f < nb; f++) {
			int64_t at = l->x0 + f * l->xs;
			double xr = ingot_ldf(l->dt, l->x, at);
			double xi = l->in_c == 2 ? ingot_ldf(l->dt, l->x, at + 1) : 0.0;
			double w = f == 0 || 2 * f == l->n_fft ? 1.0 : 2.0, nr;
			if (f % SP_KB == 0) {     /* exact twiddle; f * t < n_fft^2 < 2^62 */
				double a = w0 * (double)((f * t) % l->n_fft);
				cr = cos(a);
				ci = sin(a);
			}
			acc += w * (xr * cr - xi * ci);
			nr = cr * sr - ci * si;
			ci = cr * si + ci * sr;
			cr = nr;
		}
		sp_st(l->dt, l->y, l->y0 + t * l->ys, acc * scale);
	}
}

static int sp_span(int64_t n, int task, int n_tasks, int64_t *u0, int64_t *u1)
{
	if (n_tasks < 1) {
		task = 0;
		n_tasks = 1;
	}
	*u0 = n * task / n_tasks;
	*u1 = n * (task + 1) / n_tasks;
	return *u0 < *u1;
}

INGOT_KERNEL int ingot_dft(const void *params, const void *const *in, void *const *out,
                           void *scratch, int task, int n_tasks)
{
	const ingot_dft_params *p = (const ingot_dft_params *)params;
	sp_line l;
	int64_t u, u0, u1;
	(void)scratch;
	if (!in[0] || !out[0] || !ingot_dtype_is_float(p->dtype) || (p->in_c != 1 && p->in_c != 2) ||
	    p->n_fft < 1 || p->n_out < 0 || p->n_in < 0 || p->inner < 0 || p->outer < 0)
		return INGOT_EINVAL;
	if (!sp_span(p->outer * p->inner, task, n_tasks, &u0, &u1))
		return INGOT_OK;
	l.dt = (int)p->dtype;
	l.in_c = (int)p->in_c;
	l.inverse = p->inverse != 0;
	l.x = in[0];
	l.win = NULL;
	l.y = out[0];
	l.xs = p->inner * p->in_c;
	l.n_sig = p->n_in;
	l.n_fft = p->n_fft;
	l.n_out = p->n_out;
	l.ys = p->inner * (p->irfft ? 1 : 2);
	if (p->irfft && p->n_out != p->n_fft)
		return INGOT_EINVAL;
	for (u = u0; u < u1; u++) {
		int64_t o = u / p->inner, i = u % p->inner;
		l.x0 = (o * p->n_in * p->inner + i) * p->in_c;
		l.y0 = (o * p->n_out * p->inner + i) * (p->irfft ? 1 : 2);
		if (p->irfft)
			sp_irfft(&l);
		else
			sp_transform(&l);
	}
	return INGOT_OK;
}

INGOT_KERNEL int ingot_stft(const void *params, const void *const *in, void *const *out,
                            void *scratch, int task, int n_tasks)
{
	const ingot_stft_params *p = (const ingot_stft_params *)params;
	sp_line l;
	int64_t u, u0, u1;
	(void)scratch;
	if (!in[0] || !out[0] || !ingot_dtype_is_float(p->dtype) || (p->in_c != 1 && p->in_c != 2) ||
	    p->flen < 1 || p->step < 1 || p->frames < 0 || p->batch < 0 ||
	    (p->frames > 0 && (p->frames - 1) * p->step + p->flen > p->sig_len) ||
	    (p->has_window && !in[2]))
		return INGOT_EINVAL;
	if (!sp_span(p->batch * p->frames, task, n_tasks, &u0, &u1))
		return INGOT_OK;
	l.dt = (int)p->dtype;
	l.in_c = (int)p->in_c;
	l.inverse = 0;
	l.x = in[0];
	l.win = p->has_window ? in[2] : NULL;
	l.y = out[0];
	l.xs = p->in_c;
	l.n_sig = p->flen;
	l.n_fft = p->flen;
	l.n_out = p->n_out;
	l.ys = 2;
	for (u = u0; u < u1; u++) {
		int64_t b = u / p->frames, t = u % p->frames;
		l.x0 = (b * p->sig_len + t * p->step) * p->in_c;
		l.y0 = u * p->n_out * 2;
		sp_transform(&l);
	}
	return INGOT_OK;
}

INGOT_KERNEL int ingot_window(const void *params, const void *const *in, void *const *out,
                              void *scratch, int task, int n_tasks)
{
	const ingot_window_params *p = (const ingot_window_params *)params;
	int64_t n, n0, n1, N = p->periodic ? p->size : p->size - 1;
	(void)in;
	(void)scratch;
	if (!out[0] || p->size < 0)
		return INGOT_EINVAL;
	if (!sp_span(p->size, task, n_tasks, &n0, &n1))
		return INGOT_OK;
	for (n = n0; n < n1; n++) {
		double x = N > 0 ? SP_TWO_PI * (double)n / (double)N : 0.0, v;
		switch (p->kind) {
		case INGOT_WIN_HANN: v = 0.5 - 0.5 * cos(x); break;
		case INGOT_WIN_HAMMING: v = 25.0 / 46.0 - 21.0 / 46.0 * cos(x); break;
		case INGOT_WIN_BLACKMAN: v = 0.42 - 0.5 * cos(x) + 0.08 * cos(2.0 * x); break;
		default: return INGOT_EINVAL;
		}
		if (N == 0)
			v = 1.0;
		sp_st((int)p->dtype, out[0], n, v);
	}
	return INGOT_OK;
}

/* Spectrogram bin of mel point i (of n_mel + 2), as the reference computes it. */
static int64_t sp_mel_bin(const ingot_mel_params *p, double low, double step, int64_t i)
{
	double mel = (double)i * step + low;
	double hz = 700.0 * (pow(10.0, mel / 2595.0) - 1.0);
	double b = floor((double)(p->dft_length + 1) * hz / (double)p->sample_rate);
	return b != b || b < -1.0 ? -1 : b > 4.0e18 ? (int64_t)4e18 : (int64_t)b;
}

INGOT_KERNEL int ingot_mel(const void *params, const void *const *in, void *const *out,
                           void *scratch, int task, int n_tasks)
{
	const ingot_mel_params *p = (const ingot_mel_params *)params;
	int64_t rows = p->dft_length / 2 + 1, i, j, cols = p->n_mel;
	double low, high, step;
	int dt = (int)p->dtype;
	(void)in;
	(void)scratch;
	if (!out[0] || p->n_mel < 1 || p->dft_length < 1 || p->sample_rate < 1)
		return INGOT_EINVAL;
	/* cheap: the whole matrix by task 0, so range errors stop before any write */
	if (task != 0 && n_tasks > 1)
		return INGOT_OK;
	low = 2595.0 * log10(1.0 + p->lower_hz / 700.0);
	high = 2595.0 * log10(1.0 + p->upper_hz / 700.0);
	step = (high - low) / (double)(p->n_mel + 2);
	for (i = 0; i < cols; i++) {
		int64_t lo = sp_mel_bin(p, low, step, i), c = sp_mel_bin(p, low, step, i + 1);
		int64_t hi = sp_mel_bin(p, low, step, i + 2);
		/* only the bins actually written must lie in the matrix */
		if ((c == lo && (c < 0 || c >= rows)) || (lo < c && (lo < 0 || c >= rows)) ||
		    (c < hi && (c < 0 || hi - 1 >= rows)))
			return INGOT_ERANGE;
	}
	for (j = 0; j < rows * cols; j++)
		sp_st(dt, out[0], j, 0.0);
	for (i = 0; i < cols; i++) {
		int64_t lo = sp_mel_bin(p, low, step, i), c = sp_mel_bin(p, low, step, i + 1);
		int64_t hi = sp_mel_bin(p, low, step, i + 2);
		if (c == lo) {
			sp_st(dt, out[0], c * cols + i, 1.0);
		} else {
			for (j = lo; j <= c; j++)
				sp_st(dt, out[0], j * cols + i, (double)(j - lo) / (double)(c - lo));
		}
		for (j = c; j < hi; j++)
			sp_st(dt, out[0], j * cols + i, (double)(hi - j) / (double)(hi - c));
	}
	return INGOT_OK;
}
