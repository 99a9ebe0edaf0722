/* attrs.c — turning raw ONNX attributes into an op group's typed struct. Op groups
 * call these from their import(); after import nothing compares strings. */
#include "ir.h"

#include <stdarg.h>
#include <string.h>

const RawAttr *import_find(const ImportCtx *c, const char *name)
{
	for (int i = 0; i < c->n_raw; i++)
		if (strcmp(c->raw[i].name, name) == 0)
			return &c->raw[i];
	return NULL;
}

int import_fail(ImportCtx *c, const char *attr, const char *fmt, ...)
{
	DiagLoc l = ir_node_loc(c->g, c->node);
	va_list ap;
	l.slot_kind = "attribute";
	l.tensor = attr;
	va_start(ap, fmt);
	diag_vreport(c->diags, DIAG_ERROR, DC_PARSE, &l, fmt, ap);
	va_end(ap);
	return -1;
}

static const char *kind_name(RawAttrKind k)
{
	static const char *const names[] = { "int", "float", "string", "ints", "floats",
	                                     "strings", "tensor", "graph" };
	return (unsigned)k < COUNTOF(names) ? names[k] : "?";
}

static int wrong_kind(ImportCtx *c, const RawAttr *a, const char *want)
{
	return import_fail(c, a->name, "expected %s, got %s", want, kind_name(a->kind));
}

int import_int(ImportCtx *c, const char *name, int64_t def, int64_t *out)
{
	const RawAttr *a = import_find(c, name);
	*out = def;
	if (!a)
		return 0;
	if (a->kind != RA_INT)
		return wrong_kind(c, a, "int");
	*out = a->i;
	return 0;
}

int import_float(ImportCtx *c, const char *name, float def, float *out)
{
	const RawAttr *a = import_find(c, name);
	*out = def;
	if (!a)
		return 0;
	if (a->kind == RA_INT) {          /* some exporters write integral floats as ints */
		*out = (float)a->i;
		return 0;
	}
	if (a->kind != RA_FLOAT)
		return wrong_kind(c, a, "float");
	*out = a->f;
	return 0;
}

int import_ints(ImportCtx *c, const char *name, IntList *out)
{
	const RawAttr *a = import_find(c, name);
	out->v = NULL;
	out->n = -1;
	if (!a)
		return 0;
	if (a->kind == RA_INT) {
		out->v = arena_alloc(&c->g->arena, sizeof *out->v);
		out->v[0] = a->i;
		out->n = 1;
		return 0;
	}
	if (a->kind != RA_INTS)
		return wrong_kind(c, a, "ints");
	out->n = a->n;
	out->v = arena_array(&c->g->arena, (size_t)(a->n ? a->n : 1), sizeof *out->v);
	if (a->n)
		memcpy(out->v, a->ints, (size_t)a->n * sizeof *out->v);
	return 0;
}

int import_floats(ImportCtx *c, const char *name, FloatList *out)
{
	const RawAttr *a = import_find(c, name);
	out->v = NULL;
	out->n = -1;
	if (!a)
		return 0;
	if (a->kind == RA_FLOAT) {
		out->v = arena_alloc(&c->g->arena, sizeof *out->v);
		out->v[0] = a->f;
		out->n = 1;
		return 0;
	}
	if (a->kind != RA_FLOATS)
		return wrong_kind(c, a, "floats");
	out->n = a->n;
	out->v = arena_array(&c->g->arena, (size_t)(a->n ? a->n : 1), sizeof *out->v);
	if (a->n)
		memcpy(out->v, a->floats, (size_t)a->n * sizeof *out->v);
	return 0;
}

int import_enum(ImportCtx *c, const char *name, const char *const *names, int def, int *out)
{
	const RawAttr *a = import_find(c, name);
	*out = def;
	if (!a)
		return 0;
	if (a->kind != RA_STRING)
		return wrong_kind(c, a, "string");
	for (int i = 0; names[i]; i++)
		if (strcmp(names[i], a->s) == 0) {
			*out = i;
			return 0;
		}
	return import_fail(c, name, "unsupported value '%s'", a->s);
}

