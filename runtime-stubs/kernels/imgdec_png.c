/* imgdec_png.c — PNG for ImageDecoder: the IDAT chunks are gathered into one
 * zlib stream, inflated in one go into the filtered rows of every pass, which are
 * unfiltered in place and expanded to pixels. Memory (scratch): the gathered
 * stream (at most the input's size), then the rows (sized for the largest image
 * at 64 bits per pixel, interlaced or not). Every read is checked against its
 * buffer; a bad stream returns INGOT_EINVAL.
 */
#include "imgdec_png.h"

#include <string.h>

/* ---- inflate (RFC 1950/1951) ---- */

typedef struct png_bits {
	const uint8_t *p;
	int64_t n, pos;
	uint32_t buf;            /* bits not yet used, least significant first */
	int cnt, err;
} png_bits;

/* The next k (<= 16) bits, LSB first; sets err (and gives 0) past the end. */
static uint32_t png_getbits(png_bits *s, int k)
{
	uint32_t v;
	while (s->cnt < k) {
		if (s->pos >= s->n) {
			s->err = 1;
			return 0;
		}
		s->buf |= (uint32_t)s->p[s->pos++] << s->cnt;
		s->cnt += 8;
	}
	v = s->buf & ((1u << k) - 1u);
	s->buf >>= k;
	s->cnt -= k;
	return v;
}

/* A canonical Huffman code: how many codes of each length, symbols in code order. */
typedef struct png_huff {
	uint16_t count[16];
	uint16_t sym[288];
} png_huff;

/* Builds h from n code lengths; 0, or -1 when the lengths over-subscribe the code. */
static int png_huff_build(png_huff *h, const uint8_t *len, int n)
{
	uint16_t offs[16];
	int left = 1, i;
	memset(h->count, 0, sizeof h->count);
	for (i = 0; i < n; i++)
		h->count[len[i]]++;
	h->count[0] = 0;
	for (i = 1; i < 16; i++) {
		left = left * 2 - h->count[i];
		if (left < 0)
			return -1;
	}
	offs[1] = 0;
	for (i = 1; i < 15; i++)
		offs[i + 1] = (uint16_t)(offs[i] + h->count[i]);
	for (i = 0; i < n; i++)
		if (len[i])
			h->sym[offs[len[i]]++] = (uint16_t)i;
	return 0;
}

/* Decodes one symbol bit by bit: codes of each length are consecutive integers. */
static int png_huff_decode(png_bits *s, const png_huff *h)
{
	int code = 0, first = 0, index = 0, len;
	for (len = 1; len < 16; len++) {
		code |= (int)png_getbits(s, 1);
		if (s->err)
			return -1;
		if (code - h->count[len] < first)
			return h->sym[index + (code - first)];
		index += h->count[len];
		first = (first + h->count[len]) << 1;
		code <<= 1;
	}
	return -1;                   /* no such code (an incomplete code's gap) */
}

static const uint16_t png_len_base[29] = { 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27,
	31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258 };
static const uint8_t png_len_extra[29] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3,
	3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0 };
static const uint16_t png_dist_base[30] = { 1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97,
	129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385,
	24577 };
static const uint8_t png_dist_extra[30] = { 0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7,
	7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13 };

/* Output of the inflater: dst[0, cap), *pos bytes written. */
typedef struct png_out {
	uint8_t *dst;
	int64_t cap, pos;
} png_out;

/* One compressed block's symbols until end-of-block. */
static int png_codes(png_bits *s, png_out *o, const png_huff *lit, const png_huff *dist)
{
	for (;;) {
		int sym = png_huff_decode(s, lit);
		if (sym < 0)
			return -1;
		if (sym < 256) {
			if (o->pos >= o->cap)
				return -1;
			o->dst[o->pos++] = (uint8_t)sym;
		} else if (sym == 256) {
			return 0;
		} else {
			int64_t len, d;
			sym -= 257;
			if (sym >= 29)
				return -1;
			len = png_len_base[sym] + (int64_t)png_getbits(s, png_len_extra[sym]);
			sym = png_huff_decode(s, dist);
			if (sym < 0 || sym >= 30)
				return -1;
			d = png_dist_base[sym] + (int64_t)png_getbits(s, png_dist_extra[sym]);
			if (s->err || d > o->pos || len > o->cap - o->pos)
				return -1;
			for (; len > 0; len--, o->pos++)   /* byte by byte: the copy may overlap */
				o->dst[o->pos] = o->dst[o->pos - d];
		}
	}
}

