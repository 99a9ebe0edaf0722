/* imgdec_png.h — the PNG decoder of ImageDecoder (imgdec.h): chunks, a zlib
 * inflater, the five row filters and Adam7 interlacing; every bit depth (1-16)
 * and color type. 16-bit samples keep their high byte, 1/2/4-bit gray is scaled
 * to 0-255, alpha and tRNS are dropped. Chunk CRCs are not checked; the zlib
 * stream's Adler-32 is.
 */
#ifndef INGOT_KERNELS_IMGDEC_PNG_H
#define INGOT_KERNELS_IMGDEC_PNG_H

#include "imgdec.h"

/* Decodes the PNG in p[0, n) into im (0 or an INGOT_E* code). Working memory:
 * im->mem, at least ingot_png_scratch_bytes(n, im->max_h, im->max_w) bytes. */
INGOT_KERNEL int ingot_png_decode(ingot_img *im, const uint8_t *p, int64_t n);
INGOT_KERNEL int64_t ingot_png_scratch_bytes(int64_t n, int64_t max_h, int64_t max_w);

#endif /* INGOT_KERNELS_IMGDEC_PNG_H */
