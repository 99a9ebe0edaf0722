/* ingot_tensor_npy.c — the numpy (.npy) half of tensor I/O: parsing a file's header and
 * data into an ingot_tensor, and writing one. Not a translation unit of its own:
 * ingot_tensor_io.c #includes it (after its helpers tio_fail, tio_size, tio_reset...),
 * with the same rules: hosted C99, untrusted input, every name tio_/TIO_ or ingot_.
 */

/* ------------------------------------------------------------------------------
 * Reading .npy: a magic string, a version, and a Python dict literal such as
 *     {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
 * parsed by a tiny scanner that accepts exactly what numpy writes (and whitespace).
 */

typedef struct TioNpy {
	const char *p, *end;
} TioNpy;

TIO_FN void tio_ws(TioNpy *h)
{
	while (h->p < h->end && (*h->p == ' ' || *h->p == '\t' || *h->p == '\n' || *h->p == '\r'))
		h->p++;
}

TIO_FN int tio_eat(TioNpy *h, char c)
{
	tio_ws(h);
	if (h->p < h->end && *h->p == c) {
		h->p++;
		return 1;
	}
	return 0;
}

/* a quoted string without escapes, into out (cap > 0) */
TIO_FN int tio_str(TioNpy *h, char *out, size_t cap)
{
	char q;
	size_t n = 0;
	tio_ws(h);
	if (h->p >= h->end || (*h->p != '\'' && *h->p != '"'))
		return -1;
	q = *h->p++;
	while (h->p < h->end && *h->p != q) {
		if (*h->p == '\\' || n + 1 >= cap)
			return -1;
		out[n++] = *h->p++;
	}
	if (h->p >= h->end)
		return -1;
	h->p++;
	out[n] = '\0';
	return 0;
}

TIO_FN int tio_word(TioNpy *h, const char *w)
{
	size_t n = strlen(w);
	tio_ws(h);
	if ((size_t)(h->end - h->p) < n || memcmp(h->p, w, n) != 0)
		return 0;
	h->p += n;
	return 1;
}

/* (), (3,), (2, 3) with optional trailing comma; Python 2 files may write 3L */
TIO_FN int tio_shape(TioNpy *h, int *rank, int64_t *dims, char *err, size_t cap)
{
	*rank = 0;
	if (!tio_eat(h, '('))
		return tio_fail(err, cap, ".npy shape is not a tuple");
	if (tio_eat(h, ')'))
		return 0;
	for (;;) {
		uint64_t v = 0;
		int digits = 0;
		tio_ws(h);
		while (h->p < h->end && *h->p >= '0' && *h->p <= '9') {
			uint64_t d = (uint64_t)(*h->p - '0');
			if (v > ((uint64_t)INT64_MAX - d) / 10)
				return tio_fail(err, cap, ".npy shape has a dim over 64 bits");
			v = v * 10 + d;
			digits++;
			h->p++;
		}
		if (!digits)
			return tio_fail(err, cap, ".npy shape has a bad dim");
		if (h->p < h->end && *h->p == 'L')
			h->p++;
		if (*rank == INGOT_MAX_RANK)
			return tio_fail(err, cap, ".npy shape has more than %d dims", INGOT_MAX_RANK);
		dims[(*rank)++] = (int64_t)v;
		if (tio_eat(h, ')'))
			return 0;
		if (!tio_eat(h, ','))
			return tio_fail(err, cap, ".npy shape is not a tuple");
		if (tio_eat(h, ')'))
			return 0;
	}
}

