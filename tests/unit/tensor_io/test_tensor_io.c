/* test_tensor_io.c — unit tests of runtime-stubs/ingot_tensor_io.c: round trips of every
 * dtype and ranks 0..4 through .pb and .npy files, hand-encoded TensorProtos (packed and
 * unpacked fields, typed *_data, unknown fields), corrupt and truncated inputs, and a
 * mutation run through the fuzz target. Interop with onnx/numpy is test_interop.py.
 */
#include "ingot_tensor_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#include "../harness.h"

/* ---- a tiny protobuf encoder for hand-made inputs ---- */
typedef struct Buf {
	uint8_t b[8192];
	size_t n;
} Buf;

static void put(Buf *b, unsigned c) { if (b->n < sizeof b->b) b->b[b->n++] = (uint8_t)c; }
static void varint(Buf *b, uint64_t v)
{
	while (v >= 0x80) { put(b, (unsigned)(v & 0x7f) | 0x80u); v >>= 7; }
	put(b, (unsigned)v);
}
static void key(Buf *b, unsigned field, unsigned wire) { varint(b, (uint64_t)field << 3 | wire); }
static void fixed(Buf *b, uint64_t v, unsigned w)
{
	unsigned i;
	for (i = 0; i < w; i++)
		put(b, (unsigned)(v >> (8 * i)) & 0xffu);
}
static void field_bytes(Buf *b, unsigned field, const void *p, size_t n)
{
	key(b, field, 2);
	varint(b, n);
	for (size_t i = 0; i < n; i++)
		put(b, ((const uint8_t *)p)[i]);
}
static void field_varint(Buf *b, unsigned field, uint64_t v) { key(b, field, 0); varint(b, v); }
static void dims_unpacked(Buf *b, int rank, const int64_t *d)
{
	for (int i = 0; i < rank; i++)
		field_varint(b, 1, (uint64_t)d[i]);
}
static uint64_t f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static uint64_t f64_bits(double f) { uint64_t u; memcpy(&u, &f, 8); return u; }

static int parse_ok(const Buf *b, ingot_tensor *t, int line)
{
	char err[256] = "";
	int ok = ingot_tensor_parse(b->b, b->n, t, err, sizeof err) == 0;
	CHECK_AT(__FILE__, line, ok, "parse failed: %s", err);
	return ok;
}

/* the input must fail, with a one-line message containing `want`, and leave no data */
static void expect_err(const uint8_t *p, size_t n, const char *want, int line)
{
	ingot_tensor t;
	char err[256] = "";
	int rc = ingot_tensor_parse(p, n, &t, err, sizeof err);
	int ok = rc == -1 && !t.data && err[0] && !strchr(err, '\n') && (!want || strstr(err, want));
	CHECK_AT(__FILE__, line, ok, "expected error '%s', got rc=%d err='%s'", want ? want : "", rc,
	         err);
	if (!ok && rc == 0)
		ingot_tensor_free(&t);
}
#define EXPECT_ERR(buf, want) expect_err((buf)->b, (buf)->n, want, __LINE__)

static uint32_t rng = 12345;
static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

static char tmpdir[64];

/* ---- round trips ---- */
static const int all_dtypes[] = {
	INGOT_DT_F32, INGOT_DT_U8, INGOT_DT_I8, INGOT_DT_U16, INGOT_DT_I16, INGOT_DT_I32,
	INGOT_DT_I64, INGOT_DT_BOOL, INGOT_DT_F16, INGOT_DT_F64, INGOT_DT_U32, INGOT_DT_U64,
	INGOT_DT_BF16
};

static void roundtrip_one(int dtype, int rank, const int64_t *dims, const char *ext)
{
	ingot_tensor t, r;
	char path[128], err[256] = "";
	size_t es = ingot_tensor_elem_size(dtype), n = 1;
	int i;
	memset(&t, 0, sizeof t);
	snprintf(t.name, sizeof t.name, "x_%d_%d", dtype, rank);
	t.dtype = dtype;
	t.rank = rank;
	for (i = 0; i < rank; i++) {
		t.dims[i] = dims[i];
		n *= (size_t)dims[i];
	}
	t.bytes = n * es;
	t.data = malloc(t.bytes + 1);
	for (size_t k = 0; k < t.bytes; k++)
		((uint8_t *)t.data)[k] = dtype == INGOT_DT_BOOL ? (uint8_t)(rnd() & 1) : (uint8_t)rnd();
	snprintf(path, sizeof path, "%s/t%s", tmpdir, ext);
	if (ingot_tensor_write(path, &t, err, sizeof err) != 0) {
		CHECK(0, "write %s dtype %d rank %d: %s", path, dtype, rank, err);
	} else if (ingot_tensor_read(path, &r, err, sizeof err) != 0) {
		CHECK(0, "read %s dtype %d rank %d: %s", path, dtype, rank, err);
	} else {
		int npy = strcmp(ext, ".pb") != 0;
		CHECK(r.dtype == (npy && dtype == INGOT_DT_BF16 ? INGOT_DT_U16 : dtype));
		CHECK(r.rank == rank);
		CHECK(memcmp(r.dims, t.dims, sizeof r.dims) == 0);
		CHECK(r.bytes == t.bytes);
		CHECK(r.data && memcmp(r.data, t.data, t.bytes) == 0);
		CHECK(strcmp(r.name, npy ? "" : t.name) == 0);
		ingot_tensor_free(&r);
		CHECK(r.data == NULL);
	}
	remove(path);
	free(t.data);
}

