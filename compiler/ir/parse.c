/* parse.c — reading the text IR back (the inverse of print.c), so that passes can
 * run on text (`ingot opt FILE.ir`) and golden tests can state input and expected
 * IR. print → parse → print is the identity. Constants printed as blob(offset,
 * length, hash) are read from the blob file written beside the dump (FILE.bin);
 * the hash is checked. A `region "NAME" {` block after a node line is that node's
 * next body (If branches, Loop/Scan bodies), closed by `}`; names resolve in the
 * region first, then in the enclosing ones. */
#include "ir.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct Parser {
	Graph *g;
	DiagSink *d;
	const char *p, *end;        /* cursor in the current line */
	int line;
	const uint8_t *blob;        /* the blob file's bytes, or NULL */
	size_t blob_len;
	char buf[4096];
	RegionId cur;               /* the region being read */
	NodeId last;                /* its last node (the owner of a following region) */
	struct { RegionId r; NodeId last; } open[64];   /* enclosing regions */
	int depth;
} Parser;

/* A value defined in the current region itself (a redefinition check). */
static bool defined_here(const Parser *P, const char *name)
{
	ValueId v = ir_value_find(P->g, P->cur, name);
	return v != IR_NONE && P->g->values[v].region == P->cur;
}

static int fail(Parser *P, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	DiagLoc l = diag_loc_file(P->g->file);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	diag_report(P->d, DIAG_ERROR, DC_PARSE, &l, "line %d: %s", P->line, msg);
	return -1;
}

static void skip_ws(Parser *P)
{
	while (P->p < P->end && (*P->p == ' ' || *P->p == '\t'))
		P->p++;
}

static bool eat(Parser *P, const char *tok)
{
	size_t n = strlen(tok);
	skip_ws(P);
	if (P->p <= P->end && (size_t)(P->end - P->p) >= n && memcmp(P->p, tok, n) == 0) {
		P->p += n;
		return true;
	}
	return false;
}

static int expect(Parser *P, const char *tok)
{
	return eat(P, tok) ? 0 : fail(P, "expected '%s'", tok);
}

/* A quoted string with \" \\ \xNN escapes into P->buf. */
static int parse_quoted(Parser *P)
{
	size_t n = 0;
	if (expect(P, "\""))
		return -1;
	while (P->p < P->end && *P->p != '"') {
		char c = *P->p++;
		if (c == '\\' && P->p < P->end) {
			c = *P->p++;
			if (c == 'x' && P->end - P->p >= 2) {
				char hex[3] = { P->p[0], P->p[1], 0 };
				c = (char)strtol(hex, NULL, 16);
				P->p += 2;
			}
		}
		if (n + 1 >= sizeof P->buf)
			return fail(P, "string too long");
		P->buf[n++] = c;
	}
	P->buf[n] = 0;
	return expect(P, "\"");
}

static int parse_word(Parser *P)
{
	size_t n = 0;
	skip_ws(P);
	while (P->p < P->end && (isalnum((unsigned char)*P->p) || *P->p == '_' || *P->p == '.')) {
		if (n + 1 >= sizeof P->buf)
			return fail(P, "name too long");
		P->buf[n++] = *P->p++;
	}
	P->buf[n] = 0;
	return n ? 0 : fail(P, "expected a name");
}

/* %name or %"quoted name" into P->buf */
static int parse_value_name(Parser *P)
{
	if (expect(P, "%"))
		return -1;
	if (P->p < P->end && *P->p == '"')
		return parse_quoted(P);
	return parse_word(P);
}

/* The number at P->p copied out (NUL-terminated, at most cap - 1 bytes, never past the
 * line's end): strtoll and strtod would skip a newline and read past the text. */
static void number_text(const Parser *P, char *buf, size_t cap)
{
	size_t n = 0;
	while (P->p + n < P->end && n + 1 < cap &&
	       ((P->p[n] >= '0' && P->p[n] <= '9') || (P->p[n] >= 'a' && P->p[n] <= 'z') ||
	        (P->p[n] >= 'A' && P->p[n] <= 'Z') || P->p[n] == '+' || P->p[n] == '-' || P->p[n] == '.')) {
		buf[n] = P->p[n];
		n++;
	}
	buf[n] = 0;
}

