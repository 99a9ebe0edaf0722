/* types.c — element types and tensor types: names, sizes, broadcasting. The one
 * function that computes a value's byte size is type_bytes(). */
#include "ir.h"

#include <string.h>

/* ORDER DTYPE */
static const struct {
	const char *name, *c_type, *onnx;
	size_t size;
} dtypes[DT_COUNT] = {
	[DT_UNDEF] = { "undef", "void", "UNDEFINED", 0 },
	[DT_F32] = { "f32", "float", "FLOAT", 4 },
	[DT_U8] = { "u8", "uint8_t", "UINT8", 1 },
	[DT_I8] = { "i8", "int8_t", "INT8", 1 },
	[DT_U16] = { "u16", "uint16_t", "UINT16", 2 },
	[DT_I16] = { "i16", "int16_t", "INT16", 2 },
	[DT_I32] = { "i32", "int32_t", "INT32", 4 },
	[DT_I64] = { "i64", "int64_t", "INT64", 8 },
	[DT_STRING] = { "str", "ingot_str", "STRING", INGOT_STRING_CAP },
	[DT_BOOL] = { "bool", "bool", "BOOL", 1 },
	[DT_F16] = { "f16", "uint16_t", "FLOAT16", 2 },
	[DT_F64] = { "f64", "double", "DOUBLE", 8 },
	[DT_U32] = { "u32", "uint32_t", "UINT32", 4 },
	[DT_U64] = { "u64", "uint64_t", "UINT64", 8 },
	[DT_C64] = { "c64", "void", "COMPLEX64", 8 },
	[DT_C128] = { "c128", "void", "COMPLEX128", 16 },
	[DT_BF16] = { "bf16", "uint16_t", "BFLOAT16", 2 },
	[DT_F8E4M3FN] = { "f8e4m3fn", "uint8_t", "FLOAT8E4M3FN", 1 },
	[DT_F8E4M3FNUZ] = { "f8e4m3fnuz", "uint8_t", "FLOAT8E4M3FNUZ", 1 },
	[DT_F8E5M2] = { "f8e5m2", "uint8_t", "FLOAT8E5M2", 1 },
	[DT_F8E5M2FNUZ] = { "f8e5m2fnuz", "uint8_t", "FLOAT8E5M2FNUZ", 1 },
	[DT_U4] = { "u4", "uint8_t", "UINT4", 1 },      /* one element per byte */
	[DT_I4] = { "i4", "int8_t", "INT4", 1 },
	[DT_F4E2M1] = { "f4e2m1", "uint8_t", "FLOAT4E2M1", 1 },
	[DT_F8E8M0] = { "f8e8m0", "uint8_t", "FLOAT8E8M0", 1 },
	[DT_U2] = { "u2", "uint8_t", "UINT2", 1 },      /* one element per byte */
	[DT_I2] = { "i2", "int8_t", "INT2", 1 },
};

size_t dtype_size(DType t) { return (unsigned)t < DT_COUNT ? dtypes[t].size : 0; }
const char *dtype_name(DType t) { return (unsigned)t < DT_COUNT ? dtypes[t].name : "?"; }
const char *dtype_c_type(DType t) { return (unsigned)t < DT_COUNT ? dtypes[t].c_type : "void"; }
const char *dtype_onnx_name(DType t) { return (unsigned)t < DT_COUNT ? dtypes[t].onnx : "?"; }

DType dtype_parse(const char *s)
{
	for (int i = 1; i < DT_COUNT; i++)
		if (strcmp(dtypes[i].name, s) == 0)
			return (DType)i;
	return DT_UNDEF;
}

bool dtype_is_float(DType t)
{
	return t == DT_F32 || t == DT_F64 || t == DT_F16 || t == DT_BF16;
}

bool dtype_is_int(DType t)
{
	switch (t) {
	case DT_U8: case DT_I8: case DT_U16: case DT_I16: case DT_I32: case DT_I64:
	case DT_U32: case DT_U64:
		return true;
	default:
		return false;
	}
}

bool dtype_is_signed(DType t)
{
	return dtype_is_float(t) || t == DT_I8 || t == DT_I16 || t == DT_I32 || t == DT_I64;
}

bool dtype_is_small(DType t)
{
	return t >= DT_F8E4M3FN && t <= DT_I2;
}

bool dtype_is_valid(int code)
{
	return code > 0 && code < DT_COUNT && code != DT_C64 && code != DT_C128;
}

Type type_make(DType dt, int rank, const int64_t *dims)
{
	Type t;
	memset(&t, 0, sizeof t);
	t.dtype = dt;
	t.rank = rank;
	for (int i = 0; i < rank; i++)
		t.dims[i] = dims ? dims[i] : 1;
	return t;
}

int64_t type_numel(const Type *t)
{
	int64_t n = 1;
	for (int i = 0; i < t->rank; i++)
		if (!size_mul(n, t->dims[i], &n))
			return -1;
	return n;
}

int64_t type_bytes(const Type *t)
{
	int64_t n = type_numel(t), b;
	if (n < 0 || !size_mul(n, (int64_t)dtype_size(t->dtype), &b))
		return -1;
	return b;
}

bool type_same_shape(const Type *a, const Type *b)
{
	if (a->rank != b->rank)
		return false;
	for (int i = 0; i < a->rank; i++)
		if (a->dims[i] != b->dims[i])
			return false;
	return true;
}

bool type_equal(const Type *a, const Type *b)
{
	return a->dtype == b->dtype && type_same_shape(a, b) && a->layout == b->layout &&
	       a->block == b->block && a->quant == b->quant;
}

bool type_broadcast(const Type *a, const Type *b, Type *out)
{
	int rank = a->rank > b->rank ? a->rank : b->rank;
	Type r = type_make(a->dtype, rank, NULL);
	for (int i = 0; i < rank; i++) {
		int ia = i - (rank - a->rank), ib = i - (rank - b->rank);
		int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
		if (da == db || db == 1)
			r.dims[i] = da;
		else if (da == 1)
			r.dims[i] = db;
		else
			return false;
	}
	*out = r;
	return true;
}

char *type_format(const Type *t, char *buf, size_t cap)
{
	size_t len = 0;
	int n = snprintf(buf, cap, "%s[", dtype_name(t->dtype));
	len = n > 0 ? (size_t)n : 0;
	for (int i = 0; i < t->rank && len < cap; i++) {
		n = snprintf(buf + len, cap - len, i ? ",%lld" : "%lld", (long long)t->dims[i]);
		len += n > 0 ? (size_t)n : 0;
	}
	if (len < cap)
		snprintf(buf + len, cap - len, "]");
	return buf;
}
