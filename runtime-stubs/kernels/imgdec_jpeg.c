/* imgdec_jpeg.c — JPEG for ImageDecoder: markers, Huffman tables decoded code
 * length by code length (ITU T.81 Annex F), libjpeg's integer "islow" IDCT (what
 * Pillow, ONNX's reference, decodes with), each component kept whole as
 * a sample plane in scratch, then upsampled and converted to RGB (JFIF YCbCr with
 * 16-bit fixed-point factors, as libjpeg). A sequential image goes block by block
 * into the planes; a progressive one first gathers its quantized coefficients
 * (int16, in scratch) over all scans (Annex G) and transforms them at the end.
 * Memory (scratch): the decoder state, then per component a plane of at most
 * (W + 32) x (H + 32) samples and, progressive, twice that for coefficients.
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
	int16_t *coef;               /* progressive: [ph / 8][pw / 8][64] quantized coefficients */
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
	int nc, hmax, vmax, restart, adobe_rgb, frame, prog;
	int ss, se, ah, al;          /* the current scan's band and successive approximation */
	int32_t eobrun;              /* progressive AC: blocks left in an end-of-band run */
	int64_t w, h, mcux, mcuy;
} jpg_dec;

static const uint8_t jpg_zigzag[64] = { 0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4,
	5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50,
	43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54,
	47, 55, 62, 63 };

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

/* ---- the inverse DCT: the integer algorithm libjpeg calls "islow" ----
 * ONNX's reference decodes with Pillow, that is libjpeg(-turbo) at its default DCT
 * method, so ingot computes what that computes, to the bit: the Loeffler-Ligtenberg-
 * Moschytz factorization (an even part of two rotations, an odd part of four) with
 * constants in 13 fractional bits, columns first keeping 2 extra bits, each pass
 * rounding by adding half before the shift; the last shift also divides by 8. The
 * results are level-shifted by 128 and taken through a 10-bit wrap-around limit table
 * (jpg_limit), as libjpeg's range-limit table does. */
#define JPG_CB 13                 /* fractional bits of the constants */
#define JPG_P1 2                  /* extra bits kept between the passes */
#define JPG_F(x) ((int64_t)((x) * (1 << JPG_CB) + 0.5))

/* x / 2^n rounded half up, without shifting a negative number (|x| < 2^51) */
static int64_t jpg_descale(int64_t x, int n)
{
	const int64_t big = (int64_t)1 << 52;
	return ((x + big + ((int64_t)1 << (n - 1))) >> n) - (big >> n);
}

/* One 8-point inverse transform: in[k * step] -> out[k * step], the n-bit descale last. */
static void jpg_idct8(const int64_t *in, int64_t *out, int step, int n)
{
	int64_t z1, z2, z3, z4, z5, t0, t1, t2, t3, t10, t11, t12, t13;
	/* even part: in[2] and in[6] through the rotation sqrt(2) c6, in[0] +- in[4] */
	z2 = in[2 * step];
	z3 = in[6 * step];
	z1 = (z2 + z3) * JPG_F(0.541196100);
	t2 = z1 - z3 * JPG_F(1.847759065);
	t3 = z1 + z2 * JPG_F(0.765366865);
	t0 = (in[0] + in[4 * step]) * ((int64_t)1 << JPG_CB);
	t1 = (in[0] - in[4 * step]) * ((int64_t)1 << JPG_CB);
	t10 = t0 + t3;
	t13 = t0 - t3;
	t11 = t1 + t2;
	t12 = t1 - t2;
	/* odd part: in[7], in[5], in[3], in[1] */
	t0 = in[7 * step];
	t1 = in[5 * step];
	t2 = in[3 * step];
	t3 = in[1 * step];
	z1 = t0 + t3;
	z2 = t1 + t2;
	z3 = t0 + t2;
	z4 = t1 + t3;
	z5 = (z3 + z4) * JPG_F(1.175875602);
	t0 *= JPG_F(0.298631336);
	t1 *= JPG_F(2.053119869);
	t2 *= JPG_F(3.072711026);
	t3 *= JPG_F(1.501321110);
	z1 *= -JPG_F(0.899976223);
	z2 *= -JPG_F(2.562915447);
	z3 = z3 * -JPG_F(1.961570560) + z5;
	z4 = z4 * -JPG_F(0.390180644) + z5;
	t0 += z1 + z3;
	t1 += z2 + z4;
	t2 += z2 + z3;
	t3 += z1 + z4;
	out[0] = jpg_descale(t10 + t3, n);
	out[7 * step] = jpg_descale(t10 - t3, n);
	out[1 * step] = jpg_descale(t11 + t2, n);
	out[6 * step] = jpg_descale(t11 - t2, n);
	out[2 * step] = jpg_descale(t12 + t1, n);
	out[5 * step] = jpg_descale(t12 - t1, n);
	out[3 * step] = jpg_descale(t13 + t0, n);
	out[4 * step] = jpg_descale(t13 - t0, n);
}