/* An unsigned number in `base` at P->p (after blanks), as strtoull reads it; false, and
 * P->p unmoved, when there is none. */
static bool scan_u64(Parser *P, int base, unsigned long long *v)
{
	char buf[64], *e;
	skip_ws(P);
	number_text(P, buf, sizeof buf);
	*v = strtoull(buf, &e, base);
	P->p += e - buf;
	return e != buf;
}

static int parse_i64(Parser *P, int64_t *v)
{
	char buf[64], *e;
	skip_ws(P);
	number_text(P, buf, sizeof buf);
	errno = 0;
	long long x = strtoll(buf, &e, 10);
	if (e == buf || errno)
		return fail(P, "expected an integer");
	P->p += e - buf;
	*v = x;
	return 0;
}

static int parse_f64(Parser *P, double *v)
{
	char buf[512], *e;   /* %.17g and hex floats fit */
	skip_ws(P);
	number_text(P, buf, sizeof buf);
	*v = strtod(buf, &e);
	if (e == buf)
		return fail(P, "expected a number");
	P->p += e - buf;
	return 0;
}

/* Whether a literal converts to dt without leaving its range (a float-to-integer
 * conversion out of range is undefined behaviour); floats take any value. */
static bool literal_fits(DType dt, double v)
{
	double lo, hi;
	switch (dt) {
	case DT_I8: lo = -128; hi = 127; break;
	case DT_U8: lo = 0; hi = 255; break;
	case DT_I16: lo = -32768; hi = 32767; break;
	case DT_U16: lo = 0; hi = 65535; break;
	case DT_I32: lo = -2147483648.0; hi = 2147483647.0; break;
	case DT_U32: lo = 0; hi = 4294967295.0; break;
	case DT_I4: lo = -8; hi = 7; break;
	case DT_U4: lo = 0; hi = 15; break;
	case DT_I2: lo = -2; hi = 1; break;
	case DT_U2: lo = 0; hi = 3; break;
	default: return true;
	}
	return v >= lo && v <= hi;
}

static int parse_type(Parser *P, Type *t)
{
	int64_t d;
	if (parse_word(P))
		return -1;
	memset(t, 0, sizeof *t);
	t->dtype = dtype_parse(P->buf);
	if (t->dtype == DT_UNDEF)
		return fail(P, "unknown element type '%s'", P->buf);
	if (expect(P, "["))
		return -1;
	while (!eat(P, "]")) {
		if (t->rank && expect(P, ","))
			return -1;
		if (t->rank == IR_MAX_RANK || parse_i64(P, &d) || d < 0)
			return fail(P, "bad dims");
		t->dims[t->rank++] = d;
	}
	if (eat(P, "!blocked(")) {
		int64_t b;
		if (parse_i64(P, &b) || expect(P, ")"))
			return -1;
		t->layout = LAYOUT_BLOCKED;
		t->block = (int)b;
	}
	if (eat(P, "!q(axis=")) {          /* per axis: informative, the scales are inputs */
		int64_t ax, n;
		if (parse_i64(P, &ax) || expect(P, ",") || expect(P, "n=") || parse_i64(P, &n) ||
		    expect(P, ")"))
			return -1;
	} else if (eat(P, "!q(")) {
		double scale;
		int64_t zp;
		Quant *q = arena_alloc(&P->g->arena, sizeof *q);
		float *s = arena_alloc(&P->g->arena, sizeof *s);
		int32_t *z = arena_alloc(&P->g->arena, sizeof *z);
		if (parse_f64(P, &scale) || expect(P, ",") || parse_i64(P, &zp) || expect(P, ")"))
			return -1;
		*s = (float)scale;
		*z = (int32_t)zp;
		q->axis = -1;
		q->n = 1;
		q->scale = s;
		q->zero_point = z;
		t->quant = q;
	}
	return type_bytes(t) < 0 ? fail(P, "type too large") : 0;
}

