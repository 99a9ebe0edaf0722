/* ingot_tensor_io.c — reads and writes tensors as ONNX TensorProto (.pb) and numpy
 * (.npy) files: the runner of every generated executable, `ingot check` and --bind.
 * Hosted C99. Files are untrusted: a small hand-written protobuf wire decoder (no
 * protobuf-c here, the runner must build alone) checks every size in 64-bit
 * arithmetic and answers any input with a status and a one-line reason.
 *
 * A runner `#define INGOT_TENSOR_IO_API static` and #includes this file, so every
 * function here is marked unused-safe and every file-level name starts with tio_/TIO_.
 * Data is kept as the little-endian bytes of the files, on any host: typed protobuf
 * fields are stored byte by byte, never through a host-order integer copy.
 */
#include "ingot_tensor_io.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#define TIO_FMT(a, b) __attribute__((format(printf, a, b)))
#else
#define TIO_FMT(a, b)
#endif
#define TIO_FN static INGOT_UNUSED
#define TIO_API INGOT_TENSOR_IO_API INGOT_UNUSED
#define TIO_MAX_GROUP_DEPTH 64

typedef unsigned long long tio_ull;

TIO_FN TIO_FMT(3, 4) int tio_fail(char *err, size_t cap, const char *fmt, ...)
{
	va_list ap;
	char *c;
	if (err && cap) {
		va_start(ap, fmt);
		vsnprintf(err, cap, fmt, ap);
		va_end(ap);
		for (c = err; *c; c++)         /* one line, whatever the file held */
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				*c = '?';
	}
	return -1;
}

TIO_API size_t ingot_tensor_elem_size(int dtype)
{
	switch (dtype) {
	case INGOT_DT_U8: case INGOT_DT_I8: case INGOT_DT_BOOL:
	case INGOT_DT_F8E4M3FN: case INGOT_DT_F8E4M3FNUZ: case INGOT_DT_F8E5M2:
	case INGOT_DT_F8E5M2FNUZ: case INGOT_DT_U4: case INGOT_DT_I4: case INGOT_DT_F4E2M1:
	case INGOT_DT_F8E8M0: case INGOT_DT_U2: case INGOT_DT_I2:
		return 1;         /* the 4- and 2-bit types unpacked, one element per byte */
	case INGOT_DT_U16: case INGOT_DT_I16: case INGOT_DT_F16: case INGOT_DT_BF16:
		return 2;
	case INGOT_DT_F32: case INGOT_DT_I32: case INGOT_DT_U32:
		return 4;
	case INGOT_DT_I64: case INGOT_DT_U64: case INGOT_DT_F64:
		return 8;
	case INGOT_DT_STRING:
		return INGOT_STRING_CAP;
	default:
		return 0;
	}
}

TIO_API const char *ingot_tensor_dtype_name(int dtype)
{
	/* ORDER DTYPE: numpy's names, which users of .npy files know */
	static const char *const names[] = {
		"undefined", "float32", "uint8", "int8", "uint16", "int16", "int32", "int64",
		"string", "bool", "float16", "float64", "uint32", "uint64", "complex64",
		"complex128", "bfloat16", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2",
		"float8_e5m2fnuz", "uint4", "int4", "float4_e2m1fn", "float8_e8m0fnu", "uint2", "int2"
	};
	if (dtype < 0 || dtype > INGOT_DT_I2)
		return "unknown";
	return names[dtype];
}

/* "float32[2,3]" for messages; truncated silently, it is only text */
TIO_API void ingot_tensor_shape_str(char *s, size_t cap, int dtype, int rank, const int64_t *dims)
{
	size_t pos = 0;
	int i, n = snprintf(s, cap, "%s[", ingot_tensor_dtype_name(dtype));
	if (n < 0 || (size_t)n >= cap)
		return;
	pos = (size_t)n;
	for (i = 0; i < rank; i++) {
		n = snprintf(s + pos, cap - pos, i ? ",%lld" : "%lld", (long long)dims[i]);
		if (n < 0 || (size_t)n >= cap - pos)
			return;
		pos += (size_t)n;
	}
	snprintf(s + pos, cap - pos, "]");
}