/* A sample from a level-unshifted result: v + 128 clamped to [0, 255] for v in
 * [-512, 511], beyond that wrapping every 1024 (only a corrupt stream gets there). */
static uint8_t jpg_limit(int64_t v)
{
	unsigned i = (unsigned)((uint64_t)v & 1023u);
	return (uint8_t)(i < 128 ? i + 128 : i < 512 ? 255 : i < 896 ? 0 : i - 896);
}

/* Dequantizes blk (natural order; tables are in zigzag order) and writes its inverse
 * DCT into c's plane at block (bx, by). */
static void jpg_idct(const jpg_dec *d, const jpg_comp *c, const int32_t *blk, int64_t bx,
                     int64_t by)
{
	int64_t coef[64], ws[64], row[8];
	const uint16_t *q = d->qt[c->tq];
	int k, x, y;
	for (k = 0; k < 64; k++) {   /* clamped: the sums stay in 64 bits whatever the stream says */
		int64_t v = (int64_t)blk[jpg_zigzag[k]] * q[k];
		coef[jpg_zigzag[k]] = v > (1 << 20) ? (1 << 20) : v < -(1 << 20) ? -(1 << 20) : v;
	}
	for (x = 0; x < 8; x++)      /* columns, keeping JPG_P1 more bits */
		jpg_idct8(coef + x, ws + x, 8, JPG_CB - JPG_P1);
	for (y = 0; y < 8; y++) {    /* rows, then /8, level shift and limit */
		uint8_t *out = c->plane + (by * 8 + y) * c->pw + bx * 8;
		jpg_idct8(ws + y * 8, row, 1, JPG_CB + JPG_P1 + 3);
		for (x = 0; x < 8; x++)
			out[x] = jpg_limit(row[x]);
	}
}

/* The DC difference of a block, added to c's prediction; -1 for a bad code. */
static int jpg_dc(jpg_dec *d, jpg_comp *c)
{
	int t = jpg_decode(d, &d->dc[c->td]);
	if (t < 0 || t > 11)
		return -1;
	c->pred += jpg_extend(jpg_bits(d, t), t);
	return c->pred > 65535 || c->pred < -65536 ? -1 : 0;   /* beyond any 8-bit image's DC */
}

/* A baseline block: DC and AC coefficients, then the inverse DCT. */
static int jpg_seq_block(jpg_dec *d, jpg_comp *c, int64_t bx, int64_t by)
{
	int32_t blk[64];
	int k;
	if (jpg_dc(d, c))
		return -1;
	memset(blk, 0, sizeof blk);
	blk[0] = c->pred;
	for (k = 1; k < 64;) {
		int rs = jpg_decode(d, &d->ac[c->ta]), r = rs >> 4, s = rs & 15;
		if (rs < 0)
			return -1;
		if (s == 0) {
			if (r != 15)
				break;           /* end of block */
			k += 16;             /* sixteen zeros */
			continue;
		}
		k += r;
		if (k > 63)
			return -1;
		blk[jpg_zigzag[k]] = jpg_extend(jpg_bits(d, s), s);
		k++;
	}
	if (d->err)
		return -1;
	jpg_idct(d, c, blk, bx, by);
	return 0;
}

/* ---- progressive scans (T.81 G.1.2): coefficients accumulate in c->coef ---- */

static int16_t jpg_sat16(int32_t v) { return (int16_t)(v > 32767 ? 32767 : v < -32768 ? -32768 : v); }

