/* imgdec_jpeg.c — baseline JPEG for ImageDecoder: markers, Huffman tables decoded
 * code length by code length (ITU T.81 Annex F), an exact integer IDCT (a
 * separable product with a 14-bit cosine table, 64-bit sums), each component kept
 * whole as a sample plane in scratch, then upsampled and converted to RGB (JFIF
 * YCbCr with 16-bit fixed-point factors, as libjpeg). Memory (scratch): the
 * decoder state, then the planes, each at most (W + 32) x (H + 32) samples.
 */
#include "imgdec_jpeg.h"

#include <string.h>

typedef struct jpg_huff {
	int32_t mincode[17], maxcode[17], valptr[17];   /* per code length (F.2.2.3) */
	uint8_t val[256];
	int n_val, defined;
} jpg_huff;

typedef struct jpg_comp {
	int id, h, v, tq, td, ta;    /* sampling factors, quantization and Huffman tables */
	int64_t pw, ph;              /* plane size: whole MCUs */
	int64_t cw, ch;              /* samples that belong to the image */
	uint8_t *plane;
	int32_t pred;                /* DC prediction */
} jpg_comp;

typedef struct jpg_dec {
	const uint8_t *p;
	int64_t n, pos;
	uint32_t buf;                /* entropy bits, most significant first */
	int cnt, err;
	uint16_t qt[4][64];          /* zigzag order */
	jpg_huff dc[4], ac[4];
	jpg_comp comp[3];
	int nc, hmax, vmax, restart, adobe_rgb, frame;
	int64_t w, h, mcux, mcuy;
} jpg_dec;

static const uint8_t jpg_zigzag[64] = { 0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4,
	5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50,
	43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54,
	47, 55, 62, 63 };

/* idct[x][u] = round(2^14 * c(u) / 2 * cos((2x + 1) u pi / 16)), c(0) = 1/sqrt(2), else 1 */
static const int32_t jpg_idct_tab[8][8] = {
	{ 5793, 8035, 7568, 6811, 5793, 4551, 3135, 1598 },
	{ 5793, 6811, 3135, -1598, -5793, -8035, -7568, -4551 },
	{ 5793, 4551, -3135, -8035, -5793, 1598, 7568, 6811 },
	{ 5793, 1598, -7568, -4551, 5793, 6811, -3135, -8035 },
	{ 5793, -1598, -7568, 4551, 5793, -6811, -3135, 8035 },
	{ 5793, -4551, -3135, 8035, -5793, -1598, 7568, -6811 },
	{ 5793, -6811, 3135, 1598, -5793, 8035, -7568, 4551 },
	{ 5793, -8035, 7568, -6811, 5793, -4551, 3135, -1598 } };

static int64_t jpg_be16(const uint8_t *p) { return (int64_t)p[0] << 8 | p[1]; }

/* ---- entropy-coded data ---- */

/* Next byte of the entropy-coded segment: FF 00 is a data FF; at a marker the
 * reader stops there and feeds zeros (as libjpeg); past the input it fails. */
static uint32_t jpg_byte(jpg_dec *d)
{
	uint8_t b;
	if (d->pos >= d->n) {
		d->err = 1;
		return 0;
	}
	b = d->p[d->pos];
	if (b != 0xff) {
		d->pos++;
		return b;
	}
	if (d->pos + 1 >= d->n) {
		d->err = 1;
		return 0;
	}
	if (d->p[d->pos + 1] == 0) {
		d->pos += 2;
		return 0xff;
	}
	return 0;                    /* a marker: stay before it */
}

static uint32_t jpg_bits(jpg_dec *d, int k)
{
	if (k == 0)
		return 0;
	while (d->cnt < k) {
		d->buf = d->buf << 8 | jpg_byte(d);
		d->cnt += 8;
	}
	d->cnt -= k;
	return d->buf >> d->cnt & ((1u << k) - 1u);
}

