/* spectral.h — reference kernels of the signal ops: DFT, STFT, the Hann / Hamming /
 * Blackman windows and MelWeightMatrix. Transforms are direct O(n^2) sums in double
 * with twiddles from a rotating phasor, re-anchored to exact cos/sin every 128
 * samples, so no scratch memory or tables are needed; complex values are [re, im]
 * pairs in the last dim, as ONNX lays them out.
 */
#ifndef INGOT_KERNELS_SPECTRAL_H
#define INGOT_KERNELS_SPECTRAL_H

#include "ingot_rt.h"

/* DFT along one axis: x is (outer, n_in, inner, in_c) with in_c 1 (real) or 2
 * (complex), y is (outer, n_out, inner, 2). The signal is cut or zero-padded to
 * n_fft; y[f] = sum_k x[k] e^(-+2 pi i f k / n_fft) for f < n_out (n_fft, or
 * n_fft / 2 + 1 one-sided), divided by n_fft when inverse. irfft (inverse and
 * onesided): x holds the bins 0 .. n_in - 1 of a Hermitian spectrum (those past
 * n_fft / 2 are dropped), y is (outer, n_fft, inner, 1), the real signal
 * y[t] = Re sum_f X[f] e^(2 pi i f t / n_fft) / n_fft over the full spectrum
 * (X[n_fft - f] = conj X[f]; the imaginary parts of bin 0 and of bin n_fft / 2 drop
 * out), as numpy.fft.irfft. Only in[0] is read. Tasks split the outer * inner lines. */
#define INGOT_DFT_FIELDS(F) F(I64, dtype) F(I64, outer) F(I64, n_in) F(I64, inner) \
	F(I64, in_c) F(I64, n_fft) F(I64, n_out) F(I64, inverse) F(I64, irfft)
INGOT_PARAMS(ingot_dft_params, INGOT_DFT_FIELDS)

/* STFT: signal (batch, sig_len, in_c) in[0], window (flen) in[2] when has_window
 * (same dtype); y (batch, frames, n_out, 2): the DFT of size flen of each frame
 * x[t * step .. t * step + flen) times the window. in[1] / in[3] (frame step and
 * length, folded here) are not read. Tasks split batch * frames. */
#define INGOT_STFT_FIELDS(F) F(I64, dtype) F(I64, batch) F(I64, sig_len) F(I64, in_c) \
	F(I64, frames) F(I64, step) F(I64, flen) F(I64, n_out) F(I64, has_window)
INGOT_PARAMS(ingot_stft_params, INGOT_STFT_FIELDS)

/* Window kinds of ingot_window. */
enum { INGOT_WIN_HANN, INGOT_WIN_HAMMING, INGOT_WIN_BLACKMAN };

/* y[n] (size values of dtype) = the window at 2 pi n / N, N = size when periodic
 * else size - 1 (a symmetric window of size 1 is [1]); computed in double, integer
 * dtypes truncate. in[0] (the size, folded here) is not read. */
#define INGOT_WINDOW_FIELDS(F) F(I64, dtype) F(I64, kind) F(I64, size) F(I64, periodic)
INGOT_PARAMS(ingot_window_params, INGOT_WINDOW_FIELDS)

/* MelWeightMatrix (dft_length / 2 + 1, n_mel) of dtype, by the ONNX reference
 * formula (in double, as numpy computes it): n_mel + 2 points evenly spaced in mel
 * between the edges, mapped to bins floor((dft_length + 1) * hz / sample_rate),
 * triangles between consecutive points. No input is read. A bin outside the
 * matrix gives INGOT_ERANGE. */
#define INGOT_MEL_FIELDS(F) F(I64, dtype) F(I64, n_mel) F(I64, dft_length) \
	F(I64, sample_rate) F(F64, lower_hz) F(F64, upper_hz)
INGOT_PARAMS(ingot_mel_params, INGOT_MEL_FIELDS)

INGOT_KERNEL int ingot_dft(const void *params, const void *const *in, void *const *out,
                           void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_stft(const void *params, const void *const *in, void *const *out,
                            void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_window(const void *params, const void *const *in, void *const *out,
                              void *scratch, int task, int n_tasks);
INGOT_KERNEL int ingot_mel(const void *params, const void *const *in, void *const *out,
                           void *scratch, int task, int n_tasks);

#endif /* INGOT_KERNELS_SPECTRAL_H */