/* One more bit of a coefficient that is already nonzero (away from zero). */
static void jpg_refine(jpg_dec *d, int16_t *co, int p1)
{
	if (jpg_bits(d, 1) && (*co & p1) == 0)
		*co = jpg_sat16(*co + (*co >= 0 ? p1 : -p1));
}

/* First AC scan of a band: runs of zeros, values scaled by 2^Al, end-of-band runs. */
static int jpg_ac_first(jpg_dec *d, const jpg_comp *c, int16_t *blk)
{
	int k;
	if (d->eobrun > 0) {
		d->eobrun--;
		return 0;
	}
	for (k = d->ss; k <= d->se; k++) {
		int rs = jpg_decode(d, &d->ac[c->ta]), r = rs >> 4, s = rs & 15;
		if (rs < 0)
			return -1;
		if (s == 0) {
			if (r < 15) {        /* EOBr: this block and 2^r - 1 + more blocks end here */
				d->eobrun = (1 << r) - 1 + (int32_t)jpg_bits(d, r);
				break;
			}
			k += 15;             /* sixteen zeros (the loop adds one) */
			continue;
		}
		k += r;
		if (k > d->se)
			return -1;
		blk[jpg_zigzag[k]] = jpg_sat16(jpg_extend(jpg_bits(d, s), s) * (1 << d->al));
	}
	return d->err ? -1 : 0;
}

/* AC refinement: new coefficients of magnitude 2^Al land on the r+1-th coefficient
 * still zero; every nonzero one passed on the way gets a correction bit. */
static int jpg_ac_refine(jpg_dec *d, const jpg_comp *c, int16_t *blk)
{
	int p1 = 1 << d->al, k = d->ss;
	if (d->eobrun == 0) {
		for (; k <= d->se; k++) {
			int rs = jpg_decode(d, &d->ac[c->ta]), r = rs >> 4, s = rs & 15, val = 0;
			if (rs < 0 || s > 1)
				return -1;
			if (s) {
				val = jpg_bits(d, 1) ? p1 : -p1;
			} else if (r != 15) {
				d->eobrun = (1 << r) + (int32_t)jpg_bits(d, r);
				break;           /* the rest of this block is refined below */
			}
			for (; k <= d->se; k++) {
				int16_t *co = &blk[jpg_zigzag[k]];
				if (*co)
					jpg_refine(d, co, p1);
				else if (r-- == 0)
					break;
			}
			if (val && k <= d->se)
				blk[jpg_zigzag[k]] = (int16_t)val;
		}
	}
	if (d->eobrun > 0) {
		for (; k <= d->se; k++)
			if (blk[jpg_zigzag[k]])
				jpg_refine(d, &blk[jpg_zigzag[k]], p1);
		d->eobrun--;
	}
	return d->err ? -1 : 0;
}

static int jpg_prog_block(jpg_dec *d, jpg_comp *c, int64_t bx, int64_t by)
{
	int16_t *blk = c->coef + (by * (c->pw / 8) + bx) * 64;
	if (d->ss > 0)
		return d->ah ? jpg_ac_refine(d, c, blk) : jpg_ac_first(d, c, blk);
	if (d->ah == 0) {            /* DC first: the prediction scaled by 2^Al */
		if (jpg_dc(d, c))
			return -1;
		blk[0] = jpg_sat16(c->pred * (1 << d->al));
	} else if (jpg_bits(d, 1)) { /* DC refinement: one more bit */
		blk[0] = (int16_t)(blk[0] | (1 << d->al));
	}
	return d->err ? -1 : 0;
}

/* A block of the current scan. */
static int jpg_block(jpg_dec *d, jpg_comp *c, int64_t bx, int64_t by)
{
	return d->prog ? jpg_prog_block(d, c, bx, by) : jpg_seq_block(d, c, bx, by);
}

/* After a progressive image's last scan: every block's inverse DCT. */
static void jpg_prog_finish(jpg_dec *d)
{
	int32_t blk[64];
	int64_t bx, by;
	int i, k;
	for (i = 0; i < d->nc; i++) {
		jpg_comp *c = &d->comp[i];
		for (by = 0; by < c->ph / 8; by++)
			for (bx = 0; bx < c->pw / 8; bx++) {
				const int16_t *co = c->coef + (by * (c->pw / 8) + bx) * 64;
				for (k = 0; k < 64; k++)
					blk[k] = co[k];
				jpg_idct(d, c, blk, bx, by);
			}
	}
}

