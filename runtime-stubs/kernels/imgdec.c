/* imgdec.c — ImageDecoder's kernel: recognizes the format by its signature and
 * runs its decoder (PNG and JPEG in their own files; BMP and binary PNM, which
 * need no working memory, here). Every decoder reports the size through
 * ingot_img_begin before it writes a pixel, so the bound is checked first.
 */
#include "imgdec.h"

#include <string.h>

#include "imgdec_jpeg.h"
#include "imgdec_png.h"

INGOT_KERNEL int ingot_img_begin(ingot_img *im, int64_t h, int64_t w)
{
	if (h <= 0 || w <= 0)
		return INGOT_EINVAL;
	if (h > im->max_h || w > im->max_w)
		return INGOT_ERANGE;
	im->h = h;
	im->w = w;
	return im->probe ? INGOT_IMG_PROBED : 0;
}

static uint32_t le16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t le32(const uint8_t *p) { return le16(p) | le16(p + 2) << 16; }

/* ---- BMP ---- */

/* One channel out of a BI_BITFIELDS pixel, as 0-255 (fewer bits: v * 255 / max). */
static unsigned bmp_field(uint32_t v, uint32_t mask)
{
	unsigned shift = 0, bits = 0;
	if (!mask)
		return 0;
	while (!(mask >> shift & 1u))
		shift++;
	while (shift + bits < 32 && (mask >> (shift + bits) & 1u))
		bits++;
	v = (v & mask) >> shift;
	if (bits >= 8)
		return (unsigned)(v >> (bits - 8)) & 255u;
	return (unsigned)(v * 255u / ((1u << bits) - 1u));
}

static int bmp_decode(ingot_img *im, const uint8_t *p, int64_t n)
{
	int64_t off, hs, w, h, bpp, comp = 0, n_pal = 0, pal, esize = 4, stride, y, x;
	uint32_t mask[3] = { 0xff0000u, 0xff00u, 0xffu };
	int top_down = 0, rc;
	if (n < 26)
		return INGOT_EINVAL;
	off = le32(p + 10);
	hs = le32(p + 14);
	if (hs == 12) {          /* OS/2 core header: 16-bit sizes, 3-byte palette entries */
		w = le16(p + 18);
		h = le16(p + 20);
		bpp = le16(p + 24);
		esize = 3;
	} else if (hs >= 40 && hs <= 124 && n >= 14 + hs) {
		w = (int32_t)le32(p + 18);
		h = (int32_t)le32(p + 22);
		bpp = le16(p + 28);
		comp = le32(p + 30);
		n_pal = le32(p + 46);
		if (h < 0) {
			top_down = 1;
			h = -h;
		}
	} else {
		return INGOT_EINVAL;
	}
	pal = 14 + hs;
	if (comp == 3) {         /* BI_BITFIELDS: the masks end a V2+ header or follow a V1 one */
		if (hs == 40)
			pal += 12;
		if (14 + 40 + 12 > n || (bpp != 16 && bpp != 32))
			return INGOT_EINVAL;
		mask[0] = le32(p + 54);
		mask[1] = le32(p + 58);
		mask[2] = le32(p + 62);
	} else if (comp != 0) {
		return INGOT_EINVAL;     /* RLE, JPEG or PNG inside: not supported */
	} else if (bpp == 16) {
		mask[0] = 0x7c00u;
		mask[1] = 0x3e0u;
		mask[2] = 0x1fu;
	}
	if (bpp != 1 && bpp != 4 && bpp != 8 && bpp != 16 && bpp != 24 && bpp != 32)
		return INGOT_EINVAL;
	if (bpp <= 8) {
		if (n_pal == 0 || n_pal > (1 << bpp))
			n_pal = (int64_t)1 << bpp;
		if (pal + n_pal * esize > n)
			return INGOT_EINVAL;
	}
	if ((rc = ingot_img_begin(im, h, w)) != 0)
		return rc == INGOT_IMG_PROBED ? 0 : rc;
	stride = (w * bpp + 31) / 32 * 4;
	if (off < 14 || off > n || stride * h > n - off)
		return INGOT_EINVAL;
	for (y = 0; y < h; y++) {
		const uint8_t *row = p + off + (top_down ? y : h - 1 - y) * stride;
		for (x = 0; x < w; x++) {
			if (bpp <= 8) {
				unsigned ix = (unsigned)(row[x * bpp / 8] >> (8 - bpp - x * bpp % 8)) &
				              ((1u << bpp) - 1u);
				const uint8_t *e = p + pal + (int64_t)ix * esize;
				if ((int64_t)ix >= n_pal)
					return INGOT_EINVAL;
				ingot_img_rgb(im, y, x, e[2], e[1], e[0]);
			} else if (bpp == 24) {
				ingot_img_rgb(im, y, x, row[3 * x + 2], row[3 * x + 1], row[3 * x]);
			} else {
				uint32_t v = bpp == 16 ? le16(row + 2 * x) : le32(row + 4 * x);
				ingot_img_rgb(im, y, x, bmp_field(v, mask[0]), bmp_field(v, mask[1]),
				              bmp_field(v, mask[2]));
			}
		}
	}
	return 0;
}

/* ---- binary PNM (P5 gray, P6 RGB) ---- */