/* A real number as print.c writes it: digits, nan, -nan, inf or -inf. */
static int parse_real(Parser *P, double *v)
{
	skip_ws(P);
	if (eat(P, "nan") || eat(P, "-nan"))
		*v = (double)NAN;
	else if (eat(P, "inf"))
		*v = (double)INFINITY;
	else if (eat(P, "-inf"))
		*v = -(double)INFINITY;
	else
		return parse_f64(P, v);
	return 0;
}

/* Element i of a constant from text. */
static int parse_elem(Parser *P, DType dt, uint8_t *dst)
{
	Scalar s;
	size_t es = dtype_size(dt);
	if (dt == DT_STRING) {             /* print.c's quoted form, into a zeroed slot */
		if (parse_quoted(P))
			return -1;
		if (strlen(P->buf) >= es)
			return fail(P, "string longer than %zu bytes", es - 1);
		memcpy(dst, P->buf, strlen(P->buf));
		return 0;
	}
	if (dt == DT_I64 || dt == DT_U64) {
		int64_t v;
		if (dt == DT_U64) {
			unsigned long long u;
			if (!scan_u64(P, 10, &u))
				return fail(P, "expected an integer");
			memcpy(dst, &u, 8);
			return 0;
		}
		if (parse_i64(P, &v))
			return -1;
		memcpy(dst, &v, 8);
		return 0;
	}
	if (dt == DT_C64 || dt == DT_C128) {  /* print.c's (re, im) */
		double re, im;
		if (expect(P, "(") || parse_real(P, &re) || expect(P, ",") || parse_real(P, &im) ||
		    expect(P, ")"))
			return -1;
		if (dt == DT_C64) {
			float pr[2] = { (float)re, (float)im };
			memcpy(dst, pr, sizeof pr);
		} else {
			double pr[2] = { re, im };
			memcpy(dst, pr, sizeof pr);
		}
		return 0;
	}
	double v;
	if (parse_real(P, &v))
		return -1;
	if (!literal_fits(dt, v))
		return fail(P, "%g is out of range for %s", v, dtype_name(dt));
	s = scalar_from_f64(dt, v);
	memcpy(dst, s.bytes, es);
	return 0;
}

static int parse_const(Parser *P)
{
	Type t;
	ValueId id;
	if (parse_value_name(P))
		return -1;
	if (defined_here(P, P->buf))
		return fail(P, "value '%s' defined twice", P->buf);
	id = ir_value_new(P->g, P->cur, P->buf, NULL);
	if (expect(P, ":") || parse_type(P, &t) || expect(P, "="))
		return -1;
	P->g->values[id].type = t;
	int64_t bytes = type_bytes(&t), n = type_numel(&t);
	if (eat(P, "blob(")) {
		int64_t off, len, hash;
		unsigned long long h;
		if (parse_i64(P, &off) || expect(P, ",") || parse_i64(P, &len) || expect(P, ","))
			return -1;
		scan_u64(P, 16, &h);   /* none reads as 0, as before: the hash check below compares it */
		hash = (int64_t)h;
		if (expect(P, ")"))
			return -1;
		if (!P->blob)
			return fail(P, "constant '%s' is in a blob file, and none was found",
			            P->g->values[id].name);
		if (len != bytes || off < 0 || (uint64_t)off + (uint64_t)len > P->blob_len)
			return fail(P, "blob(%lld, %lld) is outside the blob file or the wrong size",
			            (long long)off, (long long)len);
		if (ir_fnv1a32(IR_FNV32, P->blob + off, (size_t)len) != (uint32_t)hash)
			return fail(P, "blob hash mismatch for '%s'", P->g->values[id].name);
		ir_value_set_const(P->g, id, P->blob + off);
		return 0;
	}
	/* an inline list has at most one element per byte of its line: a type whose
	 * size cannot be there is an error before the allocation */
	if (bytes < 0 || n > P->end - P->p)
		return fail(P, "inline constant '%s' of %lld elements does not fit its line",
		            P->g->values[id].name, (long long)n);
	uint8_t *data = calloc(1, (size_t)(bytes > 0 ? bytes : 1));
	if (!data)
		die("out of memory");
	int rc = expect(P, "[");
	for (int64_t i = 0; i < n && !rc; i++) {
		if (i)
			rc = expect(P, ",");
		if (!rc)
			rc = parse_elem(P, t.dtype, data + (size_t)i * dtype_size(t.dtype));
	}
	if (!rc)
		rc = expect(P, "]");
	if (!rc)
		ir_value_set_const(P->g, id, data);
	free(data);
	return rc;
}