static int jpg_decode(jpg_dec *d, const jpg_huff *h)
{
	int32_t code = (int32_t)jpg_bits(d, 1);
	int l = 1;
	while (l < 16 && code > h->maxcode[l]) {
		code = code << 1 | (int32_t)jpg_bits(d, 1);
		l++;
	}
	if (d->err || code > h->maxcode[l])
		return -1;
	code = h->valptr[l] + code - h->mincode[l];
	return code >= 0 && code < h->n_val ? h->val[code] : -1;
}

/* F.2.2.1 EXTEND: s bits v as a signed value. */
static int32_t jpg_extend(uint32_t v, int s)
{
	return s == 0 ? 0 : v < (1u << (s - 1)) ? (int32_t)v - (int32_t)(1u << s) + 1 : (int32_t)v;
}

/* Decodes one block of component c into its plane at (bx, by) (in blocks). */
static int jpg_block(jpg_dec *d, jpg_comp *c, int64_t bx, int64_t by)
{
	int64_t coef[64], tmp[64];
	const uint16_t *q = d->qt[c->tq];
	const jpg_huff *ac = &d->ac[c->ta];
	int t = jpg_decode(d, &d->dc[c->td]), k, x, y, u;
	if (t < 0 || t > 11)
		return -1;
	c->pred += jpg_extend(jpg_bits(d, t), t);
	if (c->pred > 65535 || c->pred < -65536)
		return -1;               /* far beyond any 8-bit image's DC */
	memset(coef, 0, sizeof coef);
	coef[0] = (int64_t)c->pred * q[0];
	for (k = 1; k < 64;) {
		int rs = jpg_decode(d, ac), r = rs >> 4, s = rs & 15;
		if (rs < 0)
			return -1;
		if (s == 0) {
			if (r != 15)
				break;           /* end of block */
			k += 16;
			continue;
		}
		k += r;
		if (k > 63)
			return -1;
		coef[jpg_zigzag[k]] = (int64_t)jpg_extend(jpg_bits(d, s), s) * q[k];
		k++;
	}
	if (d->err)
		return -1;
	for (k = 0; k < 64; k++)     /* keep the sums in 64 bits whatever the stream says */
		coef[k] = coef[k] > (1 << 20) ? (1 << 20) : coef[k] < -(1 << 20) ? -(1 << 20) : coef[k];
	for (y = 0; y < 8; y++)      /* columns: tmp[y][u] = sum_v T[y][v] F[v][u] */
		for (u = 0; u < 8; u++) {
			int64_t s = 0;
			for (k = 0; k < 8; k++)
				s += jpg_idct_tab[y][k] * coef[k * 8 + u];
			tmp[y * 8 + u] = s;
		}
	for (y = 0; y < 8; y++) {    /* rows, then level shift, round and clamp */
		uint8_t *row = c->plane + (by * 8 + y) * c->pw + bx * 8;
		for (x = 0; x < 8; x++) {
			int64_t s = ((int64_t)128 << 28) + ((int64_t)1 << 27);
			for (k = 0; k < 8; k++)
				s += jpg_idct_tab[x][k] * tmp[y * 8 + k];
			row[x] = (uint8_t)(s < 0 ? 0 : s >= ((int64_t)256 << 28) ? 255 : s >> 28);
		}
	}
	return 0;
}

/* After restart_interval MCUs: byte-align and read the RSTn marker. */
static int jpg_restart(jpg_dec *d)
{
	int i;
	d->cnt = 0;
	if (d->pos + 1 >= d->n || d->p[d->pos] != 0xff || (d->p[d->pos + 1] & 0xf8) != 0xd0)
		return -1;
	d->pos += 2;
	for (i = 0; i < d->nc; i++)
		d->comp[i].pred = 0;
	return 0;
}