static void test_roundtrip(void)
{
	static const int64_t dims[] = { 2, 3, 1, 4 }, empty[] = { 3, 0, 2 };
	size_t d;
	int rank;
	for (d = 0; d < sizeof all_dtypes / sizeof all_dtypes[0]; d++) {
		for (rank = 0; rank <= 4; rank++) {
			roundtrip_one(all_dtypes[d], rank, dims, ".pb");
			roundtrip_one(all_dtypes[d], rank, dims, ".npy");
		}
		roundtrip_one(all_dtypes[d], 3, empty, ".pb");
		roundtrip_one(all_dtypes[d], 3, empty, ".NPY");
	}
	{   /* 8 dims, the maximum */
		static const int64_t d8[] = { 1, 2, 1, 2, 1, 2, 1, 2 };
		roundtrip_one(INGOT_DT_F32, 8, d8, ".pb");
		roundtrip_one(INGOT_DT_F32, 8, d8, ".npy");
	}
}

/* .npy header padding, as numpy writes it */
static void test_npy_layout(void)
{
	ingot_tensor t;
	float v[3] = { 1, 2, 3 };
	char path[128], err[256];
	uint8_t buf[256];
	size_t n;
	FILE *f;
	memset(&t, 0, sizeof t);
	t.dtype = INGOT_DT_F32;
	t.rank = 1;
	t.dims[0] = 3;
	t.bytes = sizeof v;
	t.data = v;
	snprintf(path, sizeof path, "%s/layout.npy", tmpdir);
	CHECK(ingot_tensor_write(path, &t, err, sizeof err) == 0);
	f = fopen(path, "rb");
	CHECK(f != NULL);
	if (!f)
		return;
	n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	remove(path);
	CHECK(n == 128 + 12);                /* the 57-byte dict needs two 64-byte blocks */
	CHECK(memcmp(buf, "\x93NUMPY\x01\x00\x76\x00", 10) == 0);
	CHECK(memcmp(buf + 10, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), } ", 58) == 0);
	CHECK(buf[126] == ' ' && buf[127] == '\n');
	CHECK(memcmp(buf + 128, v, 12) == 0);
}

