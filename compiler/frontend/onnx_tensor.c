/* onnx_tensor.c — frontend: TensorProto → constant value. Handles every storage
 * form (raw_data, the typed *_data fields, external data), checks dims against the
 * data in 64-bit arithmetic, confines external data to the model's directory, and
 * parses --bind values and tensor files (.pb / .npy).
 *
 * All tensor bytes end up in the graph's blob: raw and external data are copied
 * straight from the file buffer or a read-only mapping, typed fields are converted
 * to the little-endian element layout first.
 */
#include "onnx_internal.h"
#include "ingot_tensor_io.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const dtype_labels[] = {
	"UNDEFINED", "FLOAT", "UINT8", "INT8", "UINT16", "INT16", "INT32", "INT64", "STRING",
	"BOOL", "FLOAT16", "DOUBLE", "UINT32", "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16",
	/* newer than ONNX 1.12 */
	"FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "UINT4", "INT4",
	"FLOAT4E2M1", "FLOAT8E8M0", "UINT2", "INT2",
};

const char *onnx_dtype_label(int code)
{
	return code >= 0 && code < COUNTOF(dtype_labels) ? dtype_labels[code] : NULL;
}

int onnx_dtype_check(Loader *L, int code, const DiagLoc *loc, DType *out)
{
	const char *name = onnx_dtype_label(code);
	*out = DT_UNDEF;
	if (code == DT_UNDEF)
		return onnx_fail(L, DC_TYPE, loc, "element type is UNDEFINED");
	if (name && !dtype_is_valid(code))
		return onnx_fail(L, DC_UNSUPPORTED, loc, "element type %s (%d) is not supported%s",
		                 name, code, code >= DT_COUNT ? " (newer than ONNX 1.12)" : "");
	if (!name)
		return onnx_fail(L, DC_TYPE, loc, "unknown element type %d", code);
	*out = (DType)code;
	return 0;
}

static bool host_is_le(void)
{
	const uint16_t one = 1;
	return *(const uint8_t *)&one == 1;
}

/* Little-endian file bytes → host order, in place. */
static void from_le(void *p, int64_t n, size_t elem)
{
	if (host_is_le() || elem == 1)
		return;
	uint8_t *b = p;
	for (int64_t i = 0; i < n; i++, b += elem)
		for (size_t k = 0; k < elem / 2; k++) {
			uint8_t t = b[k];
			b[k] = b[elem - 1 - k];
			b[elem - 1 - k] = t;
		}
}

static char *type_str(const Type *t, char *buf, size_t cap) { return type_format(t, buf, cap); }

/* Parses a non-negative decimal int64 ("4096"); false if malformed or out of range. */
static bool parse_size(const char *s, int64_t *out)
{
	char *end;
	if (!s || !*s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || *end || v < 0)
		return false;
	*out = v;
	return true;
}

/* A mapping (or, failing that, a read) of part of an external data file. */
typedef struct ExtData {
	void *map;
	size_t map_len;
	void *heap;
	const void *p;
} ExtData;

static void ext_release(ExtData *e)
{
	if (e->map)
		munmap(e->map, e->map_len);
	free(e->heap);
	memset(e, 0, sizeof *e);
}

/* Opens external data `location` for reading, relative to the model's directory:
 * '.' and '..' are resolved by name (a path that climbs out of the directory is an
 * error), then every component is opened with openat from the one before it, with
 * O_NOFOLLOW (a symbolic link anywhere on the path is an error) and the file itself
 * with O_NONBLOCK (a FIFO cannot hang the load; the caller's fstat rejects it). No
 * check-then-open race: what is checked is the open file. The fd, or -1 after a
 * diagnostic. */