/* One scan: n_sc components (indices sc[]), entropy data from d->pos. */
static int jpg_scan(jpg_dec *d, const int *sc, int n_sc)
{
	int64_t mx, my, nx = d->mcux, ny = d->mcuy, done = 0;
	int i, bh, bv;
	if (n_sc == 1) {             /* non-interleaved: one block per MCU */
		nx = (d->comp[sc[0]].cw + 7) / 8;
		ny = (d->comp[sc[0]].ch + 7) / 8;
	}
	d->cnt = 0;
	for (i = 0; i < d->nc; i++)
		d->comp[i].pred = 0;
	for (my = 0; my < ny; my++)
		for (mx = 0; mx < nx; mx++) {
			if (d->restart && done > 0 && done % d->restart == 0 && jpg_restart(d))
				return -1;
			for (i = 0; i < n_sc; i++) {
				jpg_comp *c = &d->comp[sc[i]];
				if (n_sc == 1) {
					if (jpg_block(d, c, mx, my))
						return -1;
					continue;
				}
				for (bv = 0; bv < c->v; bv++)
					for (bh = 0; bh < c->h; bh++)
						if (jpg_block(d, c, mx * c->h + bh, my * c->v + bv))
							return -1;
			}
			done++;
		}
	return 0;
}

/* ---- segments ---- */

static int jpg_dht(jpg_dec *d, const uint8_t *s, int64_t len)
{
	while (len > 0) {
		jpg_huff *h;
		int64_t total = 0;
		int32_t code = 0, k = 0;
		int l;
		if (len < 17 || (s[0] >> 4) > 1 || (s[0] & 15) > 3)
			return -1;
		h = (s[0] >> 4) ? &d->ac[s[0] & 15] : &d->dc[s[0] & 15];
		for (l = 1; l <= 16; l++)
			total += s[l];
		if (total > 256 || 17 + total > len)
			return -1;
		for (l = 1; l <= 16; l++) {   /* F.15: the first code and value index per length */
			h->valptr[l] = k;
			h->mincode[l] = code;
			code += s[l];
			k += s[l];
			h->maxcode[l] = s[l] ? code - 1 : -1;
			if (code > (1 << l))
				return -1;
			code <<= 1;
		}
		memcpy(h->val, s + 17, (size_t)total);
		h->n_val = (int)total;
		h->defined = 1;
		s += 17 + total;
		len -= 17 + total;
	}
	return 0;
}

static int jpg_dqt(jpg_dec *d, const uint8_t *s, int64_t len)
{
	while (len > 0) {
		int prec = s[0] >> 4, id = s[0] & 15, k;
		int64_t size = 1 + 64 * (prec + 1);
		if (prec > 1 || id > 3 || len < size)
			return -1;
		for (k = 0; k < 64; k++)
			d->qt[id][k] = (uint16_t)(prec ? jpg_be16(s + 1 + 2 * k) : s[1 + k]);
		s += size;
		len -= size;
	}
	return 0;
}

/* SOF0/SOF1: the frame; sizes the planes out of im->mem after the state. */
static int jpg_sof(jpg_dec *d, ingot_img *im, const uint8_t *s, int64_t len, int64_t state)
{
	int64_t off = state;
	int i, rc;
	if (d->frame || len < 6 || s[0] != 8)
		return INGOT_EINVAL;
	d->frame = 1;
	d->h = jpg_be16(s + 1);
	d->w = jpg_be16(s + 3);
	d->nc = s[5];
	if ((d->nc != 1 && d->nc != 3) || len < 6 + 3 * d->nc)
		return INGOT_EINVAL;
	d->hmax = d->vmax = 1;
	for (i = 0; i < d->nc; i++) {
		jpg_comp *c = &d->comp[i];
		c->id = s[6 + 3 * i];
		c->h = d->nc == 1 ? 1 : s[7 + 3 * i] >> 4;
		c->v = d->nc == 1 ? 1 : s[7 + 3 * i] & 15;
		c->tq = s[8 + 3 * i];
		if (c->h < 1 || c->h > 4 || c->v < 1 || c->v > 4 || c->tq > 3)
			return INGOT_EINVAL;
		d->hmax = c->h > d->hmax ? c->h : d->hmax;
		d->vmax = c->v > d->vmax ? c->v : d->vmax;
	}
	if ((rc = ingot_img_begin(im, d->h, d->w)) != 0)   /* a zero height (DNL) fails here */
		return rc;           /* INGOT_IMG_PROBED when probing */
	d->mcux = (d->w + 8 * d->hmax - 1) / (8 * d->hmax);
	d->mcuy = (d->h + 8 * d->vmax - 1) / (8 * d->vmax);
	for (i = 0; i < d->nc; i++) {
		jpg_comp *c = &d->comp[i];
		if (d->hmax % c->h || d->vmax % c->v)
			return INGOT_EINVAL;
		c->pw = d->mcux * c->h * 8;
		c->ph = d->mcuy * c->v * 8;
		c->cw = (d->w * c->h + d->hmax - 1) / d->hmax;
		c->ch = (d->h * c->v + d->vmax - 1) / d->vmax;
		if (c->pw * c->ph > im->mem_cap - off)
			return INGOT_ERANGE;
		c->plane = im->mem + off;
		memset(c->plane, 0, (size_t)(c->pw * c->ph));
		off += c->pw * c->ph;
	}
	return 0;
}