/* ---- hand-encoded TensorProtos ---- */
static void test_pb_fields(void)
{
	ingot_tensor t;
	Buf b, sub;
	static const int64_t d23[] = { 2, 3 };

	/* packed dims, packed float_data, name; unknown fields of every wire type */
	memset(&b, 0, sizeof b);
	memset(&sub, 0, sizeof sub);
	varint(&sub, 2); varint(&sub, 3);
	field_bytes(&b, 1, sub.b, sub.n);
	field_varint(&b, 2, INGOT_DT_F32);
	field_varint(&b, 100, 7);                        /* unknown varint */
	key(&b, 101, 1); fixed(&b, 1, 8);                /* unknown fixed64 */
	key(&b, 102, 5); fixed(&b, 1, 4);                /* unknown fixed32 */
	field_bytes(&b, 12, "doc", 3);                   /* doc_string */
	key(&b, 3, 2); varint(&b, 4); field_varint(&b, 1, 0); field_varint(&b, 2, 6); /* segment */
	key(&b, 50, 3); key(&b, 51, 3); field_varint(&b, 1, 9); key(&b, 51, 4); key(&b, 50, 4);
	memset(&sub, 0, sizeof sub);
	for (int i = 0; i < 6; i++)
		fixed(&sub, f32_bits((float)i * 0.5f - 1.0f), 4);
	field_bytes(&b, 4, sub.b, sub.n);
	field_bytes(&b, 8, "weights", 7);
	if (parse_ok(&b, &t, __LINE__)) {
		const float *f = (const float *)t.data;
		CHECK(t.dtype == INGOT_DT_F32 && t.rank == 2 && t.dims[0] == 2 && t.dims[1] == 3);
		CHECK(t.bytes == 24 && f[0] == -1.0f && f[5] == 1.5f);
		CHECK(strcmp(t.name, "weights") == 0);
		ingot_tensor_free(&t);
	}

	/* unpacked float_data (wire type 5) mixed with a packed run */
	memset(&b, 0, sizeof b);
	field_varint(&b, 2, INGOT_DT_F32);
	field_varint(&b, 1, 3);
	key(&b, 4, 5); fixed(&b, f32_bits(1.0f), 4);
	memset(&sub, 0, sizeof sub);
	fixed(&sub, f32_bits(2.0f), 4); fixed(&sub, f32_bits(3.0f), 4);
	field_bytes(&b, 4, sub.b, sub.n);
	if (parse_ok(&b, &t, __LINE__)) {
		const float *f = (const float *)t.data;
		CHECK(t.rank == 1 && t.dims[0] == 3 && f[0] == 1.0f && f[1] == 2.0f && f[2] == 3.0f);
		CHECK(t.name[0] == '\0');
		ingot_tensor_free(&t);
	}

	/* int32_data for the narrow types: negative values are 10-byte varints */
	{
		static const struct { int dtype; int64_t v[3]; uint8_t want[6]; } cases[] = {
			{ INGOT_DT_I8, { -5, 127, -128 }, { 0xfb, 0x7f, 0x80 } },
			{ INGOT_DT_U8, { 0, 255, 7 }, { 0, 255, 7 } },
			{ INGOT_DT_I16, { -300, 1, 32767 }, { 0xd4, 0xfe, 1, 0, 0xff, 0x7f } },
			{ INGOT_DT_U16, { 65535, 0, 258 }, { 0xff, 0xff, 0, 0, 2, 1 } },
			{ INGOT_DT_BOOL, { 0, 1, 2 }, { 0, 1, 1 } },
			{ INGOT_DT_F16, { 0x3c00, 0xc000, 0x7e00 }, { 0x00, 0x3c, 0x00, 0xc0, 0x00, 0x7e } },
			{ INGOT_DT_BF16, { 0x3f80, 0xbf80, 0 }, { 0x80, 0x3f, 0x80, 0xbf, 0, 0 } },
		};
		for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
			memset(&b, 0, sizeof b);
			field_varint(&b, 1, 3);
			field_varint(&b, 2, (uint64_t)cases[c].dtype);
			memset(&sub, 0, sizeof sub);
			for (int i = 0; i < 3; i++)
				varint(&sub, (uint64_t)cases[c].v[i]);
			field_bytes(&b, 5, sub.b, sub.n);
			if (parse_ok(&b, &t, __LINE__)) {
				CHECK(t.dtype == cases[c].dtype && t.bytes == 3 * ingot_tensor_elem_size(t.dtype));
				CHECK(memcmp(t.data, cases[c].want, t.bytes) == 0);
				ingot_tensor_free(&t);
			}
		}
	}

	/* int32: unpacked values, negative */
	memset(&b, 0, sizeof b);
	field_varint(&b, 2, INGOT_DT_I32);
	field_varint(&b, 5, (uint64_t)(int64_t)-2);
	field_varint(&b, 5, 0x7fffffff);
	field_varint(&b, 1, 2);
	if (parse_ok(&b, &t, __LINE__)) {
		const int32_t *v = (const int32_t *)t.data;
		CHECK(t.bytes == 8 && v[0] == -2 && v[1] == 0x7fffffff);
		ingot_tensor_free(&t);
	}

	/* int64_data in two packed runs, rank 0 */
	memset(&b, 0, sizeof b);
	field_varint(&b, 2, INGOT_DT_I64);
	field_varint(&b, 7, (uint64_t)INT64_MIN);
	if (parse_ok(&b, &t, __LINE__)) {
		CHECK(t.rank == 0 && t.bytes == 8 && *(const int64_t *)t.data == INT64_MIN);
		ingot_tensor_free(&t);
	}
	memset(&b, 0, sizeof b);
	dims_unpacked(&b, 2, d23);
	field_varint(&b, 2, INGOT_DT_I64);
	memset(&sub, 0, sizeof sub);
	varint(&sub, (uint64_t)(int64_t)-1); varint(&sub, 1); varint(&sub, 2);
	field_bytes(&b, 7, sub.b, sub.n);
	field_bytes(&b, 7, sub.b, sub.n);
	if (parse_ok(&b, &t, __LINE__)) {
		const int64_t *v = (const int64_t *)t.data;
		CHECK(t.bytes == 48 && v[0] == -1 && v[2] == 2 && v[3] == -1 && v[5] == 2);
		ingot_tensor_free(&t);
	}

	/* double_data packed and unpacked */
	memset(&b, 0, sizeof b);
	field_varint(&b, 2, INGOT_DT_F64);
	field_varint(&b, 1, 2);
	key(&b, 10, 1); fixed(&b, f64_bits(0.1), 8);
	memset(&sub, 0, sizeof sub);
	fixed(&sub, f64_bits(-2.5), 8);
	field_bytes(&b, 10, sub.b, sub.n);
	if (parse_ok(&b, &t, __LINE__)) {
		const double *v = (const double *)t.data;
		CHECK(t.bytes == 16 && v[0] == 0.1 && v[1] == -2.5);
		ingot_tensor_free(&t);
	}

	/* uint64_data for uint32 and uint64 */
	memset(&b, 0, sizeof b);
	field_varint(&b, 2, INGOT_DT_U32);
	field_varint(&b, 1, 2);
	field_varint(&b, 11, 0xffffffffu);
	field_varint(&b, 11, 5);
	if (parse_ok(&b, &t, __LINE__)) {
		const uint32_t *v = (const uint32_t *)t.data;
		CHECK(t.bytes == 8 && v[0] == 0xffffffffu && v[1] == 5);
		ingot_tensor_free(&t);
	}
	memset(&b, 0, sizeof b);
	field_varint(&b, 2, INGOT_DT_U64);
	field_varint(&b, 11, UINT64_MAX);
	if (parse_ok(&b, &t, __LINE__)) {
		CHECK(t.bytes == 8 && *(const uint64_t *)t.data == UINT64_MAX);
		ingot_tensor_free(&t);
	}

	/* raw_data: the last occurrence wins; empty tensors need no data at all */
	memset(&b, 0, sizeof b);
	field_varint(&b, 2, INGOT_DT_U8);
	field_varint(&b, 1, 2);
	field_bytes(&b, 9, "abc", 3);
	field_bytes(&b, 9, "xy", 2);
	if (parse_ok(&b, &t, __LINE__)) {
		CHECK(t.bytes == 2 && memcmp(t.data, "xy", 2) == 0);
		ingot_tensor_free(&t);
	}
	memset(&b, 0, sizeof b);
	field_varint(&b, 2, INGOT_DT_F32);
	field_varint(&b, 1, 4);
	field_varint(&b, 1, 0);
	if (parse_ok(&b, &t, __LINE__)) {
		CHECK(t.bytes == 0 && t.rank == 2 && t.data != NULL);
		ingot_tensor_free(&t);
	}
	/* a zero dim makes any other dim harmless */
	memset(&b, 0, sizeof b);
	field_varint(&b, 2, INGOT_DT_F32);
	field_varint(&b, 1, (uint64_t)1 << 62);
	field_varint(&b, 1, 0);
	field_varint(&b, 1, (uint64_t)1 << 62);
	if (parse_ok(&b, &t, __LINE__)) {
		CHECK(t.bytes == 0);
		ingot_tensor_free(&t);
	}
	/* data_location DEFAULT is fine */
	memset(&b, 0, sizeof b);
	field_varint(&b, 2, INGOT_DT_U8);
	field_bytes(&b, 9, "a", 1);
	field_varint(&b, 14, 0);
	if (parse_ok(&b, &t, __LINE__))
		ingot_tensor_free(&t);
}

