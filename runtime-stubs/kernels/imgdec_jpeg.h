/* imgdec_jpeg.h — the JPEG decoder of ImageDecoder (imgdec.h): Huffman-coded DCT,
 * sequential (SOF0/SOF1) or progressive (SOF2, spectral selection and successive
 * approximation), 8-bit, 1 (gray) or 3 (YCbCr, or RGB with an Adobe transform of
 * 0) components, any sampling factors that divide the largest, interleaved or not,
 * restart markers. Chroma upsampled by 2 is interpolated as the spec describes
 * (libjpeg-turbo's "fancy" upsampling); other ratios replicate. Arithmetic-coded,
 * lossless, hierarchical, 12-bit and CMYK files are rejected (INGOT_EINVAL).
 */
#ifndef INGOT_KERNELS_IMGDEC_JPEG_H
#define INGOT_KERNELS_IMGDEC_JPEG_H

#include "imgdec.h"

/* Decodes the JPEG in p[0, n) into im (0 or an INGOT_E* code). Working memory:
 * im->mem, at least ingot_jpeg_scratch_bytes(im->max_h, im->max_w) bytes. */
INGOT_KERNEL int ingot_jpeg_decode(ingot_img *im, const uint8_t *p, int64_t n);
INGOT_KERNEL int64_t ingot_jpeg_scratch_bytes(int64_t max_h, int64_t max_w);

#endif /* INGOT_KERNELS_IMGDEC_JPEG_H */
