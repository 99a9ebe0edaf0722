/* check_value.c — `ingot check`: reading a test data file as the value the model
 * declares, a TensorProto, a SequenceProto or an OptionalProto (onnx-data.proto,
 * which Debian's onnx.proto lacks: decoded here by field number), into the list of
 * tensors the compiled model takes or gives for it: one per sequence element, none
 * for an empty optional. Element files for the runner are written as TensorProtos. */
#include "driver.h"
#include "ingot_tensor_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* SequenceProto / OptionalProto field numbers (onnx-data.proto). */
enum { F_TENSOR = 3, F_SPARSE = 4, F_SEQUENCE = 5, F_MAP = 6, F_OPTIONAL = 7 };

typedef struct Rd {
	const uint8_t *p, *end;
} Rd;

static int varint(Rd *r, uint64_t *v)
{
	*v = 0;
	for (int shift = 0; shift < 64; shift += 7) {
		if (r->p >= r->end)
			return -1;
		uint8_t b = *r->p++;
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return 0;
	}
	return -1;
}

/* Reads the next field: its number, and for a length-delimited one its bytes in sub.
 * Other wire types are skipped (sub empty). */
static int field(Rd *r, uint64_t *num, Rd *sub, char *err, size_t cap)
{
	uint64_t key, v;
	sub->p = sub->end = NULL;
	if (varint(r, &key))
		goto bad;
	*num = key >> 3;
	switch (key & 7) {
	case 0:
		if (varint(r, &v))
			goto bad;
		return 0;
	case 1:
	case 5: {
		size_t w = (key & 7) == 1 ? 8 : 4;
		if ((size_t)(r->end - r->p) < w)
			goto bad;
		r->p += w;
		return 0;
	}
	case 2:
		if (varint(r, &v) || v > (uint64_t)(r->end - r->p))
			goto bad;
		sub->p = r->p;
		sub->end = r->p + v;
		r->p += v;
		return 0;
	default:
		break;
	}
bad:
	snprintf(err, cap, "malformed protobuf");
	return -1;
}

static int push(CheckValue *v, const Rd *sub, char *err, size_t cap)
{
	ingot_tensor *t = realloc(v->t, (size_t)(v->n + 1) * sizeof *t);
	if (!t)
		die("out of memory");
	v->t = t;
	memset(&t[v->n], 0, sizeof t[v->n]);
	if (ingot_tensor_parse_pb(sub->p, (size_t)(sub->end - sub->p), &t[v->n], err, cap))
		return -1;
	v->n++;
	return 0;
}

static int unsupported(int num, char *err, size_t cap)
{
	snprintf(err, cap, "%s values are not supported", num == F_SPARSE ? "sparse tensor"
	         : num == F_MAP ? "map" : num == F_OPTIONAL ? "nested optional" : "nested sequence");
	return -1;
}

static int read_sequence(Rd r, CheckValue *v, char *err, size_t cap)
{
	v->seq = true;
	while (r.p < r.end) {
		uint64_t num;
		Rd sub;
		if (field(&r, &num, &sub, err, cap))
			return -1;
		if (num == F_TENSOR && sub.p && push(v, &sub, err, cap))
			return -1;
		if (num >= F_SPARSE && num <= F_OPTIONAL && sub.p)
			return unsupported((int)num, err, cap);
	}
	return 0;
}

static int read_optional(Rd r, CheckValue *v, char *err, size_t cap)
{
	v->none = true;
	while (r.p < r.end) {
		uint64_t num;
		Rd sub;
		if (field(&r, &num, &sub, err, cap))
			return -1;
		if (!sub.p || num < F_TENSOR || num > F_OPTIONAL)
			continue;
		v->none = false;
		if (num == F_TENSOR && push(v, &sub, err, cap))
			return -1;
		if (num == F_SEQUENCE && read_sequence(sub, v, err, cap))
			return -1;
		if (num != F_TENSOR && num != F_SEQUENCE)
			return unsupported((int)num, err, cap);
	}
	return 0;
}

int check_value_read(const char *path, IoKind kind, CheckValue *v, char *err, size_t cap)
{
	memset(v, 0, sizeof *v);
	if (kind == IO_TENSOR) {
		v->t = calloc(1, sizeof *v->t);
		if (!v->t)
			die("out of memory");
		if (ingot_tensor_read(path, v->t, err, cap))
			return -1;
		v->n = 1;
		return 0;
	}
	FILE *f = fopen(path, "rb");
	long len;
	uint8_t *buf;
	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		snprintf(err, cap, "cannot read the file");
		if (f)
			fclose(f);
		return -1;
	}
	buf = malloc((size_t)len + 1);
	if (!buf)
		die("out of memory");
	if (fread(buf, 1, (size_t)len, f) != (size_t)len) {
		snprintf(err, cap, "cannot read the file");
		fclose(f);
		free(buf);
		return -1;
	}
	fclose(f);
	Rd r = { buf, buf + len };
	int rc = kind == IO_SEQUENCE ? read_sequence(r, v, err, cap) : read_optional(r, v, err, cap);
	free(buf);
	return rc;
}

void check_value_free(CheckValue *v)
{
	for (int i = 0; i < v->n; i++)
		ingot_tensor_free(&v->t[i]);
	free(v->t);
	memset(v, 0, sizeof *v);
}