/* bytes = product(dims) * esize, rejecting negative dims and any overflow of
 * int64 or size_t. A zero dim makes the tensor empty whatever the other dims. */
TIO_FN int tio_size(int rank, const int64_t *dims, size_t esize, size_t *bytes,
                    char *err, size_t cap)
{
	uint64_t n = 1, b;
	int i, zero = 0;
	*bytes = 0;
	if (rank < 0 || rank > INGOT_MAX_RANK)
		return tio_fail(err, cap, "rank %d is outside 0..%d", rank, INGOT_MAX_RANK);
	for (i = 0; i < rank; i++) {
		if (dims[i] < 0)
			return tio_fail(err, cap, "dim %d is negative (%lld)", i, (long long)dims[i]);
		if (dims[i] == 0)
			zero = 1;
	}
	if (zero)
		return 0;
	for (i = 0; i < rank; i++) {
		uint64_t d = (uint64_t)dims[i];
		if (n > (uint64_t)INT64_MAX / d)
			return tio_fail(err, cap, "element count overflows 64 bits");
		n *= d;
	}
	if (esize == 0 || n > (uint64_t)INT64_MAX / esize)
		return tio_fail(err, cap, "tensor of %llu elements is too large", (tio_ull)n);
	b = n * esize;
	if ((uint64_t)(size_t)b != b)
		return tio_fail(err, cap, "tensor of %llu bytes does not fit in memory", (tio_ull)b);
	*bytes = (size_t)b;
	return 0;
}

TIO_FN void tio_reset(ingot_tensor *t)
{
	memset(t, 0, sizeof *t);
}

/* ------------------------------------------------------------------------------
 * TensorProto: the protobuf wire format, decoded in two passes over the buffer.
 * The first validates everything and counts the values of each typed field, the
 * second decodes only the field the dtype selects into an exactly sized buffer.
 */

typedef struct TioRd {
	const uint8_t *p, *end, *base;     /* base: start of the file, for byte offsets */
} TioRd;

enum {
	TIO_F_DIMS = 1, TIO_F_DATA_TYPE = 2, TIO_F_SEGMENT = 3, TIO_F_FLOAT = 4,
	TIO_F_INT32 = 5, TIO_F_STRING = 6, TIO_F_INT64 = 7, TIO_F_NAME = 8, TIO_F_RAW = 9,
	TIO_F_DOUBLE = 10, TIO_F_UINT64 = 11, TIO_F_DOC = 12, TIO_F_EXTERNAL = 13,
	TIO_F_LOCATION = 14, TIO_F_COUNT = 15
};

typedef struct TioPb {
	int have_dtype;
	uint64_t dtype;
	int rank;
	int64_t dims[INGOT_MAX_RANK];
	uint64_t count[TIO_F_COUNT];       /* values seen per typed field number */
	int have_raw;
	const uint8_t *raw;
	size_t raw_len;
	char name[256];
	/* second pass */
	int fill;                          /* the typed field decoded into out; 0 in pass 1 */
	uint8_t *out;
	size_t esize;
	int is_bool;
	uint64_t n_out, max_out;
} TioPb;

TIO_FN const char *tio_field_name(uint64_t field)
{
	switch (field) {
	case TIO_F_DIMS: return "dims";
	case TIO_F_DATA_TYPE: return "data_type";
	case TIO_F_FLOAT: return "float_data";
	case TIO_F_INT32: return "int32_data";
	case TIO_F_INT64: return "int64_data";
	case TIO_F_NAME: return "name";
	case TIO_F_RAW: return "raw_data";
	case TIO_F_DOUBLE: return "double_data";
	case TIO_F_STRING: return "string_data";
	case TIO_F_UINT64: return "uint64_data";
	case TIO_F_LOCATION: return "data_location";
	default: return "field";
	}
}

TIO_FN tio_ull tio_off(const TioRd *r, const uint8_t *p)
{
	return (tio_ull)(p - r->base);
}