static int ext_open(Loader *L, const char *location, const DiagLoc *loc)
{
	char *comps[256];
	int n = 0, fd = -1;
	if (location[0] == '/') {
		onnx_fail(L, DC_IO, loc, "cannot open external data '%s': an absolute path (a location "
		          "is relative to the model's directory)", location);
		return -1;
	}
	char *path = strdup(location);
	if (!path)
		die("out of memory");
	for (char *save = NULL, *c = strtok_r(path, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (strcmp(c, ".") == 0)
			continue;
		if (strcmp(c, "..") == 0) {
			if (n == 0) {
				onnx_fail(L, DC_IO, loc, "external data location '%s' is outside the model's "
				          "directory", location);
				goto out;
			}
			n--;
		} else if (n == (int)COUNTOF(comps)) {
			onnx_fail(L, DC_IO, loc, "external data location '%s' is nested too deep", location);
			goto out;
		} else {
			comps[n++] = c;
		}
	}
	if (n == 0) {
		onnx_fail(L, DC_IO, loc, "external data '%s' is not a regular file (a directory)", location);
		goto out;
	}
	fd = open(L->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bool link = false;
	for (int i = 0; i < n && fd >= 0; i++) {
		int flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (i + 1 < n ? O_DIRECTORY : O_NONBLOCK);
		int next = openat(fd, comps[i], flags);
		int err = errno;
		struct stat st;
		/* a link to a directory fails O_DIRECTORY | O_NOFOLLOW with ENOTDIR */
		link = next < 0 && (err == ELOOP || (err == ENOTDIR && fstatat(fd, comps[i], &st,
		                                                               AT_SYMLINK_NOFOLLOW) == 0 &&
		                                     S_ISLNK(st.st_mode)));
		close(fd);
		fd = next;
		errno = err;
	}
	if (fd < 0) {
		if (link)
			onnx_fail(L, DC_IO, loc, "cannot open external data '%s': a symbolic link on its path "
			          "(links are not followed)", location);
		else
			onnx_fail(L, DC_IO, loc, "cannot open external data '%s': %s", location, strerror(errno));
	}
out:
	free(path);
	return fd;
}

static int ext_read(Loader *L, const Onnx__TensorProto *t, int64_t bytes, const Type *ty,
                    const DiagLoc *loc, ExtData *e)
{
	const char *location = NULL, *off_s = NULL, *len_s = NULL;
	int64_t off = 0, len = -1;
	char tb[128];
	int rc = -1, fd = -1;

	memset(e, 0, sizeof *e);
	for (size_t i = 0; i < t->n_external_data; i++) {
		const Onnx__StringStringEntryProto *kv = t->external_data[i];
		const char *k = kv->key ? kv->key : "";
		if (strcmp(k, "location") == 0)
			location = kv->value;
		else if (strcmp(k, "offset") == 0)
			off_s = kv->value;
		else if (strcmp(k, "length") == 0)
			len_s = kv->value;
	}
	if (!location || !location[0])
		return onnx_fail(L, DC_PARSE, loc, "external data without a location");
	if (off_s && !parse_size(off_s, &off))
		return onnx_fail(L, DC_PARSE, loc, "bad external data offset '%s'", off_s);
	if (len_s && !parse_size(len_s, &len))
		return onnx_fail(L, DC_PARSE, loc, "bad external data length '%s'", len_s);

	/* the file must lie inside the model's directory: opened component by component
	 * from the directory's fd, never following a symlink and never blocking */
	fd = ext_open(L, location, loc);
	struct stat st;
	if (fd < 0)
		goto out;
	if (fstat(fd, &st) != 0) {
		onnx_fail(L, DC_IO, loc, "cannot open external data '%s': %s", location, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		onnx_fail(L, DC_IO, loc, "external data '%s' is not a regular file (%s)", location,
		          S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO" :
		          S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" : "a special file");
		goto out;
	}
	int64_t size = (int64_t)st.st_size, end;
	if (len < 0)
		len = off <= size ? size - off : -1;
	if (len < 0 || !size_add(off, len, &end) || end > size) {
		onnx_fail(L, DC_PARSE, loc, "external data offset %lld + length %lld is past the end "
		          "of '%s' (%lld bytes)", (long long)off, (long long)(len < 0 ? 0 : len),
		          location, (long long)size);
		goto out;
	}
	if (len != bytes) {
		onnx_fail(L, DC_SHAPE, loc, "external data has %lld bytes, expected %lld for %s",
		          (long long)len, (long long)bytes, type_str(ty, tb, sizeof tb));
		goto out;
	}
	if (len == 0 || (uint64_t)len > SIZE_MAX) {
		rc = len == 0 ? 0 : onnx_fail(L, DC_LIMIT, loc, "external data too large");
		goto out;
	}
	/* map large files rather than copying them twice */
	long page = sysconf(_SC_PAGESIZE);
	int64_t base = page > 0 ? off - off % page : off;
	e->map_len = (size_t)(end - base);
	e->map = mmap(NULL, e->map_len, PROT_READ, MAP_PRIVATE, fd, (off_t)base);
	if (e->map == MAP_FAILED) {
		e->map = NULL;
		e->heap = malloc((size_t)len);
		if (!e->heap) {
			onnx_fail(L, DC_LIMIT, loc, "out of memory reading %lld bytes of external data",
			          (long long)len);
			goto out;
		}
		for (int64_t got = 0; got < len;) {
			ssize_t r = pread(fd, (uint8_t *)e->heap + got, (size_t)(len - got), (off_t)(off + got));
			if (r <= 0) {
				onnx_fail(L, DC_IO, loc, "read error in external data '%s'", location);
				goto out;
			}
			got += r;
		}
		e->p = e->heap;
	} else {
		e->p = (const uint8_t *)e->map + (off - base);
	}
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	if (rc)
		ext_release(e);
	return rc;
}

ValueId onnx_const_new(Loader *L, RegionId r, const char *name, const Type *t,
                       const void *data, const DiagLoc *loc)
{
	/* grow the blob here, where running out of memory is a diagnostic, so that
	 * ir_blob_add (which dies on failure) finds the room already there */
	Graph *g = L->g;
	int64_t bytes = type_bytes(t), need;
	if (bytes < 0 || !size_add(g->blob_size, bytes, &need) || !size_add(need, 64, &need)) {
		onnx_fail(L, DC_LIMIT, loc, "constant size overflows 64 bits");
		return IR_NONE;
	}
	if (need > g->blob_cap) {
		int64_t cap = g->blob_cap ? g->blob_cap : 4096;
		while (cap < need)
			cap = cap > INT64_MAX / 2 ? need : cap * 2;
		uint8_t *p = (uint64_t)cap <= SIZE_MAX ? realloc(g->blob, (size_t)cap) : NULL;
		if (!p && (uint64_t)need <= SIZE_MAX) {
			cap = need;
			p = realloc(g->blob, (size_t)cap);
		}
		if (!p) {
			onnx_fail(L, DC_LIMIT, loc, "out of memory: the constants need %lld bytes",
			          (long long)need);
			return IR_NONE;
		}
		g->blob = p;
		g->blob_cap = cap;
	}
	return ir_value_new_const(g, r, name, t, data);
}

/* Converts the elements of a typed *_data field to the element layout of dt. */
static void convert_typed(DType dt, const void *src, int src_kind, int64_t n, void *dst)
{
	/* src_kind: 0 int32_data, 1 uint64_data */
	for (int64_t i = 0; i < n; i++) {
		uint64_t v = src_kind == 0 ? (uint64_t)(int64_t)((const int32_t *)src)[i]
		                           : ((const uint64_t *)src)[i];
		switch (dt) {
		case DT_BOOL: ((uint8_t *)dst)[i] = v != 0; break;
		case DT_I8: case DT_U8: case DT_F8E4M3FN: case DT_F8E4M3FNUZ: case DT_F8E5M2:
		case DT_F8E5M2FNUZ: case DT_F8E8M0: ((uint8_t *)dst)[i] = (uint8_t)v; break;
		case DT_I16: case DT_U16: case DT_F16: case DT_BF16:
			((uint16_t *)dst)[i] = (uint16_t)v; break;
		case DT_I32: case DT_U32: ((uint32_t *)dst)[i] = (uint32_t)v; break;
		default: ((uint64_t *)dst)[i] = v; break;
		}
	}
}

/* The elements of a packed 4- or 2-bit tensor (ingot_dtype_is_packed), one byte each,
 * on the heap. */
static void *unpack_sub(DType dt, const uint8_t *src, int64_t numel)
{
	uint8_t *dst = malloc((size_t)numel + 1);
	if (!dst)
		die("out of memory");
	ingot_unpack_sub(dt, src, dst, (size_t)numel);
	return dst;
}

/* A string tensor: string_data only, each element into a zero-padded slot of
 * INGOT_STRING_CAP bytes (ingot_rt.h). */
static ValueId string_import(Loader *L, const Onnx__TensorProto *t, RegionId r,
                             const char *name, const Type *ty, const DiagLoc *loc)
{
	char tb[128];
	int64_t numel = type_numel(ty);
	if (t->has_data_location && t->data_location != ONNX__TENSOR_PROTO__DATA_LOCATION__DEFAULT) {
		onnx_fail(L, DC_UNSUPPORTED, loc, "string tensors with external data are not supported");
		return IR_NONE;
	}
	if (t->has_raw_data || t->n_float_data || t->n_int32_data || t->n_int64_data ||
	    t->n_double_data || t->n_uint64_data) {
		onnx_fail(L, DC_PARSE, loc, "a string tensor keeps its elements in string_data only");
		return IR_NONE;
	}
	if ((int64_t)t->n_string_data != numel) {
		onnx_fail(L, DC_SHAPE, loc, "string_data has %zu elements, expected %lld for %s",
		          t->n_string_data, (long long)numel, type_str(ty, tb, sizeof tb));
		return IR_NONE;
	}
	char *slots = calloc((size_t)numel + 1, INGOT_STRING_CAP);
	if (!slots)
		die("out of memory");
	for (int64_t i = 0; i < numel; i++) {
		const ProtobufCBinaryData *e = &t->string_data[i];
		if (e->len > INGOT_STRING_CAP - 1) {
			onnx_fail(L, DC_LIMIT, loc, "string element %lld has %zu bytes, at most %d fit a "
			          "string slot (INGOT_STRING_CAP)", (long long)i, e->len, INGOT_STRING_CAP - 1);
			free(slots);
			return IR_NONE;
		}
		if (e->len && memchr(e->data, 0, e->len)) {
			onnx_fail(L, DC_PARSE, loc, "string element %lld holds a NUL byte", (long long)i);
			free(slots);
			return IR_NONE;
		}
		if (e->len)
			memcpy(slots + i * INGOT_STRING_CAP, e->data, e->len);
	}
	ValueId v = onnx_const_new(L, r, name, ty, slots, loc);
	free(slots);
	return v;
}

ValueId onnx_tensor_import(Loader *L, const Onnx__TensorProto *t, RegionId r,
                           const char *name, const DiagLoc *loc)
{
	Type ty;
	DType dt;
	char tb[128];
	int64_t dims[IR_MAX_RANK];

	if (onnx_check_unknown(L, &t->base, loc))
		return IR_NONE;
	if (!t->has_data_type) {
		onnx_fail(L, DC_TYPE, loc, "tensor has no data_type");
		return IR_NONE;
	}
	if (t->n_string_data && t->data_type != DT_STRING) {
		onnx_fail(L, DC_PARSE, loc, "string_data given for a %s tensor",
		          onnx_dtype_label(t->data_type) ? onnx_dtype_label(t->data_type) : "?");
		return IR_NONE;
	}
	if (onnx_dtype_check(L, t->data_type, loc, &dt))
		return IR_NONE;
	if (t->segment) {
		onnx_fail(L, DC_UNSUPPORTED, loc, "segmented tensors are not supported");
		return IR_NONE;
	}
	if (t->n_dims > IR_MAX_RANK) {
		onnx_fail(L, DC_UNSUPPORTED, loc, "rank %zu exceeds the maximum of %d", t->n_dims,
		          IR_MAX_RANK);
		return IR_NONE;
	}
	for (size_t i = 0; i < t->n_dims; i++) {
		if (t->dims[i] < 0) {
			onnx_fail(L, DC_SHAPE, loc, "negative dim %lld at index %zu",
			          (long long)t->dims[i], i);
			return IR_NONE;
		}
		dims[i] = t->dims[i];
	}
	ty = type_make(dt, (int)t->n_dims, dims);
	int64_t numel = type_numel(&ty), bytes = type_bytes(&ty);
	if (numel < 0 || bytes < 0) {
		onnx_fail(L, DC_LIMIT, loc, "tensor size overflows 64 bits");
		return IR_NONE;
	}
	size_t esz = dtype_size(dt);
	int64_t file_bytes = ingot_dtype_is_packed(dt) ? (int64_t)ingot_packed_bytes(dt, (size_t)numel) : bytes;   /* bytes in the file */

	const void *src = NULL;
	void *heap = NULL;
	ExtData ext;
	memset(&ext, 0, sizeof ext);
	ValueId v = IR_NONE;

	if (dt == DT_STRING)
		return string_import(L, t, r, name, &ty, loc);
	if (t->has_data_location && t->data_location != ONNX__TENSOR_PROTO__DATA_LOCATION__DEFAULT) {
		if (t->data_location != ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) {
			onnx_fail(L, DC_PARSE, loc, "unknown data_location %d", (int)t->data_location);
			return IR_NONE;
		}
		if (ext_read(L, t, file_bytes, &ty, loc, &ext))
			return IR_NONE;
		src = ext.p;
		if (ingot_dtype_is_packed(dt)) {
			src = heap = unpack_sub(dt, ext.p, numel);
		} else if (!host_is_le() && esz > 1 && bytes) {
			heap = malloc((size_t)bytes);
			if (!heap)
				die("out of memory");
			memcpy(heap, src, (size_t)bytes);
			from_le(heap, numel, esz);
			src = heap;
		}
		goto make;
	}

	/* exactly one storage form may hold the elements */
	struct { const char *name; size_t n; } forms[] = {
		{ "raw_data", t->has_raw_data ? t->raw_data.len : 0 },
		{ "float_data", t->n_float_data }, { "int32_data", t->n_int32_data },
		{ "int64_data", t->n_int64_data }, { "double_data", t->n_double_data },
		{ "uint64_data", t->n_uint64_data },
	};
	int form = -1;
	for (int i = 0; i < COUNTOF(forms); i++) {
		if (!forms[i].n)
			continue;
		if (form >= 0) {
			onnx_fail(L, DC_PARSE, loc, "tensor has both %s and %s", forms[form].name,
			          forms[i].name);
			return IR_NONE;
		}
		form = i;
	}
	if (form < 0) {
		if (numel != 0) {
			onnx_fail(L, DC_PARSE, loc, "tensor %s has no data", type_str(&ty, tb, sizeof tb));
			return IR_NONE;
		}
		goto make;
	}
	if (form == 0) {
		if ((int64_t)t->raw_data.len != file_bytes) {
			onnx_fail(L, DC_SHAPE, loc, "raw_data has %zu bytes, expected %lld for %s",
			          t->raw_data.len, (long long)file_bytes, type_str(&ty, tb, sizeof tb));
			return IR_NONE;
		}
		src = t->raw_data.data;
		if (ingot_dtype_is_packed(dt)) {
			src = heap = unpack_sub(dt, t->raw_data.data, numel);
			goto make;
		}
		if ((!host_is_le() && esz > 1) || dt == DT_BOOL) {
			heap = malloc((size_t)bytes);
			if (!heap)
				die("out of memory");
			memcpy(heap, src, (size_t)bytes);
			from_le(heap, numel, esz);
			if (dt == DT_BOOL)   /* kernels rely on bools being 0 or 1 */
				for (int64_t i = 0; i < numel; i++)
					((uint8_t *)heap)[i] = ((uint8_t *)heap)[i] != 0;
			src = heap;
		}
		goto make;
	}

	/* which element types each typed field may carry (onnx.proto) */
	bool ok;
	switch (form) {
	case 1: ok = dt == DT_F32; break;
	case 2: ok = dt == DT_I32 || dt == DT_I16 || dt == DT_I8 || dt == DT_U16 || dt == DT_U8 ||
	             dt == DT_BOOL || dt == DT_F16 || dt == DT_BF16 || dtype_is_small(dt); break;
	case 3: ok = dt == DT_I64; break;
	case 4: ok = dt == DT_F64; break;
	default: ok = dt == DT_U32 || dt == DT_U64; break;
	}
	if (!ok) {
		onnx_fail(L, DC_PARSE, loc, "%s cannot hold %s elements", forms[form].name,
		          dtype_onnx_name(dt));
		return IR_NONE;
	}
	if ((int64_t)forms[form].n != (ingot_dtype_is_packed(dt) ? file_bytes : numel)) {
		onnx_fail(L, DC_SHAPE, loc, "%s has %zu elements, expected %lld for %s",
		          forms[form].name, forms[form].n,
		          (long long)(ingot_dtype_is_packed(dt) ? file_bytes : numel), type_str(&ty, tb, sizeof tb));
		return IR_NONE;
	}
	if (ingot_dtype_is_packed(dt)) {             /* int32_data: one packed byte (2 or 4 elements) each */
		uint8_t *bytes4 = malloc((size_t)file_bytes + 1);
		if (!bytes4)
			die("out of memory");
		for (int64_t i = 0; i < file_bytes; i++)
			bytes4[i] = (uint8_t)t->int32_data[i];
		src = heap = unpack_sub(dt, bytes4, numel);
		free(bytes4);
		goto make;
	}
	switch (form) {
	case 1: src = t->float_data; break;
	case 3: src = t->int64_data; break;
	case 4: src = t->double_data; break;
	default:
		heap = malloc((size_t)bytes + 1);
		if (!heap)
			die("out of memory");
		convert_typed(dt, form == 2 ? (const void *)t->int32_data : (const void *)t->uint64_data,
		              form == 2 ? 0 : 1, numel, heap);
		src = heap;
		break;
	}
make:
	v = onnx_const_new(L, r, name, &ty, src, loc);
	free(heap);
	ext_release(&ext);
	return v;
}

/* ---- --bind values ---- */

typedef struct Num {
	bool is_int;
	long long i;
	double f;
} Num;

static bool parse_num(const char *s, size_t n, Num *out)
{
	char buf[64], *end;
	if (n == 0 || n >= sizeof buf)
		return false;
	memcpy(buf, s, n);
	buf[n] = 0;
	if (strcmp(buf, "true") == 0 || strcmp(buf, "false") == 0) {
		out->is_int = true;
		out->i = buf[0] == 't';
		return true;
	}
	errno = 0;
	out->i = strtoll(buf, &end, 10);
	if (!*end && end != buf && !errno) {
		out->is_int = true;
		return true;
	}
	errno = 0;
	out->f = strtod(buf, &end);
	out->is_int = false;
	return !*end && end != buf;
}

/* Stores one bound number as element i of dt; false if it does not fit. */
static bool store_num(DType dt, const Num *x, void *data, int64_t i)
{
	double f = x->is_int ? (double)x->i : x->f;
	long long iv;
	if (dtype_is_float(dt)) {
		ingot_stf(dt, data, i, f);
		return true;
	}
	if (dt == DT_BOOL) {
		((uint8_t *)data)[i] = f != 0;
		return true;
	}
	if (x->is_int) {
		iv = x->i;
	} else {
		/* a float cast to an integer type truncates toward zero, in range only */
		if (!(f > -9.3e18 && f < 9.3e18))
			return false;
		iv = (long long)f;
	}
	switch (dt) {
	case DT_I8: if (iv < INT8_MIN || iv > INT8_MAX) return false;
		((int8_t *)data)[i] = (int8_t)iv; break;
	case DT_U8: if (iv < 0 || iv > UINT8_MAX) return false;
		((uint8_t *)data)[i] = (uint8_t)iv; break;
	case DT_I16: if (iv < INT16_MIN || iv > INT16_MAX) return false;
		((int16_t *)data)[i] = (int16_t)iv; break;
	case DT_U16: if (iv < 0 || iv > UINT16_MAX) return false;
		((uint16_t *)data)[i] = (uint16_t)iv; break;
	case DT_I32: if (iv < INT32_MIN || iv > INT32_MAX) return false;
		((int32_t *)data)[i] = (int32_t)iv; break;
	case DT_U32: if (iv < 0 || iv > (long long)UINT32_MAX) return false;
		((uint32_t *)data)[i] = (uint32_t)iv; break;
	case DT_I64: ((int64_t *)data)[i] = iv; break;
	case DT_U64: if (iv < 0) return false;
		((uint64_t *)data)[i] = (uint64_t)iv; break;
	default: return false;
	}
	return true;
}

int onnx_parse_bind_value(Loader *L, const char *spec, DType dt, const DiagLoc *loc,
                          void **data, int64_t *n)
{
	int64_t count = 1;
	*data = NULL;
	*n = 0;
	for (const char *p = spec; *p; p++)
		count += *p == ',';
	Num *nums = malloc((size_t)count * sizeof *nums);
	if (!nums)
		die("out of memory");
	const char *p = spec;
	for (int64_t k = 0; k < count; k++) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (!parse_num(p, len, &nums[k])) {
			free(nums);
			return 1;   /* not a number list: a file name */
		}
		p += len + 1;
	}
	if (dt == DT_STRING) {
		free(nums);
		return onnx_fail(L, DC_USAGE, loc, "--bind of a string input takes a tensor file "
		                 "(.pb with string_data), not a number list");
	}
	uint8_t *buf = malloc((size_t)count * dtype_size(dt) + 1);
	if (!buf)
		die("out of memory");
	for (int64_t k = 0; k < count; k++) {
		if (!store_num(dt, &nums[k], buf, k)) {
			onnx_fail(L, DC_USAGE, loc, "--bind value %lld (element %lld) does not fit %s",
			          nums[k].is_int ? nums[k].i : (long long)nums[k].f, (long long)k,
			          dtype_name(dt));
			free(nums);
			free(buf);
			return -1;
		}
	}
	free(nums);
	*data = buf;
	*n = count;
	return 0;
}

/* ---- tensor files (--bind FILE, `ingot check` data sets) ---- */

int onnx_read_tensor_file(const char *path, Type *t, void **data, DiagSink *d)
{
	ingot_tensor it;
	char err[256];
	DiagLoc l = diag_loc_file(path);

	*data = NULL;
	memset(&it, 0, sizeof it);
	if (ingot_tensor_read(path, &it, err, sizeof err) != 0) {
		diag_report(d, DIAG_ERROR, DC_IO, &l, "cannot read tensor: %s", err);
		return -1;
	}
	if (!dtype_is_valid(it.dtype)) {
		const char *name = onnx_dtype_label(it.dtype);
		diag_report(d, DIAG_ERROR, DC_UNSUPPORTED, &l, "element type %s is not supported",
		            name ? name : "?");
		ingot_tensor_free(&it);
		return -1;
	}
	if (it.rank < 0 || it.rank > IR_MAX_RANK) {
		diag_report(d, DIAG_ERROR, DC_UNSUPPORTED, &l, "rank %d is not supported", it.rank);
		ingot_tensor_free(&it);
		return -1;
	}
	*t = type_make((DType)it.dtype, it.rank, it.dims);
	int64_t bytes = type_bytes(t);
	if (bytes < 0 || (uint64_t)bytes != (uint64_t)it.bytes || (bytes && !it.data)) {
		diag_report(d, DIAG_ERROR, DC_PARSE, &l, "tensor data has %zu bytes, expected %lld",
		            it.bytes, (long long)bytes);
		ingot_tensor_free(&it);
		return -1;
	}
	*data = it.data ? it.data : malloc(1);
	if (!*data)
		die("out of memory");
	return 0;
}