static int parse_attr_value(Parser *P, const AttrField *af, void *attrs)
{
	char *dst = (char *)attrs + af->off;
	switch (af->kind) {
	case AK_INT: {
		int64_t v;
		if (parse_i64(P, &v))
			return -1;
		memcpy(dst, &v, sizeof v);
		return 0;
	}
	case AK_FLOAT: {
		double v;
		float f;
		skip_ws(P);
		if (eat(P, "nan"))
			v = (double)NAN;
		else if (eat(P, "inf"))
			v = (double)INFINITY;
		else if (eat(P, "-inf"))
			v = -(double)INFINITY;
		else if (parse_f64(P, &v))
			return -1;
		f = (float)v;
		memcpy(dst, &f, sizeof f);
		return 0;
	}
	case AK_INTS:
	case AK_FLOATS: {
		int n = 0, cap = 8;
		bool ints = af->kind == AK_INTS;
		void *vals = arena_array(&P->g->arena, (size_t)cap, 8);
		if (expect(P, "["))
			return -1;
		while (!eat(P, "]")) {
			if (n && expect(P, ","))
				return -1;
			if (n == cap) {
				void *bigger = arena_array(&P->g->arena, (size_t)cap * 2, 8);
				memcpy(bigger, vals, (size_t)cap * 8);
				vals = bigger;
				cap *= 2;
			}
			if (ints) {
				if (parse_i64(P, &((int64_t *)vals)[n]))
					return -1;
			} else {
				double v;
				if (parse_f64(P, &v))
					return -1;
				((float *)vals)[n] = (float)v;
			}
			n++;
		}
		if (ints) {
			IntList *l = (IntList *)(void *)dst;
			l->v = vals;
			l->n = n;
		} else {
			FloatList *l = (FloatList *)(void *)dst;
			l->v = vals;
			l->n = n;
		}
		return 0;
	}
	case AK_ENUM:
		if (parse_quoted(P))
			return -1;
		for (int i = 0; af->enums[i]; i++)
			if (strcmp(af->enums[i], P->buf) == 0) {
				memcpy(dst, &i, sizeof i);
				return 0;
			}
		return fail(P, "attribute '%s': unknown value '%s'", af->name, P->buf);
	case AK_SCALAR: {
		Scalar *s = (Scalar *)(void *)dst;
		DType dt;
		if (parse_word(P))
			return -1;
		dt = dtype_parse(P->buf);
		if (dt == DT_UNDEF || dtype_size(dt) > 8 || expect(P, ":"))
			return fail(P, "attribute '%s': expected dtype:value", af->name);
		memset(s, 0, sizeof *s);
		s->dtype = dt;
		return parse_elem(P, dt, s->bytes);
	}
	}
	return -1;
}