static void test_pb_errors(void)
{
	Buf b, sub;
	int i;
#define RESET() memset(&b, 0, sizeof b)
	RESET(); put(&b, 0x08); put(&b, 0x80);
	EXPECT_ERR(&b, "truncated varint at byte 1");
	RESET(); put(&b, 0x08); for (i = 0; i < 10; i++) put(&b, 0xff); put(&b, 0x01);
	EXPECT_ERR(&b, "longer than 64 bits");
	RESET(); field_varint(&b, 2, 1); key(&b, 9, 2); varint(&b, 100); put(&b, 0);
	EXPECT_ERR(&b, "truncated field 9");
	RESET(); field_varint(&b, 2, 1); key(&b, 9, 2); varint(&b, UINT64_MAX);
	EXPECT_ERR(&b, "truncated field 9");
	RESET(); field_varint(&b, 2, 1); field_varint(&b, 1, (uint64_t)(int64_t)-3);
	EXPECT_ERR(&b, "negative");
	RESET(); field_varint(&b, 2, 1); for (i = 0; i < 9; i++) field_varint(&b, 1, 1);
	EXPECT_ERR(&b, "more than 8 dims");
	RESET(); field_varint(&b, 1, 1); field_bytes(&b, 9, "abcd", 4);
	EXPECT_ERR(&b, "no data_type");
	RESET();
	EXPECT_ERR(&b, "no data_type");
	RESET(); field_varint(&b, 2, 0);
	EXPECT_ERR(&b, "no data_type");
	RESET(); field_varint(&b, 2, INGOT_DT_STRING); field_bytes(&b, 6, "hi", 2);
	field_bytes(&b, 6, "yo", 2);
	EXPECT_ERR(&b, "string_data has 2 values, expected 1");
	RESET(); field_varint(&b, 2, INGOT_DT_STRING);
	EXPECT_ERR(&b, "no data (raw_data or string_data)");
	RESET(); field_varint(&b, 2, INGOT_DT_STRING);
	field_bytes(&b, 6, "0123456789012345678901234567890123456789012345678901234567890123", 64);
	EXPECT_ERR(&b, "string element 0 has 64 bytes, at most 63 fit");
	RESET(); field_varint(&b, 2, INGOT_DT_STRING); field_bytes(&b, 6, "a\0b", 3);
	EXPECT_ERR(&b, "NUL");
	RESET(); field_varint(&b, 2, INGOT_DT_STRING); field_bytes(&b, 9, "ab", 2);
	EXPECT_ERR(&b, "raw_data given for a string tensor");
	RESET(); field_varint(&b, 2, INGOT_DT_F32); field_bytes(&b, 6, "ab", 2);
	EXPECT_ERR(&b, "string_data given for a float32 tensor");
	RESET(); field_varint(&b, 2, INGOT_DT_STRING); field_varint(&b, 6, 1);
	EXPECT_ERR(&b, "string_data has wire type 0");
	RESET(); field_varint(&b, 2, INGOT_DT_C64); field_bytes(&b, 9, "12345678", 8);
	EXPECT_ERR(&b, "complex64");
	RESET(); field_varint(&b, 2, 99);
	EXPECT_ERR(&b, "unknown data_type 99");
	RESET(); field_varint(&b, 2, (uint64_t)(int64_t)-1);
	EXPECT_ERR(&b, "unknown data_type");
	RESET(); field_varint(&b, 2, 1); field_bytes(&b, 13, "\x0a\x01k\x12\x01v", 6);
	EXPECT_ERR(&b, "external data");
	RESET(); field_varint(&b, 2, 1); field_varint(&b, 14, 1);
	EXPECT_ERR(&b, "external");
	RESET(); field_varint(&b, 1, 2); field_varint(&b, 2, 1); field_bytes(&b, 9, "abcd", 4);
	EXPECT_ERR(&b, "raw_data has 4 bytes, expected 8 for float32[2]");
	RESET(); field_varint(&b, 1, 2); field_varint(&b, 2, INGOT_DT_I64); field_varint(&b, 7, 1);
	EXPECT_ERR(&b, "int64_data has 1 values, expected 2 for int64[2]");
	RESET(); field_varint(&b, 1, 2); field_varint(&b, 2, INGOT_DT_I64);
	EXPECT_ERR(&b, "no data");
	RESET(); field_varint(&b, 2, INGOT_DT_F32); field_varint(&b, 7, 1);
	EXPECT_ERR(&b, "int64_data given for a float32 tensor");
	RESET(); field_varint(&b, 2, INGOT_DT_U8); field_varint(&b, 5, 1); field_bytes(&b, 9, "a", 1);
	EXPECT_ERR(&b, "both raw_data and int32_data");
	RESET(); field_varint(&b, 2, INGOT_DT_F32); field_bytes(&b, 4, "abcde", 5);
	EXPECT_ERR(&b, "not a multiple of 4");
	RESET(); field_varint(&b, 2, INGOT_DT_F32); key(&b, 4, 0); varint(&b, 1);
	EXPECT_ERR(&b, "float_data has wire type 0");
	RESET(); key(&b, 1, 5); fixed(&b, 1, 4);
	EXPECT_ERR(&b, "dims has wire type 5");
	RESET(); key(&b, 2, 2); varint(&b, 0);
	EXPECT_ERR(&b, "data_type has wire type 2");
	RESET(); key(&b, 8, 0); varint(&b, 0);
	EXPECT_ERR(&b, "name has wire type 0");
	RESET(); put(&b, 0x00); put(&b, 0x00);
	EXPECT_ERR(&b, "invalid field number 0");
	RESET(); key(&b, 20, 7);
	EXPECT_ERR(&b, "invalid wire type 7");
	RESET(); key(&b, 20, 4);
	EXPECT_ERR(&b, "unmatched end of group");
	RESET(); key(&b, 20, 3); key(&b, 21, 4);
	EXPECT_ERR(&b, "unmatched end of group 21");
	RESET(); key(&b, 20, 3);
	EXPECT_ERR(&b, "truncated varint");
	RESET(); for (i = 0; i < 70; i++) key(&b, 20, 3);
	EXPECT_ERR(&b, "nested deeper than 64");
	RESET(); key(&b, 20, 1); fixed(&b, 0, 7);
	EXPECT_ERR(&b, "truncated 8-byte value");
	RESET(); field_varint(&b, 2, 1); field_varint(&b, 1, (uint64_t)1 << 40); field_varint(&b, 1, (uint64_t)1 << 40);
	EXPECT_ERR(&b, "overflows");
	RESET(); field_varint(&b, 2, INGOT_DT_F64); field_varint(&b, 1, (uint64_t)1 << 61);
	EXPECT_ERR(&b, "too large");
	RESET(); field_varint(&b, 2, INGOT_DT_F32); field_varint(&b, 1, (uint64_t)1 << 40); field_bytes(&b, 9, "", 0);
	EXPECT_ERR(&b, "raw_data has 0 bytes, expected 4398046511104");
	/* packed dims with a truncated varint inside the run */
	RESET(); memset(&sub, 0, sizeof sub); put(&sub, 2); put(&sub, 0x80);
	field_bytes(&b, 1, sub.b, sub.n); field_varint(&b, 2, 1);
	EXPECT_ERR(&b, "truncated varint at byte 3");
#undef RESET
	{   /* NULL and odd arguments */
		ingot_tensor t;
		char err[64];
		CHECK(ingot_tensor_parse_pb(NULL, 5, &t, err, sizeof err) == -1 && t.data == NULL);
		CHECK(ingot_tensor_parse_pb(NULL, 0, &t, err, sizeof err) == -1);
		CHECK(ingot_tensor_parse_pb(b.b, b.n, NULL, err, sizeof err) == -1);
		CHECK(ingot_tensor_parse_pb((const uint8_t *)"\x10", 1, &t, NULL, 0) == -1);
		CHECK(ingot_tensor_parse_pb((const uint8_t *)"\x10\x01\x42\x40", 4, &t, err, 1) == -1);
		CHECK(err[0] == '\0');
		CHECK(ingot_tensor_read("/nonexistent/x.pb", &t, err, sizeof err) == -1);
		CHECK(strstr(err, "cannot open") != NULL);
		CHECK(ingot_tensor_read(tmpdir, &t, err, sizeof err) == -1);
	}
}