/* The next header number after blanks and # comments; -1 if there is none. */
static int64_t pnm_number(const uint8_t *p, int64_t n, int64_t *pos)
{
	int64_t v = 0, start;
	for (;;) {
		while (*pos < n && (p[*pos] == ' ' || (p[*pos] >= 9 && p[*pos] <= 13)))
			(*pos)++;
		if (*pos < n && p[*pos] == '#') {
			while (*pos < n && p[*pos] != '\n' && p[*pos] != '\r')
				(*pos)++;
			continue;
		}
		break;
	}
	start = *pos;
	while (*pos < n && p[*pos] >= '0' && p[*pos] <= '9' && v < ((int64_t)1 << 32))
		v = v * 10 + (p[(*pos)++] - '0');
	return *pos == start || v >= ((int64_t)1 << 32) ? -1 : v;
}

static int pnm_decode(ingot_img *im, const uint8_t *p, int64_t n)
{
	int64_t pos = 2, w, h, maxval, nc = p[1] == '6' ? 3 : 1, bps, y, x, k;
	int rc;
	w = pnm_number(p, n, &pos);
	h = pnm_number(p, n, &pos);
	maxval = pnm_number(p, n, &pos);
	if (w < 0 || h < 0 || maxval < 1 || maxval > 65535 || pos >= n)
		return INGOT_EINVAL;
	pos++;                       /* the one blank before the samples */
	if ((rc = ingot_img_begin(im, h, w)) != 0)
		return rc == INGOT_IMG_PROBED ? 0 : rc;
	bps = maxval < 256 ? 1 : 2;
	if (w * h * nc * bps > n - pos)
		return INGOT_EINVAL;
	for (y = 0; y < h; y++)
		for (x = 0; x < w; x++) {
			unsigned s[3];
			for (k = 0; k < nc; k++) {   /* scaled to 0-255, rounded half up; larger is 255 */
				const uint8_t *q = p + pos + ((y * w + x) * nc + k) * bps;
				uint32_t v = bps == 1 ? q[0] : (uint32_t)q[0] << 8 | q[1];
				v = v > (uint32_t)maxval ? (uint32_t)maxval : v;
				s[k] = maxval == 255 ? v : (unsigned)((v * 510u + (uint32_t)maxval) /
				                                      (2u * (uint32_t)maxval));
			}
			if (nc == 1)
				ingot_img_gray(im, y, x, s[0]);
			else
				ingot_img_rgb(im, y, x, s[0], s[1], s[2]);
		}
	return 0;
}

/* ---- the kernel ---- */

static int imgdec_run(ingot_img *im, const uint8_t *p, int64_t n)
{
	if (n >= 8 && p[0] == 0x89 && p[1] == 'P' && p[2] == 'N' && p[3] == 'G')
		return ingot_png_decode(im, p, n);
	if (n >= 3 && p[0] == 0xff && p[1] == 0xd8 && p[2] == 0xff)
		return ingot_jpeg_decode(im, p, n);
	if (n >= 2 && p[0] == 'B' && p[1] == 'M')
		return bmp_decode(im, p, n);
	if (n >= 3 && p[0] == 'P' && (p[1] == '5' || p[1] == '6'))
		return pnm_decode(im, p, n);
	return INGOT_EINVAL;
}

INGOT_KERNEL int64_t ingot_imgdec_scratch_bytes(int64_t n, int64_t max_h, int64_t max_w)
{
	int64_t png, jpeg;
	if (n < 0 || max_h < 0 || max_w < 0 || max_h > ((int64_t)1 << 24) ||
	    max_w > ((int64_t)1 << 24) || max_h * max_w > ((int64_t)1 << 36))
		return -1;
	png = ingot_png_scratch_bytes(n, max_h, max_w);
	jpeg = ingot_jpeg_scratch_bytes(max_h, max_w);
	return png > jpeg ? png : jpeg;
}

INGOT_KERNEL int ingot_imgdec_probe(const uint8_t *data, int64_t n, void *mem, int64_t mem_cap,
                                    int64_t *h, int64_t *w)
{
	ingot_img im;
	int rc;
	memset(&im, 0, sizeof im);
	im.max_h = im.max_w = (int64_t)1 << 24;
	im.probe = 1;
	im.mem = (uint8_t *)mem;
	im.mem_cap = mem_cap;
	rc = imgdec_run(&im, data, n);
	*h = im.h;
	*w = im.w;
	return rc ? rc : im.h > 0 ? 0 : INGOT_EINVAL;
}

INGOT_KERNEL int ingot_image_decoder(const void *params, const void *const *in, void *const *out,
                                     void *scratch, int task, int n_tasks)
{
	const ingot_imgdec_params *pr = (const ingot_imgdec_params *)params;
	int64_t *dims = pr->dims_slot >= 0 ? (int64_t *)out[pr->dims_slot] : NULL;
	ingot_img im;
	int rc;
	(void)n_tasks;
	if (task != 0)
		return INGOT_OK;
	memset(&im, 0, sizeof im);
	im.out = (uint8_t *)out[0];
	im.max_h = pr->max_h;
	im.max_w = pr->max_w;
	im.ch = pr->format == INGOT_PIX_GRAY ? 1 : 3;
	im.format = (int)pr->format;
	im.mem = (uint8_t *)scratch;
	im.mem_cap = ingot_imgdec_scratch_bytes(pr->n, pr->max_h, pr->max_w);
	if (dims) {              /* an empty image until the decode succeeds */
		memset(dims, 0, INGOT_MAX_RANK * sizeof *dims);
		dims[2] = im.ch;
	}
	rc = imgdec_run(&im, (const uint8_t *)in[0], pr->n);
	if (rc == 0 && !dims && (im.h != pr->max_h || im.w != pr->max_w))
		rc = INGOT_EINVAL;   /* a static size: the image must fill it */
	if (rc == 0 && dims) {
		dims[0] = im.h;
		dims[1] = im.w;
	}
	return rc;
}