TIO_FN int tio_varint(TioRd *r, uint64_t *v, char *err, size_t cap)
{
	const uint8_t *start = r->p;
	uint64_t x = 0;
	unsigned shift = 0;
	for (;;) {
		uint8_t b;
		if (r->p >= r->end)
			return tio_fail(err, cap, "truncated varint at byte %llu", tio_off(r, start));
		b = *r->p++;
		if (shift == 63 && b > 1)
			return tio_fail(err, cap, "varint longer than 64 bits at byte %llu",
			                tio_off(r, start));
		x |= (uint64_t)(b & 0x7fu) << shift;
		if (!(b & 0x80u))
			break;
		shift += 7;
	}
	*v = x;
	return 0;
}

/* little-endian fixed-width value of w bytes (4 or 8) */
TIO_FN int tio_fixed(TioRd *r, unsigned w, uint64_t *v, char *err, size_t cap)
{
	uint64_t x = 0;
	unsigned i;
	if ((size_t)(r->end - r->p) < w)
		return tio_fail(err, cap, "truncated %u-byte value at byte %llu", w, tio_off(r, r->p));
	for (i = 0; i < w; i++)
		x |= (uint64_t)r->p[i] << (8 * i);
	r->p += w;
	*v = x;
	return 0;
}

/* the payload of a length-delimited field, as a sub-reader */
TIO_FN int tio_bytes(TioRd *r, uint64_t field, TioRd *sub, char *err, size_t cap)
{
	const uint8_t *start = r->p;
	uint64_t n;
	if (tio_varint(r, &n, err, cap))
		return -1;
	if (n > (uint64_t)(r->end - r->p))
		return tio_fail(err, cap, "truncated field %llu at byte %llu: length %llu, %llu bytes left",
		                (tio_ull)field, tio_off(r, start), (tio_ull)n,
		                (tio_ull)(r->end - r->p));
	sub->p = r->p;
	sub->end = r->p + (size_t)n;
	sub->base = r->base;
	r->p = sub->end;
	return 0;
}

/* skips one field of an unknown number; groups (deprecated, never in ONNX files)
 * are skipped up to a fixed nesting depth, without recursion */
TIO_FN int tio_skip(TioRd *r, uint64_t field, unsigned wire, char *err, size_t cap)
{
	uint64_t stack[TIO_MAX_GROUP_DEPTH], key, v;
	int depth = 0;
	TioRd sub;
	for (;;) {
		switch (wire) {
		case 0:
			if (tio_varint(r, &v, err, cap))
				return -1;
			break;
		case 1:
			if (tio_fixed(r, 8, &v, err, cap))
				return -1;
			break;
		case 2:
			if (tio_bytes(r, field, &sub, err, cap))
				return -1;
			break;
		case 5:
			if (tio_fixed(r, 4, &v, err, cap))
				return -1;
			break;
		case 3:
			if (depth == TIO_MAX_GROUP_DEPTH)
				return tio_fail(err, cap, "groups nested deeper than %d at byte %llu",
				                TIO_MAX_GROUP_DEPTH, tio_off(r, r->p));
			stack[depth++] = field;
			break;
		case 4:
			if (depth == 0 || stack[depth - 1] != field)
				return tio_fail(err, cap, "unmatched end of group %llu before byte %llu",
				                (tio_ull)field, tio_off(r, r->p));
			depth--;
			break;
		default:
			return tio_fail(err, cap, "invalid wire type %u before byte %llu", wire,
			                tio_off(r, r->p));
		}
		if (depth == 0)
			return 0;
		if (tio_varint(r, &key, err, cap))
			return -1;
		field = key >> 3;
		wire = (unsigned)(key & 7u);
		if (field == 0)
			return tio_fail(err, cap, "field number 0 before byte %llu", tio_off(r, r->p));
	}
}

TIO_FN void tio_value(TioPb *s, uint64_t field, uint64_t v)
{
	if (s->fill == 0) {
		s->count[field]++;
	} else if ((uint64_t)s->fill == field && s->n_out < s->max_out) {
		uint8_t *o = s->out + (size_t)s->n_out * s->esize;
		size_t i;
		if (s->is_bool)
			v = v != 0;
		for (i = 0; i < s->esize; i++)
			o[i] = (uint8_t)(v >> (8 * i));
		s->n_out++;
	}
}

/* float_data, int32_data, int64_data, double_data, uint64_data: one value per field
 * (unpacked) or a packed run of values */