/* The code lengths of a dynamic block, then its symbols. */
static int png_dynamic(png_bits *s, png_out *o, png_huff *lit, png_huff *dist)
{
	static const uint8_t order[19] = { 16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2,
		14, 1, 15 };
	uint8_t len[320];
	int nlen = (int)png_getbits(s, 5) + 257, ndist = (int)png_getbits(s, 5) + 1;
	int ncode = (int)png_getbits(s, 4) + 4, i = 0;
	if (s->err || nlen > 286 || ndist > 30)
		return -1;
	memset(len, 0, sizeof len);
	for (i = 0; i < ncode; i++)
		len[order[i]] = (uint8_t)png_getbits(s, 3);
	if (s->err || png_huff_build(lit, len, 19))
		return -1;
	for (i = 0; i < nlen + ndist;) {
		int sym = png_huff_decode(s, lit), rep;
		uint8_t v = 0;
		if (sym < 0)
			return -1;
		if (sym < 16) {
			len[i++] = (uint8_t)sym;
			continue;
		}
		if (sym == 16) {
			if (i == 0)
				return -1;
			v = len[i - 1];
			rep = 3 + (int)png_getbits(s, 2);
		} else if (sym == 17) {
			rep = 3 + (int)png_getbits(s, 3);
		} else {
			rep = 11 + (int)png_getbits(s, 7);
		}
		if (s->err || i + rep > nlen + ndist)
			return -1;
		while (rep-- > 0)
			len[i++] = v;
	}
	if (len[256] == 0 || png_huff_build(lit, len, nlen) || png_huff_build(dist, len + nlen, ndist))
		return -1;
	return png_codes(s, o, lit, dist);
}

/* Inflates the zlib stream p[0, n) into o; checks the header and the Adler-32. */
static int png_inflate(const uint8_t *p, int64_t n, png_out *o)
{
	png_bits s;
	png_huff lit, dist;
	uint32_t a = 1, b = 0, want;
	int64_t k;
	int last = 0, i;
	if (n < 6 || (p[0] & 15) != 8 || (p[0] >> 4) > 7 || (p[1] & 0x20) || (p[0] * 256 + p[1]) % 31)
		return -1;
	memset(&s, 0, sizeof s);
	s.p = p;
	s.n = n;
	s.pos = 2;
	while (!last) {
		uint32_t type;
		last = (int)png_getbits(&s, 1);
		type = png_getbits(&s, 2);
		if (s.err)
			return -1;
		if (type == 0) {             /* stored: byte-aligned LEN, NLEN, bytes */
			uint32_t len, nlen;
			png_getbits(&s, s.cnt & 7);
			len = png_getbits(&s, 16);
			nlen = png_getbits(&s, 16);
			if (s.err || (len ^ 0xffffu) != nlen || (int64_t)len > o->cap - o->pos)
				return -1;
			while (len-- > 0) {
				o->dst[o->pos++] = (uint8_t)png_getbits(&s, 8);
				if (s.err)
					return -1;
			}
		} else if (type == 1) {      /* fixed codes */
			uint8_t len[288];
			memset(len, 8, 144);
			memset(len + 144, 9, 112);
			memset(len + 256, 7, 24);
			memset(len + 280, 8, 8);
			png_huff_build(&lit, len, 288);
			memset(len, 5, 30);
			png_huff_build(&dist, len, 30);
			if (png_codes(&s, o, &lit, &dist))
				return -1;
		} else if (type == 2) {
			if (png_dynamic(&s, o, &lit, &dist))
				return -1;
		} else {
			return -1;
		}
	}
	png_getbits(&s, s.cnt & 7);
	for (i = 0, want = 0; i < 4; i++)   /* the Adler-32, big-endian */
		want = want << 8 | png_getbits(&s, 8);
	if (s.err)
		return -1;
	for (k = 0; k < o->pos;) {   /* the sums stay below 2^32 for 5552 bytes */
		int64_t end = o->pos - k > 5552 ? k + 5552 : o->pos;
		for (; k < end; k++) {
			a += o->dst[k];
			b += a;
		}
		a %= 65521u;
		b %= 65521u;
	}
	return (b << 16 | a) == want ? 0 : -1;
}

/* ---- PNG ---- */

/* Adam7: first column and row, column and row steps of the seven passes. */
static const uint8_t png_adam7[7][4] = {
	{ 0, 0, 8, 8 }, { 4, 0, 8, 8 }, { 0, 4, 4, 8 }, { 2, 0, 4, 4 }, { 0, 2, 2, 4 },
	{ 1, 0, 2, 2 }, { 0, 1, 1, 2 } };