/* SOS: the scan's components and tables; then decodes its entropy data. */
static int jpg_sos(jpg_dec *d, const uint8_t *s, int64_t len, int64_t data)
{
	int sc[3], n_sc, i, k;
	if (!d->frame || len < 1)
		return -1;
	n_sc = s[0];
	if (n_sc < 1 || n_sc > d->nc || len < 4 + 2 * n_sc)
		return -1;
	for (i = 0; i < n_sc; i++) {
		int id = s[1 + 2 * i], t = s[2 + 2 * i];
		for (k = 0; k < d->nc && d->comp[k].id != id; k++)
			;
		if (k == d->nc || (t >> 4) > 3 || (t & 15) > 3)
			return -1;
		d->comp[k].td = t >> 4;
		d->comp[k].ta = t & 15;
		if (!d->dc[t >> 4].defined || !d->ac[t & 15].defined)
			return -1;
		sc[i] = k;
	}
	/* baseline sequential: the whole spectrum, no successive approximation */
	if (s[1 + 2 * n_sc] != 0 || s[2 + 2 * n_sc] != 63 || s[3 + 2 * n_sc] != 0)
		return -1;
	d->pos = data;
	return jpg_scan(d, sc, n_sc);
}

INGOT_KERNEL int64_t ingot_jpeg_scratch_bytes(int64_t max_h, int64_t max_w)
{
	return (int64_t)(sizeof(jpg_dec) + 64) + 3 * (max_w + 32) * (max_h + 32);
}

/* Component c's sample for output pixel (x, y): 2x ratios interpolate with weights
 * 3/4 and 1/4 towards the nearer neighbor, rounding half down at even and half up
 * at odd positions (the spec's rule); other ratios replicate. */
static unsigned jpg_up(const jpg_dec *d, const jpg_comp *c, int64_t x, int64_t y)
{
	int rh = d->hmax / c->h, rv = d->vmax / c->v;
	int64_t cx = x / rh, cy = y / rv, nx, ny;
	const uint8_t *pl = c->plane;
	if ((rh != 1 && rh != 2) || (rv != 1 && rv != 2) || (rh == 1 && rv == 1))
		return pl[cy * c->pw + cx];
	nx = rh == 2 ? (x & 1 ? cx + 1 : cx - 1) : cx;
	ny = rv == 2 ? (y & 1 ? cy + 1 : cy - 1) : cy;
	nx = nx < 0 ? 0 : nx >= c->cw ? c->cw - 1 : nx;
	ny = ny < 0 ? 0 : ny >= c->ch ? c->ch - 1 : ny;
	if (rh == 2 && rv == 2) {
		unsigned a = 3u * pl[cy * c->pw + cx] + pl[ny * c->pw + cx];
		unsigned b = 3u * pl[cy * c->pw + nx] + pl[ny * c->pw + nx];
		return (3u * a + b + (x & 1 ? 7u : 8u)) >> 4;
	}
	if (rh == 2)
		return (3u * pl[cy * c->pw + cx] + pl[cy * c->pw + nx] + (x & 1 ? 2u : 1u)) >> 2;
	return (3u * pl[cy * c->pw + cx] + pl[ny * c->pw + cx] + (y & 1 ? 2u : 1u)) >> 2;
}

static unsigned jpg_clamp(int32_t v) { return v < 0 ? 0u : v > 255 ? 255u : (unsigned)v; }