TIO_FN int tio_typed(TioPb *s, TioRd *r, uint64_t field, unsigned wire, char *err, size_t cap)
{
	unsigned single = (field == TIO_F_FLOAT) ? 5u : (field == TIO_F_DOUBLE) ? 1u : 0u;
	unsigned w = (single == 5u) ? 4u : 8u;
	uint64_t v;
	TioRd sub;
	if (wire == single) {
		if (single ? tio_fixed(r, w, &v, err, cap) : tio_varint(r, &v, err, cap))
			return -1;
		tio_value(s, field, v);
		return 0;
	}
	if (wire != 2)
		return tio_fail(err, cap, "%s has wire type %u, expected %u or 2",
		                tio_field_name(field), wire, single);
	if (tio_bytes(r, field, &sub, err, cap))
		return -1;
	if (single && (size_t)(sub.end - sub.p) % w)
		return tio_fail(err, cap, "packed %s of %llu bytes is not a multiple of %u",
		                tio_field_name(field), (tio_ull)(sub.end - sub.p), w);
	while (sub.p < sub.end) {
		if (single ? tio_fixed(&sub, w, &v, err, cap) : tio_varint(&sub, &v, err, cap))
			return -1;
		tio_value(s, field, v);
	}
	return 0;
}

/* string_data: one length-delimited field per element; pass 1 checks that each fits
 * a slot (INGOT_STRING_CAP - 1 bytes, no NUL inside), pass 2 copies it into its slot
 * (the buffer is zeroed, so slots are NUL-padded) */
TIO_FN int tio_string(TioPb *s, TioRd *r, unsigned wire, char *err, size_t cap)
{
	TioRd sub;
	size_t n;
	if (wire != 2)
		return tio_fail(err, cap, "string_data has wire type %u, expected 2", wire);
	if (tio_bytes(r, TIO_F_STRING, &sub, err, cap))
		return -1;
	n = (size_t)(sub.end - sub.p);
	if (s->fill == 0) {
		if (n > INGOT_STRING_CAP - 1)
			return tio_fail(err, cap, "string element %llu has %llu bytes, at most %d fit "
			                "(INGOT_STRING_CAP)", (tio_ull)s->count[TIO_F_STRING], (tio_ull)n,
			                INGOT_STRING_CAP - 1);
		if (n && memchr(sub.p, 0, n))
			return tio_fail(err, cap, "string element %llu holds a NUL byte",
			                (tio_ull)s->count[TIO_F_STRING]);
		s->count[TIO_F_STRING]++;
	} else if (s->n_out < s->max_out) {
		if (n)
			memcpy(s->out + (size_t)s->n_out * INGOT_STRING_CAP, sub.p, n);
		s->n_out++;
	}
	return 0;
}

TIO_FN int tio_dim(TioPb *s, uint64_t v, char *err, size_t cap)
{
	if (s->rank == INGOT_MAX_RANK)
		return tio_fail(err, cap, "more than %d dims", INGOT_MAX_RANK);
	if (v > (uint64_t)INT64_MAX)
		return tio_fail(err, cap, "dim %d is negative", s->rank);
	s->dims[s->rank++] = (int64_t)v;
	return 0;
}

