/* onnx_scan.c — frontend, step 1: validates the raw protobuf wire format of a
 * ModelProto before protobuf-c sees it.
 *
 * protobuf-c recurses once per nested message without a depth limit and reports
 * every problem as a bare NULL, so a hostile file could overflow the stack and a
 * damaged one would get no useful message. This walk follows the generated
 * descriptors (so it knows which length-delimited fields are messages), bounds the
 * nesting at SCAN_MAX_DEPTH, and names the byte offset and the field path of the
 * first problem: truncation, lengths past the end, bad varints, wire types that do
 * not fit the field. It allocates nothing and recurses at most SCAN_MAX_DEPTH deep.
 */
#include "onnx_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define SCAN_MAX_DEPTH 64

typedef struct Scan {
	const uint8_t *base;          /* start of the file: offsets are reported from it */
	size_t len;
	const char *file;
	DiagSink *d;
	const char *path[SCAN_MAX_DEPTH + 2];   /* field names from the ModelProto down */
	int depth;
} Scan;

static int fail(Scan *s, const uint8_t *at, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

static int fail(Scan *s, const uint8_t *at, const char *fmt, ...)
{
	char msg[256], where[512];
	size_t n = 0;
	va_list ap;
	DiagLoc l = diag_loc_file(s->file);

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	where[0] = 0;
	for (int i = 0; i < s->depth && n < sizeof where; i++) {
		/* a deep path keeps its first and last few levels */
		if (s->depth > 12 && i == 4) {
			int k = snprintf(where + n, sizeof where - n, "...(%d levels)", s->depth - 8);
			n += k > 0 ? (size_t)k : 0;
			i = s->depth - 5;
			continue;
		}
		int k = snprintf(where + n, sizeof where - n, "%s%s", i ? "." : "", s->path[i]);
		if (k < 0)
			break;
		n += (size_t)k;
	}
	diag_report(s->d, DIAG_ERROR, DC_PARSE, &l, "malformed model at byte offset %zu%s%s%s: %s",
	            (size_t)(at - s->base), where[0] ? " (in " : "", where, where[0] ? ")" : "", msg);
	return -1;
}

/* Reads a varint; 0 on success, -1 (with a diagnostic) if truncated or over 10 bytes. */
static int read_varint(Scan *s, const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;
	for (int shift = 0; shift < 70; shift += 7) {
		if (p >= end)
			return fail(s, *pp, "truncated varint");
		uint8_t b = *p++;
		if (shift == 63 && (b & 0x7e))
			return fail(s, *pp, "varint overflows 64 bits");
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*pp = p;
			*out = v;
			return 0;
		}
	}
	return fail(s, *pp, "varint longer than 10 bytes");
}

/* The wire type a (non-packed) field of this type uses. */
static int wire_type_of(ProtobufCType t)
{
	switch (t) {
	case PROTOBUF_C_TYPE_SFIXED32: case PROTOBUF_C_TYPE_FIXED32: case PROTOBUF_C_TYPE_FLOAT:
		return 5;
	case PROTOBUF_C_TYPE_SFIXED64: case PROTOBUF_C_TYPE_FIXED64: case PROTOBUF_C_TYPE_DOUBLE:
		return 1;
	case PROTOBUF_C_TYPE_STRING: case PROTOBUF_C_TYPE_BYTES: case PROTOBUF_C_TYPE_MESSAGE:
		return 2;
	default:
		return 0;
	}
}

/* Checks the body of a packed repeated scalar field. */
static int scan_packed(Scan *s, const ProtobufCFieldDescriptor *f, const uint8_t *p,
                       const uint8_t *end)
{
	int wt = wire_type_of(f->type);
	size_t n = (size_t)(end - p);
	if (wt == 5 && n % 4)
		return fail(s, p, "packed field '%s' has %zu bytes, not a multiple of 4", f->name, n);
	if (wt == 1 && n % 8)
		return fail(s, p, "packed field '%s' has %zu bytes, not a multiple of 8", f->name, n);
	if (wt == 0) {
		while (p < end) {
			uint64_t v;
			if (read_varint(s, &p, end, &v))
				return -1;
		}
	}
	return 0;
}