/* '<f4' and friends -> dtype; *swap set for big-endian multi-byte data */
TIO_FN int tio_descr(const char *d, int *dtype, int *swap, char *err, size_t cap)
{
	static const struct { char code[3]; int dtype; } map[] = {
		{ "f4", INGOT_DT_F32 }, { "f8", INGOT_DT_F64 }, { "f2", INGOT_DT_F16 },
		{ "i1", INGOT_DT_I8 }, { "u1", INGOT_DT_U8 }, { "i2", INGOT_DT_I16 },
		{ "u2", INGOT_DT_U16 }, { "i4", INGOT_DT_I32 }, { "u4", INGOT_DT_U32 },
		{ "i8", INGOT_DT_I64 }, { "u8", INGOT_DT_U64 }, { "b1", INGOT_DT_BOOL }
	};
	size_t i;
	*swap = 0;
	if (strlen(d) == 3 && strchr("<>|=", d[0])) {
		for (i = 0; i < sizeof map / sizeof map[0]; i++) {
			if (memcmp(d + 1, map[i].code, 2) != 0)
				continue;
			*dtype = map[i].dtype;
			if (ingot_tensor_elem_size(*dtype) == 1 || d[0] == '<')
				return 0;
			if (d[0] == '>') {
				*swap = 1;
				return 0;
			}
			return tio_fail(err, cap, ".npy descr '%s' has no byte order", d);
		}
	}
	return tio_fail(err, cap, ".npy descr '%s' is not supported", d);
}

TIO_API int ingot_tensor_parse_npy(const uint8_t *buf, size_t len, ingot_tensor *t,
                                   char *err, size_t cap)
{
	TioNpy h;
	char key[32], descr[32] = "";
	size_t hstart, hlen, esize, bytes, i;
	int have_descr = 0, have_order = 0, have_shape = 0, fortran = 0, swap = 0;
	int dtype = 0, rank = 0;
	int64_t dims[INGOT_MAX_RANK];
	if (!t)
		return tio_fail(err, cap, "no tensor to read into");
	tio_reset(t);
	if (!buf || len < 10 || memcmp(buf, "\x93NUMPY", 6) != 0)
		return tio_fail(err, cap, "not an .npy file (bad magic or truncated)");
	if (buf[6] == 1 && buf[7] == 0) {
		hstart = 10;
		hlen = (size_t)buf[8] | (size_t)buf[9] << 8;
	} else if ((buf[6] == 2 || buf[6] == 3) && buf[7] == 0) {
		if (len < 12)
			return tio_fail(err, cap, "truncated .npy header");
		hstart = 12;
		hlen = (size_t)((uint32_t)buf[8] | (uint32_t)buf[9] << 8 | (uint32_t)buf[10] << 16 |
		                (uint32_t)buf[11] << 24);
	} else {
		return tio_fail(err, cap, "unsupported .npy version %u.%u", (unsigned)buf[6],
		                (unsigned)buf[7]);
	}
	if (hlen > len - hstart)
		return tio_fail(err, cap, "truncated .npy header: %llu bytes announced, %llu present",
		                (tio_ull)hlen, (tio_ull)(len - hstart));
	h.p = (const char *)buf + hstart;
	h.end = h.p + hlen;
	if (!tio_eat(&h, '{'))
		return tio_fail(err, cap, ".npy header is not a dict");
	while (!tio_eat(&h, '}')) {
		if (tio_str(&h, key, sizeof key) || !tio_eat(&h, ':'))
			return tio_fail(err, cap, ".npy header has a bad key");
		if (strcmp(key, "descr") == 0 && !have_descr) {
			tio_ws(&h);
			if (h.p < h.end && *h.p == '[')
				return tio_fail(err, cap, ".npy structured dtypes are not supported");
			if (tio_str(&h, descr, sizeof descr))
				return tio_fail(err, cap, ".npy descr is not a short string");
			have_descr = 1;
		} else if (strcmp(key, "fortran_order") == 0 && !have_order) {
			if (tio_word(&h, "True"))
				fortran = 1;
			else if (!tio_word(&h, "False"))
				return tio_fail(err, cap, ".npy fortran_order is not True or False");
			have_order = 1;
		} else if (strcmp(key, "shape") == 0 && !have_shape) {
			if (tio_shape(&h, &rank, dims, err, cap))
				return -1;
			have_shape = 1;
		} else {
			return tio_fail(err, cap, ".npy header has an unexpected or repeated key '%s'", key);
		}
		if (!tio_eat(&h, ',')) {
			if (tio_eat(&h, '}'))
				break;
			return tio_fail(err, cap, ".npy header is not a dict");
		}
	}
	tio_ws(&h);
	if (h.p != h.end)
		return tio_fail(err, cap, ".npy header has bytes after the dict");
	if (!have_descr || !have_order || !have_shape)
		return tio_fail(err, cap, ".npy header lacks descr, fortran_order or shape");
	if (tio_descr(descr, &dtype, &swap, err, cap))
		return -1;
	esize = ingot_tensor_elem_size(dtype);
	if (tio_size(rank, dims, esize, &bytes, err, cap))
		return -1;
	if (fortran) {                     /* the same bytes as C order unless 2 dims exceed 1 */
		int big = 0;
		for (i = 0; i < (size_t)rank; i++)
			big += dims[i] > 1;
		if (big > 1)
			return tio_fail(err, cap, ".npy arrays in Fortran order are not supported");
	}
	if (len - hstart - hlen != bytes)
		return tio_fail(err, cap, ".npy data has %llu bytes, expected %llu",
		                (tio_ull)(len - hstart - hlen), (tio_ull)bytes);
	t->data = malloc(bytes ? bytes : 1);
	if (!t->data)
		return tio_fail(err, cap, "out of memory (%llu bytes)", (tio_ull)bytes);
	if (bytes)
		memcpy(t->data, buf + hstart + hlen, bytes);
	if (swap) {
		uint8_t *d = (uint8_t *)t->data;
		for (i = 0; i < bytes; i += esize) {
			size_t a = i, b = i + esize - 1;
			for (; a < b; a++, b--) {
				uint8_t c = d[a];
				d[a] = d[b];
				d[b] = c;
			}
		}
	}
	t->dtype = dtype;
	t->rank = rank;
	memcpy(t->dims, dims, (size_t)rank * sizeof dims[0]);
	t->bytes = bytes;
	return 0;
}