int import_scalar(ImportCtx *c, const char *name, const Scalar *def, Scalar *out)
{
	const RawAttr *a = import_find(c, name);
	*out = *def;
	if (!a)
		return 0;
	if (a->kind != RA_TENSOR)
		return wrong_kind(c, a, "tensor");
	const Value *v = &c->g->values[a->tensor];
	if (type_numel(&v->type) != 1)
		return import_fail(c, name, "expected a 1-element tensor, got %lld elements",
		                   (long long)type_numel(&v->type));
	if (dtype_size(v->type.dtype) == 0 || dtype_size(v->type.dtype) > 8)
		return import_fail(c, name, "unsupported tensor type %s", dtype_name(v->type.dtype));
	memset(out, 0, sizeof *out);
	out->dtype = v->type.dtype;
	memcpy(out->bytes, ir_const_data(c->g, a->tensor), dtype_size(v->type.dtype));
	return 0;
}

RawAttr raw_attr_int(const char *name, int64_t v)
{
	RawAttr a;
	memset(&a, 0, sizeof a);
	a.name = name;
	a.kind = RA_INT;
	a.i = v;
	a.tensor = a.graph = IR_NONE;
	return a;
}

double scalar_to_f64(const Scalar *s)
{
	union { uint8_t b[8]; float f; double d; int8_t i8; uint8_t u8; int16_t i16; uint16_t u16;
		int32_t i32; uint32_t u32; int64_t i64; uint64_t u64; } u;
	memcpy(u.b, s->bytes, 8);
	switch (s->dtype) {
	case DT_F32: return u.f;
	case DT_F64: return u.d;
	case DT_F16: return ingot_f16_to_f32(u.u16);
	case DT_BF16: return ingot_bf16_to_f32(u.u16);
	case DT_I8: return u.i8;
	case DT_U8: case DT_BOOL: return u.u8;
	case DT_I16: return u.i16;
	case DT_U16: return u.u16;
	case DT_I32: return u.i32;
	case DT_U32: return u.u32;
	case DT_I64: return (double)u.i64;
	case DT_U64: return (double)u.u64;
	case DT_I4: return u.i8;
	case DT_U4: return u.u8 & 15u;
	case DT_I2: return u.i8;
	case DT_U2: return u.u8 & 3u;
	case DT_F8E4M3FN: case DT_F8E4M3FNUZ: case DT_F8E5M2: case DT_F8E5M2FNUZ: case DT_F4E2M1:
	case DT_F8E8M0:
		return ingot_small_to_f32(s->dtype, u.u8);
	default: return 0;
	}
}

Scalar scalar_from_f64(DType dt, double v)
{
	Scalar s;
	union { uint8_t b[8]; float f; double d; int8_t i8; uint8_t u8; int16_t i16; uint16_t u16;
		int32_t i32; uint32_t u32; int64_t i64; uint64_t u64; } u;
	memset(&s, 0, sizeof s);
	memset(&u, 0, sizeof u);
	s.dtype = dt;
	switch (dt) {
	case DT_F32: u.f = (float)v; break;
	case DT_F64: u.d = v; break;
	case DT_F16: u.u16 = ingot_f32_to_f16((float)v); break;
	case DT_BF16: u.u16 = ingot_f32_to_bf16((float)v); break;
	case DT_I8: u.i8 = (int8_t)v; break;
	case DT_U8: u.u8 = (uint8_t)v; break;
	case DT_BOOL: u.u8 = v != 0; break;
	case DT_I16: u.i16 = (int16_t)v; break;
	case DT_U16: u.u16 = (uint16_t)v; break;
	case DT_I32: u.i32 = (int32_t)v; break;
	case DT_U32: u.u32 = (uint32_t)v; break;
	case DT_I64: u.i64 = (int64_t)v; break;
	case DT_U64: u.u64 = (uint64_t)v; break;
	case DT_I4: u.i8 = ingot_wrap_i4((int64_t)v); break;
	case DT_U4: u.u8 = (uint8_t)((int64_t)v & 15); break;
	case DT_I2: u.i8 = ingot_wrap_i2((int64_t)v); break;
	case DT_U2: u.u8 = (uint8_t)((int64_t)v & 3); break;
	case DT_F8E8M0:      /* nearest: exact for every power of two, 2^-127 (code 0) included */
		u.u8 = ingot_f32_to_e8m0((float)v, 1, INGOT_E8M0_NEAREST); break;
	case DT_F8E4M3FN: case DT_F8E4M3FNUZ: case DT_F8E5M2: case DT_F8E5M2FNUZ: case DT_F4E2M1:
		u.u8 = ingot_f32_to_small(dt, (float)v, 1); break;
	default: break;
	}
	memcpy(s.bytes, u.b, 8);
	return s;
}