static const char *const wire_names[8] = {
	"varint", "64-bit", "length-delimited", "start-group", "end-group", "32-bit", "6", "7"
};

static const char *label(const ProtobufCFieldDescriptor *f, uint64_t num, char *buf, size_t cap)
{
	if (f)
		snprintf(buf, cap, "'%s'", f->name);
	else
		snprintf(buf, cap, "%" PRIu64, num);
	return buf;
}

/* Scans one message body [p, end) described by desc (NULL: unknown, skip only). */
static int scan_message(Scan *s, const ProtobufCMessageDescriptor *desc, const uint8_t *p,
                        const uint8_t *end)
{
	while (p < end) {
		const uint8_t *field_start = p;
		uint64_t tag, v;
		char lab[64];
		if (read_varint(s, &p, end, &tag))
			return -1;
		uint64_t num = tag >> 3;
		int wt = (int)(tag & 7);
		if (num == 0 || num > 536870911u)
			return fail(s, field_start, "invalid field number %" PRIu64, num);
		const ProtobufCFieldDescriptor *f =
			desc ? protobuf_c_message_descriptor_get_field(desc, (unsigned)num) : NULL;
		if (wt == 3 || wt == 4 || wt > 5)
			return fail(s, field_start, "field %" PRIu64 " uses the %s wire type, which is not "
			            "valid here", num, wire_names[wt]);
		if (f) {
			int want = wire_type_of(f->type);
			bool packable = f->label == PROTOBUF_C_LABEL_REPEATED && want != 2;
			if (wt != want && !(packable && wt == 2))
				return fail(s, field_start, "field '%s' has the %s wire type, expected %s",
				            f->name, wire_names[wt], wire_names[want]);
		}
		switch (wt) {
		case 0:
			if (read_varint(s, &p, end, &v))
				return -1;
			break;
		case 1:
		case 5: {
			size_t need = wt == 1 ? 8 : 4;
			if ((size_t)(end - p) < need)
				return fail(s, p, "truncated: field %s needs %zu bytes, %zu left",
				            label(f, num, lab, sizeof lab), need, (size_t)(end - p));
			p += need;
			break;
		}
		case 2: {
			const uint8_t *len_at = p;
			if (read_varint(s, &p, end, &v))
				return -1;
			if (v > (uint64_t)(end - p)) {
				/* inside a message that ends before the file does: a bad length, not EOF */
				bool eof = end == s->base + s->len;
				return fail(s, len_at, "%s: field %s needs %" PRIu64 " bytes, %zu left",
				            eof ? "truncated" : "length past the end of its message",
				            label(f, num, lab, sizeof lab), v, (size_t)(end - p));
			}
			const uint8_t *body_end = p + v;
			if (f && f->type == PROTOBUF_C_TYPE_MESSAGE) {
				if (s->depth >= SCAN_MAX_DEPTH)
					return fail(s, field_start, "messages nested deeper than %d",
					            SCAN_MAX_DEPTH);
				s->path[s->depth++] = f->name;
				int r = scan_message(s, f->descriptor, p, body_end);
				s->depth--;
				if (r)
					return -1;
			} else if (f && f->type != PROTOBUF_C_TYPE_STRING &&
			           f->type != PROTOBUF_C_TYPE_BYTES) {
				if (scan_packed(s, f, p, body_end))
					return -1;
			}
			p = body_end;
			break;
		}
		}
	}
	return 0;
}

int onnx_prescan(const uint8_t *data, size_t len, const char *file, DiagSink *d)
{
	Scan s;
	memset(&s, 0, sizeof s);
	s.base = data;
	s.len = len;
	s.file = file;
	s.d = d;
	return scan_message(&s, &onnx__model_proto__descriptor, data, data + len);
}
