/* imgdec.h — the reference kernel of ImageDecoder (opset 20): encoded image bytes
 * in, uint8 [H, W, C] pixels out. Formats: PNG (imgdec_png.c: every bit depth and
 * color type, palette, Adam7; alpha and tRNS are dropped), JPEG (imgdec_jpeg.c:
 * Huffman-coded baseline and progressive, any sampling factors, restart markers, 1
 * or 3 components), BMP (1/4/8-bit palette, 16/24/32-bit, BI_BITFIELDS) and binary
 * PNM (P5, P6; maxval up to 65535). Bytes after the end of the image are ignored,
 * so an image may sit in a larger, padded input buffer.
 *
 * No allocation: the decoders take their working memory (gathered PNG data, the
 * inflated rows, JPEG sample planes and coefficients) from the kernel scratch,
 * whose size the compiler takes from ingot_imgdec_scratch_bytes() for the largest
 * image allowed. Corrupt or truncated data returns INGOT_EINVAL and an image
 * larger than the bound INGOT_ERANGE, never reading outside the input; either way
 * the reported dims are [0, 0, C] (the spec's "empty matrix").
 */
#ifndef INGOT_KERNELS_IMGDEC_H
#define INGOT_KERNELS_IMGDEC_H

#include "ingot_rt.h"

/* Values of `format` (the pixel_format attribute). */
#define INGOT_PIX_RGB  0
#define INGOT_PIX_BGR  1
#define INGOT_PIX_GRAY 2

/* n input bytes; out[0] holds up to max_h * max_w * C bytes (C = 1 for GRAY, else
 * 3), written packed as the actual [h, w, C]. dims_slot >= 0: out[dims_slot]
 * (int64[INGOT_MAX_RANK]) gets [h, w, C]; dims_slot < 0: the size is static and
 * the image must be exactly max_h x max_w. Not split across tasks. */
#define INGOT_IMGDEC_FIELDS(F) F(I64, n) F(I64, max_h) F(I64, max_w) F(I64, format) \
	F(I64, dims_slot)
INGOT_PARAMS(ingot_imgdec_params, INGOT_IMGDEC_FIELDS)

INGOT_KERNEL int ingot_image_decoder(const void *params, const void *const *in,
                                     void *const *out, void *scratch, int task, int n_tasks);

/* Scratch bytes for n input bytes and images up to max_h x max_w (-1 if absurd). */
INGOT_KERNEL int64_t ingot_imgdec_scratch_bytes(int64_t n, int64_t max_h, int64_t max_w);

/* Reads only the header: 0 and the image's height and width, or INGOT_EINVAL for
 * data no decoder recognizes (the compiler sizes a constant image with it). mem:
 * ingot_imgdec_scratch_bytes(n, 0, 0) bytes. */
INGOT_KERNEL int ingot_imgdec_probe(const uint8_t *data, int64_t n, void *mem, int64_t mem_cap,
                                    int64_t *h, int64_t *w);

/* ---- what the format decoders share (imgdec.c) ---- */

/* The output image and the working memory of one decode. */
typedef struct ingot_img {
	uint8_t *out;            /* [h, w, ch] once img_begin has set h and w */
	int64_t max_h, max_w, h, w;
	int ch, format;          /* channels (1 or 3), INGOT_PIX_* */
	int probe;               /* nonzero: stop after the header (see ingot_img_begin) */
	uint8_t *mem;            /* scratch: mem_cap bytes for the decoder's buffers */
	int64_t mem_cap;
} ingot_img;

/* Sets the image size after a header: 0 to go on, INGOT_IMG_PROBED when only
 * probing, or an error code (a zero or oversized dimension). */
#define INGOT_IMG_PROBED (-1)
INGOT_KERNEL int ingot_img_begin(ingot_img *im, int64_t h, int64_t w);

/* Writes pixel (y, x) from R, G, B in the output's pixel format. */
static inline INGOT_UNUSED void ingot_img_rgb(ingot_img *im, int64_t y, int64_t x, unsigned r,
                                              unsigned g, unsigned b)
{
	uint8_t *p = im->out + (y * im->w + x) * im->ch;
	if (im->format == INGOT_PIX_GRAY) {   /* ITU-R 601 luma in 16-bit fixed point, as PIL */
		p[0] = (uint8_t)((r * 19595u + g * 38470u + b * 7471u + 0x8000u) >> 16);
	} else {
		p[0] = (uint8_t)(im->format == INGOT_PIX_BGR ? b : r);
		p[1] = (uint8_t)g;
		p[2] = (uint8_t)(im->format == INGOT_PIX_BGR ? r : b);
	}
}

/* Writes pixel (y, x) of a gray image (the same value in every channel). */
static inline INGOT_UNUSED void ingot_img_gray(ingot_img *im, int64_t y, int64_t x, unsigned v)
{
	uint8_t *p = im->out + (y * im->w + x) * im->ch;
	p[0] = (uint8_t)v;
	if (im->ch == 3)
		p[1] = p[2] = (uint8_t)v;
}

/* Big-endian reads (the caller checked the bounds). */
static inline INGOT_UNUSED uint32_t ingot_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

#endif /* INGOT_KERNELS_IMGDEC_H */