/* After restart_interval MCUs: byte-align and read the RSTn marker. */
static int jpg_restart(jpg_dec *d)
{
	int i;
	d->cnt = 0;
	if (d->pos + 1 >= d->n || d->p[d->pos] != 0xff || (d->p[d->pos + 1] & 0xf8) != 0xd0)
		return -1;
	d->pos += 2;
	d->eobrun = 0;
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
	d->eobrun = 0;
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

/* SOF0/SOF1/SOF2: the frame; carves the planes (and a progressive image's
 * coefficients) out of im->mem after the state. */
static int jpg_sof(jpg_dec *d, ingot_img *im, const uint8_t *s, int64_t len, int64_t state,
                   int prog)
{
	int64_t off = state;
	int i, rc;
	if (d->frame || len < 6 || s[0] != 8)
		return INGOT_EINVAL;
	d->frame = 1;
	d->prog = prog;
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
		if (!d->prog)
			continue;
		if (2 * c->pw * c->ph > im->mem_cap - off)
			return INGOT_ERANGE;
		c->coef = (int16_t *)(void *)(im->mem + off);   /* off stays a multiple of 64 */
		memset(c->coef, 0, (size_t)(2 * c->pw * c->ph));
		off += 2 * c->pw * c->ph;
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
		sc[i] = k;
	}
	d->ss = s[1 + 2 * n_sc];
	d->se = s[2 + 2 * n_sc];
	d->ah = s[3 + 2 * n_sc] >> 4;
	d->al = s[3 + 2 * n_sc] & 15;
	if (!d->prog && (d->ss != 0 || d->se != 63 || d->ah || d->al))
		return -1;               /* sequential: the whole spectrum at full precision */
	if (d->prog && (d->ss > d->se || d->se > 63 || (d->ss == 0) != (d->se == 0) ||
	                (d->ss > 0 && n_sc != 1) || d->ah > 13 || d->al > 13))
		return -1;               /* a DC scan or one AC band of one component */
	for (i = 0; i < n_sc; i++) {  /* the Huffman tables this scan reads */
		const jpg_comp *c = &d->comp[sc[i]];
		if (((!d->prog || (d->ss == 0 && d->ah == 0)) && !d->dc[c->td].defined) ||
		    ((!d->prog || d->ss > 0) && !d->ac[c->ta].defined))
			return -1;
	}
	d->pos = data;
	return jpg_scan(d, sc, n_sc);
}

INGOT_KERNEL int64_t ingot_jpeg_scratch_bytes(int64_t max_h, int64_t max_w)
{
	/* a sample byte and, progressive, two bytes of coefficient per sample */
	return (int64_t)(sizeof(jpg_dec) + 64) + 3 * 3 * (max_w + 32) * (max_h + 32);
}

/* Component c's sample for output pixel (x, y): 2x ratios interpolate with weights
 * 3/4 and 1/4 towards the nearer neighbor, rounding half down at even and half up
 * at odd positions (the spec's rule); other ratios replicate. */
static unsigned jpg_up(const jpg_dec *d, const jpg_comp *c, int64_t x, int64_t y)
{
	int rh = d->hmax / c->h, rv = d->vmax / c->v;
	int64_t cx = x / rh, cy = y / rv, nx, ny;
	const uint8_t *pl = c->plane;
	if ((rh != 1 && rh != 2) || (rv != 1 && rv != 2) || (rh == 1 && rv == 1) ||
	    (rh == 2 && c->cw <= 2))     /* libjpeg replicates a 2x row of at most 2 samples */
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
		if (m == 0xc0 || m == 0xc1 || m == 0xc2) {
			if ((rc = jpg_sof(d, im, s, len, state, m == 0xc2)) != 0)
				return rc == INGOT_IMG_PROBED ? 0 : rc;
		} else if ((m >= 0xc3 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc) || m == 0xd8) {
			return INGOT_EINVAL;   /* lossless, hierarchical, arithmetic: not supported */
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
	if (d->prog)
		jpg_prog_finish(d);
	jpg_output(d, im);
	return 0;
}