TIO_FN int tio_pb_scan(TioPb *s, const uint8_t *buf, size_t len, char *err, size_t cap)
{
	TioRd r, sub;
	r.p = buf;
	r.end = buf + len;
	r.base = buf;
	while (r.p < r.end) {
		const uint8_t *at = r.p;
		uint64_t key, field, v;
		unsigned wire;
		if (tio_varint(&r, &key, err, cap))
			return -1;
		field = key >> 3;
		wire = (unsigned)(key & 7u);
		if (field == 0 || field > 0x1fffffffu)
			return tio_fail(err, cap, "invalid field number %llu at byte %llu",
			                (tio_ull)field, tio_off(&r, at));
		if (s->fill) {                 /* pass 2: everything was validated */
			if (field != (uint64_t)s->fill ? tio_skip(&r, field, wire, err, cap)
			    : field == TIO_F_STRING ? tio_string(s, &r, wire, err, cap)
			    : tio_typed(s, &r, field, wire, err, cap))
				return -1;
			continue;
		}
		switch (field) {
		case TIO_F_DIMS:
			if (wire == 0) {
				if (tio_varint(&r, &v, err, cap) || tio_dim(s, v, err, cap))
					return -1;
			} else if (wire == 2) {
				if (tio_bytes(&r, field, &sub, err, cap))
					return -1;
				while (sub.p < sub.end)
					if (tio_varint(&sub, &v, err, cap) || tio_dim(s, v, err, cap))
						return -1;
			} else {
				return tio_fail(err, cap, "dims has wire type %u at byte %llu", wire,
				                tio_off(&r, at));
			}
			break;
		case TIO_F_DATA_TYPE:
			if (wire != 0)
				return tio_fail(err, cap, "data_type has wire type %u at byte %llu", wire,
				                tio_off(&r, at));
			if (tio_varint(&r, &s->dtype, err, cap))
				return -1;
			s->have_dtype = 1;
			break;
		case TIO_F_FLOAT: case TIO_F_INT32: case TIO_F_INT64: case TIO_F_DOUBLE:
		case TIO_F_UINT64:
			if (tio_typed(s, &r, field, wire, err, cap))
				return -1;
			break;
		case TIO_F_STRING:
			if (tio_string(s, &r, wire, err, cap))
				return -1;
			break;
		case TIO_F_NAME:
		case TIO_F_RAW:
			if (wire != 2)
				return tio_fail(err, cap, "%s has wire type %u at byte %llu",
				                tio_field_name(field), wire, tio_off(&r, at));
			if (tio_bytes(&r, field, &sub, err, cap))
				return -1;
			if (field == TIO_F_RAW) {  /* the last occurrence wins, as in protobuf */
				s->have_raw = 1;
				s->raw = sub.p;
				s->raw_len = (size_t)(sub.end - sub.p);
			} else {                   /* longer names are cut: only messages use them */
				size_t n = (size_t)(sub.end - sub.p);
				if (n > sizeof s->name - 1)
					n = sizeof s->name - 1;
				memcpy(s->name, sub.p, n);
				s->name[n] = '\0';
			}
			break;
		case TIO_F_EXTERNAL:
			return tio_fail(err, cap, "tensors with external data are not supported");
		case TIO_F_LOCATION:
			if (wire != 0)
				return tio_fail(err, cap, "data_location has wire type %u at byte %llu",
				                wire, tio_off(&r, at));
			if (tio_varint(&r, &v, err, cap))
				return -1;
			if (v != 0)
				return tio_fail(err, cap, "data_location %llu (external data) is not supported",
				                (tio_ull)v);
			break;
		default:                       /* segment, doc_string, newer fields */
			if (tio_skip(&r, field, wire, err, cap))
				return -1;
			break;
		}
	}
	return 0;
}

/* which typed field carries the values of a dtype (onnx.proto's comments) */
TIO_FN int tio_typed_field(int dtype)
{
	switch (dtype) {
	case INGOT_DT_F32: return TIO_F_FLOAT;
	case INGOT_DT_I64: return TIO_F_INT64;
	case INGOT_DT_F64: return TIO_F_DOUBLE;
	case INGOT_DT_U32: case INGOT_DT_U64: return TIO_F_UINT64;
	case INGOT_DT_STRING: return TIO_F_STRING;
	default: return TIO_F_INT32;       /* int32 and narrower, bool, float16, bfloat16 */
	}
}

/* A packed 4- or 2-bit tensor (ingot_dtype_is_packed): raw_data, or one byte per
 * int32_data value, holds two or four elements a byte. */