/* ---- hand-written .npy files ---- */
static size_t npy_make(uint8_t *out, int major, const char *hdr, const void *data, size_t n)
{
	size_t h = strlen(hdr), pos;
	memcpy(out, "\x93NUMPY", 6);
	out[6] = (uint8_t)major;
	out[7] = 0;
	if (major == 1) {
		out[8] = (uint8_t)h;
		out[9] = (uint8_t)(h >> 8);
		pos = 10;
	} else {
		out[8] = (uint8_t)h; out[9] = (uint8_t)(h >> 8); out[10] = 0; out[11] = 0;
		pos = 12;
	}
	memcpy(out + pos, hdr, h);
	memcpy(out + pos + h, data, n);
	return pos + h + n;
}

static void test_npy(void)
{
	static const uint8_t be[8] = { 0, 0, 1, 2, 0xff, 0xff, 0xff, 0xfe };
	uint8_t buf[1024];
	ingot_tensor t;
	char err[256];
	size_t n;

	n = npy_make(buf, 2, "{\"descr\": \">i4\", \"shape\": (2L,), \"fortran_order\": False}\n", be, 8);
	CHECK(ingot_tensor_parse(buf, n, &t, err, sizeof err) == 0);
	if (t.data) {
		const int32_t *v = (const int32_t *)t.data;
		CHECK(t.dtype == INGOT_DT_I32 && t.rank == 1 && t.dims[0] == 2);
		CHECK(v[0] == 258 && v[1] == -2);
		ingot_tensor_free(&t);
	}
	n = npy_make(buf, 3, "{'descr': '|b1', 'fortran_order': True, 'shape': (), }   \n", "\x01", 1);
	CHECK(ingot_tensor_parse(buf, n, &t, err, sizeof err) == 0);
	if (t.data) {
		CHECK(t.dtype == INGOT_DT_BOOL && t.rank == 0 && t.bytes == 1);
		ingot_tensor_free(&t);
	}
	n = npy_make(buf, 1, "{'descr':'<f2','fortran_order':True,'shape':(1, 3, 1)}", "abcdef", 6);
	CHECK(ingot_tensor_parse_npy(buf, n, &t, err, sizeof err) == 0);
	if (t.data) {
		CHECK(t.dtype == INGOT_DT_F16 && t.rank == 3 && t.dims[1] == 3 && t.bytes == 6);
		ingot_tensor_free(&t);
	}
	n = npy_make(buf, 1, "{'descr': '>u1', 'fortran_order': False, 'shape': (2, 0), }", "", 0);
	CHECK(ingot_tensor_parse(buf, n, &t, err, sizeof err) == 0);
	if (t.data) {
		CHECK(t.dtype == INGOT_DT_U8 && t.rank == 2 && t.bytes == 0);
		ingot_tensor_free(&t);
	}

#define NPY_ERR(major, hdr, data, nd, want) \
	do { n = npy_make(buf, major, hdr, data, nd); expect_err(buf, n, want, __LINE__); } while (0)
	NPY_ERR(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", be, 0, "Fortran order");
	NPY_ERR(1, "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", be, 8, "descr '<c8' is not supported");
	NPY_ERR(1, "{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", be, 8, "descr '|O'");
	NPY_ERR(1, "{'descr': '=f4', 'fortran_order': False, 'shape': (1,), }", be, 4, "no byte order");
	NPY_ERR(1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", be, 4, "structured");
	NPY_ERR(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", be, 8, "data has 8 bytes, expected 12");
	NPY_ERR(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", be, 8, "data has 8 bytes, expected 4");
	NPY_ERR(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1), }", be, 4, "more than 8 dims");
	NPY_ERR(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", be, 4, "bad dim");
	NPY_ERR(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", be, 4, "over 64 bits");
	NPY_ERR(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", be, 4, "overflows");
	NPY_ERR(1, "{'descr': '<f4', 'shape': (1,), }", be, 4, "lacks");
	NPY_ERR(1, "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", be, 4, "repeated key 'descr'");
	NPY_ERR(1, "{'descr': '<f4', 'fortran_order': 0, 'shape': (1,), }", be, 4, "True or False");
	NPY_ERR(1, "{'descr': '<f4', 'fortran_order': False, 'shape': 1, }", be, 4, "not a tuple");
	NPY_ERR(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), } x", be, 4, "after the dict");
	NPY_ERR(1, "['descr']", be, 4, "not a dict");
	NPY_ERR(1, "{'descr': '<f4' 'fortran_order': False}", be, 4, "not a dict");
	NPY_ERR(1, "{'de\\scr': '<f4'}", be, 4, "bad key");
#undef NPY_ERR
	memcpy(buf, "\x93NUMPY\x04\x00\x00\x00", 10);
	expect_err(buf, 10, "unsupported .npy version 4.0", __LINE__);
	memcpy(buf, "\x93NUMPY\x01\x00\xff\x00{}", 12);
	expect_err(buf, 12, "truncated .npy header", __LINE__);
	expect_err(buf, 8, "truncated", __LINE__);
	memcpy(buf, "\x93NUMPY\x02\x00\x00\x00", 10);
	expect_err(buf, 10, "truncated .npy header", __LINE__);
	CHECK(ingot_tensor_parse_npy((const uint8_t *)"\x08\x01", 2, &t, err, sizeof err) == -1);
}

/* every strict prefix of a valid file must fail (the writer puts raw_data last) */
static void test_prefixes(const char *ext, uint8_t *file, size_t *file_len)
{
	ingot_tensor t, r;
	char path[128], err[256];
	int16_t v[6] = { 1, -2, 3, -4, 5, -6 };
	FILE *f;
	size_t n, k;
	memset(&t, 0, sizeof t);
	strcpy(t.name, "prefix");
	t.dtype = INGOT_DT_I16;
	t.rank = 2;
	t.dims[0] = 2;
	t.dims[1] = 3;
	t.bytes = sizeof v;
	t.data = v;
	snprintf(path, sizeof path, "%s/prefix%s", tmpdir, ext);
	CHECK(ingot_tensor_write(path, &t, err, sizeof err) == 0);
	f = fopen(path, "rb");
	CHECK(f, "cannot open %s", path);
	if (!f)
		return;
	n = fread(file, 1, 4096, f);
	fclose(f);
	remove(path);
	*file_len = n;
	CHECK(ingot_tensor_parse(file, n, &r, err, sizeof err) == 0);
	ingot_tensor_free(&r);
	for (k = 0; k < n; k++)
		expect_err(file, k, NULL, __LINE__);
}

/* string_data into zero-padded INGOT_STRING_CAP slots, and back out of a .pb file
 * (not .npy) */
static void test_strings(void)
{
	Buf b;
	ingot_tensor t, u;
	char path[128], err[256];
	const int64_t d2[1] = { 3 };
	memset(&b, 0, sizeof b);
	dims_unpacked(&b, 1, d2);
	field_varint(&b, 2, INGOT_DT_STRING);
	field_bytes(&b, 6, "hi", 2);
	field_bytes(&b, 6, "", 0);
	field_bytes(&b, 6, "\xc3\xa9t\xc3\xa9", 5);
	if (!parse_ok(&b, &t, __LINE__))
		return;
	CHECK(t.dtype == INGOT_DT_STRING && t.rank == 1 && t.dims[0] == 3);
	CHECK(t.bytes == 3 * INGOT_STRING_CAP);
	CHECK(strcmp((char *)t.data, "hi") == 0 && ((char *)t.data)[INGOT_STRING_CAP] == 0);
	CHECK(strcmp((char *)t.data + 2 * INGOT_STRING_CAP, "\xc3\xa9t\xc3\xa9") == 0);
	CHECK(((char *)t.data)[INGOT_STRING_CAP - 1] == 0);   /* zero-padded */
	snprintf(path, sizeof path, "%s/s.pb", tmpdir);
	CHECK(ingot_tensor_write(path, &t, err, sizeof err) == 0);
	CHECK(ingot_tensor_read(path, &u, err, sizeof err) == 0);
	CHECK(u.bytes == t.bytes && memcmp(u.data, t.data, t.bytes) == 0);
	ingot_tensor_free(&u);
	snprintf(path, sizeof path, "%s/s.npy", tmpdir);
	CHECK(ingot_tensor_write(path, &t, err, sizeof err) == -1 && strstr(err, ".pb only"));
	ingot_tensor_free(&t);
}

static void test_write_errors(void)
{
	ingot_tensor t;
	char path[128], err[256];
	uint8_t d[8] = { 0 };
	memset(&t, 0, sizeof t);
	snprintf(path, sizeof path, "%s/w.pb", tmpdir);
	t.dtype = INGOT_DT_STRING;
	t.data = d;
	t.bytes = 8;
	CHECK(ingot_tensor_write(path, &t, err, sizeof err) == -1 &&
	      strstr(err, "8 bytes, its dims need 64"));
	t.dtype = INGOT_DT_F32;
	CHECK(ingot_tensor_write(path, &t, err, sizeof err) == -1 && strstr(err, "8 bytes, its dims need 4"));
	t.rank = 9;
	CHECK(ingot_tensor_write(path, &t, err, sizeof err) == -1 && strstr(err, "rank 9"));
	t.rank = 1;
	t.dims[0] = -2;
	CHECK(ingot_tensor_write(path, &t, err, sizeof err) == -1 && strstr(err, "negative"));
	t.dims[0] = 2;
	t.data = NULL;
	CHECK(ingot_tensor_write(path, &t, err, sizeof err) == -1 && strstr(err, "no data"));
	t.data = d;
	CHECK(ingot_tensor_write("/nonexistent/dir/w.npy", &t, err, sizeof err) == -1 &&
	      strstr(err, "cannot create"));
	CHECK(ingot_tensor_write(path, NULL, err, sizeof err) == -1);
	CHECK(ingot_tensor_write(NULL, &t, err, sizeof err) == -1);
	CHECK(ingot_tensor_write(path, &t, err, sizeof err) == 0);
	remove(path);
	CHECK(strcmp(ingot_tensor_dtype_name(INGOT_DT_BF16), "bfloat16") == 0);
	CHECK(strcmp(ingot_tensor_dtype_name(77), "unknown") == 0);
	CHECK(ingot_tensor_elem_size(INGOT_DT_C64) == 0);
}

/* mutations of valid files through the fuzz target (which aborts on a broken invariant) */
static void fuzz(const uint8_t *const seeds[], const size_t seed_len[], int n_seeds, long iters)
{
	static uint8_t m[8192];
	for (long it = 0; it < iters; it++) {
		const uint8_t *s = seeds[it % n_seeds];
		size_t n = seed_len[it % n_seeds], k, edits = 1 + rnd() % 4;
		memcpy(m, s, n);
		for (k = 0; k < edits; k++) {
			size_t at = n ? rnd() % n : 0;
			switch (rnd() % 7) {
			case 0: if (n) m[at] ^= (uint8_t)(1u << (rnd() % 8)); break;
			case 1: if (n) m[at] = (uint8_t)rnd(); break;
			case 2: if (n) m[at] = (uint8_t)(rnd() % 2 ? 0xff : 0x80); break;
			case 3: n = at; break;                            /* truncate */
			case 4: if (n < sizeof m - 1) {                   /* insert */
					memmove(m + at + 1, m + at, n - at);
					m[at] = (uint8_t)rnd();
					n++;
				}
				break;
			case 5: if (n) { memmove(m + at, m + at + 1, n - at - 1); n--; } break;
			default: if (n) m[at] = (uint8_t)(m[at] + (rnd() % 2 ? 1 : 0xff)); break;
			}
		}
		LLVMFuzzerTestOneInput(m, n);
	}
	for (long it = 0; it < iters / 10; it++) {           /* plain random bytes */
		size_t n = rnd() % 64, k;
		for (k = 0; k < n; k++)
			m[k] = (uint8_t)rnd();
		LLVMFuzzerTestOneInput(m, n);
	}
}

/* the 8-bit floats (FLOAT8E8M0 too) keep their bytes; INT4, UINT4 and FLOAT4E2M1 files
 * pack two elements per byte (the first in the low nibble), INT2 and UINT2 four (the
 * first in the lowest bits); tensors hold one per byte */
static void test_small_types(void)
{
	static const int small[] = { INGOT_DT_F8E4M3FN, INGOT_DT_F8E4M3FNUZ, INGOT_DT_F8E5M2,
	                             INGOT_DT_F8E5M2FNUZ, INGOT_DT_U4, INGOT_DT_I4,
	                             INGOT_DT_F4E2M1, INGOT_DT_F8E8M0, INGOT_DT_U2, INGOT_DT_I2 };
	ingot_tensor t, r;
	Buf b;
	char path[128], err[256] = "";
	for (size_t k = 0; k < sizeof small / sizeof small[0]; k++) {
		int dt = small[k];
		memset(&t, 0, sizeof t);
		t.dtype = dt;
		t.rank = 1;
		t.dims[0] = 7;                  /* odd: the last byte of a 4-bit file is half used */
		t.bytes = 7;
		t.data = malloc(7);
		for (int i = 0; i < 7; i++) {
			uint8_t v = (uint8_t)rnd();
			((uint8_t *)t.data)[i] = dt == INGOT_DT_I4 ? (uint8_t)((int8_t)(v << 4) >> 4)
			                         : dt == INGOT_DT_U4 || dt == INGOT_DT_F4E2M1 ? v & 0xfu
			                         : dt == INGOT_DT_I2 ? (uint8_t)((int8_t)(v << 6) >> 6)
			                         : dt == INGOT_DT_U2 ? v & 0x3u : v;
		}
		CHECK(ingot_tensor_elem_size(dt) == 1);
		snprintf(path, sizeof path, "%s/small.pb", tmpdir);
		CHECK(ingot_tensor_write(path, &t, err, sizeof err) == 0);
		if (ingot_tensor_read(path, &r, err, sizeof err) == 0) {
			CHECK(r.dtype == dt && r.bytes == 7 && memcmp(r.data, t.data, 7) == 0);
			ingot_tensor_free(&r);
		} else {
			CHECK(0, "read back dtype %d: %s", dt, err);
		}
		{
			FILE *f = fopen(path, "rb");
			long size = 0;
			if (f && fseek(f, 0, SEEK_END) == 0)
				size = ftell(f);
			if (f)
				fclose(f);
			/* dims 2 + dtype 2 + raw_data 2 + 7 bytes, or 4 or 2 packed ones */
			CHECK(size == (dt == INGOT_DT_U2 || dt == INGOT_DT_I2 ? 8
			               : ingot_dtype_pack(dt) == 2 ? 10 : 13));
		}
		remove(path);
		free(t.data);
	}
	/* raw_data 0x8f 0x07 holds INT4 -1, -8, 7 */
	memset(&b, 0, sizeof b);
	field_varint(&b, 1, 3);
	field_varint(&b, 2, INGOT_DT_I4);
	field_bytes(&b, 9, "\x8f\x07", 2);
	if (parse_ok(&b, &t, __LINE__)) {
		const int8_t *v = (const int8_t *)t.data;
		CHECK(t.bytes == 3 && v[0] == -1 && v[1] == -8 && v[2] == 7);
		ingot_tensor_free(&t);
	}
	/* int32_data: one packed byte per value, UINT4 1, 2, 3 */
	memset(&b, 0, sizeof b);
	field_varint(&b, 1, 3);
	field_varint(&b, 2, INGOT_DT_U4);
	field_varint(&b, 5, 0x21);
	field_varint(&b, 5, 0x03);
	if (parse_ok(&b, &t, __LINE__)) {
		const uint8_t *v = (const uint8_t *)t.data;
		CHECK(t.bytes == 3 && v[0] == 1 && v[1] == 2 && v[2] == 3);
		ingot_tensor_free(&t);
	}
	/* three INT4 elements need two bytes, not three */
	memset(&b, 0, sizeof b);
	field_varint(&b, 1, 3);
	field_varint(&b, 2, INGOT_DT_I4);
	field_bytes(&b, 9, "\x8f\x07\x01", 3);
	EXPECT_ERR(&b, "expected 2");
	/* raw_data 0x1b 0x02 holds INT2 -1, -2, 1, 0, -2 (int32_data: UINT2 3, 2, 1, 0, 2) */
	memset(&b, 0, sizeof b);
	field_varint(&b, 1, 5);
	field_varint(&b, 2, INGOT_DT_I2);
	field_bytes(&b, 9, "\x1b\x02", 2);
	if (parse_ok(&b, &t, __LINE__)) {
		const int8_t *v = (const int8_t *)t.data;
		CHECK(t.bytes == 5 && v[0] == -1 && v[1] == -2 && v[2] == 1 && v[3] == 0 && v[4] == -2);
		ingot_tensor_free(&t);
	}
	memset(&b, 0, sizeof b);
	field_varint(&b, 1, 5);
	field_varint(&b, 2, INGOT_DT_U2);
	field_varint(&b, 5, 0x1b);
	field_varint(&b, 5, 0x02);
	if (parse_ok(&b, &t, __LINE__)) {
		const uint8_t *v = (const uint8_t *)t.data;
		CHECK(t.bytes == 5 && v[0] == 3 && v[1] == 2 && v[2] == 1 && v[3] == 0 && v[4] == 2);
		ingot_tensor_free(&t);
	}
	/* five UINT2 elements need two bytes, not one */
	memset(&b, 0, sizeof b);
	field_varint(&b, 1, 5);
	field_varint(&b, 2, INGOT_DT_U2);
	field_bytes(&b, 9, "\x1b", 1);
	EXPECT_ERR(&b, "expected 2");
	/* FLOAT8E8M0: 2^(code - 127), 0xff NaN */
	CHECK(ingot_small_to_f32(INGOT_DT_F8E8M0, 127) == 1.0f);
	CHECK(ingot_small_to_f32(INGOT_DT_F8E8M0, 254) == 0x1p127f);
	CHECK(ingot_small_to_f32(INGOT_DT_F8E8M0, 0) == 0x1p-127f);
	CHECK(ingot_small_to_f32(INGOT_DT_F8E8M0, 255) != ingot_small_to_f32(INGOT_DT_F8E8M0, 255));
	/* FLOAT8E4M3FN keeps one byte per element in raw_data */
	memset(&b, 0, sizeof b);
	field_varint(&b, 1, 2);
	field_varint(&b, 2, INGOT_DT_F8E4M3FN);
	field_bytes(&b, 9, "\x38\xfe", 2);
	if (parse_ok(&b, &t, __LINE__)) {
		const uint8_t *v = (const uint8_t *)t.data;
		CHECK(t.bytes == 2 && v[0] == 0x38 && v[1] == 0xfe);
		CHECK(ingot_small_to_f32(INGOT_DT_F8E4M3FN, v[0]) == 1.0f);
		CHECK(ingot_small_to_f32(INGOT_DT_F8E4M3FN, v[1]) == -448.0f);
		ingot_tensor_free(&t);
	}
}

int main(int argc, char **argv)
{
	static uint8_t pb[4096], npy[4096];
	size_t pb_len = 0, npy_len = 0;
	long iters = argc > 1 ? atol(argv[1]) : 200000;
	strcpy(tmpdir, "/tmp/ingot-tio-XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_roundtrip();
	test_npy_layout();
	test_pb_fields();
	test_pb_errors();
	test_npy();
	test_strings();
	test_small_types();
	test_write_errors();
	test_prefixes(".pb", pb, &pb_len);
	test_prefixes(".npy", npy, &npy_len);
	{
		Buf g;
		const uint8_t *seeds[3];
		size_t lens[3];
		memset(&g, 0, sizeof g);             /* typed fields and a group, for the fuzzer */
		field_varint(&g, 1, 3); field_varint(&g, 2, INGOT_DT_I64);
		key(&g, 7, 2); varint(&g, 11); for (int i = 0; i < 9; i++) put(&g, 0xff);
		put(&g, 1); put(&g, 5);
		field_varint(&g, 7, 3);
		key(&g, 50, 3); key(&g, 4, 5); fixed(&g, 0, 4); key(&g, 50, 4);
		seeds[0] = pb; lens[0] = pb_len;
		seeds[1] = npy; lens[1] = npy_len;
		seeds[2] = g.b; lens[2] = g.n;
		{
			ingot_tensor t;
			char err[256];
			CHECK(ingot_tensor_parse(g.b, g.n, &t, err, sizeof err) == 0);
			CHECK(t.bytes == 24 && ((const int64_t *)t.data)[0] == -1 &&
			      ((const int64_t *)t.data)[2] == 3);
			ingot_tensor_free(&t);
		}
		fuzz(seeds, lens, 3, iters);
	}
	rmdir(tmpdir);
	return harness_done("tensor_io");
}