static int parse_node(Parser *P)
{
	ValueId outs[64], ins[64];
	char names[64][256];
	int n_out = 0, n_in = 0;
	Op op;
	/* outputs */
	do {
		if (n_out == 64)
			return fail(P, "too many outputs");
		if (eat(P, "_")) {
			names[n_out][0] = 0;
		} else {
			if (parse_value_name(P))
				return -1;
			snprintf(names[n_out], sizeof names[0], "%s", P->buf);
		}
		n_out++;
	} while (eat(P, ","));
	if (expect(P, "=") || parse_word(P))
		return -1;
	op = ir_op_lookup(P->buf);
	if (op == OP_COUNT)
		return fail(P, "unknown op '%s'", P->buf);
	if (expect(P, "("))
		return -1;
	while (!eat(P, ")")) {
		if (n_in && expect(P, ","))
			return -1;
		if (n_in == 64)
			return fail(P, "too many inputs");
		if (eat(P, "_")) {
			ins[n_in++] = IR_NONE;
			continue;
		}
		if (parse_value_name(P))
			return -1;
		ins[n_in] = ir_value_find(P->g, P->cur, P->buf);
		if (ins[n_in] == IR_NONE)
			return fail(P, "value '%s' is used before it is defined", P->buf);
		n_in++;
	}
	for (int i = 0; i < n_out; i++) {
		if (!names[i][0]) {
			outs[i] = IR_NONE;
			continue;
		}
		if (defined_here(P, names[i]))
			return fail(P, "value '%s' defined twice", names[i]);
		outs[i] = ir_value_new(P->g, P->cur, names[i], NULL);
	}
	NodeId id = ir_node_new(P->g, P->cur, op, P->g->opset, ins, n_in, outs, n_out, NULL);
	P->last = id;
	Node *n = &P->g->nodes[id];
	const OpAttrLayout lay = ir_op_attrs(op);
	/* list attributes not printed are absent; a field with a default not printed has
	 * it (print.c) */
	for (int i = 0; i < lay.n_fields; i++) {
		const AttrField *af = &lay.fields[i];
		void *p = (char *)n->attrs + af->off;
		if (af->kind == AK_INTS)
			((IntList *)p)->n = -1;
		else if (af->kind == AK_FLOATS)
			((FloatList *)p)->n = -1;
		else if (af->has_default && af->kind == AK_ENUM)
			*(int *)p = (int)af->def;
		else if (af->has_default)
			*(int64_t *)p = af->def;
	}
	if (eat(P, "{")) {
		do {
			const AttrField *af = NULL;
			if (parse_word(P) || expect(P, "="))
				return -1;
			for (int i = 0; i < lay.n_fields; i++)
				if (strcmp(lay.fields[i].name, P->buf) == 0)
					af = &lay.fields[i];
			if (!af)
				return fail(P, "%s has no attribute '%s'", ir_op_name(op), P->buf);
			if (parse_attr_value(P, af, n->attrs))
				return -1;
		} while (eat(P, ","));
		if (expect(P, "}"))
			return -1;
	}
	if (expect(P, ":"))
		return -1;
	for (int i = 0; i < n_out; i++) {
		Type t;
		if (outs[i] == IR_NONE)
			continue;
		if ((i && expect(P, ",")) || parse_type(P, &t))
			return -1;
		P->g->values[outs[i]].type = t;
	}
	if (eat(P, "loc(")) {
		const char *origins[64];
		int n_orig = 0;
		do {
			if (parse_quoted(P))
				return -1;
			if (n_orig < 64)
				origins[n_orig++] = arena_strdup(&P->g->arena, P->buf);
		} while (eat(P, ","));
		if (expect(P, ")"))
			return -1;
		n = &P->g->nodes[id];
		n->origins = arena_array(&P->g->arena, (size_t)n_orig, sizeof *n->origins);
		memcpy(n->origins, origins, (size_t)n_orig * sizeof *origins);
		n->n_origins = n_orig;
	}
	if (eat(P, "on(device)"))
		P->g->nodes[id].device = true;
	/* the memory plan: one "@arena+N" or "@-" per output that is not _, in order */
	for (int i = 0; i < n_out; i++) {
		int64_t off = -1;
		if (outs[i] == IR_NONE)
			continue;
		if (eat(P, "@-"))
			continue;
		if (!eat(P, "@arena+"))
			break;
		if (parse_i64(P, &off))
			return -1;
		P->g->values[outs[i]].arena_off = off;
	}
	return 0;
}