TIO_FN int tio_parse_packed(TioPb *s, const uint8_t *buf, size_t len, ingot_tensor *t,
                             uint64_t numel, const char *shape, char *err, size_t cap)
{
	uint64_t k = (uint64_t)ingot_dtype_pack((int64_t)s->dtype);
	uint64_t packed = (numel + k - 1) / k, have = s->have_raw ? s->raw_len : s->count[TIO_F_INT32];
	uint8_t *bytes4 = NULL;
	const uint8_t *src;
	if (s->have_raw && s->count[TIO_F_INT32])
		return tio_fail(err, cap, "both raw_data and int32_data are set");
	if (have != packed)
		return tio_fail(err, cap, "%s has %llu bytes, expected %llu (%d %d-bit elements each) "
		                "for %s", s->have_raw ? "raw_data" : "int32_data", (tio_ull)have,
		                (tio_ull)packed, (int)k, (int)(8 / k), shape);
	t->data = malloc(numel ? numel : 1);
	if (!t->data || !(bytes4 = malloc(packed ? packed : 1))) {
		free(t->data);
		tio_reset(t);
		return tio_fail(err, cap, "out of memory (%llu bytes)", (tio_ull)numel);
	}
	src = s->raw;
	if (!s->have_raw && packed) {
		s->fill = TIO_F_INT32;
		s->out = bytes4;
		s->esize = 1;
		s->max_out = packed;
		if (tio_pb_scan(s, buf, len, err, cap) || s->n_out != packed) {
			free(bytes4);
			free(t->data);
			tio_reset(t);
			return tio_fail(err, cap, "internal error decoding int32_data");
		}
		src = bytes4;
	}
	ingot_unpack_sub(s->dtype, src, (uint8_t *)t->data, (size_t)numel);
	free(bytes4);
	memcpy(t->name, s->name, sizeof t->name);
	t->dtype = (int)s->dtype;
	t->rank = s->rank;
	memcpy(t->dims, s->dims, sizeof t->dims);
	t->bytes = numel;
	return 0;
}

TIO_API int ingot_tensor_parse_pb(const uint8_t *buf, size_t len, ingot_tensor *t,
                                  char *err, size_t cap)
{
	static const int typed[] = { TIO_F_FLOAT, TIO_F_INT32, TIO_F_INT64, TIO_F_DOUBLE,
	                             TIO_F_UINT64, TIO_F_STRING };
	TioPb s;
	char shape[160];
	size_t esize, bytes, i;
	uint64_t numel;
	int dtype, sel;
	if (!t)
		return tio_fail(err, cap, "no tensor to read into");
	tio_reset(t);
	if (!buf) {
		if (len)
			return tio_fail(err, cap, "no buffer");
		buf = (const uint8_t *)"";    /* no arithmetic on a null pointer */
	}
	memset(&s, 0, sizeof s);
	if (tio_pb_scan(&s, buf, len, err, cap))
		return -1;
	if (!s.have_dtype || s.dtype == 0)
		return tio_fail(err, cap, "TensorProto has no data_type");
	if (s.dtype == INGOT_DT_C64 || s.dtype == INGOT_DT_C128)
		return tio_fail(err, cap, "%s tensors are not supported",
		                ingot_tensor_dtype_name((int)s.dtype));
	if (s.dtype > INGOT_DT_I2)
		return tio_fail(err, cap, "unknown data_type %llu", (tio_ull)s.dtype);
	dtype = (int)s.dtype;
	esize = ingot_tensor_elem_size(dtype);
	ingot_tensor_shape_str(shape, sizeof shape, dtype, s.rank, s.dims);
	if (tio_size(s.rank, s.dims, esize, &bytes, err, cap))
		return -1;
	numel = bytes / esize;
	if (ingot_dtype_is_packed(dtype))
		return tio_parse_packed(&s, buf, len, t, numel, shape, err, cap);
	sel = tio_typed_field(dtype);
	for (i = 0; i < sizeof typed / sizeof typed[0]; i++)
		if (typed[i] != sel && s.count[typed[i]])
			return tio_fail(err, cap, "%s given for a %s tensor",
			                tio_field_name((uint64_t)typed[i]), ingot_tensor_dtype_name(dtype));
	if (s.have_raw && dtype == INGOT_DT_STRING)
		return tio_fail(err, cap, "raw_data given for a string tensor");
	if (s.have_raw) {
		if (s.count[sel])
			return tio_fail(err, cap, "both raw_data and %s are set",
			                tio_field_name((uint64_t)sel));
		if (s.raw_len != bytes)
			return tio_fail(err, cap, "raw_data has %llu bytes, expected %llu for %s",
			                (tio_ull)s.raw_len, (tio_ull)bytes, shape);
	} else if (s.count[sel] != numel) {
		if (s.count[sel] == 0)
			return tio_fail(err, cap, "no data (raw_data or %s) for %s",
			                tio_field_name((uint64_t)sel), shape);
		return tio_fail(err, cap, "%s has %llu values, expected %llu for %s",
		                tio_field_name((uint64_t)sel), (tio_ull)s.count[sel],
		                (tio_ull)numel, shape);
	}
	t->data = dtype == INGOT_DT_STRING ? calloc(1, bytes ? bytes : 1) : malloc(bytes ? bytes : 1);
	if (!t->data)
		return tio_fail(err, cap, "out of memory (%llu bytes)", (tio_ull)bytes);
	if (s.have_raw) {
		if (bytes)
			memcpy(t->data, s.raw, bytes);
	} else if (numel) {
		s.fill = sel;
		s.out = (uint8_t *)t->data;
		s.esize = esize;
		s.is_bool = dtype == INGOT_DT_BOOL;
		s.max_out = numel;
		if (tio_pb_scan(&s, buf, len, err, cap) || s.n_out != numel) {
			free(t->data);
			tio_reset(t);
			return tio_fail(err, cap, "internal error decoding %s", tio_field_name((uint64_t)sel));
		}
	}
	memcpy(t->name, s.name, sizeof t->name);
	t->dtype = dtype;
	t->rank = s.rank;
	memcpy(t->dims, s.dims, sizeof t->dims);
	t->bytes = bytes;
	return 0;
}