/* Width and height of pass k of a w x h image (k = -1: not interlaced). */
static void png_pass_dims(int k, int64_t w, int64_t h, int64_t *pw, int64_t *ph)
{
	if (k < 0) {
		*pw = w;
		*ph = h;
		return;
	}
	*pw = w > png_adam7[k][0] ? (w - png_adam7[k][0] + png_adam7[k][2] - 1) / png_adam7[k][2] : 0;
	*ph = h > png_adam7[k][1] ? (h - png_adam7[k][1] + png_adam7[k][3] - 1) / png_adam7[k][3] : 0;
}

/* Bytes of the filtered rows (a filter byte each) of every pass. */
static int64_t png_raw_bytes(int64_t w, int64_t h, int64_t bits, int interlaced)
{
	int64_t total = 0, pw, ph;
	int k;
	for (k = interlaced ? 0 : -1; k < (interlaced ? 7 : 0); k++) {
		png_pass_dims(k, w, h, &pw, &ph);
		if (pw > 0 && ph > 0)
			total += ph * (1 + (pw * bits + 7) / 8);
	}
	return total;
}

INGOT_KERNEL int64_t ingot_png_scratch_bytes(int64_t n, int64_t max_h, int64_t max_w)
{
	int64_t a = png_raw_bytes(max_w, max_h, 64, 0), b = png_raw_bytes(max_w, max_h, 64, 1);
	return n + (a > b ? a : b);
}