/* `region "NAME" {`: the next body of the node just read. */
static int parse_region_open(Parser *P)
{
	Graph *g = P->g;
	if (parse_quoted(P) || expect(P, "{"))
		return -1;
	if (P->last == IR_NONE)
		return fail(P, "region '%s' does not follow a node", P->buf);
	if (P->depth == COUNTOF(P->open))
		return fail(P, "regions nested too deeply");
	RegionId r = ir_region_new(g, P->cur, P->buf);
	Node *n = &g->nodes[P->last];
	RegionId *bodies = arena_array(&g->arena, (size_t)n->n_bodies + 1, sizeof *bodies);
	if (n->n_bodies)
		memcpy(bodies, n->bodies, (size_t)n->n_bodies * sizeof *bodies);
	bodies[n->n_bodies] = r;
	n->bodies = bodies;
	n->n_bodies++;
	P->open[P->depth].r = P->cur;
	P->open[P->depth].last = P->last;
	P->depth++;
	P->cur = r;
	P->last = IR_NONE;
	return 0;
}

static int parse_line(Parser *P)
{
	skip_ws(P);
	if (P->p == P->end || (P->end - P->p >= 2 && P->p[0] == '/' && P->p[1] == '/')) {
		int64_t v;
		if (eat(P, "// ingot IR, opset") && parse_i64(P, &v) == 0)
			P->g->opset = (int)v;
		P->p = P->end;   /* a comment */
		return 0;
	}
	if (eat(P, "input ")) {
		Type t;
		if (parse_value_name(P))
			return -1;
		if (defined_here(P, P->buf))
			return fail(P, "value '%s' defined twice", P->buf);
		ValueId id = ir_value_new(P->g, P->cur, P->buf, NULL);
		if (expect(P, ":") || parse_type(P, &t))
			return -1;
		P->g->values[id].type = t;
		ir_region_add_input(P->g, P->cur, id);
		return 0;
	}
	if (eat(P, "const "))
		return parse_const(P);
	if (eat(P, "output ")) {
		if (parse_value_name(P))
			return -1;
		ValueId id = ir_value_find(P->g, P->cur, P->buf);
		if (id == IR_NONE)
			return fail(P, "output '%s' is never defined", P->buf);
		ir_region_add_output(P->g, P->cur, id);
		return 0;
	}
	if (eat(P, "region "))
		return parse_region_open(P);
	if (eat(P, "}")) {
		if (P->depth == 0)
			return fail(P, "'}' without a region");
		P->depth--;
		P->cur = P->open[P->depth].r;
		P->last = P->open[P->depth].last;
		return 0;
	}
	return parse_node(P);
}

static uint8_t *read_blob(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, f) == (size_t)n) {
			*len = (size_t)n;
		} else {
			free(buf);
			buf = NULL;
		}
	}
	fclose(f);
	return buf;
}

int ir_parse(Graph *g, const char *text, size_t len, const char *blob_file, DiagSink *d)
{
	Parser P;
	/* a NUL-terminated copy: strtoll/strtod and '%.20s' read a number or a snippet up to
	 * a character that ends it, which on the last line without '\n' was past `len` */
	char *copy = malloc(len + 1);
	const char *p, *end;
	int rc = 0;
	if (!copy)
		die("out of memory");
	memcpy(copy, text, len);
	copy[len] = 0;
	p = copy;
	end = copy + len;
	memset(&P, 0, sizeof P);
	P.g = g;
	P.d = d;
	uint8_t *blob = blob_file ? read_blob(blob_file, &P.blob_len) : NULL;
	P.blob = blob;
	P.last = IR_NONE;
	while (p < end && !rc) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		P.line++;
		P.p = p;
		P.end = nl ? nl : end;
		rc = parse_line(&P);
		if (!rc) {
			skip_ws(&P);
			if (P.p != P.end)
				rc = fail(&P, "unexpected text '%.20s'", P.p);
		}
		p = nl ? nl + 1 : end;
	}
	if (!rc && P.depth)
		rc = fail(&P, "region not closed with '}'");
	free(blob);
	free(copy);
	return rc;
}