/* .npy reading and writing (ingot_tensor_parse_npy, tio_write_npy): a file of its own,
 * #included here so that the whole of tensor I/O stays one translation unit. */
#include "ingot_tensor_npy.c"

TIO_API int ingot_tensor_parse(const uint8_t *buf, size_t len, ingot_tensor *t,
                               char *err, size_t cap)
{
	if (buf && len >= 6 && memcmp(buf, "\x93NUMPY", 6) == 0)
		return ingot_tensor_parse_npy(buf, len, t, err, cap);
	return ingot_tensor_parse_pb(buf, len, t, err, cap);
}

/* ------------------------------------------------------------------------------
 * Files.
 */

/* the whole file, read in growing chunks so pipes and /dev/stdin work too */
TIO_FN int tio_slurp(const char *path, uint8_t **out, size_t *len, char *err, size_t cap)
{
	FILE *f;
	uint8_t *b, *nb;
	size_t size = 1 << 16, n = 0;
	*out = NULL;
	*len = 0;
	f = fopen(path, "rb");
	if (!f)
		return tio_fail(err, cap, "cannot open: %s", strerror(errno));
	b = (uint8_t *)malloc(size);
	if (!b) {
		fclose(f);
		return tio_fail(err, cap, "out of memory");
	}
	for (;;) {
		n += fread(b + n, 1, size - n, f);
		if (n < size)
			break;
		if (size > ((size_t)-1) / 2) {
			nb = NULL;
		} else {
			size *= 2;
			nb = (uint8_t *)realloc(b, size);
		}
		if (!nb) {
			free(b);
			fclose(f);
			return tio_fail(err, cap, "file too large");
		}
		b = nb;
	}
	if (ferror(f)) {
		int e = errno;
		free(b);
		fclose(f);
		return tio_fail(err, cap, "read error: %s", strerror(e));
	}
	fclose(f);
	*out = b;
	*len = n;
	return 0;
}

TIO_API int ingot_tensor_read(const char *path, ingot_tensor *t, char *err, size_t cap)
{
	uint8_t *buf;
	size_t len;
	int rc;
	if (!t)
		return tio_fail(err, cap, "no tensor to read into");
	tio_reset(t);
	if (!path)
		return tio_fail(err, cap, "no path");
	if (tio_slurp(path, &buf, &len, err, cap))
		return -1;
	rc = ingot_tensor_parse(buf, len, t, err, cap);
	free(buf);
	return rc;
}

/* checks that the tensor describes itself consistently before writing it */
TIO_FN int tio_check(const ingot_tensor *t, char *err, size_t cap)
{
	size_t bytes;
	if (!t)
		return tio_fail(err, cap, "no tensor to write");
	if (ingot_tensor_elem_size(t->dtype) == 0)
		return tio_fail(err, cap, "cannot write %s tensors", ingot_tensor_dtype_name(t->dtype));
	if (tio_size(t->rank, t->dims, ingot_tensor_elem_size(t->dtype), &bytes, err, cap))
		return -1;
	if (bytes != t->bytes)
		return tio_fail(err, cap, "tensor has %llu bytes, its dims need %llu",
		                (tio_ull)t->bytes, (tio_ull)bytes);
	if (bytes && !t->data)
		return tio_fail(err, cap, "tensor has no data");
	return 0;
}