static int png_paeth(int a, int b, int c)
{
	int p = a + b - c, pa = p > a ? p - a : a - p, pb = p > b ? p - b : b - p;
	int pc = p > c ? p - c : c - p;
	return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* Undoes row filters in place: rows of 1 + stride bytes; bpp bytes per pixel. */
static int png_unfilter(uint8_t *rows, int64_t n_rows, int64_t stride, int64_t bpp)
{
	int64_t r, i;
	for (r = 0; r < n_rows; r++) {
		uint8_t *cur = rows + r * (stride + 1) + 1;
		const uint8_t *up = r ? cur - (stride + 1) : NULL;
		int type = cur[-1];
		for (i = 0; i < stride; i++) {
			int a = i >= bpp ? cur[i - bpp] : 0, b = up ? up[i] : 0;
			int c = up && i >= bpp ? up[i - bpp] : 0, v;
			switch (type) {
			case 0: v = 0; break;
			case 1: v = a; break;
			case 2: v = b; break;
			case 3: v = (a + b) >> 1; break;
			case 4: v = png_paeth(a, b, c); break;
			default: return -1;
			}
			cur[i] = (uint8_t)(cur[i] + v);
		}
	}
	return 0;
}

/* What IHDR and PLTE say. */
typedef struct png_hdr {
	int64_t w, h;
	int depth, ctype, interlaced, n_pal;
	uint8_t pal[256 * 3];
} png_hdr;

/* Sample i of a row at the header's bit depth, as 0-255 (16-bit: the high byte;
 * below 8 bits: an index as is, a gray level scaled). */
static unsigned png_sample(const png_hdr *hd, const uint8_t *row, int64_t i, int scale)
{
	int d = hd->depth;
	unsigned v;
	if (d == 8)
		return row[i];
	if (d == 16)
		return row[2 * i];
	v = (unsigned)(row[i * d / 8] >> (8 - d - (int)(i * d % 8))) & ((1u << d) - 1u);
	return scale ? v * 255u / ((1u << d) - 1u) : v;
}

/* Expands the unfiltered rows of one pass into pixels. */
static int png_emit(ingot_img *im, const png_hdr *hd, const uint8_t *rows, int k, int64_t pw,
                    int64_t ph, int64_t stride)
{
	static const int n_chan[7] = { 1, 0, 3, 1, 2, 0, 4 };
	int nc = n_chan[hd->ctype];
	int64_t r, c;
	for (r = 0; r < ph; r++) {
		const uint8_t *row = rows + r * (stride + 1) + 1;
		int64_t y = k < 0 ? r : png_adam7[k][1] + r * png_adam7[k][3];
		for (c = 0; c < pw; c++) {
			int64_t x = k < 0 ? c : png_adam7[k][0] + c * png_adam7[k][2];
			if (hd->ctype == 0 || hd->ctype == 4) {
				ingot_img_gray(im, y, x, png_sample(hd, row, c * nc, 1));
			} else if (hd->ctype == 3) {
				unsigned ix = png_sample(hd, row, c, 0);
				if ((int)ix >= hd->n_pal)
					return INGOT_EINVAL;
				ingot_img_rgb(im, y, x, hd->pal[3 * ix], hd->pal[3 * ix + 1], hd->pal[3 * ix + 2]);
			} else {
				ingot_img_rgb(im, y, x, png_sample(hd, row, c * nc, 0),
				              png_sample(hd, row, c * nc + 1, 0), png_sample(hd, row, c * nc + 2, 0));
			}
		}
	}
	return 0;
}

/* IHDR: 0, or INGOT_EINVAL for a bad header. */
static int png_ihdr(png_hdr *hd, const uint8_t *p, int64_t n)
{
	static const uint8_t sig[8] = { 0x89, 'P', 'N', 'G', 13, 10, 26, 10 };
	const uint8_t *d = p + 16;
	if (n < 33 || memcmp(p, sig, 8) || ingot_be32(p + 8) != 13 || memcmp(p + 12, "IHDR", 4))
		return INGOT_EINVAL;
	memset(hd, 0, sizeof *hd);
	hd->w = ingot_be32(d);
	hd->h = ingot_be32(d + 4);
	hd->depth = d[8];
	hd->ctype = d[9];
	hd->interlaced = d[12];
	if (d[10] || d[11] || d[12] > 1 || hd->w > 0x7fffffff || hd->h > 0x7fffffff)
		return INGOT_EINVAL;
	switch (hd->ctype) {   /* the allowed bit depths per color type */
	case 0: return (hd->depth & (hd->depth - 1)) == 0 && hd->depth <= 16 ? 0 : INGOT_EINVAL;
	case 3: return (hd->depth & (hd->depth - 1)) == 0 && hd->depth <= 8 ? 0 : INGOT_EINVAL;
	case 2: case 4: case 6: return hd->depth == 8 || hd->depth == 16 ? 0 : INGOT_EINVAL;
	default: return INGOT_EINVAL;
	}
}

INGOT_KERNEL int ingot_png_decode(ingot_img *im, const uint8_t *p, int64_t n)
{
	static const int n_chan[7] = { 1, 0, 3, 1, 2, 0, 4 };
	png_hdr hd;
	png_out o;
	int64_t pos = 33, n_idat = 0, raw, off = 0;
	int rc = png_ihdr(&hd, p, n), seen_idat = 0, k;
	if (rc)
		return rc;
	if ((rc = ingot_img_begin(im, hd.h, hd.w)) != 0)
		return rc == INGOT_IMG_PROBED ? 0 : rc;
	raw = png_raw_bytes(hd.w, hd.h, (int64_t)hd.depth * n_chan[hd.ctype], hd.interlaced);
	if (n + raw > im->mem_cap)
		return INGOT_ERANGE;
	for (;;) {               /* chunks: length, type, data, CRC */
		int64_t len;
		const uint8_t *t;
		if (n - pos < 12)
			return INGOT_EINVAL;   /* truncated before IEND */
		len = ingot_be32(p + pos);
		t = p + pos + 4;
		if (len > n - pos - 12)
			return INGOT_EINVAL;
		if (!memcmp(t, "IEND", 4))
			break;
		if (!memcmp(t, "IDAT", 4)) {
			memcpy(im->mem + n_idat, p + pos + 8, (size_t)len);
			n_idat += len;
			seen_idat = 1;
		} else if (!memcmp(t, "PLTE", 4)) {
			if (seen_idat || len % 3 || len == 0 || len > 768)
				return INGOT_EINVAL;
			memcpy(hd.pal, p + pos + 8, (size_t)len);
			hd.n_pal = (int)(len / 3);
		} else if (!(t[0] & 0x20) && memcmp(t, "IHDR", 4)) {
			return INGOT_EINVAL;   /* an unknown critical chunk */
		}
		pos += len + 12;
	}
	if (hd.ctype == 3 && hd.n_pal == 0)
		return INGOT_EINVAL;
	o.dst = im->mem + n;
	o.cap = raw;
	o.pos = 0;
	if (png_inflate(im->mem, n_idat, &o) || o.pos != raw)
		return INGOT_EINVAL;
	for (k = hd.interlaced ? 0 : -1; k < (hd.interlaced ? 7 : 0); k++) {
		int64_t pw, ph, bits = (int64_t)hd.depth * n_chan[hd.ctype], stride;
		png_pass_dims(k, hd.w, hd.h, &pw, &ph);
		if (pw == 0 || ph == 0)
			continue;
		stride = (pw * bits + 7) / 8;
		if (png_unfilter(o.dst + off, ph, stride, bits >= 8 ? bits / 8 : 1) ||
		    png_emit(im, &hd, o.dst + off, k, pw, ph, stride))
			return INGOT_EINVAL;
		off += ph * (stride + 1);
	}
	return 0;
}