/* v / 65536 rounded to nearest, for |v| < 2^24, without shifting a negative number */
static int32_t jpg_fix(int32_t v) { return ((v + 32768 + (1 << 24)) >> 16) - 256; }

static void jpg_output(const jpg_dec *d, ingot_img *im)
{
	int64_t x, y;
	for (y = 0; y < d->h; y++)
		for (x = 0; x < d->w; x++) {
			int32_t Y, cb, cr;
			if (d->nc == 1) {
				ingot_img_gray(im, y, x, d->comp[0].plane[y * d->comp[0].pw + x]);
				continue;
			}
			Y = (int32_t)jpg_up(d, &d->comp[0], x, y);
			cb = (int32_t)jpg_up(d, &d->comp[1], x, y);
			cr = (int32_t)jpg_up(d, &d->comp[2], x, y);
			if (d->adobe_rgb) {
				ingot_img_rgb(im, y, x, (unsigned)Y, (unsigned)cb, (unsigned)cr);
				continue;
			}
			cb -= 128;
			cr -= 128;
			ingot_img_rgb(im, y, x, jpg_clamp(Y + jpg_fix(91881 * cr)),
			              jpg_clamp(Y + jpg_fix(-22554 * cb - 46802 * cr)),
			              jpg_clamp(Y + jpg_fix(116130 * cb)));
		}
}

INGOT_KERNEL int ingot_jpeg_decode(ingot_img *im, const uint8_t *p, int64_t n)
{
	int64_t state = (int64_t)((sizeof(jpg_dec) + 63) / 64 * 64), pos = 2;
	jpg_dec *d = (jpg_dec *)(void *)im->mem;
	int rc, scans = 0;
	if (im->mem_cap < state)
		return INGOT_ERANGE;
	memset(d, 0, sizeof *d);
	d->p = p;
	d->n = n;
	if (n < 4 || p[0] != 0xff || p[1] != 0xd8)
		return INGOT_EINVAL;
	for (;;) {
		int m;
		int64_t len;
		const uint8_t *s;
		while (pos < n && p[pos] != 0xff)   /* stray bytes after a scan */
			pos++;
		while (pos + 1 < n && p[pos + 1] == 0xff)   /* fill bytes */
			pos++;
		if (pos + 1 >= n)
			return INGOT_EINVAL;
		m = p[pos + 1];
		pos += 2;
		if (m == 0xd9)
			break;               /* EOI */
		if (m == 0 || m == 0x01 || (m >= 0xd0 && m <= 0xd7))
			continue;            /* stuffed byte or a standalone marker */
		if (pos + 2 > n || (len = jpg_be16(p + pos)) < 2 || len > n - pos)
			return INGOT_EINVAL;
		s = p + pos + 2;
		len -= 2;
		rc = 0;
		if (m == 0xc0 || m == 0xc1) {
			if ((rc = jpg_sof(d, im, s, len, state)) != 0)
				return rc == INGOT_IMG_PROBED ? 0 : rc;
		} else if ((m >= 0xc2 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc) || m == 0xd8) {
			return INGOT_EINVAL;   /* progressive, lossless, arithmetic: not supported */
		} else if (m == 0xc4) {
			rc = jpg_dht(d, s, len);
		} else if (m == 0xdb) {
			rc = jpg_dqt(d, s, len);
		} else if (m == 0xdd) {
			d->restart = len >= 2 ? (int)jpg_be16(s) : 0;
		} else if (m == 0xee && len >= 12 && !memcmp(s, "Adobe", 5)) {
			d->adobe_rgb = s[11] == 0;
		} else if (m == 0xda) {
			rc = jpg_sos(d, s, len, pos + 2 + len);
			pos = d->pos;
			scans++;
			if (rc)
				return INGOT_EINVAL;
			continue;
		}
		if (rc)
			return INGOT_EINVAL;
		pos += 2 + len;
	}
	if (!d->frame || scans == 0)
		return INGOT_EINVAL;
	if (d->adobe_rgb && d->nc != 3)
		d->adobe_rgb = 0;
	jpg_output(d, im);
	return 0;
}