/* ------------------------------------------------------------------------------
 * Writing .npy.
 */

/* .npy version 1.0, the header padded so the data starts 64-byte aligned, as numpy
 * does. npy has no bfloat16: such tensors are written as '<u2' (the raw bits) and
 * read back as uint16. */
TIO_FN void tio_write_npy(FILE *f, const ingot_tensor *t)
{
	static const char *const descr[] = {
		"", "<f4", "|u1", "|i1", "<u2", "<i2", "<i4", "<i8", "", "|b1", "<f2", "<f8",
		"<u4", "<u8", "", "", "<u2",     /* ORDER DTYPE; bfloat16 as its uint16 bits */
		"|u1", "|u1", "|u1", "|u1", "|u1", "|i1", "|u1",  /* 8/4/2-bit types: one byte each */
		"|u1", "|u1", "|i1"
	};
	char hdr[512], shape[256];
	size_t pos = 0, hlen;
	int i, n;
	shape[0] = '(';
	shape[1] = '\0';
	pos = 1;
	for (i = 0; i < t->rank; i++) {
		n = snprintf(shape + pos, sizeof shape - pos, i ? ", %lld" : "%lld",
		             (long long)t->dims[i]);
		if (n > 0)
			pos += (size_t)n;
	}
	snprintf(shape + pos, sizeof shape - pos, t->rank == 1 ? ",)" : ")");
	n = snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
	             descr[t->dtype], shape);
	hlen = n > 0 ? (size_t)n : 0;
	/* spaces then '\n' so that 10 + header length is a multiple of 64 */
	while ((10 + hlen + 1) % 64 != 0)
		hdr[hlen++] = ' ';
	hdr[hlen++] = '\n';
	fwrite("\x93NUMPY\x01\x00", 1, 8, f);
	putc((int)(hlen & 0xffu), f);
	putc((int)(hlen >> 8), f);
	fwrite(hdr, 1, hlen, f);
	if (t->bytes)
		fwrite(t->data, 1, t->bytes, f);
}

TIO_FN int tio_is_npy_path(const char *path)
{
	size_t n = strlen(path);
	const char *e;
	if (n < 4)
		return 0;
	e = path + n - 4;
	return e[0] == '.' && (e[1] | 0x20) == 'n' && (e[2] | 0x20) == 'p' && (e[3] | 0x20) == 'y';
}