TIO_FN void tio_put_varint(FILE *f, uint64_t v)
{
	while (v >= 0x80u) {
		putc((int)((v & 0x7fu) | 0x80u), f);
		v >>= 7;
	}
	putc((int)v, f);
}

/* field order and encoding as onnx.save_tensor writes them (dims unpacked) */
TIO_FN void tio_write_pb(FILE *f, const ingot_tensor *t)
{
	const char *nul = (const char *)memchr(t->name, '\0', sizeof t->name);
	size_t name_len = nul ? (size_t)(nul - t->name) : sizeof t->name;
	int i;
	for (i = 0; i < t->rank; i++) {
		putc(TIO_F_DIMS << 3, f);
		tio_put_varint(f, (uint64_t)t->dims[i]);
	}
	putc(TIO_F_DATA_TYPE << 3, f);
	tio_put_varint(f, (uint64_t)t->dtype);
	if (name_len) {
		putc((TIO_F_NAME << 3) | 2, f);
		tio_put_varint(f, (uint64_t)name_len);
		fwrite(t->name, 1, name_len, f);
	}
	if (t->dtype == INGOT_DT_STRING) {  /* string_data, each up to its slot's NUL */
		size_t k;
		for (k = 0; k < t->bytes / INGOT_STRING_CAP; k++) {
			const char *e = (const char *)t->data + k * INGOT_STRING_CAP;
			const char *z = (const char *)memchr(e, '\0', INGOT_STRING_CAP);
			size_t n = z ? (size_t)(z - e) : INGOT_STRING_CAP;
			putc((TIO_F_STRING << 3) | 2, f);
			tio_put_varint(f, (uint64_t)n);
			fwrite(e, 1, n, f);
		}
		return;
	}
	putc((TIO_F_RAW << 3) | 2, f);
	if (ingot_dtype_is_packed(t->dtype)) {       /* 2 or 4 elements per byte, the first lowest */
		size_t e, nb = ingot_packed_bytes(t->dtype, t->bytes);
		uint8_t buf[64];
		tio_put_varint(f, (uint64_t)nb);
		for (e = 0; e < t->bytes; e += sizeof buf) {   /* 64 elements: 16 or 32 bytes */
			size_t m = t->bytes - e < sizeof buf ? t->bytes - e : sizeof buf;
			ingot_pack_sub(t->dtype, (const uint8_t *)t->data + e, buf, m);
			fwrite(buf, 1, ingot_packed_bytes(t->dtype, m), f);
		}
		return;
	}
	tio_put_varint(f, (uint64_t)t->bytes);
	if (t->bytes)
		fwrite(t->data, 1, t->bytes, f);
}

TIO_API int ingot_tensor_write(const char *path, const ingot_tensor *t, char *err, size_t cap)
{
	FILE *f;
	int bad;
	if (!path)
		return tio_fail(err, cap, "no path");
	if (tio_check(t, err, cap))
		return -1;
	if (t->dtype == INGOT_DT_STRING && tio_is_npy_path(path))
		return tio_fail(err, cap, "string tensors are written as .pb only, not .npy");
	f = fopen(path, "wb");
	if (!f)
		return tio_fail(err, cap, "cannot create: %s", strerror(errno));
	if (tio_is_npy_path(path))
		tio_write_npy(f, t);
	else
		tio_write_pb(f, t);
	bad = ferror(f);
	if (fclose(f) != 0 || bad)
		return tio_fail(err, cap, "write error: %s", strerror(errno));
	return 0;
}

TIO_API void ingot_tensor_free(ingot_tensor *t)
{
	if (!t)
		return;
	free(t->data);
	t->data = NULL;
	t->bytes = 0;
}

#undef TIO_FMT
#undef TIO_FN
#undef TIO_API
#undef TIO_MAX_GROUP_DEPTH
